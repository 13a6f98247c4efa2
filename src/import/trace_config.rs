//! What the TraceConfig packet (field 33) asked for: the data sources by name, the ftrace
//! events and atrace categories/apps, and the buffers. `doctor` compares it with what the
//! trace holds ("the config asked for FrameTimeline but no FrameTimeline event arrived").

use crate::store::trace_info::ConfigInfo;
use crate::trace::wire::{repeated, slots};

const BUFFERS: u32 = 1;
const DATA_SOURCES: u32 = 2;
const DURATION_MS: usize = 3;
/// DataSource.config, DataSourceConfig.name / ftrace_config.
const DS_CONFIG: u32 = 1;
const DSC_NAME: usize = 1;
const DSC_FTRACE: u32 = 100;
/// FtraceConfig fields.
const FTRACE_EVENTS: u32 = 1;
const ATRACE_CATEGORIES: u32 = 2;
const ATRACE_APPS: u32 = 3;

fn strings(buf: &[u8], id: u32) -> impl Iterator<Item = String> + '_ {
    repeated(buf, id).map(|v| v.as_string_lossy().into_owned())
}

pub fn parse(data: &[u8]) -> ConfigInfo {
    let mut c = ConfigInfo {
        duration_ms: slots::<4>(data)[DURATION_MS]
            .map(|v| v.as_u32())
            .filter(|&d| d > 0),
        ..Default::default()
    };
    for b in repeated(data, BUFFERS) {
        let f = slots::<5>(b.as_bytes());
        let policy = match f[4].map_or(0, |v| v.as_u64()) {
            2 => "DISCARD",
            _ => "RING_BUFFER",
        };
        c.buffers.push((f[1].map_or(0, |v| v.as_u32()), policy));
    }
    for ds in repeated(data, DATA_SOURCES) {
        for cfg in repeated(ds.as_bytes(), DS_CONFIG) {
            let cfg = cfg.as_bytes();
            if let Some(n) = slots::<2>(cfg)[DSC_NAME] {
                c.data_sources.push(n.as_string_lossy().into_owned());
            }
            for f in repeated(cfg, DSC_FTRACE) {
                let f = f.as_bytes();
                c.ftrace_events.extend(strings(f, FTRACE_EVENTS));
                c.atrace_categories.extend(strings(f, ATRACE_CATEGORIES));
                c.atrace_apps.extend(strings(f, ATRACE_APPS));
            }
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::wire::Msg;

    #[test]
    fn data_sources_atrace_and_buffers() {
        let ftrace = Msg::default()
            .str(1, "sched/sched_switch")
            .str(2, "gfx")
            .str(2, "view")
            .str(3, "com.example");
        let cfg = Msg::default()
            .msg(1, Msg::default().int(1, 65536).int(4, 2))
            .msg(1, Msg::default().int(1, 2048))
            .msg(
                2,
                Msg::default().msg(1, Msg::default().str(1, "linux.ftrace").msg(100, ftrace)),
            )
            .msg(
                2,
                Msg::default().msg(
                    1,
                    Msg::default().str(1, "android.surfaceflinger.frametimeline"),
                ),
            )
            .int(3, 10000);
        let c = parse(&cfg.0);
        assert_eq!(
            c.data_sources,
            ["linux.ftrace", "android.surfaceflinger.frametimeline"]
        );
        assert_eq!(c.ftrace_events, ["sched/sched_switch"]);
        assert_eq!(c.atrace_categories, ["gfx", "view"]);
        assert_eq!(c.atrace_apps, ["com.example"]);
        assert_eq!(c.buffers, [(65536, "DISCARD"), (2048, "RING_BUFFER")]);
        assert_eq!(c.duration_ms, Some(10000));
    }
}
