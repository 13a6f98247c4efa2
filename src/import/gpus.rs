//! trace_processor's gpu table ids (`ugpu`): one row per GPU id, in order of first sight,
//! shared by every importer that keys a track by GPU.

#[derive(Default)]
pub struct GpuIds {
    seen: Vec<u32>,
}

impl GpuIds {
    /// The gpu-table row of GPU `gpu`, created on first sight.
    pub fn ugpu(&mut self, gpu: u32) -> u32 {
        match self.seen.iter().position(|&g| g == gpu) {
            Some(i) => i as u32,
            None => {
                self.seen.push(gpu);
                (self.seen.len() - 1) as u32
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_follow_first_sight() {
        let mut g = GpuIds::default();
        assert_eq!(g.ugpu(3), 0);
        assert_eq!(g.ugpu(0), 1);
        assert_eq!(g.ugpu(3), 0);
    }
}
