//! The `frameprobe.frames/v1` JSON contract (`frames --format json`) and the envelope of
//! `analyze --format json` over several traces, as serde structs.

use serde::Serialize;

use crate::analysis::report_model::{AnalyzeReport, FrameReport, Sources};
use crate::analysis::time_range::RangeReport;
use crate::analysis::trust::Trust;

/// Every frame of the reported processes.
#[derive(Serialize)]
pub struct FramesDoc<'a> {
    schema: &'static str,
    tool_version: &'static str,
    metric_version: u32,
    trace: &'a str,
    trace_start_ns: i64,
    sources: &'a Sources,
    trust: &'a Trust,
    processes: Vec<FramesOfProcess<'a>>,
    /// Present only with --from/--to.
    #[serde(skip_serializing_if = "Option::is_none")]
    range: Option<&'a RangeReport>,
}

#[derive(Serialize)]
struct FramesOfProcess<'a> {
    pid: i64,
    name: Option<&'a str>,
    trust: &'a Trust,
    frames: &'a [FrameReport],
}

impl<'a> FramesDoc<'a> {
    pub fn new(r: &'a AnalyzeReport) -> Self {
        Self {
            schema: "frameprobe.frames/v1",
            tool_version: r.tool_version,
            metric_version: r.metric_version,
            trace: &r.trace,
            trace_start_ns: r.trace_start_ns,
            sources: &r.sources,
            trust: &r.trust,
            processes: r
                .processes
                .iter()
                .map(|p| FramesOfProcess {
                    pid: p.pid,
                    name: p.name.as_deref(),
                    trust: &p.trust,
                    frames: &p.all_frames,
                })
                .collect(),
            range: r.range.as_ref(),
        }
    }
}

/// `analyze`, `frames` or `doctor --format json` with several traces (or a trace that
/// failed): each trace's document, and one error line per trace that could not be read.
#[derive(Serialize)]
pub struct Many<'a, T> {
    pub schema: &'static str,
    pub metric_version: u32,
    pub traces: &'a [T],
    pub errors: &'a [String],
}

impl<'a, T> Many<'a, T> {
    pub fn new(traces: &'a [T], errors: &'a [String]) -> Self {
        Self {
            schema: crate::analysis::report_model::SCHEMA,
            metric_version: crate::analysis::definitions::METRIC_VERSION,
            traces,
            errors,
        }
    }
}
