//! TrackEvent import (Perfetto SDK, androidx.tracing, Chromium): TrackDescriptors declare
//! tracks for threads, processes, counters and async work; TrackEvents put slices,
//! instants and counter values on them, with categories, debug annotations as `debug.*`
//! args and flows between slices. As in trace_processor the work is split in two:
//! [`tokenizer`] runs in file order (it owns the sequence state events depend on), the
//! rest runs on the sorted events.

mod args;
mod chrome;
mod debug_annotations;
pub mod decode;
mod descriptors;
mod event;
mod event_args;
mod flows;
mod json;
mod payload;
#[cfg(test)]
mod tests;
mod tokenizer;
pub use tokenizer::Tokenizer;
mod tracks;

use rustc_hash::FxHashMap;

use super::Ctx;
use crate::store::strings::StrId;
use crate::store::{Severity, Store, Upid};
use crate::trace::fields as f;
use crate::trace::interned::InternedData;
use crate::trace::sort::TrackEventMeta;

#[derive(Default)]
pub struct TrackEventImporter {
    /// Interned data of every sequence (written while tokenizing, read while parsing).
    pub interned: InternedData,
    tracks: tracks::DescriptorTracks,
    flows: flows::FlowTracker,
    /// Name of the first event of each legacy async id: (upid or u32::MAX, id) -> name.
    legacy_async_roots: FxHashMap<(Upid, i64), Option<StrId>>,
    /// Reused buffers for building args.
    sink: args::ArgsSink,
    path: args::KeyPath,
}

/// A string of the trace (an empty one stays an empty string, not NULL, as a present but
/// empty proto string does in trace_processor).
fn intern_str(store: &mut Store, raw: &[u8]) -> StrId {
    store.intern(&String::from_utf8_lossy(raw))
}

/// A name that only counts when non-empty (thread and process names).
fn intern_nonempty(store: &mut Store, raw: &[u8]) -> Option<StrId> {
    (!raw.is_empty()).then(|| intern_str(store, raw))
}

impl TrackEventImporter {
    /// A TrackDescriptor, in file order (the loading thread's [`Tokenizer`] passes it on):
    /// reserves its track, or counts why it was dropped.
    pub fn reserve_described(&mut self, store: &mut Store, ts: i64, data: &[u8]) {
        match tokenizer::describe(ts, data, &mut |s| store.intern(s)) {
            Ok(d) => self.tracks.reserve(store, d.uuid, d.reservation),
            Err((name, what)) => store.stat(name, Severity::Error, what),
        }
    }

    pub fn on_first_packet_on_sequence(&mut self, seq: u32) {
        self.tracks.on_first_packet_on_sequence(seq);
    }

    /// A sorted descriptor packet (track, thread or process descriptor).
    pub fn descriptor(&mut self, ctx: &mut Ctx, ts: i64, field: u32, data: &[u8]) {
        match field {
            f::TRACK_DESCRIPTOR => self.parse_track_descriptor(ctx, ts, data),
            f::THREAD_DESCRIPTOR => {
                descriptors::parse_thread_descriptor(ctx, data, false);
            }
            f::PROCESS_DESCRIPTOR => {
                descriptors::parse_process_descriptor(ctx, ts, data);
            }
            _ => {}
        }
    }

    /// A sorted TrackEvent.
    pub fn event(&mut self, ctx: &mut Ctx, ts: i64, meta: &TrackEventMeta, payload: &[u8]) {
        self.import_event(ctx, ts, meta, payload);
    }
}
