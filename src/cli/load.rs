//! Loading a trace for a command that analyzes frames. An unreadable file, an empty file or
//! one without a single packet is an error (exit 2), not an empty report: the loader
//! (`import::load_source`) refuses those for every command, so this only names the file.

use std::path::Path;

use anyhow::{Context, Result};

use crate::import::{load, LoadOptions, Loaded};

pub fn load_trace(path: &Path, opts: LoadOptions) -> Result<Loaded> {
    load(path, opts).with_context(|| format!("cannot load {}", path.display()))
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
