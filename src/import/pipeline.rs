//! The tokenizer and the importers on two threads (issue 19: both cores during the load).
//!
//! The tokenizer (with the sorter) runs on the loading thread. Everything it hands the
//! importers, sorted events and its own calls alike, is written in order into batches
//! ([`Cmd`]) that the importers apply on a second thread. Applying the same calls in the same
//! order gives the same store, string ids included, as calling the importers directly.
//!
//! Two kinds of call need an answer. Names the tokenizer puts inside events get its own
//! ids, translated by the importers (`Ctx::tokenizer_names`); interned-data intervals are
//! numbered on this side too. TrackEvent-family packets are tokenized on this side as well
//! (`track_event::Tokenizer`, which keeps the sequence state and counter scales it reads),
//! so the loading thread never waits for the importers to catch up.
//!
//! Small traces (and several traces loaded at once) apply each batch on the loading thread
//! as it fills: the same code, without the second thread.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, Sender, SyncSender, TryRecvError};

use super::ftrace::atrace::{begin_reads_text, counter_reads_text, read_print, Named, Record};
use super::track_event;
use super::Importer;
use crate::protos;
use crate::store::prefault::RowForecast;
use crate::store::strings::{StrId, StringPool};
use crate::store::{MetaValue, Severity};
use crate::trace::clock::ClockTracker;
use crate::trace::interned::iid_of;
use crate::trace::sort::{
    CompactSwitch, CompactWaking, EventSink, PacketEvent, Sorter, TrackEventMeta,
};
use crate::trace::tokenizer::{print_buf, SequencePacket, TokenizerHost};

/// Where the importers run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Threads {
    /// On the loading thread.
    One,
    /// On a second thread.
    Two,
}

impl Threads {
    /// Two threads for a trace of at least `from` bytes, on a machine with two cores or
    /// more, unless several traces are loading at once. One when the size is unknown
    /// (standard input).
    pub fn for_size(bytes: Option<u64>, from: Option<u64>) -> Threads {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        match (bytes, from) {
            (Some(b), Some(from)) if b >= from && cores >= 2 && !several_loads() => Threads::Two,
            _ => Threads::One,
        }
    }
}

/// Batches waiting for the importers' thread. The sorter hands on a window's events at once
/// (x60: 30 windows of about 190,000 events) while the tokenizer between windows sends
/// nothing: the queue must hold enough of a window for the importers to work on until the
/// next, or they wait (x60 `query`: 0.82 s with 4, 0.76 s with 16). With 48, and prints
/// left to the importers up to [`PRINTS_HERE_FROM_WAITING`], the importers' idle time in
/// x60 `analyze`'s load went from about 130 to 25 ms (docs/speed.md, "CPU, ninth round").
const CHANNEL_BATCHES: usize = 48;

static SEVERAL_LOADS: AtomicBool = AtomicBool::new(false);

/// Several traces loading at once already use every core: each then loads on one thread.
pub fn set_several_loads(on: bool) {
    SEVERAL_LOADS.store(on, Ordering::Relaxed);
}

/// Whether several traces are in flight (each then keeps to one thread: the analysis too).
pub fn several_loads() -> bool {
    SEVERAL_LOADS.load(Ordering::Relaxed)
}

/// A trace below this loads on one thread: its load is over before a second thread pays.
pub const TWO_THREADS_FROM: u64 = 8 << 20;

/// A batch is handed on once it holds this many calls or payload bytes.
#[derive(Debug, Clone, Copy)]
pub struct BatchSize {
    pub cmds: usize,
    pub bytes: usize,
}

impl Default for BatchSize {
    fn default() -> Self {
        // Under 512 KiB a batch with its side lists; twice as large ones were no faster and
        // raised the x60 `analyze` peak by up to 9 MiB (docs/speed.md). A full queue
        // ([`CHANNEL_BATCHES`]) is rare: the events in it have left the sorter's arena.
        BatchSize {
            cmds: 4096,
            bytes: 128 << 10,
        }
    }
}

/// A range of a batch's payload bytes.
#[derive(Clone, Copy)]
struct Bytes {
    at: u32,
    len: u32,
}

impl Bytes {
    const EMPTY: Bytes = Bytes { at: 0, len: 0 };

    fn range(self) -> std::ops::Range<usize> {
        self.at as usize..(self.at + self.len) as usize
    }

    fn of(self, bytes: &[u8]) -> &[u8] {
        &bytes[self.range()]
    }
}

/// What a [`Cmd`] asks of the importers, and what its fields hold.
#[derive(Clone, Copy)]
#[repr(u8)]
enum Kind {
    /// (ts, cpu, the event's bytes).
    Ftrace,
    /// A print event's atrace slice begin, read here: (ts, pid, tgid, name in
    /// `Batch::text`). Reading prints was the largest share of the importers' thread.
    AtraceBegin,
    /// A slice begin as above whose name the loading thread interned: (ts, pid, tgid, the
    /// tokenizer's name id in `bytes.at`). Interning was the importers' largest piece of
    /// a begin, and their thread is the longer side of the load.
    AtraceBeginNamed,
    /// A print event's atrace counter, read and its name interned here: (ts, pid, tgid,
    /// index in `Batch::counters`).
    AtraceCounterNamed,
    /// (ts, pid, tgid) of a print event's atrace slice end.
    AtraceEnd,
    /// (ts, pid, PrintFtraceEvent) of a print event left to the importers.
    Print,
    /// (ts, cpu, index in `Batch::switches`).
    Switch,
    /// (ts, cpu, index in `Batch::wakings`).
    Waking,
    /// (ts, index in `Batch::packets`, payload).
    Packet,
    /// (ts, sequence, interned-data interval, payload).
    TrackEvent,
    OutOfOrder,
    /// The next of `Batch::stats`.
    Stat,
    /// (packet kind).
    CountPacket,
    /// (the tokenizer's next name).
    Name,
    /// (inherited interval, whether there is one).
    NewInterval,
    /// (interval, field, message).
    Interned,
    /// The next of `Batch::calls`.
    Call,
}

/// One call to the importers' side: a plain 32-byte record (a batch holds thousands);
/// what does not fit waits in the batch's side lists. Not an enum with fields: those were
/// assembled on the stack with narrow stores and copied into the batch with wide loads, a
/// store-forwarding stall on every event (docs/speed.md, "CPU, eighteenth round").
#[derive(Clone, Copy)]
struct Cmd {
    ts: i64,
    bytes: Bytes,
    a: u32,
    b: u32,
    kind: Kind,
}

impl Cmd {
    fn new(kind: Kind, ts: i64, a: u32, b: u32, bytes: Bytes) -> Self {
        Cmd {
            ts,
            bytes,
            a,
            b,
            kind,
        }
    }

    fn bare(kind: Kind, a: u32, b: u32) -> Self {
        Cmd::new(kind, 0, a, b, Bytes::EMPTY)
    }
}

/// The arguments of `Store::stat_add`.
struct Stat {
    name: &'static str,
    index: i64,
    severity: Severity,
    what: &'static str,
    n: i64,
}

/// Rare calls (a few per trace), carrying their own copy of what they read.
type Call = Box<dyn FnOnce(&mut Importer) + Send>;

const _: () = assert!(std::mem::size_of::<Cmd>() <= 32);

#[derive(Default)]
struct Batch {
    cmds: Vec<Cmd>,
    bytes: Vec<u8>,
    /// Names already checked to be UTF-8.
    text: String,
    switches: Vec<CompactSwitch>,
    wakings: Vec<CompactWaking>,
    packets: Vec<PacketEvent>,
    /// Counters' (tokenizer name id, value).
    counters: Vec<(StrId, i64)>,
    stats: Vec<Stat>,
    calls: Vec<Call>,
}

impl Batch {
    fn keep(&mut self, data: &[u8]) -> Bytes {
        let at = self.bytes.len() as u32;
        self.bytes.extend_from_slice(data);
        Bytes {
            at,
            len: data.len() as u32,
        }
    }

    fn keep_str(&mut self, s: &str) -> Bytes {
        let at = self.text.len() as u32;
        self.text.push_str(s);
        Bytes {
            at,
            len: s.len() as u32,
        }
    }

    /// Applies every call in order and empties the batch (its buffers are kept for reuse).
    fn apply(&mut self, imp: &mut Importer) {
        let mut stats = self.stats.drain(..);
        let mut calls = self.calls.drain(..);
        for cmd in self.cmds.drain(..) {
            let (ts, a, b) = (cmd.ts, cmd.a, cmd.b);
            match cmd.kind {
                Kind::Ftrace => imp.ftrace(ts, a, cmd.bytes.of(&self.bytes)),
                Kind::AtraceBegin => {
                    let name = &self.text[cmd.bytes.range()];
                    imp.atrace_print(ts, a, Record::Begin { tgid: b, name })
                }
                Kind::AtraceBeginNamed => {
                    if let Some(name) = imp.ctx.tokenizer_name(StrId::from_index(cmd.bytes.at)) {
                        imp.atrace_named(ts, a, Named::Begin { tgid: b, name })
                    }
                }
                Kind::AtraceCounterNamed => {
                    let (name, value) = self.counters[cmd.bytes.at as usize];
                    if let Some(name) = imp.ctx.tokenizer_name(name) {
                        imp.atrace_named(
                            ts,
                            a,
                            Named::Counter {
                                tgid: b,
                                name,
                                value,
                            },
                        )
                    }
                }
                Kind::AtraceEnd => imp.atrace_print(ts, a, Record::End { tgid: b }),
                Kind::Print => imp.print(ts, a, cmd.bytes.of(&self.bytes)),
                Kind::Switch => {
                    let mut e = self.switches[b as usize];
                    e.next_comm = imp.ctx.tokenizer_name(e.next_comm).unwrap_or_default();
                    imp.compact_switch(ts, a, &e)
                }
                Kind::Waking => {
                    let mut e = self.wakings[b as usize];
                    e.comm = imp.ctx.tokenizer_name(e.comm).unwrap_or_default();
                    imp.compact_waking(ts, a, &e)
                }
                Kind::Packet => {
                    let bytes = cmd.bytes.of(&self.bytes);
                    imp.packet(ts, &self.packets[a as usize], bytes)
                }
                Kind::TrackEvent => {
                    let meta = TrackEventMeta {
                        seq_id: a,
                        interval: b,
                    };
                    imp.track_event(ts, &meta, cmd.bytes.of(&self.bytes))
                }
                Kind::OutOfOrder => imp.out_of_order(),
                Kind::Stat => {
                    if let Some(s) = stats.next() {
                        imp.ctx
                            .store
                            .stat_add(s.name, s.index, s.severity, s.what, s.n)
                    }
                }
                Kind::CountPacket => imp.ctx.store.trace_info.count_packet(a),
                Kind::Name => {
                    let text = String::from_utf8_lossy(cmd.bytes.of(&self.bytes));
                    let id = imp.ctx.store.intern(&text);
                    imp.ctx.tokenizer_names.push(id);
                }
                Kind::NewInterval => {
                    imp.track_event.interned.new_interval((b != 0).then_some(a));
                }
                Kind::Interned => {
                    let bytes = cmd.bytes.of(&self.bytes);
                    imp.track_event.interned.add(a, b, bytes);
                }
                Kind::Call => {
                    if let Some(f) = calls.next() {
                        f(imp)
                    }
                }
            }
        }
        drop((stats, calls));
        self.bytes.clear();
        self.text.clear();
        self.switches.clear();
        self.wakings.clear();
        self.packets.clear();
        self.counters.clear();
    }
}

/// Where full batches go.
enum Target<'a> {
    Here(&'a mut Importer),
    Thread(Channel<'a>),
}

struct Channel<'a> {
    to_importers: Option<SyncSender<Batch>>,
    /// Applied batches come back empty, for reuse.
    applied: Receiver<Batch>,
    in_flight: usize,
    spare: Vec<Batch>,
    /// Batches sent, and batches the importers' thread has applied (it counts them as it
    /// goes; `in_flight` learns of them only when their buffers are taken back).
    sent: usize,
    applied_count: &'a AtomicUsize,
}

impl Channel<'_> {
    /// Waits until every batch sent has been applied.
    fn catch_up(&mut self) {
        while self.in_flight > 0 {
            match self.applied.recv() {
                Ok(b) => self.spare.push(b),
                // The importers' thread is gone (it panicked): the scope reports it.
                Err(_) => break,
            }
            self.in_flight -= 1;
        }
    }
}

/// The tokenizer's host on the loading thread: records every call in order.
pub struct Forwarder<'a> {
    batch: Batch,
    size: BatchSize,
    target: Target<'a>,
    /// The tokenizer's names, by its own ids (see [`TokenizerHost::name`]).
    names: StringPool,
    intervals: u32,
    track_events: track_event::Tokenizer,
    /// Whether print events are read here ([`Kind::AtraceBegin`]) or left to the importers.
    read_prints: bool,
    /// Whether the names of the begins and counters read here are interned here too
    /// ([`Kind::AtraceBeginNamed`], [`Kind::AtraceCounterNamed`]): only when the importers
    /// run on their own thread, as it moves work to this one. Counters are read only then.
    intern_read_names: bool,
}

impl<'a> Forwarder<'a> {
    fn new(target: Target<'a>, size: BatchSize) -> Self {
        let intern_read_names = matches!(target, Target::Thread(_));
        Forwarder {
            intern_read_names,
            batch: Batch::default(),
            size,
            target,
            names: StringPool::default(),
            intervals: 0,
            track_events: Default::default(),
            read_prints: true,
        }
    }

    fn push(&mut self, cmd: Cmd) {
        self.batch.cmds.push(cmd);
        let bytes = self.batch.bytes.len() + self.batch.text.len();
        if self.batch.cmds.len() >= self.size.cmds || bytes >= self.size.bytes {
            self.flush();
        }
    }

    /// Hands the batch on: applied here, or sent to the importers' thread.
    fn flush(&mut self) {
        if self.batch.cmds.is_empty() {
            return;
        }
        match &mut self.target {
            Target::Here(imp) => self.batch.apply(imp),
            Target::Thread(ch) => {
                let next = match ch.spare.pop() {
                    Some(b) => b,
                    None => match ch.applied.try_recv() {
                        Ok(b) => {
                            ch.in_flight -= 1;
                            b
                        }
                        Err(_) => Batch::default(),
                    },
                };
                let full = std::mem::replace(&mut self.batch, next);
                if let Some(tx) = &ch.to_importers {
                    if tx.send(full).is_ok() {
                        ch.in_flight += 1;
                        ch.sent += 1;
                    } else {
                        ch.to_importers = None;
                    }
                }
                let waiting = ch.sent - ch.applied_count.load(Ordering::Acquire);
                self.read_prints = importers_behind(waiting);
            }
        }
    }

    fn call(&mut self, f: impl FnOnce(&mut Importer) + Send + 'static) {
        self.batch.calls.push(Box::new(f));
        self.push(Cmd::bare(Kind::Call, 0, 0));
    }

    /// The tokenizer's id of `text` (read from `bytes`); a name not seen before is sent to
    /// the importers, who intern it in the store and map the id to theirs.
    fn intern_name(&mut self, text: &str, bytes: &[u8]) -> StrId {
        let known = self.names.len();
        let id = self.names.intern(text);
        if self.names.len() > known {
            let b = self.batch.keep(bytes);
            self.push(Cmd::new(Kind::Name, 0, 0, 0, b));
        }
        id
    }

    /// Applies what is left and stops the importers' thread.
    fn finish(mut self) {
        self.flush();
        if let Target::Thread(ch) = &mut self.target {
            ch.to_importers = None;
            ch.catch_up();
        }
    }
}

/// Runs `load` with a host whose calls reach `imp` in order, on a second thread when
/// `threads` says so. Returns the importer with every call applied.
pub fn run<R>(
    imp: Importer,
    threads: Threads,
    size: BatchSize,
    load: impl FnOnce(&mut Forwarder<'_>) -> R,
) -> (Importer, R) {
    match threads {
        Threads::One => {
            let mut imp = imp;
            let mut fwd = Forwarder::new(Target::Here(&mut imp), size);
            let r = load(&mut fwd);
            fwd.finish();
            (imp, r)
        }
        Threads::Two => {
            let (to_importers, batches) = mpsc::sync_channel::<Batch>(CHANNEL_BATCHES);
            let (give_back, applied) = mpsc::channel::<Batch>();
            let applied_count = AtomicUsize::new(0);
            std::thread::scope(|s| {
                let counter = &applied_count;
                let importers = s.spawn(move || apply_all(imp, batches, give_back, counter));
                let ch = Channel {
                    to_importers: Some(to_importers),
                    applied,
                    in_flight: 0,
                    spare: Vec::new(),
                    sent: 0,
                    applied_count: counter,
                };
                let mut fwd = Forwarder::new(Target::Thread(ch), size);
                let r = load(&mut fwd);
                fwd.finish();
                let imp = importers
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                (imp, r)
            })
        }
    }
}

/// Whether the loading thread should read print events itself, given how many batches it
/// has sent that the importers have not applied yet. Reading prints is the largest piece of
/// work either side can take from the other (docs/speed.md, "CPU, eighth round"): while the
/// importers keep up, they read them; once a backlog builds, the loading thread does.
fn importers_behind(waiting: usize) -> bool {
    waiting > PRINTS_HERE_FROM_WAITING
}

/// Batches waiting beyond which the loading thread reads prints itself. Below it the
/// window's events go out fast and raw, a backlog builds, and the importers read the prints
/// from it while the loading thread tokenizes the next window. x60 `analyze` (1 MiB arena
/// chunks): 1.05 s at 2 with a queue of 16, 0.97 s at 20 with 48, at the same peak; 40 with
/// 48, or 32 with 64, were no faster and peaked 1 to 3 MiB higher.
const PRINTS_HERE_FROM_WAITING: usize = 20;

/// The next batch, None once the loading thread stops sending. While none is waiting the
/// importers fault in their tables' pages ahead of the rows (`store::prefault`), a step at
/// a time, then wait.
fn next_batch(batches: &Receiver<Batch>, imp: &mut Importer) -> Option<Batch> {
    loop {
        match batches.try_recv() {
            Ok(batch) => return Some(batch),
            Err(TryRecvError::Disconnected) => return None,
            Err(TryRecvError::Empty) => {
                if !imp.ctx.store.fault_in_ahead() {
                    return batches.recv().ok();
                }
            }
        }
    }
}

/// The importers' thread: applies batches as they come, counts them and gives them back;
/// returns the importers once the loading thread stops sending.
fn apply_all(
    mut imp: Importer,
    batches: Receiver<Batch>,
    give_back: Sender<Batch>,
    applied: &AtomicUsize,
) -> Importer {
    while let Some(mut batch) = next_batch(&batches, &mut imp) {
        batch.apply(&mut imp);
        applied.fetch_add(1, Ordering::Release);
        if give_back.send(batch).is_err() {
            break;
        }
    }
    imp
}

impl EventSink for Forwarder<'_> {
    fn ftrace(&mut self, ts: i64, cpu: u32, event: &[u8]) {
        let b = self.batch.keep(event);
        self.push(Cmd::new(Kind::Ftrace, ts, cpu, 0, b));
    }
    fn print(&mut self, ts: i64, pid: u32, print: &[u8]) {
        let read = if self.read_prints {
            read_print(print_buf(print), self.intern_read_names)
        } else {
            None
        };
        let cmd = match read {
            Some(Record::Begin { tgid, name })
                if self.intern_read_names && !begin_reads_text(name) =>
            {
                let id = self.intern_name(name, name.as_bytes());
                let at = Bytes {
                    at: id.index(),
                    len: 0,
                };
                Cmd::new(Kind::AtraceBeginNamed, ts, pid, tgid, at)
            }
            Some(Record::Begin { tgid, name }) => {
                Cmd::new(Kind::AtraceBegin, ts, pid, tgid, self.batch.keep_str(name))
            }
            Some(Record::End { tgid }) => Cmd::new(Kind::AtraceEnd, ts, pid, tgid, Bytes::EMPTY),
            Some(Record::Counter { tgid, name, value })
                if self.intern_read_names && !counter_reads_text(name) =>
            {
                let id = self.intern_name(name, name.as_bytes());
                self.batch.counters.push((id, value));
                let at = Bytes {
                    at: self.batch.counters.len() as u32 - 1,
                    len: 0,
                };
                Cmd::new(Kind::AtraceCounterNamed, ts, pid, tgid, at)
            }
            _ => Cmd::new(Kind::Print, ts, pid, 0, self.batch.keep(print)),
        };
        self.push(cmd);
    }
    fn compact_switch(&mut self, ts: i64, cpu: u32, e: &CompactSwitch) {
        self.batch.switches.push(*e);
        let i = self.batch.switches.len() as u32 - 1;
        self.push(Cmd::new(Kind::Switch, ts, cpu, i, Bytes::EMPTY));
    }
    fn compact_waking(&mut self, ts: i64, cpu: u32, e: &CompactWaking) {
        self.batch.wakings.push(*e);
        let i = self.batch.wakings.len() as u32 - 1;
        self.push(Cmd::new(Kind::Waking, ts, cpu, i, Bytes::EMPTY));
    }
    fn packet(&mut self, ts: i64, e: &PacketEvent, payload: &[u8]) {
        let b = self.batch.keep(payload);
        self.batch.packets.push(*e);
        let i = self.batch.packets.len() as u32 - 1;
        self.push(Cmd::new(Kind::Packet, ts, i, 0, b));
    }
    fn track_event(&mut self, ts: i64, meta: &TrackEventMeta, payload: &[u8]) {
        let b = self.batch.keep(payload);
        self.push(Cmd::new(
            Kind::TrackEvent,
            ts,
            meta.seq_id,
            meta.interval,
            b,
        ));
    }
    fn out_of_order(&mut self) {
        self.push(Cmd::bare(Kind::OutOfOrder, 0, 0));
    }
}

impl TokenizerHost for Forwarder<'_> {
    fn forecast_rows(&mut self, rows: RowForecast) {
        // On one thread there is no waiting to fill: the pages fault in as rows come.
        if matches!(self.target, Target::Thread(_)) {
            self.call(move |imp| imp.expect_rows(rows));
            self.flush();
        }
    }
    fn stat_add(
        &mut self,
        name: &'static str,
        index: i64,
        severity: Severity,
        what: &'static str,
        n: i64,
    ) {
        self.batch.stats.push(Stat {
            name,
            index,
            severity,
            what,
            n,
        });
        self.push(Cmd::bare(Kind::Stat, 0, 0));
    }
    fn count_packet(&mut self, kind: u32) {
        self.push(Cmd::bare(Kind::CountPacket, kind, 0));
    }
    fn set_metadata(&mut self, key: &'static str, value: MetaValue) {
        self.call(move |imp| imp.ctx.store.set_metadata(key, value));
    }
    fn raise_metadata(&mut self, key: &'static str, value: i64) {
        self.call(move |imp| {
            let store = &mut imp.ctx.store;
            if store.metadata_int(key).is_none_or(|cur| value > cur) {
                store.set_metadata(key, MetaValue::Int(value));
            }
        });
    }
    fn name(&mut self, bytes: &[u8]) -> StrId {
        self.intern_name(&String::from_utf8_lossy(bytes), bytes)
    }
    fn new_interval(&mut self, inherit: Option<u32>) -> u32 {
        self.push(Cmd::bare(
            Kind::NewInterval,
            inherit.unwrap_or(0),
            inherit.is_some() as u32,
        ));
        self.intervals += 1;
        self.intervals - 1
    }
    fn add_interned(&mut self, interval: u32, field: u32, message: &[u8]) -> bool {
        if iid_of(message).is_none() || interval >= self.intervals {
            return false;
        }
        let b = self.batch.keep(message);
        self.push(Cmd::new(Kind::Interned, 0, interval, field, b));
        true
    }
    fn on_system_info(&mut self, info: &protos::SystemInfo) {
        let info = info.clone();
        self.call(move |imp| imp.system_info(&info));
    }
    fn on_power_rail_descriptors(&mut self, power_rails: &[u8]) {
        let data = power_rails.to_vec();
        self.call(move |imp| imp.power.rail_descriptors(&mut imp.ctx, &data));
    }
    fn tokenize_track_packet(
        &mut self,
        p: &SequencePacket<'_>,
        clocks: &mut ClockTracker,
        sorter: &mut Sorter,
    ) -> bool {
        // The tokenizer calls back into this host for its stats and descriptors.
        let mut track_events = std::mem::take(&mut self.track_events);
        let consumed = track_events.packet(self, p, clocks, sorter);
        self.track_events = track_events;
        consumed
    }
    fn on_track_descriptor(&mut self, ts: i64, data: &[u8]) {
        let data = data.to_vec();
        self.call(move |imp| {
            imp.track_event
                .reserve_described(&mut imp.ctx.store, ts, &data)
        });
    }
    fn on_first_packet_on_sequence(&mut self, seq_id: u32) {
        self.call(move |imp| imp.track_event.on_first_packet_on_sequence(seq_id));
    }
    fn on_trace_config(&mut self, config: &[u8]) {
        let data = config.to_vec();
        self.call(move |imp| {
            imp.ctx.store.trace_info.config = Some(super::trace_config::parse(&data))
        });
    }
    fn on_trace_stats(&mut self, stats: &[u8]) {
        let data = stats.to_vec();
        self.call(move |imp| super::trace_stats::trace_stats(&mut imp.ctx.store, &data));
    }
    fn on_ftrace_stats(&mut self, stats: &[u8]) {
        let data = stats.to_vec();
        self.call(move |imp| super::ftrace_stats::ftrace_stats(&mut imp.ctx.store, &data));
    }
    fn on_gpu_info(&mut self, gpu_info: &[u8]) {
        let data = gpu_info.to_vec();
        self.call(move |imp| super::system_info::gpu_info(&mut imp.ctx.store, &data));
    }
    fn on_cpu_info(&mut self, cpu_info: &[u8]) {
        let data = cpu_info.to_vec();
        self.call(move |imp| super::system_info::cpu_info(&mut imp.ctx.store, &data));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// While no batch waits, the importers fault in their tables ahead of the rows, then
    /// take the batch when it comes.
    #[test]
    fn importers_fault_tables_in_while_they_wait() {
        let (tx, rx) = mpsc::sync_channel::<Batch>(1);
        let mut imp = Importer::new();
        let rows = RowForecast {
            slices: 20_000,
            thread_states: 30_000,
        };
        imp.ctx.store.ahead.expect(rows);
        let sender = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(200));
            tx.send(Batch::default()).unwrap();
        });
        assert!(next_batch(&rx, &mut imp).is_some());
        let store = &mut imp.ctx.store;
        assert!(store.slices.capacity() >= rows.slices);
        assert!(
            !store.fault_in_ahead(),
            "everything forecast was faulted in meanwhile"
        );
        assert!(store.slices.is_empty() && store.thread_states.is_empty());
        sender.join().unwrap();
        assert!(next_batch(&rx, &mut imp).is_none(), "the sender is gone");
    }
}
