//! Hands events on in timestamp order, as trace_processor's sorter does: one queue per
//! stream (packets, then per-CPU ftrace / compact-sched streams in creation order), each queue
//! sorted by (timestamp, push order), queues merged by always draining the queue with the
//! smallest head up to the next queue's head (ties go to the lower queue index). In the
//! default mode events are extracted in windows delimited by the service's flush /
//! read-buffer events; full-sort mode extracts everything at the end.

use std::collections::VecDeque;

use crate::store::strings::StrId;

/// Reference to bytes kept in a [`BlobArena`]. The length's top bit marks a blob as a print
/// event's record ([`Sorter::push_print`]), so that an ftrace queue entry stays 24 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Blob {
    chunk: u32,
    off: u32,
    len: u32,
}

impl Blob {
    const PRINT: u32 = 1 << 31;

    fn len(self) -> u32 {
        self.len & !Blob::PRINT
    }

    fn is_print(self) -> bool {
        self.len & Blob::PRINT != 0
    }
}

/// A payload left behind by a window's extraction keeps its whole chunk: 1 MiB chunks put
/// the x60 `analyze` peak 3 MiB below 4 MiB ones, at the same speed (docs/speed.md).
const CHUNK_BYTES: usize = 1 << 20;

/// Append-only byte storage for event payloads waiting to be sorted. Chunks are freed as soon
/// as every blob in them has been handed on.
#[derive(Default)]
pub struct BlobArena {
    chunks: Vec<Option<Vec<u8>>>,
    live: Vec<u32>,
    bytes_held: usize,
    /// Bytes of the blobs not yet released.
    live_bytes: usize,
    /// The last chunk freed, emptied, for the next one: a fresh chunk costs a page fault per
    /// 4 KiB page, a reused one none.
    spare: Option<Vec<u8>>,
}

impl BlobArena {
    pub fn push(&mut self, data: &[u8]) -> Blob {
        self.push_parts(&[], data)
    }

    /// Keeps `head` and `data` back to back, as one blob (a head of known size is written
    /// in place, not copied by a call).
    fn push_parts<const N: usize>(&mut self, head: &[u8; N], data: &[u8]) -> Blob {
        let len = N + data.len();
        // Packets are at most 256 MiB (`reader::MAX_PACKET_BYTES`): the top bit is free.
        debug_assert!(len < Blob::PRINT as usize);
        let need_new = match self.chunks.last() {
            Some(Some(c)) => c.capacity() - c.len() < len,
            _ => true,
        };
        if need_new {
            // A chunk emptied while it was still being filled was kept; it is done now.
            if let (Some(last), Some(0)) = (self.chunks.len().checked_sub(1), self.live.last()) {
                self.free_chunk(last);
            }
            let chunk = match self.spare.take() {
                Some(c) if c.capacity() >= len => c,
                _ => Vec::with_capacity(CHUNK_BYTES.max(len)),
            };
            self.bytes_held += chunk.capacity();
            self.chunks.push(Some(chunk));
            self.live.push(0);
        }
        let chunk = self.chunks.len() - 1;
        let c = self.chunks[chunk].as_mut().expect("current chunk is live");
        let off = c.len();
        c.extend_from_slice(head);
        c.extend_from_slice(data);
        self.live[chunk] += 1;
        self.live_bytes += len;
        Blob {
            chunk: chunk as u32,
            off: off as u32,
            len: len as u32,
        }
    }

    /// A copy of `old`'s blob `b` kept here, marked as `b` is.
    fn moved_from(&mut self, old: &BlobArena, b: Blob) -> Blob {
        let mut moved = self.push(old.get(b));
        moved.len |= b.len & Blob::PRINT;
        moved
    }

    pub fn get(&self, b: Blob) -> &[u8] {
        let c = self.chunks[b.chunk as usize]
            .as_ref()
            .expect("blob read after release");
        &c[b.off as usize..(b.off + b.len()) as usize]
    }

    /// Marks a blob consumed; frees its chunk when nothing else lives in it (the chunk being
    /// filled is kept).
    pub fn release(&mut self, b: Blob) {
        let i = b.chunk as usize;
        self.live[i] -= 1;
        self.live_bytes -= b.len() as usize;
        if self.live[i] == 0 && i + 1 < self.chunks.len() {
            self.free_chunk(i);
        }
    }

    fn free_chunk(&mut self, i: usize) {
        if let Some(c) = self.chunks[i].take() {
            self.bytes_held -= c.capacity();
            self.offer_spare(c);
        }
    }

    /// Keeps a chunk of the usual size, emptied, as the spare.
    fn offer_spare(&mut self, mut c: Vec<u8>) {
        if c.capacity() == CHUNK_BYTES {
            c.clear();
            self.spare = Some(c);
        }
    }

    /// Starts an arena that replaces `old`: it takes `old`'s spare chunk for its first.
    fn succeeding(old: &mut BlobArena) -> BlobArena {
        BlobArena {
            spare: old.spare.take(),
            ..BlobArena::default()
        }
    }

    /// Keeps one of `old`'s chunks (once its payloads are copied out) as the spare.
    fn keep_spare_from(&mut self, old: BlobArena) {
        if self.spare.is_none() {
            if let Some(c) = old
                .chunks
                .into_iter()
                .flatten()
                .find(|c| c.capacity() == CHUNK_BYTES)
            {
                self.offer_spare(c);
            }
        }
    }

    pub fn bytes_held(&self) -> usize {
        self.bytes_held
    }

    /// True when most of the memory held is chunks kept alive by a few unreleased blobs.
    fn is_sparse(&self) -> bool {
        self.bytes_held > 2 * self.live_bytes + 2 * CHUNK_BYTES
    }
}

/// A sched_switch record from a compact_sched bundle.
#[derive(Debug, Clone, Copy)]
pub struct CompactSwitch {
    pub prev_state: i64,
    pub next_pid: i32,
    pub next_prio: i32,
    pub next_comm: StrId,
}

/// A sched_waking record from a compact_sched bundle.
#[derive(Debug, Clone, Copy)]
pub struct CompactWaking {
    pub pid: i32,
    pub target_cpu: i32,
    pub prio: i32,
    pub comm: StrId,
    pub common_flags: u32,
}

/// A whole TracePacket field (frame timeline, process tree, ...) waiting for its turn.
#[derive(Debug, Clone, Copy)]
pub struct PacketEvent {
    /// TracePacket field number of the payload.
    pub field: u32,
    pub blob: Blob,
    pub machine_id: Option<u32>,
}

/// The sequence a TrackEvent was read on; what its tokenizer worked out from the
/// sequence's state travels in the payload (its layout is the importer's business).
#[derive(Debug, Clone, Copy, Default)]
pub struct TrackEventMeta {
    pub seq_id: u32,
    /// Interned-data interval of the sequence when the event was read.
    pub interval: u32,
}

/// A TrackEvent waiting for its turn.
#[derive(Debug, Clone, Copy)]
struct TrackEventItem {
    meta: TrackEventMeta,
    blob: Blob,
}

/// Receives events in order.
pub trait EventSink {
    fn ftrace(&mut self, ts: i64, cpu: u32, event: &[u8]);
    /// A print event, as [`Sorter::push_print`] queued it: its thread and its
    /// PrintFtraceEvent.
    fn print(&mut self, ts: i64, pid: u32, print: &[u8]);
    fn compact_switch(&mut self, ts: i64, cpu: u32, e: &CompactSwitch);
    fn compact_waking(&mut self, ts: i64, cpu: u32, e: &CompactWaking);
    fn packet(&mut self, ts: i64, e: &PacketEvent, payload: &[u8]);
    /// A TrackEvent, with the payload its tokenizer queued.
    fn track_event(&mut self, _ts: i64, _meta: &TrackEventMeta, _payload: &[u8]) {}
    /// An event arrived after a later one had already been handed on (windowed mode only).
    fn out_of_order(&mut self);
}

/// One stream's events, oldest first. A ring buffer: a window's extraction takes events off
/// the front while the next window's are pushed at the back, so nothing is moved (the
/// vector this replaced copied every event left after a window to its front: 1.3% of x60
/// `analyze`'s samples, on the loading thread).
struct Queue<T> {
    events: VecDeque<(i64, u32, T)>,
    min_ts: i64,
    max_ts: i64,
    unsorted: bool,
}

impl<T: Copy> Queue<T> {
    fn new() -> Self {
        Queue {
            events: VecDeque::new(),
            min_ts: i64::MAX,
            max_ts: 0,
            unsorted: false,
        }
    }

    fn push(&mut self, ts: i64, alloc: u32, v: T) {
        if ts < self.max_ts {
            self.unsorted = true;
        } else {
            self.max_ts = ts;
        }
        self.min_ts = self.min_ts.min(ts);
        self.events.push_back((ts, alloc, v));
    }

    fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    fn pending_mut(&mut self) -> impl Iterator<Item = &mut (i64, u32, T)> {
        self.events.iter_mut()
    }

    fn sort(&mut self) {
        if self.unsorted {
            // Stable: equal timestamps keep push (allocation) order.
            self.events.make_contiguous().sort_by_key(|e| e.0);
            self.unsorted = false;
        }
    }

    /// After events were taken off the front: the new head, and the memory given back.
    /// `give_back` frees what they held: at the final extraction, where a full sort's queues
    /// hold the whole trace. Between windows up to [`KEPT_QUEUE_BYTES`] stay for the next
    /// window, which would otherwise fault its pages in again (the queues were 39% of x60
    /// `analyze`'s page faults).
    fn consumed(&mut self, give_back: bool) {
        let keep = if give_back {
            1024
        } else {
            KEPT_QUEUE_BYTES / std::mem::size_of::<(i64, u32, T)>()
        };
        match self.events.front() {
            None => {
                self.events.shrink_to(keep);
                self.min_ts = i64::MAX;
                self.max_ts = 0;
            }
            Some(&(head, ..)) => {
                // A buffer mostly free (by more than 4096 entries) shrinks to what it holds:
                // without service events the whole trace is extracted at the end, and the
                // queues would stay full while rows are built. Halving at least each time
                // keeps the copies linear in all. (Nothing to give back at or below `keep`:
                // the common case, tested first.)
                let (cap, len) = (self.events.capacity(), self.events.len());
                if cap > keep && cap - len > 4096 && cap - len > len {
                    self.events.shrink_to(len.max(keep));
                }
                self.min_ts = head;
            }
        }
    }
}

/// What a queue keeps between windows: a bound on the memory held for the next window. On
/// x60 the windows' queues fit (256 KiB did not: most of the page faults came back).
const KEPT_QUEUE_BYTES: usize = 2 << 20;

enum AnyQueue {
    Packet(Queue<PacketEvent>),
    TrackEvent(Queue<TrackEventItem>),
    Ftrace(u32, Queue<Blob>),
    Switch(u32, Queue<CompactSwitch>),
    Waking(u32, Queue<CompactWaking>),
}

impl AnyQueue {
    fn min_ts(&self) -> Option<i64> {
        let (empty, min) = match self {
            AnyQueue::Packet(q) => (q.is_empty(), q.min_ts),
            AnyQueue::TrackEvent(q) => (q.is_empty(), q.min_ts),
            AnyQueue::Ftrace(_, q) => (q.is_empty(), q.min_ts),
            AnyQueue::Switch(_, q) => (q.is_empty(), q.min_ts),
            AnyQueue::Waking(_, q) => (q.is_empty(), q.min_ts),
        };
        (!empty).then_some(min)
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SortingMode {
    Default,
    FullSort,
}

const NO_QUEUE: u32 = u32::MAX;

/// The per-CPU streams, numbered for `Sorter::stream_index`.
#[derive(Clone, Copy)]
enum CpuStream {
    Ftrace = 0,
    Switch = 1,
    Waking = 2,
}

pub struct Sorter {
    pub arena: BlobArena,
    queues: Vec<AnyQueue>,
    /// Each CPU's queue index per [`CpuStream`], `NO_QUEUE` until its first event: looked
    /// up for every ftrace event, so a vector, not a map.
    stream_index: Vec<[u32; 3]>,
    next_alloc: u32,
    mode: SortingMode,
    extraction_limit: u32,
    flushes_since_extraction: u32,
    /// The latest timestamp handed on; `i64::MIN` before the first.
    latest_pushed_ts: i64,
    max_ts: i64,
    pub negative_ts_dropped: u64,
    pub pushed: Pushed,
}

/// Events of the kinds that fill the largest tables, counted as they are pushed (for
/// `import::forecast`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pushed {
    pub prints: u64,
    pub switches: u64,
}

impl Default for Sorter {
    fn default() -> Self {
        Sorter {
            arena: BlobArena::default(),
            // Queue 0 carries whole packets and queue 1 track events, as trace_processor's
            // first two streams do.
            queues: vec![
                AnyQueue::Packet(Queue::new()),
                AnyQueue::TrackEvent(Queue::new()),
            ],
            stream_index: Default::default(),
            next_alloc: 0,
            mode: SortingMode::Default,
            extraction_limit: 0,
            flushes_since_extraction: 0,
            latest_pushed_ts: i64::MIN,
            max_ts: 0,
            negative_ts_dropped: 0,
            pushed: Pushed::default(),
        }
    }
}

impl Sorter {
    pub fn max_ts(&self) -> i64 {
        self.max_ts
    }

    pub fn mode(&self) -> SortingMode {
        self.mode
    }

    /// Switching to full sort is only possible before anything was handed on.
    pub fn set_full_sort(&mut self) -> bool {
        if self.mode == SortingMode::FullSort {
            return true;
        }
        if self.latest_pushed_ts != i64::MIN {
            return false;
        }
        self.mode = SortingMode::FullSort;
        true
    }

    fn alloc(&mut self, ts: i64) -> Option<u32> {
        if ts < 0 {
            self.negative_ts_dropped += 1;
            return None;
        }
        self.max_ts = self.max_ts.max(ts);
        let a = self.next_alloc;
        self.next_alloc = self.next_alloc.wrapping_add(1);
        Some(a)
    }

    fn stream(&mut self, cpu: u32, kind: CpuStream) -> usize {
        let at = cpu as usize;
        if let Some(&i) = self.stream_index.get(at).map(|k| &k[kind as usize]) {
            if i != NO_QUEUE {
                return i as usize;
            }
        }
        self.queues.push(match kind {
            CpuStream::Ftrace => AnyQueue::Ftrace(cpu, Queue::new()),
            CpuStream::Switch => AnyQueue::Switch(cpu, Queue::new()),
            CpuStream::Waking => AnyQueue::Waking(cpu, Queue::new()),
        });
        if self.stream_index.len() <= at {
            self.stream_index.resize(at + 1, [NO_QUEUE; 3]);
        }
        self.stream_index[at][kind as usize] = (self.queues.len() - 1) as u32;
        self.queues.len() - 1
    }

    pub fn push_packet(&mut self, ts: i64, field: u32, payload: &[u8], machine_id: Option<u32>) {
        let Some(a) = self.alloc(ts) else { return };
        let blob = self.arena.push(payload);
        if let AnyQueue::Packet(q) = &mut self.queues[0] {
            q.push(
                ts,
                a,
                PacketEvent {
                    field,
                    blob,
                    machine_id,
                },
            );
        }
    }

    /// Queues a TrackEvent with an opaque payload.
    pub fn push_track_event(&mut self, ts: i64, meta: TrackEventMeta, payload: &[u8]) {
        let Some(a) = self.alloc(ts) else { return };
        let blob = self.arena.push(payload);
        if let AnyQueue::TrackEvent(q) = &mut self.queues[1] {
            q.push(ts, a, TrackEventItem { meta, blob });
        }
    }

    pub fn push_ftrace(&mut self, ts: i64, cpu: u32, event: &[u8]) {
        let Some(a) = self.alloc(ts) else { return };
        let blob = self.arena.push(event);
        let i = self.stream(cpu, CpuStream::Ftrace);
        if let AnyQueue::Ftrace(_, q) = &mut self.queues[i] {
            q.push(ts, a, blob);
        }
    }

    /// A print event as its pid and PrintFtraceEvent, read out of its envelope once, here.
    /// Queued on the CPU's ftrace stream (its order among that CPU's events is kept) and
    /// handed on as [`EventSink::print`].
    pub fn push_print(&mut self, ts: i64, cpu: u32, pid: u32, print: &[u8]) {
        let Some(a) = self.alloc(ts) else { return };
        self.pushed.prints += 1;
        let mut blob = self.arena.push_parts(&pid.to_le_bytes(), print);
        blob.len |= Blob::PRINT;
        let i = self.stream(cpu, CpuStream::Ftrace);
        if let AnyQueue::Ftrace(_, q) = &mut self.queues[i] {
            q.push(ts, a, blob);
        }
    }

    pub fn push_switch(&mut self, ts: i64, cpu: u32, e: CompactSwitch) {
        let Some(a) = self.alloc(ts) else { return };
        self.pushed.switches += 1;
        let i = self.stream(cpu, CpuStream::Switch);
        if let AnyQueue::Switch(_, q) = &mut self.queues[i] {
            q.push(ts, a, e);
        }
    }

    pub fn push_waking(&mut self, ts: i64, cpu: u32, e: CompactWaking) {
        let Some(a) = self.alloc(ts) else { return };
        let i = self.stream(cpu, CpuStream::Waking);
        if let AnyQueue::Waking(_, q) = &mut self.queues[i] {
            q.push(ts, a, e);
        }
    }

    pub fn notify_flush(&mut self) {
        self.flushes_since_extraction += 1;
    }

    /// After a read-buffer event, everything pushed before the previous one is safe to hand on.
    pub fn notify_read_buffer(&mut self, sink: &mut dyn EventSink) {
        if self.mode == SortingMode::FullSort || self.flushes_since_extraction < 2 {
            return;
        }
        let limit = self.extraction_limit;
        self.extract_until(limit, sink);
        self.extraction_limit = self.next_alloc;
        self.flushes_since_extraction = 0;
        if self.arena.is_sparse() {
            self.compact_arena();
        }
    }

    /// Copies the payloads still queued into a fresh arena. A window's extraction can leave a
    /// few events behind (trace_processor's rule stops at the first queue it cannot advance),
    /// and each of them would otherwise keep a whole chunk, window after window.
    fn compact_arena(&mut self) {
        let successor = BlobArena::succeeding(&mut self.arena);
        let old = std::mem::replace(&mut self.arena, successor);
        let fresh = &mut self.arena;
        for q in &mut self.queues {
            match q {
                AnyQueue::Packet(q) => {
                    for e in q.pending_mut() {
                        e.2.blob = fresh.moved_from(&old, e.2.blob);
                    }
                }
                AnyQueue::TrackEvent(q) => {
                    for e in q.pending_mut() {
                        e.2.blob = fresh.moved_from(&old, e.2.blob);
                    }
                }
                AnyQueue::Ftrace(_, q) => {
                    for e in q.pending_mut() {
                        e.2 = fresh.moved_from(&old, e.2);
                    }
                }
                AnyQueue::Switch(..) | AnyQueue::Waking(..) => {}
            }
        }
        self.arena.keep_spare_from(old);
    }

    /// Hands on everything that is left.
    pub fn extract_all(&mut self, sink: &mut dyn EventSink) {
        self.extract_until(u32::MAX, sink);
        self.extraction_limit = self.next_alloc;
        self.flushes_since_extraction = 0;
    }

    fn extract_until(&mut self, limit: u32, sink: &mut dyn EventSink) {
        use std::cmp::Reverse;
        let limit_all = limit == u32::MAX;
        // Non-empty queues by (head timestamp, index): the smallest head wins, the lower index
        // on ties, and it drains up to the next queue's head. The queue being drained is kept
        // out of the heap, whose top is then that next head.
        let mut heads: std::collections::BinaryHeap<Reverse<(i64, usize)>> = self
            .queues
            .iter()
            .enumerate()
            .filter_map(|(i, q)| q.min_ts().map(|m| Reverse((m, i))))
            .collect();
        let mut current = heads.pop();
        while let Some(Reverse((_, min_idx))) = current {
            let bound = heads.peek().map_or(i64::MAX, |Reverse((m, _))| *m);
            let mut d = Drain {
                limit_all,
                limit,
                bound,
                latest: &mut self.latest_pushed_ts,
                sink: &mut *sink,
                arena: &mut self.arena,
            };
            let n = match &mut self.queues[min_idx] {
                AnyQueue::Packet(q) => {
                    d.queue(q, |s, arena, ts, e| s.packet(ts, e, arena.get(e.blob)))
                }
                AnyQueue::TrackEvent(q) => d.queue(q, |s, arena, ts, e| {
                    s.track_event(ts, &e.meta, arena.get(e.blob))
                }),
                AnyQueue::Ftrace(cpu, q) => {
                    let cpu = *cpu;
                    d.queue(q, |s, arena, ts, b| {
                        let bytes = arena.get(*b);
                        match (b.is_print(), bytes.split_first_chunk()) {
                            (true, Some((pid, buf))) => s.print(ts, u32::from_le_bytes(*pid), buf),
                            _ => s.ftrace(ts, cpu, bytes),
                        }
                    })
                }
                AnyQueue::Switch(cpu, q) => {
                    let cpu = *cpu;
                    d.queue(q, |s, _, ts, e| s.compact_switch(ts, cpu, e))
                }
                AnyQueue::Waking(cpu, q) => {
                    let cpu = *cpu;
                    d.queue(q, |s, _, ts, e| s.compact_waking(ts, cpu, e))
                }
            };
            if n == 0 {
                break;
            }
            // The drained queue's new head trades places with the heap's top in one sift when
            // it is no longer the smallest (a pop and a push cost two).
            current = match self.queues[min_idx].min_ts().map(|m| Reverse((m, min_idx))) {
                None => heads.pop(),
                Some(head) => match heads.peek_mut() {
                    Some(mut top) if *top > head => Some(std::mem::replace(&mut *top, head)),
                    _ => Some(head),
                },
            };
        }
    }
}

/// How far ahead of a queue's head its entries (a few lines on) and their payloads (whose
/// entries the earlier prefetch has brought in) are fetched into the cache.
const PREFETCH_ENTRIES_AHEAD: usize = 4;
const PREFETCH_PAYLOADS_AHEAD: usize = 2;

/// Asks the CPU to bring `p`'s line into the cache; a hint only, any address is allowed.
#[inline(always)]
fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing architecturally and never faults.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast())
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// One step of an extraction: the bounds a queue is drained to, and where events go.
struct Drain<'a> {
    limit_all: bool,
    limit: u32,
    bound: i64,
    /// The latest timestamp handed on; `i64::MIN` before the first.
    latest: &'a mut i64,
    sink: &'a mut dyn EventSink,
    arena: &'a mut BlobArena,
}

impl Drain<'_> {
    /// Hands on the head of one queue while it stays within `bound` and below the allocation
    /// limit; returns how many events were consumed. `emit` delivers an event; one that
    /// arrived out of order is dropped instead. Either way its payload is released.
    fn queue<T: Copy + Queued>(
        &mut self,
        q: &mut Queue<T>,
        mut emit: impl FnMut(&mut dyn EventSink, &BlobArena, i64, &T),
    ) -> usize {
        q.sort();
        let mut n = 0;
        while let Some(&(ts, alloc, v)) = q.events.front() {
            if (!self.limit_all && alloc >= self.limit) || ts > self.bound {
                break;
            }
            q.events.pop_front();
            self.prefetch_ahead(q);
            n += 1;
            if ts < *self.latest {
                self.sink.out_of_order();
            } else {
                *self.latest = ts;
                emit(self.sink, self.arena, ts, &v);
            }
            if let Some(b) = v.payload() {
                self.arena.release(b);
            }
        }
        if n > 0 {
            q.consumed(self.limit_all);
        }
        n
    }

    /// The queues advance a step or two per drain, taking turns: too many streams at once for
    /// the hardware's prefetcher, so the first read of each entry, and of its payload in the
    /// arena, missed the cache. The entries a few places ahead are asked for now.
    #[inline(always)]
    fn prefetch_ahead<T: Queued>(&self, q: &Queue<T>) {
        if let Some(ahead) = q.events.get(PREFETCH_ENTRIES_AHEAD) {
            prefetch(ahead as *const (i64, u32, T));
        }
        if let Some(b) = q
            .events
            .get(PREFETCH_PAYLOADS_AHEAD)
            .and_then(|e| e.2.payload())
        {
            prefetch(self.arena.get(b).as_ptr());
        }
    }
}

/// A queued event's payload in the arena, if it has one.
trait Queued {
    fn payload(&self) -> Option<Blob>;
}

impl Queued for PacketEvent {
    fn payload(&self) -> Option<Blob> {
        Some(self.blob)
    }
}

impl Queued for TrackEventItem {
    fn payload(&self) -> Option<Blob> {
        Some(self.blob)
    }
}

impl Queued for Blob {
    fn payload(&self) -> Option<Blob> {
        Some(*self)
    }
}

impl Queued for CompactSwitch {
    fn payload(&self) -> Option<Blob> {
        None
    }
}

impl Queued for CompactWaking {
    fn payload(&self) -> Option<Blob> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Takes `n` events off the front, as an extraction does.
    fn hand_on<T: Copy>(q: &mut Queue<T>, n: usize, give_back: bool) {
        q.events.drain(..n);
        q.consumed(give_back);
    }

    #[derive(Default)]
    struct Rec(Vec<(i64, String)>);
    impl EventSink for Rec {
        fn ftrace(&mut self, ts: i64, cpu: u32, e: &[u8]) {
            self.0
                .push((ts, format!("f{cpu}:{}", String::from_utf8_lossy(e))));
        }
        fn print(&mut self, ts: i64, pid: u32, buf: &[u8]) {
            self.0
                .push((ts, format!("print{pid}:{}", String::from_utf8_lossy(buf))));
        }
        fn compact_switch(&mut self, ts: i64, cpu: u32, e: &CompactSwitch) {
            self.0.push((ts, format!("s{cpu}:{}", e.next_pid)));
        }
        fn compact_waking(&mut self, ts: i64, cpu: u32, e: &CompactWaking) {
            self.0.push((ts, format!("w{cpu}:{}", e.pid)));
        }
        fn packet(&mut self, ts: i64, _e: &PacketEvent, p: &[u8]) {
            self.0
                .push((ts, format!("p:{}", String::from_utf8_lossy(p))));
        }
        fn out_of_order(&mut self) {
            self.0.push((-1, "ooo".into()));
        }
        fn track_event(&mut self, ts: i64, m: &TrackEventMeta, p: &[u8]) {
            self.0
                .push((ts, format!("t{}:{}", m.seq_id, String::from_utf8_lossy(p))));
        }
    }

    /// A flush pair and a read-buffer event: one extraction window.
    fn window(s: &mut Sorter, r: &mut Rec) {
        s.notify_flush();
        s.notify_flush();
        s.notify_read_buffer(r);
    }

    #[test]
    fn track_events_are_the_second_stream() {
        let mut s = Sorter::default();
        s.push_ftrace(10, 0, b"f");
        s.push_track_event(
            10,
            TrackEventMeta {
                seq_id: 3,
                interval: 0,
            },
            b"te",
        );
        s.push_packet(10, 60, b"desc", None);
        let mut r = Rec::default();
        s.extract_all(&mut r);
        let got: Vec<_> = r.0.iter().map(|(t, n)| format!("{t}{n}")).collect();
        // Ties: whole packets first, then track events, then per-CPU ftrace.
        assert_eq!(got, ["10p:desc", "10t3:te", "10f0:f"]);

        // A queue whose head is earliest drains through the next head's timestamp.
        let mut s = Sorter::default();
        s.push_packet(10, 60, b"desc", None);
        s.push_track_event(5, TrackEventMeta::default(), b"early");
        s.push_track_event(10, TrackEventMeta::default(), b"tie");
        let mut r = Rec::default();
        s.extract_all(&mut r);
        let got: Vec<_> = r.0.iter().map(|(t, n)| format!("{t}{n}")).collect();
        assert_eq!(got, ["5t0:early", "10t0:tie", "10p:desc"]);
    }

    #[test]
    fn merges_in_timestamp_order_and_keeps_push_order_for_ties() {
        let mut s = Sorter::default();
        s.push_ftrace(30, 0, b"a");
        s.push_ftrace(10, 0, b"b");
        s.push_packet(20, 76, b"c", None);
        s.push_ftrace(10, 1, b"d");
        s.push_packet(10, 76, b"e", None);
        s.push_ftrace(10, 0, b"g");
        let mut r = Rec::default();
        s.extract_all(&mut r);
        let got: Vec<_> = r.0.iter().map(|(t, n)| format!("{t}{n}")).collect();
        // At ts 10 the packet queue (index 0) goes first, then cpu 0's queue drains its
        // events, then cpu 1.
        assert_eq!(
            got,
            ["10p:e", "10f0:b", "10f0:g", "10f1:d", "20p:c", "30f0:a"]
        );
    }

    /// trace_processor's rule stated plainly: take the queue with the smallest head (lower
    /// index on ties), drain it while its events are at or before the smallest other head.
    fn merged_by_the_rule(mut queues: Vec<Vec<(i64, String)>>) -> Vec<(i64, String)> {
        for q in &mut queues {
            q.sort_by_key(|e| e.0);
            q.reverse();
        }
        let mut out = Vec::new();
        loop {
            let heads: Vec<(i64, usize)> = (0..queues.len())
                .filter_map(|i| queues[i].last().map(|e| (e.0, i)))
                .collect();
            let Some(&(_, min)) = heads.iter().min() else {
                return out;
            };
            let bound = heads
                .iter()
                .filter(|h| h.1 != min)
                .map(|h| h.0)
                .min()
                .unwrap_or(i64::MAX);
            while queues[min].last().is_some_and(|e| e.0 <= bound) {
                out.extend(queues[min].pop());
            }
        }
    }

    /// Eleven streams (packets, track events, ftrace on three CPUs, compact switch and waking
    /// on three) with few distinct timestamps, so heads tie and the next head can be any
    /// stream: the merge hands events on exactly as the rule says.
    #[test]
    fn merge_of_many_streams_follows_the_rule() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for _ in 0..50 {
            let mut s = Sorter::default();
            // Queue order as the sorter creates them: packets, track events, then each
            // per-CPU stream at its first event.
            let mut model: Vec<Vec<(i64, String)>> = vec![Vec::new(), Vec::new()];
            let mut order: Vec<(u32, u32)> = Vec::new();
            for k in 0..200 {
                let ts = next(12) as i64;
                let cpu = next(3) as u32;
                let kind = next(5) as u32;
                let name = match kind {
                    0 => {
                        s.push_packet(ts, 76, format!("{k}").as_bytes(), None);
                        format!("p:{k}")
                    }
                    1 => {
                        let meta = TrackEventMeta::default();
                        s.push_track_event(ts, meta, format!("{k}").as_bytes());
                        format!("t0:{k}")
                    }
                    2 => {
                        s.push_ftrace(ts, cpu, format!("{k}").as_bytes());
                        format!("f{cpu}:{k}")
                    }
                    3 => {
                        let e = CompactSwitch {
                            prev_state: 0,
                            next_pid: k,
                            next_prio: 0,
                            next_comm: StrId::from_index(0),
                        };
                        s.push_switch(ts, cpu, e);
                        format!("s{cpu}:{k}")
                    }
                    _ => {
                        let e = CompactWaking {
                            pid: k,
                            target_cpu: 0,
                            prio: 0,
                            comm: StrId::from_index(0),
                            common_flags: 0,
                        };
                        s.push_waking(ts, cpu, e);
                        format!("w{cpu}:{k}")
                    }
                };
                let q = match kind {
                    0 | 1 => kind as usize,
                    _ => match order.iter().position(|&o| o == (cpu, kind)) {
                        Some(i) => i + 2,
                        None => {
                            order.push((cpu, kind));
                            model.push(Vec::new());
                            model.len() - 1
                        }
                    },
                };
                model[q].push((ts, name));
            }
            let mut r = Rec::default();
            s.extract_all(&mut r);
            assert_eq!(r.0, merged_by_the_rule(model));
        }
    }

    #[test]
    fn negative_timestamps_are_dropped() {
        // trace_processor drops ts < 0 (sorter_negative_timestamp_dropped); 0 is a timestamp.
        let mut s = Sorter::default();
        s.push_ftrace(-5, 0, b"x");
        s.push_ftrace(0, 0, b"z");
        let mut r = Rec::default();
        s.extract_all(&mut r);
        assert_eq!(r.0, [(0, "f0:z".into())]);
        assert_eq!(s.negative_ts_dropped, 1);
    }

    #[test]
    fn arena_frees_consumed_chunks() {
        let mut a = BlobArena::default();
        let big = vec![7u8; CHUNK_BYTES];
        let b1 = a.push(&big);
        let b2 = a.push(b"tail");
        assert_eq!(a.bytes_held(), 2 * CHUNK_BYTES);
        a.release(b1);
        assert_eq!(a.bytes_held(), CHUNK_BYTES);
        assert_eq!(a.get(b2), b"tail");
    }

    /// An arena whose first chunk was freed into the spare (returned with its address) while
    /// a 16-byte payload (returned) lives in the second.
    fn arena_with_a_spare() -> (BlobArena, *const u8, Blob) {
        let mut a = BlobArena::default();
        let first = a.push(&vec![1u8; CHUNK_BYTES - 8]);
        let first_at = a.get(first).as_ptr();
        let second = a.push(&[2u8; 16]);
        a.release(first);
        (a, first_at, second)
    }

    /// A freed chunk's memory is reused by the next chunk (fresh chunks fault every page in,
    /// and unmapping them cost x300 `analyze` 1.7 s of system time), and what is read from
    /// the reused chunk is the new payload.
    #[test]
    fn the_next_chunk_reuses_the_last_one_freed() {
        let (mut a, first_at, second) = arena_with_a_spare();
        assert_eq!(
            a.bytes_held(),
            CHUNK_BYTES,
            "a spare chunk is not held data"
        );
        let third = a.push(&vec![3u8; CHUNK_BYTES - 8]);
        assert_eq!(a.get(third).as_ptr(), first_at);
        assert!(a.get(third).iter().all(|&b| b == 3));
        assert_eq!(a.get(second), &[2u8; 16]);
        // A payload larger than a chunk gets a chunk of its own.
        a.release(second);
        let huge = a.push(&vec![4u8; CHUNK_BYTES + 1]);
        assert_eq!(a.get(huge).len(), CHUNK_BYTES + 1);
    }

    /// Compaction's fresh arena starts on the old arena's spare chunk and, once the payloads
    /// are copied out, keeps one of the old chunks as its own spare.
    #[test]
    fn a_compacted_arena_inherits_a_spare_chunk() {
        let (mut old, spare_at, kept) = arena_with_a_spare();
        let mut fresh = BlobArena::succeeding(&mut old);
        let copied = fresh.push(old.get(kept));
        assert_eq!(fresh.get(copied).as_ptr(), spare_at);
        let old_chunk_at = old.get(kept).as_ptr();
        fresh.keep_spare_from(old);
        let next = fresh.push(&vec![3u8; CHUNK_BYTES - 8]);
        assert_eq!(fresh.get(next).as_ptr(), old_chunk_at);
        assert!(fresh.get(next).iter().all(|&b| b == 3));
        assert_eq!(fresh.get(copied), &[2u8; 16]);
    }

    #[test]
    fn a_payload_that_fits_exactly_stays_in_the_current_chunk() {
        let mut a = BlobArena::default();
        a.push(&vec![1u8; CHUNK_BYTES - 4]);
        a.push(b"four");
        assert_eq!(a.bytes_held(), CHUNK_BYTES, "4 bytes left, 4 bytes pushed");
        a.push(b"x");
        assert_eq!(a.bytes_held(), 2 * CHUNK_BYTES);
    }

    #[test]
    fn sparse_means_more_than_twice_the_live_bytes_plus_two_chunks() {
        let mut a = BlobArena::default();
        // Three full chunks, each keeping a small blob once its filler is released:
        // CHUNK/4 + CHUNK/8 + (CHUNK/8 − 1) + 1 = CHUNK/2 live.
        let mut small = Vec::new();
        for keep in [CHUNK_BYTES / 4, CHUNK_BYTES / 8] {
            small.push(a.push(&vec![0u8; keep]));
            let filler = a.push(&vec![0u8; CHUNK_BYTES - keep]);
            a.release(filler);
        }
        small.push(a.push(&vec![0u8; CHUNK_BYTES / 8 - 1]));
        let one = a.push(b"1");
        let filler = a.push(&vec![0u8; CHUNK_BYTES - CHUNK_BYTES / 8]);
        a.release(filler);
        assert_eq!(a.bytes_held(), 3 * CHUNK_BYTES);
        assert_eq!(a.live_bytes, CHUNK_BYTES / 2);
        // 3 chunks = 2 × CHUNK/2 + 2 chunks: not more, so not sparse.
        assert!(!a.is_sparse());
        a.release(one);
        assert_eq!(a.live_bytes, CHUNK_BYTES / 2 - 1);
        assert!(a.is_sparse());
    }

    #[test]
    fn dropped_and_early_released_payloads_free_their_chunks() {
        let mut s = Sorter::default();
        let mut r = Rec::default();
        // "a" (ts 100) is handed on by the second window, while its chunk is still the one
        // being filled.
        s.push_ftrace(100, 0, b"a");
        for _ in 0..2 {
            window(&mut s, &mut r);
        }
        // A whole-chunk payload from before ts 100 arrives late, then a small one.
        s.push_ftrace(50, 0, &vec![b'x'; CHUNK_BYTES]);
        s.push_ftrace(200, 0, b"c");
        s.extract_all(&mut r);
        let got: Vec<_> = r.0.iter().map(|(t, n)| format!("{t}{n}")).collect();
        assert_eq!(got, ["100f0:a", "-1ooo", "200f0:c"]);
        // Three chunks were opened ("a", the late payload, "c"); every blob was consumed, so
        // only the chunk still being filled is held.
        assert_eq!(s.arena.bytes_held(), CHUNK_BYTES);
    }

    /// 24 quarter-chunk payloads (cpu 1), each followed by tiny far-future events (`far`,
    /// given the timestamp and a letter), all in one window: about 6 chunks. A later event at
    /// ts 200 (past the limit) stops the next window after the payloads: the tiny events
    /// stay, some in each chunk.
    fn chunks_left_holding_tiny_events(far: impl Fn(&mut Sorter, i64, u8)) -> (Sorter, Rec) {
        let mut s = Sorter::default();
        let mut r = Rec::default();
        for i in 0..24u8 {
            s.push_ftrace(100 + i64::from(i), 1, &vec![b'a' + i; CHUNK_BYTES / 4]);
            far(&mut s, 1_000_000 + i64::from(i), b'a' + i);
        }
        window(&mut s, &mut r);
        s.push_ftrace(200, 1, b"blocker");
        window(&mut s, &mut r);
        (s, r)
    }

    #[test]
    fn one_window_that_leaves_many_chunks_sparse_compacts_them() {
        let (mut s, mut r) =
            chunks_left_holding_tiny_events(|s, ts, letter| s.push_ftrace(ts, 0, &[letter]));
        assert_eq!(r.0.len(), 24, "the payloads are handed on");
        let live = 24 + b"blocker".len();
        assert!(
            s.arena.bytes_held() <= 2 * live + 2 * CHUNK_BYTES,
            "{} bytes held for {live} live",
            s.arena.bytes_held()
        );
        s.extract_all(&mut r);
        let tail: Vec<String> = r.0[24..].iter().map(|(t, n)| format!("{t}{n}")).collect();
        let mut want = vec!["200f1:blocker".to_string()];
        want.extend(
            (0..24u8).map(|i| format!("{}f0:{}", 1_000_000 + i64::from(i), char::from(b'a' + i))),
        );
        assert_eq!(tail, want);
    }

    #[test]
    fn prints_stay_prints_in_their_cpus_order_when_their_chunks_are_compacted() {
        // Each chunk is left holding a print and a raw event of CPU 0 at one timestamp.
        let (mut s, mut r) = chunks_left_holding_tiny_events(|s, ts, letter| {
            let pid = 7 + u32::from(letter - b'a');
            s.push_print(ts, 0, pid, &[b'B', b'|', letter]);
            s.push_ftrace(ts, 0, &[letter]);
        });
        assert!(
            s.arena.bytes_held() < 4 * CHUNK_BYTES,
            "the chunks were compacted"
        );
        s.extract_all(&mut r);
        let tail: Vec<String> = r.0[25..].iter().map(|(t, n)| format!("{t} {n}")).collect();
        let want: Vec<String> = (0..24u8)
            .flat_map(|i| {
                let (ts, c) = (1_000_000 + i64::from(i), char::from(b'a' + i));
                [
                    format!("{ts} print{}:B|{c}", 7 + u32::from(i)),
                    format!("{ts} f0:{c}"),
                ]
            })
            .collect();
        assert_eq!(tail, want);
    }

    #[test]
    fn events_left_behind_by_windows_do_not_pin_their_chunks() {
        let mut s = Sorter::default();
        let mut r = Rec::default();
        let quarter = CHUNK_BYTES / 4;
        // Each window queues a quarter-chunk payload (cpu 1) and a tiny event far in the
        // future (cpu 0). A window hands on the previous window's payload, then stops at cpu
        // 1's head, which is past the allocation limit (trace_processor's rule); the future
        // events stay queued until the end, each inside a chunk of released payloads.
        for i in 0..24u8 {
            s.push_ftrace(1_000_000 + i64::from(i), 0, &[b'a' + i]);
            s.push_ftrace(100 + i64::from(i), 1, &vec![b'a' + i; quarter]);
            window(&mut s, &mut r);
        }
        // Live: the last payload (not yet handed on) and 24 bytes. Without copying, the future
        // events would keep about 6 chunks (24 quarter payloads) alive.
        assert_eq!(r.0.len(), 23, "one payload per window after the first");
        let live = quarter + 24;
        assert!(
            s.arena.bytes_held() <= 2 * live + 2 * CHUNK_BYTES,
            "{} bytes held for {live} live",
            s.arena.bytes_held()
        );
        s.extract_all(&mut r);
        // The copied payloads come out whole, in timestamp order: the last payload, then the
        // 24 future events.
        let got: Vec<(i64, usize, char)> = r.0[20..]
            .iter()
            .map(|(t, n)| (*t, n.len() - 3, n.chars().nth(3).unwrap()))
            .collect();
        let mut want = vec![
            (120, quarter, 'u'),
            (121, quarter, 'v'),
            (122, quarter, 'w'),
            (123, quarter, 'x'),
        ];
        want.extend((0..24u8).map(|i| (1_000_000 + i64::from(i), 1, char::from(b'a' + i))));
        assert_eq!(got, want);
    }

    /// A queue of `len` events (timestamps 0..len) in a buffer of exactly that size, drained
    /// by `steps`; after each step, whether the buffer shrank, the events still held and the
    /// earliest pending timestamp.
    fn drain_queue(len: usize, steps: &[usize]) -> Vec<(bool, usize, i64)> {
        let mut q = Queue::new();
        q.events = VecDeque::with_capacity(len);
        for ts in 0..len as i64 {
            q.push(ts, 0, ());
        }
        let full = q.events.capacity();
        steps
            .iter()
            .map(|&n| {
                hand_on(&mut q, n, true);
                (q.events.capacity() < full, q.events.len(), q.min_ts)
            })
            .collect()
    }

    #[test]
    fn a_queue_gives_back_its_consumed_part_once_it_is_most_of_the_buffer() {
        // The rule: give the consumed events' room back only when more than 4096 free entries
        // are more than half of the buffer. Below half, the copy of the rest would cost more
        // than it frees (and repeated gives would turn draining quadratic); for small queues
        // the memory is not worth a copy.
        // 8000 events: 4096 free is not more than 4096; one more is, and 4097 > 8000 / 2.
        assert_eq!(
            drain_queue(8000, &[4096, 1]),
            [(false, 3904, 4096), (true, 3903, 4097)]
        );
        // 10000 events: 5000 free is exactly half, kept; 5001 is more than half, given back.
        assert_eq!(
            drain_queue(10_000, &[5000, 1]),
            [(false, 5000, 5000), (true, 4999, 5001)]
        );
        // Below 4096, even most of a buffer stays: 3000 of 5000.
        assert_eq!(drain_queue(5000, &[3000]), [(false, 2000, 3000)]);
        // Draining everything empties the queue and gives its memory back.
        let mut q = Queue::new();
        for ts in 0..10_000 {
            q.push(ts, 0, ());
        }
        hand_on(&mut q, 10_000, true);
        assert!(q.is_empty() && q.events.capacity() <= 1024);
        assert_eq!(q.min_ts, i64::MAX);
    }

    #[test]
    fn between_windows_a_queue_keeps_its_capacity() {
        let mut q = Queue::new();
        for ts in 0..10_000 {
            q.push(ts, 0, ());
        }
        let held = q.events.capacity();
        assert!(held * std::mem::size_of::<(i64, u32, ())>() <= KEPT_QUEUE_BYTES);
        // Most of it handed on: the rest stays where it is, in the same buffer.
        hand_on(&mut q, 6_000, false);
        assert_eq!((q.events.len(), q.min_ts), (4_000, 6_000));
        assert_eq!(q.events.capacity(), held);
        hand_on(&mut q, 4_000, false);
        assert!(q.is_empty());
        assert_eq!(q.events.capacity(), held);
        // The next window fills the same buffer.
        for ts in 20_000..30_000 {
            q.push(ts, 0, ());
        }
        assert_eq!((q.events.capacity(), q.min_ts), (held, 20_000));
        // A window larger than what a queue keeps gives back the excess.
        let entry = std::mem::size_of::<(i64, u32, ())>();
        for ts in 30_000..30_000 + 2 * (KEPT_QUEUE_BYTES / entry) as i64 {
            q.push(ts, 0, ());
        }
        let all = q.events.len();
        hand_on(&mut q, all, false);
        assert!(q.events.capacity() * entry <= KEPT_QUEUE_BYTES);
        assert!(q.events.capacity() >= held);
    }

    #[test]
    fn full_sort_can_be_chosen_only_before_anything_was_handed_on() {
        // trace_processor switches to a full sort when a packet's clock cannot be converted
        // yet, but only while nothing has left the sorter (events handed on in order cannot
        // be taken back).
        let mut s = Sorter::default();
        let mut r = Rec::default();
        assert!(s.set_full_sort() && s.mode() == SortingMode::FullSort);
        assert!(s.set_full_sort(), "choosing it again is fine");
        // In full-sort mode windows hand nothing on: all waits for the end of the trace.
        s.push_ftrace(20, 0, b"b");
        window(&mut s, &mut r);
        s.push_ftrace(10, 0, b"a");
        window(&mut s, &mut r);
        window(&mut s, &mut r);
        assert!(r.0.is_empty());
        s.extract_all(&mut r);
        assert_eq!(r.0, [(10, "f0:a".into()), (20, "f0:b".into())]);

        let mut s = Sorter::default();
        let mut r = Rec::default();
        s.push_ftrace(10, 0, b"a");
        assert!(s.set_full_sort(), "pushed but not handed on yet");
        let mut s = Sorter::default();
        s.push_ftrace(10, 0, b"a");
        window(&mut s, &mut r);
        window(&mut s, &mut r);
        assert_eq!(r.0.len(), 1);
        assert!(!s.set_full_sort() && s.mode() == SortingMode::Default);
    }

    #[test]
    fn max_ts_is_the_latest_timestamp_pushed() {
        // Packets without a timestamp take the latest one seen (tokenizer), so this is the
        // largest accepted timestamp so far, in any stream; dropped negatives do not count.
        let mut s = Sorter::default();
        assert_eq!(s.max_ts(), 0);
        s.push_ftrace(30, 1, b"a");
        s.push_packet(20, 1, b"p", None);
        s.push_ftrace(-5, 0, b"x");
        assert_eq!(s.max_ts(), 30);
        s.push_track_event(45, TrackEventMeta::default(), b"t");
        assert_eq!(s.max_ts(), 45);
    }

    #[test]
    fn compact_sched_events_merge_with_the_other_streams() {
        // compact_sched bundles carry switches and wakings apart from the ftrace events of
        // the same CPU; all of them are handed on in one timestamp order.
        let comm = StrId::from_index(0);
        let switch = |next_pid| CompactSwitch {
            prev_state: 0,
            next_pid,
            next_prio: 120,
            next_comm: comm,
        };
        let waking = |pid| CompactWaking {
            pid,
            target_cpu: 0,
            prio: 120,
            comm,
            common_flags: 0,
        };
        let mut s = Sorter::default();
        s.push_ftrace(40, 0, b"x");
        s.push_switch(30, 0, switch(100));
        s.push_waking(20, 0, waking(200));
        s.push_switch(10, 1, switch(300));
        s.push_waking(50, 1, waking(400));
        let mut r = Rec::default();
        s.extract_all(&mut r);
        let want = [
            (10, "s1:300"),
            (20, "w0:200"),
            (30, "s0:100"),
            (40, "f0:x"),
            (50, "w1:400"),
        ];
        assert_eq!(r.0, want.map(|(t, e)| (t, e.to_string())));
    }

    #[test]
    fn a_window_needs_two_flushes_and_hands_on_what_came_before_the_previous_one() {
        // trace_processor's windowed rule: a read-buffer event after at least two flushes
        // hands on everything pushed before the previous such extraction point.
        let mut s = Sorter::default();
        let mut r = Rec::default();
        let mut handed_on = Vec::new();
        let mut flush_read = |s: &mut Sorter, r: &mut Rec| {
            s.notify_flush();
            s.notify_read_buffer(r);
            handed_on.push(r.0.len());
        };
        s.push_ftrace(10, 0, b"a");
        flush_read(&mut s, &mut r); // one flush: no window
        flush_read(&mut s, &mut r); // two: a window, but nothing before its start point
        s.push_ftrace(20, 0, b"b");
        flush_read(&mut s, &mut r); // one flush since
        flush_read(&mut s, &mut r); // two: "a" came before the previous point
        assert_eq!(handed_on, [0, 0, 0, 1]);
        assert_eq!(r.0, [(10, "f0:a".into())]);
    }
}
