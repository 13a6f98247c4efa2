//! SurfaceFlinger FrameTimeline events (TracePacket field 76).

use super::Ctx;

#[derive(Default)]
pub struct FrameTimelineImporter {}

impl FrameTimelineImporter {
    pub fn event(&mut self, _ctx: &mut Ctx, _ts: i64, _data: &[u8]) {}
    pub fn finish(&mut self, _ctx: &mut Ctx) {}
}
