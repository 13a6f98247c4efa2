//! Lookup structures over the store that the frame model needs: each process's main thread
//! and RenderThreads, their doFrame / DrawFrame slices, FrameTimeline rows by process and
//! token, and the FrameTracer phases by layer.

use std::collections::HashMap;

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
    pub utid_of_track: HashMap<u32, Utid>,
    pub threads: HashMap<Upid, ProcessThreads>,
    /// Main-thread `Choreographer#doFrame*` slices per process, by ts.
    pub do_frames: HashMap<Upid, Vec<Span>>,
    /// RenderThread `DrawFrame*` slices per process, by ts.
    pub draw_frames: HashMap<Upid, Vec<Span>>,
    /// FrameTracer phases per layer name and kind, by ts.
    pub phases: HashMap<(String, Phase), Vec<PhaseSlice>>,
    /// Child slices per parent slice (for hot spots), built on demand by the caller.
    pub children: HashMap<SliceId, Vec<SliceId>>,
}

impl<'a> Index<'a> {
    pub fn new(store: &'a Store) -> Self {
        let mut utid_of_track = HashMap::new();
        for (i, t) in store.tracks.iter().enumerate() {
            if let TrackScope::Thread(u) = t.scope {
                if t.event_type == crate::store::EventType::Slice {
                    utid_of_track.insert(i as u32, u);
                }
            }
        }
        let mut threads: HashMap<Upid, ProcessThreads> = HashMap::new();
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
            do_frames: HashMap::new(),
            draw_frames: HashMap::new(),
            phases: HashMap::new(),
            children: HashMap::new(),
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
        for i in 0..s.strings.len() {
            let name = s.strings.get(crate::store::strings::StrId(i as u32));
            is_do[i] = name.starts_with("Choreographer#doFrame") && !name.contains("resynced");
            is_draw[i] = name.starts_with("DrawFrame");
        }
        for (id, r) in s.slices.iter().enumerate() {
            let Some(n) = r.name else { continue };
            let n = n.0 as usize;
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
                id: id as SliceId,
                ts: r.ts,
                dur: r.dur,
            };
            if is_do[n] && pt.main == Some(utid) {
                self.do_frames.entry(upid).or_default().push(span);
            } else if is_draw[n] && pt.render_threads.contains(&utid) {
                self.draw_frames.entry(upid).or_default().push(span);
            }
        }
    }

    fn collect_phases(&mut self) {
        let s = self.store;
        let mut kind_of_track: HashMap<u32, (Phase, Option<u32>)> = HashMap::new();
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
            if r.track_id == p.track_id && r.depth > p.depth {
                out.push(i as SliceId);
            }
        }
        out
    }

    /// Name of the process, or one derived from its layer names when the trace has no
    /// process tree ("TX - com.example/.Main#1" -> "com.example").
    pub fn process_name(&self, upid: Upid, layers: &[String]) -> Option<String> {
        if let Some(n) = self.store.opt_str(self.store.processes[upid as usize].name) {
            return Some(n.to_string());
        }
        layers.iter().find_map(|l| name_from_layer(l))
    }
}

/// Best guess of a package name from a SurfaceFlinger layer name.
pub fn name_from_layer(layer: &str) -> Option<String> {
    let l = layer.strip_prefix("TX - ").unwrap_or(layer);
    let l = l.strip_prefix("Splash Screen ").unwrap_or(l);
    let candidate = l.split(['/', '#', ' ']).next()?;
    (candidate.contains('.') && !candidate.is_empty()).then(|| candidate.to_string())
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

    #[test]
    fn package_names_from_layers() {
        assert_eq!(
            name_from_layer("TX - com.google.samples.apps.nowinandroid.demo/com.google.samples.apps.nowinandroid.MainActivity#50010").as_deref(),
            Some("com.google.samples.apps.nowinandroid.demo")
        );
        assert_eq!(
            name_from_layer("Splash Screen com.example.app#123").as_deref(),
            Some("com.example.app")
        );
        assert_eq!(name_from_layer("Wallpaper BBQ wrapper#0"), None);
    }
}
