//! `doctor` on every real trace names exactly the frame data sources the MANIFEST describes
//! for it. The expectations are read from ../shared/traces/MANIFEST.md itself: each trace's
//! section gives the packet counts (FT, graphics_frame_event, doFrame, process_tree,
//! compact_sched / sched_switch) or says a source is absent ("FT 0", "**no** sched").

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

/// The first number after `word` in `text` (digits with thousands commas).
fn count_after(text: &str, word: &str) -> Option<u64> {
    let i = text.find(word)? + word.len();
    let rest = text[i..].trim_start_matches([' ', ':']);
    let digits: String = rest
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == ',')
        .filter(|c| c.is_ascii_digit())
        .collect();
    digits.parse().ok()
}

/// What a MANIFEST section says of each source: Some(true) present, Some(false) absent,
/// None when it does not say.
fn manifest_sources(section: &str) -> BTreeMap<&'static str, Option<bool>> {
    let s = section.replace("**", "").replace('`', "");
    let mut m = BTreeMap::new();
    // Every section has an "FT: EDF n, ..." line or says "FT 0".
    let ft = if s.contains("FT 0") {
        Some(false)
    } else {
        count_after(&s, "FT: EDF").map(|n| n > 0)
    };
    m.insert("frame_timeline", ft);
    // graphics_frame_event is given with its count when present.
    m.insert(
        "frame_tracer",
        Some(count_after(&s, "graphics_frame_event").is_some_and(|n| n > 0)),
    );
    let do_frame = if s.contains("no doFrame") {
        Some(false)
    } else {
        count_after(&s, "doFrame").map(|n| n > 0)
    };
    m.insert("atrace_view", do_frame);
    let print = s.contains("print") || do_frame == Some(true);
    m.insert("atrace", print.then_some(true));
    let sched = if s.contains("no sched") {
        Some(false)
    } else if count_after(&s, "compact_sched switch")
        .or_else(|| count_after(&s, "compact_sched"))
        .is_some_and(|n| n > 0)
        || s.contains("sched_switch")
    {
        Some(true)
    } else {
        None
    };
    m.insert("sched", sched);
    let tree = if s.contains("no process_tree") {
        Some(false)
    } else {
        count_after(&s, "process_tree").map(|n| n > 0)
    };
    m.insert("process_tree", tree);
    m
}

/// Trace file name -> its MANIFEST section.
fn sections(manifest: &str) -> Vec<(String, String)> {
    manifest
        .split("\n## ")
        .skip(1)
        .filter_map(|sec| {
            let title = sec.lines().next()?;
            let name = title.split_whitespace().next()?;
            name.ends_with(".perfetto-trace")
                .then(|| (name.to_string(), sec.to_string()))
        })
        .collect()
}

fn doctor(trace: &Path) -> Value {
    let out = common::run(&["doctor", trace.to_str().unwrap(), "--format", "json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn doctor_names_exactly_the_sources_the_manifest_lists() {
    let Some(dir) = common::shared(
        "traces",
        "doctor_names_exactly_the_sources_the_manifest_lists",
    ) else {
        return;
    };
    let manifest = std::fs::read_to_string(dir.join("MANIFEST.md")).unwrap();
    // "Every file has clock_snapshot packets."
    assert!(manifest.contains("Every file has `clock_snapshot` packets"));
    let secs = sections(&manifest);
    assert_eq!(secs.len(), 7, "the MANIFEST describes seven traces");
    let mut checked = 0;
    for (name, sec) in &secs {
        let d = doctor(&dir.join(name));
        let present: BTreeMap<String, bool> = d["sources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                (
                    s["id"].as_str().unwrap().to_string(),
                    s["present"].as_bool().unwrap(),
                )
            })
            .collect();
        assert!(present["clock_snapshot"], "{name}");
        for (id, want) in manifest_sources(sec) {
            match want {
                Some(w) => {
                    assert_eq!(present[id], w, "{name}: {id}");
                    checked += 1;
                }
                None => eprintln!("{name}: the MANIFEST does not say whether it has {id}"),
            }
        }
        // A missing source comes with its cost and, but for clocks, its config snippet.
        for s in d["sources"].as_array().unwrap() {
            if s["present"] == false {
                assert!(s["cost"].is_string(), "{name}: {s}");
                assert!(s["config"].as_str().unwrap().contains("data_sources {"));
            } else {
                assert!(s["cost"].is_null() && s["config"].is_null());
            }
        }
        // The processes with frames the MANIFEST lists by FrameTimeline pid are there.
        let pids: Vec<i64> = d["processes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["pid"].as_i64().unwrap())
            .collect();
        for line in sec.lines().filter(|l| l.contains("]: ") && l.contains('[')) {
            if let Some(pid) = line
                .split('[')
                .nth(1)
                .and_then(|r| r.split(']').next())
                .and_then(|p| p.parse::<i64>().ok())
            {
                if sec.contains("Processes with frames") && line.trim_start().starts_with("- ") {
                    assert!(pids.contains(&pid), "{name}: pid {pid} has frames");
                }
            }
        }
    }
    assert!(checked >= 30, "only {checked} MANIFEST facts checked");
}

#[test]
fn doctor_reports_the_config_the_trace_asked_for_and_its_other_data() {
    let Some(dir) = common::shared("traces", "doctor_reports_the_config") else {
        return;
    };
    // api24 cold start: "FT 0 ... although the config requested frametimeline".
    let d = doctor(&dir.join("androidx_api24_startup_cold.perfetto-trace"));
    let ft = d["sources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "frame_timeline")
        .unwrap();
    assert_eq!(
        (ft["present"].as_bool(), ft["requested"].as_bool()),
        (Some(false), Some(true))
    );
    assert_eq!(d["device"]["api_level"], 24);
    assert!(d["config_to_add"]
        .as_str()
        .unwrap()
        .contains("name: \"android.surfaceflinger.frametimeline\""));
    let table = String::from_utf8(
        common::run(&[
            "doctor",
            dir.join("androidx_api24_startup_cold.perfetto-trace")
                .to_str()
                .unwrap(),
        ])
        .stdout,
    )
    .unwrap();
    assert!(
        table.contains("the config asked for it, but nothing arrived"),
        "{table}"
    );
    // api35: "Also 134 track_event packets", power_rails, battery, packages_list,
    // gpu_mem_total_event, trace_uuid.
    let d = doctor(&dir.join("androidx_api35_startup_cold_classinit.perfetto-trace"));
    let other: BTreeMap<String, u64> = d["other_data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            (
                o["packet"].as_str().unwrap().to_string(),
                o["packets"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(other.get("track_event"), Some(&134));
    for k in [
        "power_rails",
        "battery",
        "packages_list",
        "gpu_mem_total_event",
        "trace_uuid",
    ] {
        assert!(other.contains_key(k), "{k}: {other:?}");
    }
    // "Processes with frames (ASF count ...)": systemui 44, system_server 68.
    let frames: BTreeMap<i64, u64> = d["processes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["pid"].as_i64().unwrap(), p["frames"].as_u64().unwrap()))
        .collect();
    assert_eq!(frames.get(&3067), Some(&44));
    assert_eq!(frames.get(&1286), Some(&68));
    assert_eq!(d["device"]["api_level"], 35);
    assert_eq!(d["metric_version"], 1);
}

#[test]
fn manifest_reader_reads_counts_and_absences() {
    let m = manifest_sources(
        "- Packets 7676. There is **no** doFrame or DrawFrame, **no** process_tree and **no** sched.\n- FT: EDF 801, ADF 801",
    );
    assert_eq!(m["frame_timeline"], Some(true));
    assert_eq!(m["atrace_view"], Some(false));
    assert_eq!(m["process_tree"], Some(false));
    assert_eq!(m["sched"], Some(false));
    assert_eq!(m["frame_tracer"], Some(false));
    let m = manifest_sources("process_tree 13. FT 0 and graphics_frame_event 0; doFrame 93");
    assert_eq!(m["frame_timeline"], Some(false));
    assert_eq!(m["process_tree"], Some(true));
    assert_eq!(m["atrace_view"], Some(true));
    assert_eq!(
        count_after("ftrace events 60,517 with", "ftrace events"),
        Some(60517)
    );
}

#[test]
fn the_html_report_lists_the_sources_doctor_finds_missing() {
    let Some(dir) = common::shared("traces", "the_html_report_lists_missing_sources") else {
        return;
    };
    // nowinandroid: "no doFrame or DrawFrame, no process_tree and no sched", no
    // graphics_frame_event (MANIFEST); doctor's JSON agrees (checked above).
    let t = dir.join("nowinandroid_demo_pixel7pro_api33.perfetto-trace");
    let d = doctor(&t);
    let missing: Vec<String> = d["sources"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["present"] == false)
        .map(|s| s["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        missing,
        ["frame_tracer", "atrace_view", "sched", "process_tree"]
    );
    let html = std::env::temp_dir().join(format!("frameprobe-doctor-{}.html", std::process::id()));
    let out = common::run(&["report", t.to_str().unwrap(), "-o", html.to_str().unwrap()]);
    assert!(out.status.success());
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("<details class=\"sources\" data-missing=\"4\" open>"));
    for id in &missing {
        assert!(page.contains(&format!("<li data-source=\"{id}\">")), "{id}");
    }
    // The config fragment doctor prints, HTML-escaped.
    let config = d["config_to_add"].as_str().unwrap().replace('"', "&quot;");
    assert!(page.contains(&format!("<pre class=\"config\">{config}</pre>")));
    // A trace with every source lists none as missing.
    let t = dir.join("androidx_api35_startup_cold_classinit.perfetto-trace");
    let out = common::run(&["report", t.to_str().unwrap(), "-o", html.to_str().unwrap()]);
    assert!(out.status.success());
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("<details class=\"sources\" data-missing=\"0\">"));
    assert!(!page.contains("<li data-source="));
}
