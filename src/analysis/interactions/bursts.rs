//! Bursts: frames no other interaction covers, grouped while the gap from the end of the
//! burst so far to the next frame's start stays under the idle gap. A frame that belongs to
//! another interaction also ends the burst, so a burst never spans another interaction.

use super::{Interaction, InteractionSource};
use crate::analysis::frame_model::Frame;
use crate::store::Upid;

pub(super) fn bursts(
    upid: Upid,
    frames: &[Frame],
    taken: &[bool],
    gap_ns: i64,
) -> Vec<Interaction> {
    let mut out: Vec<Interaction> = Vec::new();
    let mut open = false;
    for (i, f) in frames.iter().enumerate() {
        if taken[i] {
            open = false;
            continue;
        }
        let end = f.ts + f.dur.max(0);
        match out.last_mut() {
            Some(b) if open && f.ts - b.end() < gap_ns => {
                b.dur = b.dur.max(end - b.ts);
                b.frames.push(i);
            }
            _ => {
                out.push(Interaction {
                    upid,
                    source: InteractionSource::Idle,
                    label: "burst".to_string(),
                    ordinal: 0,
                    ts: f.ts,
                    dur: end - f.ts,
                    frames: vec![i],
                });
                open = true;
            }
        }
    }
    out
}
