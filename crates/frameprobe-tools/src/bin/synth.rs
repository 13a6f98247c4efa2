//! `frameprobe-synth`: writes a synthetic Android trace (see `frameprobe_tools::synth`).
//!
//!     frameprobe-synth -o testdata/scroll_60hz.perfetto-trace --frames 180 --seed 7

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Parser;
use frameprobe_tools::synth::{generate, SynthConfig};

#[derive(Parser)]
#[command(about = "Write a synthetic Android Perfetto trace with known frame timings")]
struct Args {
    #[arg(short, long)]
    output: PathBuf,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[arg(long, default_value_t = 120)]
    frames: u32,
    #[arg(long, default_value_t = 60)]
    refresh_hz: u32,
    /// Fraction of frames whose UI work is slowed down.
    #[arg(long, default_value_t = 0.1)]
    jank_rate: f64,
    /// Extra UI-thread work on a slowed frame, in ms.
    #[arg(long, default_value_t = 14.0)]
    slow_extra_ms: f64,
    #[arg(long, default_value = "com.example.scroller")]
    process: String,
    #[arg(long, default_value_t = 4242)]
    pid: i32,
    /// Leave out FrameTimeline (as on API <= 30).
    #[arg(long)]
    no_frame_timeline: bool,
    #[arg(long)]
    no_frame_tracer: bool,
    #[arg(long)]
    no_sched: bool,
    /// Leave out atrace (doFrame / DrawFrames slices).
    #[arg(long)]
    no_atrace: bool,
    /// Android API level; 30 and below name the doFrame and DrawFrame slices without a vsync
    /// id, as HWUI did before Android 12
    #[arg(long, default_value_t = 34)]
    sdk: u64,
    /// Write the planted-causes scenario instead (binder, lock, GC wait, preemption, shader
    /// compile; see `frameprobe_tools::synth::causes`); the other options are ignored.
    #[arg(long)]
    planted_causes: bool,
    /// With --planted-causes: a CUJ (`J<SYNTH_CUJ>`) over the frames.
    #[arg(long)]
    cuj: bool,
    /// An app with interactions instead (a startup, then three `RV Scroll` bursts 500 ms
    /// apart; --seed re-times the work); the plan goes to standard error.
    #[arg(long)]
    interactions: bool,
    /// With --interactions: ms of `inflate` nested in every doFrame of the second scroll.
    #[arg(long)]
    inflate_ms: Option<f64>,
    /// With --interactions: a synchronous binder call of this many ms in the sixth frame of
    /// the second scroll.
    #[arg(long)]
    binder_ms: Option<f64>,
}

fn main() -> Result<()> {
    let a = Args::parse();
    if a.planted_causes {
        let t = frameprobe_tools::synth::causes::generate(a.cuj);
        std::fs::write(&a.output, &t.bytes)
            .with_context(|| format!("writing {}", a.output.display()))?;
        for f in t.planted() {
            eprintln!(
                "frame {}: {:?} {:.1} ms",
                f.vsync_id,
                f.cause,
                f.cause.map_or(0, |c| c.ns()) as f64 / 1e6
            );
        }
        return Ok(());
    }
    if a.interactions {
        use frameprobe_tools::synth::interactions::{generate_interactions, InteractionsConfig};
        let mut c = InteractionsConfig::default();
        c.synth.seed = a.seed;
        c.inflate = a.inflate_ms.map(|ms| (1, (ms * 1e6) as i64));
        c.binder_call = a.binder_ms.map(|ms| (1, 5, (ms * 1e6) as i64));
        let t = generate_interactions(&c);
        std::fs::write(&a.output, &t.trace.bytes)
            .with_context(|| format!("writing {}", a.output.display()))?;
        for p in &t.plan {
            eprintln!("{:?} {}: frames {:?}", p.source, p.label, p.frames);
        }
        return Ok(());
    }
    let cfg = SynthConfig {
        seed: a.seed,
        frames: a.frames,
        refresh_hz: a.refresh_hz,
        jank_rate: a.jank_rate,
        slow_extra_ns: (a.slow_extra_ms * 1e6) as i64,
        process_name: a.process,
        pid: a.pid,
        frame_timeline: !a.no_frame_timeline,
        frame_tracer: !a.no_frame_tracer,
        sched: !a.no_sched,
        atrace: !a.no_atrace,
        sdk_version: a.sdk,
        ..Default::default()
    };
    let t = generate(&cfg);
    std::fs::write(&a.output, &t.bytes)
        .with_context(|| format!("writing {}", a.output.display()))?;
    let slowed = t.frames.iter().filter(|f| f.slowed).count();
    eprintln!(
        "wrote {} ({} bytes): {} frames of {} ({} slowed)",
        a.output.display(),
        t.bytes.len(),
        t.frames.len(),
        cfg.process_name,
        slowed
    );
    Ok(())
}
