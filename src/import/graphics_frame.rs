//! FrameTracer GraphicsFrameEvent buffer events (TracePacket field 57).

use super::Ctx;

#[derive(Default)]
pub struct GraphicsFrameImporter {}

impl GraphicsFrameImporter {
    pub fn event(&mut self, _ctx: &mut Ctx, _ts: i64, _data: &[u8], _machine_id: Option<u32>) {}
    pub fn finish(&mut self, _ctx: &mut Ctx) {}
}
