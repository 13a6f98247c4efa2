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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broken_pipe_is_found_under_context() {
        let io = std::io::Error::new(std::io::ErrorKind::BrokenPipe, "gone");
        let e = anyhow::Error::new(io).context("writing the table");
        assert!(is_broken_pipe(&e));
        let other = anyhow::anyhow!("no such file");
        assert!(!is_broken_pipe(&other));
    }
}
