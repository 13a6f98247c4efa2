//! `frameprobe diff` on generated traces. The generator's plan is the ground truth: the
//! candidate differs from the baseline only by what the test asks it to add (6 ms of
//! `inflate` nested in every doFrame of the second of three scrolls, one synchronous binder
//! call in one of its frames), so those are the only claims the diff may make; a different
//! generator seed re-times every frame (work jitter, randomly slowed frames) without
//! changing what the app does, so a re-timed copy must yield no claim.

mod common;

use std::path::{Path, PathBuf};

use serde_json::Value;

use frameprobe_tools::synth::interactions::{generate_interactions, InteractionsConfig, INFLATE};

const INFLATE_NS: i64 = 6_000_000;
const BINDER_NS: i64 = 3_000_000;

fn config(seed: u64, change: bool) -> InteractionsConfig {
    let mut c = InteractionsConfig::default();
    c.synth.seed = seed;
    if change {
        c.inflate = Some((1, INFLATE_NS));
        c.binder_call = Some((1, 5, BINDER_NS));
    }
    c
}

fn write(dir: &str, name: &str, cfg: &InteractionsConfig) -> PathBuf {
    common::temp_file(
        &format!("diff-{dir}"),
        name,
        &generate_interactions(cfg).trace.bytes,
    )
}

fn diff_json(args: &[&Path]) -> Value {
    let mut a: Vec<&str> = vec!["diff"];
    a.extend(args.iter().map(|p| p.to_str().unwrap()));
    a.extend(["--format", "json"]);
    common::run_json(&a)
}

fn changed(r: &Value) -> Vec<String> {
    r["interactions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| !i["grown_slices"].as_array().unwrap().is_empty())
        .map(|i| {
            format!(
                "{} {} #{}",
                i["source"].as_str().unwrap(),
                i["label"].as_str().unwrap(),
                i["ordinal"]
            )
        })
        .collect()
}

/// The second scroll, after checking it is the only interaction with claims.
fn the_changed_scroll(r: &Value) -> &Value {
    assert_eq!(changed(r), ["scroll RV Scroll #2"], "{r:#}");
    r["interactions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["ordinal"] == 2 && i["label"] == "RV Scroll")
        .unwrap()
}

#[test]
fn the_candidate_names_the_interaction_inflate_and_the_new_binder_call() {
    // The same seed (only the change differs), and another seed (the change on top of a
    // re-timing).
    let base = write("change", "base.pftrace", &config(1, false));
    for seed in [1, 2] {
        let cand = write(
            "change",
            &format!("cand{seed}.pftrace"),
            &config(seed, true),
        );
        check_the_change(&diff_json(&[&base, &cand]));
    }
}

fn check_the_change(r: &Value) {
    // The plan: a startup and three scrolls; the change is in the second scroll only.
    assert_eq!(r["interactions"].as_array().unwrap().len(), 4, "{r:#}");
    let i = the_changed_scroll(r);
    let grown = i["grown_slices"].as_array().unwrap();
    let top = &grown[0];
    assert_eq!(
        (top["role"].as_str(), top["name"].as_str()),
        (Some("ui_thread"), Some(INFLATE)),
        "{grown:#?}"
    );
    // 6 ms per affected frame, in each of the burst's 30 frames.
    let per_frame = top["added_per_frame_ms"].as_f64().unwrap();
    assert!((per_frame - 6.0).abs() <= 0.1, "{per_frame}");
    assert_eq!(top["cand_frames"].as_f64(), Some(30.0));
    assert_eq!(top["new"], true);
    // The binder call: new on the UI thread (the client side) and on the server thread.
    let new_binder: Vec<(&str, &str)> = grown
        .iter()
        .filter(|g| g["new"] == true && g["name"].as_str().unwrap().starts_with("binder"))
        .map(|g| (g["role"].as_str().unwrap(), g["name"].as_str().unwrap()))
        .collect();
    assert_eq!(
        new_binder,
        [
            ("ui_thread", "binder transaction"),
            ("binder_server", "binder reply")
        ],
        "{grown:#?}"
    );
    let txn = grown
        .iter()
        .find(|g| g["name"] == "binder transaction")
        .unwrap();
    assert!(
        (txn["cand_self_ms"].as_f64().unwrap() - 3.0).abs() <= 0.1,
        "{txn}"
    );
    // Frame pairs name the largest grown slice with its place in both traces.
    let pairs = i["frame_pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 30, "{pairs:#?}");
    assert!(pairs.iter().all(|p| p["name"] == INFLATE
        && p["cand_slice_ts"].is_i64()
        && p["base_slice_ts"].is_null()));
}

#[test]
fn the_same_trace_and_a_re_timed_copy_make_no_claims() {
    let base = write("noise", "base.pftrace", &config(1, false));
    let r = diff_json(&[&base, &base]);
    assert!(changed(&r).is_empty(), "{r:#}");
    for seed in 2..=9 {
        let copy = write(
            "noise",
            &format!("seed{seed}.pftrace"),
            &config(seed, false),
        );
        let r = diff_json(&[&base, &copy]);
        assert!(
            changed(&r).is_empty(),
            "seed {seed}: {:#}",
            r["interactions"]
        );
    }
}

/// Macrobenchmark's iteration file names, so the directory is one test's iterations.
fn iterations(dir: &str, seeds: &[u64], change: bool) -> PathBuf {
    let mut last = PathBuf::new();
    for (k, &s) in seeds.iter().enumerate() {
        last = write(
            dir,
            &format!("Scroll_scroll_iter{k:03}_2026-12-01-09-00-0{k}.perfetto-trace"),
            &config(s, change),
        );
    }
    last.parent().unwrap().to_path_buf()
}

#[test]
fn several_iterations_claim_the_change_with_an_interval_and_not_the_noise() {
    let base = iterations("iter-base", &[1, 2, 3], false);
    let cand = iterations("iter-cand", &[4, 5, 6], true);
    let noise = iterations("iter-noise", &[7, 8, 9], false);
    let r = diff_json(&[&base, &cand]);
    assert_eq!(r["baseline"]["traces"].as_array().unwrap().len(), 3);
    let i = the_changed_scroll(&r);
    assert_eq!(
        (i["base_iterations"].as_u64(), i["cand_iterations"].as_u64()),
        (Some(3), Some(3))
    );
    for g in i["grown_slices"].as_array().unwrap() {
        let (lo, hi) = (g["ci_low_ms"].as_f64(), g["ci_high_ms"].as_f64());
        assert!(lo.is_some() && hi.is_some(), "{g}");
    }
    let top = &i["grown_slices"][0];
    assert_eq!(top["name"], INFLATE);
    assert!(top["ci_low_ms"].as_f64().unwrap() > 0.0);
    let r = diff_json(&[&base, &noise]);
    assert!(changed(&r).is_empty(), "{:#}", r["interactions"]);
}

#[test]
fn two_runs_give_the_same_bytes_in_every_format() {
    let base = write("det", "base.pftrace", &config(1, false));
    let cand = write("det", "cand.pftrace", &config(2, true));
    for format in ["json", "markdown", "table"] {
        let run = || {
            common::run(&[
                "diff",
                base.to_str().unwrap(),
                cand.to_str().unwrap(),
                "--format",
                format,
            ])
        };
        let (a, b) = (run(), run());
        assert!(a.status.success(), "{}", String::from_utf8_lossy(&a.stderr));
        assert_eq!(a.stdout, b.stdout, "{format}");
    }
}

#[test]
fn bad_input_is_a_clear_error_with_exit_2() {
    let good = write("bad", "good.pftrace", &config(1, false));
    let corrupt = common::temp_file(
        "diff-bad",
        "corrupt.pftrace",
        b"\x0a\xff\xff\xff\xff\x0fnot a trace",
    );
    let missing = good.with_file_name("missing.pftrace");
    for (a, b, says) in [
        (&missing, &good, "missing.pftrace does not exist"),
        (&good, &missing, "missing.pftrace does not exist"),
        (&good, &corrupt, "corrupt.pftrace"),
    ] {
        let out = common::run(&["diff", a.to_str().unwrap(), b.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(says), "{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn the_compare_page_shows_the_diff_with_trace_strings_escaped() {
    // The candidate also runs a slice whose name is markup: it must reach the page as text.
    let hostile = "<script>alert(1)</script>";
    let base = write("html", "base.pftrace", &config(1, false));
    let mut c = config(1, true);
    c.synth.extra_ui.push(frameprobe_tools::synth::ExtraUi {
        frame: 40,
        name: Some(hostile.into()),
        ns: 2_000_000,
    });
    let cand = write("html", "cand.pftrace", &c);
    let page = base.with_file_name("cmp.html");
    let out = common::run(&[
        "report",
        "--baseline",
        base.to_str().unwrap(),
        "--candidate",
        cand.to_str().unwrap(),
        "--process",
        frameprobe_tools::synth::interactions::APP_NAME,
        "-o",
        page.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("What changed, per interaction"));
    assert!(html.contains("Janky frames per interaction"));
    assert!(html.contains("RV Scroll #2"));
    assert!(html.contains("<code>inflate</code> <b>new</b>"));
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(!html.contains(hostile));
    // Markdown: the name only inside a code span, which renders it as text.
    let md = common::run(&[
        "diff",
        base.to_str().unwrap(),
        cand.to_str().unwrap(),
        "--format",
        "markdown",
    ]);
    let md = String::from_utf8_lossy(&md.stdout);
    assert!(md.contains(&format!("`{hostile}`")), "{md}");
    assert_eq!(
        md.matches(hostile).count(),
        md.matches(&format!("`{hostile}`")).count()
    );
}
