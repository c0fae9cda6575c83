//! The operating-system primitives a write ends with, behind one small interface so the
//! write logic above them is the same everywhere:
//! - `swap(new, target)`: put `new` at `target` in one step and keep the version it
//!   replaced, whatever that was at that instant (Linux `renameat2(RENAME_EXCHANGE)`,
//!   macOS `renamex_np(RENAME_SWAP)`, Windows `ReplaceFileW` with a backup name).
//!   Elsewhere, or on a file system without it, `Unsupported`: the caller falls back to a
//!   plain rename.
//! - `create_new(new, target)`: put `new` at `target` only if nothing is there (a hard
//!   link, which fails if the name exists).
//!
//! Nothing here decides anything; the only `cfg` on the target OS in the write path.

use std::io;
use std::path::{Path, PathBuf};

/// What `swap` did.
#[derive(Debug)]
pub enum Swapped {
    /// `target` now holds the new bytes; the version it replaced is at this path.
    Done { old: PathBuf },
    /// No atomic exchange here (OS or file system): nothing was changed.
    Unsupported,
}

/// Exchange `new` into `target` (which must exist).
#[cfg(target_os = "linux")]
pub fn swap(new: &Path, target: &Path) -> io::Result<Swapped> {
    use std::os::unix::ffi::OsStrExt;
    let from = c_path(new.as_os_str().as_bytes())?;
    let to = c_path(target.as_os_str().as_bytes())?;
    // SAFETY: both are valid NUL-terminated paths; renameat2 only reads them.
    let rc = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if rc == 0 {
        return Ok(Swapped::Done {
            old: new.to_path_buf(),
        });
    }
    let error = io::Error::last_os_error();
    match error.raw_os_error() {
        // The file system (or an old kernel) has no exchange.
        Some(libc::EINVAL | libc::ENOSYS | libc::EOPNOTSUPP) => Ok(Swapped::Unsupported),
        _ => Err(error),
    }
}

/// Exchange `new` into `target` (which must exist).
#[cfg(target_os = "macos")]
pub fn swap(new: &Path, target: &Path) -> io::Result<Swapped> {
    use std::os::unix::ffi::OsStrExt;
    let from = c_path(new.as_os_str().as_bytes())?;
    let to = c_path(target.as_os_str().as_bytes())?;
    // SAFETY: both are valid NUL-terminated paths; renamex_np only reads them.
    let rc = unsafe { libc::renamex_np(from.as_ptr(), to.as_ptr(), libc::RENAME_SWAP) };
    if rc == 0 {
        return Ok(Swapped::Done {
            old: new.to_path_buf(),
        });
    }
    let error = io::Error::last_os_error();
    match error.raw_os_error() {
        Some(libc::EINVAL | libc::ENOTSUP) => Ok(Swapped::Unsupported),
        _ => Err(error),
    }
}

/// Replace `target` by `new`; the replaced version is moved to `new` + `.old`.
#[cfg(windows)]
pub fn swap(new: &Path, target: &Path) -> io::Result<Swapped> {
    use std::os::windows::ffi::OsStrExt;
    use windows_sys::Win32::Storage::FileSystem::{REPLACEFILE_IGNORE_MERGE_ERRORS, ReplaceFileW};
    // `std::fs` adds the `\\?\` prefix to a long path itself; a direct Win32 call must.
    let wide = |p: &Path| -> Vec<u16> {
        match p.to_str().and_then(long_form) {
            Some(long) => long.encode_utf16().chain([0]).collect(),
            None => p.as_os_str().encode_wide().chain([0]).collect(),
        }
    };
    let mut old = new.as_os_str().to_owned();
    old.push(".old");
    let old = PathBuf::from(old);
    let (target_w, new_w, old_w) = (wide(target), wide(new), wide(&old));
    let replaced = while_shared(|| {
        // SAFETY: three valid NUL-terminated UTF-16 paths; the reserved pointers are null.
        let ok = unsafe {
            ReplaceFileW(
                target_w.as_ptr(),
                new_w.as_ptr(),
                old_w.as_ptr(),
                REPLACEFILE_IGNORE_MERGE_ERRORS,
                std::ptr::null(),
                std::ptr::null(),
            )
        };
        if ok != 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    });
    match replaced {
        Ok(()) => Ok(Swapped::Done { old }),
        // ERROR_INVALID_FUNCTION, ERROR_NOT_SUPPORTED: a file system without it.
        Err(e) if matches!(e.raw_os_error(), Some(1 | 50)) => Ok(Swapped::Unsupported),
        Err(e) => Err(e),
    }
}

/// The `\\?\` form of an absolute Windows path too long for the classic Win32 limit
/// (`MAX_PATH`, 260 UTF-16 units with the NUL), which file APIs such as `ReplaceFileW`
/// take at any length: `C:\a\…` becomes `\\?\C:\a\…` and `\\server\share\…`
/// `\\?\UNC\server\share\…`. The prefix turns off Win32's own normalization, so it is
/// done here: `/` becomes `\`, `.` segments go and `..` ones take their parent along.
/// `None`: short enough as it is, already in that form, or not absolute.
#[cfg_attr(not(windows), allow(dead_code))]
fn long_form(path: &str) -> Option<String> {
    const MAX_PATH: usize = 260;
    if path.encode_utf16().count() < MAX_PATH || path.starts_with(r"\\?\") {
        return None;
    }
    let path = path.replace('/', "\\");
    let (prefix, rest) = if let Some(unc) = path.strip_prefix(r"\\") {
        let mut parts = unc.splitn(3, '\\');
        let (server, share) = (parts.next()?, parts.next()?);
        if server.is_empty() || share.is_empty() || server == "." {
            return None;
        }
        (
            format!(r"\\?\UNC\{server}\{share}"),
            parts.next().unwrap_or(""),
        )
    } else {
        let bytes = path.as_bytes();
        if bytes.len() < 3 || !bytes[0].is_ascii_alphabetic() || &bytes[1..3] != b":\\" {
            return None;
        }
        (format!(r"\\?\{}", &path[..2]), &path[3..])
    };
    let mut kept: Vec<&str> = Vec::new();
    for segment in rest.split('\\') {
        match segment {
            "" | "." => {}
            ".." => {
                kept.pop();
            }
            _ => kept.push(segment),
        }
    }
    Some(format!("{prefix}\\{}", kept.join("\\")))
}

#[cfg(not(any(target_os = "linux", target_os = "macos", windows)))]
pub fn swap(_new: &Path, _target: &Path) -> io::Result<Swapped> {
    Ok(Swapped::Unsupported)
}

#[cfg(unix)]
fn c_path(bytes: &[u8]) -> io::Result<std::ffi::CString> {
    std::ffi::CString::new(bytes).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))
}

/// Rename `from` over `to` (std's rename): one step, whatever `to` was. On Windows a
/// file another process has open for a moment cannot be replaced (see `while_shared`).
pub fn rename(from: &Path, to: &Path) -> io::Result<()> {
    while_shared(|| std::fs::rename(from, to))
}

/// Run `step` again while Windows says the file is open elsewhere, for up to ~2 s.
///
/// On Windows a file that another process has open — a client reading its config,
/// another mcpctl reading the ledger, a virus scanner or indexer looking at a file just
/// written — cannot be renamed over or replaced until that handle closes: the call
/// fails with "Access denied" (5), a sharing violation (32) or a lock violation (33),
/// and `ReplaceFileW` with "unable to remove the replaced file" (1175) or "unable to move
/// the replacement" (1176), both of which leave both files as they were. Those are
/// waits, not failures, as in Git for Windows' and npm's renames. A real "Access denied"
/// (a read-only folder) costs the wait, then fails as before. Elsewhere `step` runs once.
fn while_shared<T>(mut step: impl FnMut() -> io::Result<T>) -> io::Result<T> {
    if !cfg!(windows) {
        return step();
    }
    const RETRYABLE: &[i32] = &[5, 32, 33, 1175, 1176];
    let mut pause = std::time::Duration::from_millis(1);
    let mut waited = std::time::Duration::ZERO;
    loop {
        match step() {
            Err(e)
                if e.raw_os_error().is_some_and(|c| RETRYABLE.contains(&c))
                    && waited < std::time::Duration::from_secs(2) =>
            {
                std::thread::sleep(pause);
                waited += pause;
                pause = (pause * 2).min(std::time::Duration::from_millis(100));
            }
            other => return other,
        }
    }
}

/// Put `new` at `target` only if `target` does not exist; `new` is gone afterwards.
/// `Ok(false)` when something is already there (another writer created it).
pub fn create_new(new: &Path, target: &Path) -> io::Result<bool> {
    match std::fs::hard_link(new, target) {
        Ok(()) => {
            std::fs::remove_file(new)?;
            Ok(true)
        }
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
        // No hard links on this file system (FAT, some network shares): a rename, after
        // a last look.
        Err(_) if !target.exists() => {
            std::fs::rename(new, target)?;
            Ok(true)
        }
        Err(_) => Ok(false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(any(target_os = "linux", target_os = "macos"))]
    #[test]
    fn swap_exchanges_and_keeps_the_replaced_version() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("c.json");
        let new = dir.path().join("new.tmp");
        std::fs::write(&target, "old").unwrap();
        std::fs::write(&new, "new").unwrap();
        match swap(&new, &target).unwrap() {
            Swapped::Done { old } => {
                assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
                assert_eq!(std::fs::read_to_string(old).unwrap(), "old");
            }
            // tmpfs and ext4 have it; a test machine without it says so.
            Swapped::Unsupported => panic!("no RENAME_EXCHANGE on the temp dir's file system"),
        }
    }

    #[test]
    fn a_long_windows_path_gets_the_verbatim_form_and_a_short_one_stays() {
        let dir = "d".repeat(120);
        let long = format!(r"C:\Users\dev\{dir}\{dir}\config.toml");
        assert_eq!(
            long_form(&long).as_deref(),
            Some(format!(r"\\?\C:\Users\dev\{dir}\{dir}\config.toml").as_str())
        );
        // Win32 would have normalized these; with the prefix it does not, so this does.
        let odd = format!(r"C:/Users/dev/./x/..\{dir}\\{dir}/config.toml");
        assert_eq!(long_form(&odd), long_form(&long));
        assert_eq!(
            long_form(&format!(r"\\srv\share\{dir}\{dir}\c.json")).as_deref(),
            Some(format!(r"\\?\UNC\srv\share\{dir}\{dir}\c.json").as_str())
        );
        assert_eq!(long_form(r"C:\Users\dev\.cursor\mcp.json"), None);
        assert_eq!(long_form(&format!(r"\\?\{long}")), None);
        assert_eq!(long_form(&format!(r"rel\{dir}\{dir}\c.json")), None);
    }

    /// Issue 37: on Windows a file another process has open (a client reading its
    /// config, another mcpctl reading the ledger, a virus scanner) cannot be replaced
    /// for that moment: the rename answers "Access denied" or a sharing violation. It is
    /// a wait, not a failure.
    #[cfg(windows)]
    #[test]
    fn a_file_open_elsewhere_for_a_moment_is_still_replaced() {
        use std::os::windows::fs::OpenOptionsExt;
        const FILE_SHARE_READ: u32 = 1;
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("ledger.json");
        std::fs::write(&target, "old").unwrap();
        for round in 0..2 {
            let new = dir.path().join(format!("new{round}.tmp"));
            std::fs::write(&new, format!("new{round}")).unwrap();
            // A reader that does not share delete access, as many programs open files.
            let reader = std::fs::OpenOptions::new()
                .read(true)
                .share_mode(FILE_SHARE_READ)
                .open(&target)
                .unwrap();
            let held = std::thread::spawn(move || {
                std::thread::sleep(std::time::Duration::from_millis(300));
                drop(reader);
            });
            if round == 0 {
                rename(&new, &target).unwrap();
            } else {
                match swap(&new, &target).unwrap() {
                    Swapped::Done { old } => {
                        let _ = std::fs::remove_file(old);
                    }
                    Swapped::Unsupported => rename(&new, &target).unwrap(),
                }
            }
            held.join().unwrap();
            assert_eq!(
                std::fs::read_to_string(&target).unwrap(),
                format!("new{round}")
            );
        }
    }

    #[test]
    fn create_new_never_replaces() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("c.json");
        let new = dir.path().join("new.tmp");
        std::fs::write(&new, "1").unwrap();
        assert!(create_new(&new, &target).unwrap());
        assert!(!new.exists());
        std::fs::write(&new, "2").unwrap();
        assert!(!create_new(&new, &target).unwrap());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "1");
    }
}
