//! Startup interactions: the app launches system_server traces, with the windows Perfetto's
//! `android.startup.startups` uses. Android 13+ traces `launchingActivity#N` (the launch,
//! start to first frame drawn) and an instant `launchingActivity#N:completed…:PACKAGE` that
//! names the package; older releases trace `launching: PACKAGE` over the launch. The
//! interaction belongs to the process of that package (by process name).

use std::collections::HashMap;

use super::{InteractionSource, Window};
use crate::analysis::frame_model::Frame;
use crate::analysis::named_slices::{Named, NamedSlices};
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

/// What a slice name says about launches.
#[derive(Clone, Copy)]
enum Marker<'a> {
    None,
    /// `launchingActivity#N`: the launch N.
    Launch(&'a str),
    /// `launchingActivity#N:completed…:PACKAGE`: (N, PACKAGE).
    Completed(&'a str, &'a str),
    /// `launching: PACKAGE` (before Android 13).
    Launching(&'a str),
}

/// Whether a slice name is any of the launch markers.
pub fn is_launch_marker(name: &str) -> bool {
    !matches!(marker(name), Marker::None)
}

fn marker(name: &str) -> Marker<'_> {
    if let Some(n) = launch_number(name) {
        Marker::Launch(n)
    } else if let Some((n, pkg)) = completed(name) {
        Marker::Completed(n, pkg)
    } else if let Some(pkg) = name.strip_prefix("launching: ") {
        Marker::Launching(pkg)
    } else {
        Marker::None
    }
}

/// (package, ts, end) of every launch in the trace.
fn launches(store: &Store, candidates: &NamedSlices) -> Vec<(String, i64, i64)> {
    let mut packages: HashMap<&str, &str> = HashMap::new();
    // (launch number, ts, end) of the Android 13+ launches; (package, ts, end) of the older.
    let mut numbered: Vec<(&str, i64, i64)> = Vec::new();
    let mut named: Vec<(&str, i64, i64)> = Vec::new();
    for &id in candidates.ids(Named::Launch) {
        let s = &store.slices[id as usize];
        let Some(name) = s.name else { continue };
        let ended = s.dur >= 0;
        match marker(store.str(name)) {
            Marker::None => {}
            Marker::Completed(n, pkg) => {
                packages.insert(n, pkg);
            }
            Marker::Launch(n) if ended => numbered.push((n, s.ts, s.ts + s.dur)),
            Marker::Launching(pkg) if ended => named.push((pkg, s.ts, s.ts + s.dur)),
            Marker::Launch(_) | Marker::Launching(_) => {}
        }
    }
    let out: Vec<(String, i64, i64)> = numbered
        .into_iter()
        .filter_map(|(n, ts, end)| Some((packages.get(n)?.to_string(), ts, end)))
        .collect();
    if !out.is_empty() {
        return out;
    }
    named
        .into_iter()
        .map(|(pkg, ts, end)| (pkg.to_string(), ts, end))
        .collect()
}

pub(super) fn windows(
    store: &Store,
    named: &NamedSlices,
    frames: &HashMap<Upid, Vec<Frame>>,
) -> Vec<Window> {
    let launches = launches(store, named);
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
