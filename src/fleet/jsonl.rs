//! One JSON object per trace for `--format jsonl`: `trace`, `metric_version`, `status` and,
//! on error, `error`; an ok line also carries the command's single-trace JSON object.

use std::path::Path;

use anyhow::{bail, Result};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::analysis::definitions::METRIC_VERSION;

#[derive(Serialize)]
struct Line<'a> {
    trace: &'a str,
    metric_version: u32,
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
    #[serde(flatten)]
    content: Map<String, Value>,
}

fn line(trace: &Path, error: Option<&str>, content: Map<String, Value>) -> Result<String> {
    let trace = trace.display().to_string();
    let status = if error.is_some() { "error" } else { "ok" };
    Ok(serde_json::to_string(&Line {
        trace: &trace,
        metric_version: METRIC_VERSION,
        status,
        error,
        content,
    })?)
}

/// The line of a trace the command handled: `content` (a JSON object) with the line's
/// fields. Its own `trace` and `metric_version` are the line's, so they appear once.
pub fn ok_line(trace: &Path, content: &impl Serialize) -> Result<String> {
    let Value::Object(mut fields) = serde_json::to_value(content)? else {
        bail!("a JSON Lines record must be an object");
    };
    fields.remove("trace");
    fields.remove("metric_version");
    fields.remove("status");
    line(trace, None, fields)
}

/// The line of a trace the command could not handle, with the error it would have printed.
pub fn error_line(trace: &Path, message: &str) -> String {
    line(trace, Some(message), Map::new()).expect("strings serialize")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_one_compact_object_with_the_status_fields() {
        #[derive(Serialize)]
        struct Doc {
            trace: &'static str,
            metric_version: u32,
            frames: u32,
        }
        let doc = Doc {
            trace: "t.pb",
            metric_version: METRIC_VERSION,
            frames: 7,
        };
        let ok = ok_line(Path::new("t.pb"), &doc).unwrap();
        assert!(!ok.contains('\n'));
        let v: Value = serde_json::from_str(&ok).unwrap();
        assert_eq!(v["status"], "ok");
        assert_eq!(v["frames"], 7);
        assert_eq!(v["trace"], "t.pb");
        assert_eq!(ok.matches("\"trace\"").count(), 1);
        assert!(v.get("error").is_none());
        let err = error_line(Path::new("bad \"x\".pb"), "cannot load: \"quoted\"\nnext");
        assert!(!err.contains('\n'));
        let v: Value = serde_json::from_str(&err).unwrap();
        assert_eq!(v["status"], "error");
        assert_eq!(v["trace"], "bad \"x\".pb");
        assert_eq!(v["error"], "cannot load: \"quoted\"\nnext");
        assert_eq!(v["metric_version"], METRIC_VERSION);
    }
}
