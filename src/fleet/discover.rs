//! Which traces a fleet command reads: files as given, directories searched recursively,
//! glob patterns expanded, `-` (standard input) alone.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::gate::inputs;

/// What a directory search keeps, for the "none found" error.
pub const TRACE_NAMES: &str = "*.perfetto-trace, *.pftrace, *.pb, each also .gz/.zst/.zstd";

/// Whether a directory entry is a trace: Perfetto's extensions (`.pb` is what
/// `perfetto -o` examples and Android's bugreports use), each possibly compressed. The
/// reader detects the compression from the bytes, so the suffix only selects files.
pub fn is_trace_file(p: &Path) -> bool {
    let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let base = [".gz", ".zst", ".zstd"]
        .iter()
        .find_map(|c| name.strip_suffix(c))
        .unwrap_or(name);
    [".perfetto-trace", ".pftrace", ".pb"]
        .iter()
        .any(|ext| base.len() > ext.len() && base.ends_with(ext))
}

/// Whether `p` is meant as a glob pattern (it has a wildcard and names no existing file).
fn is_pattern(p: &Path) -> bool {
    !p.exists() && p.to_string_lossy().contains(['*', '?', '['])
}

/// Every trace `inputs` names, in a stable order: inputs in the order given, each directory
/// depth first in name order, each glob's matches in name order (a matched directory is
/// searched like a named one). A missing path or a glob that matches nothing is an error
/// before any trace is read.
/// `-` stands for standard input and must be the only input.
pub fn find_traces(inputs: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let stdin = Path::new("-");
    if inputs.iter().any(|i| i == stdin) {
        if inputs.len() > 1 {
            bail!("`-` (standard input) must be the only trace when given");
        }
        return Ok(inputs.to_vec());
    }
    let mut named = Vec::with_capacity(inputs.len());
    for i in inputs {
        if is_pattern(i) {
            named.extend(expand_glob(i)?);
        } else if !i.exists() {
            // Said before any trace runs, in the words loading a single trace uses.
            bail!("cannot load {}: no such file or directory", i.display());
        } else {
            named.push(i.clone());
        }
    }
    inputs::expand_with(&named, is_trace_file, TRACE_NAMES)
}

/// Whether the inputs ask for more than one trace's worth of output: several inputs, or a
/// directory or glob (whose trace count the user does not fix).
pub fn names_many(inputs: &[PathBuf], found: &[PathBuf]) -> bool {
    found.len() > 1 || inputs.len() > 1 || inputs.iter().any(|i| i.is_dir() || is_pattern(i))
}

fn expand_glob(pattern: &Path) -> Result<Vec<PathBuf>> {
    let text = pattern.to_string_lossy();
    let paths = glob::glob(&text).with_context(|| format!("bad glob pattern {text:?}"))?;
    let mut out = Vec::new();
    for p in paths {
        out.push(p.with_context(|| format!("expanding {text:?}"))?);
    }
    if out.is_empty() {
        bail!("{text:?} matches no file");
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(tag: &str, files: &[&str]) -> PathBuf {
        let root = std::env::temp_dir().join(format!("fp-discover-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for f in files {
            let p = root.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, b"x").unwrap();
        }
        root
    }

    #[test]
    fn trace_names_and_compressed_variants() {
        for yes in [
            "a.perfetto-trace",
            "a.pftrace",
            "a.pb",
            "a.pb.gz",
            "a.pftrace.zst",
        ] {
            assert!(is_trace_file(Path::new(yes)), "{yes}");
        }
        assert!(is_trace_file(Path::new("d/a.perfetto-trace.zstd")));
        for no in [
            "a.json",
            "a.gz",
            ".pb",
            "a.trace",
            "a.pb.bz2",
            "benchmarkData.json",
        ] {
            assert!(!is_trace_file(Path::new(no)), "{no}");
        }
    }

    #[test]
    fn directories_recurse_in_name_order_and_globs_expand() {
        let root = tree(
            "walk",
            &[
                "b/2.pb",
                "b/1.pftrace.gz",
                "a.perfetto-trace",
                "notes.txt",
                "c/x.json",
            ],
        );
        let found = find_traces(std::slice::from_ref(&root)).unwrap();
        let rel: Vec<_> = found
            .iter()
            .map(|p| p.strip_prefix(&root).unwrap())
            .collect();
        assert_eq!(
            rel,
            [
                Path::new("a.perfetto-trace"),
                Path::new("b/1.pftrace.gz"),
                Path::new("b/2.pb")
            ]
        );
        let globbed = find_traces(&[root.join("**/*.pb")]).unwrap();
        assert_eq!(globbed, [root.join("b/2.pb")]);
        assert!(names_many(std::slice::from_ref(&root), &globbed));
        let e = find_traces(&[root.join("**/*.zstd")])
            .unwrap_err()
            .to_string();
        assert!(e.contains("matches no file"), "{e}");
        let e = find_traces(&[root.join("nope.pb")])
            .unwrap_err()
            .to_string();
        assert!(e.contains("nope.pb: no such file or directory"), "{e}");
        let e = find_traces(&[root.join("c")]).unwrap_err().to_string();
        assert!(e.contains("no traces"), "{e}");
        let _ = std::fs::remove_dir_all(root);
    }

    #[test]
    fn stdin_only_alone() {
        assert_eq!(find_traces(&["-".into()]).unwrap(), [PathBuf::from("-")]);
        assert!(find_traces(&["-".into(), "x.pb".into()]).is_err());
    }
}
