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
fn launches(store: &Store) -> Vec<(String, i64, i64)> {
    // Each distinct name is read once (a trace has far fewer names than slices); the
    // slices are then matched by name id.
    let markers: Vec<Marker<'_>> = store.strings.iter().map(marker).collect();
    let marker_of =
        |s: &crate::store::SliceRow| s.name.map_or(Marker::None, |n| markers[n.index() as usize]);
    let packages: HashMap<&str, &str> = store
        .slices
        .iter()
        .filter_map(|s| match marker_of(s) {
            Marker::Completed(n, pkg) => Some((n, pkg)),
            _ => None,
        })
        .collect();
    let ended = || store.slices.iter().filter(|s| s.dur >= 0);
    let mut out: Vec<(String, i64, i64)> = ended()
        .filter_map(|s| match marker_of(s) {
            Marker::Launch(n) => {
                let pkg = packages.get(n)?;
                Some((pkg.to_string(), s.ts, s.ts + s.dur))
            }
            _ => None,
        })
        .collect();
    if out.is_empty() {
        out = ended()
            .filter_map(|s| match marker_of(s) {
                Marker::Launching(pkg) => Some((pkg.to_string(), s.ts, s.ts + s.dur)),
                _ => None,
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
