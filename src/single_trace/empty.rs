//! Why a trace's report has no frame to show, in the words the CLI prints after `error: `
//! (or `warning: ` when other traces in the same run do have frames).

use crate::analysis::report_model::AnalyzeReport;
use crate::analysis::AnalyzeOptions;

/// Nothing when the report has frames. Otherwise: with a --process/--layer filter, the
/// processes with frames, closest names first; without one, the trace has no frame data
/// (doctor says what to record), or, with --from/--to, none in the range (the message gives
/// the trace's span); with --interaction, the interactions the trace has.
pub fn empty_report_message(r: &AnalyzeReport, opts: &AnalyzeOptions) -> Option<String> {
    if !r.processes.is_empty() {
        return None;
    }
    let filtered = !opts.processes.is_empty() || opts.layer.is_some();
    let mut wanted = opts.processes.clone();
    wanted.extend(opts.layer.iter().map(|l| format!("layer {l}")));
    // With --from/--to, a trace that has frames elsewhere says where they are.
    let range = r.range.as_ref().filter(|g| g.trace_has_frames);
    Some(match range {
        _ if !r.interaction_labels.is_empty() || !opts.interactions.sections.is_empty() => {
            interaction_message(r, &opts.interactions.sections)
        }
        Some(g) if r.processes_with_frames.is_empty() => {
            format!("{}: {}", r.trace, g.empty_message())
        }
        Some(g) if filtered => format!(
            "{} (only frames starting from {} were considered)",
            no_match_message(&r.trace, &wanted, &r.processes_with_frames),
            g.describe()
        ),
        Some(g) => format!("{}: {}", r.trace, g.empty_message()),
        None if filtered => no_match_message(&r.trace, &wanted, &r.processes_with_frames),
        None => no_frames_message(&r.trace),
    })
}
/// A `--interaction` filter kept no frame: name the interactions the trace has.
fn interaction_message(r: &AnalyzeReport, globs: &[String]) -> String {
    let have = if r.interaction_labels.is_empty() {
        "it has none".to_string()
    } else {
        format!("it has {}", r.interaction_labels.join(", "))
    };
    format!(
        "{}: no frames in interactions matching {} ({have}{})",
        r.trace,
        globs.join(", "),
        r.range.as_ref().map_or(String::new(), |g| format!(
            "; only frames starting from {} were considered",
            g.describe()
        ))
    )
}

/// The message for a trace in which no process has a frame.
pub fn no_frames_message(trace: &str) -> String {
    format!(
        "{trace}: no frames: neither FrameTimeline actual frames nor main-thread Choreographer#doFrame / RenderThread DrawFrame slices; `frameprobe doctor {trace}` shows what the trace holds and the trace config that adds them"
    )
}

/// The message for a --process/--layer filter that matched nothing: what does have frames,
/// closest names first.
pub fn no_match_message(
    trace: &str,
    wanted: &[String],
    have: &[crate::analysis::inventory::FrameProcess],
) -> String {
    let mut s = format!(
        "{trace}: no frames match {}",
        wanted
            .iter()
            .map(|w| format!("{w:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    if have.is_empty() {
        s.push_str("; no process in the trace has frames");
        return s;
    }
    s.push_str("; processes with frames (closest first):");
    for p in have {
        s.push_str(&format!(
            "\n  {} (pid {}): {} frame{}{}",
            p.name.as_deref().unwrap_or("<unnamed>"),
            p.pid,
            p.frames,
            if p.frames == 1 { "" } else { "s" },
            if p.layers.iter().any(|l| l.layer.is_some()) {
                format!(
                    " in {}",
                    p.layers
                        .iter()
                        .map(|l| format!(
                            "{} ({})",
                            l.layer.as_deref().unwrap_or("no layer"),
                            l.frames
                        ))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            } else {
                String::new()
            }
        ));
    }
    s
}
