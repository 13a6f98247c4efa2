//! atrace: `print` events and the vendor `*_tracing_mark_write` events carrying
//! `B|pid|name`, `E|pid`, `S|pid|name|cookie`, `F|...`, `I|...`, `N|...`, `G|...`, `H|...`,
//! `C|pid|name|value` records, turned into slices, instants, async slices and counters
//! (trace_processor's systrace parser), plus `sys_enter`/`sys_exit` as `sys_*` slices.

pub mod record;
mod syscalls;

use std::borrow::Cow;

pub use self::record::{Parsed, Record};
use crate::import::android_props::{
    battery_stats_track, device_state_track, push_counter, screen_state_track,
};
use crate::import::Ctx;
use crate::store::args::{ArgSetId, ArgValue};
use crate::store::strings::StrId;
use crate::store::tracks::TrackSpec;
use crate::store::{EventType, Severity, SliceId, Store, TrackId, TrackScope, Upid, Utid};
use crate::trace::ftrace_ids as fid;
use crate::trace::wire::{Fields, PackedVarints, Value};

/// trace_processor's syscall table size: numbers at or above it are ignored.
const MAX_SYSCALLS: usize = 550;
const NO_TRACK: TrackId = TrackId::MAX;

/// (flat_key, key, value) of an arg waiting for its slice to end.
type PendingArg = (StrId, StrId, ArgValue);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Arch {
    #[default]
    Unknown,
    Arm64,
    Arm32,
    X86_64,
    X86,
}

impl Arch {
    fn from_machine(machine: &str) -> Arch {
        match machine {
            "aarch64" => Arch::Arm64,
            "armv8l" | "armv7l" => Arch::Arm32,
            "x86_64" => Arch::X86_64,
            "i686" => Arch::X86,
            _ => Arch::Unknown,
        }
    }

    fn table(self) -> &'static [&'static str] {
        match self {
            Arch::Unknown => &[],
            Arch::Arm64 => syscalls::ARM64,
            Arch::Arm32 => syscalls::ARM32,
            Arch::X86_64 => syscalls::X86_64,
            Arch::X86 => syscalls::X86,
        }
    }
}

/// Interned names used on every event, looked up once.
#[derive(Clone, Copy)]
struct Keys {
    cookie: StrId,
    utid: StrId,
    end_utid: StrId,
    ret: StrId,
    args: StrId,
    begin_count: StrId,
    last_begin_ts: StrId,
    mem_lmk: StrId,
}

impl Keys {
    fn new(store: &mut Store) -> Keys {
        Keys {
            cookie: store.intern("cookie"),
            utid: store.intern("utid"),
            end_utid: store.intern("end_utid"),
            ret: store.intern("ret"),
            args: store.intern("args"),
            begin_count: store.intern("legacy_unnestable_begin_count"),
            last_begin_ts: store.intern("legacy_unnestable_last_begin_ts"),
            mem_lmk: store.intern("mem.lmk"),
        }
    }
}

/// Per-track state of an `S`/`F` track: begins are counted even when they do not open a
/// slice, and the count is reported on the slice when it ends.
#[derive(Default, Clone, Copy)]
struct Legacy {
    begin_count: i64,
    last_begin_ts: i64,
}

/// Syscall names of the trace's architecture, interned on first use.
#[derive(Default)]
struct Syscalls {
    names: Vec<StrId>,
    write: Option<StrId>,
    rt_sigreturn: Option<StrId>,
}

impl Syscalls {
    fn build(store: &mut Store, arch: Arch) -> Syscalls {
        let table = arch.table();
        let mut s = Syscalls::default();
        for i in 0..MAX_SYSCALLS {
            let id = match table.get(i).filter(|n| !n.is_empty()) {
                Some(n) => store.intern(n),
                None => store.intern(&format!("sys_{i}")),
            };
            match table.get(i).copied() {
                Some("sys_write") => s.write = Some(id),
                Some("sys_rt_sigreturn") => s.rt_sigreturn = Some(id),
                _ => {}
            }
            s.names.push(id);
        }
        s
    }
}

#[derive(Default)]
pub struct AtraceParser {
    arch: Arch,
    syscalls: Option<Syscalls>,
    keys: Option<Keys>,
    /// utid -> its thread track (NO_TRACK until first used).
    thread_tracks: Vec<TrackId>,
    /// utid -> inside a sys_write that an atrace record may have to cut short.
    in_sys_write: Vec<bool>,
    /// Whether any sys_write has begun: until one has, a print has none to cut short and
    /// skips the thread lookup that check needs (traces without syscall events never do).
    any_sys_write: bool,
    counter_tracks: rustc_hash::FxHashMap<(Upid, StrId), TrackId>,
    /// utid -> the `{utid}` arg set counters carry.
    utid_arg_sets: Vec<Option<ArgSetId>>,
    legacy: rustc_hash::FxHashMap<TrackId, Legacy>,
    /// Args of open slices; written when the slice ends (or at the end of the trace), so
    /// that args given at the end join those given at the start in one set.
    pending_args: rustc_hash::FxHashMap<SliceId, Vec<PendingArg>>,
    sys_arg_keys: Vec<StrId>,
}

fn parse_failure(store: &mut Store) {
    store.stat(
        "systrace_parse_failure",
        Severity::Error,
        "An atrace (print / tracing_mark_write) record could not be parsed and was ignored.",
    );
}

/// A print event's slice begin or end, read from its buf without the importers' state (for
/// the loading thread), and its counter too when `counters` is set: only a caller that hands
/// counters on read asks for them (a counter read and then left to the importers would be
/// parsed twice). None for anything else, invalid UTF-8 included: those take
/// [`AtraceParser::print`]'s path, which repairs the text and counts failures.
pub fn read_print(buf: &[u8], counters: bool) -> Option<Record<'_>> {
    // A record's phase is its first byte: the rest are left unread here.
    match buf.first() {
        Some(b'B' | b'E') => {}
        Some(b'C') if counters => {}
        _ => return None,
    }
    let text = crate::trace::wire::utf8(buf).ok()?;
    match record::parse(text) {
        Parsed::Record(
            r @ (Record::Begin { .. } | Record::End { .. } | Record::Counter { .. }),
        ) => Some(r),
        _ => None,
    }
}

/// The text of a print buffer as trace_processor sees it: valid UTF-8 as is, otherwise
/// with every malformed sequence removed.
fn print_text(buf: &[u8]) -> Cow<'_, str> {
    match crate::trace::wire::utf8(buf) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => Cow::Owned(strip_invalid_utf8(buf)),
    }
}

/// trace_processor's repair of non-UTF-8 prints: a sequence whose lead byte announces n
/// bytes is dropped whole (n bytes) when it is overlong, a surrogate, out of range or has
/// a bad continuation byte; a stray byte, or a sequence cut by the end, drops one byte.
fn strip_invalid_utf8(buf: &[u8]) -> String {
    let mut out = Vec::with_capacity(buf.len());
    let mut i = 0;
    while i < buf.len() {
        let c = buf[i];
        let len = match c {
            0x00..=0x7f => 1,
            _ if c & 0xe0 == 0xc0 => 2,
            _ if c & 0xf0 == 0xe0 => 3,
            _ if c & 0xf8 == 0xf0 => 4,
            _ => 0,
        };
        let (keep, step) = match buf.get(i..i + len.max(1)) {
            _ if len == 0 => (false, 1),
            None => (false, 1),
            Some(seq) => (utf8_sequence_ok(seq), len),
        };
        if keep {
            out.extend_from_slice(&buf[i..i + step]);
        }
        i += step;
    }
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

fn utf8_sequence_ok(seq: &[u8]) -> bool {
    let (c, rest) = (seq[0], &seq[1..]);
    let b2 = rest.first().copied().unwrap_or(0x80);
    let bad_start = match seq.len() {
        2 => c < 0xc2,
        3 => (c == 0xe0 && b2 < 0xa0) || (c == 0xed && b2 >= 0xa0),
        4 => (c == 0xf0 && b2 < 0x90) || (c == 0xf4 && b2 > 0x8f),
        _ => false,
    };
    !bad_start && rest.iter().all(|&b| b & 0xc0 == 0x80)
}

/// The fields of a vendor tracing_mark_write event that the atrace mapping needs.
struct KernelMark<'a> {
    tgid: u32,
    name: &'a [u8],
    /// The type field as sent; a kernel char, so only its low byte is the phase
    /// (B/E/C/I, or 0 when the event only has a begin flag).
    raw_type: u32,
    has_trace_type: bool,
    trace_begin: Option<bool>,
    value: i64,
}

impl<'a> KernelMark<'a> {
    /// Field numbers per event: (pid, name, type, value, trace_begin); 0 where the event
    /// has no such field (0 is never a valid field number), or where trace_processor
    /// ignores it (samsung's trace_begin).
    fn layout(event_id: u32) -> Option<[u32; 5]> {
        Some(match event_id {
            fid::TRACING_MARK_WRITE => [1, 2, 0, 0, 3],
            fid::SDE_TRACING_MARK_WRITE => [1, 2, 3, 4, 5],
            fid::DPU_TRACING_MARK_WRITE => [1, 4, 5, 6, 0],
            fid::G2D_TRACING_MARK_WRITE => [1, 4, 5, 6, 0],
            fid::MALI_TRACING_MARK_WRITE => [2, 1, 3, 4, 0],
            fid::SAMSUNG_TRACING_MARK_WRITE => [1, 2, 4, 5, 0],
            fid::LWIS_TRACING_MARK_WRITE => [3, 4, 2, 5, 0],
            fid::PANEL_WRITE_GENERIC => [1, 4, 5, 6, 0],
            _ => return None,
        })
    }

    /// The value is an int64 in these events, an int32 in the others.
    fn wide_value(event_id: u32) -> bool {
        event_id == fid::LWIS_TRACING_MARK_WRITE
    }

    fn decode(event_id: u32, data: &'a [u8]) -> Option<KernelMark<'a>> {
        let [pid_f, name_f, type_f, value_f, begin_f] = Self::layout(event_id)?;
        let mut m = KernelMark {
            tgid: 0,
            name: &[],
            raw_type: 0,
            has_trace_type: false,
            trace_begin: None,
            value: 0,
        };
        for (id, v) in Fields::new(data).map_while(Result::ok) {
            if id == pid_f {
                // int32 on the wire, reinterpreted as unsigned like trace_processor does.
                m.tgid = v.as_i32() as u32;
            } else if id == name_f {
                m.name = v.as_bytes();
            } else if id == type_f {
                m.raw_type = v.as_u32();
                m.has_trace_type = true;
            } else if id == value_f {
                m.value = if Self::wide_value(event_id) {
                    v.as_i64()
                } else {
                    v.as_i32() as i64
                };
            } else if id == begin_f {
                m.trace_begin = Some(v.as_u32() != 0);
            }
        }
        Some(m)
    }
}

impl AtraceParser {
    pub fn set_arch(&mut self, machine: &str) {
        // Like trace_processor, an unknown machine keeps the table in use.
        let arch = Arch::from_machine(machine);
        if arch != Arch::Unknown && arch != self.arch {
            self.arch = arch;
            self.syscalls = None;
        }
    }

    fn keys(&mut self, store: &mut Store) -> Keys {
        *self.keys.get_or_insert_with(|| Keys::new(store))
    }

    /// A print event's buf (see [`crate::trace::tokenizer::print_buf`]).
    pub fn print(&mut self, ctx: &mut Ctx, ts: i64, pid: i64, buf: &[u8]) {
        let text = print_text(buf);
        self.print_record(ctx, ts, pid, record::parse(&text));
    }

    /// A print event's record, read by [`AtraceParser::print`] or on the loading thread.
    pub fn print_record(&mut self, ctx: &mut Ctx, ts: i64, pid: i64, parsed: Parsed<'_>) {
        self.cut_sys_write(ctx, ts, pid);
        match parsed {
            Parsed::Record(r) => self.record(ctx, ts, pid, r),
            Parsed::Malformed => parse_failure(&mut ctx.store),
            Parsed::Unsupported => {}
        }
    }

    /// A record the loading thread has read and whose name it has interned.
    pub fn print_named(&mut self, ctx: &mut Ctx, ts: i64, pid: i64, rec: Named) {
        self.cut_sys_write(ctx, ts, pid);
        match rec {
            Named::Begin { tgid, name } => self.begin_named(ctx, ts, pid, tgid, Some(name)),
            Named::Counter { tgid, name, value } => {
                self.counter_named(ctx, ts, pid, tgid, name, value)
            }
        }
    }

    /// A trace_marker write shows up as a sys_write around the atrace record; cut the
    /// write short so the atrace slice can nest on the same thread track.
    fn cut_sys_write(&mut self, ctx: &mut Ctx, ts: i64, pid: i64) {
        if self.any_sys_write {
            if let Some(utid) = ctx.procs.get_thread_or_null(&ctx.store, pid, None) {
                self.truncate_sys_write(ctx, ts, utid);
            }
        }
    }

    pub fn kernel_mark_write(&mut self, ctx: &mut Ctx, ts: i64, pid: i64, id: u32, data: &[u8]) {
        let Some(mut m) = KernelMark::decode(id, data) else {
            return;
        };
        let usable = match id {
            fid::TRACING_MARK_WRITE => m.trace_begin.is_some(),
            fid::SDE_TRACING_MARK_WRITE => m.has_trace_type || m.trace_begin.is_some(),
            fid::SAMSUNG_TRACING_MARK_WRITE => m.has_trace_type,
            _ => m.raw_type != 0,
        };
        if !usable {
            parse_failure(&mut ctx.store);
            return;
        }
        // Some display drivers claim the emitting thread belongs to another process; only
        // their counters keep the tgid (b/395779936).
        let phase = m.raw_type as u8;
        if id == fid::DPU_TRACING_MARK_WRITE && phase != b'C' {
            m.tgid = 0;
        }
        let name = String::from_utf8_lossy(m.name);
        let (tgid, value) = (m.tgid, m.value);
        let rec = match phase {
            0 if m.trace_begin == Some(true) => Record::Begin { tgid, name: &name },
            0 => Record::End { tgid },
            b'B' => Record::Begin { tgid, name: &name },
            b'E' => Record::End { tgid },
            b'C' => Record::Counter {
                tgid,
                name: &name,
                value,
            },
            b'I' => Record::Instant { tgid, name: &name },
            _ => {
                parse_failure(&mut ctx.store);
                return;
            }
        };
        self.record(ctx, ts, pid, rec);
    }

    /// `zero`, the atrace event of Pixel (msm-google) kernels: flag bit 0 begins a slice,
    /// bit 1 ends one, bit 2 sets a counter (checked in that order).
    pub fn zero(&mut self, ctx: &mut Ctx, ts: i64, pid: i64, data: &[u8]) {
        let (mut flag, mut name, mut tgid, mut value) = (0i32, &[][..], 0u32, 0i64);
        for (id, v) in Fields::new(data).map_while(Result::ok) {
            match id {
                1 => flag = v.as_i32(),
                2 => name = v.as_bytes(),
                // int32 on the wire, reinterpreted as unsigned like trace_processor does.
                3 => tgid = v.as_i32() as u32,
                4 => value = v.as_i64(),
                _ => {}
            }
        }
        let name = String::from_utf8_lossy(name);
        let rec = if flag & 1 != 0 {
            Record::Begin { tgid, name: &name }
        } else if flag & 2 != 0 {
            Record::End { tgid }
        } else if flag & 4 != 0 {
            Record::Counter {
                tgid,
                name: &name,
                value,
            }
        } else {
            parse_failure(&mut ctx.store);
            return;
        };
        self.record(ctx, ts, pid, rec);
    }

    /// Applies one record emitted by thread `pid`.
    fn record(&mut self, ctx: &mut Ctx, ts: i64, pid: i64, rec: Record<'_>) {
        match rec {
            Record::Begin { tgid, name } => self.begin(ctx, ts, pid, tgid, name),
            Record::End { tgid } => self.end(ctx, ts, pid, tgid),
            Record::AsyncBegin { tgid, name, cookie } => {
                self.async_begin(ctx, ts, tgid, name, cookie)
            }
            Record::AsyncEnd { tgid, name, cookie } => self.async_end(ctx, ts, tgid, name, cookie),
            Record::Instant { tgid, name } => {
                let name = slice_name(&mut ctx.store, name);
                let utid = thread_for(ctx, pid, tgid);
                let track = self.thread_track(ctx, utid);
                ctx.slices
                    .scoped(&mut ctx.store, ts, track, None, name, 0, None);
            }
            Record::TrackInstant { tgid, track, name } => {
                self.track_instant(ctx, ts, pid, tgid, track, name)
            }
            Record::TrackBegin {
                tgid,
                track,
                name,
                cookie,
            } => self.track_begin(ctx, ts, pid, tgid, track, name, cookie),
            Record::TrackEnd {
                tgid,
                track,
                cookie,
            } => self.track_end(ctx, ts, pid, tgid, track, cookie),
            Record::Counter { tgid, name, value } => self.counter(ctx, ts, pid, tgid, name, value),
        }
    }

    fn begin(&mut self, ctx: &mut Ctx, ts: i64, pid: i64, tgid: u32, name: &str) {
        let name_id = slice_name(&mut ctx.store, name);
        self.begin_named(ctx, ts, pid, tgid, name_id);
        if name.starts_with(LMK_PREFIX) {
            self.lmk_begin(ctx, ts, name);
        }
    }

    fn begin_named(&mut self, ctx: &mut Ctx, ts: i64, pid: i64, tgid: u32, name: Option<StrId>) {
        let utid = thread_for(ctx, pid, tgid);
        let track = self.thread_track(ctx, utid);
        ctx.slices
            .begin(&mut ctx.store, ts, track, None, name, None);
    }

    fn end(&mut self, ctx: &mut Ctx, ts: i64, pid: i64, tgid: u32) {
        let utid = if tgid == 0 {
            // Older Android leaves the tgid out of `E`; a thread never seen had no begin.
            match ctx.procs.get_thread_or_null(&ctx.store, pid, None) {
                Some(u) => u,
                None => return,
            }
        } else {
            ctx.procs.update_thread(&mut ctx.store, pid, tgid as i64)
        };
        let track = self.thread_track(ctx, utid);
        self.end_slice(ctx, ts, track, None, Vec::new());
    }

    /// `S`: a slice on a track named after it. A begin while that track already has an
    /// open slice is only counted (PowerManager's wakelocks repeat begins).
    fn async_begin(&mut self, ctx: &mut Ctx, ts: i64, tgid: u32, name: &str, cookie: i64) {
        let name = ctx.store.intern(name);
        let upid = ctx.procs.get_or_create_process(&mut ctx.store, tgid as i64);
        let spec = async_spec(upid, name);
        let track = ctx
            .compressor
            .begin_unnestable(&mut ctx.store, spec, cookie);
        let legacy = self.legacy.entry(track).or_default();
        legacy.begin_count += 1;
        legacy.last_begin_ts = ts;
        if ctx.slices.top_of(track).is_some() {
            return;
        }
        let sid = ctx
            .slices
            .begin(&mut ctx.store, ts, track, None, Some(name), None);
        if let Some(sid) = sid {
            let k = self.keys(&mut ctx.store).cookie;
            self.pending_args
                .insert(sid, vec![(k, k, ArgValue::Int(cookie))]);
        }
    }

    /// `F`: ends the slice of the cookie's track, reporting how many begins the track saw.
    fn async_end(&mut self, ctx: &mut Ctx, ts: i64, tgid: u32, name: &str, cookie: i64) {
        let name = ctx.store.intern(name);
        let upid = ctx.procs.get_or_create_process(&mut ctx.store, tgid as i64);
        let track = ctx
            .compressor
            .end(&mut ctx.store, async_spec(upid, name), cookie);
        let mut extra = Vec::new();
        if let Some(l) = self.legacy.get(&track).copied() {
            let k = self.keys(&mut ctx.store);
            extra.push((k.begin_count, k.begin_count, ArgValue::Int(l.begin_count)));
            extra.push((
                k.last_begin_ts,
                k.last_begin_ts,
                ArgValue::Int(l.last_begin_ts),
            ));
        }
        self.end_slice(ctx, ts, track, None, extra);
    }

    fn track_instant(
        &mut self,
        ctx: &mut Ctx,
        ts: i64,
        pid: i64,
        tgid: u32,
        track: &str,
        name: &str,
    ) {
        let name = slice_name(&mut ctx.store, name);
        let track_name = ctx.store.intern(track);
        if track == "DeviceStateChanged" {
            let t = device_state_track(ctx);
            ctx.slices
                .scoped(&mut ctx.store, ts, t, None, name, 0, None);
            return;
        }
        let upid = ctx.procs.get_or_create_process(&mut ctx.store, tgid as i64);
        let t = ctx
            .compressor
            .scoped(&mut ctx.store, track_spec(upid, track_name), ts, 0);
        let utid = ctx.procs.get_or_create_thread(&mut ctx.store, pid);
        let k = self.keys(&mut ctx.store).utid;
        let args = ctx
            .store
            .args
            .insert_set(vec![(k, ArgValue::UInt(utid as u64))]);
        ctx.slices
            .scoped(&mut ctx.store, ts, t, None, name, 0, args);
    }

    #[allow(clippy::too_many_arguments)]
    fn track_begin(
        &mut self,
        ctx: &mut Ctx,
        ts: i64,
        pid: i64,
        tgid: u32,
        track: &str,
        name: &str,
        cookie: i64,
    ) {
        let name = slice_name(&mut ctx.store, name);
        let track = ctx.store.intern(track);
        let upid = ctx.procs.get_or_create_process(&mut ctx.store, tgid as i64);
        let t = ctx
            .compressor
            .begin(&mut ctx.store, track_spec(upid, track), cookie);
        let utid = ctx.procs.get_or_create_thread(&mut ctx.store, pid);
        if let Some(sid) = ctx.slices.begin(&mut ctx.store, ts, t, None, name, None) {
            let k = self.keys(&mut ctx.store).utid;
            self.pending_args
                .insert(sid, vec![(k, k, ArgValue::UInt(utid as u64))]);
        }
    }

    fn track_end(&mut self, ctx: &mut Ctx, ts: i64, pid: i64, tgid: u32, track: &str, cookie: i64) {
        let track = ctx.store.intern(track);
        let upid = ctx.procs.get_or_create_process(&mut ctx.store, tgid as i64);
        let t = ctx
            .compressor
            .end(&mut ctx.store, track_spec(upid, track), cookie);
        let utid = ctx.procs.get_or_create_thread(&mut ctx.store, pid);
        let k = self.keys(&mut ctx.store).end_utid;
        let extra = vec![(k, k, ArgValue::UInt(utid as u64))];
        self.end_slice(ctx, ts, t, None, extra);
    }

    /// `C`: per-process counters (values come from arbitrary threads but belong to the
    /// process), except a few names that trace_processor promotes to global tracks.
    fn counter(&mut self, ctx: &mut Ctx, ts: i64, pid: i64, tgid: u32, name: &str, value: i64) {
        match name {
            KILL_ONE_PROCESS => self.lmk_counter(ctx, ts, value),
            SCREEN_STATE => {
                let t = screen_state_track(ctx);
                push_counter(&mut ctx.store, ts, t, value as f64, None);
                return;
            }
            _ if name.starts_with(BATTERY_STATS_PREFIX) => {
                let t = battery_stats_track(ctx, name);
                push_counter(&mut ctx.store, ts, t, value as f64, None);
                return;
            }
            _ => {}
        }
        let name = ctx.store.intern(name);
        self.counter_named(ctx, ts, pid, tgid, name, value);
    }

    /// A process-scoped atrace counter, the emitting thread noted in its args.
    fn counter_named(
        &mut self,
        ctx: &mut Ctx,
        ts: i64,
        pid: i64,
        tgid: u32,
        name: StrId,
        value: i64,
    ) {
        let upid = ctx.procs.get_or_create_process(&mut ctx.store, tgid as i64);
        // The emitting thread is noted but never tied to the process: kernel counters use
        // placeholder or unrelated tgids.
        let utid = ctx.procs.get_thread_or_null(&ctx.store, pid, None);
        let track = match self.counter_tracks.get(&(upid, name)) {
            Some(&t) => t,
            None => {
                let spec = TrackSpec::new(
                    "atrace_counter",
                    EventType::Counter,
                    TrackScope::Process(upid),
                )
                .name_dimension(name);
                let t = ctx.tracks.intern(&mut ctx.store, spec);
                self.counter_tracks.insert((upid, name), t);
                t
            }
        };
        let args = utid.and_then(|u| self.utid_arg_set(&mut ctx.store, u));
        push_counter(&mut ctx.store, ts, track, value as f64, args);
    }

    fn utid_arg_set(&mut self, store: &mut Store, utid: Utid) -> Option<ArgSetId> {
        let i = utid as usize;
        if self.utid_arg_sets.len() <= i {
            self.utid_arg_sets.resize(i + 1, None);
        }
        if self.utid_arg_sets[i].is_none() {
            let k = self.keys(store).utid;
            self.utid_arg_sets[i] = store
                .args
                .insert_set(vec![(k, ArgValue::UInt(utid as u64))]);
        }
        self.utid_arg_sets[i]
    }

    /// Userspace lmkd reports kills as a counter holding the killed pid (0 resets it).
    fn lmk_counter(&mut self, ctx: &mut Ctx, ts: i64, value: i64) {
        let killed = value as u32;
        if killed != 0 {
            let upid = ctx
                .procs
                .get_or_create_process(&mut ctx.store, killed as i64);
            self.lmk_instant(ctx, ts, upid);
        }
    }

    /// `B|..|lmk,pid,reason,oom_adj,...`: lmkd's kill slices also give the victim's
    /// oom_score_adj.
    fn lmk_begin(&mut self, ctx: &mut Ctx, ts: i64, name: &str) {
        let toks: Vec<&str> = name.split(',').filter(|t| !t.is_empty()).collect();
        if toks.len() < 4 {
            return;
        }
        let (Some(killed), Some(adj)) =
            (record::c_str_to_u32(toks[1]), record::c_str_to_i32(toks[3]))
        else {
            return;
        };
        let upid = ctx
            .procs
            .get_or_create_process(&mut ctx.store, killed as i64);
        let t = crate::import::counter_tracks::oom_score_adj_track(ctx, upid);
        push_counter(&mut ctx.store, ts, t, adj as f64, None);
        self.lmk_instant(ctx, ts, upid);
    }

    fn lmk_instant(&mut self, ctx: &mut Ctx, ts: i64, upid: Upid) {
        let name = ctx.store.intern("LMK");
        let spec =
            TrackSpec::new("android_lmk", EventType::Slice, TrackScope::Process(upid)).named(name);
        let t = ctx.tracks.intern(&mut ctx.store, spec);
        let lmk = self.keys(&mut ctx.store).mem_lmk;
        ctx.slices
            .scoped(&mut ctx.store, ts, t, None, Some(lmk), 0, None);
    }

    fn thread_track(&mut self, ctx: &mut Ctx, utid: Utid) -> TrackId {
        let i = utid as usize;
        if self.thread_tracks.len() <= i {
            self.thread_tracks.resize(i + 1, NO_TRACK);
        }
        if self.thread_tracks[i] == NO_TRACK {
            self.thread_tracks[i] = ctx.tracks.thread_track(&mut ctx.store, utid);
        }
        self.thread_tracks[i]
    }

    /// Ends the innermost open slice on `track` (named `name` when given) and writes its
    /// args: those saved at its begin, then `extra` (unless already present).
    fn end_slice(
        &mut self,
        ctx: &mut Ctx,
        ts: i64,
        track: TrackId,
        name: Option<StrId>,
        extra: Vec<PendingArg>,
    ) {
        let Some(sid) = ctx.slices.end(&mut ctx.store, ts, track, None, name) else {
            return;
        };
        let mut args = self.pending_args.remove(&sid).unwrap_or_default();
        for a in extra {
            if !args.iter().any(|b| b.1 == a.1) {
                args.push(a);
            }
        }
        write_args(&mut ctx.store, sid, args);
    }

    fn syscalls(&mut self, store: &mut Store) -> &Syscalls {
        let arch = self.arch;
        self.syscalls
            .get_or_insert_with(|| Syscalls::build(store, arch))
    }

    fn sys_write_flag(&mut self, utid: Utid) -> &mut bool {
        let i = utid as usize;
        if self.in_sys_write.len() <= i {
            self.in_sys_write.resize(i + 1, false);
        }
        &mut self.in_sys_write[i]
    }

    fn truncate_sys_write(&mut self, ctx: &mut Ctx, ts: i64, utid: Utid) {
        if !std::mem::take(self.sys_write_flag(utid)) {
            return;
        }
        ctx.store.stat(
            "truncated_sys_write_duration",
            Severity::Info,
            "sys_write slices cut short at an atrace record they contain, so that the atrace slice nests; the real duration is lost.",
        );
        let write = self.syscalls(&mut ctx.store).write;
        let track = self.thread_track(ctx, utid);
        self.end_slice(ctx, ts, track, write, Vec::new());
    }

    pub fn sys_enter(&mut self, ctx: &mut Ctx, ts: i64, pid: i64, data: &[u8]) {
        let mut num = 0i64;
        let mut values: Vec<u64> = Vec::new();
        for (id, v) in Fields::new(data).map_while(Result::ok) {
            match (id, v) {
                (1, _) => num = v.as_i64(),
                (2, Value::Bytes(packed)) => values.extend(PackedVarints::new(packed)),
                (2, _) => values.push(v.as_u64()),
                _ => {}
            }
        }
        let utid = ctx.procs.get_or_create_thread(&mut ctx.store, pid);
        let Some(name) = self.syscall_name(&mut ctx.store, num) else {
            return;
        };
        let args = self.sys_args(&mut ctx.store, &values);
        let track = self.thread_track(ctx, utid);
        let sc = self.syscalls(&mut ctx.store);
        let (write, sigreturn) = (sc.write, sc.rt_sigreturn);
        if Some(name) == sigreturn {
            // rt_sigreturn does not return, so it is an instant.
            let set = ctx.store.args.insert_set_with_flat_keys(args);
            ctx.slices
                .scoped(&mut ctx.store, ts, track, None, Some(name), 0, set);
        } else if let Some(sid) =
            ctx.slices
                .begin(&mut ctx.store, ts, track, None, Some(name), None)
        {
            if !args.is_empty() {
                self.pending_args.insert(sid, args);
            }
        }
        if Some(name) == write {
            *self.sys_write_flag(utid) = true;
            self.any_sys_write = true;
        }
    }

    pub fn sys_exit(&mut self, ctx: &mut Ctx, ts: i64, pid: i64, data: &[u8]) {
        let mut num = 0i64;
        let mut ret = None;
        for (id, v) in Fields::new(data).map_while(Result::ok) {
            match id {
                1 => num = v.as_i64(),
                2 => ret = Some(v.as_i64()),
                _ => {}
            }
        }
        let utid = ctx.procs.get_or_create_thread(&mut ctx.store, pid);
        let Some(name) = self.syscall_name(&mut ctx.store, num) else {
            return;
        };
        if Some(name) == self.syscalls(&mut ctx.store).write {
            // No open write: it began before the trace, or an atrace record already cut it.
            if !std::mem::take(self.sys_write_flag(utid)) {
                return;
            }
        }
        let track = self.thread_track(ctx, utid);
        let k = self.keys(&mut ctx.store).ret;
        let extra = ret.map(|r| (k, k, ArgValue::Int(r))).into_iter().collect();
        self.end_slice(ctx, ts, track, Some(name), extra);
    }

    fn syscall_name(&mut self, store: &mut Store, num: i64) -> Option<StrId> {
        // The kernel's id is a long; trace_processor reads it as 32 bits.
        let num = num as u32 as usize;
        self.syscalls(store).names.get(num).copied()
    }

    fn sys_args(&mut self, store: &mut Store, values: &[u64]) -> Vec<PendingArg> {
        let flat = self.keys(store).args;
        while self.sys_arg_keys.len() < values.len() {
            let key = format!("args[{}]", self.sys_arg_keys.len());
            self.sys_arg_keys.push(store.intern(&key));
        }
        values
            .iter()
            .zip(&self.sys_arg_keys)
            .map(|(&v, &k)| (flat, k, ArgValue::UInt(v)))
            .collect()
    }

    /// End of trace: slices still open keep the args they were given at their begin.
    pub fn finish(&mut self, ctx: &mut Ctx) {
        let mut open: Vec<_> = self.pending_args.drain().collect();
        open.sort_unstable_by_key(|(sid, _)| *sid);
        for (sid, args) in open {
            write_args(&mut ctx.store, sid, args);
        }
    }
}

/// Tracks of `S`/`F` slices: one set per process and slice name, named after the slice.
fn async_spec(upid: Upid, name: StrId) -> TrackSpec<'static> {
    TrackSpec::new(
        "atrace_async_slice",
        EventType::Slice,
        TrackScope::Process(upid),
    )
    .name_dimension(name)
}

/// Tracks of `G`/`H`/`N` records: one set per process and track name.
fn track_spec(upid: Upid, track: StrId) -> TrackSpec<'static> {
    TrackSpec::new(
        "atrace_async_slice_for_track",
        EventType::Slice,
        TrackScope::Process(upid),
    )
    .name_dimension(track)
}

/// The thread a record comes from: tied to the record's process unless the tgid is 0
/// (kernel writers, and drivers whose tgid is not trusted).
fn thread_for(ctx: &mut Ctx, pid: i64, tgid: u32) -> Utid {
    if tgid == 0 {
        ctx.procs.get_or_create_thread(&mut ctx.store, pid)
    } else {
        ctx.procs.update_thread(&mut ctx.store, pid, tgid as i64)
    }
}

/// lmkd's kill slices: `B|..|lmk,pid,reason,oom_adj,...`.
const LMK_PREFIX: &str = "lmk,";

/// A begin or counter read on the loading thread, its name interned there: only when
/// [`begin_reads_text`] / [`counter_reads_text`] say the text is not needed again.
#[derive(Clone, Copy)]
pub enum Named {
    Begin { tgid: u32, name: StrId },
    Counter { tgid: u32, name: StrId, value: i64 },
}

/// Counters read by name: lmkd's kills, the screen state, battery stats.
const KILL_ONE_PROCESS: &str = "kill_one_process";
const SCREEN_STATE: &str = "ScreenState";
const BATTERY_STATS_PREFIX: &str = "battery_stats.";

/// Whether a counter reads its name's text beyond interning it (those above).
pub fn counter_reads_text(name: &str) -> bool {
    matches!(name, KILL_ONE_PROCESS | SCREEN_STATE) || name.starts_with(BATTERY_STATS_PREFIX)
}

/// Whether a slice begin reads its name's text beyond interning it: an empty name is
/// stored as NULL, and lmkd's kill slices are read for their victim.
pub fn begin_reads_text(name: &str) -> bool {
    name.is_empty() || name.starts_with(LMK_PREFIX)
}

/// Slice names; an empty name (only possible from kernel writers) is stored as NULL.
fn slice_name(store: &mut Store, name: &str) -> Option<StrId> {
    (!name.is_empty()).then(|| store.intern(name))
}

/// Sets a slice's args, keeping any it already has.
pub(crate) fn write_args(store: &mut Store, sid: SliceId, mut args: Vec<PendingArg>) {
    if args.is_empty() {
        return;
    }
    if let Some(existing) = store.slices[sid as usize].arg_set_id.get() {
        let mut all: Vec<PendingArg> = store
            .args
            .set(existing)
            .iter()
            .map(|a| (a.flat_key, a.key, a.value.clone()))
            .collect();
        all.append(&mut args);
        args = all;
    }
    store.slices[sid as usize].arg_set_id = store.args.insert_set_with_flat_keys(args).into();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::SliceRow;

    fn varint(mut v: u64, out: &mut Vec<u8>) {
        while v >= 0x80 {
            out.push((v as u8) | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }

    fn field_varint(id: u32, v: u64, out: &mut Vec<u8>) {
        varint((id << 3) as u64, out);
        varint(v, out);
    }

    fn field_bytes(id: u32, b: &[u8], out: &mut Vec<u8>) {
        varint(((id << 3) | 2) as u64, out);
        varint(b.len() as u64, out);
        out.extend_from_slice(b);
    }

    struct T {
        ctx: Ctx,
        p: AtraceParser,
    }

    impl T {
        fn new() -> T {
            T {
                ctx: Ctx::new(),
                p: AtraceParser::default(),
            }
        }
        fn print(&mut self, ts: i64, pid: i64, buf: &[u8]) {
            self.p.print(&mut self.ctx, ts, pid, buf);
        }
        /// As the loading thread hands a print on: read there when it can be.
        fn print_read_ahead(&mut self, ts: i64, pid: i64, buf: &[u8]) {
            match read_print(buf, false) {
                Some(r) => self
                    .p
                    .print_record(&mut self.ctx, ts, pid, Parsed::Record(r)),
                None => self.p.print(&mut self.ctx, ts, pid, buf),
            }
        }
        fn sys(&mut self, enter: bool, ts: i64, pid: i64, num: u64) {
            let mut data = Vec::new();
            field_varint(1, num, &mut data);
            if enter {
                field_varint(2, 7, &mut data);
                field_varint(2, 8, &mut data);
                self.p.sys_enter(&mut self.ctx, ts, pid, &data);
            } else {
                field_varint(2, 0, &mut data);
                self.p.sys_exit(&mut self.ctx, ts, pid, &data);
            }
        }
        fn finish(&mut self) {
            self.p.finish(&mut self.ctx);
        }
        fn slices(&self) -> &[SliceRow] {
            &self.ctx.store.slices
        }
        fn name(&self, i: usize) -> &str {
            self.ctx
                .store
                .opt_str(self.slices()[i].name)
                .unwrap_or("<null>")
        }
        fn track_name(&self, t: TrackId) -> Option<&str> {
            self.ctx
                .store
                .opt_str(self.ctx.store.tracks[t as usize].name)
        }
        fn track_kind(&self, t: TrackId) -> &str {
            self.ctx.store.str(self.ctx.store.tracks[t as usize].kind)
        }
        fn arg(&self, slice: usize, key: &str) -> Option<ArgValue> {
            let s = &self.ctx.store;
            s.args
                .get_by_name(&s.strings, s.slices[slice].arg_set_id.get(), key)
                .cloned()
        }
        fn stat(&self, name: &str) -> i64 {
            self.ctx.store.stat_value(name)
        }
        fn thread_pid(&self, track: TrackId) -> Option<i64> {
            let s = &self.ctx.store;
            let TrackScope::Thread(utid) = s.tracks[track as usize].scope else {
                panic!("not a thread track");
            };
            s.threads[utid as usize]
                .upid
                .map(|u| s.processes[u as usize].pid)
        }
    }

    #[test]
    fn begin_end_nest_on_the_thread_track() {
        let mut t = T::new();
        t.print(10, 42, b"B|40|outer\n");
        t.print(20, 42, b"B|40|inner|with|pipes\n");
        t.print(30, 42, b"E|40\n");
        t.print(40, 42, b"E\n");
        let s = t.slices();
        assert_eq!((s[0].ts, s[0].dur, s[0].depth()), (10, 30, 0));
        assert_eq!((s[1].ts, s[1].dur, s[1].depth()), (20, 10, 1));
        assert_eq!(t.ctx.store.slice_parent(1), Some(0));
        assert_eq!(t.name(1), "inner|with|pipes");
        assert_eq!(s[0].track_id, s[1].track_id);
        assert_eq!(t.track_kind(s[0].track_id), "thread_execution");
        // The thread was tied to the record's tgid.
        assert_eq!(t.thread_pid(s[0].track_id), Some(40));
    }

    #[test]
    fn end_without_tgid_from_unknown_thread_is_ignored() {
        let mut t = T::new();
        t.print(10, 99, b"E");
        assert!(t.slices().is_empty());
        assert_eq!(t.stat("systrace_parse_failure"), 0);
        assert!(t.ctx.store.threads.iter().all(|th| th.tid != 99));
    }

    #[test]
    fn unended_slice_keeps_pending_duration() {
        let mut t = T::new();
        t.print(10, 5, b"B|5|open");
        t.finish();
        assert_eq!(t.slices()[0].dur, -1);
    }

    #[test]
    fn malformed_prints_are_counted_and_clock_sync_is_not() {
        let mut t = T::new();
        t.print(1, 1, b"random text\n");
        t.print(2, 1, b"S|1|name\n");
        t.print(3, 1, b"trace_event_clock_sync: parent_ts=1\n");
        t.print(4, 1, b"");
        assert_eq!(t.stat("systrace_parse_failure"), 3);
        assert!(t.slices().is_empty());
    }

    #[test]
    fn invalid_utf8_bytes_are_dropped_from_names() {
        let mut t = T::new();
        t.print(1, 1, b"B|1|ab\xffc\xc3\xa9\n");
        assert_eq!(t.name(0), "abc\u{e9}");
        // A lead byte promising three bytes swallows what follows it when that is not a
        // continuation; a sequence cut by the end only loses its first byte.
        assert_eq!(strip_invalid_utf8(b"x\xe2ABy"), "xy");
        assert_eq!(strip_invalid_utf8(b"x\xed\xa0\x80y"), "xy");
        assert_eq!(strip_invalid_utf8(b"x\xc0\xafy"), "xy");
        assert_eq!(strip_invalid_utf8(b"x\xe2A"), "xA");
    }

    #[test]
    fn back_to_back_async_begins_do_not_nest() {
        let mut t = T::new();
        for (ts, buf) in [
            (1000, "S|1204|multistart|0"),
            (1010, "S|1204|multistart|0"),
            (1015, "S|1204|multistart|10"),
            (1020, "S|1204|multistart|0"),
            (1030, "F|1204|multistart|0"),
            (1030, "S|1204|multistart|0"),
            (1050, "F|1204|multistart|0"),
            (1060, "F|1204|multistart|10"),
        ] {
            t.print(ts, 1, buf.as_bytes());
        }
        t.finish();
        let got: Vec<_> = t.slices().iter().map(|s| (s.ts, s.dur)).collect();
        assert_eq!(got, [(1000, 30), (1015, 45), (1030, 20)]);
        let s = t.slices();
        assert_eq!(s[0].track_id, s[2].track_id);
        assert_ne!(s[0].track_id, s[1].track_id);
        assert_eq!(t.track_name(s[0].track_id), Some("multistart"));
        assert_eq!(t.track_kind(s[0].track_id), "atrace_async_slice");
        assert_eq!(t.arg(0, "cookie"), Some(ArgValue::Int(0)));
        assert_eq!(t.arg(1, "cookie"), Some(ArgValue::Int(10)));
        // Begins are counted per track over the whole trace, ignored ones included.
        assert_eq!(
            t.arg(0, "legacy_unnestable_begin_count"),
            Some(ArgValue::Int(3))
        );
        assert_eq!(
            t.arg(0, "legacy_unnestable_last_begin_ts"),
            Some(ArgValue::Int(1020))
        );
        assert_eq!(
            t.arg(2, "legacy_unnestable_begin_count"),
            Some(ArgValue::Int(4))
        );
        // Async tracks belong to the tgid's process, whatever thread wrote the record.
        let TrackScope::Process(upid) = t.ctx.store.tracks[s[0].track_id as usize].scope else {
            panic!("async slices go on process tracks");
        };
        assert_eq!(t.ctx.store.processes[upid as usize].pid, 1204);
    }

    #[test]
    fn one_async_end_frees_a_track_begun_twice() {
        let mut t = T::new();
        t.print(1, 1, b"S|1|x|0");
        t.print(2, 1, b"S|1|x|0");
        t.print(3, 1, b"F|1|x|0");
        // Had the second begin nested, cookie 0 would still hold the first track.
        t.print(4, 1, b"S|1|x|5");
        let s = t.slices();
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].track_id, s[1].track_id);
    }

    #[test]
    fn track_async_begins_do_nest() {
        let mut t = T::new();
        t.print(1, 1, b"G|1|trk|a|0");
        t.print(2, 1, b"G|1|trk|b|0");
        t.print(3, 1, b"H|1|trk|0");
        t.print(4, 1, b"G|1|trk|c|5");
        let s = t.slices();
        assert_eq!(s[0].track_id, s[1].track_id);
        assert_eq!(s[1].depth(), 1);
        assert_ne!(s[2].track_id, s[0].track_id);
    }

    #[test]
    fn unended_async_slice_keeps_its_cookie() {
        let mut t = T::new();
        t.print(1, 1, b"S|1|x|77");
        t.finish();
        assert_eq!(t.slices()[0].dur, -1);
        assert_eq!(t.arg(0, "cookie"), Some(ArgValue::Int(77)));
        assert_eq!(t.arg(0, "legacy_unnestable_begin_count"), None);
    }

    #[test]
    fn track_async_slices_pair_by_cookie_in_both_end_forms() {
        let mut t = T::new();
        t.print(50, 1, b"G|1|track|ev|1024\n");
        t.print(55, 1, b"G|1|track|ev|2048\n");
        t.print(60, 2, b"G|2|track|ev|1024\n");
        t.print(65, 2, b"H|2|track|ev|1024\n");
        t.print(70, 1, b"H|1|track|2048\n");
        t.print(75, 3, b"H|1|track|ev|1024\n");
        let got: Vec<_> = t.slices().iter().map(|s| (s.ts, s.dur)).collect();
        assert_eq!(got, [(50, 25), (55, 15), (60, 5)]);
        for i in 0..3 {
            assert_eq!(t.track_name(t.slices()[i].track_id), Some("track"));
        }
        let writer = |tid: i64| {
            let utid = t.ctx.procs.get_thread_or_null(&t.ctx.store, tid, None);
            Some(ArgValue::UInt(utid.unwrap() as u64))
        };
        assert_eq!(t.arg(0, "utid"), writer(1));
        assert_eq!(t.arg(0, "end_utid"), writer(3));
    }

    #[test]
    fn track_instants_go_on_a_process_track_named_by_the_record() {
        let mut t = T::new();
        t.print(51, 2, b"N|2|track_p2|ev1\n");
        t.print(53, 1, b"N|1|track_p1|ev2\n");
        t.print(54, 1, b"N|1|track_p1|ev3\n");
        let s = t.slices();
        assert_eq!((s[0].ts, s[0].dur), (51, 0));
        assert_eq!(t.track_name(s[0].track_id), Some("track_p2"));
        assert_eq!(s[1].track_id, s[2].track_id);
        assert_eq!(t.track_kind(s[1].track_id), "atrace_async_slice_for_track");
        assert!(t.arg(1, "utid").is_some());
    }

    /// A print read on the loading thread imports as one read here: the same slices,
    /// threads and stats, on nesting, empty names, tgid-less ends, a sys_write around a
    /// record, counters, malformed text and invalid UTF-8 (the last three read here).
    #[test]
    fn prints_read_ahead_import_as_prints_read_here() {
        let bufs: [&[u8]; 10] = [
            b"B|10|outer",
            b"B|10|inner|with bar\n",
            b"E|10",
            b"B|10|",
            b"E",
            b"C|10|counter|5",
            b"B|10|bad\xff utf-8",
            b"not atrace",
            b"E|10\0",
            b"E|10\n",
        ];
        assert_eq!(
            read_print(b"B|10|outer", false),
            Some(Record::Begin {
                tgid: 10,
                name: "outer"
            })
        );
        let run = |ahead: bool| {
            let mut t = T::new();
            for (i, buf) in bufs.iter().enumerate() {
                let ts = 100 + 10 * i as i64;
                if i == 3 {
                    t.sys(true, ts - 1, 11, 64);
                }
                match ahead {
                    true => t.print_read_ahead(ts, 11, buf),
                    false => t.print(ts, 11, buf),
                }
            }
            t.finish();
            let slices: Vec<_> = (0..t.slices().len())
                .map(|i| {
                    let s = &t.slices()[i];
                    (s.ts, s.dur, s.depth(), s.track_id, t.name(i).to_string())
                })
                .collect();
            let threads: Vec<_> = t
                .ctx
                .store
                .threads
                .iter()
                .map(|r| (r.tid, r.upid))
                .collect();
            let stats =
                ["systrace_parse_failure", "truncated_sys_write_duration"].map(|n| t.stat(n));
            (slices, threads, stats)
        };
        let here = run(false);
        assert_eq!(run(true), here);
        assert!(here.0.len() >= 4, "{:?}", here.0);
        assert_eq!(here.2[0], 1, "the non-atrace line is one parse failure");
    }

    #[test]
    fn device_state_instants_are_global() {
        let mut t = T::new();
        t.print(3000, 1, b"N|1000|DeviceStateChanged|folded\n");
        let s = &t.slices()[0];
        let track = &t.ctx.store.tracks[s.track_id as usize];
        assert_eq!(track.scope, TrackScope::Global);
        assert_eq!(t.track_name(s.track_id), Some("DeviceStateChanged"));
        // No process is made up for the tgid.
        assert!(t.ctx.procs.process_for_pid(1000).is_none());
    }

    #[test]
    fn thread_instants() {
        let mut t = T::new();
        t.print(51, 2, b"I|2|t2_event\n");
        let s = &t.slices()[0];
        assert_eq!((s.ts, s.dur), (51, 0));
        assert_eq!(t.track_kind(s.track_id), "thread_execution");
    }

    #[test]
    fn counters_are_per_process_with_the_writer_noted() {
        let mut t = T::new();
        t.print(1, 10, b"B|10|x"); // makes thread 10 known
        t.print(2, 10, b"C|10|queue|3\n");
        t.print(3, 11, b"C|10|queue|-4|cat\n");
        t.print(4, 12, b"C|20|queue|5\n");
        let c = &t.ctx.store.counters;
        assert_eq!(c.len(), 3);
        assert_eq!(c[0].track_id, c[1].track_id);
        assert_ne!(c[0].track_id, c[2].track_id);
        assert_eq!((c[1].ts, c[1].value), (3, -4.0));
        assert_eq!(t.track_kind(c[0].track_id), "atrace_counter");
        assert_eq!(t.track_name(c[0].track_id), Some("queue"));
        // Only a thread seen before gets noted; counters never create one.
        assert!(c[0].arg_set_id.is_some());
        assert!(c[1].arg_set_id.is_none());
        assert!(t.ctx.store.threads.iter().all(|th| th.tid != 11));
    }

    #[test]
    fn screen_state_and_battery_stats_counters_are_global() {
        let mut t = T::new();
        t.print(1, 1, b"C|5678|ScreenState|2\n");
        t.print(2, 1, b"C|5679|ScreenState|1\n");
        t.print(3, 1, b"C|5679|battery_stats.audio|1\n");
        let c = &t.ctx.store.counters;
        assert_eq!(c[0].track_id, c[1].track_id);
        assert_eq!(t.track_name(c[0].track_id), Some("ScreenState"));
        assert_eq!(t.track_name(c[2].track_id), Some("battery_stats.audio"));
        assert!(t.ctx.procs.process_for_pid(5678).is_none());
    }

    #[test]
    fn lmk_counter_and_lmk_slice() {
        let mut t = T::new();
        t.print(1, 1, b"C|50|kill_one_process|1234\n");
        t.print(2, 1, b"C|50|kill_one_process|0\n");
        t.print(3, 1, b"B|50|lmk,4321,3,900,extra\n");
        // The counter is still recorded next to the LMK instant.
        assert_eq!(t.ctx.store.counters.len(), 2 + 1);
        let lmk: Vec<_> = t
            .slices()
            .iter()
            .enumerate()
            .filter(|(i, _)| t.name(*i) == "mem.lmk")
            .map(|(_, s)| s.track_id)
            .collect();
        assert_eq!(lmk.len(), 2);
        assert_eq!(t.track_name(lmk[0]), Some("LMK"));
        let adj = t
            .ctx
            .store
            .counters
            .iter()
            .find(|c| t.track_name(c.track_id) == Some("oom_score_adj"))
            .unwrap();
        assert_eq!(adj.value, 900.0);
    }

    #[test]
    fn sys_write_is_cut_at_the_atrace_record_it_carries() {
        let mut t = T::new();
        t.p.set_arch("aarch64");
        t.sys(true, 100, 42, 64);
        t.sys(false, 200, 42, 64);
        t.sys(true, 300, 42, 64);
        t.print(350, 42, b"B|42|test");
        t.sys(false, 400, 42, 64); // already cut: ignored
        t.sys(true, 600, 42, 64);
        t.print(650, 42, b"E|42");
        t.sys(false, 700, 42, 64);
        t.finish();
        let got: Vec<_> = (0..t.slices().len())
            .map(|i| {
                let s = &t.slices()[i];
                (s.ts, s.dur, t.name(i).to_string(), s.depth())
            })
            .collect();
        let want = [
            (100, 100, "sys_write", 0),
            (300, 50, "sys_write", 0),
            (350, 300, "test", 0),
            (600, 50, "sys_write", 1),
        ];
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(want) {
            assert_eq!((g.0, g.1, g.2.as_str(), g.3), w);
        }
        assert_eq!(t.stat("truncated_sys_write_duration"), 2);
        assert_eq!(t.arg(0, "args[1]"), Some(ArgValue::UInt(8)));
        assert_eq!(t.arg(0, "ret"), Some(ArgValue::Int(0)));
        let s = &t.ctx.store;
        let first = s.args.set(s.slices[0].arg_set_id.get().unwrap());
        assert_eq!(s.str(first[0].flat_key), "args");
        assert_eq!(s.str(first[0].key), "args[0]");
    }

    #[test]
    fn syscall_names_follow_the_architecture() {
        let mut t = T::new();
        t.sys(true, 1, 1, 64); // unknown arch: numbered names
        t.p.set_arch("x86_64");
        t.sys(true, 2, 2, 1);
        t.p.set_arch("armv7l");
        t.sys(true, 3, 3, 4);
        t.sys(true, 4, 4, 5000); // beyond the table: ignored
        assert_eq!(t.name(0), "sys_64");
        assert_eq!(t.name(1), "sys_write");
        assert_eq!(t.name(2), "sys_write");
        assert_eq!(t.slices().len(), 3);
    }

    #[test]
    fn rt_sigreturn_is_an_instant() {
        let mut t = T::new();
        t.p.set_arch("aarch64");
        t.sys(true, 5, 1, 139);
        assert_eq!(t.name(0), "sys_rt_sigreturn");
        assert_eq!(t.slices()[0].dur, 0);
    }

    fn mark(fields: &[(u32, u64)], strings: &[(u32, &str)]) -> Vec<u8> {
        let mut data = Vec::new();
        for &(id, v) in fields {
            field_varint(id, v, &mut data);
        }
        for &(id, s) in strings {
            field_bytes(id, s.as_bytes(), &mut data);
        }
        data
    }

    #[test]
    fn mdss_and_sde_begin_end_flags() {
        let mut t = T::new();
        let begin = mark(&[(1, 584), (3, 1)], &[(2, "test_event")]);
        let end = mark(&[(1, 584), (3, 0)], &[(2, "test_event")]);
        let no_flag = mark(&[(1, 584)], &[(2, "test_event")]);
        t.p.kernel_mark_write(&mut t.ctx, 100, 584, fid::TRACING_MARK_WRITE, &begin);
        t.p.kernel_mark_write(&mut t.ctx, 200, 584, fid::TRACING_MARK_WRITE, &end);
        t.p.kernel_mark_write(&mut t.ctx, 300, 584, fid::TRACING_MARK_WRITE, &no_flag);
        assert_eq!(t.stat("systrace_parse_failure"), 1);
        let sde_begin = mark(&[(1, 403), (5, 1)], &[(2, "sde")]);
        let sde_counter = mark(&[(1, 403), (3, b'C' as u64), (4, 9)], &[(2, "level")]);
        t.p.kernel_mark_write(
            &mut t.ctx,
            400,
            403,
            fid::SDE_TRACING_MARK_WRITE,
            &sde_begin,
        );
        t.p.kernel_mark_write(
            &mut t.ctx,
            401,
            403,
            fid::SDE_TRACING_MARK_WRITE,
            &sde_counter,
        );
        assert_eq!((t.slices()[0].ts, t.slices()[0].dur), (100, 100));
        assert_eq!(t.thread_pid(t.slices()[1].track_id), Some(403));
        assert_eq!(t.ctx.store.counters[0].value, 9.0);
    }

    #[test]
    fn dpu_slices_ignore_the_claimed_tgid_but_counters_keep_it() {
        let mut t = T::new();
        let b = mark(&[(1, 237), (5, b'B' as u64)], &[(4, "dpu_slice")]);
        let c = mark(
            &[(1, 237), (5, b'C' as u64), (6, 123)],
            &[(4, "dpu_vote_clock")],
        );
        t.p.kernel_mark_write(&mut t.ctx, 1, 515, fid::DPU_TRACING_MARK_WRITE, &b);
        t.p.kernel_mark_write(&mut t.ctx, 2, 515, fid::DPU_TRACING_MARK_WRITE, &c);
        assert_eq!(t.thread_pid(t.slices()[0].track_id), None);
        let counter = &t.ctx.store.counters[0];
        let TrackScope::Process(upid) = t.ctx.store.tracks[counter.track_id as usize].scope else {
            panic!("counter on a process track");
        };
        assert_eq!(t.ctx.store.processes[upid as usize].pid, 237);
        assert_eq!(counter.value, 123.0);
    }

    #[test]
    fn g2d_and_mali_need_a_type() {
        let mut t = T::new();
        let no_type = mark(&[(1, 237)], &[(4, "g2d_frame_hw#15")]);
        t.p.kernel_mark_write(&mut t.ctx, 1, 237, fid::G2D_TRACING_MARK_WRITE, &no_type);
        let bad_type = mark(&[(1, 237), (5, b'X' as u64)], &[(4, "n")]);
        t.p.kernel_mark_write(&mut t.ctx, 2, 237, fid::G2D_TRACING_MARK_WRITE, &bad_type);
        assert_eq!(t.stat("systrace_parse_failure"), 2);
        // Mali puts the name first and the pid second.
        let mali = mark(&[(2, 300), (3, b'I' as u64)], &[(1, "mali_instant")]);
        t.p.kernel_mark_write(&mut t.ctx, 3, 301, fid::MALI_TRACING_MARK_WRITE, &mali);
        assert_eq!(t.name(0), "mali_instant");
        assert_eq!(t.thread_pid(t.slices()[0].track_id), Some(300));
        // A negative int32 value survives the varint encoding.
        let neg = mark(
            &[(1, 237), (5, b'C' as u64), (6, (-5i64) as u64)],
            &[(4, "n")],
        );
        t.p.kernel_mark_write(&mut t.ctx, 4, 237, fid::G2D_TRACING_MARK_WRITE, &neg);
        assert_eq!(t.ctx.store.counters[0].value, -5.0);
    }

    #[test]
    fn zero_flags_begin_end_and_counter() {
        let mut t = T::new();
        let zero = |flag: u64, name: &str, tgid: u64, value: u64| {
            mark(&[(1, flag), (3, tgid), (4, value)], &[(2, name)])
        };
        // Pixel's exynos driver: slices on the emitting thread, counters on tgid 1.
        t.p.zero(&mut t.ctx, 10, 500, &zero(1, "DM_CALL", 500, 0));
        t.p.zero(&mut t.ctx, 12, 500, &zero(1, "acpm_ipc_send_data", 500, 0));
        t.p.zero(&mut t.ctx, 13, 500, &zero(4, "dm_mif", 1, 1_716_000));
        t.p.zero(&mut t.ctx, 15, 500, &zero(2, "", 500, 0));
        // Begin wins over end when both bits are set.
        t.p.zero(&mut t.ctx, 16, 500, &zero(3, "both", 500, 0));
        t.p.zero(&mut t.ctx, 17, 500, &zero(8, "nothing", 500, 0));
        let got: Vec<_> = (0..t.slices().len())
            .map(|i| {
                (
                    t.name(i).to_string(),
                    t.slices()[i].ts,
                    t.slices()[i].dur,
                    t.slices()[i].depth(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("DM_CALL".to_string(), 10, -1, 0),
                ("acpm_ipc_send_data".to_string(), 12, 3, 1),
                ("both".to_string(), 16, -1, 1)
            ]
        );
        assert_eq!(t.thread_pid(t.slices()[0].track_id), Some(500));
        let c = &t.ctx.store.counters[0];
        assert_eq!((c.ts, c.value), (13, 1_716_000.0));
        assert_eq!(t.track_name(c.track_id), Some("dm_mif"));
        let TrackScope::Process(upid) = t.ctx.store.tracks[c.track_id as usize].scope else {
            panic!("counter on a process track");
        };
        assert_eq!(t.ctx.store.processes[upid as usize].pid, 1);
        assert_eq!(t.stat("systrace_parse_failure"), 1);
    }

    #[test]
    fn samsung_lwis_and_panel_marks() {
        let mut t = T::new();
        // Samsung: the begin flag is ignored; type 0 is an end, and a missing type fails.
        let s_begin = mark(&[(1, 10), (3, 1), (4, b'B' as u64)], &[(2, "s")]);
        let s_zero = mark(&[(1, 10), (3, 1), (4, 0)], &[(2, "s")]);
        let s_none = mark(&[(1, 10), (3, 1)], &[(2, "s")]);
        t.p.kernel_mark_write(&mut t.ctx, 1, 10, fid::SAMSUNG_TRACING_MARK_WRITE, &s_begin);
        t.p.kernel_mark_write(&mut t.ctx, 5, 10, fid::SAMSUNG_TRACING_MARK_WRITE, &s_zero);
        t.p.kernel_mark_write(&mut t.ctx, 6, 10, fid::SAMSUNG_TRACING_MARK_WRITE, &s_none);
        assert_eq!((t.slices()[0].ts, t.slices()[0].dur), (1, 4));
        assert_eq!(t.stat("systrace_parse_failure"), 1);
        // LWIS: int64 values, the function name as the counter name.
        let big = 1u64 << 40;
        let lwis = mark(
            &[(3, 20), (2, b'C' as u64), (5, big)],
            &[(1, "cam"), (4, "lwis_fn")],
        );
        t.p.kernel_mark_write(&mut t.ctx, 7, 21, fid::LWIS_TRACING_MARK_WRITE, &lwis);
        let c = &t.ctx.store.counters[0];
        assert_eq!(c.value, big as f64);
        assert_eq!(t.track_name(c.track_id), Some("lwis_fn"));
        // panel_write_generic: name is field 4, type field 5.
        let panel = mark(
            &[(1, 30), (5, b'I' as u64)],
            &[(2, "ignored"), (4, "panel_i")],
        );
        t.p.kernel_mark_write(&mut t.ctx, 8, 30, fid::PANEL_WRITE_GENERIC, &panel);
        assert_eq!(t.name(1), "panel_i");
    }
}
