//! Issue 14's reproducers, generated here: each finishes within its bounds (time, peak RSS
//! via FRAMEPROBE_REPORT_PEAK_RSS) and fails the way a user can act on.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Instant;

use frameprobe::trace::wire::{put_field, put_varint, Value};

/// A scratch directory of this test binary.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("frameprobe-hostile-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A run of the binary with its wall time and peak resident set.
struct Run {
    out: Output,
    secs: f64,
    peak_mib: f64,
}

impl Run {
    /// Standard error without the peak-RSS line the measurement asked for.
    fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.out.stderr)
            .lines()
            .filter(|l| !l.starts_with("peak_rss_kib="))
            .map(|l| format!("{l}\n"))
            .collect()
    }
    fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.out.stdout).into_owned()
    }
    fn code(&self) -> Option<i32> {
        self.out.status.code()
    }
    /// Issue 14's bound for every reproducer: under 10 s and under 1 GB.
    fn within(&self, secs: f64, mib: f64) -> &Self {
        eprintln!(
            "measured: {:.2} s, {:.0} MiB peak RSS",
            self.secs, self.peak_mib
        );
        assert!(self.secs < secs, "took {:.1} s", self.secs);
        assert!(self.peak_mib < mib, "peak RSS {:.0} MiB", self.peak_mib);
        self
    }
}

fn run(args: &[&str]) -> Run {
    let t = Instant::now();
    let out = Command::new(common::bin())
        .args(args)
        .env("FRAMEPROBE_REPORT_PEAK_RSS", "1")
        .output()
        .expect("run frameprobe");
    let secs = t.elapsed().as_secs_f64();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let kib: f64 = stderr
        .lines()
        .find_map(|l| l.strip_prefix("peak_rss_kib="))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0.0);
    Run {
        out,
        secs,
        peak_mib: kib / 1024.0,
    }
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn packet(fields: &[u8]) -> Vec<u8> {
    let mut out = vec![0x0a];
    put_varint(&mut out, fields.len() as u64);
    out.extend_from_slice(fields);
    out
}

fn zlib(bytes: &[u8], level: flate2::Compression) -> Vec<u8> {
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), level);
    z.write_all(bytes).unwrap();
    z.finish().unwrap()
}

/// A top-level packet whose compressed_packets (field 50) holds `trace` (here a zero run
/// standing for one: the blob's size is what matters).
fn compressed_packet(trace: &[u8], level: flate2::Compression) -> Vec<u8> {
    let mut f = Vec::new();
    put_field(&mut f, 50, Value::Bytes(&zlib(trace, level)));
    packet(&f)
}

/// zlib with stored (uncompressed) deflate blocks, written directly: building thousands of
/// levels is quadratic in bytes, so this must be no slower than a copy.
fn zlib_stored(data: &[u8], out: &mut Vec<u8>) {
    out.extend_from_slice(&[0x78, 0x01]);
    let mut chunks = data.chunks(65_535).peekable();
    if chunks.peek().is_none() {
        out.extend_from_slice(&[1, 0, 0, 0xff, 0xff]);
    }
    while let Some(c) = chunks.next() {
        out.push(u8::from(chunks.peek().is_none()));
        let n = c.len() as u16;
        out.extend_from_slice(&n.to_le_bytes());
        out.extend_from_slice(&(!n).to_le_bytes());
        out.extend_from_slice(c);
    }
    let (mut a, mut b) = (1u32, 0u32);
    for block in data.chunks(5552) {
        for &x in block {
            a += u32::from(x);
            b += a;
        }
        a %= 65_521;
        b %= 65_521;
    }
    out.extend_from_slice(&((b << 16) | a).to_be_bytes());
}

/// `depth` levels of compressed_packets around one small packet (stored deflate blocks:
/// each level adds a few bytes, as in the 61 KB / 369 KB files).
fn nested_trace(depth: usize) -> Vec<u8> {
    let mut t = packet(&[0x40, 1]); // timestamp = 1
    let mut z = Vec::new();
    let mut f = Vec::new();
    for _ in 0..depth {
        z.clear();
        zlib_stored(&t, &mut z);
        f.clear();
        put_field(&mut f, 50, Value::Bytes(&z));
        t.clear();
        t.push(0x0a);
        put_varint(&mut t, f.len() as u64);
        t.extend_from_slice(&f);
    }
    t
}

#[test]
fn deep_nesting_in_a_check_directory_is_one_trace_error() {
    // Issue item 1: 3,100 levels aborted `check --jobs 8` (stack overflow, exit 134) for the
    // whole directory. Now the trace loads in bounded depth; the bad files of the directory
    // are errors of their own while the others are evaluated.
    let d = scratch("gate");
    std::fs::write(d.join("Nested_iter000.perfetto-trace"), nested_trace(3_100)).unwrap();
    std::fs::write(d.join("Empty_iter000.perfetto-trace"), b"").unwrap();
    std::fs::write(
        d.join("Json_iter000.perfetto-trace"),
        b"{\"traceEvents\":[]}",
    )
    .unwrap();
    let sample = std::fs::read(common::sample_trace()).unwrap();
    for i in 0..6 {
        std::fs::write(d.join(format!("Scroll_iter{i:03}.perfetto-trace")), &sample).unwrap();
    }
    let junit = d.join("out").join("junit.xml");
    std::fs::create_dir_all(junit.parent().unwrap()).unwrap();
    let r = run(&[
        "check",
        s(&d),
        "--process",
        "com.example.scroller",
        "--max-jank-rate",
        "100",
        "--jobs",
        "8",
        "--format",
        "junit",
        "-o",
        s(&junit),
    ]);
    r.within(10.0, 1024.0);
    assert_eq!(r.code(), Some(2), "{}", r.stderr());
    // The gate names the refusal, with its byte offset, for that trace.
    assert!(
        r.stderr().contains(
            "Nested_iter000.perfetto-trace: compressed packets at byte offset 0 skipped: nested more than 8 levels deep"
        ),
        "{}",
        r.stderr()
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.contains("Scroll"),
        "the good traces were evaluated: {xml}"
    );
    assert!(
        xml.contains("Empty_iter000") && xml.contains("is empty"),
        "{xml}"
    );
    assert!(
        xml.contains("Json_iter000") && xml.contains("JSON trace"),
        "{xml}"
    );
    let nested = run(&[
        "query",
        s(&d.join("Nested_iter000.perfetto-trace")),
        "select name, value from stats where value > 0",
        "--format",
        "csv",
    ]);
    assert!(
        nested
            .stdout()
            .contains("compressed_packets_nesting_too_deep,1"),
        "{}",
        nested.stdout()
    );
    assert!(
        nested.stderr().contains("byte offset 0"),
        "{}",
        nested.stderr()
    );
}

#[test]
fn twelve_thousand_levels_stay_small() {
    // Issue item 2: 12,000 levels took 2.1 GB (each level's buffer held while the next
    // expanded). Only MAX_COMPRESSION_NESTING levels are expanded now.
    let d = scratch("deep");
    let p = d.join("deep.pftrace");
    std::fs::write(&p, nested_trace(12_000)).unwrap();
    let r = run(&[
        "query",
        s(&p),
        "select value from stats where name = 'compressed_packets_nesting_too_deep'",
        "--format",
        "csv",
    ]);
    r.within(10.0, 1024.0);
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert_eq!(r.stdout().trim(), "value\n1");
}

#[test]
fn many_big_blobs_use_up_the_budget_quickly() {
    // Issue item 2: a small zstd blob holding ~1,100 zlib blobs of 127 MiB each ran for two
    // minutes (each blob was under the per-blob cap; nothing bounded the total).
    let inner = compressed_packet(&vec![0u8; 127 << 20], flate2::Compression::best());
    let count = (127 << 20) / inner.len();
    let mut blobs = Vec::with_capacity(count * inner.len());
    for _ in 0..count {
        blobs.extend_from_slice(&inner);
    }
    let mut f = Vec::new();
    put_field(
        &mut f,
        133,
        Value::Bytes(&zstd::encode_all(&blobs[..], 3).unwrap()),
    );
    drop(blobs);
    let d = scratch("blobs");
    let p = d.join("blobs.pftrace");
    let mut bytes = std::fs::read(common::sample_trace()).unwrap();
    bytes.extend(packet(&f));
    std::fs::write(&p, &bytes).unwrap();
    eprintln!(
        "{} inner blobs of 127 MiB in a {} KB file",
        count,
        bytes.len() >> 10
    );
    let r = run(&["query", s(&p), "select (select count(*) from slice) as slices, (select value from stats where name = 'decompression_budget_exceeded') as refused", "--format", "csv"]);
    r.within(10.0, 1024.0);
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    let rows = common::parse_csv(&r.stdout());
    // Everything before the bomb imported; the blobs past the budget refused and counted.
    let plain = common::query_csv(&common::sample_trace(), "select count(*) from slice");
    assert_eq!(rows[1][0], plain[1][0]);
    let refused: usize = rows[1][1].parse().unwrap();
    assert!(refused > count - 10, "{refused} of {count}");
    assert!(
        r.stderr().contains("decompression budget"),
        "{}",
        r.stderr()
    );
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn zero_padding_after_a_compressed_trace_ends_at_the_budget() {
    // Issue item 2: a valid zstd trace followed by 10 GiB of zeros (382 KB compressed) ran
    // past 20 s, the zeros read as (field 0, varint 0) pairs byte by byte.
    let d = scratch("zeros");
    let p = d.join("padded.perfetto-trace.zst");
    {
        // zstd frames concatenate: the trace, then ten frames of 1 GiB of zeros each.
        let mut f = std::fs::File::create(&p).unwrap();
        f.write_all(
            &zstd::encode_all(&std::fs::read(common::sample_trace()).unwrap()[..], 3).unwrap(),
        )
        .unwrap();
        let mut z = zstd::stream::write::Encoder::new(Vec::new(), 1).unwrap();
        let zeros = vec![0u8; 8 << 20];
        for _ in 0..128 {
            z.write_all(&zeros).unwrap();
        }
        let gib = z.finish().unwrap();
        for _ in 0..10 {
            f.write_all(&gib).unwrap();
        }
    }
    eprintln!("{} KB file", std::fs::metadata(&p).unwrap().len() >> 10);
    let r = run(&[
        "query",
        s(&p),
        "select count(*) from slice",
        "--format",
        "csv",
    ]);
    r.within(10.0, 1024.0);
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    let plain = common::query_csv(&common::sample_trace(), "select count(*) from slice");
    assert_eq!(common::parse_csv(&r.stdout()), plain);
    assert!(
        r.stderr()
            .contains("decompression budget of 268435456 bytes used up"),
        "{}",
        r.stderr()
    );
    // The flag moves the bound: 2 GiB of zeros are skipped (a buffer at a time), then the
    // read stops there.
    let r = run(&[
        "query",
        s(&p),
        "select count(*) from slice",
        "--format",
        "csv",
        "--max-decompressed-bytes",
        "2G",
    ]);
    r.within(10.0, 1024.0);
    assert_eq!(common::parse_csv(&r.stdout()), plain);
    assert!(
        r.stderr().contains("budget of 2147483648 bytes"),
        "{}",
        r.stderr()
    );
    let _ = std::fs::remove_dir_all(d);
}

/// The fields of `buf[start..end]`: (field number, where its tag starts, value start,
/// value end); the value of a length-delimited field excludes its length prefix.
fn fields_in(buf: &[u8], start: usize, end: usize) -> Vec<(u64, usize, usize, usize)> {
    use frameprobe::trace::wire::read_varint;
    let mut out = Vec::new();
    let mut q = start;
    while q < end {
        let (tag, v) = read_varint(buf, q).unwrap();
        let (vs, ve) = match tag & 7 {
            0 => (v, read_varint(buf, v).unwrap().1),
            1 => (v, v + 8),
            5 => (v, v + 4),
            _ => {
                let (l, body) = read_varint(buf, v).unwrap();
                (body, body + l as usize)
            }
        };
        out.push((tag >> 3, q, vs, ve));
        q = ve;
    }
    out
}

/// The `n`th ftrace bundle: (its packet's (tag start, value start, value end), its own
/// (tag start, value start, value end) and where its cpu value sits).
type Span = (usize, usize, usize);
fn nth_bundle(trace: &[u8], n: usize) -> (Span, Span, usize) {
    let bundles = fields_in(trace, 0, trace.len())
        .into_iter()
        .flat_map(|(_, pt, ps, pe)| {
            fields_in(trace, ps, pe)
                .into_iter()
                .filter(|f| f.0 == 1)
                .map(move |(_, bt, bs, be)| ((pt, ps, pe), (bt, bs, be)))
        });
    let (pkt, bundle) = bundles.into_iter().nth(n).expect("bundle");
    let cpu = fields_in(trace, bundle.1, bundle.2)
        .into_iter()
        .find(|f| f.0 == 1)
        .expect("cpu field");
    (pkt, bundle, cpu.2)
}

#[test]
fn one_bad_cpu_byte_no_longer_crops_the_trace() {
    // Issue item 3: on api35, cpu 1 -> 127 in bundle 132 (the device has 8 CPUs) made that
    // bundle the "first" of a new CPU, whose data-start timestamp cropped every earlier
    // ftrace event: 30,939 slices became 14,673 and 18,900 sched rows 6,453, with no stat.
    let Some(dir) = common::shared("traces", "one_bad_cpu_byte_no_longer_crops_the_trace") else {
        return;
    };
    let orig =
        std::fs::read(dir.join("androidx_api35_startup_cold_classinit.perfetto-trace")).unwrap();
    let (pkt, bundle, cpu_at) = nth_bundle(&orig, 132);
    assert_eq!(orig[cpu_at], 1);
    let mut bad = orig.clone();
    bad[cpu_at] = 127;
    let d = scratch("api35");
    let p = d.join("cpu127.perfetto-trace");
    std::fs::write(&p, &bad).unwrap();
    let sql = "select (select count(*) from slice) as slices, (select count(*) from sched) as sched, \
               (select sum(value) from stats where name = 'ftrace_bundle_cpu_out_of_range') as refused";
    let r = run(&["query", s(&p), sql, "--format", "csv"]);
    r.within(10.0, 1024.0);
    let rows = common::parse_csv(&r.stdout());
    let n = |i: usize| rows[1][i].parse::<i64>().unwrap();
    // Only the bundle's own events are lost (55 slices, 22 sched rows of 30,939 / 18,900).
    assert!(n(0) > 30_800 && n(0) < 30_939, "{:?}", rows);
    assert!(n(1) > 18_800 && n(1) < 18_900, "{:?}", rows);
    assert_eq!(n(2), 1);
    assert!(
        r.stderr()
            .contains("it names CPU 127, but the device has 8 CPUs"),
        "{}",
        r.stderr()
    );

    // Trailing bytes that decode as a second cpu field (831) are refused the same way.
    let mut body = orig[bundle.1..bundle.2].to_vec();
    body.extend_from_slice(&[0x08, 0xbf, 0x06]);
    let mut inner = orig[pkt.1..bundle.0].to_vec();
    put_field(&mut inner, 1, Value::Bytes(&body));
    inner.extend_from_slice(&orig[bundle.2..pkt.2]);
    let mut out = orig[..pkt.0].to_vec();
    out.extend(packet(&inner));
    out.extend_from_slice(&orig[pkt.2..]);
    let p = d.join("cpu831.perfetto-trace");
    std::fs::write(&p, &out).unwrap();
    let r = run(&["query", s(&p), sql, "--format", "csv"]);
    let rows = common::parse_csv(&r.stdout());
    assert!(
        rows[1][0].parse::<i64>().unwrap() > 30_800,
        "{rows:?} {}",
        r.stderr()
    );
    assert_eq!(rows[1][2], "1");
    assert!(r.stderr().contains("CPU 831"), "{}", r.stderr());
    let _ = std::fs::remove_dir_all(d);
}

/// One top-level packet holding an ftrace bundle of atrace `print` events on CPU 0.
fn print_bundle(pid: i64, prints: &[(i64, &[u8])]) -> Vec<u8> {
    let mut bundle = Vec::new();
    put_field(&mut bundle, 1, Value::Varint(0));
    for (ts, buf) in prints {
        let mut print = Vec::new();
        put_field(&mut print, 2, Value::Bytes(buf));
        let mut ev = Vec::new();
        put_field(&mut ev, 1, Value::Varint(*ts as u64));
        put_field(&mut ev, 2, Value::Varint(pid as u64));
        put_field(&mut ev, 3, Value::Bytes(&print));
        put_field(&mut bundle, 2, Value::Bytes(&ev));
    }
    let mut p = Vec::new();
    put_field(&mut p, 10, Value::Varint(1));
    put_field(&mut p, 1, Value::Bytes(&bundle));
    packet(&p)
}

#[test]
fn errors_are_one_clear_sentence() {
    let d = scratch("errors");
    let first_line = |r: &Run| r.stderr().lines().next().unwrap_or("").to_string();
    let empty = d.join("empty.perfetto-trace");
    std::fs::write(&empty, b"").unwrap();
    for (input, wanted) in [
        (s(&empty).to_string(), "the input is empty (0 bytes)"),
        ("/dev/null".to_string(), "the input is empty (0 bytes)"),
        (
            s(&d.join("missing.pftrace")).to_string(),
            "no such file or directory",
        ),
    ] {
        for cmd in ["analyze", "query"] {
            let mut args = vec![cmd, input.as_str()];
            if cmd == "query" {
                args.push("select 1");
            }
            let r = run(&args);
            assert_eq!(r.code(), Some(2), "{cmd} {input}: {}", r.stderr());
            let line = first_line(&r);
            assert!(
                line.starts_with(&format!("error: cannot load {input}: ")),
                "{line}"
            );
            assert!(line.contains(wanted), "{line}");
            assert_eq!(line.matches(wanted).count(), 1, "said once: {line}");
            assert!(!line.contains("os error"), "{line}");
        }
    }
    for (name, text, wanted) in [
        (
            "t.json",
            &b"{\"traceEvents\": [{\"ph\": \"X\"}]}"[..],
            "JSON trace",
        ),
        (
            "t.txt",
            b"# tracer: nop\n#\n#  TASK-PID\n",
            "systrace / ftrace text trace",
        ),
        ("t.html", b"<!DOCTYPE html>\n<html><head>", "HTML page"),
    ] {
        let p = d.join(name);
        std::fs::write(&p, text).unwrap();
        let r = run(&["analyze", s(&p)]);
        assert_eq!(r.code(), Some(2));
        let line = first_line(&r);
        assert!(line.contains(wanted), "{line}");
        assert!(
            line.contains("frameprobe reads Perfetto protobuf traces"),
            "{line}"
        );
    }
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn a_closed_pipe_ends_quietly_with_success() {
    // `frameprobe ... | head` used to print "error: Broken pipe" and exit 2.
    let sql = "with recursive c(x) as (select 1 union all select x + 1 from c where x < 300000) select x from c";
    for format in ["table", "csv"] {
        let mut child = Command::new(common::bin())
            .args(["query", s(&common::sample_trace()), sql, "--format", format])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut out = child.stdout.take().unwrap();
        let mut buf = [0u8; 100];
        std::io::Read::read_exact(&mut out, &mut buf).unwrap();
        drop(out);
        let status = child.wait().unwrap();
        let mut err = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
        assert_eq!(status.code(), Some(0), "{format}: {err}");
        assert!(err.is_empty(), "{format}: {err}");
    }
}

#[test]
fn invalid_utf8_in_atrace_names_keeps_the_slice() {
    // trace_processor repairs print text by removing malformed UTF-8 sequences
    // (base::CheckAsciiAndRemoveInvalidUTF8): the slice is kept, named without them.
    let d = scratch("utf8");
    let p = d.join("utf8.pftrace");
    let mut bytes = print_bundle(
        42,
        &[
            (1_000, b"B|42|bad\xff\xc0\x80name \xe2\x9c\x93"),
            (2_000, b"E|42"),
        ],
    );
    bytes.extend(print_bundle(42, &[(3_000, b"B|42|ok"), (4_000, b"E|42")]));
    std::fs::write(&p, &bytes).unwrap();
    let rows = common::query_csv(&p, "select name, dur from slice order by ts");
    assert_eq!(
        rows,
        vec![
            vec!["name".to_string(), "dur".into()],
            vec!["badname ✓".into(), "1000".into()],
            vec!["ok".into(), "1000".into()],
        ]
    );
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn a_field_number_past_2_pow_29_is_not_compressed_packets() {
    // Field 2^32 + 50 truncated to 32 bits is 50 (compressed_packets): the blob inside
    // used to be expanded and its packets imported.
    let d = scratch("field");
    let p = d.join("field.pftrace");
    let inner = print_bundle(7, &[(1_000, b"B|7|smuggled"), (2_000, b"E|7")]);
    let mut f = Vec::new();
    put_varint(&mut f, (((1u64 << 32) + 50) << 3) | 2);
    let blob = zlib(&inner, flate2::Compression::fast());
    put_varint(&mut f, blob.len() as u64);
    f.extend_from_slice(&blob);
    let mut bytes = print_bundle(7, &[(500, b"B|7|real"), (600, b"E|7")]);
    bytes.extend(packet(&f));
    std::fs::write(&p, &bytes).unwrap();
    let rows = common::query_csv(
        &p,
        "select (select group_concat(name) from slice) as names, \
         (select value from stats where name = 'packet_malformed') as malformed",
    );
    assert_eq!(rows[1], vec!["real".to_string(), "1".into()]);
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn output_files_are_replaced_only_when_complete() {
    let d = scratch("outputs");
    let keep = d.join("keep.sqlite");
    std::fs::write(&keep, b"the old export").unwrap();
    // A missing trace with --force used to delete the old file before failing.
    let r = run(&[
        "export",
        s(&d.join("missing.pftrace")),
        "-o",
        s(&keep),
        "--force",
    ]);
    assert_eq!(r.code(), Some(2));
    assert_eq!(std::fs::read(&keep).unwrap(), b"the old export");
    // Without --force nothing happens either, and says why.
    let r = run(&["export", s(&common::sample_trace()), "-o", s(&keep)]);
    assert_eq!(r.code(), Some(2));
    assert!(r.stderr().contains("pass --force"), "{}", r.stderr());
    assert_eq!(std::fs::read(&keep).unwrap(), b"the old export");
    // With a good trace the new database replaces it, and no temporary file is left.
    let r = run(&[
        "export",
        s(&common::sample_trace()),
        "-o",
        s(&keep),
        "--force",
    ]);
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert!(std::fs::read(&keep)
        .unwrap()
        .starts_with(b"SQLite format 3\0"));
    assert_eq!(std::fs::read_dir(&d).unwrap().count(), 1);
    // A device node is never replaced by a regular file.
    let r = run(&[
        "export",
        s(&common::sample_trace()),
        "-o",
        "/dev/null",
        "--force",
    ]);
    assert_eq!(r.code(), Some(2));
    assert!(r.stderr().contains("not a regular file"), "{}", r.stderr());
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let ft = std::fs::metadata("/dev/null").unwrap().file_type();
        assert!(ft.is_char_device());
    }
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn dash_means_standard_output_everywhere() {
    let d = scratch("dash");
    let export = Command::new(common::bin())
        .args(["export", s(&common::sample_trace()), "-o", "-"])
        .current_dir(&d)
        .output()
        .unwrap();
    assert!(export.status.success());
    assert!(export.stdout.starts_with(b"SQLite format 3\0"));
    let check = Command::new(common::bin())
        .args([
            "check",
            s(&common::sample_trace()),
            "--process",
            "com.example.scroller",
            "--max-jank-rate",
            "100",
            "--format",
            "json",
            "-o",
            "-",
        ])
        .current_dir(&d)
        .output()
        .unwrap();
    let text = String::from_utf8(check.stdout).unwrap();
    // Printed once, as JSON, and no file named "-".
    assert_eq!(text.matches("\"schema\"").count(), 1, "{text}");
    assert!(serde_json::from_str::<serde_json::Value>(&text).is_ok());
    assert_eq!(std::fs::read_dir(&d).unwrap().count(), 0);
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn table_output_shows_control_characters_as_escapes() {
    let evil = "evil\x1b]0;pwned\x07\x1b[2J\x1b[31mred\r\nsplit";
    let t = frameprobe_tools::synth::generate(&frameprobe_tools::synth::SynthConfig {
        frames: 12,
        process_name: evil.to_string(),
        ..Default::default()
    });
    let d = scratch("escapes");
    let p = d.join("evil.pftrace");
    std::fs::write(&p, &t.bytes).unwrap();
    let tables = [
        run(&["analyze", s(&p)]),
        run(&["frames", s(&p)]),
        run(&[
            "query",
            s(&p),
            "select name from process where name like 'evil%'",
        ]),
    ];
    for r in &tables {
        assert_eq!(r.code(), Some(0), "{}", r.stderr());
        let out = r.stdout();
        assert!(
            !out.contains('\x1b') && !out.contains('\x07') && !out.contains('\r'),
            "{out:?}"
        );
        assert!(
            out.contains("evil\\x1b]0;pwned\\x07\\x1b[2J\\x1b[31mred\\r\\nsplit"),
            "{out}"
        );
        // The CR/LF did not split a row: no line starts with the name's tail.
        assert!(!out.lines().any(|l| l.starts_with("split")), "{out}");
    }
    let q = tables[2].stdout();
    assert!(q.lines().any(|l| l.trim_end() == "(1 row)"), "{q}");
    // CSV and JSON keep the exact bytes.
    let csv = run(&[
        "query",
        s(&p),
        "select name from process where name like 'evil%'",
        "--format",
        "csv",
    ]);
    assert!(csv.stdout().contains(evil));
    let json = run(&["analyze", s(&p), "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json.stdout()).unwrap();
    assert!(v.to_string().contains("\\u001b]0;pwned"));
    // gfxinfo's table names the window from the dump: escaped too.
    let dump = d.join("evil.txt");
    framestats_dump(&dump, 3, None);
    let text = std::fs::read_to_string(&dump)
        .unwrap()
        .replace("Window: com.example.app/", "Window: evil\x1b[2J/");
    std::fs::write(&dump, text).unwrap();
    let r = run(&["gfxinfo", s(&dump)]);
    assert!(
        r.stdout().contains("Window: evil\\x1b[2J/"),
        "{}",
        r.stdout()
    );
    assert!(!r.stdout().contains('\x1b'));
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn query_cannot_write_files_unless_allowed() {
    let d = scratch("readonly");
    let attached = d.join("attached.db");
    let vacuumed = d.join("vacuumed.db");
    let trace = common::sample_trace();
    let r = run(&[
        "query",
        s(&trace),
        &format!("ATTACH '{}' AS x; select 1", s(&attached)),
    ]);
    assert_eq!(r.code(), Some(2));
    assert!(r.stderr().contains("--allow-writes"), "{}", r.stderr());
    let r = run(&[
        "query",
        s(&trace),
        &format!("VACUUM INTO '{}'", s(&vacuumed)),
    ]);
    assert_eq!(r.code(), Some(2));
    assert!(!attached.exists() && !vacuumed.exists());
    // In-memory tables are still the query's to shape.
    let r = run(&[
        "query",
        s(&trace),
        "create table t as select 2 as x; select x from t",
        "--format",
        "csv",
    ]);
    assert_eq!(r.stdout(), "x\n2\n");
    let r = run(&[
        "query",
        s(&trace),
        &format!("VACUUM INTO '{}'", s(&vacuumed)),
        "--allow-writes",
    ]);
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert!(vacuumed.exists());
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn analyze_and_compare_report_a_bad_trace_and_evaluate_the_others() {
    // Issue item 1: one trace's failure is that trace's (exit 2 at the end); the others are
    // still analyzed / compared. `analyze` used to stop at the first unreadable trace.
    let d = scratch("many");
    let cfg = frameprobe_tools::synth::SynthConfig {
        frames: 60,
        ..Default::default()
    };
    let write_set = |dir: &str, seeds: &[u64]| {
        let set = d.join(dir);
        std::fs::create_dir_all(&set).unwrap();
        for (i, seed) in seeds.iter().enumerate() {
            let t = frameprobe_tools::synth::generate(&frameprobe_tools::synth::SynthConfig {
                seed: *seed,
                ..cfg.clone()
            });
            std::fs::write(
                set.join(format!("Scroll_iter{i:03}.perfetto-trace")),
                t.bytes,
            )
            .unwrap();
        }
        set
    };
    let base = write_set("base", &[1, 2, 3]);
    let cand = write_set("cand", &[4, 5, 6]);
    let bad = cand.join("Scroll_iter009.perfetto-trace");
    std::fs::write(&bad, b"{\"traceEvents\": []}").unwrap();

    let good = |i: usize| s(&base.join(format!("Scroll_iter{i:03}.perfetto-trace"))).to_string();
    let r = run(&["analyze", &good(0), s(&bad), &good(1), "--format", "json"]);
    assert_eq!(r.code(), Some(2), "{}", r.stderr());
    let v: serde_json::Value = serde_json::from_str(&r.stdout()).unwrap();
    let traces: Vec<&str> = v["traces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["trace"].as_str().unwrap())
        .collect();
    assert_eq!(traces, [good(0).as_str(), good(1).as_str()]);
    let errors = v["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1);
    assert!(
        errors[0].as_str().unwrap().contains("Scroll_iter009") && r.stderr().contains("JSON trace"),
        "{errors:?} {}",
        r.stderr()
    );

    let r = run(&[
        "compare",
        "--baseline",
        s(&base),
        "--candidate",
        s(&cand),
        "--process",
        "com.example.scroller",
        "--format",
        "json",
        "--jobs",
        "3",
    ]);
    assert_eq!(r.code(), Some(2), "{}", r.stderr());
    let v: serde_json::Value = serde_json::from_str(&r.stdout()).unwrap();
    let errors = v["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].as_str().unwrap().contains("Scroll_iter009"));
    // The comparison itself was still made from the three good iterations a side.
    assert!(
        !v["tests"][0]["metrics"].as_array().unwrap().is_empty(),
        "{v}"
    );
    let _ = std::fs::remove_dir_all(d);
}

/// A framestats dump (Android 14, 23 columns) of one window holding `rows` frames of 10 ms
/// at 60 Hz, every fourth one 30 ms late; written straight to `path`.
fn framestats_dump(path: &Path, rows: usize, extra_row: Option<&str>) {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    writeln!(
        f,
        "** Graphics info for pid 5939 [com.example.app] **\n\nProfile data in ms:\n\n\
         \tcom.example.app/com.example.app.MainActivity/android.view.ViewRootImpl@2f814af (visibility=0)\n\
         Window: com.example.app/com.example.app.MainActivity\n---PROFILEDATA---\n\
         Flags,FrameTimelineVsyncId,IntendedVsync,Vsync,InputEventId,HandleInputStart,AnimationStart,\
         PerformTraversalsStart,DrawStart,FrameDeadline,FrameInterval,FrameStartTime,SyncQueued,SyncStart,\
         IssueDrawCommandsStart,SwapBuffers,FrameCompleted,DequeueBufferDuration,QueueBufferDuration,\
         GpuCompleted,SwapBuffersCompleted,DisplayPresentTime,CommandSubmissionCompleted,"
    )
    .unwrap();
    if let Some(r) = extra_row {
        writeln!(f, "{r}").unwrap();
    }
    const MS: i64 = 1_000_000;
    for i in 0..rows as i64 {
        let v = 5_000_000 * MS + i * 16_666_667;
        let late = if i % 4 == 3 { 30 * MS } else { 0 };
        let t = |ms: i64| v + ms * MS / 10;
        writeln!(
            f,
            "0,{},{v},{v},0,{},{},{},{},{},16666667,{v},{},{},{},{},{},100000,200000,{},{},0,{},",
            1000 + i,
            t(5),
            t(6),
            t(7),
            t(10),
            v + 16_666_667 * 2,
            t(20),
            t(20),
            t(25),
            t(40) + late,
            t(100) + late,
            t(100) + late,
            t(45) + late,
            t(42) + late,
        )
        .unwrap();
    }
    writeln!(f, "---PROFILEDATA---\n\nView hierarchy:\n").unwrap();
}

#[test]
fn gfxinfo_streams_a_million_rows_in_every_format() {
    // Issue item 4: a 10^6-row dump with --format json grew to 14 GB and was killed. Every
    // format now replays one frame at a time: the bound is 1.5 GB (measured: ~0.5 GB, the
    // text and the parsed rows). Long-running (~10 s per format on a quiet 2-core machine)
    // because the bound is about a million rows; a smaller dump would not show it.
    let d = scratch("gfx1m");
    let p = d.join("big.txt");
    framestats_dump(&p, 1_000_000, None);
    eprintln!("{} MB dump", std::fs::metadata(&p).unwrap().len() >> 20);
    for format in ["json", "table", "csv"] {
        let t = Instant::now();
        let mut child = Command::new(common::bin())
            .args(["gfxinfo", s(&p), "--format", format])
            .env("FRAMEPROBE_REPORT_PEAK_RSS", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Count the lines as they come (the JSON is 1.5 GB: never held here either).
        let mut lines = 0usize;
        let mut out = child.stdout.take().unwrap();
        let mut buf = vec![0u8; 1 << 20];
        loop {
            let n = std::io::Read::read(&mut out, &mut buf).unwrap();
            if n == 0 {
                break;
            }
            lines += buf[..n].iter().filter(|&&b| b == b'\n').count();
        }
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        let kib: f64 = err
            .lines()
            .find_map(|l| l.strip_prefix("peak_rss_kib="))
            .and_then(|v| v.trim().parse().ok())
            .unwrap();
        eprintln!(
            "{format}: {lines} lines, {:.1} s, {:.0} MiB peak RSS",
            t.elapsed().as_secs_f64(),
            kib / 1024.0
        );
        assert_eq!(out.status.code(), Some(0), "{err}");
        assert!(kib / 1024.0 < 1536.0, "{format}: {:.0} MiB", kib / 1024.0);
        assert!(lines > 1_000_000, "{format}: {lines} lines");
    }
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn gfxinfo_refuses_huge_headers_and_impossible_cells() {
    // Issue item 4: a header of 10^6 columns became 101 MB of JSON from a skipped block;
    // a cell of -2^63 was replayed and durations wrapped (legacy_duration_ns
    // 9223057180137442846).
    let d = scratch("gfxcells");
    let p = d.join("wide.txt");
    let header: String = (0..1_000_000).map(|i| format!("Col{i},")).collect();
    std::fs::write(
        &p,
        format!("---PROFILEDATA---\n{header}\n0,1,2,\n---PROFILEDATA---\n"),
    )
    .unwrap();
    let r = run(&["gfxinfo", s(&p), "--format", "json"]);
    assert!(r.stdout().len() < 10_000, "{} bytes", r.stdout().len());
    assert!(
        r.stderr().contains("header names more than 64 columns"),
        "{}",
        r.stderr()
    );

    let p = d.join("cells.txt");
    // A real row (the a14 fixture's first) whose SwapBuffersCompleted is -2^63.
    let mut cells: Vec<String> = "0,999,5000000000000,5000000000000,0,5000000500000,\
        5000000600000,5000000700000,5000001000000,5000010000000,5000000300000,10000000,\
        5000002000000,5000002000000,5000002500000,5000004000000,5000005000000,100000,200000,\
        5000005000000,5000004500000,0,5000004200000"
        .split(',')
        .map(String::from)
        .collect();
    cells[20] = i64::MIN.to_string();
    let min_row = format!("{},", cells.join(","));
    framestats_dump(&p, 8, Some(&min_row));
    let r = run(&["gfxinfo", s(&p), "--format", "json"]);
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert!(
        r.stderr()
            .contains("holds -9223372036854775808, beyond ±2^61 ns"),
        "{}",
        r.stderr()
    );
    let v: serde_json::Value = serde_json::from_str(&r.stdout()).unwrap();
    let frames = v["windows"][0]["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 8, "the refused row is not replayed");
    for f in frames {
        // (Replayed, that row's legacy duration was 9223367036854775808.)
        let legacy = f["legacy_duration_ns"]
            .as_f64()
            .expect("every frame judged");
        assert!((0.0..1e9).contains(&legacy), "{f}");
    }
    let _ = std::fs::remove_dir_all(d);
}
