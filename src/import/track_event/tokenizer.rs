//! The file-order half of TrackEvent import (trace_processor's TrackEventTokenizer):
//! TrackDescriptors reserve their tracks, ThreadDescriptors set the sequence's thread and
//! reference timestamps, and each TrackEvent gets its absolute timestamp, thread time and
//! counter values from its sequence's state before it is queued for sorting.
//!
//! It runs on the loading thread with none of the importers' state, so the importers may
//! run behind it on another thread (`import::pipeline`). What it reads of the descriptor
//! tracks, counters' scales, it keeps itself; what it writes (reservations, stats) reaches
//! the importers through [`TokenizerHost`] in file order.

use rustc_hash::FxHashMap;

use super::decode::{
    self, te, CounterDescriptor, LegacyEvent, ThreadDescriptor, TrackDescriptor, TrackEvent,
    TrackEventDefaults,
};
use super::payload::{self, Header};
use super::tracks::{self, ChildOrdering, CounterDetails, Merge, Reservation};
use crate::store::strings::StrId;
use crate::store::Severity;
use crate::trace::clock::{ClockKey, ClockTracker, MONOTONIC};
use crate::trace::sort::{Sorter, TrackEventMeta};
use crate::trace::tokenizer::{SequencePacket, TokenizerHost};

/// trace_processor keeps at most this many extra counter values per event.
const MAX_EXTRA_COUNTERS: usize = 8;

/// TrackEvent state of one sequence.
#[derive(Default)]
struct SequenceState {
    /// pid and tid of the sequence's ThreadDescriptor; survives clears and data loss.
    thread: Option<(i64, i64)>,
    /// The interned-data interval the state below belongs to: it starts afresh with each
    /// interval (on incremental state clears and after data loss).
    interval: Option<u32>,
    timestamps_valid: bool,
    ts_ns: i64,
    thread_ts_ns: i64,
    thread_instructions: i64,
    /// Running totals of incremental counters, by track uuid.
    counters: FxHashMap<u64, f64>,
}

impl SequenceState {
    fn for_interval(&mut self, interval: u32) -> &mut Self {
        if self.interval != Some(interval) {
            *self = SequenceState {
                thread: self.thread,
                interval: Some(interval),
                ..Default::default()
            };
        }
        self
    }

    fn set_reference(&mut self, t: &ThreadDescriptor<'_>) {
        self.timestamps_valid = true;
        self.ts_ns = t.reference_timestamp_us.saturating_mul(1000);
        self.thread_ts_ns = t.reference_thread_time_us.saturating_mul(1000);
        self.thread_instructions = t.reference_thread_instruction_count;
    }
}

/// How a counter track scales its values: (unit multiplier, incremental).
type CounterScale = (i64, bool);

#[derive(Default)]
pub struct Tokenizer {
    sequences: FxHashMap<u32, SequenceState>,
    /// Every reserved track uuid, with its counter scale when it is a counter track: the
    /// part of the importers' reservations that counter events read here.
    reserved: FxHashMap<u64, Option<CounterScale>>,
    /// Reused buffer for the sorter payload (event bytes + extra counter values).
    payload: Vec<u8>,
}

fn drop_stat(host: &mut dyn TokenizerHost, name: &'static str, what: &'static str) {
    host.stat(name, Severity::Error, what);
}

/// Why a TrackDescriptor was dropped: its stat's name and description.
pub type Dropped = (&'static str, &'static str);

/// What a TrackDescriptor declares: the reservation of its track and, for a thread's track,
/// the thread (and whether its tid is made synthetic).
pub struct Described<'a> {
    pub uuid: u64,
    pub reservation: Reservation,
    thread: Option<(ThreadDescriptor<'a>, bool)>,
}

impl Tokenizer {
    /// Returns true when the packet was consumed, false when it must also be parsed whole.
    pub fn packet(
        &mut self,
        host: &mut dyn TokenizerHost,
        p: &SequencePacket<'_>,
        clocks: &mut ClockTracker,
        sorter: &mut Sorter,
    ) -> bool {
        use crate::trace::fields as f;
        match p.field {
            f::TRACK_DESCRIPTOR => self.track_descriptor(host, p),
            f::THREAD_DESCRIPTOR => self.thread_descriptor(host, p),
            f::TRACK_EVENT => {
                self.track_event(host, p, clocks, sorter);
                true
            }
            _ => false,
        }
    }

    fn state(&mut self, p: &SequencePacket<'_>) -> &mut SequenceState {
        self.sequences
            .entry(p.seq_id.unwrap_or(0))
            .or_default()
            .for_interval(p.interval)
    }

    /// A thread's descriptor names the sequence's thread and resets its reference
    /// timestamps; ignored while the sequence's state is invalid, so that delta timestamps
    /// resume only from a descriptor sent after the loss.
    fn set_thread(&mut self, p: &SequencePacket<'_>, t: &ThreadDescriptor<'_>, synthetic: bool) {
        let (pid, tid) = (t.pid.unwrap_or(0) as i64, t.tid.unwrap_or(0));
        let tid = if synthetic {
            super::tracks::synthetic_tid(tid, pid)
        } else {
            tid
        };
        let s = self.state(p);
        s.thread = Some((pid, tid));
        s.set_reference(t);
    }

    fn thread_descriptor(&mut self, host: &mut dyn TokenizerHost, p: &SequencePacket<'_>) -> bool {
        if p.seq_id.is_none() {
            drop_stat(
                host,
                "thread_descriptor_missing_sequence_id",
                "A ThreadDescriptor packet without a sequence id was dropped.",
            );
            return true;
        }
        if !p.incremental_valid {
            host.stat(
                "thread_descriptor_skipped_incremental_state_invalid",
                Severity::Info,
                "A ThreadDescriptor on a sequence with invalid incremental state was skipped.",
            );
            return true;
        }
        let t = ThreadDescriptor::decode(p.data);
        self.set_thread(p, &t, false);
        false
    }

    /// The importers reserve the track (or count the drop) when they reach the descriptor;
    /// here it sets the sequence's thread and notes the track's counter scale.
    fn track_descriptor(&mut self, host: &mut dyn TokenizerHost, p: &SequencePacket<'_>) -> bool {
        // Names are the importers' to intern: a placeholder stands in for them here.
        let described = describe(p.ts, p.data, &mut |_| StrId::from_index(0));
        host.on_track_descriptor(p.ts, p.data);
        let Ok(d) = described else {
            return true;
        };
        let r = &d.reservation;
        if tracks::accepts(d.uuid, r) {
            let scale = r
                .counter
                .as_ref()
                .filter(|_| r.is_counter)
                .map(|c| (c.unit_multiplier, c.is_incremental));
            self.reserved.entry(d.uuid).or_insert(scale);
        }
        if let Some((t, synthetic)) = &d.thread {
            if p.incremental_valid {
                self.set_thread(p, t, *synthetic);
            }
        }
        false
    }

    fn track_event(
        &mut self,
        host: &mut dyn TokenizerHost,
        p: &SequencePacket<'_>,
        clocks: &mut ClockTracker,
        sorter: &mut Sorter,
    ) {
        let Some(seq_id) = p.seq_id else {
            drop_stat(
                host,
                "track_event_missing_sequence_id",
                "A TrackEvent without a sequence id was dropped.",
            );
            return;
        };
        let e = TrackEvent::decode(p.data);
        let defaults = p
            .defaults
            .and_then(TrackEventDefaults::from_packet_defaults);
        let state = self
            .sequences
            .entry(seq_id)
            .or_default()
            .for_interval(p.interval);

        // Timestamps relative to the ThreadDescriptor are in the MONOTONIC domain.
        let (mut ts, legacy_clock) = if let Some(d) = e.timestamp_delta_us {
            if !state.timestamps_valid {
                host.stat(
                    "track_event_skipped_timestamp_delta_without_valid_state",
                    Severity::Info,
                    "A TrackEvent with a delta timestamp but no ThreadDescriptor since the last data loss was skipped.",
                );
                return;
            }
            state.ts_ns = state.ts_ns.saturating_add(d.saturating_mul(1000));
            (state.ts_ns, true)
        } else if let Some(abs) = e.timestamp_absolute_us.filter(|&t| t != 0) {
            (abs.saturating_mul(1000), true)
        } else if p.has_timestamp {
            (p.ts, false)
        } else {
            drop_stat(
                host,
                "track_event_missing_timestamp",
                "A TrackEvent without a timestamp was dropped.",
            );
            return;
        };
        if ts < 0 {
            drop_stat(
                host,
                "track_event_invalid_timestamp",
                "A TrackEvent with a negative timestamp was dropped.",
            );
            return;
        }
        if legacy_clock {
            if let Some(t) = clocks.to_trace_time(ClockKey::global(MONOTONIC), ts) {
                ts = t;
            }
        }

        let mut meta = Header {
            default_track_uuid: defaults.as_ref().and_then(|d| d.track_uuid),
            thread: state.thread,
            ..Default::default()
        };
        if let Some(d) = e.thread_time_delta_us {
            if !state.timestamps_valid {
                host.stat(
                    "track_event_skipped_thread_time_delta_without_valid_state",
                    Severity::Info,
                    "A TrackEvent with a thread-time delta but no ThreadDescriptor since the last data loss was skipped.",
                );
                return;
            }
            state.thread_ts_ns = state.thread_ts_ns.saturating_add(d.saturating_mul(1000));
            meta.thread_ts = Some(state.thread_ts_ns);
        } else if let Some(abs) = e.thread_time_absolute_us {
            meta.thread_ts = Some(abs.saturating_mul(1000));
        }
        if let Some(d) = e.thread_instruction_count_delta {
            if !state.timestamps_valid {
                host.stat(
                    "track_event_skipped_thread_instruction_delta_without_valid_state",
                    Severity::Info,
                    "A TrackEvent with an instruction-count delta but no ThreadDescriptor since the last data loss was skipped.",
                );
                return;
            }
            state.thread_instructions = state.thread_instructions.saturating_add(d);
            meta.thread_instructions = Some(state.thread_instructions);
        } else if let Some(abs) = e.thread_instruction_count_absolute {
            meta.thread_instructions = Some(abs);
        }

        if e.ty() == te::TYPE_COUNTER {
            let Some(uuid) = e.track_uuid.or(meta.default_track_uuid) else {
                drop_stat(
                    host,
                    "track_event_counter_missing_track_uuid",
                    "A counter TrackEvent without a track was dropped.",
                );
                return;
            };
            let raw = match (e.counter_value, e.double_counter_value) {
                (Some(v), _) => v as f64,
                (None, Some(v)) => v,
                (None, None) => {
                    drop_stat(
                        host,
                        "track_event_counter_missing_value",
                        "A counter TrackEvent without a value was dropped.",
                    );
                    return;
                }
            };
            let Some(v) = absolute_counter_value(&self.reserved, state, uuid, raw) else {
                drop_stat(
                    host,
                    "track_event_counter_invalid_track_uuid",
                    "A counter TrackEvent on a track that is not a counter track was dropped.",
                );
                return;
            };
            meta.counter_value = Some(v);
        }
        if e.ty() == te::TYPE_STATE && e.track_uuid.or(meta.default_track_uuid).is_none() {
            drop_stat(
                host,
                "track_event_state_missing_track_uuid",
                "A state TrackEvent without a track was dropped.",
            );
            return;
        }
        if e.legacy_event
            .map(LegacyEvent::decode)
            .and_then(|l| l.phase)
            == Some(b'P' as i32)
        {
            // V8 CPU profile samples embedded in legacy events are not imported.
            host.stat(
                "track_event_legacy_sample_not_imported",
                Severity::Info,
                "Legacy V8 CPU profile sample events are not imported by frameprobe.",
            );
        }

        payload::encode(&mut self.payload, &meta, p.data);
        let default_uuids = defaults.as_ref().map_or(&[][..], |d| d.bytes);
        let extras = [
            (
                e.has_extra_counter_values,
                te::EXTRA_COUNTER_VALUES,
                te::EXTRA_COUNTER_TRACK_UUIDS,
                false,
            ),
            (
                e.has_extra_double_counter_values,
                te::EXTRA_DOUBLE_COUNTER_VALUES,
                te::EXTRA_DOUBLE_COUNTER_TRACK_UUIDS,
                true,
            ),
        ];
        let mut n = 0;
        for (has, values_field, uuids_field, doubles) in extras {
            if !has {
                continue;
            }
            if let Err(stat) = self.extra_counters(
                seq_id,
                p.interval,
                (p.data, default_uuids),
                (values_field, uuids_field, doubles),
                &mut n,
            ) {
                drop_stat(host, stat.0, stat.1);
                return;
            }
        }
        let meta = TrackEventMeta {
            seq_id,
            interval: p.interval,
        };
        sorter.push_track_event(ts, meta, &self.payload);
    }

    /// Appends (track uuid, absolute value) pairs for an event's extra counter values to the
    /// payload; the uuids come from the event or, failing that, from the sequence defaults.
    fn extra_counters(
        &mut self,
        seq_id: u32,
        interval: u32,
        (event, defaults): (&[u8], &[u8]),
        (values_field, uuids_field, doubles): (u32, u32, bool),
        n: &mut usize,
    ) -> Result<(), (&'static str, &'static str)> {
        let uuids_from = if decode::has_field(event, uuids_field) {
            event
        } else if decode::has_field(defaults, uuids_field) {
            defaults
        } else {
            return Err((
                "track_event_extra_counter_missing_track_uuids",
                "A TrackEvent had extra counter values but no counter tracks; it was dropped.",
            ));
        };
        // One more than the maximum is enough to tell which error a long list hits.
        let mut uuids = [0u64; MAX_EXTRA_COUNTERS + 1];
        let mut n_uuids = 0;
        decode::for_each_u64(uuids_from, uuids_field, false, |u| {
            if n_uuids < uuids.len() {
                uuids[n_uuids] = u;
                n_uuids += 1;
            }
        });
        let mut values = [0u64; MAX_EXTRA_COUNTERS + 1];
        let mut n_values = 0;
        decode::for_each_u64(event, values_field, doubles, |v| {
            if n_values < values.len() {
                values[n_values] = v;
                n_values += 1;
            }
        });
        let state = self
            .sequences
            .entry(seq_id)
            .or_default()
            .for_interval(interval);
        for (i, &raw) in values[..n_values].iter().enumerate() {
            let uuid = uuids[..n_uuids].get(i).copied().unwrap_or(0);
            if uuid == 0 {
                return Err((
                    "track_event_extra_counter_track_uuid_mismatch",
                    "A TrackEvent had more extra counter values than counter tracks; it was dropped.",
                ));
            }
            if *n >= MAX_EXTRA_COUNTERS {
                return Err((
                    "track_event_extra_counter_exceeds_max",
                    "A TrackEvent had more than 8 extra counter values; it was dropped.",
                ));
            }
            let raw = if doubles {
                f64::from_bits(raw)
            } else {
                raw as i64 as f64
            };
            let Some(v) = absolute_counter_value(&self.reserved, state, uuid, raw) else {
                return Err((
                    "track_event_extra_counter_invalid_track",
                    "A TrackEvent's extra counter named a track that is not a counter; it was dropped.",
                ));
            };
            payload::push_extra(&mut self.payload, uuid, v);
            *n += 1;
        }
        Ok(())
    }
}

/// Reads a TrackDescriptor: the track it reserves, or why it is dropped. `intern` gives
/// names their ids, in the order trace_processor's tokenizer interns them.
pub fn describe<'a>(
    ts: i64,
    data: &'a [u8],
    intern: &mut dyn FnMut(&str) -> StrId,
) -> Result<Described<'a>, Dropped> {
    let d = TrackDescriptor::decode(data);
    let Some(uuid) = d.uuid else {
        return Err((
            "track_descriptor_missing_uuid",
            "A TrackDescriptor without a uuid was dropped.",
        ));
    };
    let mut r = Reservation {
        parent_uuid: d.parent_uuid.unwrap_or(0),
        min_ts: ts,
        ..Default::default()
    };
    if let Some(o) = d.child_ordering {
        r.ordering = match o {
            0 => ChildOrdering::Unknown,
            1 => ChildOrdering::Lexicographic,
            2 => ChildOrdering::Chronological,
            3 => ChildOrdering::Explicit,
            _ => {
                return Err((
                    "track_descriptor_invalid_child_ordering",
                    "A TrackDescriptor with an unknown child ordering was dropped.",
                ));
            }
        };
    }
    r.sibling_order_rank = d.sibling_order_rank;
    match d.sibling_merge_behavior {
        Some(2) => r.merge = Merge::None,
        Some(3) => {
            r.merge = Merge::ByKey;
            if let Some(k) = d.sibling_merge_key {
                r.merge_key = Some(intern(&String::from_utf8_lossy(k)));
            } else if let Some(k) = d.sibling_merge_key_int {
                r.merge_key = Some(intern(&format!("sibling_merge_key_int:{k}")));
            }
        }
        _ => {}
    }
    r.name = d.any_name().map(|n| intern(&String::from_utf8_lossy(n)));
    r.description = d.description.map(|n| intern(&String::from_utf8_lossy(n)));

    if let Some(thread) = d.thread {
        let t = ThreadDescriptor::decode(thread);
        let (Some(pid), Some(tid)) = (t.pid, t.tid) else {
            return Err((
                "track_descriptor_thread_missing_pid_tid",
                "A TrackDescriptor's thread had no pid or tid; the descriptor was dropped.",
            ));
        };
        r.pid = Some(pid as i64);
        r.tid = Some(tid);
        r.use_separate_track = d.disallow_merging_with_system_tracks;
        r.use_synthetic_tid = d
            .chrome_thread
            .is_some_and(|c| decode::chrome_thread_type(c).1);
        let synthetic = r.use_synthetic_tid;
        return Ok(Described {
            uuid,
            reservation: r,
            thread: Some((t, synthetic)),
        });
    }
    if let Some(process) = d.process {
        let Some(pid) = decode::ProcessDescriptor::decode(process).pid else {
            return Err((
                "track_descriptor_process_missing_pid",
                "A TrackDescriptor's process had no pid; the descriptor was dropped.",
            ));
        };
        r.pid = Some(pid as i64);
        return Ok(Described::track(uuid, r));
    }
    if let Some(counter) = d.counter {
        counter_reservation(intern, &mut r, &CounterDescriptor::decode(counter));
        return Ok(Described::track(uuid, r));
    }
    r.is_state = d.has_state;
    Ok(Described::track(uuid, r))
}

impl Described<'_> {
    fn track(uuid: u64, reservation: Reservation) -> Self {
        Described {
            uuid,
            reservation,
            thread: None,
        }
    }
}

/// A counter value in the track's unit, accumulated for incremental counters. None when the
/// uuid is not a counter descriptor.
fn absolute_counter_value(
    reserved: &FxHashMap<u64, Option<CounterScale>>,
    state: &mut SequenceState,
    uuid: u64,
    value: f64,
) -> Option<f64> {
    let (unit_multiplier, is_incremental) = (*reserved.get(&uuid)?)?;
    let mut v = value;
    if unit_multiplier > 0 {
        v *= unit_multiplier as f64;
    }
    if is_incremental {
        let total = state.counters.entry(uuid).or_insert(0.0);
        *total += v;
        v = *total;
    }
    Some(v)
}

/// Fills the counter part of a reservation from a CounterDescriptor.
fn counter_reservation(
    intern: &mut dyn FnMut(&str) -> StrId,
    r: &mut Reservation,
    c: &CounterDescriptor<'_>,
) {
    let mut categories = String::new();
    decode::for_each_bytes(c.bytes, CounterDescriptor::CATEGORIES, |cat| {
        if !categories.is_empty() {
            categories.push(',');
        }
        categories.push_str(&String::from_utf8_lossy(cat));
    });
    let thread_time = intern("thread_time");
    let instructions = intern("thread_instruction_count");
    if r.name.is_none() {
        r.name = match c.ty {
            CounterDescriptor::THREAD_TIME_NS => Some(thread_time),
            CounterDescriptor::THREAD_INSTRUCTION_COUNT => Some(instructions),
            _ => None,
        };
    }
    let (unit, builtin_type) = match c.ty {
        CounterDescriptor::THREAD_TIME_NS => (Some(intern("ns")), Some(thread_time)),
        CounterDescriptor::THREAD_INSTRUCTION_COUNT => (Some(intern("count")), Some(instructions)),
        _ => {
            let unit = match c.unit {
                1 => Some(intern("ns")),
                2 => Some(intern("count")),
                3 => Some(intern("bytes")),
                _ => c.unit_name.map(|u| intern(&String::from_utf8_lossy(u))),
            };
            (unit, None)
        }
    };
    r.is_counter = true;
    r.counter = Some(CounterDetails {
        category: (!categories.is_empty()).then(|| intern(&categories)),
        unit_multiplier: c.unit_multiplier,
        is_incremental: c.is_incremental,
        unit,
        builtin_type,
        y_axis_share_key: c
            .y_axis_share_key
            .map(|k| intern(&String::from_utf8_lossy(k))),
    });
}
