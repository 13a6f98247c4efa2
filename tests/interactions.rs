//! Interactions on generated traces: every source is detected with the frames the
//! generator's plan gives it (the plan is the ground truth: the generator knows which frames
//! it drew inside which marking slice), the priority rule hands a frame to the
//! highest-priority interaction, and CUJ frames follow Perfetto's `android.cujs` rule.

mod common;

use std::collections::HashMap;

use frameprobe::analysis::frame_model::Frame;
use frameprobe::analysis::frames;
use frameprobe::analysis::index::Index;
use frameprobe::analysis::interactions::{
    detect, Interaction, InteractionOptions, InteractionSource,
};
use frameprobe::import::{load, LoadOptions};
use frameprobe::store::Upid;
use frameprobe_tools::synth::interactions::{
    generate_interactions, Burst, InteractionsConfig, InteractionsTrace,
};

struct Detected {
    t: InteractionsTrace,
    app: Upid,
    frames: HashMap<Upid, Vec<Frame>>,
    found: Vec<Interaction>,
}

fn detected(tag: &str, cfg: &InteractionsConfig, opts: &InteractionOptions) -> Detected {
    let t = generate_interactions(cfg);
    let path = common::temp_file("interactions", &format!("{tag}.pftrace"), &t.trace.bytes);
    let loaded = load(&path, LoadOptions::all()).unwrap();
    let store = &loaded.store;
    let idx = Index::new(store);
    let frames = frames::build(&idx);
    let app = *frames
        .keys()
        .find(|&&u| store.processes[u as usize].pid == i64::from(cfg.synth.pid))
        .expect("the app has frames");
    let found = detect(store, &idx.named, &frames, opts, None).unwrap();
    Detected {
        t,
        app,
        frames,
        found,
    }
}

/// (source, label, frame indices) of the app's interactions, in time order.
fn of_app(d: &Detected) -> Vec<(InteractionSource, String, Vec<usize>)> {
    d.found
        .iter()
        .filter(|i| i.upid == d.app)
        .map(|i| (i.source, i.label.clone(), i.frames.clone()))
        .collect()
}

fn planned(d: &Detected) -> Vec<(InteractionSource, String, Vec<usize>)> {
    d.t.plan
        .iter()
        .map(|p| (p.source, p.label.clone(), p.frames.clone().collect()))
        .collect()
}

fn burst(frames: u32) -> Burst {
    Burst {
        frames,
        ..Burst::default()
    }
}

#[test]
fn startup_and_three_scrolls_are_found_with_their_frames() {
    let d = detected(
        "default",
        &InteractionsConfig::default(),
        &Default::default(),
    );
    // The generator drew one frame per planned frame on one layer, so frameprobe's frames of
    // the app are the planned frames in order.
    assert_eq!(d.frames[&d.app].len(), d.t.trace.frames.len());
    assert_eq!(of_app(&d), planned(&d));
    let scrolls: Vec<u32> = d
        .found
        .iter()
        .filter(|i| i.source == InteractionSource::Scroll)
        .map(|i| i.ordinal)
        .collect();
    assert_eq!(scrolls, [1, 2, 3], "the nth scroll of the app");
    // The startup's window is the launch the generator wrote.
    let s = d
        .found
        .iter()
        .find(|i| i.source == InteractionSource::Startup)
        .unwrap();
    assert_eq!(Some((s.ts, s.end())), d.t.plan[0].window);
}

#[test]
fn every_source_and_idle_bursts() {
    let cfg = InteractionsConfig {
        startup_frames: 2,
        bursts: vec![
            burst(12),
            Burst {
                scroll: true,
                ..burst(20)
            },
            Burst {
                cuj: Some("SHADE_EXPAND".into()),
                ..burst(15)
            },
            Burst {
                section: Some("loadFeed".into()),
                ..burst(9)
            },
            burst(7),
        ],
        ..InteractionsConfig::default()
    };
    let opts = InteractionOptions {
        sections: vec!["load*".into()],
        ..Default::default()
    };
    let d = detected("sources", &cfg, &opts);
    assert_eq!(of_app(&d), planned(&d));
    let sources: Vec<InteractionSource> = of_app(&d).iter().map(|i| i.0).collect();
    use InteractionSource::*;
    assert_eq!(sources, [Startup, Idle, Scroll, Cuj, Section, Idle]);
    // Without --interaction the section is no interaction: its frames form an idle burst.
    let d = detected("sources-nosection", &cfg, &Default::default());
    let labels: Vec<String> = of_app(&d).into_iter().map(|i| i.1).collect();
    assert_eq!(
        labels,
        [
            "startup",
            "burst",
            "RV Scroll",
            "SHADE_EXPAND",
            "burst",
            "burst"
        ]
    );
}

#[test]
fn the_highest_priority_source_wins_the_frames() {
    let all = Burst {
        scroll: true,
        cuj: Some("LIST_FLING".into()),
        section: Some("feed".into()),
        ..burst(10)
    };
    let two = Burst {
        scroll: true,
        section: Some("feed".into()),
        ..burst(10)
    };
    let cfg = InteractionsConfig {
        startup_frames: 0,
        bursts: vec![all, two],
        ..InteractionsConfig::default()
    };
    let opts = InteractionOptions {
        sections: vec!["feed".into()],
        ..Default::default()
    };
    let d = detected("priority", &cfg, &opts);
    // CUJ over section over scroll; the losers keep no frames and are not reported.
    assert_eq!(
        of_app(&d),
        [
            (
                InteractionSource::Cuj,
                "LIST_FLING".to_string(),
                (0..10).collect()
            ),
            (
                InteractionSource::Section,
                "feed".to_string(),
                (10..20).collect()
            ),
        ]
    );
    let mut seen = std::collections::HashSet::new();
    for i in &d.found {
        for &f in &i.frames {
            assert!(seen.insert((i.upid, f)), "frame {f} in two interactions");
        }
    }
}

/// Perfetto's `_android_distinct_frames_in_cuj` (android/cujs/base.sql, v58.2): a frame of the
/// CUJ's UI thread is in the CUJ when its vsync id lies in [beginVsync, endVsync] of the
/// FrameTracker markers and its actual surface frame starts or ends inside the CUJ slice.
/// Counted here by hand from the generator's plan (times and vsync ids it wrote).
#[test]
fn cuj_frames_follow_perfettos_rule() {
    let cfg = InteractionsConfig {
        startup_frames: 0,
        bursts: vec![Burst {
            cuj: Some("NOTIFICATION_SHADE".into()),
            ..burst(24)
        }],
        ..InteractionsConfig::default()
    };
    let d = detected("cuj", &cfg, &Default::default());
    let (ts, end) = d.t.plan[0].window.unwrap();
    let frames = &d.t.trace.frames;
    let (begin, last) = (frames[0].vsync_id, frames[23].vsync_id);
    let by_rule: Vec<usize> = (0..frames.len())
        .filter(|&i| {
            let f = &frames[i];
            let (a, z) = (f.ui_start, f.actual_end);
            f.vsync_id >= begin
                && f.vsync_id <= last
                && ((a >= ts && a <= end) || (z >= ts && z <= end))
        })
        .collect();
    let cuj = d
        .found
        .iter()
        .find(|i| i.source == InteractionSource::Cuj)
        .unwrap();
    assert_eq!(cuj.frames, by_rule);
    assert_eq!(by_rule.len(), 24);
    assert_eq!(
        (cuj.ts, cuj.end()),
        (ts, end),
        "the CUJ slice is the window"
    );
}

#[test]
fn a_re_timed_copy_has_the_same_interactions() {
    let mut cfg = InteractionsConfig::default();
    let a = detected("seed1", &cfg, &Default::default());
    cfg.synth.seed = 2;
    let b = detected("seed2", &cfg, &Default::default());
    assert_ne!(
        a.t.trace.frames[5].ui_end, b.t.trace.frames[5].ui_end,
        "re-timed"
    );
    let key = |d: &Detected| -> Vec<(InteractionSource, String, u32, usize)> {
        d.found
            .iter()
            .map(|i| (i.source, i.label.clone(), i.ordinal, i.frames.len()))
            .collect()
    };
    assert_eq!(key(&a), key(&b));
}

#[test]
fn an_idle_gap_splits_bursts_and_a_longer_one_joins_them() {
    let cfg = InteractionsConfig {
        startup_frames: 0,
        bursts: vec![burst(10), burst(10), burst(10)],
        idle_vsyncs: 12,
        ..InteractionsConfig::default()
    };
    // 12 vsyncs at 60 Hz = 200 ms without a frame: over the default 100 ms gap.
    let d = detected("idle", &cfg, &Default::default());
    assert_eq!(of_app(&d), planned(&d));
    let long = InteractionOptions {
        idle_gap_ns: Some(300_000_000),
        ..Default::default()
    };
    let d = detected("idle-long", &cfg, &long);
    assert_eq!(
        of_app(&d),
        [(
            InteractionSource::Idle,
            "burst".to_string(),
            (0..30).collect()
        )]
    );
}

/// The default generated app on the command line: analyze lists its interactions, and
/// `--interaction` keeps only the matching frames in frames, analyze and check. Expected
/// counts are the plan's (1 startup frame, 3 scrolls of 30).
#[test]
fn interaction_filter_on_the_command_line() {
    let t = generate_interactions(&InteractionsConfig::default());
    let path = common::temp_file("interactions", "cli.pftrace", &t.trace.bytes);
    let p = path.to_str().unwrap();
    let doc = common::run_json(&["analyze", p, "--format", "json"]);
    let list = doc["processes"][0]["interactions"].as_array().unwrap();
    let seen: Vec<(String, u64, u64)> = list
        .iter()
        .map(|i| {
            (
                i["label"].as_str().unwrap().to_string(),
                i["ordinal"].as_u64().unwrap(),
                i["frames"].as_u64().unwrap(),
            )
        })
        .collect();
    let want: Vec<(String, u64, u64)> = [
        ("startup", 1, 1),
        ("RV Scroll", 1, 30),
        ("RV Scroll", 2, 30),
        ("RV Scroll", 3, 30),
    ]
    .iter()
    .map(|&(l, o, n)| (l.to_string(), o, n))
    .collect();
    assert_eq!(seen, want);

    let rows = common::run(&["frames", p, "--interaction", "RV*", "--format", "csv"]);
    assert!(rows.status.success());
    let rows = common::parse_csv(&String::from_utf8_lossy(&rows.stdout));
    assert_eq!(rows.len() - 1, 90, "the three scrolls' frames");

    let doc = common::run_json(&["analyze", p, "--interaction", "startup", "--format", "json"]);
    assert_eq!(doc["processes"][0]["frames"], 1);

    // check gates on the scrolls' frames only: the rule's denominator says how many.
    let out = common::run(&[
        "check",
        p,
        "--process",
        APP,
        "--interaction",
        "RV Scroll",
        "--rule",
        "jank_rate_pct<=100",
        "--format",
        "json",
    ]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = doc.to_string();
    assert!(text.contains("90 FrameTimeline app frames"), "{text}");
    assert_eq!(doc["interactions"][0], "RV Scroll");

    let none = common::run(&["frames", p, "--interaction", "nothing*"]);
    assert_eq!(none.status.code(), Some(2));
    let err = String::from_utf8_lossy(&none.stderr);
    assert!(
        err.contains("no frames in interactions matching nothing*"),
        "{err}"
    );
    assert!(err.contains("RV Scroll, startup"), "{err}");
}

const APP: &str = frameprobe_tools::synth::interactions::APP_NAME;

/// `android_jank_cuj` (Perfetto's android/cujs/base.sql) after `INCLUDE PERFETTO MODULE
/// android.cujs.base`: one row per CUJ with the slice's times and the FrameTracker vsync ids
/// the generator wrote. State: upstream's `*FT#end*` glob also matches the
/// `#FT#endVsync#…` marker, so a CUJ with an end vsync is `completed`.
#[test]
fn android_jank_cuj_rows_are_the_generated_cujs() {
    let cfg = InteractionsConfig {
        startup_frames: 0,
        bursts: vec![
            Burst {
                cuj: Some("SHADE_EXPAND".into()),
                ..burst(8)
            },
            Burst {
                cuj: Some("LIST_FLING".into()),
                ..burst(12)
            },
        ],
        ..InteractionsConfig::default()
    };
    let t = generate_interactions(&cfg);
    let path = common::temp_file("interactions", "jank_cuj.pftrace", &t.trace.bytes);
    let rows = common::query_csv(
        &path,
        "INCLUDE PERFETTO MODULE android.cujs.base; \
         SELECT cuj_name, cuj_slice_name, ts, dur, state, begin_vsync, end_vsync, process_name \
         FROM android_jank_cuj ORDER BY ts",
    );
    let f = &t.trace.frames;
    let want: Vec<Vec<String>> = [("SHADE_EXPAND", 0usize, 7usize), ("LIST_FLING", 8, 19)]
        .iter()
        .zip(&t.plan)
        .map(|(&(name, a, z), p)| {
            let (ts, end) = p.window.unwrap();
            vec![
                name.to_string(),
                format!("J<{name}>"),
                ts.to_string(),
                (end - ts).to_string(),
                "completed".to_string(),
                f[a].vsync_id.to_string(),
                f[z].vsync_id.to_string(),
                APP.to_string(),
            ]
        })
        .collect();
    assert_eq!(rows[1..], want[..]);
}

/// A section name is trace data: the HTML report and Markdown escape it in the interactions
/// table.
#[test]
fn interaction_labels_are_escaped_in_html_and_markdown() {
    let name = "<img src=x onerror=alert(1)>|load";
    let cfg = InteractionsConfig {
        startup_frames: 0,
        bursts: vec![Burst {
            section: Some(name.into()),
            ..burst(6)
        }],
        ..InteractionsConfig::default()
    };
    let t = generate_interactions(&cfg);
    let path = common::temp_file("interactions", "escape.pftrace", &t.trace.bytes);
    let html = path.with_extension("html");
    let p = path.to_str().unwrap();
    let out = common::run(&[
        "report",
        p,
        "--interaction",
        "<img*",
        "-o",
        html.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("Interactions ("));
    assert!(page.contains("&lt;img src=x onerror=alert(1)&gt;|load #1"));
    assert!(!page.contains("<img src=x"));
    let md = common::run(&[
        "analyze",
        p,
        "--interaction",
        "<img*",
        "--format",
        "markdown",
    ]);
    let md = String::from_utf8_lossy(&md.stdout);
    assert!(
        md.contains("&lt;img src=x onerror=alert(1)&gt;\\|load #1"),
        "{md}"
    );
}
