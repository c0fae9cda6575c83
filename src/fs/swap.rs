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
    let wide = |p: &Path| -> Vec<u16> { p.as_os_str().encode_wide().chain([0]).collect() };
    let mut old = new.as_os_str().to_owned();
    old.push(".old");
    let old = PathBuf::from(old);
    let (target_w, new_w, old_w) = (wide(target), wide(new), wide(&old));
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
        return Ok(Swapped::Done { old });
    }
    let error = io::Error::last_os_error();
    // ERROR_INVALID_FUNCTION, ERROR_NOT_SUPPORTED: a file system without it.
    match error.raw_os_error() {
        Some(1 | 50) => Ok(Swapped::Unsupported),
        _ => Err(error),
    }
}

#[cfg(not(any(target_os = "linux", target_os = "macos", windows)))]
pub fn swap(_new: &Path, _target: &Path) -> io::Result<Swapped> {
    Ok(Swapped::Unsupported)
}

#[cfg(unix)]
fn c_path(bytes: &[u8]) -> io::Result<std::ffi::CString> {
    std::ffi::CString::new(bytes).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))
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
