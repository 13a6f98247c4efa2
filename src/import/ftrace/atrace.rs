//! atrace: `print` events and the vendor `*_tracing_mark_write` events carrying
//! `B|pid|name`, `E|pid`, `S|pid|name|cookie`, `F|...`, `I|...`, `N|...`, `G|...`, `H|...`,
//! `C|pid|name|value` records, turned into slices, instants, async slices and counters.

use crate::import::Ctx;

#[derive(Default)]
pub struct AtraceParser {
    is_64bit_arm: bool,
}

impl AtraceParser {
    pub fn set_arch(&mut self, machine: &str) {
        self.is_64bit_arm = machine == "aarch64";
    }
    pub fn print(&mut self, _ctx: &mut Ctx, _ts: i64, _pid: i64, _data: &[u8]) {}
    pub fn kernel_mark_write(
        &mut self,
        _ctx: &mut Ctx,
        _ts: i64,
        _pid: i64,
        _id: u32,
        _data: &[u8],
    ) {
    }
    pub fn sys_enter(&mut self, _ctx: &mut Ctx, _ts: i64, _pid: i64, _data: &[u8]) {}
    pub fn sys_exit(&mut self, _ctx: &mut Ctx, _ts: i64, _pid: i64, _data: &[u8]) {}
}
