//! Standard output for commands: a reader that goes away (`frameprobe ... | head`) is not an
//! error. Rust ignores SIGPIPE, so a write to a closed pipe fails with `BrokenPipe`; every
//! command returns that error and `cli::main` ends quietly with success.

use std::io::Write;

/// Whether `e` (or any error it wraps) is a write to a closed pipe.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Writes `text` to standard output and flushes it.
pub fn write_all(text: &[u8]) -> std::io::Result<()> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    out.write_all(text)?;
    out.flush()
}

/// Writes `value` as pretty JSON and a newline to `out`, streamed through a buffer: the
/// text of a large report is never held whole in memory (on a 200 MB trace it is 13 MB, at
/// the moment the process's memory peaks).
pub fn write_json_line<T: serde::Serialize + ?Sized>(
    out: impl Write,
    value: &T,
) -> anyhow::Result<()> {
    let mut buf = std::io::BufWriter::with_capacity(1 << 16, out);
    serde_json::to_writer_pretty(&mut buf, value).map_err(json_error)?;
    buf.write_all(b"\n")?;
    buf.flush()?;
    Ok(())
}

/// A write error inside serde_json back as the I/O error it is, so a closed pipe stays quiet.
fn json_error(e: serde_json::Error) -> anyhow::Error {
    match e.io_error_kind() {
        Some(kind) => std::io::Error::new(kind, e).into(),
        None => e.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The streamed text is what the whole-string serializer gives, and a reader that went
    /// away is still recognised as a broken pipe.
    #[test]
    fn streamed_json_matches_the_string_and_keeps_broken_pipes() {
        let value = serde_json::json!({"frames": [1, 2, {"name": "a\"b"}], "ok": true});
        let mut out = Vec::new();
        write_json_line(&mut out, &value).unwrap();
        let whole = serde_json::to_string_pretty(&value).unwrap() + "\n";
        assert_eq!(String::from_utf8(out).unwrap(), whole);

        struct Closed;
        impl Write for Closed {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                Err(std::io::ErrorKind::BrokenPipe.into())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let big = vec!["frame"; 100_000];
        let e = write_json_line(Closed, &big).unwrap_err();
        assert!(is_broken_pipe(&e), "{e:#}");
    }

    #[test]
    fn broken_pipe_is_found_under_context() {
        let io = std::io::Error::new(std::io::ErrorKind::BrokenPipe, "gone");
        let e = anyhow::Error::new(io).context("writing the table");
        assert!(is_broken_pipe(&e));
        let other = anyhow::anyhow!("no such file");
        assert!(!is_broken_pipe(&other));
    }
}
