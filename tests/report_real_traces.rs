//! `frameprobe report` on real device traces (skipped when ../shared/traces is absent): every
//! frame of the process is a bar, the janky ones in jank colours as analyze counts them, and
//! the worst frames carry analyze's blame.

mod common;

use std::path::{Path, PathBuf};

use serde_json::Value;

fn trace(name: &str, test: &str) -> Option<PathBuf> {
    common::shared("traces", test).map(|d| d.join(name))
}

fn out_path(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("frameprobe-report-real-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(format!("{tag}.html"))
}

fn report(trace: &Path, extra: &[&str], tag: &str) -> String {
    let out = out_path(tag);
    let mut args = vec!["report", trace.to_str().unwrap()];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["-o", out.to_str().unwrap()]);
    let r = common::run(&args);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let html = std::fs::read_to_string(&out).unwrap();
    println!("{tag}: page is {} bytes", html.len());
    html
}

fn analyze(trace: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["analyze", trace.to_str().unwrap(), "--format", "json"];
    args.extend_from_slice(extra);
    let out = common::run(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// (class, data-frame) of every timeline bar.
fn bars(html: &str) -> Vec<(String, String)> {
    let attr = |tag: &str, name: &str| -> String {
        let key = format!("{name}=\"");
        tag.find(&key)
            .map(|i| {
                let rest = &tag[i + key.len()..];
                rest[..rest.find('"').unwrap()].to_string()
            })
            .unwrap_or_default()
    };
    html.split("<path ")
        .skip(1)
        .map(|s| &s[..s.find('>').unwrap()])
        .filter(|t| t.contains("data-frame="))
        .map(|t| (attr(t, "class"), attr(t, "data-frame")))
        .collect()
}

fn esc(s: &str) -> String {
    frameprobe::report::html::esc(s)
}

fn sum_layers(p: &Value, f: impl Fn(&Value) -> u64) -> u64 {
    p["layers"].as_array().unwrap().iter().map(f).sum()
}

#[test]
fn nowinandroid_chart_has_all_739_frames_with_the_late_ones_coloured() {
    let Some(t) = trace(
        "nowinandroid_demo_pixel7pro_api33.perfetto-trace",
        "nowinandroid report",
    ) else {
        return;
    };
    let html = report(&t, &["--process", "9305"], "nowinandroid");
    let r = analyze(&t, &["--process", "9305", "--top", "10"]);
    let p = &r["processes"][0];
    let b = bars(&html);
    assert_eq!(b.len(), 739, "one bar per frame of pid 9305");
    let janky = sum_layers(p, |l| l["janky"]["frames"].as_u64().unwrap());
    assert_eq!(janky, 16, "MANIFEST: 16 app-deadline frames");
    let jank_bars: Vec<_> = b.iter().filter(|(c, _)| c.ends_with(" j")).collect();
    assert_eq!(jank_bars.len() as u64, janky);
    // Janky bars are in the jank colours (Self Jank red, Other Jank orange, Dropped purple).
    assert!(jank_bars
        .iter()
        .all(|(c, _)| ["ts j", "to j", "td j"].contains(&c.as_str())));
    // Each tag's bars match analyze's counts.
    let tag = |t: &str| sum_layers(p, |l| l["by_jank_tag"][t]["frames"].as_u64().unwrap_or(0));
    let class = |c: &str| {
        b.iter()
            .filter(|(k, _)| k.split(' ').next() == Some(c))
            .count() as u64
    };
    assert_eq!(class("ts"), tag("Self Jank"));
    assert_eq!(class("tb"), tag("Buffer Stuffing"));
    assert_eq!(class("tn"), tag("No Jank"));
    // The worst frames are analyze's, with their explanations.
    let worst = p["worst_frames"].as_array().unwrap();
    assert_eq!(
        html.matches("<details class=\"worst\"").count(),
        worst.len()
    );
    for f in worst {
        let e = f["blame"]["explanation"].as_str().unwrap();
        assert!(html.contains(&esc(e)), "explanation {e:?}");
    }
    assert!(html.len() < 400 * 1024);
}

#[test]
fn api35_systemui_frames_with_their_blame() {
    let Some(t) = trace(
        "androidx_api35_startup_cold_classinit.perfetto-trace",
        "api35 report",
    ) else {
        return;
    };
    // By name when this build imports the process tree, else by pid.
    let by_name = analyze(&t, &["--process", "com.android.systemui"]);
    let sel = if by_name["processes"].as_array().unwrap().is_empty() {
        eprintln!(
            "note: no process names in this build's import of the api35 trace; selecting pid 3067"
        );
        "3067"
    } else {
        "com.android.systemui"
    };
    let html = report(&t, &["--process", sel], "api35");
    let r = analyze(&t, &["--process", sel, "--top", "10"]);
    let p = &r["processes"][0];
    assert_eq!(p["pid"], 3067);
    assert!(html.contains("data-pid=\"3067\""));
    // 44 actual surface frames (MANIFEST) in 3 layers, each layer with its own chart.
    assert_eq!(bars(&html).len(), 44);
    assert_eq!(
        html.matches("<svg class=\"timeline\"").count(),
        p["layers"].as_array().unwrap().len()
    );
    let janky = sum_layers(p, |l| l["janky"]["frames"].as_u64().unwrap());
    assert_eq!(
        bars(&html)
            .iter()
            .filter(|(c, _)| c.ends_with(" j"))
            .count() as u64,
        janky
    );
    // The worst frames with their blame: explanation, measured parts, FrameTracer facts.
    let worst = p["worst_frames"].as_array().unwrap();
    assert!(!worst.is_empty());
    assert_eq!(
        html.matches("<details class=\"worst\"").count(),
        worst.len()
    );
    let mut stacks = 0;
    for f in worst {
        let b = &f["blame"];
        assert!(html.contains(&esc(b["explanation"].as_str().unwrap())));
        for (part, label) in [
            ("ui_thread", "UI thread"),
            ("render_thread", "RenderThread"),
            ("gpu_wait", "GPU wait"),
            ("surfaceflinger", "SurfaceFlinger"),
        ] {
            if let Some(ms) = b[part]["ms"].as_f64() {
                assert!(html.contains(&format!("<title>{label} {ms:.2} ms</title>")));
                assert!(html.contains(&esc(b[part]["source"].as_str().unwrap())));
                stacks += 1;
            }
        }
        for h in b["hot_spots"].as_array().unwrap() {
            assert!(html.contains(&esc(h["name"].as_str().unwrap())));
        }
        if let Some(buf) = f["buffer"].as_object() {
            let id = buf["buffer_id"].as_u64().unwrap();
            assert!(html.contains(&format!("<th>Buffer id</th><td>{id}</td>")));
        }
    }
    assert!(stacks > 0, "some blame parts are measured");
    // A nested "Choreographer#doFrame - resynced to ..." marker wraps the whole frame; the
    // hot spot is the work inside it, never the marker.
    assert!(!html.contains("Choreographer#doFrame - resynced to"));
}
