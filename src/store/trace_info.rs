//! Facts about the recording itself that trace_processor keeps outside its tables (or in
//! its import logs): which packet kinds the trace holds, what the trace config asked for,
//! ftrace setup errors and the GPUs named by a GpuInfo packet. `doctor` and the trust grade
//! read them; nothing here reaches SQL.

use std::collections::BTreeMap;

/// What the TraceConfig packet asked for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConfigInfo {
    /// `data_sources.config.name`, in config order.
    pub data_sources: Vec<String>,
    pub ftrace_events: Vec<String>,
    pub atrace_categories: Vec<String>,
    pub atrace_apps: Vec<String>,
    /// Each buffer's size (KiB) and fill policy ("RING_BUFFER" / "DISCARD").
    pub buffers: Vec<(u32, &'static str)>,
    pub duration_ms: Option<u32>,
}

#[derive(Debug, Clone, Default)]
pub struct TraceInfo {
    /// Top-level packets by TracePacket field number of their payload (0: no payload).
    /// Packets inside compressed packets are counted, not their container.
    pub packet_kinds: BTreeMap<u32, u64>,
    pub config: Option<ConfigInfo>,
    /// FtraceStats setup errors: failed / unknown ftrace events, atrace failures.
    pub ftrace_setup_errors: Vec<String>,
    /// GpuInfo names, vendors and models.
    pub gpus: Vec<String>,
    /// CpuInfo, one entry per CPU in packet order (the CPU number): its sysfs capacity and
    /// highest available frequency (kHz), for the CPU's cluster.
    pub cpus: Vec<CpuDescription>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CpuDescription {
    pub capacity: Option<u32>,
    pub max_freq_khz: Option<u32>,
}

impl TraceInfo {
    pub fn count_packet(&mut self, kind: u32) {
        *self.packet_kinds.entry(kind).or_default() += 1;
    }

    pub fn packets_of(&self, kind: u32) -> u64 {
        self.packet_kinds.get(&kind).copied().unwrap_or(0)
    }
}
