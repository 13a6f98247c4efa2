//! SurfaceFlinger FrameTimeline events (TracePacket field 76), imported as trace_processor
//! does: one slice per expected/actual display or surface frame on the process's "Expected
//! Timeline" / "Actual Timeline" tracks (overlaps spread over extra tracks), ended by the
//! FrameEnd with the same cookie, with trace_processor's args and a flow from each surface
//! frame to the display frame that presented it.

use prost::Message;
use rustc_hash::{FxHashMap, FxHashSet};

use super::Ctx;
use crate::protos::frame_timeline_event::{
    ActualDisplayFrameStart, ActualSurfaceFrameStart, Event, ExpectedDisplayFrameStart,
    ExpectedSurfaceFrameStart,
};
use crate::protos::FrameTimelineEvent;
use crate::store::args::{ArgValue, ArgsBuilder};
use crate::store::strings::StrId;
use crate::store::tracks::TrackSpec;
use crate::store::{EventType, FlowRow, FrameTimelineRow, Severity, SliceId, TrackScope, Upid};
use crate::trace::frame_timeline_vocab as jank;

const EXPECTED_KIND: &str = "android_expected_frame_timeline";
const ACTUAL_KIND: &str = "android_actual_frame_timeline";
const PARSER_ERROR: &str = "frame_timeline_event_parser_errors";
const PARSER_ERROR_DESC: &str =
    "FrameTimeline events with missing fields, invalid enum values or bad timestamps.";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Timeline {
    Expected,
    Actual,
}

/// What identifies a frame's start event.
struct Start {
    upid: Upid,
    which: Timeline,
    cookie: i64,
    token: i64,
}

#[derive(Default)]
pub struct FrameTimelineImporter {
    cookies: FxHashMap<i64, (Upid, Timeline)>,
    expected_tokens: FxHashMap<Upid, FxHashSet<i64>>,
    /// Surface frames waiting for the display frame that presents them.
    surface_by_display_token: FxHashMap<i64, Vec<SliceId>>,
    /// The "Jank type" text of each jank bitmask seen, interned once.
    jank_types: FxHashMap<i32, StrId>,
    /// Leave the slices without args (`LoadOptions::frame_timeline_args`).
    pub skip_args: bool,
}

/// trace_processor's "absurd timestamp" limit: within 10 s of i64::MAX.
fn is_bad_timestamp(ts: i64) -> bool {
    ts.unsigned_abs() >= (i64::MAX - 10_000_000_000) as u64
}

fn spec(ctx: &mut Ctx, upid: Upid, which: Timeline) -> TrackSpec<'static> {
    let (kind, name) = match which {
        Timeline::Expected => (EXPECTED_KIND, "Expected Timeline"),
        Timeline::Actual => (ACTUAL_KIND, "Actual Timeline"),
    };
    let name = ctx.store.intern_static(name);
    TrackSpec::new(kind, EventType::Slice, TrackScope::Process(upid)).named(name)
}

impl FrameTimelineImporter {
    pub fn event(&mut self, ctx: &mut Ctx, ts: i64, data: &[u8]) {
        if ts < 0 || is_bad_timestamp(ts) {
            ctx.store
                .stat(PARSER_ERROR, Severity::Error, PARSER_ERROR_DESC);
            return;
        }
        let Ok(ev) = FrameTimelineEvent::decode(data) else {
            ctx.store
                .stat(PARSER_ERROR, Severity::Error, PARSER_ERROR_DESC);
            return;
        };
        match ev.event {
            Some(Event::ExpectedDisplayFrameStart(e)) => self.expected_display(ctx, ts, e),
            Some(Event::ActualDisplayFrameStart(e)) => self.actual_display(ctx, ts, e),
            Some(Event::ExpectedSurfaceFrameStart(e)) => self.expected_surface(ctx, ts, e),
            Some(Event::ActualSurfaceFrameStart(e)) => self.actual_surface(ctx, ts, e),
            Some(Event::FrameEnd(e)) => self.frame_end(ctx, ts, e.cookie),
            None => ctx
                .store
                .stat(PARSER_ERROR, Severity::Error, PARSER_ERROR_DESC),
        }
    }

    fn begin(
        &mut self,
        ctx: &mut Ctx,
        ts: i64,
        start: Start,
        args: ArgsBuilder,
    ) -> Option<SliceId> {
        let Start {
            upid,
            which,
            cookie,
            token,
        } = start;
        self.cookies.insert(cookie, (upid, which));
        let spec = spec(ctx, upid, which);
        let track = ctx.compressor.begin(&mut ctx.store, spec, cookie);
        let name = ctx.store.intern_int(token);
        let args = if self.skip_args {
            None
        } else {
            ctx.store.args.insert_set(args.args)
        };
        ctx.slices
            .begin(&mut ctx.store, ts, track, None, Some(name), args)
    }

    fn expected_display(&mut self, ctx: &mut Ctx, ts: i64, e: ExpectedDisplayFrameStart) {
        let (Some(cookie), Some(token), Some(pid)) = (e.cookie, e.token, e.pid) else {
            ctx.store
                .stat(PARSER_ERROR, Severity::Error, PARSER_ERROR_DESC);
            return;
        };
        let upid = ctx.procs.get_or_create_process(&mut ctx.store, pid as i64);
        let mut args = ArgsBuilder::default();
        args.add(
            ctx.store.intern_static("Display frame token"),
            ArgValue::Int(token),
        );
        if let Some(id) = self.begin(
            ctx,
            ts,
            Start {
                upid,
                which: Timeline::Expected,
                cookie,
                token,
            },
            args,
        ) {
            ctx.store.frame_timeline.push(FrameTimelineRow {
                slice_id: id,
                actual: false,
                upid,
                display_frame_token: token,
                ..Default::default()
            });
        }
    }

    fn actual_display(&mut self, ctx: &mut Ctx, ts: i64, e: ActualDisplayFrameStart) {
        let (Some(cookie), Some(token), Some(pid)) = (e.cookie, e.token, e.pid) else {
            ctx.store
                .stat(PARSER_ERROR, Severity::Error, PARSER_ERROR_DESC);
            return;
        };
        let upid = ctx.procs.get_or_create_process(&mut ctx.store, pid as i64);
        let c = Classified::new(
            ctx,
            &mut self.jank_types,
            e.present_type,
            e.present_type_experimental,
            e.prediction_type,
            [
                e.jank_type.unwrap_or(0),
                e.jank_type_experimental.unwrap_or(0),
            ],
            e.jank_severity_type,
        );
        let s = &mut ctx.store;
        let jank_tag = jank::display_frame_jank_tag(c.mask);
        let jank_tag_x = jank::display_frame_jank_tag(c.mask_x);
        let mut a = ArgsBuilder::default();
        a.add(s.intern_static("Display frame token"), ArgValue::Int(token))
            .add(
                s.intern_static("Present Delay (ms)"),
                ArgValue::Real(e.present_delay_millis.unwrap_or(0.0) as f64),
            )
            .add_all(c.verdict_args(
                s,
                e.on_time_finish,
                e.gpu_composition,
                e.jank_severity_score,
                [jank_tag, jank_tag_x],
            ))
            .add(
                s.intern_static("Jank Metadata (debugging only)"),
                ArgValue::Real(e.jank_debug_metadata.unwrap_or(0.0) as f64),
            );
        if let Some(v) = e.latched_unsignaled_count {
            a.add(
                s.intern_static("Latched unsignaled count"),
                ArgValue::Int(v),
            );
        }
        if let Some(v) = e.addressable_unsignaled_latch_count {
            a.add(
                s.intern_static("Addressable unsignaled latch count"),
                ArgValue::Int(v),
            );
        }
        let Some(id) = self.begin(
            ctx,
            ts,
            Start {
                upid,
                which: Timeline::Actual,
                cookie,
                token,
            },
            a,
        ) else {
            return;
        };
        let row = FrameTimelineRow {
            slice_id: id,
            actual: true,
            upid,
            display_frame_token: token,
            latched_unsignaled_count: e.latched_unsignaled_count,
            addressable_unsignaled_latch_count: e.addressable_unsignaled_latch_count,
            ..c.row(
                ctx,
                [jank_tag, jank_tag_x],
                e.on_time_finish,
                e.gpu_composition,
                e.jank_severity_score,
            )
        };
        ctx.store.frame_timeline.push(row);
        for surface in self
            .surface_by_display_token
            .remove(&token)
            .unwrap_or_default()
        {
            ctx.store.flows.push(FlowRow {
                slice_out: surface,
                slice_in: id,
                trace_id: None,
            });
        }
    }

    fn expected_surface(&mut self, ctx: &mut Ctx, ts: i64, e: ExpectedSurfaceFrameStart) {
        let (Some(cookie), Some(token), Some(display), Some(pid)) =
            (e.cookie, e.token, e.display_frame_token, e.pid)
        else {
            ctx.store
                .stat(PARSER_ERROR, Severity::Error, PARSER_ERROR_DESC);
            return;
        };
        let upid = ctx.procs.get_or_create_process(&mut ctx.store, pid as i64);
        self.cookies.insert(cookie, (upid, Timeline::Expected));
        // The first expected surface frame of a token wins (one per process and token).
        if !self.expected_tokens.entry(upid).or_default().insert(token) {
            return;
        }
        let layer = e.layer_name.as_deref().map(|l| ctx.store.intern(l));
        let s = &mut ctx.store;
        let mut a = ArgsBuilder::default();
        a.add(s.intern_static("Surface frame token"), ArgValue::Int(token))
            .add(
                s.intern_static("Display frame token"),
                ArgValue::Int(display),
            );
        if let Some(l) = layer {
            a.add(s.intern_static("Layer name"), ArgValue::Str(l));
        }
        if let Some(id) = self.begin(
            ctx,
            ts,
            Start {
                upid,
                which: Timeline::Expected,
                cookie,
                token,
            },
            a,
        ) {
            ctx.store.frame_timeline.push(FrameTimelineRow {
                slice_id: id,
                actual: false,
                upid,
                display_frame_token: display,
                surface_frame_token: Some(token),
                layer_name: layer,
                ..Default::default()
            });
        }
    }

    fn actual_surface(&mut self, ctx: &mut Ctx, ts: i64, e: ActualSurfaceFrameStart) {
        let (Some(cookie), Some(token), Some(display), Some(pid)) =
            (e.cookie, e.token, e.display_frame_token, e.pid)
        else {
            ctx.store
                .stat(PARSER_ERROR, Severity::Error, PARSER_ERROR_DESC);
            return;
        };
        let upid = ctx.procs.get_or_create_process(&mut ctx.store, pid as i64);
        let layer = e.layer_name.as_deref().map(|l| ctx.store.intern(l));
        let c = Classified::new(
            ctx,
            &mut self.jank_types,
            e.present_type,
            e.present_type_experimental,
            e.prediction_type,
            [
                e.jank_type.unwrap_or(0),
                e.jank_type_experimental.unwrap_or(0),
            ],
            e.jank_severity_type,
        );
        let jank_tag = jank::surface_frame_jank_tag(c.mask, c.present_raw);
        let jank_tag_x = jank::surface_frame_jank_tag(c.mask_x, c.present_raw_x);
        let is_buffer = match e.is_buffer {
            None => "Unspecified",
            Some(true) => "Yes",
            Some(false) => "No",
        };
        let fence = e.latched_fence_state.map(jank::latched_fence_state_name);
        let s = &mut ctx.store;
        let mut a = ArgsBuilder::default();
        a.add(s.intern_static("Surface frame token"), ArgValue::Int(token))
            .add(
                s.intern_static("Display frame token"),
                ArgValue::Int(display),
            );
        if let Some(v) = e.animation_time_millis {
            a.add(
                s.intern_static("Animation Time (ms)"),
                ArgValue::Real(v as f64),
            );
        }
        a.add(
            s.intern_static("Present Delay (ms)"),
            ArgValue::Real(e.present_delay_millis.unwrap_or(0.0) as f64),
        )
        .add(
            s.intern_static("Vsync Resynced Jitter (ms)"),
            ArgValue::Real(e.vsync_resynced_jitter_millis.unwrap_or(0.0) as f64),
        );
        if let Some(l) = layer {
            a.add(s.intern_static("Layer name"), ArgValue::Str(l));
        }
        a.add_all(c.verdict_args(
            s,
            e.on_time_finish,
            e.gpu_composition,
            e.jank_severity_score,
            [jank_tag, jank_tag_x],
        ))
        .add(
            s.intern_static("Is Buffer?"),
            ArgValue::Str(s.intern_static(is_buffer)),
        )
        .add(
            s.intern_static("Jank Metadata (debugging only)"),
            ArgValue::Real(e.jank_debug_metadata.unwrap_or(0.0) as f64),
        );
        if let Some(f) = fence {
            a.add(
                s.intern_static("Latched fence state"),
                ArgValue::Str(s.intern_static(f)),
            );
        }
        let fence_id = fence.map(|f| ctx.store.intern_static(f));
        let Some(id) = self.begin(
            ctx,
            ts,
            Start {
                upid,
                which: Timeline::Actual,
                cookie,
                token,
            },
            a,
        ) else {
            return;
        };
        let row = FrameTimelineRow {
            slice_id: id,
            actual: true,
            upid,
            display_frame_token: display,
            surface_frame_token: Some(token),
            layer_name: layer,
            latched_fence_state: fence_id,
            ..c.row(
                ctx,
                [jank_tag, jank_tag_x],
                e.on_time_finish,
                e.gpu_composition,
                e.jank_severity_score,
            )
        };
        ctx.store.frame_timeline.push(row);
        self.surface_by_display_token
            .entry(display)
            .or_default()
            .push(id);
    }

    fn frame_end(&mut self, ctx: &mut Ctx, ts: i64, cookie: Option<i64>) {
        let Some(cookie) = cookie else {
            ctx.store
                .stat(PARSER_ERROR, Severity::Error, PARSER_ERROR_DESC);
            return;
        };
        let Some((upid, which)) = self.cookies.remove(&cookie) else {
            ctx.store.stat(
                "frame_timeline_unpaired_end_event",
                Severity::DataLoss,
                "FrameEnd events whose cookie matches no started frame were dropped.",
            );
            return;
        };
        let spec = spec(ctx, upid, which);
        let track = ctx.compressor.end(&mut ctx.store, spec, cookie);
        ctx.slices.end(&mut ctx.store, ts, track, None, None);
    }

    pub fn finish(&mut self, _ctx: &mut Ctx) {}
}

/// The enum-derived strings shared by actual display and surface frames.
struct Classified {
    mask: i32,
    mask_x: i32,
    present: &'static str,
    present_x: &'static str,
    present_raw: Option<i32>,
    present_raw_x: Option<i32>,
    prediction: &'static str,
    severity: &'static str,
    jank_type: StrId,
    jank_type_x: StrId,
}

impl Classified {
    fn new(
        ctx: &mut Ctx,
        jank_types: &mut FxHashMap<i32, StrId>,
        present: Option<i32>,
        present_x: Option<i32>,
        prediction: Option<i32>,
        [mask, mask_x]: [i32; 2],
        severity: Option<i32>,
    ) -> Self {
        // Each invalid enum value present on the event counts as a parser error.
        let mut check = |v: Option<i32>, ok: fn(i32) -> bool| -> Option<i32> {
            match v {
                Some(p) if ok(p) => Some(p),
                Some(_) => {
                    ctx.store
                        .stat(PARSER_ERROR, Severity::Error, PARSER_ERROR_DESC);
                    None
                }
                None => None,
            }
        };
        let present_raw = check(present, jank::valid_present_type);
        let present_raw_x = check(present_x, jank::valid_present_type);
        let prediction_raw = check(prediction, jank::valid_prediction_type);
        Classified {
            mask,
            mask_x,
            present: jank::present_type_name(present_raw),
            present_x: jank::present_type_name(present_raw_x),
            present_raw,
            present_raw_x,
            prediction: jank::prediction_type_name(prediction_raw),
            severity: jank::severity_name(severity, mask),
            jank_type: Self::jank_type(ctx, jank_types, mask),
            jank_type_x: Self::jank_type(ctx, jank_types, mask_x),
        }
    }

    /// The "Jank type" text of a bitmask (a handful per trace), built and interned once.
    fn jank_type(ctx: &mut Ctx, ids: &mut FxHashMap<i32, StrId>, mask: i32) -> StrId {
        *ids.entry(mask)
            .or_insert_with(|| ctx.store.intern(&jank::jank_type_string(mask)))
    }

    /// The args every actual frame carries, in trace_processor's order: present types, on
    /// time finish, GPU composition, jank types, severity, prediction type and jank tags.
    fn verdict_args(
        &self,
        s: &mut crate::store::Store,
        on_time_finish: Option<bool>,
        gpu_composition: Option<bool>,
        severity_score: Option<f32>,
        [tag, tag_x]: [&'static str; 2],
    ) -> Vec<(StrId, ArgValue)> {
        let mut text = |k: &'static str, v: &'static str| {
            (s.intern_static(k), ArgValue::Str(s.intern_static(v)))
        };
        let present = text("Present type", self.present);
        let present_x = text("Present type (experimental)", self.present_x);
        let jank_type = (s.intern_static("Jank type"), ArgValue::Str(self.jank_type));
        let jank_type_x = (
            s.intern_static("Jank type (experimental)"),
            ArgValue::Str(self.jank_type_x),
        );
        let mut text = |k: &'static str, v: &'static str| {
            (s.intern_static(k), ArgValue::Str(s.intern_static(v)))
        };
        let severity = text("Jank severity type", self.severity);
        let prediction = text("Prediction type", self.prediction);
        let tag = text("Jank tag", tag);
        let tag_x = text("Jank tag (experimental)", tag_x);
        vec![
            present,
            present_x,
            (
                s.intern_static("On time finish"),
                ArgValue::Int(on_time_finish.unwrap_or(false) as i64),
            ),
            (
                s.intern_static("GPU composition"),
                ArgValue::Int(gpu_composition.unwrap_or(false) as i64),
            ),
            jank_type,
            jank_type_x,
            severity,
            (
                s.intern_static("Jank Severity Score"),
                ArgValue::Real(severity_score.unwrap_or(0.0) as f64),
            ),
            prediction,
            tag,
            tag_x,
        ]
    }

    /// The columns every actual frame row has.
    fn row(
        &self,
        ctx: &mut Ctx,
        [tag, tag_x]: [&'static str; 2],
        on_time_finish: Option<bool>,
        gpu_composition: Option<bool>,
        score: Option<f32>,
    ) -> FrameTimelineRow {
        let s = &mut ctx.store;
        FrameTimelineRow {
            on_time_finish: Some(on_time_finish.unwrap_or(false) as i64),
            gpu_composition: Some(gpu_composition.unwrap_or(false) as i64),
            jank_score: Some(score.unwrap_or(0.0) as f64),
            present_type: Some(s.intern_static(self.present)),
            jank_type: Some(self.jank_type),
            jank_severity_type: Some(s.intern_static(self.severity)),
            prediction_type: Some(s.intern_static(self.prediction)),
            jank_tag: Some(s.intern_static(tag)),
            jank_tag_experimental: Some(s.intern_static(tag_x)),
            jank_type_mask: Some(self.mask),
            present_type_raw: self.present_raw,
            ..Default::default()
        }
    }
}

#[cfg(test)]
mod tests {
    //! Expected values come from trace_processor v58.2's `frame_timeline_event_parser.cc`
    //! (names, args, the bad-timestamp limit, the first-expected-frame-wins rule) and the
    //! FrameTimelineEvent enums in `frame_timeline_event.proto`.

    use super::*;
    use crate::protos::frame_timeline_event::FrameEnd;

    const TS: i64 = 1_000_000_000;

    fn feed(ctx: &mut Ctx, imp: &mut FrameTimelineImporter, ts: i64, event: Event) {
        let bytes = FrameTimelineEvent { event: Some(event) }.encode_to_vec();
        imp.event(ctx, ts, &bytes);
    }

    fn end(cookie: i64) -> Event {
        Event::FrameEnd(FrameEnd {
            cookie: Some(cookie),
        })
    }

    fn parser_errors(ctx: &Ctx) -> i64 {
        ctx.store
            .stats
            .get(&(PARSER_ERROR, -1))
            .map_or(0, |s| s.value)
    }

    fn expected_display(cookie: i64, token: i64) -> Event {
        Event::ExpectedDisplayFrameStart(ExpectedDisplayFrameStart {
            cookie: Some(cookie),
            token: Some(token),
            pid: Some(100),
        })
    }

    /// The args of a slice as (key, value) text, in insertion order.
    fn args(ctx: &Ctx, slice: SliceId) -> Vec<(String, String)> {
        let s = &ctx.store;
        let Some(set) = s.slices[slice as usize].arg_set_id.get() else {
            return Vec::new();
        };
        s.args
            .set(set)
            .iter()
            .map(|a| {
                let v = match &a.value {
                    ArgValue::Str(id) => s.str(*id).to_string(),
                    ArgValue::Int(i) => i.to_string(),
                    ArgValue::Real(r) => r.to_string(),
                    other => format!("{other:?}"),
                };
                (s.str(a.key).to_string(), v)
            })
            .collect()
    }

    fn opt(ctx: &Ctx, id: Option<crate::store::strings::StrId>) -> Option<&str> {
        ctx.store.opt_str(id)
    }

    #[test]
    fn timestamps_trace_processor_rejects() {
        // Negative, and within 10 s of i64::MAX (either sign): a parser error, no slice.
        let limit = i64::MAX - 10_000_000_000;
        for (i, ts) in [-5, limit, -limit, i64::MAX].into_iter().enumerate() {
            let mut ctx = Ctx::new();
            let mut imp = FrameTimelineImporter::default();
            feed(&mut ctx, &mut imp, ts, expected_display(1, 7));
            assert_eq!(parser_errors(&ctx), 1, "ts #{i}");
            assert!(ctx.store.slices.is_empty(), "ts #{i}");
        }
        // Zero, an ordinary boot time and one below the limit are kept.
        for ts in [0, TS, limit - 1] {
            let mut ctx = Ctx::new();
            let mut imp = FrameTimelineImporter::default();
            feed(&mut ctx, &mut imp, ts, expected_display(1, 7));
            assert_eq!(parser_errors(&ctx), 0, "ts {ts}");
            assert_eq!(ctx.store.slices[0].ts, ts);
        }
    }

    #[test]
    fn expected_display_frame_is_a_slice_on_the_expected_timeline() {
        let mut ctx = Ctx::new();
        let mut imp = FrameTimelineImporter::default();
        feed(&mut ctx, &mut imp, TS, expected_display(1, 7));
        feed(&mut ctx, &mut imp, TS + 16_000_000, end(1));
        feed(&mut ctx, &mut imp, TS + 16_000_000, expected_display(2, 8));
        let s = &ctx.store;
        assert_eq!(s.slices.len(), 2);
        let slice = &s.slices[0];
        assert_eq!((slice.ts, slice.dur), (TS, 16_000_000));
        assert_eq!(opt(&ctx, slice.name), Some("7"));
        let track = &s.tracks[slice.track_id as usize];
        assert_eq!(s.str(track.kind), "android_expected_frame_timeline");
        assert_eq!(opt(&ctx, track.name), Some("Expected Timeline"));
        let upid = match track.scope {
            TrackScope::Process(u) => u,
            other => panic!("{other:?}"),
        };
        assert_eq!(s.processes[upid as usize].pid, 100);
        let row = &s.frame_timeline[0];
        assert_eq!(
            (row.slice_id, row.actual, row.upid, row.display_frame_token),
            (0, false, upid, 7)
        );
        let second = &s.frame_timeline[1];
        assert_eq!((second.slice_id, second.display_frame_token), (1, 8));
        assert_eq!(
            args(&ctx, 0),
            [("Display frame token".to_string(), "7".to_string())]
        );
    }

    #[test]
    fn missing_ids_and_unknown_cookies_are_counted_not_imported() {
        let mut ctx = Ctx::new();
        let mut imp = FrameTimelineImporter::default();
        let no_pid = Event::ExpectedDisplayFrameStart(ExpectedDisplayFrameStart {
            cookie: Some(1),
            token: Some(2),
            pid: None,
        });
        feed(&mut ctx, &mut imp, TS, no_pid);
        feed(
            &mut ctx,
            &mut imp,
            TS,
            Event::FrameEnd(FrameEnd { cookie: None }),
        );
        imp.event(&mut ctx, TS, &[0xff]);
        assert_eq!(parser_errors(&ctx), 3);
        feed(&mut ctx, &mut imp, TS, end(9));
        let unpaired = &ctx.store.stats[&("frame_timeline_unpaired_end_event", -1)];
        assert_eq!(unpaired.value, 1);
        assert!(ctx.store.slices.is_empty());
    }

    /// An app frame (token 20) presented by display frame 30, every field set.
    fn actual_surface(cookie: i64) -> Event {
        Event::ActualSurfaceFrameStart(ActualSurfaceFrameStart {
            cookie: Some(cookie),
            token: Some(20),
            display_frame_token: Some(30),
            pid: Some(200),
            layer_name: Some("app#0".into()),
            present_type: Some(2),
            on_time_finish: Some(true),
            gpu_composition: Some(true),
            jank_type: Some(jank::bits::APP_DEADLINE_MISSED),
            prediction_type: Some(2),
            is_buffer: Some(true),
            jank_severity_type: Some(3),
            present_delay_millis: Some(4.5),
            vsync_resynced_jitter_millis: Some(0.25),
            jank_severity_score: Some(0.5),
            jank_type_experimental: Some(jank::bits::BUFFER_STUFFING),
            present_type_experimental: Some(1),
            jank_debug_metadata: Some(2.0),
            latched_fence_state: Some(2),
            animation_time_millis: Some(1.5),
        })
    }

    #[test]
    fn surface_and_display_frames_carry_every_column_and_a_flow() {
        let mut ctx = Ctx::new();
        let mut imp = FrameTimelineImporter::default();
        feed(
            &mut ctx,
            &mut imp,
            TS,
            Event::ExpectedSurfaceFrameStart(ExpectedSurfaceFrameStart {
                cookie: Some(1),
                token: Some(20),
                display_frame_token: Some(30),
                pid: Some(200),
                layer_name: Some("app#0".into()),
            }),
        );
        feed(&mut ctx, &mut imp, TS + 1, actual_surface(2));
        feed(
            &mut ctx,
            &mut imp,
            TS + 2,
            Event::ActualDisplayFrameStart(ActualDisplayFrameStart {
                cookie: Some(3),
                token: Some(30),
                pid: Some(100),
                present_type: Some(1),
                on_time_finish: Some(false),
                gpu_composition: Some(true),
                jank_type: Some(jank::bits::SF_CPU_DEADLINE_MISSED),
                prediction_type: Some(1),
                jank_severity_type: None,
                present_delay_millis: None,
                jank_severity_score: None,
                jank_type_experimental: Some(jank::bits::NONE),
                present_type_experimental: None,
                jank_debug_metadata: None,
                latched_unsignaled_count: Some(3),
                addressable_unsignaled_latch_count: Some(4),
            }),
        );
        for (ts, cookie) in [(TS + 10, 1), (TS + 11, 2), (TS + 12, 3)] {
            feed(&mut ctx, &mut imp, ts, end(cookie));
        }
        assert_eq!(parser_errors(&ctx), 0);
        let s = &ctx.store;
        assert_eq!(s.slices.len(), 3);
        assert!(s.slices.iter().all(|x| x.dur == 10));
        let names: Vec<_> = s.slices.iter().map(|x| opt(&ctx, x.name)).collect();
        assert_eq!(names, [Some("20"), Some("20"), Some("30")]);
        let kinds: Vec<_> = s
            .slices
            .iter()
            .map(|x| s.str(s.tracks[x.track_id as usize].kind))
            .collect();
        assert_eq!(
            kinds,
            [
                "android_expected_frame_timeline",
                "android_actual_frame_timeline",
                "android_actual_frame_timeline"
            ]
        );
        let app = s.processes.iter().position(|p| p.pid == 200).unwrap() as Upid;
        let sf = s.processes.iter().position(|p| p.pid == 100).unwrap() as Upid;

        let [expected, surface, display] = &s.frame_timeline[..] else {
            panic!("{} rows", s.frame_timeline.len())
        };
        assert_eq!(
            (expected.slice_id, expected.actual, expected.upid),
            (0, false, app)
        );
        assert_eq!(
            (expected.display_frame_token, expected.surface_frame_token),
            (30, Some(20))
        );
        assert_eq!(opt(&ctx, expected.layer_name), Some("app#0"));

        // Surface frame: App Deadline Missed is Self Jank; alone, Buffer Stuffing is its tag.
        assert_eq!(
            (surface.slice_id, surface.actual, surface.upid),
            (1, true, app)
        );
        assert_eq!(
            (surface.display_frame_token, surface.surface_frame_token),
            (30, Some(20))
        );
        assert_eq!(opt(&ctx, surface.layer_name), Some("app#0"));
        assert_eq!(
            opt(&ctx, surface.latched_fence_state),
            Some("Latched Unsignaled")
        );
        assert_eq!(
            (surface.on_time_finish, surface.gpu_composition),
            (Some(1), Some(1))
        );
        assert_eq!(surface.jank_score, Some(0.5));
        assert_eq!(opt(&ctx, surface.present_type), Some("Late Present"));
        assert_eq!(opt(&ctx, surface.jank_type), Some("App Deadline Missed"));
        assert_eq!(opt(&ctx, surface.jank_severity_type), Some("Full"));
        assert_eq!(
            opt(&ctx, surface.prediction_type),
            Some("Expired Prediction")
        );
        assert_eq!(opt(&ctx, surface.jank_tag), Some("Self Jank"));
        assert_eq!(
            opt(&ctx, surface.jank_tag_experimental),
            Some("Buffer Stuffing")
        );
        assert_eq!(
            surface.jank_type_mask,
            Some(jank::bits::APP_DEADLINE_MISSED)
        );
        assert_eq!(surface.present_type_raw, Some(2));

        // Display frame: an SF CPU deadline miss is its own (Self) jank; no severity on the
        // event and a mask other than None read "Unknown".
        assert_eq!(
            (display.slice_id, display.actual, display.upid),
            (2, true, sf)
        );
        assert_eq!(display.display_frame_token, 30);
        assert_eq!(display.surface_frame_token, None);
        assert_eq!(
            (
                display.latched_unsignaled_count,
                display.addressable_unsignaled_latch_count
            ),
            (Some(3), Some(4))
        );
        assert_eq!(
            (display.on_time_finish, display.gpu_composition),
            (Some(0), Some(1))
        );
        assert_eq!(display.jank_score, Some(0.0));
        assert_eq!(opt(&ctx, display.present_type), Some("On-time Present"));
        assert_eq!(
            opt(&ctx, display.jank_type),
            Some("SurfaceFlinger CPU Deadline Missed")
        );
        assert_eq!(opt(&ctx, display.jank_severity_type), Some("Unknown"));
        assert_eq!(opt(&ctx, display.prediction_type), Some("Valid Prediction"));
        assert_eq!(opt(&ctx, display.jank_tag), Some("Self Jank"));
        assert_eq!(opt(&ctx, display.jank_tag_experimental), Some("No Jank"));
        assert_eq!(
            display.jank_type_mask,
            Some(jank::bits::SF_CPU_DEADLINE_MISSED)
        );
        assert_eq!(display.present_type_raw, Some(1));

        // The surface frame flows into the display frame that presented it.
        assert_eq!(s.flows.len(), 1);
        assert_eq!((s.flows[0].slice_out, s.flows[0].slice_in), (1, 2));

        let keys = |id| -> Vec<String> { args(&ctx, id).into_iter().map(|(k, _)| k).collect() };
        assert_eq!(
            args(&ctx, 0),
            [
                ("Surface frame token".to_string(), "20".to_string()),
                ("Display frame token".to_string(), "30".to_string()),
                ("Layer name".to_string(), "app#0".to_string()),
            ]
        );
        let surface_args = args(&ctx, 1);
        for (k, v) in [
            ("Present type", "Late Present"),
            ("Present type (experimental)", "On-time Present"),
            ("On time finish", "1"),
            ("GPU composition", "1"),
            ("Jank type", "App Deadline Missed"),
            ("Jank type (experimental)", "Buffer Stuffing"),
            ("Jank severity type", "Full"),
            ("Prediction type", "Expired Prediction"),
            ("Jank tag", "Self Jank"),
            ("Jank tag (experimental)", "Buffer Stuffing"),
            ("Is Buffer?", "Yes"),
            ("Latched fence state", "Latched Unsignaled"),
        ] {
            assert!(
                surface_args.contains(&(k.to_string(), v.to_string())),
                "{k}: {surface_args:?}"
            );
        }
        assert!(keys(2).contains(&"Jank tag".to_string()));
        assert!(keys(2).contains(&"Latched unsignaled count".to_string()));
    }

    #[test]
    fn the_first_expected_surface_frame_of_a_token_wins() {
        let mut ctx = Ctx::new();
        let mut imp = FrameTimelineImporter::default();
        // A display frame first, so that the surface frame's slice is not slice 0.
        feed(&mut ctx, &mut imp, TS, expected_display(9, 5));
        for (cookie, display) in [(1, 30), (2, 31)] {
            feed(
                &mut ctx,
                &mut imp,
                TS + cookie,
                Event::ExpectedSurfaceFrameStart(ExpectedSurfaceFrameStart {
                    cookie: Some(cookie),
                    token: Some(20),
                    display_frame_token: Some(display),
                    pid: Some(200),
                    layer_name: None,
                }),
            );
        }
        feed(&mut ctx, &mut imp, TS + 10, end(1));
        let s = &ctx.store;
        assert_eq!(s.frame_timeline.len(), 2);
        let surface = &s.frame_timeline[1];
        assert_eq!((surface.slice_id, surface.display_frame_token), (1, 30));
        assert_eq!(s.slices.len(), 2);
        assert_eq!(s.slices[1].dur, 9);
    }
}
