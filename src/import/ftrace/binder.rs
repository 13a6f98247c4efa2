//! Binder driver ftrace events (trace_processor's BinderTracker).
//!
//! A synchronous call gives a `binder transaction` slice on the calling thread (from its
//! binder_transaction to the binder_transaction_received of the reply) and a `binder reply`
//! slice on the serving thread (from receiving the call to sending the reply), joined by a
//! flow. Calls nest: a thread serving a call can make calls of its own. A oneway call gives
//! two instants, `binder transaction async` and `binder async rcv`, joined by a flow.
//!
//! When binder_command / binder_return are traced, a per-thread stack of transaction states
//! lets a failed call (BR_DEAD_REPLY, BR_FAILED_REPLY, ...) close the caller's slice, which
//! the transaction events alone would leave open. The obsolete binder_lock / binder_locked /
//! binder_unlock events (kernels before 4.14) give `binder lock waiting` / `binder lock held`.

use rustc_hash::FxHashMap;

use super::sched::decode;
use crate::import::Ctx;
use crate::store::args::{ArgSetId, ArgValue};
use crate::store::slices::SliceTracker;
use crate::store::strings::StrId;
use crate::store::{FlowRow, SliceId, Store, TrackId, Utid};

// Commands userspace sends to the driver (binder_command.cmd).
const BC_TRANSACTION: u32 = 0x4040_6300;
const BC_REPLY: u32 = 0x4040_6301;
const BC_TRANSACTION_SG: u32 = 0x4048_6311;
const BC_REPLY_SG: u32 = 0x4048_6312;
// Returns the driver sends to userspace (binder_return.cmd).
const BR_TRANSACTION_SEC_CTX: u32 = 0x8048_7202;
const BR_TRANSACTION: u32 = 0x8040_7202;
const BR_REPLY: u32 = 0x8040_7203;
const BR_DEAD_REPLY: u32 = 0x7205;
const BR_TRANSACTION_COMPLETE: u32 = 0x7206;
const BR_FAILED_REPLY: u32 = 0x7211;
const BR_FROZEN_REPLY: u32 = 0x7212;
const BR_ONEWAY_SPAM_SUSPECT: u32 = 0x7213;
const BR_TRANSACTION_PENDING_FROZEN: u32 = 0x7214;

// Transaction flags (binder_transaction.flags).
const TF_ONE_WAY: u32 = 0x01;
const TF_ROOT_OBJECT: u32 = 0x04;
const TF_STATUS_CODE: u32 = 0x08;
const TF_ACCEPT_FDS: u32 = 0x10;

/// The `flags` arg: the value in hex, then what its bits mean (trace_processor's wording).
fn flags_text(flags: u32) -> String {
    let mut s = format!("0x{flags:02x} ");
    for (bit, meaning) in [
        (TF_ONE_WAY, "this is a one-way call: async, no return; "),
        (TF_ROOT_OBJECT, "contents are the components root object; "),
        (TF_STATUS_CODE, "contents are a 32-bit status code; "),
        (TF_ACCEPT_FDS, "allow replies with file descriptors; "),
    ] {
        if flags & bit != 0 {
            s.push_str(meaning);
        }
    }
    if flags == 0 {
        s.push_str("No Flags Set");
    }
    s
}

/// Slice names and arg keys, interned on first use.
#[derive(Clone, Copy)]
struct Keys {
    category: StrId,
    lock_waiting: StrId,
    lock_held: StrId,
    transaction: StrId,
    transaction_async: StrId,
    reply: StrId,
    async_rcv: StrId,
    transaction_id: StrId,
    dest_node: StrId,
    dest_process: StrId,
    dest_thread: StrId,
    dest_name: StrId,
    is_reply: StrId,
    flags: StrId,
    code: StrId,
    calling_tid: StrId,
    data_size: StrId,
    offsets_size: StrId,
}

impl Keys {
    fn new(store: &mut Store) -> Keys {
        let mut i = |s: &str| store.intern(s);
        Keys {
            category: i("binder"),
            lock_waiting: i("binder lock waiting"),
            lock_held: i("binder lock held"),
            transaction: i("binder transaction"),
            transaction_async: i("binder transaction async"),
            reply: i("binder reply"),
            async_rcv: i("binder async rcv"),
            transaction_id: i("transaction id"),
            dest_node: i("destination node"),
            dest_process: i("destination process"),
            dest_thread: i("destination thread"),
            dest_name: i("destination name"),
            is_reply: i("reply transaction?"),
            flags: i("flags"),
            code: i("code"),
            calling_tid: i("calling tid"),
            data_size: i("data size"),
            offsets_size: i("offsets size"),
        }
    }
}

/// What a binder_transaction says about the call, kept until its args are written.
#[derive(Clone, Copy)]
struct TxnArgs {
    transaction_id: i32,
    dest_node: i32,
    dest_tgid: u32,
    is_reply: bool,
    flags: StrId,
    code: StrId,
    calling_tid: u32,
}

impl TxnArgs {
    fn args(&self, k: &Keys) -> [(StrId, ArgValue); 7] {
        [
            (k.transaction_id, ArgValue::Int(self.transaction_id as i64)),
            (k.dest_node, ArgValue::Int(self.dest_node as i64)),
            (k.dest_process, ArgValue::Int(self.dest_tgid as i64)),
            (k.is_reply, ArgValue::Bool(self.is_reply)),
            (k.flags, ArgValue::Str(self.flags)),
            (k.code, ArgValue::Str(self.code)),
            (k.calling_tid, ArgValue::UInt(self.calling_tid as u64)),
        ]
    }
}

/// A sent transaction waiting for its binder_transaction_received.
struct Outstanding {
    is_reply: bool,
    is_oneway: bool,
    args: TxnArgs,
    send_track: TrackId,
    send_slice: Option<SliceId>,
}

/// Where a thread is in one transaction, as binder_command / binder_return tell it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    SndAfterBcTransaction,
    SndAfterTransaction,
    SndAfterBrTransactionComplete,
    SndAfterTransactionReceived,
    RcvAfterTransactionReceived,
    RcvAfterBrTransaction,
    RcvAfterBcReply,
    RcvAfterTransaction,
}

#[derive(Clone, Copy)]
struct Frame {
    state: State,
    /// (oneway, reply) of the transaction this frame is about, once it is known.
    txn: Option<(bool, bool)>,
}

#[derive(Default)]
pub struct BinderTracker {
    keys: Option<Keys>,
    /// By the transaction's debug id.
    outstanding: FxHashMap<i32, Outstanding>,
    /// Per thread, its nested transactions (innermost last).
    frames: FxHashMap<Utid, Vec<Frame>>,
    /// pid -> when it started waiting for / acquired the global binder lock.
    attempt_lock: FxHashMap<u32, i64>,
    lock_acquired: FxHashMap<u32, i64>,
    /// Args of open slices, written to the store once the slice is closed (or at the end),
    /// so that the args a slice collects over its life form one set.
    pending_args: FxHashMap<SliceId, Vec<(StrId, ArgValue)>>,
    flags_strs: FxHashMap<u32, StrId>,
    code_strs: FxHashMap<u32, StrId>,
    /// Leave the slices without args (`LoadOptions::binder_args`): the slices, flows and
    /// threads are the same.
    pub skip_args: bool,
}

impl BinderTracker {
    fn keys(&mut self, store: &mut Store) -> Keys {
        *self.keys.get_or_insert_with(|| Keys::new(store))
    }

    fn track(ctx: &mut Ctx, tid: u32) -> (Utid, TrackId) {
        let utid = ctx.procs.get_or_create_thread(&mut ctx.store, tid as i64);
        (utid, ctx.tracks.thread_track(&mut ctx.store, utid))
    }

    /// Adds args to an open slice; a key given again replaces the earlier value.
    fn add_pending(&mut self, sid: SliceId, args: impl IntoIterator<Item = (StrId, ArgValue)>) {
        if self.skip_args {
            return;
        }
        let set = self.pending_args.entry(sid).or_default();
        for (k, v) in args {
            match set.iter_mut().find(|(key, _)| *key == k) {
                Some(slot) => slot.1 = v,
                None => set.push((k, v)),
            }
        }
    }

    fn flush_args(&mut self, store: &mut Store, sid: SliceId) {
        if let Some(args) = self.pending_args.remove(&sid) {
            SliceTracker::add_args(store, sid, args);
        }
    }

    /// Ends the innermost open slice of `track` and writes the args it collected.
    fn end_any(&mut self, ctx: &mut Ctx, ts: i64, track: TrackId) -> Option<SliceId> {
        let sid = ctx.slices.end(&mut ctx.store, ts, track, None, None)?;
        self.flush_args(&mut ctx.store, sid);
        Some(sid)
    }

    /// Adds args to the innermost open binder slice of `track` named `name`.
    fn add_args_to_open(
        &mut self,
        ctx: &Ctx,
        k: &Keys,
        track: TrackId,
        name: StrId,
        args: impl IntoIterator<Item = (StrId, ArgValue)>,
    ) {
        if self.skip_args {
            return;
        }
        let open = ctx
            .slices
            .find_open(&ctx.store, track, Some(k.category), Some(name));
        if let Some(sid) = open {
            self.add_pending(sid, args);
        }
    }

    /// The `destination thread` / `destination name` args of a thread.
    fn dest_args(
        ctx: &Ctx,
        k: &Keys,
        utid: Utid,
        tid: ArgValue,
    ) -> impl Iterator<Item = (StrId, ArgValue)> {
        let name = ctx.store.threads[utid as usize].name;
        let dest_name = k.dest_name;
        std::iter::once((k.dest_thread, tid)).chain(name.map(|n| (dest_name, ArgValue::Str(n))))
    }

    /// The arg set of a slice whose args are all known when it is made.
    fn arg_set(&self, store: &mut Store, args: &[(StrId, ArgValue)]) -> Option<ArgSetId> {
        if self.skip_args {
            return None;
        }
        store.args.insert_set(args.to_vec())
    }

    fn flags_str(&mut self, store: &mut Store, flags: u32) -> StrId {
        *self
            .flags_strs
            .entry(flags)
            .or_insert_with(|| store.intern(&flags_text(flags)))
    }

    fn code_str(&mut self, store: &mut Store, code: u32) -> StrId {
        *self
            .code_strs
            .entry(code)
            .or_insert_with(|| store.intern(&format!("0x{code:02x} Java Layer Dependent")))
    }

    fn top_frame(&mut self, utid: Utid) -> Option<&mut Frame> {
        self.frames.get_mut(&utid).and_then(|s| s.last_mut())
    }

    fn push_frame(&mut self, utid: Utid, frame: Frame) {
        self.frames.entry(utid).or_default().push(frame);
    }

    fn pop_frame(&mut self, utid: Utid) {
        if let Some(stack) = self.frames.get_mut(&utid) {
            stack.pop();
            if stack.is_empty() {
                self.frames.remove(&utid);
            }
        }
    }

    /// binder_transaction: `tid` sends a call or a reply.
    pub fn transaction(&mut self, ctx: &mut Ctx, ts: i64, tid: u32, data: &[u8]) {
        let f = decode::<8>(data);
        let flags = f[7].as_u32();
        let dest_tid = f[4].as_u32();
        let txn = TxnArgs {
            transaction_id: f[1].as_i32(),
            dest_node: f[2].as_i32(),
            dest_tgid: f[3].as_u32(),
            is_reply: f[5].as_i32() == 1,
            flags: self.flags_str(&mut ctx.store, flags),
            code: self.code_str(&mut ctx.store, f[6].as_u32()),
            calling_tid: tid,
        };
        let is_oneway = flags & TF_ONE_WAY != 0;
        let (src_utid, track) = Self::track(ctx, tid);
        let k = self.keys(&mut ctx.store);
        let txn_args = txn.args(&k);
        let send_slice = if txn.is_reply {
            // The reply ends the serving thread's open slice (normally its binder reply),
            // which learns whom it answered.
            let dest_utid = ctx
                .procs
                .get_or_create_thread(&mut ctx.store, dest_tid as i64);
            let dest = Self::dest_args(ctx, &k, dest_utid, ArgValue::Int(dest_tid as i64));
            self.add_args_to_open(ctx, &k, track, k.reply, dest);
            let sid = ctx.slices.end(&mut ctx.store, ts, track, None, None);
            if let Some(sid) = sid {
                self.add_pending(sid, txn_args);
                self.flush_args(&mut ctx.store, sid);
            }
            sid
        } else if is_oneway {
            let args = self.arg_set(&mut ctx.store, &txn_args);
            ctx.slices.scoped(
                &mut ctx.store,
                ts,
                track,
                Some(k.category),
                Some(k.transaction_async),
                0,
                args,
            )
        } else {
            let sid = ctx.slices.begin(
                &mut ctx.store,
                ts,
                track,
                Some(k.category),
                Some(k.transaction),
                None,
            );
            if let Some(sid) = sid {
                self.add_pending(sid, txn_args);
            }
            sid
        };
        self.outstanding.insert(
            txn.transaction_id,
            Outstanding {
                is_reply: txn.is_reply,
                is_oneway,
                args: txn,
                send_track: track,
                send_slice,
            },
        );
        let Some(frame) = self.top_frame(src_utid) else {
            return;
        };
        match frame.state {
            State::SndAfterBcTransaction => {
                frame.state = State::SndAfterTransaction;
                frame.txn = Some((is_oneway, txn.is_reply));
            }
            State::RcvAfterBcReply => {
                frame.state = State::RcvAfterTransaction;
                frame.txn = Some((is_oneway, txn.is_reply));
            }
            // No binder_command seen: command tracking is off, the frame is done.
            State::RcvAfterTransactionReceived => self.pop_frame(src_utid),
            _ => {}
        }
    }

    /// binder_transaction_received: `tid` receives a call or a reply.
    pub fn transaction_received(&mut self, ctx: &mut Ctx, ts: i64, tid: u32, data: &[u8]) {
        let f = decode::<2>(data);
        // A transaction sent before the trace began cannot be placed.
        let Some(t) = self.outstanding.remove(&f[1].as_i32()) else {
            return;
        };
        let (utid, track) = Self::track(ctx, tid);
        if !t.is_oneway {
            if !t.is_reply {
                self.push_frame(
                    utid,
                    Frame {
                        state: State::RcvAfterTransactionReceived,
                        txn: Some((false, false)),
                    },
                );
            } else if let Some(frame) = self.top_frame(utid) {
                if frame.state == State::SndAfterBrTransactionComplete {
                    frame.state = State::SndAfterTransactionReceived;
                }
            }
        }
        if t.is_reply {
            // The reply ends the caller's binder transaction.
            self.end_any(ctx, ts, track);
            return;
        }
        let k = self.keys(&mut ctx.store);
        let recv_slice = if t.is_oneway {
            let args = self.arg_set(&mut ctx.store, &t.args.args(&k));
            ctx.slices.scoped(
                &mut ctx.store,
                ts,
                track,
                Some(k.category),
                Some(k.async_rcv),
                0,
                args,
            )
        } else {
            // The caller's slice learns which thread serves it.
            let dest = Self::dest_args(ctx, &k, utid, ArgValue::UInt(tid as u64));
            self.add_args_to_open(ctx, &k, t.send_track, k.transaction, dest);
            ctx.slices.begin(
                &mut ctx.store,
                ts,
                track,
                Some(k.category),
                Some(k.reply),
                None,
            )
        };
        if let (Some(slice_out), Some(slice_in)) = (t.send_slice, recv_slice) {
            ctx.store.flows.push(FlowRow {
                slice_out,
                slice_in,
                trace_id: None,
            });
        }
    }

    /// binder_transaction_alloc_buf: the buffer sizes of the call `tid` is making.
    pub fn transaction_alloc_buf(&mut self, ctx: &mut Ctx, tid: u32, data: &[u8]) {
        let f = decode::<4>(data);
        let (_, track) = Self::track(ctx, tid);
        let k = self.keys(&mut ctx.store);
        let args = [
            (k.data_size, ArgValue::UInt(f[1].as_u64())),
            (k.offsets_size, ArgValue::UInt(f[3].as_u64())),
        ];
        self.add_args_to_open(ctx, &k, track, k.transaction, args);
    }

    /// binder_command: a command from userspace to the driver.
    pub fn command(&mut self, ctx: &mut Ctx, tid: u32, data: &[u8]) {
        let cmd = decode::<2>(data)[1].as_u32();
        let (utid, _) = Self::track(ctx, tid);
        match cmd {
            BC_TRANSACTION | BC_TRANSACTION_SG => self.push_frame(
                utid,
                Frame {
                    state: State::SndAfterBcTransaction,
                    txn: None,
                },
            ),
            BC_REPLY | BC_REPLY_SG => {
                if let Some(frame) = self.top_frame(utid) {
                    if frame.state == State::RcvAfterBrTransaction {
                        frame.state = State::RcvAfterBcReply;
                    }
                }
            }
            _ => {}
        }
    }

    /// binder_return: a return from the driver to userspace.
    pub fn return_cmd(&mut self, ctx: &mut Ctx, ts: i64, tid: u32, data: &[u8]) {
        let cmd = decode::<2>(data)[1].as_u32();
        let (utid, track) = Self::track(ctx, tid);
        let Some(frame) = self.top_frame(utid).copied() else {
            return;
        };
        match cmd {
            BR_DEAD_REPLY | BR_FAILED_REPLY | BR_FROZEN_REPLY | BR_TRANSACTION_PENDING_FROZEN => {
                match frame.state {
                    // Failed before binder_transaction: no slice was opened.
                    State::SndAfterBcTransaction => self.pop_frame(utid),
                    State::RcvAfterBcReply
                    | State::SndAfterTransaction
                    | State::RcvAfterTransaction
                    | State::SndAfterBrTransactionComplete => {
                        // A failed call leaves the caller's slice open: close it here.
                        if frame.txn == Some((false, false)) {
                            self.end_any(ctx, ts, track);
                        }
                        self.pop_frame(utid);
                    }
                    State::SndAfterTransactionReceived
                    | State::RcvAfterTransactionReceived
                    | State::RcvAfterBrTransaction => {}
                }
            }
            BR_TRANSACTION_COMPLETE | BR_ONEWAY_SPAM_SUSPECT => match frame.state {
                State::RcvAfterTransaction | State::SndAfterBcTransaction => self.pop_frame(utid),
                State::SndAfterTransaction => {
                    if frame.txn.is_some_and(|(oneway, _)| !oneway) {
                        self.top_frame(utid).unwrap().state = State::SndAfterBrTransactionComplete;
                    } else {
                        // The last event of a oneway call.
                        self.pop_frame(utid);
                    }
                }
                _ => {}
            },
            // The last event of a synchronous call.
            BR_REPLY if frame.state == State::SndAfterTransactionReceived => self.pop_frame(utid),
            BR_TRANSACTION | BR_TRANSACTION_SEC_CTX
                if frame.state == State::RcvAfterTransactionReceived =>
            {
                self.top_frame(utid).unwrap().state = State::RcvAfterBrTransaction;
            }
            _ => {}
        }
    }

    /// binder_lock: `tid` waits for the global binder lock.
    pub fn lock(&mut self, ctx: &mut Ctx, ts: i64, tid: u32) {
        self.attempt_lock.insert(tid, ts);
        let (_, track) = Self::track(ctx, tid);
        let k = self.keys(&mut ctx.store);
        ctx.slices.begin(
            &mut ctx.store,
            ts,
            track,
            Some(k.category),
            Some(k.lock_waiting),
            None,
        );
    }

    /// binder_locked: `tid` got the lock it waited for.
    pub fn locked(&mut self, ctx: &mut Ctx, ts: i64, tid: u32) {
        let (_, track) = Self::track(ctx, tid);
        if self.attempt_lock.remove(&tid).is_none() {
            return;
        }
        self.end_any(ctx, ts, track);
        let k = self.keys(&mut ctx.store);
        ctx.slices.begin(
            &mut ctx.store,
            ts,
            track,
            Some(k.category),
            Some(k.lock_held),
            None,
        );
        self.lock_acquired.insert(tid, ts);
    }

    /// binder_unlock: `tid` released the lock.
    pub fn unlock(&mut self, ctx: &mut Ctx, ts: i64, tid: u32) {
        let (_, track) = Self::track(ctx, tid);
        if self.lock_acquired.remove(&tid).is_none() {
            return;
        }
        let k = self.keys(&mut ctx.store);
        let ended = ctx.slices.end(
            &mut ctx.store,
            ts,
            track,
            Some(k.category),
            Some(k.lock_held),
        );
        if let Some(sid) = ended {
            self.flush_args(&mut ctx.store, sid);
        }
    }

    /// Writes the args of slices still open at the end of the trace.
    pub fn finish(&mut self, ctx: &mut Ctx) {
        let mut open: Vec<SliceId> = self.pending_args.keys().copied().collect();
        open.sort_unstable();
        for sid in open {
            self.flush_args(&mut ctx.store, sid);
        }
    }
}

#[cfg(test)]
mod tests {
    //! Expected values follow trace_processor's documented binder rules (binder_tracker.cc
    //! at v58.2): slice names, arg keys and value types, flows, and failure handling.
    use super::*;
    use crate::store::processes::ThreadNamePriority;
    use crate::store::SliceRow;
    use crate::trace::wire::{put_field, Value};

    fn encode(fields: &[(u32, u64)]) -> Vec<u8> {
        let mut out = Vec::new();
        for &(id, v) in fields {
            put_field(&mut out, id, Value::Varint(v));
        }
        out
    }

    struct T {
        ctx: Ctx,
        b: BinderTracker,
    }

    impl T {
        fn new() -> T {
            T {
                ctx: Ctx::new(),
                b: BinderTracker::default(),
            }
        }
        fn name_thread(&mut self, tid: i64, name: &str) {
            let s = &mut self.ctx.store;
            let utid = self.ctx.procs.get_or_create_thread(s, tid);
            let name = Some(s.intern(name));
            self.ctx
                .procs
                .update_thread_name(s, utid, name, ThreadNamePriority::Ftrace);
        }
        /// binder_transaction from `tid`: (debug_id, to_proc, to_thread, reply, code, flags).
        fn send(&mut self, ts: i64, tid: u32, id: u64, to: (u64, u64), reply: bool, flags: u64) {
            let data = encode(&[
                (1, id),
                (2, 7),
                (3, to.0),
                (4, to.1),
                (5, reply as u64),
                (6, 3),
                (7, flags),
            ]);
            self.b.transaction(&mut self.ctx, ts, tid, &data);
        }
        fn recv(&mut self, ts: i64, tid: u32, id: u64) {
            self.b
                .transaction_received(&mut self.ctx, ts, tid, &encode(&[(1, id)]));
        }
        fn alloc(&mut self, tid: u32, data_size: u64, offsets_size: u64) {
            let data = encode(&[(1, data_size), (3, offsets_size)]);
            self.b.transaction_alloc_buf(&mut self.ctx, tid, &data);
        }
        fn cmd(&mut self, tid: u32, cmd: u32) {
            self.b
                .command(&mut self.ctx, tid, &encode(&[(1, cmd as u64)]));
        }
        fn ret(&mut self, ts: i64, tid: u32, cmd: u32) {
            self.b
                .return_cmd(&mut self.ctx, ts, tid, &encode(&[(1, cmd as u64)]));
        }
        fn finish(&mut self) {
            self.b.finish(&mut self.ctx);
        }
        fn slices(&self) -> &[SliceRow] {
            &self.ctx.store.slices
        }
        fn name(&self, i: usize) -> &str {
            self.ctx.store.opt_str(self.slices()[i].name).unwrap()
        }
        fn tid_of(&self, i: usize) -> i64 {
            let s = &self.ctx.store;
            let TrackScope::Thread(utid) = s.tracks[s.slices[i].track_id as usize].scope else {
                panic!("not a thread track");
            };
            s.threads[utid as usize].tid
        }
        fn arg(&self, i: usize, key: &str) -> Option<ArgValue> {
            let s = &self.ctx.store;
            s.args
                .get_by_name(&s.strings, s.slices[i].arg_set_id.get(), key)
                .cloned()
        }
        fn str_arg(&self, i: usize, key: &str) -> Option<&str> {
            match self.arg(i, key)? {
                ArgValue::Str(id) => Some(self.ctx.store.str(id)),
                other => panic!("{key} is not a string: {other:?}"),
            }
        }
        fn arg_keys(&self, i: usize) -> Vec<&str> {
            let s = &self.ctx.store;
            match s.slices[i].arg_set_id.get() {
                Some(id) => s.args.set(id).iter().map(|a| s.str(a.key)).collect(),
                None => Vec::new(),
            }
        }
        fn flows(&self) -> Vec<(SliceId, SliceId)> {
            let f = &self.ctx.store.flows;
            f.iter().map(|f| (f.slice_out, f.slice_in)).collect()
        }
    }

    use crate::store::TrackScope;

    #[test]
    fn flags_read_as_hex_then_their_meaning() {
        assert_eq!(flags_text(0), "0x00 No Flags Set");
        assert_eq!(
            flags_text(0x11),
            "0x11 this is a one-way call: async, no return; allow replies with file descriptors; "
        );
        assert_eq!(
            flags_text(0x0c),
            "0x0c contents are the components root object; contents are a 32-bit status code; "
        );
        // Unknown bits only show in the hex.
        assert_eq!(flags_text(0x100), "0x100 ");
    }

    #[test]
    fn synchronous_call_gives_a_transaction_and_a_reply_joined_by_a_flow() {
        let mut t = T::new();
        t.name_thread(21, "binder:20_1");
        t.name_thread(10, "caller");
        t.send(100, 10, 1, (20, 0), false, 0x10);
        t.alloc(10, 64, 8);
        t.recv(110, 21, 1);
        t.send(150, 21, 2, (10, 10), true, 0);
        t.recv(160, 10, 2);
        t.finish();
        let s = t.slices();
        assert_eq!(s.len(), 2);
        assert_eq!((t.name(0), t.tid_of(0)), ("binder transaction", 10));
        assert_eq!((s[0].ts, s[0].dur, s[0].depth()), (100, 60, 0));
        assert_eq!((t.name(1), t.tid_of(1)), ("binder reply", 21));
        assert_eq!((s[1].ts, s[1].dur, s[1].depth()), (110, 40, 0));
        let binder = t.ctx.store.strings.lookup("binder");
        assert!((0..s.len() as u32).all(|i| t.ctx.store.slice_category(i) == binder));
        // Only the call makes a flow: the reply's reception ends the caller's slice.
        assert_eq!(t.flows(), vec![(0, 1)]);

        // The caller's slice: the call, its buffer, and who served it.
        assert_eq!(
            t.arg_keys(0),
            [
                "transaction id",
                "destination node",
                "destination process",
                "reply transaction?",
                "flags",
                "code",
                "calling tid",
                "data size",
                "offsets size",
                "destination thread",
                "destination name",
            ]
        );
        assert_eq!(t.arg(0, "transaction id"), Some(ArgValue::Int(1)));
        assert_eq!(t.arg(0, "destination node"), Some(ArgValue::Int(7)));
        assert_eq!(t.arg(0, "destination process"), Some(ArgValue::Int(20)));
        assert_eq!(t.arg(0, "reply transaction?"), Some(ArgValue::Bool(false)));
        assert_eq!(
            t.str_arg(0, "flags"),
            Some("0x10 allow replies with file descriptors; ")
        );
        assert_eq!(t.str_arg(0, "code"), Some("0x03 Java Layer Dependent"));
        assert_eq!(t.arg(0, "calling tid"), Some(ArgValue::UInt(10)));
        assert_eq!(t.arg(0, "data size"), Some(ArgValue::UInt(64)));
        assert_eq!(t.arg(0, "offsets size"), Some(ArgValue::UInt(8)));
        assert_eq!(t.arg(0, "destination thread"), Some(ArgValue::UInt(21)));
        assert_eq!(t.str_arg(0, "destination name"), Some("binder:20_1"));

        // The reply's slice: whom it answered, then the reply transaction itself.
        assert_eq!(t.arg(1, "destination thread"), Some(ArgValue::Int(10)));
        assert_eq!(t.str_arg(1, "destination name"), Some("caller"));
        assert_eq!(t.arg(1, "transaction id"), Some(ArgValue::Int(2)));
        assert_eq!(t.arg(1, "reply transaction?"), Some(ArgValue::Bool(true)));
        assert_eq!(t.str_arg(1, "flags"), Some("0x00 No Flags Set"));
        assert_eq!(t.arg(1, "calling tid"), Some(ArgValue::UInt(21)));
        assert_eq!(t.arg(1, "data size"), None);
    }

    #[test]
    fn oneway_call_gives_two_instants_with_the_same_args() {
        let mut t = T::new();
        t.send(100, 10, 5, (20, 0), false, TF_ONE_WAY as u64);
        t.recv(130, 21, 5);
        t.finish();
        let s = t.slices();
        assert_eq!(s.len(), 2);
        assert_eq!(
            (t.name(0), s[0].ts, s[0].dur),
            ("binder transaction async", 100, 0)
        );
        assert_eq!((t.name(1), s[1].ts, s[1].dur), ("binder async rcv", 130, 0));
        assert_eq!((t.tid_of(0), t.tid_of(1)), (10, 21));
        assert_eq!(s[0].arg_set_id, s[1].arg_set_id);
        assert_eq!(
            t.str_arg(1, "flags"),
            Some("0x01 this is a one-way call: async, no return; ")
        );
        assert_eq!(t.arg(1, "calling tid"), Some(ArgValue::UInt(10)));
        assert_eq!(t.arg(1, "destination thread"), None);
        assert_eq!(t.flows(), vec![(0, 1)]);
    }

    #[test]
    fn a_call_made_while_serving_nests_in_the_reply() {
        let mut t = T::new();
        t.send(100, 10, 1, (20, 0), false, 0);
        t.recv(110, 21, 1);
        t.send(120, 21, 2, (30, 0), false, 0);
        t.recv(125, 31, 2);
        t.send(130, 31, 3, (20, 21), true, 0);
        t.recv(135, 21, 3);
        t.send(150, 21, 4, (10, 10), true, 0);
        t.recv(160, 10, 4);
        t.finish();
        let s = t.slices();
        let rows: Vec<_> = (0..s.len())
            .map(|i| (t.name(i), t.tid_of(i), s[i].ts, s[i].dur, s[i].depth()))
            .collect();
        assert_eq!(
            rows,
            [
                ("binder transaction", 10, 100, 60, 0),
                ("binder reply", 21, 110, 40, 0),
                ("binder transaction", 21, 120, 15, 1),
                ("binder reply", 31, 125, 5, 0),
            ]
        );
        assert_eq!(t.ctx.store.slice_parent(2), Some(1));
        assert_eq!(t.flows(), vec![(0, 1), (2, 3)]);
    }

    #[test]
    fn unknown_transactions_are_ignored_and_unanswered_calls_stay_open() {
        let mut t = T::new();
        // Received, but sent before the trace began.
        t.recv(90, 21, 77);
        t.send(100, 10, 1, (20, 0), false, 0);
        t.finish();
        let s = t.slices();
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].dur, -1);
        // Args of a slice still open at the end are written too.
        assert_eq!(t.arg(0, "transaction id"), Some(ArgValue::Int(1)));
        assert!(t.flows().is_empty());
    }

    #[test]
    fn a_failed_call_is_closed_by_the_drivers_dead_reply() {
        let mut t = T::new();
        t.cmd(10, BC_TRANSACTION);
        t.send(100, 10, 1, (20, 0), false, 0);
        t.ret(101, 10, BR_TRANSACTION_COMPLETE);
        t.ret(130, 10, BR_DEAD_REPLY);
        assert_eq!(t.slices()[0].dur, 30);
        assert!(t.b.frames.is_empty());
    }

    #[test]
    fn without_commands_a_dead_reply_closes_nothing() {
        let mut t = T::new();
        t.send(100, 10, 1, (20, 0), false, 0);
        t.ret(130, 10, BR_DEAD_REPLY);
        assert_eq!(t.slices()[0].dur, -1);
    }

    #[test]
    fn command_tracking_keeps_the_stacks_balanced_through_a_whole_call() {
        let mut t = T::new();
        t.cmd(10, BC_TRANSACTION);
        t.send(100, 10, 1, (20, 0), false, 0);
        t.recv(110, 21, 1);
        t.ret(111, 21, BR_TRANSACTION);
        t.ret(112, 10, BR_TRANSACTION_COMPLETE);
        t.cmd(21, BC_REPLY);
        t.send(150, 21, 2, (10, 10), true, 0);
        t.ret(151, 21, BR_TRANSACTION_COMPLETE);
        t.recv(160, 10, 2);
        t.ret(161, 10, BR_REPLY);
        assert!(t.b.frames.is_empty());
        // A dead reply now finds no call in flight: nothing more is closed.
        t.ret(170, 10, BR_DEAD_REPLY);
        let s = t.slices();
        assert_eq!((s[0].dur, s[1].dur), (60, 40));
    }

    #[test]
    fn a_oneway_call_failing_closes_nothing() {
        let mut t = T::new();
        t.cmd(10, BC_TRANSACTION);
        t.send(100, 10, 1, (20, 0), false, TF_ONE_WAY as u64);
        t.ret(105, 10, BR_FAILED_REPLY);
        assert_eq!(t.slices().len(), 1);
        assert!(t.b.frames.is_empty());
    }

    #[test]
    fn binder_lock_waits_then_holds() {
        let mut t = T::new();
        t.b.locked(&mut t.ctx, 5, 10); // no wait seen: ignored
        t.b.unlock(&mut t.ctx, 6, 10); // nothing held: ignored
        t.b.lock(&mut t.ctx, 10, 10);
        t.b.locked(&mut t.ctx, 15, 10);
        t.b.unlock(&mut t.ctx, 30, 10);
        let s = t.slices();
        let rows: Vec<_> = (0..s.len())
            .map(|i| (t.name(i), s[i].ts, s[i].dur, s[i].depth()))
            .collect();
        assert_eq!(
            rows,
            [
                ("binder lock waiting", 10, 5, 0),
                ("binder lock held", 15, 15, 0)
            ]
        );
    }

    #[test]
    fn binder_slices_share_the_threads_atrace_stack() {
        let mut t = T::new();
        let utid = t.ctx.procs.get_or_create_thread(&mut t.ctx.store, 10);
        let track = t.ctx.tracks.thread_track(&mut t.ctx.store, utid);
        let name = Some(t.ctx.store.intern("atrace outer"));
        t.ctx
            .slices
            .begin(&mut t.ctx.store, 50, track, None, name, None);
        t.send(100, 10, 1, (20, 0), false, 0);
        let s = t.slices();
        assert_eq!(
            (s[1].track_id, s[1].depth(), t.ctx.store.slice_parent(1)),
            (track, 1, Some(0))
        );
    }
}
