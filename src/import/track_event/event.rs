//! One sorted TrackEvent into slices, instants, counters and flows (trace_processor's
//! TrackEventEventImporter): the event's track comes from its track uuid (or the
//! sequence's default), else — for legacy events — from the sequence's thread; its type
//! (or legacy phase) says whether it begins, ends or is an instant, a complete slice or a
//! counter value.

use super::decode::{interned as iid, te, LegacyEvent, TrackEvent};
use super::event_args::{self, parser_error, Input};
use super::payload::Header;
use super::tracks::{is_synthetic_tid, synthetic_tid, Scope, Use};
use super::TrackEventImporter;
use crate::import::android_props::push_counter;
use crate::import::Ctx;
use crate::store::args::ArgSetId;
use crate::store::slices::SliceTracker;
use crate::store::strings::StrId;
use crate::store::tracks::{DimValue, TrackSpec};
use crate::store::{
    EventType, Severity, SliceId, SliceThreadTimes, TrackId, TrackScope, Upid, Utid,
};
use crate::trace::sort::TrackEventMeta;

/// An event being imported and what has been worked out about it so far.
struct Event<'a> {
    ts: i64,
    meta: &'a TrackEventMeta,
    /// What the tokenizer worked out from the sequence's state.
    head: Header,
    e: TrackEvent<'a>,
    legacy: LegacyEvent<'a>,
    /// (track uuid, value) of the extra counter values.
    extra_counters: &'a [u8],
    category: Option<StrId>,
    name: Option<StrId>,
    track_uuid: u64,
    utid: Option<Utid>,
    upid: Option<Upid>,
    thread_ts: Option<i64>,
    thread_instructions: Option<i64>,
    /// No track uuid: the event goes on its sequence thread's track.
    fallback_to_thread: bool,
    legacy_trace_source_id: Option<i64>,
    /// The emitting thread, recorded for events whose track does not say it.
    passthrough_utid: Option<Utid>,
}

/// An error that drops the event (counted as a parser error).
struct Dropped;

type Result<T> = std::result::Result<T, Dropped>;

impl TrackEventImporter {
    pub(super) fn import_event(
        &mut self,
        ctx: &mut Ctx,
        ts: i64,
        meta: &TrackEventMeta,
        payload: &[u8],
    ) {
        let Some((head, bytes, extra_counters)) = super::payload::decode(payload) else {
            parser_error(&mut ctx.store);
            return;
        };
        let e = TrackEvent::decode(bytes);
        let legacy = e.legacy_event.map(LegacyEvent::decode).unwrap_or_default();
        let mut ev = Event {
            ts,
            meta,
            head,
            category: None,
            name: None,
            track_uuid: 0,
            utid: None,
            upid: None,
            thread_ts: head.thread_ts,
            thread_instructions: head.thread_instructions,
            fallback_to_thread: false,
            legacy_trace_source_id: None,
            passthrough_utid: None,
            extra_counters,
            legacy,
            e,
        };
        if self.import(ctx, &mut ev).is_err() {
            parser_error(&mut ctx.store);
        }
    }

    fn import(&mut self, ctx: &mut Ctx, ev: &mut Event<'_>) -> Result<()> {
        if ev.e.ty() == 0 && ev.legacy.phase.is_none() {
            return Err(Dropped);
        }
        ev.category = self.category(ctx, ev);
        ev.name = self.name(ctx, ev);
        self.initial_track_association(ctx, ev)?;
        self.legacy_thread_counters(ctx, ev);
        self.extra_counter_values(ctx, ev);
        match ev.e.ty() {
            te::TYPE_COUNTER => return self.counter(ctx, ev),
            te::TYPE_STATE => {
                ctx.store.stat(
                    "track_event_state_not_imported",
                    Severity::Info,
                    "State track events (TYPE_STATE) are not imported by frameprobe.",
                );
                return Ok(());
            }
            _ => {}
        }
        let phase = match ev.legacy.phase {
            Some(p) => p,
            None => match ev.e.ty() {
                te::TYPE_SLICE_BEGIN if ev.utid.is_some() => 'B' as i32,
                te::TYPE_SLICE_BEGIN => 'b' as i32,
                te::TYPE_SLICE_END if ev.utid.is_some() => 'E' as i32,
                te::TYPE_SLICE_END => 'e' as i32,
                te::TYPE_INSTANT if ev.utid.is_some() => 'i' as i32,
                te::TYPE_INSTANT => 'n' as i32,
                _ => 0,
            },
        };
        match u8::try_from(phase).map(char::from).unwrap_or('\0') {
            'B' => self.thread_begin(ctx, ev),
            'E' => self.thread_end(ctx, ev),
            'X' => self.thread_complete(ctx, ev),
            c @ ('s' | 't' | 'f') => self.flow_v1(ctx, ev, c),
            c @ ('i' | 'I' | 'R') => self.instant(ctx, ev, c, true),
            c @ ('b' | 'S') => self.async_begin(ctx, ev, c),
            'e' | 'F' => self.async_end(ctx, ev),
            'n' => self.instant(ctx, ev, 'n', false),
            c @ ('T' | 'p') => self.async_step(ctx, ev, c),
            'M' => self.metadata(ctx, ev),
            _ => {
                // Other legacy phases only feed trace_processor's raw table (JSON export).
                ctx.store.stat(
                    "track_event_legacy_phase_not_imported",
                    Severity::Info,
                    "Legacy track events with phases that only feed the raw table were skipped.",
                );
                Ok(())
            }
        }
    }

    fn category(&mut self, ctx: &mut Ctx, ev: &Event<'_>) -> Option<StrId> {
        if !ev.e.has_category_iids && !ev.e.has_categories {
            return None;
        }
        let store = &mut ctx.store;
        let mut iids = [0u64; 2];
        let mut n_iids = 0usize;
        super::decode::for_each_u64(ev.e.bytes, te::CATEGORY_IIDS, false, |i| {
            if n_iids < 2 {
                iids[n_iids] = i;
            }
            n_iids += 1;
        });
        let mut n_strs = 0usize;
        let mut first_str: &[u8] = &[];
        super::decode::for_each_bytes(ev.e.bytes, te::CATEGORIES, |s| {
            if n_strs == 0 {
                first_str = s;
            }
            n_strs += 1;
        });
        let interval = ev.meta.interval;
        if n_iids == 1 && n_strs == 0 {
            return match event_args::interned_string(
                store,
                &self.interned,
                interval,
                iid::EVENT_CATEGORIES,
                iids[0],
            ) {
                Some(s) => Some(super::intern_str(store, s)),
                None => Some(store.intern(&format!("unknown({})", iids[0]))),
            };
        }
        if n_iids == 0 && n_strs == 1 {
            return Some(super::intern_str(store, first_str));
        }
        if n_iids + n_strs <= 1 {
            return None;
        }
        // Several categories are joined: the slice table has one category column.
        let mut joined = String::new();
        let mut all_iids = Vec::with_capacity(n_iids);
        super::decode::for_each_u64(ev.e.bytes, te::CATEGORY_IIDS, false, |i| all_iids.push(i));
        for i in all_iids {
            let Some(s) = event_args::interned_string(
                store,
                &self.interned,
                interval,
                iid::EVENT_CATEGORIES,
                i,
            ) else {
                continue;
            };
            if !joined.is_empty() {
                joined.push(',');
            }
            joined.push_str(&String::from_utf8_lossy(s));
        }
        super::decode::for_each_bytes(ev.e.bytes, te::CATEGORIES, |s| {
            if !joined.is_empty() {
                joined.push(',');
            }
            joined.push_str(&String::from_utf8_lossy(s));
        });
        (!joined.is_empty()).then(|| store.intern(&joined))
    }

    fn name(&mut self, ctx: &mut Ctx, ev: &Event<'_>) -> Option<StrId> {
        let name_iid =
            ev.e.name_iid
                .filter(|&i| i != 0)
                .or(ev.legacy.name_iid.filter(|&i| i != 0));
        let store = &mut ctx.store;
        match name_iid {
            Some(i) => event_args::interned_string(
                store,
                &self.interned,
                ev.meta.interval,
                iid::EVENT_NAMES,
                i,
            )
            .map(|s| super::intern_str(store, s)),
            None => ev.e.name.map(|n| super::intern_str(store, n)),
        }
    }

    /// Which thread / process the event belongs to, from its track or its sequence.
    fn initial_track_association(&mut self, ctx: &mut Ctx, ev: &mut Event<'_>) -> Result<()> {
        ev.track_uuid = ev.e.track_uuid.or(ev.head.default_track_uuid).unwrap_or(0);
        let thread = ev.head.thread;
        if ev.track_uuid != 0 {
            let resolved = self.tracks.resolve(ctx, ev.track_uuid).ok_or(Dropped)?;
            match resolved.scope {
                Scope::Thread(u) => {
                    ev.utid = Some(u);
                    ev.upid = ctx.store.threads[u as usize].upid;
                }
                Scope::Process(p) => {
                    ev.upid = Some(p);
                    if let Some((pid, tid)) = thread {
                        let u = ctx.procs.update_thread(&mut ctx.store, tid, pid);
                        if ctx.store.threads[u as usize].upid == Some(p) {
                            ev.passthrough_utid = Some(u);
                        }
                    }
                }
                Scope::Global => {
                    if let Some((pid, tid)) = thread {
                        ev.passthrough_utid =
                            Some(ctx.procs.update_thread(&mut ctx.store, tid, pid));
                    }
                }
            }
        } else {
            let valid = thread.is_some();
            // Events of real types must name their track; only legacy ones fall back.
            ev.fallback_to_thread = (ev.e.track_uuid.is_none() || ev.e.ty.is_none()) && valid;
            ev.fallback_to_thread |= ev.legacy.pid_override.is_some();
            ev.fallback_to_thread |= ev.legacy.tid_override.is_some() && valid;
            if ev.fallback_to_thread {
                let (mut pid, seq_tid) = thread.unwrap_or((0, 0));
                let mut tid = seq_tid;
                if let Some(p) = ev.legacy.pid_override {
                    pid = p as i64;
                    tid = synthetic_tid(-1, pid);
                }
                if let Some(t) = ev.legacy.tid_override {
                    tid = t as i64;
                    if is_synthetic_tid(seq_tid) {
                        tid = synthetic_tid(tid, pid);
                    }
                }
                if pid == 0 || tid == 0 {
                    // pid/tid 0 is the swapper's.
                    return Err(Dropped);
                }
                let u = ctx.procs.update_thread(&mut ctx.store, tid, pid);
                ev.utid = Some(u);
                ev.upid = ctx.store.threads[u as usize].upid;
            }
        }
        let Some(p) = ev.legacy.phase else {
            return Ok(());
        };
        match u8::try_from(p).map(char::from).unwrap_or('\0') {
            'b' | 'e' | 'n' | 'S' | 'T' | 'p' | 'F' => ev.passthrough_utid = ev.utid,
            'i' | 'I' => match ev.legacy.instant_event_scope {
                // Global
                1 => {
                    ev.passthrough_utid = ev.utid;
                    ev.utid = None;
                }
                // Process
                2 => {
                    if ev.upid.is_none() {
                        return Err(Dropped);
                    }
                    ev.passthrough_utid = ev.utid;
                    ev.utid = None;
                }
                // Unspecified, thread
                _ => {
                    if ev.utid.is_none() {
                        return Err(Dropped);
                    }
                }
            },
            _ => {}
        }
        Ok(())
    }

    /// The track for this event: legacy async ids and instant scopes choose their own;
    /// otherwise the descriptor track, or the sequence thread's track.
    fn track(&mut self, ctx: &mut Ctx, ev: &mut Event<'_>, usage: Use) -> Result<TrackId> {
        let descriptor = if ev.track_uuid == 0 && ev.fallback_to_thread {
            None
        } else {
            let seq = (ev.track_uuid != 0).then_some(ev.meta.seq_id);
            self.tracks
                .track_for(ctx, ev.track_uuid, ev.name, seq, usage)
        };
        if let Some(p) = ev.legacy.phase {
            match u8::try_from(p).map(char::from).unwrap_or('\0') {
                c @ ('b' | 'e' | 'n' | 'S' | 'T' | 'p' | 'F') => {
                    return self.legacy_async_track(ctx, ev, c);
                }
                'i' | 'I' => match ev.legacy.instant_event_scope {
                    1 => return Ok(legacy_instant_track(ctx, TrackScope::Global)),
                    2 => {
                        let upid = ev.upid.ok_or(Dropped)?;
                        return Ok(legacy_instant_track(ctx, TrackScope::Process(upid)));
                    }
                    _ => {}
                },
                _ => {}
            }
        }
        if ev.track_uuid == 0 && ev.fallback_to_thread {
            let utid = ev.utid.ok_or(Dropped)?;
            return Ok(ctx.tracks.thread_track(&mut ctx.store, utid));
        }
        descriptor.ok_or(Dropped)
    }

    /// Tracks of legacy async events: one set per id (process-scoped for local ids), named
    /// after the first event seen with the id.
    fn legacy_async_track(
        &mut self,
        ctx: &mut Ctx,
        ev: &mut Event<'_>,
        phase: char,
    ) -> Result<TrackId> {
        let l = &ev.legacy;
        let (source_id, process_scoped) = if let Some(id) = l.unscoped_id {
            (id as i64, false)
        } else if let Some(id) = l.global_id {
            (id as i64, false)
        } else if let Some(id) = l.local_id {
            if ev.upid.is_none() {
                return Err(Dropped);
            }
            (id as i64, true)
        } else {
            return Err(Dropped);
        };
        ev.legacy_trace_source_id = Some(source_id);
        let legacy_async = matches!(phase, 'S' | 'T' | 'p' | 'F');
        let mut scope = if legacy_async { ev.name } else { ev.category };
        if let Some(s) = l.id_scope {
            let cat = ctx.store.opt_str(ev.category).unwrap_or("").to_string();
            scope = Some(
                ctx.store
                    .intern(&format!("{cat}:{}", String::from_utf8_lossy(s))),
            );
        }
        let upid = ev.upid.unwrap_or(0);
        let root_key = (if process_scoped { upid } else { u32::MAX }, source_id);
        let root = *self.legacy_async_roots.entry(root_key).or_insert(ev.name);
        let (kind, track_scope) = if process_scoped {
            ("legacy_async_process_slice", TrackScope::Process(upid))
        } else {
            ("legacy_async_global_slice", TrackScope::Global)
        };
        let scope_id = scope.map_or(-1, |s| s.index() as i64);
        let dims = [("scope_id", DimValue::Int(scope_id))];
        let mut spec = TrackSpec::new(kind, EventType::Slice, track_scope)
            .extra(scope_id)
            .dims(&dims);
        if let Some(r) = root {
            spec = spec.name_dimension(r);
        }
        let store = &mut ctx.store;
        let t = match phase {
            'b' | 'S' => ctx.compressor.begin(store, spec, source_id),
            'e' | 'F' => ctx.compressor.end(store, spec, source_id),
            _ => {
                ctx.compressor.begin(store, spec, source_id);
                ctx.compressor.end(store, spec, source_id)
            }
        };
        Ok(t)
    }

    fn args(
        &mut self,
        ctx: &mut Ctx,
        ev: &Event<'_>,
    ) -> Vec<(StrId, StrId, crate::store::args::ArgValue)> {
        let input = Input {
            event: &ev.e,
            interned: &self.interned,
            interval: ev.meta.interval,
            utid: ev.utid,
            legacy_trace_source_id: ev.legacy_trace_source_id,
            passthrough_utid: ev.passthrough_utid,
        };
        event_args::build(ctx, &input, &mut self.sink, &mut self.path);
        std::mem::take(&mut self.sink.args)
    }

    fn arg_set(
        &mut self,
        ctx: &mut Ctx,
        ev: &Event<'_>,
        extra_phase: Option<char>,
    ) -> Option<ArgSetId> {
        let mut args = self.args(ctx, ev);
        if let Some(p) = extra_phase {
            let k = ctx.store.intern("legacy_event.phase");
            let v = ctx.store.intern(&p.to_string());
            match args.iter_mut().find(|a| a.1 == k) {
                Some(slot) => slot.2 = crate::store::args::ArgValue::Str(v),
                None => args.push((k, k, crate::store::args::ArgValue::Str(v))),
            }
        }
        ctx.store.args.insert_set_with_flat_keys(args)
    }

    /// Thread time / instruction counts given in the event itself become counters of the
    /// thread (trace_processor's legacy handling).
    fn legacy_thread_counters(&mut self, ctx: &mut Ctx, ev: &Event<'_>) {
        let Some(utid) = ev.utid else { return };
        for (value, kind, name) in [
            (ev.head.thread_ts, "thread_time", "thread_time"),
            (
                ev.head.thread_instructions,
                "thread_instructions",
                "thread_instruction_count",
            ),
        ] {
            let Some(v) = value else { continue };
            let name = ctx.store.intern(name);
            let spec =
                TrackSpec::new(kind, EventType::Counter, TrackScope::Thread(utid)).named(name);
            let t = ctx.tracks.intern(&mut ctx.store, spec);
            push_counter(&mut ctx.store, ev.ts, t, v as f64, None);
        }
    }

    fn extra_counter_values(&mut self, ctx: &mut Ctx, ev: &mut Event<'_>) {
        if ev.extra_counters.is_empty() {
            return;
        }
        let thread_time = ctx.store.intern("thread_time");
        let instructions = ctx.store.intern("thread_instruction_count");
        for pair in ev.extra_counters.chunks_exact(16) {
            let uuid = u64::from_le_bytes(pair[..8].try_into().expect("8 bytes"));
            let value = f64::from_le_bytes(pair[8..].try_into().expect("8 bytes"));
            let seq = Some(ev.meta.seq_id);
            let Some(track) = self.tracks.track_for(ctx, uuid, None, seq, Use::Counter) else {
                continue;
            };
            push_counter(&mut ctx.store, ev.ts, track, value, None);
            // Thread time and instruction counters also fill the slice's thread columns.
            let name = ctx.store.tracks[track as usize].name;
            if name == Some(thread_time) {
                ev.thread_ts = Some(value as i64);
            } else if name == Some(instructions) {
                ev.thread_instructions = Some(value as i64);
            }
        }
    }

    fn counter(&mut self, ctx: &mut Ctx, ev: &mut Event<'_>) -> Result<()> {
        let track = self.track(ctx, ev, Use::Counter)?;
        let args = self.arg_set(ctx, ev, None);
        let value = ev.head.counter_value.unwrap_or(0.0);
        push_counter(&mut ctx.store, ev.ts, track, value, args);
        Ok(())
    }

    fn flows(&mut self, ctx: &mut Ctx, ev: &Event<'_>, slice: SliceId) {
        let store = &mut ctx.store;
        if let Some(bind_id) = ev.legacy.bind_id {
            match ev.legacy.flow_direction {
                // FLOW_OUT, FLOW_INOUT, FLOW_IN
                Some(2) => self.flows.begin(store, slice, bind_id),
                Some(3) => self.flows.step(store, slice, bind_id),
                Some(1) => self.flows.end(store, slice, bind_id, false),
                _ => store.stat(
                    "flow_without_direction",
                    Severity::Error,
                    "A legacy flow binding without a direction was ignored.",
                ),
            }
        }
        if !ev.e.has_flows {
            return;
        }
        let bytes = ev.e.bytes;
        let (field, fixed) = if super::decode::has_field(bytes, te::FLOW_IDS) {
            (te::FLOW_IDS, true)
        } else {
            (te::FLOW_IDS_OLD, false)
        };
        let flows = &mut self.flows;
        super::decode::for_each_u64(bytes, field, fixed, |id| {
            if flows.is_active(id) {
                flows.step(store, slice, id);
            } else {
                flows.begin(store, slice, id);
            }
        });
        let (field, fixed) = if super::decode::has_field(bytes, te::TERMINATING_FLOW_IDS) {
            (te::TERMINATING_FLOW_IDS, true)
        } else {
            (te::TERMINATING_FLOW_IDS_OLD, false)
        };
        super::decode::for_each_u64(bytes, field, fixed, |id| {
            // A terminating id that is not active does not start a flow.
            if flows.is_active(id) {
                flows.end(store, slice, id, true);
            }
        });
    }

    fn set_thread_times(ctx: &mut Ctx, slice: SliceId, t: SliceThreadTimes) {
        if t != SliceThreadTimes::default() {
            ctx.store.slice_thread_times.insert(slice, t);
        }
    }

    fn begin(
        &mut self,
        ctx: &mut Ctx,
        ev: &mut Event<'_>,
        extra_phase: Option<char>,
    ) -> Result<Option<SliceId>> {
        let track = self.track(ctx, ev, Use::Begin)?;
        let args = self.arg_set(ctx, ev, extra_phase);
        let sid = ctx
            .slices
            .begin(&mut ctx.store, ev.ts, track, ev.category, ev.name, args);
        if let Some(s) = sid {
            self.flows.slice_began(&mut ctx.store, track, s);
            self.flows(ctx, ev, s);
        }
        Ok(sid)
    }

    fn thread_begin(&mut self, ctx: &mut Ctx, ev: &mut Event<'_>) -> Result<()> {
        if ev.utid.is_none() {
            return Err(Dropped);
        }
        if let Some(s) = self.begin(ctx, ev, None)? {
            let t = SliceThreadTimes {
                thread_ts: ev.thread_ts,
                thread_instruction_count: ev.thread_instructions,
                ..Default::default()
            };
            Self::set_thread_times(ctx, s, t);
        }
        Ok(())
    }

    fn end(&mut self, ctx: &mut Ctx, ev: &mut Event<'_>) -> Result<Option<SliceId>> {
        let track = self.track(ctx, ev, Use::End)?;
        let Some(sid) = ctx
            .slices
            .end(&mut ctx.store, ev.ts, track, ev.category, ev.name)
        else {
            return Ok(None);
        };
        let args = self.args(ctx, ev);
        SliceTracker::merge_args(&mut ctx.store, sid, args);
        self.flows(ctx, ev, sid);
        Ok(Some(sid))
    }

    fn thread_end(&mut self, ctx: &mut Ctx, ev: &mut Event<'_>) -> Result<()> {
        if ev.utid.is_none() {
            return Err(Dropped);
        }
        let Some(sid) = self.end(ctx, ev)? else {
            return Ok(());
        };
        let Some(t) = ctx.store.slice_thread_times.get_mut(&sid) else {
            return Ok(());
        };
        if let (Some(start), Some(end)) = (t.thread_ts, ev.thread_ts) {
            if end != start {
                t.thread_dur = Some(end.wrapping_sub(start));
            }
        }
        if let (Some(start), Some(_), Some(end)) = (
            t.thread_instruction_count,
            ev.thread_instructions,
            ev.head.thread_instructions,
        ) {
            t.thread_instruction_delta = Some(end.wrapping_sub(start));
        }
        Ok(())
    }

    fn thread_complete(&mut self, ctx: &mut Ctx, ev: &mut Event<'_>) -> Result<()> {
        if ev.utid.is_none() {
            return Err(Dropped);
        }
        let dur = ev.legacy.duration_us.saturating_mul(1000);
        if dur < 0 {
            return Err(Dropped);
        }
        let track = self.track(ctx, ev, Use::Legacy)?;
        let args = self.arg_set(ctx, ev, None);
        let Some(sid) = ctx.slices.scoped(
            &mut ctx.store,
            ev.ts,
            track,
            ev.category,
            ev.name,
            dur,
            args,
        ) else {
            return Ok(());
        };
        let mut t = SliceThreadTimes::default();
        if ev.thread_ts.is_some() {
            t.thread_ts = ev.thread_ts;
            t.thread_dur = Some(ev.legacy.thread_duration_us.saturating_mul(1000));
        }
        if ev.thread_instructions.is_some() {
            t.thread_instruction_count = ev.thread_instructions;
            t.thread_instruction_delta = Some(ev.legacy.thread_instruction_delta);
        }
        Self::set_thread_times(ctx, sid, t);
        self.flows.slice_began(&mut ctx.store, track, sid);
        self.flows(ctx, ev, sid);
        Ok(())
    }

    /// Instants are slices of duration 0, nested under whatever is open on their track.
    fn instant(
        &mut self,
        ctx: &mut Ctx,
        ev: &mut Event<'_>,
        phase: char,
        thread: bool,
    ) -> Result<()> {
        let track = self.track(ctx, ev, Use::Instant)?;
        let args = self.arg_set(ctx, ev, (phase == 'R').then_some('R'));
        let Some(sid) =
            ctx.slices
                .scoped(&mut ctx.store, ev.ts, track, ev.category, ev.name, 0, args)
        else {
            return Ok(());
        };
        if thread && ev.utid.is_some() {
            let mut t = SliceThreadTimes::default();
            if ev.thread_ts.is_some() {
                t.thread_ts = ev.thread_ts;
                t.thread_dur = Some(0);
            }
            if ev.thread_instructions.is_some() {
                t.thread_instruction_count = ev.thread_instructions;
                t.thread_instruction_delta = Some(0);
            }
            Self::set_thread_times(ctx, sid, t);
        }
        self.flows.slice_began(&mut ctx.store, track, sid);
        self.flows(ctx, ev, sid);
        Ok(())
    }

    fn async_begin(&mut self, ctx: &mut Ctx, ev: &mut Event<'_>, phase: char) -> Result<()> {
        self.begin(ctx, ev, (phase == 'S').then_some('S'))?;
        Ok(())
    }

    fn async_end(&mut self, ctx: &mut Ctx, ev: &mut Event<'_>) -> Result<()> {
        self.end(ctx, ev)?;
        Ok(())
    }

    /// Legacy async steps become instants carrying their phase.
    fn async_step(&mut self, ctx: &mut Ctx, ev: &mut Event<'_>, phase: char) -> Result<()> {
        let track = self.track(ctx, ev, Use::Instant)?;
        let args = self.arg_set(ctx, ev, Some(phase));
        ctx.slices
            .scoped(&mut ctx.store, ev.ts, track, ev.category, ev.name, 0, args);
        Ok(())
    }

    fn flow_v1(&mut self, ctx: &mut Ctx, ev: &mut Event<'_>, phase: char) -> Result<()> {
        let Some(source) = ev.legacy.unscoped_id else {
            ctx.store.stat(
                "flow_invalid_id",
                Severity::Error,
                "A legacy flow event without an unscoped id was dropped.",
            );
            return Err(Dropped);
        };
        let flow = self.flows.v1_id(source, ev.category, ev.name);
        let track = self.track(ctx, ev, Use::Legacy)?;
        let store = &mut ctx.store;
        match phase {
            's' => self
                .flows
                .begin_on_track(store, &ctx.slices, track, flow, false),
            't' => self
                .flows
                .begin_on_track(store, &ctx.slices, track, flow, true),
            _ => self.flows.end_on_track(
                store,
                &ctx.slices,
                track,
                flow,
                ev.legacy.bind_to_enclosing,
            ),
        }
        Ok(())
    }

    /// `M` events name threads and processes.
    fn metadata(&mut self, ctx: &mut Ctx, ev: &mut Event<'_>) -> Result<()> {
        use crate::store::processes::{ProcessNamePriority, ThreadNamePriority};
        let name = ev.name.ok_or(Dropped)?;
        let which = ctx.store.str(name).to_string();
        let first_annotation_string = || {
            super::decode::first_bytes(ev.e.bytes, te::DEBUG_ANNOTATIONS).map(|a| {
                crate::trace::wire::Fields::new(a)
                    .map_while(std::result::Result::ok)
                    .filter(|(id, _)| *id == 6)
                    .last()
                    .map(|(_, v)| v.as_bytes())
                    .unwrap_or(&[])
            })
        };
        match which.as_str() {
            "thread_name" => {
                let utid = ev.utid.ok_or(Dropped)?;
                let value = first_annotation_string().ok_or(Dropped)?;
                if let Some(n) = super::intern_nonempty(&mut ctx.store, value) {
                    ctx.procs.update_thread_name(
                        &mut ctx.store,
                        utid,
                        Some(n),
                        ThreadNamePriority::TrackDescriptorThreadType,
                    );
                }
                Ok(())
            }
            "process_name" => {
                let upid = ev.upid.ok_or(Dropped)?;
                let value = first_annotation_string().ok_or(Dropped)?;
                if let Some(n) = super::intern_nonempty(&mut ctx.store, value) {
                    ctx.procs.update_process_name(
                        &mut ctx.store,
                        upid,
                        Some(n),
                        ProcessNamePriority::TrackDescriptor,
                    );
                }
                Ok(())
            }
            _ => {
                ctx.store.stat(
                    "track_event_legacy_phase_not_imported",
                    Severity::Info,
                    "Legacy track events with phases that only feed the raw table were skipped.",
                );
                Ok(())
            }
        }
    }
}

/// Tracks of legacy instant events with a global or process scope.
fn legacy_instant_track(ctx: &mut Ctx, scope: TrackScope) -> TrackId {
    let kind = match scope {
        TrackScope::Global => "legacy_chrome_global_instants",
        _ => "chrome_process_instant",
    };
    ctx.tracks.intern(
        &mut ctx.store,
        TrackSpec::new(kind, EventType::Slice, scope),
    )
}
