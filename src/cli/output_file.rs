//! Output files (`-o`): written to a temporary file beside the target and renamed into
//! place only once complete, so a failed or interrupted command never leaves a truncated
//! file and never loses the previous one. `-` is standard output. An existing target that
//! is not a regular file is never replaced: a FIFO or character device (`/dev/null`, a
//! terminal) is written into, anything else is refused.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::{bail, Context, Result};

/// Whether `path` means standard output.
pub fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// What is at the target path now.
enum Existing {
    Nothing,
    Regular(fs::Permissions),
    /// A FIFO or a character device: written into, never replaced.
    Stream,
}

/// The path to write (a symlink's target, so the link survives) and what is there.
fn inspect(target: &Path) -> Result<(PathBuf, Existing)> {
    let resolved = match fs::canonicalize(target) {
        Ok(p) => p,
        Err(_) => target.to_path_buf(),
    };
    let meta = match fs::metadata(&resolved) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok((resolved, Existing::Nothing))
        }
        Err(e) => bail!(
            "cannot write {}: {}",
            target.display(),
            crate::trace::reader::io_reason(&e)
        ),
    };
    let ft = meta.file_type();
    if ft.is_file() {
        return Ok((resolved, Existing::Regular(meta.permissions())));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() || ft.is_char_device() {
            return Ok((resolved, Existing::Stream));
        }
    }
    let what = if ft.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    };
    bail!("refusing to replace {}: it is {what}", target.display())
}

/// A fresh name beside `target` that nothing uses yet.
fn temp_path(target: &Path) -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = target
        .file_name()
        .map_or_else(|| "output".into(), |n| n.to_string_lossy().into_owned());
    loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let p = dir.join(format!(".{name}.{}-{n}.tmp", std::process::id()));
        if fs::symlink_metadata(&p).is_err() {
            return p;
        }
    }
}

/// An output being written under a temporary name; removed unless [`Pending::commit`]ted.
pub struct Pending {
    tmp: PathBuf,
    target: PathBuf,
    shown: PathBuf,
    permissions: Option<fs::Permissions>,
    done: bool,
}

impl Pending {
    /// Prepares to replace `target` (refused when it exists and `overwrite` is false, or
    /// when it is not a regular file). Nothing is created or removed yet.
    pub fn new(target: &Path, overwrite: bool) -> Result<Self> {
        let (resolved, existing) = inspect(target)?;
        let permissions = match existing {
            Existing::Nothing => None,
            Existing::Regular(_) if !overwrite => {
                bail!("{} exists; pass --force to overwrite it", target.display())
            }
            Existing::Regular(p) => Some(p),
            Existing::Stream => bail!(
                "refusing to replace {}: it is not a regular file",
                target.display()
            ),
        };
        Ok(Pending {
            tmp: temp_path(&resolved),
            target: resolved,
            shown: target.to_path_buf(),
            permissions,
            done: false,
        })
    }

    /// Where to write (does not exist yet).
    pub fn path(&self) -> &Path {
        &self.tmp
    }

    /// Moves the finished file into place.
    pub fn commit(mut self) -> Result<()> {
        if let Some(p) = self.permissions.take() {
            // Keep the mode of the file being replaced.
            let _ = fs::set_permissions(&self.tmp, p);
        }
        fs::rename(&self.tmp, &self.target)
            .with_context(|| format!("moving the new {} into place", self.shown.display()))?;
        self.done = true;
        Ok(())
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        if !self.done {
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

/// Writes `bytes` to `path`: standard output for `-`, straight into a FIFO or character
/// device, otherwise through a temporary file renamed over the target.
pub fn write(path: &Path, bytes: &[u8]) -> Result<()> {
    if is_stdout(path) {
        return Ok(super::stdout::write_all(bytes)?);
    }
    let (resolved, existing) = inspect(path)?;
    if let Existing::Stream = existing {
        let mut f = OpenOptions::new()
            .write(true)
            .open(&resolved)
            .with_context(|| format!("opening {}", path.display()))?;
        return f
            .write_all(bytes)
            .with_context(|| format!("writing {}", path.display()));
    }
    let pending = Pending::new(path, true)?;
    let mut f = File::options()
        .write(true)
        .create_new(true)
        .open(pending.path())
        .with_context(|| format!("creating a temporary file beside {}", path.display()))?;
    f.write_all(bytes)
        .and_then(|_| f.sync_all())
        .with_context(|| format!("writing {}", path.display()))?;
    drop(f);
    pending.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("frameprobe-out-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn replaces_atomically_and_leaves_no_temp_file() {
        let d = dir("replace");
        let t = d.join("r.txt");
        fs::write(&t, "old").unwrap();
        write(&t, b"new").unwrap();
        assert_eq!(fs::read_to_string(&t).unwrap(), "new");
        assert_eq!(fs::read_dir(&d).unwrap().count(), 1);
    }

    #[test]
    fn an_abandoned_write_keeps_the_old_file() {
        let d = dir("abandon");
        let t = d.join("keep.sqlite");
        fs::write(&t, "precious").unwrap();
        let p = Pending::new(&t, true).unwrap();
        fs::write(p.path(), "half").unwrap();
        drop(p);
        assert_eq!(fs::read_to_string(&t).unwrap(), "precious");
        assert_eq!(fs::read_dir(&d).unwrap().count(), 1);
        assert!(Pending::new(&t, false)
            .err()
            .unwrap()
            .to_string()
            .contains("--force"));
    }

    #[test]
    fn directories_are_refused_and_devices_are_written_into() {
        let d = dir("nonregular");
        let err = write(&d, b"x").unwrap_err().to_string();
        assert!(err.contains("is a directory"), "{err}");
        #[cfg(unix)]
        {
            write(Path::new("/dev/null"), b"x").unwrap();
            assert!(Path::new("/dev/null").exists());
            let err = Pending::new(Path::new("/dev/null"), true)
                .err()
                .unwrap()
                .to_string();
            assert!(err.contains("not a regular file"), "{err}");
        }
    }
}
