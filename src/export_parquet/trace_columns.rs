//! The columns every row of a trace carries: which trace, and the device and build it was
//! recorded on (trace_processor's metadata keys; null when the trace does not say).

use crate::store::{MetaValue, Store};

/// One trace's identifying cells.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TraceColumns {
    pub trace_id: String,
    pub trace_path: String,
    pub build_fingerprint: Option<String>,
    pub sdk_version: Option<i64>,
    pub device_manufacturer: Option<String>,
    pub soc_model: Option<String>,
}

impl TraceColumns {
    /// The trace at `path` (as given on the command line) with what `store` says of its device.
    pub fn new(path: &str, store: &Store) -> Self {
        let text = |k: &str| match store.metadata.get(k) {
            Some(MetaValue::Str(s)) if !s.is_empty() => Some(s.clone()),
            _ => None,
        };
        TraceColumns {
            trace_id: super::trace_id(path),
            trace_path: path.to_string(),
            build_fingerprint: text("android_build_fingerprint"),
            sdk_version: store.metadata_int("android_sdk_version"),
            device_manufacturer: text("android_device_manufacturer"),
            soc_model: text("android_soc_model"),
        }
    }
}
