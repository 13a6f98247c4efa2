//! A trace's id: the file name made filename-safe, then a hash of the whole path as given,
//! so that same-named files in different folders get different ids and a rerun over the
//! same paths gets the same ones.

/// How much of the file name is kept (the hash keeps ids distinct whatever is cut).
const MAX_NAME_BYTES: usize = 64;

/// The extensions a trace file name ends with (dropped from the id).
const TRACE_EXTENSIONS: [&str; 5] = [".gz", ".zst", ".perfetto-trace", ".pftrace", ".pb"];

/// `<name>-<16 hex digits>`: the file name without its trace extensions, every byte
/// but ASCII letters, digits, `-`, `_` and `.` made `_`, no leading dot; then FNV-1a 64 of
/// the path's bytes (a fixed function, so ids do not change between builds).
pub fn trace_id(path: &str) -> String {
    let file = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let mut stem = file;
    for ext in TRACE_EXTENSIONS {
        stem = stem.strip_suffix(ext).unwrap_or(stem);
    }
    let mut name: String = stem
        .chars()
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '-' | '_' | '.' => c,
            _ => '_',
        })
        .collect();
    name = name.trim_start_matches('.').to_string();
    name.truncate(MAX_NAME_BYTES);
    if name.is_empty() {
        name.push_str("trace");
    }
    format!("{name}-{:016x}", fnv1a(path.as_bytes()))
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf29ce484222325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100000001b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// FNV-1a 64 reference values from the algorithm's published test vectors
    /// (Fowler/Noll/Vo: "" -> cbf29ce484222325, "a" -> af63dc4c8601ec8c).
    #[test]
    fn the_hash_is_fnv1a_64() {
        assert_eq!(fnv1a(b""), 0xcbf29ce484222325);
        assert_eq!(fnv1a(b"a"), 0xaf63dc4c8601ec8c);
    }

    #[test]
    fn ids_are_filename_safe_and_distinct_per_path() {
        let a = trace_id("lab/a/run 1.perfetto-trace.gz");
        let b = trace_id("lab/b/run 1.perfetto-trace.gz");
        assert!(a.starts_with("run_1-"), "{a}");
        assert_ne!(a, b);
        assert_eq!(a, trace_id("lab/a/run 1.perfetto-trace.gz"));
        for hostile in ["../..", "/", "", "..\\x\\é:*?.pftrace", ".hidden"] {
            let id = trace_id(hostile);
            assert!(!id.starts_with('.'), "{id}");
            assert!(
                id.bytes()
                    .all(|c| c.is_ascii_alphanumeric() || b"-_.".contains(&c)),
                "{id}"
            );
        }
        let long = format!("{}.pftrace", "x".repeat(500));
        assert_eq!(trace_id(&long).len(), MAX_NAME_BYTES + 17);
    }
}
