//! frameprobe: offline frame and jank analysis for Android Perfetto traces.

use std::process::ExitCode;

fn main() -> ExitCode {
    frameprobe::cli::main()
}
