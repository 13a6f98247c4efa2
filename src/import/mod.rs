//! Importers: one module per data source, each a small state machine fed with
//! timestamp-ordered events, writing into the [`Store`].

pub mod android_props;
pub mod build_info;
pub mod counter_tracks;
pub mod forecast;
pub mod frame_timeline;
pub mod ftrace;
pub mod ftrace_stats;
pub mod gpu_mem;
pub mod gpus;
pub mod graphics_frame;
pub mod pipeline;
pub mod power;
pub mod process_memory;
pub mod process_tree;
pub mod sys_stats;
pub mod system_info;
pub mod trace_config;
pub mod trace_stats;
pub mod track_event;

use std::io::IsTerminal;
use std::path::Path;
use std::time::Instant;

use crate::protos;
use crate::store::prefault::RowForecast;
use crate::store::processes::ProcessTracker;
use crate::store::slices::SliceTracker;
use crate::store::strings::StrId;
use crate::store::track_compressor::TrackCompressor;
use crate::store::tracks::TrackTracker;
use crate::store::{MetaValue, Store, TrackRow};
use crate::trace::fields as f;
use crate::trace::ftrace_ids as fid;
use crate::trace::limits::{self, Budget};
use crate::trace::reader::{PacketReader, ReadError, TraceSource};
use crate::trace::sort::{CompactSwitch, CompactWaking, EventSink, PacketEvent, TrackEventMeta};
use crate::trace::tokenizer::{Tokenizer, TokenizerHost, Wanted};

/// Which data sources to import. A command asks only for what it needs; skipped data costs
/// only the time to step over it.
#[derive(Debug, Clone, Copy)]
pub struct LoadOptions {
    /// sched_switch / sched_waking / compact_sched (the `sched` table, thread states).
    pub sched: bool,
    /// Process lifecycle ftrace events (task_newtask, task_rename, sched_process_free, ...).
    pub process_events: bool,
    /// atrace (`print` and vendor tracing_mark_write) slices, instants and counters, and
    /// the binder transaction slices that nest with them.
    pub atrace: bool,
    /// Kernel counters: cpu_frequency, cpu_frequency_limits, sched_cpu_util_cfs, clocks,
    /// devfreq, memory (rss_stat, oom_score_adj, ion, mm_event), ...
    pub kernel_counters: bool,
    /// Only the CPU counters among the kernel ones: cpu_frequency, for the CPU contention of
    /// frame causes.
    pub cpu_counters: bool,
    /// Kernel slices: scm calls, reclaim, signals, DMA fences, vblanks, interrupts (the
    /// thread ones nest with atrace slices on thread tracks).
    pub kernel_slices: bool,
    pub frame_timeline: bool,
    /// Give FrameTimeline slices their args (tokens, layer, present and jank types), as
    /// trace_processor does. The same values are the `frame_timeline` columns the analysis
    /// reads; the args only serve SQL over the `args` table.
    pub frame_timeline_args: bool,
    /// Give binder slices their args (transaction id, destination, flags, code, sizes), as
    /// trace_processor does. Analysis joins calls to replies by their flows and never
    /// reads these; writing them (kept per open slice, merged, deduplicated) was about a
    /// twentieth of the importers' thread on x60 `analyze` (docs/speed.md).
    pub binder_args: bool,
    pub graphics_frames: bool,
    pub process_tree: bool,
    pub system_properties: bool,
    /// Polled system counters: sys_stats, battery, power rails, GPU memory.
    pub system_counters: bool,
    /// TrackEvents and their Track / Thread / Process descriptors (Perfetto SDK,
    /// androidx.tracing, Chromium).
    pub track_events: bool,
    /// Build the `thread_state` table from sched and waking events.
    pub thread_state: bool,
    /// Keep the `sched` table's rows. Without them only their count and extent are kept
    /// (`Store::sched_not_kept`): analyze reads CPU occupancy from the Running thread states.
    pub sched_rows: bool,
    /// Keep only the counter rows on the tracks this accepts, judged by each track as the
    /// load ends; the others leave their count and extent (`Store::counters_not_kept`).
    /// `None` keeps them all.
    pub counter_tracks: Option<fn(&Store, &TrackRow) -> bool>,
    /// Mirror trace_processor's `ingest_ftrace_in_raw_table` (on in trace_processor_shell and
    /// the UI, off by default in its Python API): filing an ftrace event in its raw table
    /// creates the emitting thread even when no parser uses the event. frameprobe keeps no
    /// raw table, only that side effect, for the events it decodes.
    pub ftrace_raw: bool,
    /// Run the importers on a second thread for a trace of at least this many bytes
    /// (`pipeline::Threads`); None keeps them on the loading thread.
    pub two_threads_from: Option<u64>,
    /// Show a progress bar on standard error when it is a terminal.
    pub progress: bool,
}

impl LoadOptions {
    pub fn all() -> Self {
        LoadOptions {
            sched: true,
            process_events: true,
            atrace: true,
            kernel_counters: true,
            cpu_counters: true,
            kernel_slices: true,
            frame_timeline: true,
            frame_timeline_args: true,
            binder_args: true,
            graphics_frames: true,
            process_tree: true,
            system_properties: true,
            system_counters: true,
            track_events: true,
            thread_state: true,
            sched_rows: true,
            counter_tracks: None,
            ftrace_raw: true,
            two_threads_from: Some(pipeline::TWO_THREADS_FROM),
            progress: true,
        }
    }

    fn wanted(&self) -> Wanted {
        let mut ftrace = Vec::new();
        let mut packets = Vec::new();
        if self.sched {
            ftrace.extend([
                fid::SCHED_SWITCH,
                fid::SCHED_WAKING,
                fid::SCHED_WAKEUP,
                fid::SCHED_WAKEUP_NEW,
                fid::SCHED_BLOCKED_REASON,
            ]);
        }
        if self.process_events || self.sched {
            ftrace.extend([
                fid::TASK_NEWTASK,
                fid::TASK_RENAME,
                fid::SCHED_PROCESS_FREE,
                fid::SCHED_PROCESS_EXIT,
                fid::LOWMEMORY_KILL,
            ]);
        }
        if self.atrace {
            ftrace.extend([
                fid::PRINT,
                fid::TRACING_MARK_WRITE,
                fid::SDE_TRACING_MARK_WRITE,
                fid::DPU_TRACING_MARK_WRITE,
                fid::G2D_TRACING_MARK_WRITE,
                fid::MALI_TRACING_MARK_WRITE,
                fid::SAMSUNG_TRACING_MARK_WRITE,
                fid::LWIS_TRACING_MARK_WRITE,
                fid::PANEL_WRITE_GENERIC,
                fid::ZERO,
                fid::SYS_ENTER,
                fid::SYS_EXIT,
            ]);
            // Binder slices share the thread slice stacks: atrace depths need them.
            ftrace.extend([
                fid::BINDER_TRANSACTION,
                fid::BINDER_TRANSACTION_RECEIVED,
                fid::BINDER_TRANSACTION_ALLOC_BUF,
                fid::BINDER_COMMAND,
                fid::BINDER_RETURN,
                fid::BINDER_LOCK,
                fid::BINDER_LOCKED,
                fid::BINDER_UNLOCK,
            ]);
            packets.push(f::INITIAL_DISPLAY_STATE);
        }
        if self.cpu_counters && !self.kernel_counters {
            ftrace.extend([fid::CPU_FREQUENCY]);
        }
        if self.kernel_counters {
            ftrace.extend([
                fid::CPU_FREQUENCY,
                fid::CPU_FREQUENCY_LIMITS,
                fid::CPU_IDLE,
                fid::GPU_FREQUENCY,
                fid::SCHED_CPU_UTIL_CFS,
                fid::CLOCK_ENABLE,
                fid::CLOCK_DISABLE,
                fid::CLOCK_SET_RATE,
                fid::DEVFREQ_FREQUENCY,
                fid::DCVSH_FREQ,
                fid::KGSL_GPU_FREQUENCY,
                fid::MALI_GPU_POWER_STATE,
                fid::RSS_STAT,
                fid::RSS_STAT_THROTTLED,
                fid::DMABUF_RSS_STAT,
                fid::OOM_SCORE_ADJ_UPDATE,
                fid::MM_EVENT_RECORD,
                fid::ION_HEAP_GROW,
                fid::ION_HEAP_SHRINK,
                fid::ION_STAT,
                fid::DMA_HEAP_STAT,
            ]);
        }
        if self.kernel_slices {
            ftrace.extend([
                fid::SCM_CALL_START,
                fid::SCM_CALL_END,
                fid::MM_VMSCAN_DIRECT_RECLAIM_BEGIN,
                fid::MM_VMSCAN_DIRECT_RECLAIM_END,
                fid::MM_VMSCAN_MEMCG_RECLAIM_BEGIN,
                fid::MM_VMSCAN_MEMCG_RECLAIM_END,
                fid::SIGNAL_GENERATE,
                fid::SIGNAL_DELIVER,
                fid::MARK_VICTIM,
                fid::DMA_FENCE_INIT,
                fid::DMA_FENCE_EMIT,
                fid::DMA_FENCE_SIGNALED,
                fid::DMA_FENCE_WAIT_START,
                fid::DMA_FENCE_WAIT_END,
                fid::DRM_VBLANK_EVENT,
                fid::DRM_VBLANK_EVENT_DELIVERED,
                fid::IRQ_HANDLER_ENTRY,
                fid::IRQ_HANDLER_EXIT,
                fid::SOFTIRQ_ENTRY,
                fid::SOFTIRQ_EXIT,
            ]);
        }
        if self.frame_timeline {
            packets.push(f::FRAME_TIMELINE_EVENT);
        }
        if self.graphics_frames {
            packets.push(f::GRAPHICS_FRAME_EVENT);
        }
        if self.process_tree {
            packets.extend([f::PROCESS_TREE, f::PROCESS_STATS]);
        }
        if self.system_properties {
            packets.extend([f::ANDROID_SYSTEM_PROPERTY, f::INITIAL_DISPLAY_STATE]);
        }
        if self.system_counters {
            packets.extend([
                f::SYS_STATS,
                f::BATTERY,
                f::POWER_RAILS,
                f::GPU_MEM_TOTAL_EVENT,
            ]);
        }
        if self.track_events {
            packets.extend([
                f::TRACK_EVENT,
                f::TRACK_DESCRIPTOR,
                f::THREAD_DESCRIPTOR,
                f::PROCESS_DESCRIPTOR,
            ]);
        }
        Wanted {
            ftrace,
            compact_sched: self.sched,
            packets,
        }
    }
}

/// Shared state every importer writes through.
pub struct Ctx {
    pub store: Store,
    pub procs: ProcessTracker,
    pub tracks: TrackTracker,
    pub slices: SliceTracker,
    pub compressor: TrackCompressor,
    pub gpus: gpus::GpuIds,
    /// The store's id of each name the tokenizer gave an id of its own
    /// (`TokenizerHost::name`), by that id.
    pub tokenizer_names: Vec<StrId>,
}

impl Ctx {
    pub fn new() -> Self {
        let mut store = Store::default();
        let procs = ProcessTracker::new(&mut store);
        Ctx {
            store,
            procs,
            tracks: TrackTracker::default(),
            slices: SliceTracker::default(),
            compressor: TrackCompressor::default(),
            gpus: Default::default(),
            tokenizer_names: Vec::new(),
        }
    }
}

impl Ctx {
    /// The store's id of a name the tokenizer put in an event; None for an id it never gave.
    pub fn tokenizer_name(&self, id: StrId) -> Option<StrId> {
        self.tokenizer_names.get(id.index() as usize).copied()
    }
}

impl Default for Ctx {
    fn default() -> Self {
        Self::new()
    }
}

/// Receives sorted events and routes them to the importer of their data source.
pub struct Importer {
    pub ctx: Ctx,
    pub ftrace: ftrace::FtraceParser,
    pub frame_timeline: frame_timeline::FrameTimelineImporter,
    pub graphics: graphics_frame::GraphicsFrameImporter,
    pub process_tree: process_tree::ProcessTreeImporter,
    pub props: android_props::AndroidPropsImporter,
    pub sys_stats: sys_stats::SysStatsImporter,
    pub power: power::PowerImporter,
    pub track_event: track_event::TrackEventImporter,
}

impl Importer {
    pub fn new() -> Self {
        let mut ctx = Ctx::new();
        let ftrace = ftrace::FtraceParser::new(&mut ctx);
        Importer {
            ctx,
            ftrace,
            frame_timeline: Default::default(),
            graphics: Default::default(),
            process_tree: Default::default(),
            props: Default::default(),
            sys_stats: Default::default(),
            power: Default::default(),
            track_event: Default::default(),
        }
    }
}

impl Default for Importer {
    fn default() -> Self {
        Self::new()
    }
}

impl Importer {
    /// Takes a forecast of the largest tables (`store::prefault`), but not for a table this
    /// load does not build: `query` without `thread_state` would fault its pages in for
    /// nothing.
    fn expect_rows(&mut self, mut rows: RowForecast) {
        if self.ftrace.sched.skip_thread_states {
            rows.thread_states = 0;
        }
        self.ctx.store.ahead.expect(rows);
    }

    /// A print event's atrace record, read on the loading thread.
    fn atrace_print(&mut self, ts: i64, pid: u32, rec: ftrace::atrace::Record<'_>) {
        self.ftrace.atrace_print(&mut self.ctx, ts, pid, rec);
    }

    fn atrace_named(&mut self, ts: i64, pid: u32, rec: ftrace::atrace::Named) {
        self.ftrace.atrace_named(&mut self.ctx, ts, pid, rec);
    }
}

impl EventSink for Importer {
    fn ftrace(&mut self, ts: i64, cpu: u32, event: &[u8]) {
        self.ftrace.event(&mut self.ctx, ts, cpu, event);
    }
    fn print(&mut self, ts: i64, pid: u32, print: &[u8]) {
        self.ftrace.print(&mut self.ctx, ts, pid, print);
    }
    fn compact_switch(&mut self, ts: i64, cpu: u32, e: &CompactSwitch) {
        self.ftrace.compact_switch(&mut self.ctx, ts, cpu, e);
    }
    fn compact_waking(&mut self, ts: i64, cpu: u32, e: &CompactWaking) {
        self.ftrace.compact_waking(&mut self.ctx, ts, cpu, e);
    }
    fn packet(&mut self, ts: i64, e: &PacketEvent, payload: &[u8]) {
        let ctx = &mut self.ctx;
        match e.field {
            f::FRAME_TIMELINE_EVENT => self.frame_timeline.event(ctx, ts, payload),
            f::GRAPHICS_FRAME_EVENT => self.graphics.event(ctx, ts, payload, e.machine_id),
            f::PROCESS_TREE => self.process_tree.process_tree(ctx, ts, payload),
            f::PROCESS_STATS => {
                process_memory::chrome_process_stats(ctx, ts, payload);
                self.process_tree.process_stats(ctx, ts, payload)
            }
            f::ANDROID_SYSTEM_PROPERTY => self.props.system_property(ctx, ts, payload),
            f::INITIAL_DISPLAY_STATE => self.props.initial_display_state(ctx, ts, payload),
            f::SYS_STATS => self.sys_stats.sys_stats(ctx, ts, payload),
            f::BATTERY => self.power.battery(ctx, ts, payload),
            f::POWER_RAILS => self.power.energy(ctx, ts, payload),
            f::GPU_MEM_TOTAL_EVENT => gpu_mem::gpu_mem_total(ctx, ts, payload),
            f::TRACK_DESCRIPTOR | f::THREAD_DESCRIPTOR | f::PROCESS_DESCRIPTOR => {
                self.track_event.descriptor(ctx, ts, e.field, payload)
            }
            _ => {}
        }
    }
    fn track_event(&mut self, ts: i64, meta: &TrackEventMeta, payload: &[u8]) {
        self.track_event.event(&mut self.ctx, ts, meta, payload);
    }
    fn out_of_order(&mut self) {
        self.ctx.store.stat(
            "sorter_push_event_out_of_order",
            crate::store::Severity::DataLoss,
            "An event arrived after later events had been processed and was dropped.",
        );
    }
}

impl Importer {
    /// SystemInfo, read while tokenizing: build, kernel and device metadata.
    fn system_info(&mut self, info: &protos::SystemInfo) {
        let s = &mut self.ctx.store;
        let fingerprint = info.android_build_fingerprint.as_deref();
        self.props
            .build
            .system_info(s, info.android_sdk_version, fingerprint);
        if let Some(u) = &info.utsname {
            if let Some(m) = &u.machine {
                s.set_metadata("system_machine", MetaValue::Str(m.clone()));
                self.ftrace.set_arch(m);
            }
            if let Some(r) = &u.release {
                s.set_metadata("system_release", MetaValue::Str(r.clone()));
            }
            self.ftrace.set_kernel_version(
                u.sysname.as_deref().unwrap_or(""),
                u.release.as_deref().unwrap_or(""),
            );
        }
        if let Some(v) = &info.tracing_service_version {
            s.set_metadata("tracing_service_version", MetaValue::Str(v.clone()));
        }
        system_info::device_metadata(s, info);
        self.sys_stats.set_page_size(info.page_size);
    }
}

/// The result of loading a trace: the store, plus what went wrong along the way.
pub struct Loaded {
    pub store: Store,
    /// Problems that did not stop the import (truncation, corruption after a good prefix).
    pub warnings: Vec<String>,
    pub bytes_read: u64,
    pub packets: u64,
}

/// Reads a whole trace (a path, or `-` for standard input) into a [`Store`].
/// Unreadable input is an error; damage after a good prefix is a warning.
pub fn load(path: &Path, opts: LoadOptions) -> Result<Loaded, ReadError> {
    let src = TraceSource::open(path)?;
    load_source(src, opts)
}

pub fn load_source(src: TraceSource, opts: LoadOptions) -> Result<Loaded, ReadError> {
    let threads = pipeline::Threads::for_size(src.size, opts.two_threads_from);
    load_source_with(src, opts, threads, pipeline::BatchSize::default())
}

/// [`load_source`] with the importers on `threads`, handed batches of `size`.
pub fn load_source_with(
    src: TraceSource,
    opts: LoadOptions,
    threads: pipeline::Threads,
    size: pipeline::BatchSize,
) -> Result<Loaded, ReadError> {
    let mut reader = PacketReader::new(src);
    let mut tok = Tokenizer::new(opts.wanted());
    let mut imp = Importer::new();
    imp.ftrace.sched.skip_thread_states = !opts.thread_state;
    imp.ftrace.sched.skip_sched_rows = !opts.sched_rows;
    imp.ftrace.raw_threads = opts.ftrace_raw;
    imp.frame_timeline.skip_args = !opts.frame_timeline_args;
    imp.ftrace.binder.skip_args = !opts.binder_args;
    let mut warnings = Vec::new();
    let progress = opts.progress && std::io::stderr().is_terminal();
    let started = Instant::now();
    // One budget for every decompressed byte: a gzip / zstd file's own stream and the
    // compressed_packets blobs inside it.
    tok.budget = Budget::new(limits::default_budget(reader.source_size()));
    let (mut imp, packets) = pipeline::run(imp, threads, size, |host| {
        let packets = read_packets(&mut reader, &mut tok, host, &mut warnings, progress)?;
        tok.finish(host);
        Ok(packets)
    });
    let packets = packets?;
    imp.finish();
    if let Some(keep) = opts.counter_tracks {
        imp.ctx.store.keep_counter_rows(keep);
    }
    warnings.splice(0..0, std::mem::take(&mut tok.warnings));
    if progress && started.elapsed().as_millis() > 200 {
        eprint!("\r\x1b[K");
    }
    Ok(Loaded {
        store: imp.ctx.store,
        warnings,
        bytes_read: reader.offset(),
        packets,
    })
}

/// Tokenizes every packet the reader gives; damage after the first packet ends the reading
/// with a warning, and the packets before it are kept. Returns how many were read.
fn read_packets(
    reader: &mut PacketReader,
    tok: &mut Tokenizer,
    host: &mut dyn TokenizerHost,
    warnings: &mut Vec<String>,
    progress: bool,
) -> Result<u64, ReadError> {
    let total = reader.source_size();
    let mut forecast = forecast::Forecaster::new(total, reader.decompressing());
    let mut last_report = Instant::now();
    let mut packets = 0u64;
    loop {
        let before = reader.offset();
        reader.set_stop_at(before.saturating_add(tok.budget.remaining()));
        let decompressing = reader.decompressing();
        match reader.next_packet() {
            Ok(Some(p)) => {
                packets += 1;
                if decompressing {
                    tok.budget.charge(p.end - before);
                }
                let (bytes, offset) = (p.bytes, p.offset);
                tok.packet(bytes, offset, host);
                if let Some(f) = forecast.as_mut() {
                    if let Some(rows) = f.at(reader.offset(), &tok.sorter.pushed) {
                        host.forecast_rows(rows);
                    }
                }
            }
            Ok(None) if packets == 0 => {
                return Err(ReadError::NoPackets {
                    bytes: reader.offset(),
                })
            }
            Ok(None) => break,
            Err(e) if packets == 0 => return Err(e),
            Err(e) => {
                if let Some(off) = e.offset() {
                    host.set_metadata("trace_damaged_at_offset", MetaValue::Int(off as i64));
                }
                if matches!(e, ReadError::BudgetExhausted { .. }) {
                    host.stat(
                        limits::BUDGET_STAT,
                        crate::store::Severity::DataLoss,
                        limits::BUDGET_STAT_DESCRIPTION,
                    );
                } else {
                    host.stat(
                        "trace_truncated_or_corrupt",
                        crate::store::Severity::DataLoss,
                        "The trace ended in the middle of a packet or was corrupt; everything after the damage was ignored.",
                    );
                }
                warnings.push(format!(
                    "{e}; imported the {packets} complete packets before it"
                ));
                break;
            }
        }
        if progress && last_report.elapsed().as_millis() > 200 {
            last_report = Instant::now();
            let done = reader.offset();
            match total {
                Some(t) if t > 0 => eprint!(
                    "\rloading {}: {:5.1}% ({} MB)",
                    reader.source_name(),
                    done as f64 * 100.0 / t as f64,
                    done >> 20
                ),
                _ => eprint!("\rloading {}: {} MB", reader.source_name(), done >> 20),
            }
        }
    }
    Ok(packets)
}

impl Importer {
    /// End-of-trace work of each importer (e.g. closing what is still open).
    fn finish(&mut self) {
        self.ftrace.finish(&mut self.ctx);
        self.frame_timeline.finish(&mut self.ctx);
        self.graphics.finish(&mut self.ctx);
        self.props.build.finish(&mut self.ctx.store);
        self.ctx.procs.flush_args(&mut self.ctx.store);
    }
}
