//! A real trace made to look recorded on an emulator, by rewriting its SystemInfo packet
//! (build fingerprint, or kernel release): analyze grades it `inconclusive` with the
//! emulator reason, and `check` exits 2 on it unless --allow-inconclusive. The unmodified
//! trace stays trusted and passes.

mod common;

use std::path::{Path, PathBuf};

use frameprobe::protos::SystemInfo;
use frameprobe::trace::wire::{put_field, Fields, Value};
use prost::Message;
use serde_json::Value as Json;

/// The trace with `edit` applied to its SystemInfo (TracePacket field 45); every other
/// byte of every packet is kept.
fn rewrite_system_info(bytes: &[u8], edit: &dyn Fn(&mut SystemInfo)) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut edited = 0;
    for f in Fields::new(bytes) {
        let (id, v) = f.expect("a well-formed trace");
        let Value::Bytes(packet) = v else {
            put_field(&mut out, id, v);
            continue;
        };
        let has_info = Fields::new(packet).any(|f| matches!(f, Ok((45, _))));
        if id != 1 || !has_info {
            put_field(&mut out, id, v);
            continue;
        }
        let mut p = Vec::with_capacity(packet.len());
        for f in Fields::new(packet) {
            let (fid, fv) = f.unwrap();
            if fid == 45 {
                let mut info = SystemInfo::decode(fv.as_bytes()).unwrap();
                edit(&mut info);
                put_field(&mut p, 45, Value::Bytes(&info.encode_to_vec()));
                edited += 1;
            } else {
                put_field(&mut p, fid, fv);
            }
        }
        put_field(&mut out, 1, Value::Bytes(&p));
    }
    assert_eq!(edited, 1, "one SystemInfo packet");
    out
}

/// An edit of the SystemInfo packet.
type Edit = Box<dyn Fn(&mut SystemInfo)>;

fn write(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("frameprobe-emu-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn analyze(t: &Path) -> Json {
    let out = common::run(&["analyze", t.to_str().unwrap(), "--format", "json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn check(t: &Path, extra: &[&str]) -> (Option<i32>, Json) {
    let mut a = vec![
        "check",
        t.to_str().unwrap(),
        "--process",
        "com.android.systemui",
        "--max-jank-rate",
        "100",
        "--format",
        "json",
    ];
    a.extend_from_slice(extra);
    let out = common::run(&a);
    (
        out.status.code(),
        serde_json::from_slice(&out.stdout).unwrap(),
    )
}

#[test]
fn an_emulator_trace_is_inconclusive_and_fails_check() {
    let Some(dir) = common::shared("traces", "an_emulator_trace_is_inconclusive") else {
        return;
    };
    let real = dir.join("androidx_api35_startup_cold_classinit.perfetto-trace");
    let bytes = std::fs::read(&real).unwrap();

    // The real trace: trusted, and check passes.
    let r = analyze(&real);
    assert_eq!(r["trust"]["grade"], "trusted", "{}", r["trust"]);
    let (code, c) = check(&real, &[]);
    assert_eq!(code, Some(0), "{c}");
    assert_eq!(c["trust"], "trusted");
    assert_eq!(c["metric_version"], 1);

    let emulator_fingerprint =
        "google/sdk_gphone64_x86_64/emu64xa:15/AE3A.240806.019/12285358:userdebug/dev-keys";
    let variants: [(&str, Edit, &str); 2] = [
        (
            "fingerprint.perfetto-trace",
            Box::new(|i: &mut SystemInfo| {
                i.android_build_fingerprint = Some(emulator_fingerprint.into())
            }),
            "sdk_gphone",
        ),
        (
            "kernel.perfetto-trace",
            Box::new(|i: &mut SystemInfo| {
                if let Some(u) = i.utsname.as_mut() {
                    u.release = Some("5.15.41-android14-8-00055-goldfish".into());
                }
            }),
            "goldfish",
        ),
    ];
    for (name, edit, marker) in &variants {
        let t = write(name, &rewrite_system_info(&bytes, edit.as_ref()));
        let r = analyze(&t);
        assert_eq!(r["trust"]["grade"], "inconclusive", "{name}");
        let reason = &r["trust"]["reasons"][0];
        assert_eq!(reason["id"], "emulator");
        // The text names the marker that matched, not just the string that holds it.
        assert!(
            reason["text"]
                .as_str()
                .unwrap()
                .contains(&format!("names an emulator ({marker})")),
            "{reason}"
        );
        // Every process inherits the trace's grade; the frames themselves are unchanged.
        for p in r["processes"].as_array().unwrap() {
            assert_eq!(p["trust"]["grade"], "inconclusive");
        }
        let sysui = r["processes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["pid"] == 3067)
            .unwrap();
        assert_eq!(sysui["frames"], 44);

        let (code, c) = check(&t, &[]);
        assert_eq!(code, Some(2), "{name}: {c}");
        assert_eq!(c["outcome"], "inconclusive");
        assert_eq!(c["trust"], "inconclusive");
        assert!(c["errors"][0].as_str().unwrap().contains("emulator"), "{c}");
        assert_eq!(
            c["tests"][0]["iterations"][0]["trust"]["reasons"][0]["id"],
            "emulator"
        );
        // The JUnit result carries the grade and the metric version.
        let xml = common::run(&[
            "check",
            t.to_str().unwrap(),
            "--process",
            "com.android.systemui",
            "--max-jank-rate",
            "100",
            "--format",
            "junit",
        ]);
        assert_eq!(xml.status.code(), Some(2));
        let xml = String::from_utf8(xml.stdout).unwrap();
        assert!(
            xml.contains("<property name=\"trust\" value=\"inconclusive\"/>")
                && xml.contains("<property name=\"metric_version\" value=\"1\"/>"),
            "{xml}"
        );
        // Allowed: the rules decide again.
        let (code, c) = check(&t, &["--allow-inconclusive"]);
        assert_eq!(code, Some(0), "{c}");
        assert_eq!(c["allow_inconclusive"], true);

        // doctor and the HTML report say it too.
        let out = common::run(&["doctor", t.to_str().unwrap()]);
        assert!(String::from_utf8(out.stdout)
            .unwrap()
            .contains("trust: inconclusive: [emulator]"));
        let html = t.with_extension("html");
        let out = common::run(&["report", t.to_str().unwrap(), "-o", html.to_str().unwrap()]);
        assert!(out.status.success());
        let page = std::fs::read_to_string(&html).unwrap();
        assert!(page.contains("data-grade=\"inconclusive\""));
        assert!(page.contains("<code>emulator</code>"));
    }
}
