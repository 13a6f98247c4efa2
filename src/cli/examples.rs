//! Worked examples shown after each command's options (`frameprobe help <cmd>`). Every line
//! starting with `frameprobe ` is parsed by a unit test, so an example never goes stale.

pub const ANALYZE: &str = "\
Examples:
  frameprobe analyze trace.perfetto-trace
  frameprobe analyze trace.perfetto-trace -p com.example.app --top 10
  frameprobe analyze trace.perfetto-trace --layer 'com.example.app/*' --wide
  frameprobe analyze a.perfetto-trace b.perfetto-trace --format json > report.json
  frameprobe analyze trace.perfetto-trace --from 2.5 --to 6s
  frameprobe analyze trace.perfetto-trace --format markdown >> pr-comment.md
  frameprobe analyze traces/ --format jsonl --jobs 4 > results.jsonl
  frameprobe analyze 'lab/**/*.pftrace' --format jsonl --sort > results.jsonl
  frameprobe analyze traces/ --format csv > layers.csv";

pub const FRAMES: &str = "\
Examples:
  frameprobe frames trace.perfetto-trace -p com.example.app --janky
  frameprobe frames trace.perfetto-trace --format csv > frames.csv
  frameprobe frames trace.perfetto-trace --from ns:578090289999415 --to ns:578092289999415
  frameprobe frames trace.perfetto-trace --format json -p 'com.example.*'
  frameprobe frames traces/ --format csv --janky > janky-frames.csv";

pub const DOCTOR: &str = "\
Examples:
  frameprobe doctor trace.perfetto-trace
  frameprobe doctor trace.perfetto-trace --format json
  frameprobe doctor traces/ --format jsonl --sort";

pub const CHECK: &str = "\
Examples:
  frameprobe check build/outputs/connected_android_test_additional_output/ --max-jank-rate 5
  frameprobe check iter1.perfetto-trace iter2.perfetto-trace --process com.example.app --max-p95-overrun-ms 4
  frameprobe check out/ --config frameprobe.toml --format junit -o results.xml";

pub const COMPARE: &str = "\
Examples:
  frameprobe compare --baseline base/ --candidate cand/ --process com.example.app
  frameprobe compare --baseline base-report.json --candidate cand/ --format markdown
  frameprobe compare --baseline b1.perfetto-trace b2.perfetto-trace --candidate c1.perfetto-trace c2.perfetto-trace --format json";

pub const DIFF: &str = "\
Examples:
  frameprobe diff before.perfetto-trace after.perfetto-trace
  frameprobe diff base-out/ cand-out/ --process com.example.app --format markdown >> pr-comment.md
  frameprobe diff --baseline b1.perfetto-trace b2.perfetto-trace --candidate c1.perfetto-trace c2.perfetto-trace --format json
  frameprobe diff before.perfetto-trace after.perfetto-trace --interaction 'Feed*' --min-abs-ms 1";

pub const QUERY: &str = "\
Examples:
  frameprobe query trace.perfetto-trace 'select count(*) from actual_frame_timeline_slice'
  frameprobe query trace.perfetto-trace --file frames.sql --format csv
  frameprobe query trace.perfetto-trace 'INCLUDE PERFETTO MODULE android.frames.timeline; select * from android_frames limit 10'";

pub const EXPORT: &str = "\
Examples:
  frameprobe export trace.perfetto-trace -o trace.sqlite
  frameprobe export trace.perfetto-trace -o trace.sqlite --force
  frameprobe export traces/ more.perfetto-trace --parquet out/ --jobs 4";

pub const GFXINFO: &str = "\
Examples:
  adb shell dumpsys gfxinfo com.example.app framestats > dump.txt
  frameprobe gfxinfo dump.txt
  frameprobe gfxinfo dump.txt --summary-only --format csv
  frameprobe gfxinfo dump.txt --app-offset-ns 1000000 --sf-offset-ns 6000000 --format json";

pub const REPORT: &str = "\
Examples:
  frameprobe report trace.perfetto-trace -o report.html
  frameprobe report trace.perfetto-trace -p com.example.app -o report.html
  frameprobe report --baseline base/ --candidate cand/ -o compare.html";

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{CommandFactory, Parser};

    const ALL: [(&str, &str); 10] = [
        ("analyze", ANALYZE),
        ("frames", FRAMES),
        ("doctor", DOCTOR),
        ("check", CHECK),
        ("compare", COMPARE),
        ("diff", DIFF),
        ("query", QUERY),
        ("export", EXPORT),
        ("gfxinfo", GFXINFO),
        ("report", REPORT),
    ];

    /// Splits an example line like a POSIX shell would for these simple cases: words,
    /// single-quoted strings, and everything from a redirection on dropped.
    fn words(line: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut cur = String::new();
        let mut quoted = false;
        for c in line.chars() {
            match c {
                '\'' => quoted = !quoted,
                ' ' if !quoted => {
                    if !cur.is_empty() {
                        out.push(std::mem::take(&mut cur));
                    }
                }
                '>' if !quoted => break,
                _ => cur.push(c),
            }
        }
        if !cur.is_empty() {
            out.push(cur);
        }
        out
    }

    #[test]
    fn every_example_parses_as_the_command_it_illustrates() {
        for (cmd, text) in ALL {
            let examples: Vec<&str> = text
                .lines()
                .map(str::trim)
                .filter(|l| l.starts_with("frameprobe "))
                .collect();
            assert!(examples.len() >= 2, "{cmd}: at least two examples");
            for line in examples {
                let args = words(line);
                assert_eq!(args[1], cmd, "{line}: an example of another command");
                if let Err(e) = super::super::Cli::try_parse_from(&args) {
                    panic!("{line}: {e}");
                }
            }
        }
    }

    #[test]
    fn examples_appear_in_each_commands_help() {
        let mut cli = super::super::Cli::command();
        for (cmd, text) in ALL {
            let sub = cli.find_subcommand_mut(cmd).expect(cmd);
            let help = sub.render_long_help().to_string();
            let first = text.lines().nth(1).unwrap().trim();
            assert!(help.contains(first), "{cmd}'s help lacks its examples");
        }
    }
}
