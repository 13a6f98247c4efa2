//! Zero-copy views of the TrackEvent-family messages (field numbers from Perfetto's
//! track_event/*.proto), decoded with the wire scanner: track events are the hot path of
//! SDK and Chrome traces, so no message is materialised.

use crate::trace::wire::{Fields, PackedVarints, Value};

/// Calls `f` with every value of a repeated integer field, whether the producer packed it
/// or not. `fixed64` says how packed values are laid out (fixed64 / double fields).
pub fn for_each_u64(msg: &[u8], field: u32, fixed64: bool, mut f: impl FnMut(u64)) {
    for (id, v) in Fields::new(msg).map_while(Result::ok) {
        if id != field {
            continue;
        }
        match v {
            Value::Bytes(packed) if fixed64 => {
                for chunk in packed.chunks_exact(8) {
                    f(u64::from_le_bytes(chunk.try_into().expect("8 bytes")));
                }
            }
            Value::Bytes(packed) => PackedVarints::new(packed).for_each(&mut f),
            other => f(other.as_u64()),
        }
    }
}

/// Whether a repeated field has at least one value.
pub fn has_field(msg: &[u8], field: u32) -> bool {
    Fields::new(msg)
        .map_while(Result::ok)
        .any(|(id, v)| id == field && !matches!(v, Value::Bytes(b) if b.is_empty()))
}

/// The length-delimited values of a repeated field, in order.
pub fn for_each_bytes<'a>(msg: &'a [u8], field: u32, mut f: impl FnMut(&'a [u8])) {
    for (id, v) in Fields::new(msg).map_while(Result::ok) {
        if id == field {
            f(v.as_bytes());
        }
    }
}

/// The first length-delimited value of a repeated field.
pub fn first_bytes(msg: &[u8], field: u32) -> Option<&[u8]> {
    Fields::new(msg)
        .map_while(Result::ok)
        .find(|(id, _)| *id == field)
        .map(|(_, v)| v.as_bytes())
}

pub mod te {
    //! TrackEvent field numbers.
    pub const TIMESTAMP_DELTA_US: u32 = 1;
    pub const THREAD_TIME_DELTA_US: u32 = 2;
    pub const CATEGORY_IIDS: u32 = 3;
    pub const DEBUG_ANNOTATIONS: u32 = 4;
    pub const TASK_EXECUTION: u32 = 5;
    pub const LEGACY_EVENT: u32 = 6;
    pub const THREAD_INSTRUCTION_COUNT_DELTA: u32 = 8;
    pub const TYPE: u32 = 9;
    pub const NAME_IID: u32 = 10;
    pub const TRACK_UUID: u32 = 11;
    pub const EXTRA_COUNTER_VALUES: u32 = 12;
    pub const TIMESTAMP_ABSOLUTE_US: u32 = 16;
    pub const THREAD_TIME_ABSOLUTE_US: u32 = 17;
    pub const THREAD_INSTRUCTION_COUNT_ABSOLUTE: u32 = 20;
    pub const LOG_MESSAGE: u32 = 21;
    pub const CATEGORIES: u32 = 22;
    pub const NAME: u32 = 23;
    pub const CHROME_HISTOGRAM_SAMPLE: u32 = 28;
    pub const COUNTER_VALUE: u32 = 30;
    pub const EXTRA_COUNTER_TRACK_UUIDS: u32 = 31;
    pub const SOURCE_LOCATION_IID: u32 = 34;
    pub const FLOW_IDS_OLD: u32 = 36;
    pub const TERMINATING_FLOW_IDS_OLD: u32 = 42;
    pub const DOUBLE_COUNTER_VALUE: u32 = 44;
    pub const EXTRA_DOUBLE_COUNTER_TRACK_UUIDS: u32 = 45;
    pub const EXTRA_DOUBLE_COUNTER_VALUES: u32 = 46;
    pub const FLOW_IDS: u32 = 47;
    pub const TERMINATING_FLOW_IDS: u32 = 48;
    pub const CORRELATION_ID: u32 = 52;
    pub const CORRELATION_ID_STR: u32 = 53;
    pub const CORRELATION_ID_STR_IID: u32 = 54;

    /// TrackEvent.Type values.
    pub const TYPE_SLICE_BEGIN: i32 = 1;
    pub const TYPE_SLICE_END: i32 = 2;
    pub const TYPE_INSTANT: i32 = 3;
    pub const TYPE_COUNTER: i32 = 4;
    pub const TYPE_STATE: i32 = 5;
}

pub mod interned {
    //! InternedData field numbers.
    pub const EVENT_CATEGORIES: u32 = 1;
    pub const EVENT_NAMES: u32 = 2;
    pub const DEBUG_ANNOTATION_NAMES: u32 = 3;
    pub const SOURCE_LOCATIONS: u32 = 4;
    pub const LOG_MESSAGE_BODY: u32 = 20;
    pub const HISTOGRAM_NAMES: u32 = 25;
    pub const DEBUG_ANNOTATION_STRING_VALUES: u32 = 29;
    pub const CORRELATION_ID_STR: u32 = 43;
}

/// The scalar fields of a TrackEvent; repeated fields are read from `bytes` on demand.
#[derive(Default)]
pub struct TrackEvent<'a> {
    pub bytes: &'a [u8],
    pub ty: Option<i32>,
    pub track_uuid: Option<u64>,
    pub name_iid: Option<u64>,
    pub name: Option<&'a [u8]>,
    pub counter_value: Option<i64>,
    pub double_counter_value: Option<f64>,
    pub timestamp_delta_us: Option<i64>,
    pub timestamp_absolute_us: Option<i64>,
    pub thread_time_delta_us: Option<i64>,
    pub thread_time_absolute_us: Option<i64>,
    pub thread_instruction_count_delta: Option<i64>,
    pub thread_instruction_count_absolute: Option<i64>,
    pub legacy_event: Option<&'a [u8]>,
    pub task_execution: Option<&'a [u8]>,
    pub log_message: Option<&'a [u8]>,
    pub chrome_histogram_sample: Option<&'a [u8]>,
    pub source_location_iid: Option<u64>,
    pub correlation_id: Option<u64>,
    pub correlation_id_str: Option<&'a [u8]>,
    pub correlation_id_str_iid: Option<u64>,
    pub has_extra_counter_values: bool,
    pub has_extra_double_counter_values: bool,
    /// Which repeated / rarely used fields are present, so that the importer scans the
    /// message again only for what it has.
    pub has_category_iids: bool,
    pub has_categories: bool,
    pub has_debug_annotations: bool,
    pub has_flows: bool,
    /// Fields that may become args by reflection (Chrome typed fields, extensions, unknown
    /// fields).
    pub has_reflectable: bool,
}

impl<'a> TrackEvent<'a> {
    pub fn decode(bytes: &'a [u8]) -> Self {
        let mut e = TrackEvent {
            bytes,
            ..Default::default()
        };
        for (id, v) in Fields::new(bytes).map_while(Result::ok) {
            match id {
                te::TYPE => e.ty = Some(v.as_i32()),
                te::TRACK_UUID => e.track_uuid = Some(v.as_u64()),
                te::NAME_IID => e.name_iid = Some(v.as_u64()),
                te::NAME => e.name = Some(v.as_bytes()),
                te::COUNTER_VALUE => e.counter_value = Some(v.as_i64()),
                te::DOUBLE_COUNTER_VALUE => {
                    e.double_counter_value = Some(f64::from_bits(v.as_u64()))
                }
                te::TIMESTAMP_DELTA_US => e.timestamp_delta_us = Some(v.as_i64()),
                te::TIMESTAMP_ABSOLUTE_US => e.timestamp_absolute_us = Some(v.as_i64()),
                te::THREAD_TIME_DELTA_US => e.thread_time_delta_us = Some(v.as_i64()),
                te::THREAD_TIME_ABSOLUTE_US => e.thread_time_absolute_us = Some(v.as_i64()),
                te::THREAD_INSTRUCTION_COUNT_DELTA => {
                    e.thread_instruction_count_delta = Some(v.as_i64())
                }
                te::THREAD_INSTRUCTION_COUNT_ABSOLUTE => {
                    e.thread_instruction_count_absolute = Some(v.as_i64())
                }
                te::LEGACY_EVENT => e.legacy_event = Some(v.as_bytes()),
                te::TASK_EXECUTION => e.task_execution = Some(v.as_bytes()),
                te::LOG_MESSAGE => e.log_message = Some(v.as_bytes()),
                te::CHROME_HISTOGRAM_SAMPLE => e.chrome_histogram_sample = Some(v.as_bytes()),
                te::SOURCE_LOCATION_IID => e.source_location_iid = Some(v.as_u64()),
                te::CORRELATION_ID => e.correlation_id = Some(v.as_u64()),
                te::CORRELATION_ID_STR => e.correlation_id_str = Some(v.as_bytes()),
                te::CORRELATION_ID_STR_IID => e.correlation_id_str_iid = Some(v.as_u64()),
                te::EXTRA_COUNTER_VALUES => e.has_extra_counter_values = true,
                te::EXTRA_DOUBLE_COUNTER_VALUES => e.has_extra_double_counter_values = true,
                te::CATEGORY_IIDS => e.has_category_iids = true,
                te::CATEGORIES => e.has_categories = true,
                te::DEBUG_ANNOTATIONS => e.has_debug_annotations = true,
                te::FLOW_IDS
                | te::FLOW_IDS_OLD
                | te::TERMINATING_FLOW_IDS
                | te::TERMINATING_FLOW_IDS_OLD => e.has_flows = true,
                // Handled by the importer itself.
                te::EXTRA_COUNTER_TRACK_UUIDS | te::EXTRA_DOUBLE_COUNTER_TRACK_UUIDS => {}
                _ => e.has_reflectable = true,
            }
        }
        e
    }

    pub fn ty(&self) -> i32 {
        self.ty.unwrap_or(0)
    }
}

/// TrackEvent.LegacyEvent (Chrome's JSON-era event model).
#[derive(Default, Clone, Copy)]
pub struct LegacyEvent<'a> {
    pub name_iid: Option<u64>,
    pub phase: Option<i32>,
    pub duration_us: i64,
    pub thread_duration_us: i64,
    pub thread_instruction_delta: i64,
    pub unscoped_id: Option<u64>,
    pub local_id: Option<u64>,
    pub global_id: Option<u64>,
    pub id_scope: Option<&'a [u8]>,
    pub use_async_tts: bool,
    pub bind_id: Option<u64>,
    pub bind_to_enclosing: bool,
    pub flow_direction: Option<i32>,
    pub instant_event_scope: i32,
    pub pid_override: Option<i32>,
    pub tid_override: Option<i32>,
}

impl<'a> LegacyEvent<'a> {
    pub fn decode(bytes: &'a [u8]) -> Self {
        let mut l = LegacyEvent::default();
        for (id, v) in Fields::new(bytes).map_while(Result::ok) {
            match id {
                1 => l.name_iid = Some(v.as_u64()),
                2 => l.phase = Some(v.as_i32()),
                3 => l.duration_us = v.as_i64(),
                4 => l.thread_duration_us = v.as_i64(),
                15 => l.thread_instruction_delta = v.as_i64(),
                6 => l.unscoped_id = Some(v.as_u64()),
                10 => l.local_id = Some(v.as_u64()),
                11 => l.global_id = Some(v.as_u64()),
                7 => l.id_scope = Some(v.as_bytes()),
                9 => l.use_async_tts = v.as_bool(),
                8 => l.bind_id = Some(v.as_u64()),
                12 => l.bind_to_enclosing = v.as_bool(),
                13 => l.flow_direction = Some(v.as_i32()),
                14 => l.instant_event_scope = v.as_i32(),
                18 => l.pid_override = Some(v.as_i32()),
                19 => l.tid_override = Some(v.as_i32()),
                _ => {}
            }
        }
        l
    }
}

/// TrackEventDefaults (TracePacketDefaults field 11).
#[derive(Default)]
pub struct TrackEventDefaults<'a> {
    pub bytes: &'a [u8],
    pub track_uuid: Option<u64>,
}

impl<'a> TrackEventDefaults<'a> {
    /// From a TracePacketDefaults message.
    pub fn from_packet_defaults(defaults: &'a [u8]) -> Option<Self> {
        let bytes = Fields::new(defaults)
            .map_while(Result::ok)
            .filter(|(id, _)| *id == 11)
            .last()?
            .1
            .as_bytes();
        let track_uuid = Fields::new(bytes)
            .map_while(Result::ok)
            .filter(|(id, _)| *id == 11)
            .last()
            .map(|(_, v)| v.as_u64());
        Some(TrackEventDefaults { bytes, track_uuid })
    }
}

/// ThreadDescriptor (also the `thread` of a TrackDescriptor).
#[derive(Default)]
pub struct ThreadDescriptor<'a> {
    pub pid: Option<i32>,
    pub tid: Option<i64>,
    pub thread_name: Option<&'a [u8]>,
    pub chrome_thread_type: Option<i32>,
    pub reference_timestamp_us: i64,
    pub reference_thread_time_us: i64,
    pub reference_thread_instruction_count: i64,
}

impl<'a> ThreadDescriptor<'a> {
    pub fn decode(bytes: &'a [u8]) -> Self {
        let mut t = ThreadDescriptor::default();
        for (id, v) in Fields::new(bytes).map_while(Result::ok) {
            match id {
                1 => t.pid = Some(v.as_i32()),
                2 => t.tid = Some(v.as_i64()),
                5 => t.thread_name = Some(v.as_bytes()),
                4 => t.chrome_thread_type = Some(v.as_i32()),
                6 => t.reference_timestamp_us = v.as_i64(),
                7 => t.reference_thread_time_us = v.as_i64(),
                8 => t.reference_thread_instruction_count = v.as_i64(),
                _ => {}
            }
        }
        t
    }
}

/// ProcessDescriptor (also the `process` of a TrackDescriptor).
#[derive(Default)]
pub struct ProcessDescriptor<'a> {
    pub bytes: &'a [u8],
    pub pid: Option<i32>,
    pub process_name: Option<&'a [u8]>,
    pub start_timestamp_ns: Option<i64>,
    pub chrome_process_type: Option<i32>,
}

impl<'a> ProcessDescriptor<'a> {
    pub const PROCESS_LABELS: u32 = 8;

    pub fn decode(bytes: &'a [u8]) -> Self {
        let mut p = ProcessDescriptor {
            bytes,
            ..Default::default()
        };
        for (id, v) in Fields::new(bytes).map_while(Result::ok) {
            match id {
                1 => p.pid = Some(v.as_i32()),
                6 => p.process_name = Some(v.as_bytes()),
                7 => p.start_timestamp_ns = Some(v.as_i64()),
                4 => p.chrome_process_type = Some(v.as_i32()),
                _ => {}
            }
        }
        p
    }
}

/// CounterDescriptor (the `counter` of a TrackDescriptor).
#[derive(Default)]
pub struct CounterDescriptor<'a> {
    pub bytes: &'a [u8],
    pub ty: i32,
    pub unit: u32,
    pub unit_name: Option<&'a [u8]>,
    pub unit_multiplier: i64,
    pub is_incremental: bool,
    pub y_axis_share_key: Option<&'a [u8]>,
}

impl<'a> CounterDescriptor<'a> {
    pub const CATEGORIES: u32 = 2;
    pub const THREAD_TIME_NS: i32 = 1;
    pub const THREAD_INSTRUCTION_COUNT: i32 = 2;

    pub fn decode(bytes: &'a [u8]) -> Self {
        let mut c = CounterDescriptor {
            bytes,
            ..Default::default()
        };
        for (id, v) in Fields::new(bytes).map_while(Result::ok) {
            match id {
                1 => c.ty = v.as_i32(),
                3 => c.unit = v.as_u32(),
                6 => c.unit_name = Some(v.as_bytes()),
                4 => c.unit_multiplier = v.as_i64(),
                5 => c.is_incremental = v.as_bool(),
                7 => c.y_axis_share_key = Some(v.as_bytes()),
                _ => {}
            }
        }
        c
    }
}

/// TrackDescriptor.
#[derive(Default)]
pub struct TrackDescriptor<'a> {
    pub uuid: Option<u64>,
    pub parent_uuid: Option<u64>,
    pub name: Option<&'a [u8]>,
    pub static_name: Option<&'a [u8]>,
    pub atrace_name: Option<&'a [u8]>,
    pub description: Option<&'a [u8]>,
    pub process: Option<&'a [u8]>,
    pub chrome_process: Option<&'a [u8]>,
    pub thread: Option<&'a [u8]>,
    pub chrome_thread: Option<&'a [u8]>,
    pub counter: Option<&'a [u8]>,
    pub has_state: bool,
    pub disallow_merging_with_system_tracks: bool,
    pub child_ordering: Option<i32>,
    pub sibling_order_rank: Option<i32>,
    pub sibling_merge_behavior: Option<i32>,
    pub sibling_merge_key: Option<&'a [u8]>,
    pub sibling_merge_key_int: Option<u64>,
    pub process_ordering: Option<i32>,
    pub thread_ordering: Option<i32>,
}

impl<'a> TrackDescriptor<'a> {
    pub fn decode(bytes: &'a [u8]) -> Self {
        let mut t = TrackDescriptor::default();
        for (id, v) in Fields::new(bytes).map_while(Result::ok) {
            match id {
                1 => t.uuid = Some(v.as_u64()),
                5 => t.parent_uuid = Some(v.as_u64()),
                2 => t.name = Some(v.as_bytes()),
                10 => t.static_name = Some(v.as_bytes()),
                13 => t.atrace_name = Some(v.as_bytes()),
                14 => t.description = Some(v.as_bytes()),
                3 => t.process = Some(v.as_bytes()),
                6 => t.chrome_process = Some(v.as_bytes()),
                4 => t.thread = Some(v.as_bytes()),
                7 => t.chrome_thread = Some(v.as_bytes()),
                8 => t.counter = Some(v.as_bytes()),
                18 => t.has_state = true,
                9 => t.disallow_merging_with_system_tracks = v.as_bool(),
                11 => t.child_ordering = Some(v.as_i32()),
                12 => t.sibling_order_rank = Some(v.as_i32()),
                15 => t.sibling_merge_behavior = Some(v.as_i32()),
                16 => t.sibling_merge_key = Some(v.as_bytes()),
                17 => t.sibling_merge_key_int = Some(v.as_u64()),
                19 => t.process_ordering = Some(v.as_i32()),
                20 => t.thread_ordering = Some(v.as_i32()),
                _ => {}
            }
        }
        t
    }

    /// The track's name: `name`, else `static_name`, else `atrace_name`.
    pub fn any_name(&self) -> Option<&'a [u8]> {
        self.name.or(self.static_name).or(self.atrace_name)
    }
}

/// Fields of ChromeThreadDescriptor / ChromeProcessDescriptor.
pub fn chrome_thread_type(chrome_thread: &[u8]) -> (Option<i32>, bool) {
    let mut ty = None;
    let mut sandboxed = false;
    for (id, v) in Fields::new(chrome_thread).map_while(Result::ok) {
        match id {
            1 => ty = Some(v.as_i32()),
            3 => sandboxed = v.as_bool(),
            _ => {}
        }
    }
    (ty, sandboxed)
}

/// ChromeProcessDescriptor: process type, host app package name, crash trace id.
#[derive(Default)]
pub struct ChromeProcessDescriptor<'a> {
    pub process_type: i32,
    pub host_app_package_name: Option<&'a [u8]>,
    pub crash_trace_id: Option<u64>,
}

impl<'a> ChromeProcessDescriptor<'a> {
    pub fn decode(bytes: &'a [u8]) -> Self {
        let mut c = ChromeProcessDescriptor::default();
        for (id, v) in Fields::new(bytes).map_while(Result::ok) {
            match id {
                1 => c.process_type = v.as_i32(),
                4 => c.host_app_package_name = Some(v.as_bytes()),
                5 => c.crash_trace_id = Some(v.as_u64()),
                _ => {}
            }
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::wire::{put_field, put_varint};

    #[test]
    fn repeated_integers_read_packed_and_unpacked() {
        let mut m = Vec::new();
        put_field(&mut m, 3, Value::Varint(5));
        let mut packed = Vec::new();
        put_varint(&mut packed, 6);
        put_varint(&mut packed, 300);
        put_field(&mut m, 3, Value::Bytes(&packed));
        let mut got = Vec::new();
        for_each_u64(&m, 3, false, |v| got.push(v));
        assert_eq!(got, [5, 6, 300]);

        let mut f = Vec::new();
        put_field(&mut f, 47, Value::Fixed64(9));
        let mut packed = Vec::new();
        packed.extend_from_slice(&10u64.to_le_bytes());
        put_field(&mut f, 47, Value::Bytes(&packed));
        let mut got = Vec::new();
        for_each_u64(&f, 47, true, |v| got.push(v));
        assert_eq!(got, [9, 10]);
    }

    #[test]
    fn track_event_defaults_come_from_field_11_of_packet_defaults() {
        let mut ted = Vec::new();
        put_field(&mut ted, 11, Value::Varint(42));
        let mut pd = Vec::new();
        put_field(&mut pd, 58, Value::Varint(64));
        put_field(&mut pd, 11, Value::Bytes(&ted));
        let d = TrackEventDefaults::from_packet_defaults(&pd).unwrap();
        assert_eq!(d.track_uuid, Some(42));
        assert!(TrackEventDefaults::from_packet_defaults(&[]).is_none());
    }
}
