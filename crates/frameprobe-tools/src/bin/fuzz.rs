//! `frameprobe-fuzz`: mutation fuzzing of the reader and importers (see
//! `frameprobe_tools::fuzz`).
//!
//!     frameprobe-fuzz --iterations 200000 --seed-file testdata/scroll_60hz.perfetto-trace

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Result;
use clap::Parser;

#[derive(Parser)]
#[command(about = "Fuzz the trace reader and importers with mutated traces")]
struct Args {
    #[arg(long, default_value_t = 10_000)]
    iterations: u64,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Extra seed traces (the generator's small traces are always used).
    #[arg(long)]
    seed_file: Vec<PathBuf>,
    /// Where failing inputs are written.
    #[arg(long, default_value = "fuzz-artifacts")]
    artifacts: PathBuf,
    /// Only the reader, tokenizer and importers (no frame analysis): faster, for long runs.
    #[arg(long)]
    reader_only: bool,
}

fn main() -> Result<()> {
    let a = Args::parse();
    let mut seeds = frameprobe_tools::fuzz::generated_seeds();
    for f in &a.seed_file {
        seeds.push(std::fs::read(f)?);
    }
    let t = Instant::now();
    let target = if a.reader_only {
        frameprobe_tools::fuzz::Target::Reader
    } else {
        frameprobe_tools::fuzz::Target::ReaderAndAnalysis
    };
    let mut progress = |n: u64| {
        eprintln!("{n} inputs, {:.0} s", t.elapsed().as_secs_f64());
    };
    let (n, findings) =
        frameprobe_tools::fuzz::campaign_on(&seeds, a.iterations, a.seed, target, &mut progress);
    println!(
        "{n} inputs in {:.1} s, {} panics",
        t.elapsed().as_secs_f64(),
        findings.len()
    );
    if !findings.is_empty() {
        std::fs::create_dir_all(&a.artifacts)?;
        for (i, msg, input) in &findings {
            let p = a.artifacts.join(format!("crash-{}-{i}.bin", a.seed));
            std::fs::write(&p, input)?;
            println!("iteration {i}: {msg} -> {}", p.display());
        }
        std::process::exit(1);
    }
    Ok(())
}
