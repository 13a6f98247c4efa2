//! atrace: `print` events and the vendor `*_tracing_mark_write` events carrying
//! `B|pid|name`, `E|pid`, `S|pid|name|cookie`, `F|...`, `I|...`, `N|...`, `G|...`, `H|...`,
//! `C|pid|name|value` records, turned into slices, instants, async slices and counters
//! (trace_processor's systrace parser), plus `sys_enter`/`sys_exit` as `sys_*` slices.

mod async_tracks;
pub mod record;
mod syscalls;

use std::borrow::Cow;
use std::collections::HashMap;

use self::async_tracks::{AsyncTracks, SetKind};
use self::record::{Parsed, Record};
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Arch {
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

pub struct AtraceParser {
    arch: Arch,
    syscalls: Option<Syscalls>,
    keys: Option<Keys>,
    /// utid -> its thread track (NO_TRACK until first used).
    thread_tracks: Vec<TrackId>,
    /// utid -> inside a sys_write that an atrace record may have to cut short.
    in_sys_write: Vec<bool>,
    counter_tracks: HashMap<(Upid, StrId), TrackId>,
    /// utid -> the `{utid}` arg set counters carry.
    utid_arg_sets: Vec<Option<ArgSetId>>,
    async_tracks: AsyncTracks,
    legacy: HashMap<TrackId, Legacy>,
    /// Args of open slices; written when the slice ends (or at the end of the trace), so
    /// that args given at the end join those given at the start in one set.
    pending_args: HashMap<SliceId, Vec<PendingArg>>,
    sys_arg_keys: Vec<StrId>,
}

impl Default for AtraceParser {
    fn default() -> Self {
        AtraceParser {
            arch: Arch::Unknown,
            syscalls: None,
            keys: None,
            thread_tracks: Vec::new(),
            in_sys_write: Vec::new(),
            counter_tracks: HashMap::new(),
            utid_arg_sets: Vec::new(),
            async_tracks: AsyncTracks::default(),
            legacy: HashMap::new(),
            pending_args: HashMap::new(),
            sys_arg_keys: Vec::new(),
        }
    }
}

fn parse_failure(store: &mut Store) {
    store.stat(
        "systrace_parse_failure",
        Severity::Error,
        "An atrace (print / tracing_mark_write) record could not be parsed and was ignored.",
    );
}

/// The text of a print buffer as trace_processor sees it: valid UTF-8 as is, otherwise
/// with the bytes that do not form valid sequences removed.
fn print_text(buf: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(buf) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => Cow::Owned(strip_invalid_utf8(buf)),
    }
}

fn strip_invalid_utf8(mut buf: &[u8]) -> String {
    let mut out = String::with_capacity(buf.len());
    loop {
        match std::str::from_utf8(buf) {
            Ok(s) => {
                out.push_str(s);
                return out;
            }
            Err(e) => {
                let (good, rest) = buf.split_at(e.valid_up_to());
                out.push_str(std::str::from_utf8(good).unwrap_or_default());
                // Drop the first byte of the bad sequence and resynchronise after it.
                buf = rest.get(1..).unwrap_or_default();
            }
        }
    }
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
    /// Field numbers per event: (pid, name, type, value, trace_begin).
    fn layout(event_id: u32) -> Option<[u32; 5]> {
        Some(match event_id {
            fid::TRACING_MARK_WRITE => [1, 2, 0, 0, 3],
            fid::SDE_TRACING_MARK_WRITE => [1, 2, 3, 4, 5],
            fid::DPU_TRACING_MARK_WRITE => [1, 4, 5, 6, 0],
            fid::G2D_TRACING_MARK_WRITE => [1, 4, 5, 6, 0],
            fid::MALI_TRACING_MARK_WRITE => [2, 1, 3, 4, 0],
            _ => return None,
        })
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
                m.value = v.as_i32() as i64;
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

    pub fn print(&mut self, ctx: &mut Ctx, ts: i64, pid: i64, data: &[u8]) {
        let mut buf: &[u8] = &[];
        for (id, v) in Fields::new(data).map_while(Result::ok) {
            if id == 2 {
                buf = v.as_bytes();
            }
        }
        // A trace_marker write shows up as a sys_write around the atrace record; cut the
        // write short so the atrace slice can nest on the same thread track.
        if let Some(utid) = ctx.procs.get_thread_or_null(&ctx.store, pid, None) {
            self.truncate_sys_write(ctx, ts, utid);
        }
        let text = print_text(buf);
        match record::parse(&text) {
            Parsed::Record(r) => self.record(ctx, ts, pid, r),
            Parsed::Malformed => parse_failure(&mut ctx.store),
            Parsed::Unsupported => {}
        }
    }

    pub fn kernel_mark_write(&mut self, ctx: &mut Ctx, ts: i64, pid: i64, id: u32, data: &[u8]) {
        let Some(mut m) = KernelMark::decode(id, data) else {
            return;
        };
        let usable = match id {
            fid::TRACING_MARK_WRITE => m.trace_begin.is_some(),
            fid::SDE_TRACING_MARK_WRITE => m.has_trace_type || m.trace_begin.is_some(),
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

    /// Applies one record emitted by thread `pid`.
    fn record(&mut self, ctx: &mut Ctx, ts: i64, pid: i64, rec: Record<'_>) {
        match rec {
            Record::Begin { tgid, name } => self.begin(ctx, ts, pid, tgid, name),
            Record::End { tgid } => self.end(ctx, ts, pid, tgid),
            Record::AsyncBegin { tgid, name, cookie } => {
                self.async_begin(ctx, ts, tgid, name, cookie)
            }
            Record::AsyncEnd { tgid, name, cookie } => {
                let name = ctx.store.intern(name);
                let upid = ctx.procs.get_or_create_process(&mut ctx.store, tgid as i64);
                let track =
                    (self.async_tracks).end(&mut ctx.store, SetKind::Slice, upid, name, cookie);
                self.end_slice(ctx, ts, track, None, Vec::new());
            }
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
            } => {
                let track = ctx.store.intern(track);
                let upid = ctx.procs.get_or_create_process(&mut ctx.store, tgid as i64);
                let t =
                    (self.async_tracks).end(&mut ctx.store, SetKind::ForTrack, upid, track, cookie);
                let utid = ctx.procs.get_or_create_thread(&mut ctx.store, pid);
                let k = self.keys(&mut ctx.store).end_utid;
                let extra = vec![(k, k, ArgValue::UInt(utid as u64))];
                self.end_slice(ctx, ts, t, None, extra);
            }
            Record::Counter { tgid, name, value } => self.counter(ctx, ts, pid, tgid, name, value),
        }
    }

    fn begin(&mut self, ctx: &mut Ctx, ts: i64, pid: i64, tgid: u32, name: &str) {
        let name_id = slice_name(&mut ctx.store, name);
        let utid = thread_for(ctx, pid, tgid);
        let track = self.thread_track(ctx, utid);
        ctx.slices
            .begin(&mut ctx.store, ts, track, None, name_id, None);
        if name.starts_with("lmk,") {
            self.lmk_begin(ctx, ts, name);
        }
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
        let track = (self.async_tracks).begin(&mut ctx.store, SetKind::Slice, upid, name, cookie);
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
        let t =
            (self.async_tracks).scoped(&mut ctx.store, SetKind::ForTrack, upid, track_name, ts, 0);
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
        let t = (self.async_tracks).begin(&mut ctx.store, SetKind::ForTrack, upid, track, cookie);
        let utid = ctx.procs.get_or_create_thread(&mut ctx.store, pid);
        if let Some(sid) = ctx.slices.begin(&mut ctx.store, ts, t, None, name, None) {
            let k = self.keys(&mut ctx.store).utid;
            self.pending_args
                .insert(sid, vec![(k, k, ArgValue::UInt(utid as u64))]);
        }
    }

    /// `C`: per-process counters (values come from arbitrary threads but belong to the
    /// process), except a few names that trace_processor promotes to global tracks.
    fn counter(&mut self, ctx: &mut Ctx, ts: i64, pid: i64, tgid: u32, name: &str, value: i64) {
        match name {
            "kill_one_process" => self.lmk_counter(ctx, ts, value),
            "ScreenState" => {
                let t = screen_state_track(ctx);
                push_counter(&mut ctx.store, ts, t, value as f64, None);
                return;
            }
            _ if name.starts_with("battery_stats.") => {
                let t = battery_stats_track(ctx, name);
                push_counter(&mut ctx.store, ts, t, value as f64, None);
                return;
            }
            _ => {}
        }
        let name = ctx.store.intern(name);
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
        let name = ctx.store.intern("oom_score_adj");
        let spec = TrackSpec::new(
            "oom_score_adj",
            EventType::Counter,
            TrackScope::Process(upid),
        )
        .named(name);
        let t = ctx.tracks.intern(&mut ctx.store, spec);
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
            let spec = TrackSpec::new(
                "thread_execution",
                EventType::Slice,
                TrackScope::Thread(utid),
            );
            self.thread_tracks[i] = ctx.tracks.intern(&mut ctx.store, spec);
        }
        self.thread_tracks[i]
    }

    /// Ends the innermost open slice on `track` (named `name` when given) and writes its
    /// args: those saved at its begin, then `extra` (unless already present), then the
    /// legacy begin count of `S`/`F` tracks.
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
        if let Some(l) = self.legacy.get(&track).copied() {
            let k = self.keys(&mut ctx.store);
            args.push((k.begin_count, k.begin_count, ArgValue::Int(l.begin_count)));
            args.push((
                k.last_begin_ts,
                k.last_begin_ts,
                ArgValue::Int(l.last_begin_ts),
            ));
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

/// The thread a record comes from: tied to the record's process unless the tgid is 0
/// (kernel writers, and drivers whose tgid is not trusted).
fn thread_for(ctx: &mut Ctx, pid: i64, tgid: u32) -> Utid {
    if tgid == 0 {
        ctx.procs.get_or_create_thread(&mut ctx.store, pid)
    } else {
        ctx.procs.update_thread(&mut ctx.store, pid, tgid as i64)
    }
}

/// Slice names; an empty name (only possible from kernel writers) is stored as NULL.
fn slice_name(store: &mut Store, name: &str) -> Option<StrId> {
    (!name.is_empty()).then(|| store.intern(name))
}

/// Sets a slice's args, keeping any it already has.
fn write_args(store: &mut Store, sid: SliceId, mut args: Vec<PendingArg>) {
    if args.is_empty() {
        return;
    }
    if let Some(existing) = store.slices[sid as usize].arg_set_id {
        let mut all: Vec<PendingArg> = store
            .args
            .set(existing)
            .iter()
            .map(|a| (a.flat_key, a.key, a.value.clone()))
            .collect();
        all.append(&mut args);
        args = all;
    }
    store.slices[sid as usize].arg_set_id = store.args.insert_set_with_flat_keys(args);
}
