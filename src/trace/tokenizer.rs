//! First pass over each packet, in file order (trace_processor's tokenizer): sequence state,
//! clock snapshots, service events, system info, decompression, conversion of timestamps to
//! the trace clock, and cutting ftrace bundles into per-CPU events for the sorter.

use prost::Message;

use super::clock::{self, ClockKey, ClockTracker};
use super::fields as f;
use super::ftrace_ids as fid;
use super::limits::{self, Budget, MAX_COMPRESSION_NESTING};
use super::power_rails;
use super::reader::{decompress, DecompressError, MAX_DECOMPRESSED_BYTES};
use super::sort::{CompactSwitch, CompactWaking, EventSink, Sorter};
use super::wire::{put_varint, read_varint, Fields, PackedVarints, Value, MAX_FIELD_NUMBER};
use crate::protos;
use crate::store::strings::StrId;
use crate::store::{MetaValue, Severity};

/// Which data the importers will parse; everything else is skipped while tokenizing.
#[derive(Debug, Clone)]
pub struct Wanted {
    /// FtraceEvent oneof field numbers to keep.
    pub ftrace: Vec<u32>,
    pub compact_sched: bool,
    /// TracePacket data fields to keep (frame timeline, graphics, process tree, ...).
    pub packets: Vec<u32>,
}

/// Field numbers as a bitset: the tokenizer asks about every ftrace event, and a bit test
/// beat the binary search it replaced in profiles (issue 19).
#[derive(Debug, Default)]
struct IdSet(Vec<u64>);

impl IdSet {
    fn of(ids: &[u32]) -> Self {
        let mut words = vec![0u64; ids.iter().max().map_or(0, |&m| m as usize / 64 + 1)];
        for &id in ids {
            words[id as usize / 64] |= 1 << (id % 64);
        }
        IdSet(words)
    }

    fn contains(&self, id: u32) -> bool {
        self.0
            .get(id as usize / 64)
            .is_some_and(|w| w & (1 << (id % 64)) != 0)
    }
}

#[derive(Default)]
struct SequenceState {
    default_clock: Option<u32>,
    incremental_valid: bool,
    /// InternedData.kernel_symbols: iid -> symbol name (sched_blocked_reason callers).
    kernel_symbols: rustc_hash::FxHashMap<u64, StrId>,
    /// Interned-data interval (see `InternedData`); created on the sequence's first packet.
    interval: Option<u32>,
    /// The sequence's TracePacketDefaults message, as the data source tokenizers read it.
    defaults: Option<Vec<u8>>,
}

/// A TrackEvent-family packet (track event, track / thread / process descriptor) handed to
/// its data source's tokenizer with the sequence state it was read under.
pub struct SequencePacket<'a> {
    /// TracePacket field number of the payload.
    pub field: u32,
    pub data: &'a [u8],
    /// Trace-clock timestamp (the latest one seen when the packet had none).
    pub ts: i64,
    pub has_timestamp: bool,
    pub seq_id: Option<u32>,
    pub interval: u32,
    pub incremental_valid: bool,
    /// TracePacketDefaults of the sequence.
    pub defaults: Option<&'a [u8]>,
    pub trusted_pid: Option<i32>,
}

/// What the tokenizer needs from the importers' side. Nothing here hands out the store:
/// every call either returns nothing or a value the tokenizer's side can work out alone,
/// so the importers may run behind it on another thread (`import::pipeline`).
pub trait TokenizerHost: EventSink {
    fn stat(&mut self, name: &'static str, severity: Severity, what: &'static str) {
        self.stat_add(name, -1, severity, what, 1);
    }
    fn stat_add(
        &mut self,
        name: &'static str,
        index: i64,
        severity: Severity,
        what: &'static str,
        n: i64,
    );
    /// Counts a top-level packet by its data field (`TraceInfo::count_packet`).
    fn count_packet(&mut self, kind: u32);
    fn set_metadata(&mut self, key: &'static str, value: MetaValue);
    /// Sets an integer metadata value unless it already holds a larger one.
    fn raise_metadata(&mut self, key: &'static str, value: i64);
    /// A name the tokenizer puts inside events (compact-sched comms, kernel symbols). The id
    /// is the tokenizer's own, in the order names were first given; importers translate it
    /// with `Ctx::tokenizer_name`.
    fn name(&mut self, bytes: &[u8]) -> StrId;
    /// Starts an interned-data interval (`InternedData::new_interval`); ids count up from 0.
    fn new_interval(&mut self, inherit: Option<u32>) -> u32;
    /// Interns a message in `interval` (`InternedData::add`); false when it has no iid.
    fn add_interned(&mut self, interval: u32, field: u32, message: &[u8]) -> bool;
    fn on_system_info(&mut self, info: &protos::SystemInfo);
    /// How large the importers' largest tables will grow at least (`import::forecast`), for
    /// a host whose importers can fault their pages in while they wait.
    fn forecast_rows(&mut self, _rows: crate::store::prefault::RowForecast) {}
    /// The rail descriptors of a PowerRails packet, in file order (before any sample).
    fn on_power_rail_descriptors(&mut self, _power_rails: &[u8]) {}
    /// Tokenizes a TrackEvent-family packet (on this side: `import::track_event::Tokenizer`).
    /// Returns true when it was consumed; otherwise the packet is queued whole for the
    /// parse stage.
    fn tokenize_track_packet(
        &mut self,
        p: &SequencePacket<'_>,
        clocks: &mut ClockTracker,
        sorter: &mut Sorter,
    ) -> bool;
    fn on_first_packet_on_sequence(&mut self, seq_id: u32);
    /// A TrackDescriptor's bytes, in file order, for the importers to reserve its track.
    fn on_track_descriptor(&mut self, ts: i64, data: &[u8]);
    /// Packets read whole while tokenizing, as trace_processor does (no timestamp needed):
    /// the trace config, the service's and the kernel's stats, the GPU description.
    fn on_trace_config(&mut self, _config: &[u8]) {}
    fn on_trace_stats(&mut self, _stats: &[u8]) {}
    fn on_ftrace_stats(&mut self, _stats: &[u8]) {}
    fn on_gpu_info(&mut self, _gpu_info: &[u8]) {}
    fn on_cpu_info(&mut self, _cpu_info: &[u8]) {}
}

pub struct Tokenizer {
    pub clocks: ClockTracker,
    pub sorter: Sorter,
    wanted: Wanted,
    wanted_ftrace: IdSet,
    seqs: rustc_hash::FxHashMap<u32, SequenceState>,
    latest_ts: i64,
    ftrace_seen_first_bundle: Vec<bool>,
    /// The ftrace timestamp of the last (ftrace clock, boot) pair added as a snapshot.
    latest_ftrace_clock_snapshot: Option<i64>,
    /// Reused buffer for ftrace events the tokenizer annotates before sorting.
    event_buf: Vec<u8>,
    /// Reused buffer for the event ranges of one ftrace bundle.
    bundle_events: Vec<std::ops::Range<usize>>,
    deferred: Vec<(Vec<u8>, u64)>,
    eof: bool,
    /// Problems worth telling the user about (the caller decides how).
    pub warnings: Vec<String>,
    /// Warnings per kind beyond the first few, summarised by `finish`.
    warnings_held_back: Vec<(&'static str, u64)>,
    /// Decompressed bytes this trace may still produce (shared with a compressed file's
    /// own decompression by the loader).
    pub budget: Budget,
    /// How many `compressed_packets` blobs enclose the packet being tokenized.
    nesting: u32,
    /// SystemInfo.num_cpus: no ftrace bundle can come from a CPU at or above it.
    num_cpus: Option<u32>,
}

/// trace_processor refuses a bundle from a CPU at or above this as corruption.
const MAX_CPUS: u32 = 1024;
/// Warnings of one kind kept word for word; later ones are only counted.
const WARNINGS_PER_KIND: u64 = 3;

struct Header<'a> {
    timestamp: Option<u64>,
    clock_id: Option<u32>,
    seq_id: Option<u32>,
    flags: u32,
    incremental_cleared: bool,
    defaults: Option<&'a [u8]>,
    interned: Option<&'a [u8]>,
    previous_packet_dropped: bool,
    first_on_sequence: bool,
    trusted_pid: Option<i32>,
    machine_id: Option<u32>,
    data: Option<(u32, &'a [u8])>,
    /// The payload field of a packet whose payload frameprobe does not read (for counting).
    other_kind: Option<u32>,
}

fn parse_header(bytes: &[u8]) -> Result<Header<'_>, super::wire::WireError> {
    let mut h = Header {
        timestamp: None,
        clock_id: None,
        seq_id: None,
        flags: 0,
        incremental_cleared: false,
        defaults: None,
        interned: None,
        previous_packet_dropped: false,
        first_on_sequence: false,
        trusted_pid: None,
        machine_id: None,
        data: None,
        other_kind: None,
    };
    for field in Fields::new(bytes) {
        let (id, v) = field?;
        match id {
            f::TIMESTAMP => h.timestamp = Some(v.as_u64()),
            f::TIMESTAMP_CLOCK_ID => h.clock_id = Some(v.as_u32()),
            f::TRUSTED_PACKET_SEQUENCE_ID => h.seq_id = Some(v.as_u32()),
            f::SEQUENCE_FLAGS => h.flags = v.as_u32(),
            f::INCREMENTAL_STATE_CLEARED => h.incremental_cleared = v.as_bool(),
            f::TRACE_PACKET_DEFAULTS => h.defaults = Some(v.as_bytes()),
            f::INTERNED_DATA => h.interned = Some(v.as_bytes()),
            f::PREVIOUS_PACKET_DROPPED => h.previous_packet_dropped = v.as_bool(),
            f::FIRST_PACKET_ON_SEQUENCE => h.first_on_sequence = v.as_bool(),
            f::TRUSTED_PID => h.trusted_pid = Some(v.as_i32()),
            f::MACHINE_ID => h.machine_id = Some(v.as_u32()),
            f::FTRACE_EVENTS
            | f::PROCESS_TREE
            | f::CLOCK_SNAPSHOT
            | f::PROCESS_STATS
            | f::TRACE_CONFIG
            | f::SYSTEM_INFO
            | f::COMPRESSED_PACKETS
            | f::GRAPHICS_FRAME_EVENT
            | f::SERVICE_EVENT
            | f::INITIAL_DISPLAY_STATE
            | f::FRAME_TIMELINE_EVENT
            | f::ANDROID_SYSTEM_PROPERTY
            | f::SYS_STATS
            | f::BATTERY
            | f::POWER_RAILS
            | f::GPU_MEM_TOTAL_EVENT
            | f::TRACK_EVENT
            | f::TRACK_DESCRIPTOR
            | f::THREAD_DESCRIPTOR
            | f::PROCESS_DESCRIPTOR
            | f::TRACE_STATS
            | f::FTRACE_STATS
            | f::GPU_INFO
            | f::CPU_INFO
            | f::ZSTD_COMPRESSED_PACKETS => {
                if let Value::Bytes(b) = v {
                    h.data = Some((id, b));
                }
            }
            _ => {
                if let Value::Bytes(_) = v {
                    h.other_kind.get_or_insert(id);
                }
            }
        }
    }
    Ok(h)
}

const SEQ_INCREMENTAL_STATE_CLEARED: u32 = 1;
/// InternedData field of kernel symbol names.
const KERNEL_SYMBOLS: u32 = 26;
const SEQ_NEEDS_INCREMENTAL_STATE: u32 = 2;

impl Tokenizer {
    pub fn new(wanted: Wanted) -> Self {
        Tokenizer {
            wanted_ftrace: IdSet::of(&wanted.ftrace),
            clocks: ClockTracker::default(),
            sorter: Sorter::default(),
            wanted,
            seqs: Default::default(),
            latest_ts: 0,
            ftrace_seen_first_bundle: Vec::new(),
            latest_ftrace_clock_snapshot: None,
            event_buf: Vec::new(),
            bundle_events: Vec::new(),
            deferred: Vec::new(),
            eof: false,
            warnings: Vec::new(),
            warnings_held_back: Vec::new(),
            budget: Budget::new(limits::budget_for(None)),
            nesting: 0,
            num_cpus: None,
        }
    }

    /// Keeps the first few warnings of each kind; the rest are counted for `finish`.
    fn warn(&mut self, kind: &'static str, message: String) {
        let seen = match self.warnings_held_back.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, n)) => {
                *n += 1;
                *n
            }
            None => {
                self.warnings_held_back.push((kind, 1));
                1
            }
        };
        if seen <= WARNINGS_PER_KIND {
            self.warnings.push(message);
        }
    }

    /// The CPUs an ftrace bundle may come from: below 1024 (trace_processor's bound) and
    /// below the device's CPU count when SystemInfo gave it.
    fn ftrace_cpu_limit(&self) -> u32 {
        self.num_cpus
            .filter(|&n| n > 0)
            .map_or(MAX_CPUS, |n| n.min(MAX_CPUS))
    }

    /// Tokenizes one top-level packet. Malformed packets are counted and skipped.
    pub fn packet(&mut self, bytes: &[u8], offset: u64, host: &mut dyn TokenizerHost) {
        let h = match parse_header(bytes) {
            Ok(h) => h,
            Err(_) => {
                host.stat(
                    "packet_malformed",
                    Severity::DataLoss,
                    "A TracePacket could not be decoded and was skipped.",
                );
                return;
            }
        };
        if let Some((field, data)) = h.data {
            if field == f::COMPRESSED_PACKETS || field == f::ZSTD_COMPRESSED_PACKETS {
                self.compressed(data, field == f::ZSTD_COMPRESSED_PACKETS, offset, host);
                return;
            }
        }
        let kind = h.data.map(|d| d.0).or(h.other_kind).unwrap_or(0);
        host.count_packet(kind);
        let seq_id = h.seq_id.unwrap_or(0);
        // A sequence's incremental state is invalid until its first clear: the packets
        // before it may have missed their interned data (trace_processor's rule).
        let seq = self.seqs.entry(seq_id).or_default();
        let interval = match seq.interval {
            Some(i) => i,
            None => *seq.interval.insert(host.new_interval(None)),
        };
        if h.first_on_sequence {
            host.on_first_packet_on_sequence(seq_id);
        }
        if h.incremental_cleared || h.flags & SEQ_INCREMENTAL_STATE_CLEARED != 0 {
            seq.incremental_valid = true;
            seq.default_clock = None;
            seq.defaults = None;
            seq.interval = Some(host.new_interval(None));
            seq.kernel_symbols.clear();
        } else if h.previous_packet_dropped {
            seq.incremental_valid = false;
            seq.interval = Some(host.new_interval(Some(interval)));
        }
        if let Some(d) = h.defaults {
            if let Ok(defaults) = protos::TracePacketDefaults::decode(d) {
                seq.default_clock = defaults.timestamp_clock_id;
            }
            seq.defaults = Some(d.to_vec());
        }
        // Interned data counts only on a sequence whose incremental state is valid.
        if let (Some(interned), Some(_), true) = (h.interned, h.seq_id, seq.incremental_valid) {
            read_kernel_symbols(interned, host, &mut seq.kernel_symbols);
        }
        let default_clock = seq.default_clock;
        let incremental_valid = seq.incremental_valid;
        let interval = seq.interval.unwrap_or(interval);
        if let Some(interned) = h.interned {
            Self::intern(interned, interval, incremental_valid, host);
        }
        let Some((field, data)) = h.data else { return };

        match field {
            f::CLOCK_SNAPSHOT => {
                self.clock_snapshot(data, seq_id);
                return;
            }
            f::SERVICE_EVENT => {
                self.service_event(data, h.timestamp, h.clock_id, host);
                return;
            }
            _ => {}
        }
        if h.flags & SEQ_NEEDS_INCREMENTAL_STATE != 0 && !incremental_valid {
            host.stat(
                "packet_skipped_seq_needs_incremental_state_invalid",
                Severity::DataLoss,
                "Packets that need incremental state were skipped after data loss on their sequence.",
            );
            return;
        }
        match field {
            f::TRACE_STATS => return host.on_trace_stats(data),
            f::FTRACE_STATS => return host.on_ftrace_stats(data),
            f::GPU_INFO => return host.on_gpu_info(data),
            f::CPU_INFO => return host.on_cpu_info(data),
            _ => {}
        }
        if field == f::TRACE_CONFIG {
            host.on_trace_config(data);
            if let Ok(cfg) = protos::TraceConfig::decode(data) {
                if let Some(c) = cfg.builtin_data_sources.and_then(|b| b.primary_trace_clock) {
                    if c != 0 {
                        self.clocks.set_trace_clock(c as u32);
                    }
                }
                if let Some(ms) = cfg.duration_ms {
                    host.set_metadata("trace_config_duration_ms", MetaValue::Int(ms as i64));
                }
            }
            return;
        }
        if field == f::SYSTEM_INFO {
            if let Ok(info) = protos::SystemInfo::decode(data) {
                self.num_cpus = info.num_cpus.or(self.num_cpus);
                host.on_system_info(&info);
            }
            return;
        }

        let ts = match h.timestamp {
            Some(raw) => {
                let clock_id = h.clock_id.filter(|&c| c != 0).or(default_clock);
                match clock_id {
                    None => raw as i64,
                    Some(c) => {
                        let key = if clock::is_sequence_clock(c) {
                            ClockKey { id: c, seq: seq_id }
                        } else {
                            ClockKey::global(c)
                        };
                        match self.clocks.to_trace_time(key, raw as i64) {
                            Some(t) => t,
                            None => {
                                if !self.eof && self.sorter.set_full_sort() {
                                    self.deferred.push((bytes.to_vec(), offset));
                                } else {
                                    host.stat(
                                        "clock_sync_failure",
                                        Severity::DataLoss,
                                        "A packet's timestamp could not be converted to the trace clock (no ClockSnapshot links its clock); the packet was dropped.",
                                    );
                                }
                                return;
                            }
                        }
                    }
                }
            }
            None => self.latest_ts.max(self.sorter.max_ts()),
        };
        self.latest_ts = self.latest_ts.max(ts);

        if field == f::FTRACE_EVENTS {
            self.ftrace_bundle(data, seq_id, offset, host);
            return;
        }
        if !self.wanted.packets.contains(&field) {
            return;
        }
        if field == f::POWER_RAILS {
            self.power_rails(data, ts, h.machine_id, host);
            return;
        }
        if matches!(
            field,
            f::TRACK_EVENT | f::TRACK_DESCRIPTOR | f::THREAD_DESCRIPTOR | f::PROCESS_DESCRIPTOR
        ) {
            let seq = &self.seqs[&seq_id];
            let p = SequencePacket {
                field,
                data,
                ts,
                has_timestamp: h.timestamp.is_some(),
                seq_id: h.seq_id,
                interval,
                incremental_valid,
                defaults: seq.defaults.as_deref(),
                trusted_pid: h.trusted_pid,
            };
            if host.tokenize_track_packet(&p, &mut self.clocks, &mut self.sorter) {
                return;
            }
        }
        self.sorter.push_packet(ts, field, data, h.machine_id);
    }

    /// Descriptors go to the host now; each energy sample is sorted on its own timestamp
    /// (milliseconds of BOOTTIME), or the packet's when it has none.
    fn power_rails(
        &mut self,
        data: &[u8],
        packet_ts: i64,
        machine_id: Option<u32>,
        host: &mut dyn TokenizerHost,
    ) {
        host.on_power_rail_descriptors(data);
        let boot = ClockKey::global(clock::BOOTTIME);
        let mut any = false;
        let mut payload = Vec::new();
        for (boot_ns, sample) in power_rails::samples(data, packet_ts) {
            any = true;
            let ts = match boot_ns.map(|ns| self.clocks.to_trace_time(boot, ns)) {
                None => packet_ts,
                Some(Some(ts)) => ts,
                Some(None) => {
                    host.stat(
                        "clock_sync_failure",
                        Severity::DataLoss,
                        "A packet's timestamp could not be converted to the trace clock (no ClockSnapshot links its clock); the packet was dropped.",
                    );
                    continue;
                }
            };
            payload.clear();
            sample.encode(&mut payload);
            self.sorter
                .push_packet(ts, f::POWER_RAILS, &payload, machine_id);
        }
        if !any {
            host.stat(
                "power_rail_empty_packet",
                Severity::Error,
                "A power_rails packet had no energy samples (descriptors only, or empty).",
            );
        }
    }

    /// Stores a packet's interned data in its sequence's current interval; while the
    /// sequence's state is invalid it would be attributed to the wrong interval, so it is
    /// dropped (as trace_processor does).
    fn intern(data: &[u8], interval: u32, valid: bool, host: &mut dyn TokenizerHost) {
        if !valid {
            host.stat(
                "interned_data_skipped_incremental_state_invalid",
                Severity::Info,
                "Interned data on a sequence whose incremental state was invalid (after data loss, before the next clear) was skipped.",
            );
            return;
        }
        for field in Fields::new(data) {
            let Ok((id, v)) = field else {
                host.stat(
                    "interned_data_tokenizer_errors",
                    Severity::Info,
                    "Interned data that could not be decoded or had no interning id was skipped.",
                );
                return;
            };
            if !host.add_interned(interval, id, v.as_bytes()) {
                host.stat(
                    "interned_data_tokenizer_errors",
                    Severity::Info,
                    "Interned data that could not be decoded or had no interning id was skipped.",
                );
            }
        }
    }

    /// Expands a `compressed_packets` / `zstd_compressed_packets` blob and tokenizes the
    /// packets inside it, within the nesting limit and the trace's decompression budget.
    /// `offset` is the top-level packet the blob came in (nested blobs report the same).
    fn compressed(&mut self, data: &[u8], zstd: bool, offset: u64, host: &mut dyn TokenizerHost) {
        if self.nesting >= MAX_COMPRESSION_NESTING {
            host.stat(
                "compressed_packets_nesting_too_deep",
                Severity::DataLoss,
                "A compressed_packets blob nested deeper than frameprobe expands was skipped.",
            );
            self.warn(
                "compressed_packets_nesting_too_deep",
                format!(
                    "compressed packets at byte offset {offset} skipped: nested more than {MAX_COMPRESSION_NESTING} levels deep"
                ),
            );
            return;
        }
        let budget_left = self.budget.remaining();
        let limit = budget_left.min(MAX_DECOMPRESSED_BYTES);
        let inner = match decompress(data, zstd, limit) {
            Ok(v) => v,
            Err(DecompressError::TooLarge { .. }) if limit == budget_left => {
                self.budget.charge(limit);
                host.stat(
                    limits::BUDGET_STAT,
                    Severity::DataLoss,
                    limits::BUDGET_STAT_DESCRIPTION,
                );
                self.warn(
                    limits::BUDGET_STAT,
                    format!(
                        "compressed packets at byte offset {offset} skipped: the decompression budget of {} bytes is used up (raise it with --max-decompressed-bytes)",
                        self.budget.limit
                    ),
                );
                return;
            }
            Err(e) => {
                if let DecompressError::TooLarge { limit } = e {
                    self.budget.charge(limit);
                }
                host.stat(
                    "compressed_packets_invalid",
                    Severity::DataLoss,
                    "A compressed_packets blob was corrupt or expanded beyond the limit and was skipped.",
                );
                self.warn(
                    "compressed_packets_invalid",
                    format!("compressed packets at byte offset {offset} skipped: {e}"),
                );
                return;
            }
        };
        self.budget.charge(inner.len() as u64);
        self.nesting += 1;
        for field in Fields::new(&inner) {
            match field {
                Ok((1, Value::Bytes(p))) => self.packet(p, offset, host),
                Ok(_) => {}
                Err(_) => {
                    host.stat("compressed_packets_invalid", Severity::DataLoss, "A compressed_packets blob was corrupt or expanded beyond the limit and was skipped.");
                    break;
                }
            }
        }
        self.nesting -= 1;
    }

    fn clock_snapshot(&mut self, data: &[u8], seq_id: u32) {
        let Ok(snap) = protos::ClockSnapshot::decode(data) else {
            return;
        };
        if let Some(p) = snap.primary_trace_clock {
            if p != 0 {
                self.clocks.set_trace_clock(p as u32);
            }
        }
        let clocks: Vec<(ClockKey, i64, i64, bool)> = snap
            .clocks
            .iter()
            .filter_map(|c| {
                let id = c.clock_id?;
                let key = if clock::is_sequence_clock(id) {
                    ClockKey { id, seq: seq_id }
                } else {
                    ClockKey::global(id)
                };
                Some((
                    key,
                    c.timestamp.unwrap_or(0) as i64,
                    c.unit_multiplier_ns.unwrap_or(1) as i64,
                    c.is_incremental.unwrap_or(false),
                ))
            })
            .collect();
        self.clocks.add_snapshot(&clocks);
    }

    fn service_event(
        &mut self,
        data: &[u8],
        ts: Option<u64>,
        clock_id: Option<u32>,
        host: &mut dyn TokenizerHost,
    ) {
        let raw = ts.unwrap_or(0) as i64;
        let clock = ClockKey::global(clock_id.unwrap_or(clock::BOOTTIME));
        let ts = self.clocks.to_trace_time(clock, raw).unwrap_or(raw);
        let Ok(ev) = protos::TracingServiceEvent::decode(data) else {
            return;
        };
        use protos::tracing_service_event::EventType;
        match ev.event_type {
            Some(EventType::TracingStarted(true)) => {
                host.set_metadata("tracing_started_ns", MetaValue::Int(ts))
            }
            Some(EventType::TracingDisabled(true)) => {
                host.set_metadata("tracing_disabled_ns", MetaValue::Int(ts))
            }
            Some(EventType::AllDataSourcesStarted(true)) => {
                host.set_metadata("all_data_source_started_ns", MetaValue::Int(ts))
            }
            Some(EventType::AllDataSourcesFlushed(true)) => self.sorter.notify_flush(),
            Some(EventType::ReadTracingBuffersCompleted(true)) => {
                self.sorter.notify_read_buffer(host)
            }
            _ => {}
        }
    }

    fn ftrace_bundle(
        &mut self,
        data: &[u8],
        seq_id: u32,
        offset: u64,
        host: &mut dyn TokenizerHost,
    ) {
        let mut cpu = None;
        let mut ftrace_clock = None;
        let mut ftrace_ts = None;
        let mut boot_ts = None;
        let mut compact = None;
        // Byte ranges of the bundle's events, in a buffer kept across bundles (a bundle holds
        // hundreds of events; growing a new vector for each showed in profiles).
        let mut events = std::mem::take(&mut self.bundle_events);
        events.clear();
        let mut prev_end = None;
        let mut last_read = None;
        let mut lost = false;
        for field in Fields::new(data) {
            let Ok((id, v)) = field else {
                host.stat(
                    "ftrace_bundle_tokenizer_errors",
                    Severity::DataLoss,
                    "An ftrace bundle was malformed; the events after the damage were dropped.",
                );
                break;
            };
            match id {
                1 => cpu = Some(v.as_u32()),
                2 => {
                    let ev = v.as_bytes();
                    let start = ev.as_ptr() as usize - data.as_ptr() as usize;
                    events.push(start..start + ev.len());
                }
                3 => lost = v.as_bool(),
                4 => compact = Some(v.as_bytes()),
                5 => ftrace_clock = Some(v.as_u64()),
                6 => ftrace_ts = Some(v.as_u64() as i64),
                7 => boot_ts = Some(v.as_u64() as i64),
                9 => last_read = Some(v.as_u64()),
                10 => prev_end = Some(v.as_u64()),
                _ => {}
            }
        }
        let Some(cpu) = cpu else {
            host.stat(
                "ftrace_bundle_tokenizer_errors",
                Severity::DataLoss,
                "An ftrace bundle was malformed; the events after the damage were dropped.",
            );
            return;
        };
        // A CPU that cannot exist is damage: the bundle is dropped whole, so neither its
        // events nor its "data valid from" timestamp (which would crop every earlier event
        // of every CPU) are used. trace_processor stops the import at a CPU >= 1024 and
        // accepts any lower one; see docs/fidelity.md.
        let cpu_limit = self.ftrace_cpu_limit();
        if cpu >= cpu_limit {
            host.stat(
                "ftrace_bundle_cpu_out_of_range",
                Severity::DataLoss,
                "An ftrace bundle named a CPU the device cannot have (at or above SystemInfo.num_cpus, or 1024) and was dropped.",
            );
            let bound = match self.num_cpus {
                Some(n) if n > 0 && n < MAX_CPUS => format!("the device has {n} CPUs"),
                _ => format!("CPUs are numbered below {MAX_CPUS}"),
            };
            self.warn(
                "ftrace_bundle_cpu_out_of_range",
                format!(
                    "ftrace bundle at byte offset {offset} dropped: it names CPU {cpu}, but {bound}"
                ),
            );
            return;
        }
        if lost {
            host.stat_add(
                "ftrace_cpu_has_data_loss",
                cpu as i64,
                Severity::DataLoss,
                "The kernel reported lost ftrace events on this CPU.",
                1,
            );
        }
        let clock = match ftrace_clock {
            None => ClockKey::global(clock::BOOTTIME),
            Some(c) => match self.ftrace_clock(c, seq_id, ftrace_ts, boot_ts) {
                Some(k) => k,
                None => {
                    host.stat(
                        "ftrace_unknown_clock",
                        Severity::DataLoss,
                        "An ftrace bundle was recorded with a clock frameprobe cannot convert and was dropped.",
                    );
                    return;
                }
            },
        };
        if let Some(c) = compact {
            if self.wanted.compact_sched {
                self.compact_sched(cpu, c, clock, host);
            }
        }
        for ev in events.drain(..) {
            self.ftrace_event(cpu, &data[ev], clock, seq_id, host);
        }
        self.bundle_events = events;
        let cpu_idx = cpu as usize;
        if self.ftrace_seen_first_bundle.len() <= cpu_idx {
            self.ftrace_seen_first_bundle.resize(cpu_idx + 1, false);
        }
        if !self.ftrace_seen_first_bundle[cpu_idx] {
            self.ftrace_seen_first_bundle[cpu_idx] = true;
            if let Some(raw) = prev_end.or(last_read) {
                if let Some(ts) = self.clocks.to_trace_time(clock, raw as i64) {
                    host.raise_metadata("ftrace_latest_data_start_ns", ts);
                }
            }
        }
    }

    /// The clock of a bundle that names its ftrace clock. Kernel clocks userspace cannot
    /// read ("global", "local") become a clock scoped to the packet sequence, tied to
    /// BOOTTIME by the (ftrace, boot) timestamp pair the bundle carries; consecutive
    /// bundles usually repeat the pair, so a pair is added only when it changes. None for
    /// a clock value frameprobe does not know.
    fn ftrace_clock(
        &mut self,
        ftrace_clock: u64,
        seq_id: u32,
        ftrace_ts: Option<i64>,
        boot_ts: Option<i64>,
    ) -> Option<ClockKey> {
        const UNSPECIFIED: u64 = 0;
        const GLOBAL: u64 = 2;
        const LOCAL: u64 = 3;
        const MONO_RAW: u64 = 4;
        const MONOTONIC_RAW: u32 = 4;
        const SEQUENCE_SCOPED_FTRACE_CLOCK: u32 = 64;
        let key = match ftrace_clock {
            UNSPECIFIED => return Some(ClockKey::global(clock::BOOTTIME)),
            MONO_RAW => ClockKey::global(MONOTONIC_RAW),
            GLOBAL | LOCAL => ClockKey {
                id: SEQUENCE_SCOPED_FTRACE_CLOCK,
                seq: seq_id,
            },
            _ => return None,
        };
        if let (Some(ft), Some(boot)) = (ftrace_ts, boot_ts) {
            if self.latest_ftrace_clock_snapshot != Some(ft) {
                self.clocks.add_snapshot(&[
                    (key, ft, 1, false),
                    (ClockKey::global(clock::BOOTTIME), boot, 1, false),
                ]);
                self.latest_ftrace_clock_snapshot = Some(ft);
            }
        }
        Some(key)
    }

    fn ftrace_event(
        &mut self,
        cpu: u32,
        ev: &[u8],
        clock: ClockKey,
        seq_id: u32,
        host: &mut dyn TokenizerHost,
    ) {
        let Envelope {
            ts,
            pid,
            event_id,
            payload,
        } = plain_envelope(ev).unwrap_or_else(|| envelope_by_fields(ev));
        let Some(raw) = ts else {
            host.stat(
                "ftrace_bundle_tokenizer_errors",
                Severity::DataLoss,
                "An ftrace bundle was malformed; the events after the damage were dropped.",
            );
            return;
        };
        if event_id == 0 {
            host.stat(
                "ftrace_missing_event_id",
                Severity::DataLoss,
                "An ftrace event had no payload and was dropped.",
            );
            return;
        }
        if !self.wanted_ftrace.contains(event_id) {
            return;
        }
        let Some(ts) = self.clocks.to_trace_time(clock, raw as i64) else {
            return;
        };
        if event_id == fid::SCHED_BLOCKED_REASON {
            // Interned symbols are only valid for now: resolve the caller before sorting.
            let symbols = self.seqs.get(&seq_id).map(|s| &s.kernel_symbols);
            let caller = blocked_reason_caller(payload).and_then(|iid| symbols?.get(&iid));
            let buf = &mut self.event_buf;
            buf.clear();
            buf.extend_from_slice(ev);
            put_varint(buf, (fid::RESOLVED_CALLER as u64) << 3);
            put_varint(
                buf,
                caller.map_or(u64::from(u32::MAX), |s| u64::from(s.index())),
            );
            self.sorter.push_ftrace(ts, cpu, &self.event_buf);
            return;
        }
        match (event_id, pid) {
            // Most events are prints: queued as their pid and text alone.
            (fid::PRINT, Some(pid)) => self.sorter.push_print(ts, cpu, pid, payload),
            _ => self.sorter.push_ftrace(ts, cpu, ev),
        }
    }

    fn compact_sched(
        &mut self,
        cpu: u32,
        data: &[u8],
        clock: ClockKey,
        host: &mut dyn TokenizerHost,
    ) {
        let mut intern: Vec<&[u8]> = Vec::new();
        let mut arrays: [&[u8]; 13] = [&[]; 13];
        for field in Fields::new(data) {
            let Ok((id, v)) = field else { break };
            match id {
                5 => intern.push(v.as_bytes()),
                1..=12 => {
                    // Packed arrays may arrive in several pieces; the common case is one.
                    arrays[id as usize] = v.as_bytes();
                }
                _ => {}
            }
        }
        let table: Vec<_> = intern.iter().map(|s| host.name(s)).collect();
        let mut parse_error = false;

        // sched_switch
        {
            let mut ts_it = PackedVarints::new(arrays[1]);
            let mut st_it = PackedVarints::new(arrays[2]);
            let mut pid_it = PackedVarints::new(arrays[3]);
            let mut prio_it = PackedVarints::new(arrays[4]);
            let mut comm_it = PackedVarints::new(arrays[6]);
            let mut acc: i64 = 0;
            while let (Some(d), Some(st), Some(pid), Some(prio), Some(comm)) = (
                ts_it.next(),
                st_it.next(),
                pid_it.next(),
                prio_it.next(),
                comm_it.next(),
            ) {
                acc = acc.wrapping_add(d as i64);
                let Some(&name) = table.get(comm as usize) else {
                    parse_error = true;
                    break;
                };
                let Some(t) = self.clocks.to_trace_time(clock, acc) else {
                    return;
                };
                self.sorter.push_switch(
                    t,
                    cpu,
                    CompactSwitch {
                        prev_state: st as i64,
                        next_pid: pid as i32,
                        next_prio: prio as i32,
                        next_comm: name,
                    },
                );
            }
            let leftover = ts_it.next().is_some()
                || st_it.next().is_some()
                || pid_it.next().is_some()
                || prio_it.next().is_some()
                || comm_it.next().is_some();
            parse_error |= leftover || ts_it.error || st_it.error || pid_it.error;
        }
        // sched_waking
        {
            let mut ts_it = PackedVarints::new(arrays[7]);
            let mut pid_it = PackedVarints::new(arrays[8]);
            let mut cpu_it = PackedVarints::new(arrays[9]);
            let mut prio_it = PackedVarints::new(arrays[10]);
            let mut comm_it = PackedVarints::new(arrays[11]);
            let mut flags_it = PackedVarints::new(arrays[12]);
            let mut acc: i64 = 0;
            while let (Some(d), Some(pid), Some(tcpu), Some(prio), Some(comm)) = (
                ts_it.next(),
                pid_it.next(),
                cpu_it.next(),
                prio_it.next(),
                comm_it.next(),
            ) {
                acc = acc.wrapping_add(d as i64);
                let Some(&name) = table.get(comm as usize) else {
                    parse_error = true;
                    break;
                };
                let flags = flags_it.next().unwrap_or(0) as u32;
                let Some(t) = self.clocks.to_trace_time(clock, acc) else {
                    return;
                };
                self.sorter.push_waking(
                    t,
                    cpu,
                    CompactWaking {
                        pid: pid as i32,
                        target_cpu: tcpu as i32,
                        prio: prio as i32,
                        comm: name,
                        common_flags: flags,
                    },
                );
            }
        }
        if parse_error {
            host.stat(
                "compact_sched_has_parse_errors",
                Severity::DataLoss,
                "A compact_sched block was inconsistent; part of it was dropped.",
            );
        }
    }

    /// End of input: retries deferred packets, then hands every remaining event on.
    pub fn finish(&mut self, host: &mut dyn TokenizerHost) {
        self.eof = true;
        for (bytes, offset) in std::mem::take(&mut self.deferred) {
            self.packet(&bytes, offset, host);
        }
        for (kind, n) in std::mem::take(&mut self.warnings_held_back) {
            if n > WARNINGS_PER_KIND {
                self.warnings.push(format!(
                    "{} more warnings like the above ({kind}; see the stats table)",
                    n - WARNINGS_PER_KIND
                ));
            }
        }
        self.sorter.extract_all(host);
        let dropped = self.sorter.negative_ts_dropped;
        if dropped > 0 {
            host.stat_add(
                "trace_sorter_negative_timestamp_dropped",
                -1,
                Severity::DataLoss,
                "Events with negative timestamps were dropped.",
                dropped as i64,
            );
        }
    }
}

/// What the tokenizer reads of an FtraceEvent: its timestamp, pid, and its own message
/// (event id 0 when there is none).
#[derive(Debug, PartialEq)]
struct Envelope<'a> {
    ts: Option<u64>,
    pid: Option<u32>,
    event_id: u32,
    payload: &'a [u8],
}

/// [`Envelope`] by the protobuf rules, for any layout: the last timestamp and pid before the
/// first length-delimited field, which is the event's own.
fn envelope_by_fields(ev: &[u8]) -> Envelope<'_> {
    let mut env = Envelope {
        ts: None,
        pid: None,
        event_id: 0,
        payload: &[],
    };
    for field in Fields::new(ev) {
        let Ok((id, v)) = field else { break };
        match (id, v) {
            (1, Value::Varint(t)) => env.ts = Some(t),
            (_, Value::Bytes(b)) => {
                env.event_id = id;
                env.payload = b;
                break;
            }
            // As the importers' envelope reads it: the last pid before the payload.
            (2, v) => env.pid = Some(v.as_u32()),
            _ => {}
        }
    }
    env
}

/// [`Envelope`] of an event laid out as the kernel side of Perfetto writes it: timestamp
/// (field 1), an optional pid (field 2), then the event's message; None for any other
/// layout. Read with fixed tags instead of the general field loop, which was a third of
/// the bundle tokenizer's samples.
fn plain_envelope(ev: &[u8]) -> Option<Envelope<'_>> {
    const TS_TAG: u8 = 1 << 3;
    const PID_TAG: u8 = 2 << 3;
    const LENGTH_DELIMITED: u64 = 2;
    if ev.first() != Some(&TS_TAG) {
        return None;
    }
    let (ts, mut at) = read_varint(ev, 1).ok()?;
    let mut pid = None;
    if ev.get(at) == Some(&PID_TAG) {
        let (p, next) = read_varint(ev, at + 1).ok()?;
        pid = Some(p as u32);
        at = next;
    }
    let (tag, at) = read_varint(ev, at).ok()?;
    let id = tag >> 3;
    if tag & 7 != LENGTH_DELIMITED || id == 0 || id > MAX_FIELD_NUMBER {
        return None;
    }
    let (len, start) = read_varint(ev, at).ok()?;
    let end = start.checked_add(usize::try_from(len).ok()?)?;
    Some(Envelope {
        ts: Some(ts),
        pid,
        event_id: id as u32,
        payload: ev.get(start..end)?,
    })
}

/// PrintFtraceEvent's buf (field 2; the last one wins), the text of a print event. Read by
/// whichever thread reads the print: not on the tokenizer's, which bounds the load.
pub fn print_buf(print: &[u8]) -> &[u8] {
    plain_print_buf(print).unwrap_or_else(|| print_buf_by_fields(print))
}

/// [`print_buf`] by the protobuf rules, for any layout: the last field 2 before the first
/// malformed field.
fn print_buf_by_fields(print: &[u8]) -> &[u8] {
    let mut buf: &[u8] = &[];
    for (id, v) in Fields::new(print).map_while(Result::ok) {
        if id == 2 {
            buf = v.as_bytes();
        }
    }
    buf
}

/// The buf of a print laid out as the kernel's writer lays it out, an optional `ip` (field
/// 1, varint) then `buf` (field 2) ending the message; None for any other layout. The `ip`
/// is a kernel address, a 10-byte varint that the general reader decodes byte by byte:
/// here it is only skipped.
fn plain_print_buf(print: &[u8]) -> Option<&[u8]> {
    const IP_TAG: u8 = 1 << 3;
    const BUF_TAG: u8 = (2 << 3) | 2;
    const MAX_VARINT_BYTES: usize = 10;
    let mut at = 0;
    if print.first() == Some(&IP_TAG) {
        let ip = print.get(1..)?;
        let last = ip
            .iter()
            .take(MAX_VARINT_BYTES)
            .position(|b| b & 0x80 == 0)?;
        at = 1 + last + 1;
    }
    if print.get(at) != Some(&BUF_TAG) {
        return None;
    }
    let (len, start) = super::wire::read_varint(print, at + 1).ok()?;
    (start as u64 + len == print.len() as u64).then(|| &print[start..])
}

/// Adds InternedData.kernel_symbols entries (InternedString: iid 1, str 2) to `symbols`.
fn read_kernel_symbols(
    interned: &[u8],
    host: &mut dyn TokenizerHost,
    symbols: &mut rustc_hash::FxHashMap<u64, StrId>,
) {
    for (id, v) in Fields::new(interned).map_while(Result::ok) {
        if id != KERNEL_SYMBOLS {
            continue;
        }
        let (mut iid, mut name) = (0, &[][..]);
        for (id, v) in Fields::new(v.as_bytes()).map_while(Result::ok) {
            match id {
                1 => iid = v.as_u64(),
                2 => name = v.as_bytes(),
                _ => {}
            }
        }
        symbols.insert(iid, host.name(name));
    }
}

/// The caller iid (field 2) of a SchedBlockedReasonFtraceEvent, the event's own message.
fn blocked_reason_caller(event: &[u8]) -> Option<u64> {
    Fields::new(event)
        .map_while(Result::ok)
        .find(|(id, _)| *id == 2)
        .map(|(_, v)| v.as_u64())
}

#[cfg(test)]
mod tests;
