//! Lookup structures over the store that the frame model needs: each process's main thread
//! and RenderThreads, their doFrame / DrawFrame slices, FrameTimeline rows by process and
//! token, and the FrameTracer phases by layer.

use rustc_hash::FxHashMap;

use crate::analysis::named_slices::{Named, NamedSlices};
use crate::store::{SliceId, Store, TrackScope, Upid, Utid};

/// A slice reduced to what the frame model uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Span {
    pub id: SliceId,
    pub ts: i64,
    pub dur: i64,
}

impl Span {
    pub fn end(&self) -> i64 {
        self.ts + self.dur.max(0)
    }
    pub fn complete(&self) -> bool {
        self.dur >= 0
    }
}

/// The word after the first space as a frame id ("Choreographer#doFrame 123" -> 123).
pub fn frame_id_of(name: &str) -> Option<i64> {
    let first = name.find(' ')?;
    name[first + 1..].split(' ').next()?.parse().ok()
}

#[derive(Debug, Default)]
pub struct ProcessThreads {
    pub main: Option<Utid>,
    pub render_threads: Vec<Utid>,
}

/// FrameTracer phase kinds (track name prefixes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Phase {
    App,
    Gpu,
    Sf,
    Display,
}

#[derive(Debug, Clone)]
pub struct PhaseSlice {
    pub span: Span,
    pub buffer_id: Option<u32>,
    pub frame_number: Option<i64>,
}

pub struct Index<'a> {
    pub store: &'a Store,
    pub utid_of_track: FxHashMap<u32, Utid>,
    pub threads: FxHashMap<Upid, ProcessThreads>,
    /// Main-thread `Choreographer#doFrame*` slices per process, by ts.
    pub do_frames: FxHashMap<Upid, Vec<Span>>,
    /// RenderThread `DrawFrame*` slices per process, by ts.
    pub draw_frames: FxHashMap<Upid, Vec<Span>>,
    /// FrameTracer phases per layer name and kind, by ts.
    pub phases: FxHashMap<(String, Phase), Vec<PhaseSlice>>,
    /// The slices looked up by name, found in the one pass over the slice rows.
    pub named: NamedSlices,
}

impl<'a> Index<'a> {
    pub fn new(store: &'a Store) -> Self {
        Index::with_named(store, NamedSlices::collect(store))
    }

    /// With the slices looked up by name already found.
    pub fn with_named(store: &'a Store, named: NamedSlices) -> Self {
        let mut utid_of_track = FxHashMap::default();
        for (i, t) in store.tracks.iter().enumerate() {
            if let TrackScope::Thread(u) = t.scope {
                if t.event_type == crate::store::EventType::Slice {
                    utid_of_track.insert(i as u32, u);
                }
            }
        }
        let mut threads: FxHashMap<Upid, ProcessThreads> = FxHashMap::default();
        for (utid, t) in store.threads.iter().enumerate() {
            let Some(upid) = t.upid else { continue };
            if upid == 0 {
                continue;
            }
            let e = threads.entry(upid).or_default();
            if store.processes[upid as usize].pid == t.tid {
                e.main = Some(utid as Utid);
            }
            if store.opt_str(t.name) == Some("RenderThread") {
                e.render_threads.push(utid as Utid);
            }
        }
        let mut idx = Index {
            store,
            utid_of_track,
            threads,
            do_frames: FxHashMap::default(),
            draw_frames: FxHashMap::default(),
            phases: FxHashMap::default(),
            named,
        };
        idx.collect_frame_slices();
        idx.collect_phases();
        idx
    }

    fn collect_frame_slices(&mut self) {
        let s = self.store;
        // Intern lookups once: which string ids are doFrame / DrawFrame names.
        let mut is_do = vec![false; s.strings.len()];
        let mut is_draw = vec![false; s.strings.len()];
        for (i, name) in s.strings.iter().enumerate() {
            is_do[i] = name.starts_with("Choreographer#doFrame") && !name.contains("resynced");
            is_draw[i] = name.starts_with("DrawFrame");
        }
        for &id in self.named.ids(Named::FrameSlice) {
            let r = &s.slices[id as usize];
            let Some(n) = r.name else { continue };
            let n = n.index() as usize;
            if !is_do[n] && !is_draw[n] {
                continue;
            }
            let Some(&utid) = self.utid_of_track.get(&r.track_id) else {
                continue;
            };
            let Some(upid) = s.threads[utid as usize].upid else {
                continue;
            };
            let Some(pt) = self.threads.get(&upid) else {
                continue;
            };
            let span = Span {
                id,
                ts: r.ts,
                dur: r.dur,
            };
            if is_do[n] && pt.main == Some(utid) {
                self.do_frames.entry(upid).or_default().push(span);
            } else if is_draw[n] && pt.render_threads.contains(&utid) {
                self.draw_frames.entry(upid).or_default().push(span);
            }
        }
        // Slice ids follow start times, so this stable sort is a check that changes nothing
        // on the usual trace; the lookups by time below rely on it.
        for v in self
            .do_frames
            .values_mut()
            .chain(self.draw_frames.values_mut())
        {
            v.sort_by_key(|s| s.ts);
        }
    }

    /// A process's DrawFrames that start in `[from, until)`, in start order.
    pub fn draw_frames_starting(&self, upid: Upid, from: i64, until: i64) -> &[Span] {
        let Some(all) = self.draw_frames.get(&upid) else {
            return &[];
        };
        let a = all.partition_point(|d| d.ts < from);
        let z = all.partition_point(|d| d.ts < until).max(a);
        &all[a..z]
    }

    fn collect_phases(&mut self) {
        let s = self.store;
        let mut kind_of_track: FxHashMap<u32, (Phase, Option<u32>)> = FxHashMap::default();
        for (i, t) in s.tracks.iter().enumerate() {
            if s.str(t.kind) != "graphics_frame_event" {
                continue;
            }
            let Some(name) = s.opt_str(t.name) else {
                continue;
            };
            let (phase, rest) = if let Some(r) = name.strip_prefix("APP_") {
                (Phase::App, r)
            } else if let Some(r) = name.strip_prefix("GPU_") {
                (Phase::Gpu, r)
            } else if let Some(r) = name.strip_prefix("SF_") {
                (Phase::Sf, r)
            } else if name.starts_with("Display_") {
                (Phase::Display, "")
            } else {
                continue;
            };
            let buffer = rest.split(' ').next().and_then(|b| b.parse().ok());
            kind_of_track.insert(i as u32, (phase, buffer));
        }
        for f in &s.frame_slices {
            let r = &s.slices[f.slice_id as usize];
            let Some(&(phase, buffer_id)) = kind_of_track.get(&r.track_id) else {
                continue;
            };
            let Some(layer) = s.opt_str(f.layer_name) else {
                continue;
            };
            self.phases
                .entry((layer.to_string(), phase))
                .or_default()
                .push(PhaseSlice {
                    span: Span {
                        id: f.slice_id,
                        ts: r.ts,
                        dur: r.dur,
                    },
                    buffer_id,
                    frame_number: f.frame_number,
                });
        }
        for v in self.phases.values_mut() {
            v.sort_by_key(|p| (p.span.ts, p.span.id));
        }
    }

    /// Slices nested under `parent` on its track (any depth), for hot-spot search.
    pub fn descendants(&self, parent: SliceId) -> Vec<SliceId> {
        let s = self.store;
        let p = &s.slices[parent as usize];
        let end = if p.dur < 0 { i64::MAX } else { p.ts + p.dur };
        // Slices of one track are stored in start order, so children follow their parent.
        let mut out = Vec::new();
        for (i, r) in s.slices.iter().enumerate().skip(parent as usize + 1) {
            if r.ts > end {
                break;
            }
            if r.track_id == p.track_id && r.depth() > p.depth() {
                out.push(i as SliceId);
            }
        }
        out
    }

    /// Name of the process: the trace's, else the one app package its layers name (see
    /// [`package_from_layer`]). No guess when the layers name several packages, or a package
    /// the trace gives to another process.
    pub fn process_name(&self, upid: Upid, layers: &[String]) -> Option<String> {
        let processes = &self.store.processes;
        if let Some(n) = self.store.opt_str(processes[upid as usize].name) {
            return Some(n.to_string());
        }
        let mut packages = layers.iter().filter_map(|l| package_from_layer(l));
        let package = packages.next()?;
        if packages.any(|p| p != package) {
            return None;
        }
        let named_elsewhere = processes
            .iter()
            .any(|p| self.store.opt_str(p.name) == Some(package));
        (!named_elsewhere).then(|| package.to_string())
    }
}

/// The app package of an app window layer, `[TX - ]<package>/<activity>#<n>`: such a
/// window's buffers come from the app's own process. Other layers name no owner:
/// "Splash Screen <package>" is the starting window, drawn by SystemUI (by system_server
/// before Android 12), not by the app; leashes, "StatusBar" and the like name no package.
pub fn package_from_layer(layer: &str) -> Option<&str> {
    let l = layer.strip_prefix("TX - ").unwrap_or(layer);
    let (package, rest) = l.split_once('/')?;
    let activity = rest.split('#').next()?;
    let java_name = |s: &str| {
        s.contains('.')
            && !s.starts_with('.')
            && !s.ends_with('.')
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
    };
    let activity_ok = !activity.is_empty()
        && activity
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$');
    (java_name(package) && activity_ok).then_some(package)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_ids_from_slice_names() {
        assert_eq!(frame_id_of("Choreographer#doFrame 42"), Some(42));
        assert_eq!(frame_id_of("DrawFrames 42"), Some(42));
        assert_eq!(frame_id_of("Choreographer#doFrame"), None);
        assert_eq!(
            frame_id_of("Choreographer#doFrame - resynced to 5 in 1ms"),
            None
        );
    }

    fn store_with(names: &[Option<&str>]) -> Store {
        let mut store = Store::default();
        for (i, n) in names.iter().enumerate() {
            let name = n.map(|n| store.intern(n));
            store.processes.push(crate::store::ProcessRow {
                pid: 100 + i as i64,
                name,
                ..Default::default()
            });
        }
        store
    }

    /// The DrawFrames a doFrame owns (without FrameTimeline: those starting from its start
    /// up to the next doFrame's) and those a layer's doFrame may have drawn (from its start
    /// to its end, inclusive: `until` is the end + 1) come from a half-open range of starts.
    #[test]
    fn draw_frames_starting_in_a_half_open_range_of_starts() {
        let store = store_with(&[Some("app")]);
        let mut idx = Index::new(&store);
        let span = |id, ts| Span { id, ts, dur: 5 };
        idx.draw_frames
            .insert(0, vec![span(1, 10), span(2, 20), span(3, 20), span(4, 30)]);
        let ids = |from, until| -> Vec<u32> {
            idx.draw_frames_starting(0, from, until)
                .iter()
                .map(|s| s.id)
                .collect()
        };
        assert_eq!(ids(20, 30), [2, 3]);
        assert_eq!(ids(10, 31), [1, 2, 3, 4]);
        assert_eq!(ids(11, 20), Vec::<u32>::new());
        assert_eq!(ids(31, i64::MAX), Vec::<u32>::new());
        assert_eq!(ids(30, 10), Vec::<u32>::new());
        assert!(idx.draw_frames_starting(1, 0, i64::MAX).is_empty());
    }

    fn layers(l: &[&str]) -> Vec<String> {
        l.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn layer_names_only_fill_a_missing_name() {
        let store = store_with(&[Some("com.android.systemui"), None, None]);
        let idx = Index::new(&store);
        let app = layers(&["TX - com.example.app/com.example.app.Main#1"]);
        // The trace's name always wins.
        assert_eq!(
            idx.process_name(0, &app).as_deref(),
            Some("com.android.systemui")
        );
        assert_eq!(
            idx.process_name(1, &app).as_deref(),
            Some("com.example.app")
        );
        // The owner of a splash screen and the status bar is SystemUI: no guess.
        let sysui = layers(&["TX - Splash Screen com.example.app#3", "TX - StatusBar#4"]);
        assert_eq!(idx.process_name(2, &sysui), None);
    }

    #[test]
    fn layer_names_never_take_another_process_name_or_guess_between_apps() {
        let store = store_with(&[Some("com.example.app"), None]);
        let idx = Index::new(&store);
        let same = layers(&["com.example.app/.Main#1"]);
        assert_eq!(idx.process_name(1, &same), None);
        let two = layers(&["a.b/.Main#1", "c.d/.Main#2"]);
        assert_eq!(idx.process_name(1, &two), None);
        let twice = layers(&["a.b/.Main#1", "TX - a.b/.Other#2"]);
        assert_eq!(idx.process_name(1, &twice).as_deref(), Some("a.b"));
    }

    #[test]
    fn package_names_from_app_window_layers_only() {
        assert_eq!(
            package_from_layer("TX - com.google.samples.apps.nowinandroid.demo/com.google.samples.apps.nowinandroid.MainActivity#50010"),
            Some("com.google.samples.apps.nowinandroid.demo")
        );
        assert_eq!(
            package_from_layer("com.example.app/.MainActivity#3"),
            Some("com.example.app")
        );
        // Starting windows are drawn by SystemUI, not by the app they name.
        assert_eq!(
            package_from_layer("TX - Splash Screen com.example.app#123"),
            None
        );
        assert_eq!(package_from_layer("TX - StatusBar#38004"), None);
        assert_eq!(package_from_layer("Wallpaper BBQ wrapper#0"), None);
        assert_eq!(
            package_from_layer("TX - Surface(name=8d1f382 com.example.app/com.example.app.MainActivity)/@0x42c2fdf - animation-leash of starting_reveal#50014"),
            None
        );
        assert_eq!(package_from_layer("TX - com.example.app#5"), None);
    }
}
