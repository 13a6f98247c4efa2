//! The causes in every output format, on the planted-causes trace: the analyze table,
//! Markdown and CSV carry the top causes with the planned milliseconds, `frames` CSV the
//! primary cause of each janky frame, and the HTML report the top-causes table and a cause
//! breakdown bar per worst frame.

mod common;

use frameprobe_tools::synth::causes::{self, Cause, PlantedTrace};

fn write(name: &str, t: &PlantedTrace) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("frameprobe-causes-fmt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, &t.bytes).unwrap();
    p
}

fn stdout(args: &[&str]) -> String {
    let out = common::run(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn ms(ns: i64) -> f64 {
    ns as f64 / 1e6
}

/// The label the report prints for a planted cause.
fn label(c: Cause) -> &'static str {
    frameprobe::analysis::causes::categories::Category::from_id(c.category())
        .unwrap()
        .label()
}

/// Planted causes, longest first (each is in one frame, so this is their top-by-ms order).
fn by_ms() -> Vec<Cause> {
    let mut v = Cause::ALL.to_vec();
    v.sort_by_key(|c| std::cmp::Reverse(c.ns()));
    v
}

#[test]
fn table_and_markdown_list_each_planted_cause_with_its_ms() {
    let t = causes::generate(false);
    let path = write("text.pftrace", &t);
    let p = path.to_str().unwrap();
    let table = stdout(&["analyze", p]);
    let md = stdout(&["analyze", p, "--format", "markdown"]);
    for text in [&table, &md] {
        assert!(text.contains("top causes across 5 janky frames (5 explained"));
    }
    for c in Cause::ALL {
        let ms = format!("{:.1}", ms(c.ns()));
        // table: "| shader compilation | render_thread | 22.0 | … | 1 | 1"
        let row = table
            .lines()
            .find(|l| l.contains(&format!("| {} ", label(c))))
            .unwrap_or_else(|| panic!("{c:?} in the table"));
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        assert_eq!(cells[3], ms, "{c:?}");
        assert_eq!((cells[5], cells[6]), ("1", "1"), "{c:?} frames, primary");
        let row = md
            .lines()
            .find(|l| l.contains(&format!("| {} |", label(c))))
            .unwrap_or_else(|| panic!("{c:?} in the markdown"));
        assert!(row.contains(&format!("| {ms} |")), "{row}");
    }
}

#[test]
fn csv_formats_carry_top_and_primary_causes() {
    let t = causes::generate(false);
    let path = write("csv.pftrace", &t);
    let p = path.to_str().unwrap();
    // analyze: one row per layer; after the app's self time (5 ms in each of the five
    // frames), the two longest planted causes.
    let rows = common::parse_csv(&stdout(&["analyze", p, "--format", "csv"]));
    let head = &rows[0];
    let cell =
        |row: &[String], name: &str| row[head.iter().position(|h| h == name).unwrap()].clone();
    let row = rows
        .iter()
        .find(|r| cell(r, "process") == causes::APP_NAME)
        .unwrap();
    let top = by_ms();
    assert_eq!(cell(row, "top_cause_2"), top[0].category());
    assert_eq!(
        cell(row, "top_cause_2_ms").parse::<f64>().unwrap(),
        ms(top[0].ns())
    );
    assert_eq!(cell(row, "top_cause_3"), top[1].category());
    assert_eq!(cell(row, "top_cause_3_frames"), "1");
    // frames: each janky frame's primary cause, its ms and its window's.
    let rows = common::parse_csv(&stdout(&["frames", p, "--format", "csv"]));
    let head = &rows[0];
    let cell =
        |row: &[String], name: &str| row[head.iter().position(|h| h == name).unwrap()].clone();
    for plan in &t.frames {
        let row = rows
            .iter()
            .find(|r| cell(r, "frame_id") == plan.vsync_id.to_string())
            .unwrap();
        match plan.cause {
            Some(c) => {
                assert_eq!(cell(row, "primary_cause"), c.category());
                assert_eq!(
                    cell(row, "primary_cause_ms").parse::<f64>().unwrap(),
                    ms(c.ns())
                );
                assert_eq!(
                    cell(row, "cause_window_ms").parse::<f64>().unwrap(),
                    ms(plan.actual_end - plan.expected_start)
                );
            }
            None => assert_eq!(cell(row, "primary_cause"), ""),
        }
    }
    // The frames table has the column too.
    let table = stdout(&["frames", p, "--janky"]);
    assert!(table.lines().next().unwrap().contains("primary_cause"));
    assert!(table.contains("| monitor_contention "));
}

#[test]
fn html_report_has_the_top_causes_and_a_cause_bar_per_worst_frame() {
    let t = causes::generate(false);
    let path = write("report.pftrace", &t);
    let html_path = path.with_extension("html");
    stdout(&[
        "report",
        path.to_str().unwrap(),
        "-o",
        html_path.to_str().unwrap(),
    ]);
    let html = std::fs::read_to_string(&html_path).unwrap();
    let top = &html[html
        .find("Top causes across 5 janky frames")
        .expect("top-causes table")..];
    let top = &top[..top.find("</table>").unwrap()];
    for c in Cause::ALL {
        assert!(
            top.contains(&format!("<th>{}</th>", label(c))),
            "{c:?} in the top causes"
        );
        assert!(top.contains(&format!("{:.2}", ms(c.ns()))), "{c:?} ms");
    }
    // Each planted frame among the worst: a cause chain whose bar has the cause's segment.
    let worst: Vec<&str> = html
        .split("<details class=\"worst\"")
        .skip(1)
        .map(|s| &s[..s.find("</details>").unwrap()])
        .collect();
    for c in Cause::ALL {
        let seg = format!("<title>{} {:.2} ms</title>", label(c), ms(c.ns()));
        let with_bar = worst.iter().filter(|w| {
            w.split_once("<div class=\"causes\">")
                .is_some_and(|(_, causes)| {
                    causes.contains("<svg class=\"stack\"") && causes.contains(&seg)
                })
        });
        assert_eq!(with_bar.count(), 1, "{c:?}");
    }
}
