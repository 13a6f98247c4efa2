//! ProcessTree and ProcessStats packets: processes and threads from /proc scans, cmdline,
//! uid, start time, kernel threads, and the per-process counters of ProcessStats.

use super::Ctx;

#[derive(Default)]
pub struct ProcessTreeImporter {}

impl ProcessTreeImporter {
    pub fn process_tree(&mut self, _ctx: &mut Ctx, _ts: i64, _data: &[u8]) {}
    pub fn process_stats(&mut self, _ctx: &mut Ctx, _ts: i64, _data: &[u8]) {}
}
