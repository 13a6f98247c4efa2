//! What a file that is not a Perfetto protobuf trace looks like, from its first bytes, so the
//! error can name it. The markers are those trace_processor's importers sniff for (JSON:
//! `{"` or `[{"` after whitespace; systrace: `# tracer`, `TRACE:\n`, `cpus=`, an HTML page),
//! plus a few files people pass by mistake.

/// How many leading bytes are looked at (trace_processor looks at 64 for text formats).
const LOOKAHEAD: usize = 64;

/// One sentence (without a trailing period) saying what `head` looks like and what
/// frameprobe reads instead.
pub fn describe(head: &[u8]) -> String {
    let what = kind(head);
    format!(
        "{what}; frameprobe reads Perfetto protobuf traces (.perfetto-trace, .pftrace, \
         optionally gzip- or zstd-compressed)"
    )
}

fn kind(head: &[u8]) -> String {
    let start = &head[..head.len().min(LOOKAHEAD)];
    let text = String::from_utf8_lossy(start);
    let squeezed: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let lower = text.trim_start().to_ascii_lowercase();
    if squeezed.starts_with("{\"") || squeezed.starts_with("[{\"") || squeezed == "[" {
        return "it looks like a JSON trace (Chrome trace event format)".into();
    }
    if text.contains("# tracer") || text.contains("TRACE:\n") || text.starts_with("cpus=") {
        return "it looks like a systrace / ftrace text trace".into();
    }
    if lower.starts_with("<!doctype html") || lower.starts_with("<html") {
        return "it looks like an HTML page (a systrace report?)".into();
    }
    if text.contains("Graphics info for pid") || text.contains("Applications Graphics") {
        return "it looks like a `dumpsys gfxinfo` dump (read it with `frameprobe gfxinfo`)".into();
    }
    if start.starts_with(b"PERFILE2") {
        return "it looks like a Linux perf.data file".into();
    }
    if start.starts_with(b"PK\x03\x04") {
        return "it looks like a zip archive (a bug report? unpack the trace first)".into();
    }
    if start.starts_with(b"SQLite format 3\0") {
        return "it looks like a SQLite database (a frameprobe export?)".into();
    }
    if start.iter().all(|&b| b == 0) {
        return "it starts with zero bytes".into();
    }
    let printable = start
        .iter()
        .filter(|&&b| b == b'\n' || b == b'\r' || b == b'\t' || (0x20..0x7f).contains(&b))
        .count();
    if printable * 10 >= start.len() * 9 {
        return "it looks like a text file".into();
    }
    format!(
        "its first byte is 0x{:02x}, not the 0x0a that starts a trace packet",
        start[0]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_formats_people_pass_by_mistake() {
        assert!(describe(b"{\"traceEvents\": []}").contains("JSON trace"));
        assert!(describe(b" [ {\"ph\":\"X\"}]").contains("JSON trace"));
        assert!(describe(b"# tracer: nop\n#\n").contains("systrace"));
        assert!(describe(b"TRACE:\n# tracer: nop").contains("systrace"));
        assert!(describe(b"<!DOCTYPE html>\n<html>").contains("HTML"));
        assert!(describe(b"Applications Graphics Acceleration Info:\n").contains("gfxinfo"));
        assert!(describe(b"SQLite format 3\0\x10\0").contains("SQLite"));
        assert!(describe(&[0, 0, 0, 0]).contains("zero bytes"));
        assert!(describe(b"hello world\n").contains("text file"));
        assert!(describe(&[0xff, 0x13, 0x00, 0x42]).contains("0xff"));
        assert!(describe(b"x").ends_with("zstd-compressed)"));
    }
}
