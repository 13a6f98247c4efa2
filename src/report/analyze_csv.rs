//! CSV for `analyze` (one row per process and layer) and `frames` (one row per frame).

use crate::analysis::report_model::AnalyzeReport;
use crate::analysis::summary::Dist;
use crate::cli::output::csv_field;

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

fn dist_cells(d: &Option<Dist>) -> Vec<String> {
    match d {
        Some(d) => vec![
            d.p50.to_string(),
            d.p90.to_string(),
            d.p95.to_string(),
            d.p99.to_string(),
            d.max.to_string(),
        ],
        None => vec![String::new(); 5],
    }
}

pub fn layers_csv(r: &AnalyzeReport) -> String {
    let mut head = vec![
        "pid",
        "process",
        "layer",
        "frames",
        "frames_with_timeline",
        "janky",
        "janky_pct",
        "self_jank",
        "other_jank",
        "dropped",
        "buffer_stuffing",
        "deadline_missed",
        "slow_frames",
        "longest_janky_streak",
    ]
    .into_iter()
    .map(String::from)
    .collect::<Vec<_>>();
    for m in ["ui_ms", "cpu_ms", "overrun_ms"] {
        for p in ["p50", "p90", "p95", "p99", "max"] {
            head.push(format!("{m}_{p}"));
        }
    }
    let mut out = head.join(",") + "\n";
    for p in &r.processes {
        for l in &p.layers {
            // Empty cells, never 0, where FrameTimeline classified nothing.
            let t = |k: &str| {
                opt(l
                    .by_jank_tag
                    .as_ref()
                    .map(|m| m.get(k).map_or(0, |c| c.frames)))
            };
            let mut row = vec![
                p.pid.to_string(),
                csv_field(p.name.as_deref().unwrap_or("")),
                csv_field(l.layer.as_deref().unwrap_or("")),
                l.frames.to_string(),
                l.frames_with_timeline.to_string(),
                opt(l.janky.as_ref().map(|c| c.frames)),
                opt(l.janky.as_ref().map(|c| c.rate_pct)),
                t("Self Jank"),
                t("Other Jank"),
                t("Dropped Frame"),
                t("Buffer Stuffing"),
                opt(l.deadline_missed.as_ref().map(|c| c.frames)),
                opt(l.slow_frames.as_ref().map(|c| c.frames)),
                l.longest_janky_streak.to_string(),
            ];
            row.extend(dist_cells(&l.durations.ui_ms));
            row.extend(dist_cells(&l.durations.cpu_ms));
            row.extend(dist_cells(&l.durations.overrun_ms));
            out.push_str(&row.join(","));
            out.push('\n');
        }
    }
    out
}

pub fn frames_csv(r: &AnalyzeReport) -> String {
    let mut out = String::from("pid,process,layer,frame_id,ts,dur_ms,ui_ms,cpu_ms,overrun_ms,jank_tag,jank_type,present_type,on_time_finish,janky,display_frame_token,buffer_confidence,gpu_wait_ms,sf_ms,hwui_janky,hwui_janky_legacy,hwui_jank_types\n");
    for p in &r.processes {
        for f in &p.all_frames {
            let b = f.buffer.as_ref();
            let row = [
                p.pid.to_string(),
                csv_field(p.name.as_deref().unwrap_or("")),
                csv_field(f.layer.as_deref().unwrap_or("")),
                opt(f.frame_id),
                f.ts.to_string(),
                opt(f.dur_ms),
                opt(f.ui_ms),
                opt(f.cpu_ms),
                opt(f.overrun_ms),
                csv_field(f.jank_tag.as_deref().unwrap_or("")),
                csv_field(f.jank_type.as_deref().unwrap_or("")),
                csv_field(f.present_type.as_deref().unwrap_or("")),
                opt(f.on_time_finish.map(|b| b as i32)),
                (f.janky as i32).to_string(),
                opt(f.display_frame_token),
                opt(b.map(|b| format!("{:?}", b.confidence).to_lowercase())),
                opt(b
                    .and_then(|b| b.gpu)
                    .filter(|g| g.dur >= 0)
                    .map(|g| g.dur as f64 / 1e6)),
                opt(b
                    .and_then(|b| b.sf)
                    .filter(|s| s.dur >= 0)
                    .map(|s| s.dur as f64 / 1e6)),
                opt(f.hwui.as_ref().map(|h| h.janky as i32)),
                opt(f.hwui.as_ref().map(|h| h.janky_legacy as i32)),
                csv_field(
                    &f.hwui
                        .as_ref()
                        .map_or(String::new(), |h| h.jank_types.join(";")),
                ),
            ];
            out.push_str(&row.join(","));
            out.push('\n');
        }
    }
    out
}
