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
mod tracks;

use rustc_hash::FxHashMap;

use super::Ctx;
use crate::store::strings::StrId;
use crate::store::{Store, Upid};
use crate::trace::clock::ClockTracker;
use crate::trace::fields as f;
use crate::trace::interned::InternedData;
use crate::trace::sort::{Sorter, TrackEventMeta};
use crate::trace::tokenizer::SequencePacket;

#[derive(Default)]
pub struct TrackEventImporter {
    /// Interned data of every sequence (written while tokenizing, read while parsing).
    pub interned: InternedData,
    tokenizer: tokenizer::Tokenizer,
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
    /// File-order tokenization of a TrackEvent-family packet; true when consumed.
    pub fn tokenize(
        &mut self,
        store: &mut Store,
        p: &SequencePacket<'_>,
        clocks: &mut ClockTracker,
        sorter: &mut Sorter,
    ) -> bool {
        self.tokenizer
            .packet(store, &mut self.tracks, p, clocks, sorter)
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
