//! Finding traces for a CI step: files as given, directories searched (recursively) for
//! `*.perfetto-trace` / `*.pftrace`, and Macrobenchmark's per-iteration files grouped by test
//! (`Class_method_iter003_2024-...perfetto-trace` -> `Class_method`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

fn is_trace(p: &Path) -> bool {
    let n = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
    n.ends_with(".perfetto-trace") || n.ends_with(".pftrace") || n.ends_with(".perfetto-trace.gz")
}

/// Every file below `dir` that `keep` accepts, depth first in name order.
pub fn walk(dir: &Path, keep: fn(&Path) -> bool, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let p = e.path();
        if p.is_dir() {
            walk(&p, keep, out)?;
        } else if keep(&p) {
            out.push(p);
        }
    }
    Ok(())
}

/// Every trace named by `inputs` (files, or directories to search), in a stable order.
/// The gate keeps to Macrobenchmark's own extensions: a `.pb` beside them in an output
/// directory need not be a trace.
pub fn expand(inputs: &[PathBuf]) -> Result<Vec<PathBuf>> {
    expand_with(inputs, is_trace, "*.perfetto-trace, *.pftrace")
}

/// Files in `inputs` as given, directories searched for the files `keep` accepts (`names`
/// says which, for the error when there are none), in a stable order.
pub fn expand_with(
    inputs: &[PathBuf],
    keep: fn(&Path) -> bool,
    names: &str,
) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for i in inputs {
        if i.is_dir() {
            walk(i, keep, &mut out).with_context(|| format!("searching {}", i.display()))?;
        } else if i.exists() {
            out.push(i.clone());
        } else {
            bail!("{} does not exist", i.display());
        }
    }
    if out.is_empty() {
        bail!("no traces ({names}) found in {:?}", inputs);
    }
    Ok(out)
}

/// The test a Macrobenchmark iteration file belongs to: the file name up to `_iterNNN`.
pub fn test_name(path: &Path) -> String {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let stem = name
        .trim_end_matches(".gz")
        .trim_end_matches(".perfetto-trace")
        .trim_end_matches(".pftrace");
    if let Some(p) = stem.find("_iter") {
        let digits = stem[p + 5..].bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 {
            return stem[..p].to_string();
        }
    }
    stem.to_string()
}

/// Traces grouped by test, each group in iteration order.
pub fn group(paths: &[PathBuf]) -> BTreeMap<String, Vec<PathBuf>> {
    let mut g: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for p in paths {
        g.entry(test_name(p)).or_default().push(p.clone());
    }
    g
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iterations_group_by_test() {
        let a = Path::new("out/ScrollBenchmark_scroll_iter000_2024-05-01-10-00-00.perfetto-trace");
        let b = Path::new("out/ScrollBenchmark_scroll_iter001_2024-05-01-10-00-09.perfetto-trace");
        let c =
            Path::new("out/StartupBenchmark_startup_iter000_2024-05-01-10-01-00.perfetto-trace");
        assert_eq!(test_name(a), "ScrollBenchmark_scroll");
        assert_eq!(test_name(b), "ScrollBenchmark_scroll");
        let g = group(&[a.into(), b.into(), c.into()]);
        assert_eq!(g.len(), 2);
        assert_eq!(g["ScrollBenchmark_scroll"].len(), 2);
        assert_eq!(test_name(Path::new("plain.pftrace")), "plain");
        assert_eq!(
            test_name(Path::new("x_iterator.perfetto-trace")),
            "x_iterator"
        );
    }
}
