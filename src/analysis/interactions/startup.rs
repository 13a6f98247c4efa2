//! Startup interactions: the app launches system_server traces, with the windows Perfetto's
//! `android.startup.startups` uses. Android 13+ traces `launchingActivity#N` (the launch,
//! start to first frame drawn) and an instant `launchingActivity#N:completed…:PACKAGE` that
//! names the package; older releases trace `launching: PACKAGE` over the launch. The
//! interaction belongs to the process of that package (by process name).

use std::collections::HashMap;

use super::{InteractionSource, Window};
use crate::analysis::frame_model::Frame;
use crate::store::{Store, Upid};

/// The launch number of `launchingActivity#N` (None for any other name, the markers too).
fn launch_number(name: &str) -> Option<&str> {
    let n = name.strip_prefix("launchingActivity#")?;
    (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())).then_some(n)
}

/// (launch number, package) of a `launchingActivity#N:completed…:PACKAGE` marker.
fn completed(name: &str) -> Option<(&str, &str)> {
    let rest = name.strip_prefix("launchingActivity#")?;
    let (n, tail) = rest.split_once(':')?;
    if !tail.starts_with("completed") {
        return None;
    }
    Some((n, tail.rsplit(':').next()?))
}

/// (package, ts, end) of every launch in the trace.
fn launches(store: &Store) -> Vec<(String, i64, i64)> {
    let name = |s: &crate::store::SliceRow| store.opt_str(s.name).unwrap_or("");
    let packages: HashMap<&str, &str> = store
        .slices
        .iter()
        .filter_map(|s| completed(name(s)))
        .collect();
    let mut out: Vec<(String, i64, i64)> = store
        .slices
        .iter()
        .filter(|s| s.dur >= 0)
        .filter_map(|s| {
            let pkg = packages.get(launch_number(name(s))?)?;
            Some((pkg.to_string(), s.ts, s.ts + s.dur))
        })
        .collect();
    if out.is_empty() {
        out = store
            .slices
            .iter()
            .filter(|s| s.dur >= 0)
            .filter_map(|s| {
                let pkg = name(s).strip_prefix("launching: ")?;
                Some((pkg.to_string(), s.ts, s.ts + s.dur))
            })
            .collect();
    }
    out
}

pub(super) fn windows(store: &Store, frames: &HashMap<Upid, Vec<Frame>>) -> Vec<Window> {
    let launches = launches(store);
    let mut out = Vec::new();
    for &upid in frames.keys() {
        let Some(pname) = store.opt_str(store.processes[upid as usize].name) else {
            continue;
        };
        for (pkg, ts, end) in &launches {
            if pkg == pname {
                out.push(Window {
                    upid,
                    source: InteractionSource::Startup,
                    label: "startup".to_string(),
                    ts: *ts,
                    dur: end - ts,
                    frames: None,
                });
            }
        }
    }
    out
}
