//! Reading a trace: framing, per-sequence state, clocks and sorting, ending in a stream of
//! timestamp-ordered events for the importers.

pub mod clock;
pub mod interned;
pub mod reader;
pub mod sort;
pub mod tokenizer;
pub mod wire;

/// TracePacket field numbers frameprobe reads.
pub mod fields {
    pub const FTRACE_EVENTS: u32 = 1;
    pub const PROCESS_TREE: u32 = 2;
    pub const CLOCK_SNAPSHOT: u32 = 6;
    pub const TIMESTAMP: u32 = 8;
    pub const PROCESS_STATS: u32 = 9;
    pub const TRUSTED_PACKET_SEQUENCE_ID: u32 = 10;
    pub const TRACK_EVENT: u32 = 11;
    pub const INTERNED_DATA: u32 = 12;
    pub const SEQUENCE_FLAGS: u32 = 13;
    pub const TRACE_CONFIG: u32 = 33;
    pub const INCREMENTAL_STATE_CLEARED: u32 = 41;
    pub const PROCESS_DESCRIPTOR: u32 = 43;
    pub const THREAD_DESCRIPTOR: u32 = 44;
    pub const PREVIOUS_PACKET_DROPPED: u32 = 42;
    pub const SYSTEM_INFO: u32 = 45;
    pub const COMPRESSED_PACKETS: u32 = 50;
    pub const GRAPHICS_FRAME_EVENT: u32 = 57;
    pub const TIMESTAMP_CLOCK_ID: u32 = 58;
    pub const TRACE_PACKET_DEFAULTS: u32 = 59;
    pub const TRACK_DESCRIPTOR: u32 = 60;
    pub const SERVICE_EVENT: u32 = 69;
    pub const INITIAL_DISPLAY_STATE: u32 = 70;
    pub const FRAME_TIMELINE_EVENT: u32 = 76;
    pub const TRUSTED_PID: u32 = 79;
    pub const ANDROID_SYSTEM_PROPERTY: u32 = 86;
    pub const FIRST_PACKET_ON_SEQUENCE: u32 = 87;
    pub const MACHINE_ID: u32 = 98;
    pub const ZSTD_COMPRESSED_PACKETS: u32 = 133;
}

/// FtraceEvent field numbers (the event oneof) frameprobe parses.
pub mod ftrace_ids {
    pub const PRINT: u32 = 3;
    pub const SCHED_SWITCH: u32 = 4;
    pub const CPU_FREQUENCY: u32 = 11;
    pub const CPU_FREQUENCY_LIMITS: u32 = 12;
    pub const CPU_IDLE: u32 = 13;
    pub const SCHED_WAKEUP: u32 = 17;
    pub const SCHED_WAKING: u32 = 20;
    pub const LOWMEMORY_KILL: u32 = 35;
    pub const TRACING_MARK_WRITE: u32 = 80;
    pub const SCHED_WAKEUP_NEW: u32 = 114;
    pub const TASK_NEWTASK: u32 = 235;
    pub const TASK_RENAME: u32 = 236;
    pub const SCHED_PROCESS_EXIT: u32 = 238;
    pub const SCHED_PROCESS_FREE: u32 = 240;
    pub const SYS_ENTER: u32 = 329;
    pub const SYS_EXIT: u32 = 330;
    pub const GPU_FREQUENCY: u32 = 332;
    pub const SDE_TRACING_MARK_WRITE: u32 = 333;
    pub const DPU_TRACING_MARK_WRITE: u32 = 348;
    pub const G2D_TRACING_MARK_WRITE: u32 = 349;
    pub const MALI_TRACING_MARK_WRITE: u32 = 350;
    pub const SCHED_CPU_UTIL_CFS: u32 = 421;
}
