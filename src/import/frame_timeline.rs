//! SurfaceFlinger FrameTimeline events (TracePacket field 76), imported as trace_processor
//! does: one slice per expected/actual display or surface frame on the process's "Expected
//! Timeline" / "Actual Timeline" tracks (overlaps spread over extra tracks), ended by the
//! FrameEnd with the same cookie, with trace_processor's args and a flow from each surface
//! frame to the display frame that presented it.

use std::collections::{HashMap, HashSet};

use prost::Message;

use super::Ctx;
use crate::protos::frame_timeline_event::{
    ActualDisplayFrameStart, ActualSurfaceFrameStart, Event, ExpectedDisplayFrameStart,
    ExpectedSurfaceFrameStart,
};
use crate::protos::FrameTimelineEvent;
use crate::store::args::{ArgValue, ArgsBuilder};
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
    cookies: HashMap<i64, (Upid, Timeline)>,
    expected_tokens: HashMap<Upid, HashSet<i64>>,
    /// Surface frames waiting for the display frame that presents them.
    surface_by_display_token: HashMap<i64, Vec<SliceId>>,
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
    let name = ctx.store.intern(name);
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
        let name = ctx.store.intern(&token.to_string());
        let args = ctx.store.args.insert_set(args.args);
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
            ctx.store.intern("Display frame token"),
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
            e.present_type,
            e.present_type_experimental,
            e.prediction_type,
            e.jank_type.unwrap_or(0),
            e.jank_type_experimental.unwrap_or(0),
            e.jank_severity_type,
        );
        let s = &mut ctx.store;
        let jank_tag = jank::display_frame_jank_tag(c.mask);
        let jank_tag_x = jank::display_frame_jank_tag(c.mask_x);
        let mut a = ArgsBuilder::default();
        a.add(s.intern("Display frame token"), ArgValue::Int(token))
            .add(
                s.intern("Present Delay (ms)"),
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
                s.intern("Jank Metadata (debugging only)"),
                ArgValue::Real(e.jank_debug_metadata.unwrap_or(0.0) as f64),
            );
        if let Some(v) = e.latched_unsignaled_count {
            a.add(s.intern("Latched unsignaled count"), ArgValue::Int(v));
        }
        if let Some(v) = e.addressable_unsignaled_latch_count {
            a.add(
                s.intern("Addressable unsignaled latch count"),
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
        a.add(s.intern("Surface frame token"), ArgValue::Int(token))
            .add(s.intern("Display frame token"), ArgValue::Int(display));
        if let Some(l) = layer {
            a.add(s.intern("Layer name"), ArgValue::Str(l));
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
            e.present_type,
            e.present_type_experimental,
            e.prediction_type,
            e.jank_type.unwrap_or(0),
            e.jank_type_experimental.unwrap_or(0),
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
        a.add(s.intern("Surface frame token"), ArgValue::Int(token))
            .add(s.intern("Display frame token"), ArgValue::Int(display));
        if let Some(v) = e.animation_time_millis {
            a.add(s.intern("Animation Time (ms)"), ArgValue::Real(v as f64));
        }
        a.add(
            s.intern("Present Delay (ms)"),
            ArgValue::Real(e.present_delay_millis.unwrap_or(0.0) as f64),
        )
        .add(
            s.intern("Vsync Resynced Jitter (ms)"),
            ArgValue::Real(e.vsync_resynced_jitter_millis.unwrap_or(0.0) as f64),
        );
        if let Some(l) = layer {
            a.add(s.intern("Layer name"), ArgValue::Str(l));
        }
        a.add_all(c.verdict_args(
            s,
            e.on_time_finish,
            e.gpu_composition,
            e.jank_severity_score,
            [jank_tag, jank_tag_x],
        ))
        .add(s.intern("Is Buffer?"), ArgValue::Str(s.intern(is_buffer)))
        .add(
            s.intern("Jank Metadata (debugging only)"),
            ArgValue::Real(e.jank_debug_metadata.unwrap_or(0.0) as f64),
        );
        if let Some(f) = fence {
            a.add(s.intern("Latched fence state"), ArgValue::Str(s.intern(f)));
        }
        let fence_id = fence.map(|f| ctx.store.intern(f));
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
    jank_type: String,
    jank_type_x: String,
}

impl Classified {
    fn new(
        ctx: &mut Ctx,
        present: Option<i32>,
        present_x: Option<i32>,
        prediction: Option<i32>,
        mask: i32,
        mask_x: i32,
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
            jank_type: jank::jank_type_string(mask),
            jank_type_x: jank::jank_type_string(mask_x),
        }
    }

    /// The args every actual frame carries, in trace_processor's order: present types, on
    /// time finish, GPU composition, jank types, severity, prediction type and jank tags.
    fn verdict_args(
        &self,
        s: &mut crate::store::Store,
        on_time_finish: Option<bool>,
        gpu_composition: Option<bool>,
        severity_score: Option<f32>,
        [tag, tag_x]: [&str; 2],
    ) -> Vec<(crate::store::strings::StrId, ArgValue)> {
        let mut text = |k: &str, v: &str| (s.intern(k), ArgValue::Str(s.intern(v)));
        let present = text("Present type", self.present);
        let present_x = text("Present type (experimental)", self.present_x);
        let jank_type = text("Jank type", &self.jank_type);
        let jank_type_x = text("Jank type (experimental)", &self.jank_type_x);
        let severity = text("Jank severity type", self.severity);
        let prediction = text("Prediction type", self.prediction);
        let tag = text("Jank tag", tag);
        let tag_x = text("Jank tag (experimental)", tag_x);
        vec![
            present,
            present_x,
            (
                s.intern("On time finish"),
                ArgValue::Int(on_time_finish.unwrap_or(false) as i64),
            ),
            (
                s.intern("GPU composition"),
                ArgValue::Int(gpu_composition.unwrap_or(false) as i64),
            ),
            jank_type,
            jank_type_x,
            severity,
            (
                s.intern("Jank Severity Score"),
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
        [tag, tag_x]: [&str; 2],
        on_time_finish: Option<bool>,
        gpu_composition: Option<bool>,
        score: Option<f32>,
    ) -> FrameTimelineRow {
        let s = &mut ctx.store;
        FrameTimelineRow {
            on_time_finish: Some(on_time_finish.unwrap_or(false) as i64),
            gpu_composition: Some(gpu_composition.unwrap_or(false) as i64),
            jank_score: Some(score.unwrap_or(0.0) as f64),
            present_type: Some(s.intern(self.present)),
            jank_type: Some(s.intern(&self.jank_type)),
            jank_severity_type: Some(s.intern(self.severity)),
            prediction_type: Some(s.intern(self.prediction)),
            jank_tag: Some(s.intern(tag)),
            jank_tag_experimental: Some(s.intern(tag_x)),
            jank_type_mask: Some(self.mask),
            present_type_raw: self.present_raw,
            ..Default::default()
        }
    }
}
