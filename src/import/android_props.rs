//! AndroidSystemProperty and InitialDisplayState packets, merged with the atrace tracks that
//! carry the same information (ScreenState, DeviceStateChanged).

use super::Ctx;

#[derive(Default)]
pub struct AndroidPropsImporter {}

impl AndroidPropsImporter {
    pub fn system_property(&mut self, _ctx: &mut Ctx, _ts: i64, _data: &[u8]) {}
    pub fn initial_display_state(&mut self, _ctx: &mut Ctx, _ts: i64, _data: &[u8]) {}
}
