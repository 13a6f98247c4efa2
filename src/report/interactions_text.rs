//! A process's interactions as table rows, for the table and Markdown renderers.

use crate::analysis::interactions::summary::InteractionReport;

fn janky(i: &InteractionReport, key: &str) -> String {
    match (i.janky.get(key), i.judged.get(key)) {
        (Some(n), Some(d)) if *d > 0 => format!("{n}/{d}"),
        _ => "n/a".to_string(),
    }
}

/// One row per interaction (the first is the header): janky frames per definition as
/// flagged/judged, the worst frame and the top cause.
pub fn rows(list: &[InteractionReport]) -> Vec<Vec<String>> {
    let mut rows = vec![[
        "interaction",
        "source",
        "time",
        "dur ms",
        "frames",
        "FrameTimeline",
        "stdlib",
        "HWUI",
        "vitals",
        "over budget",
        "worst frame",
        "top cause",
    ]
    .map(String::from)
    .to_vec()];
    for i in list {
        let worst = i.worst_frame.as_ref().map_or("-".to_string(), |w| {
            let id = w.frame_id.map_or(String::new(), |id| format!("{id} "));
            match w.overrun_ms {
                Some(o) => format!("{id}overrun {o:.1} ms"),
                None => format!("{id}{:.1} ms", w.dur_ms),
            }
        });
        rows.push(vec![
            format!("{} #{}", i.label, i.ordinal),
            i.source.name().to_string(),
            format!("+{:.3} s", i.time_s),
            format!("{:.1}", i.dur_ms),
            i.frames.to_string(),
            janky(i, "frame_timeline"),
            janky(i, "perfetto_stdlib"),
            janky(i, "hwui"),
            janky(i, "vitals"),
            janky(i, "over_budget"),
            worst,
            i.top_causes.first().map_or("-".to_string(), |c| {
                format!("{} {:.1} ms", c.label, c.total_ms)
            }),
        ]);
    }
    rows
}
