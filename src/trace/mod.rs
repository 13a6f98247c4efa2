//! Reading a trace: framing, per-sequence state, clocks and sorting, ending in a stream of
//! timestamp-ordered events for the importers.

pub mod clock;
pub mod frame_timeline_vocab;
pub mod interned;
pub mod limits;
pub mod power_rails;
pub mod reader;
pub mod sniff;
pub mod sort;
pub mod tokenizer;
pub mod wire;

/// TracePacket field numbers frameprobe reads.
pub mod fields {
    pub const FTRACE_EVENTS: u32 = 1;
    pub const PROCESS_TREE: u32 = 2;
    pub const SYS_STATS: u32 = 7;
    pub const CLOCK_SNAPSHOT: u32 = 6;
    pub const TIMESTAMP: u32 = 8;
    pub const PROCESS_STATS: u32 = 9;
    pub const TRUSTED_PACKET_SEQUENCE_ID: u32 = 10;
    pub const TRACK_EVENT: u32 = 11;
    pub const INTERNED_DATA: u32 = 12;
    pub const SEQUENCE_FLAGS: u32 = 13;
    pub const TRACE_CONFIG: u32 = 33;
    pub const FTRACE_STATS: u32 = 34;
    pub const TRACE_STATS: u32 = 35;
    pub const BATTERY: u32 = 38;
    /// Sorted as one event per energy sample (see `trace::power_rails`).
    pub const POWER_RAILS: u32 = 40;
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
    pub const CPU_INFO: u32 = 67;
    pub const SERVICE_EVENT: u32 = 69;
    pub const GPU_MEM_TOTAL_EVENT: u32 = 71;
    pub const INITIAL_DISPLAY_STATE: u32 = 70;
    pub const FRAME_TIMELINE_EVENT: u32 = 76;
    pub const TRUSTED_PID: u32 = 79;
    pub const ANDROID_SYSTEM_PROPERTY: u32 = 86;
    pub const FIRST_PACKET_ON_SEQUENCE: u32 = 87;
    pub const MACHINE_ID: u32 = 98;
    pub const GPU_INFO: u32 = 128;
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
    pub const SCHED_BLOCKED_REASON: u32 = 18;
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
    // Kernel slices, clocks and memory (import::ftrace::{kernel_slices, clock_events, memory, drm}).
    pub const CLOCK_ENABLE: u32 = 14;
    pub const CLOCK_DISABLE: u32 = 15;
    pub const CLOCK_SET_RATE: u32 = 16;
    pub const MM_VMSCAN_DIRECT_RECLAIM_BEGIN: u32 = 46;
    pub const MM_VMSCAN_DIRECT_RECLAIM_END: u32 = 47;
    pub const RSS_STAT: u32 = 313;
    pub const ION_HEAP_SHRINK: u32 = 314;
    pub const ION_HEAP_GROW: u32 = 315;
    pub const SIGNAL_DELIVER: u32 = 324;
    pub const SIGNAL_GENERATE: u32 = 325;
    pub const OOM_SCORE_ADJ_UPDATE: u32 = 326;
    pub const MM_EVENT_RECORD: u32 = 328;
    pub const ZERO: u32 = 331;
    pub const MARK_VICTIM: u32 = 334;
    pub const ION_STAT: u32 = 335;
    pub const SCM_CALL_START: u32 = 338;
    pub const SCM_CALL_END: u32 = 339;
    pub const DMA_HEAP_STAT: u32 = 351;
    pub const RSS_STAT_THROTTLED: u32 = 359;
    pub const DRM_VBLANK_EVENT: u32 = 409;
    pub const DRM_VBLANK_EVENT_DELIVERED: u32 = 410;
    pub const DMA_FENCE_INIT: u32 = 414;
    pub const DMA_FENCE_EMIT: u32 = 415;
    pub const DMA_FENCE_SIGNALED: u32 = 416;
    pub const DMA_FENCE_WAIT_START: u32 = 417;
    pub const DMA_FENCE_WAIT_END: u32 = 418;
    pub const LWIS_TRACING_MARK_WRITE: u32 = 467;
    pub const SAMSUNG_TRACING_MARK_WRITE: u32 = 484;
    pub const PANEL_WRITE_GENERIC: u32 = 490;
    pub const SOFTIRQ_ENTRY: u32 = 24;
    pub const SOFTIRQ_EXIT: u32 = 25;
    pub const IRQ_HANDLER_ENTRY: u32 = 36;
    pub const IRQ_HANDLER_EXIT: u32 = 37;
    pub const DCVSH_FREQ: u32 = 508;
    pub const KGSL_GPU_FREQUENCY: u32 = 509;
    pub const MALI_GPU_POWER_STATE: u32 = 548;
    pub const DEVFREQ_FREQUENCY: u32 = 541;
    pub const DMABUF_RSS_STAT: u32 = 579;
    pub const MM_VMSCAN_MEMCG_RECLAIM_BEGIN: u32 = 607;
    pub const MM_VMSCAN_MEMCG_RECLAIM_END: u32 = 608;
    // Binder driver events (import::ftrace::binder).
    pub const BINDER_TRANSACTION: u32 = 50;
    pub const BINDER_TRANSACTION_RECEIVED: u32 = 51;
    pub const BINDER_LOCK: u32 = 53;
    pub const BINDER_LOCKED: u32 = 54;
    pub const BINDER_UNLOCK: u32 = 55;
    pub const BINDER_TRANSACTION_ALLOC_BUF: u32 = 323;
    pub const BINDER_COMMAND: u32 = 485;
    pub const BINDER_RETURN: u32 = 486;

    /// Not a kernel event: the tokenizer appends this field (in protobuf's reserved range
    /// 19000-19999, so no FtraceEvent field can clash) to a sched_blocked_reason event whose
    /// caller iid names an interned kernel symbol; its value is the symbol's interned StrId.
    pub const RESOLVED_CALLER: u32 = 19_000;
}
