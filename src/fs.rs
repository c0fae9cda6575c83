//! Reading and writing client config files: the only module that touches `std::fs` for
//! them. Reads keep the BOM and bytes aside; writes are atomic (temp file in the same
//! directory, fsync, rename), keep permissions, write through symlinks, back the old
//! bytes up into mcpctl's state directory, and refuse to overwrite a file that changed
//! since it was read.
#![allow(
    clippy::disallowed_methods,
    reason = "the one module that writes and renames client files"
)]

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

const BOM: &str = "\u{feff}";
/// Spare capacity read buffers get (see `read_source`).
const EDIT_SLACK: usize = 64 * 1024;

/// A config file as read.
#[derive(Debug, Clone)]
pub struct Source {
    /// The path the user knows (may be a symlink).
    pub path: PathBuf,
    /// The text without BOM; empty for a missing file.
    pub text: String,
    pub bom: bool,
    /// Size, modification time and inode when read; `None` when the file did not exist.
    /// A write first checks the file still has this stamp (another writer changes it).
    pub stamp: Option<Stamp>,
}

/// What identifies one version of a file without reading it again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
    inode: u64,
}

impl Stamp {
    fn of(meta: &fs::Metadata) -> Stamp {
        #[cfg(unix)]
        let inode = std::os::unix::fs::MetadataExt::ino(meta);
        #[cfg(not(unix))]
        let inode = 0;
        Stamp {
            len: meta.len(),
            modified: meta.modified().ok(),
            inode,
        }
    }
}

impl Source {
    pub fn exists(&self) -> bool {
        self.stamp.is_some()
    }

    /// The full bytes for `text`, with the BOM restored.
    pub fn bytes_for(&self, text: &str) -> Vec<u8> {
        let mut out = String::with_capacity(text.len() + 3);
        if self.bom {
            out.push_str(BOM);
        }
        out.push_str(text);
        out.into_bytes()
    }
}

/// Reading or writing failed.
#[derive(Debug, thiserror::Error)]
pub enum FsError {
    #[error("cannot read `{path}`: {source}")]
    Read { path: PathBuf, source: io::Error },
    #[error("`{path}` is not UTF-8 text (byte {offset})")]
    NotUtf8 { path: PathBuf, offset: usize },
    #[error("cannot write `{path}`: {source}")]
    Write { path: PathBuf, source: io::Error },
    #[error("`{path}` changed while mcpctl was editing it")]
    Changed { path: PathBuf },
}

/// Read a config file. A missing file is an empty source, not an error.
pub fn read_source(path: &Path) -> Result<Source, FsError> {
    let read_err = |source: io::Error| FsError::Read {
        path: path.to_path_buf(),
        source,
    };
    let opened = File::open(path).and_then(|mut file| {
        let meta = file.metadata()?;
        // Slack for the entry an edit splices in, so a big file is not reallocated
        // (copied) to grow by a few hundred bytes.
        let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0) + EDIT_SLACK);
        advise_huge_pages(&mut bytes);
        io::Read::read_to_end(&mut file, &mut bytes)?;
        Ok((bytes, Stamp::of(&meta)))
    });
    match opened {
        Ok((bytes, stamp)) => {
            let mut text = String::from_utf8(bytes).map_err(|e| FsError::NotUtf8 {
                path: path.to_path_buf(),
                offset: e.utf8_error().valid_up_to(),
            })?;
            let bom = text.starts_with(BOM);
            if bom {
                text.drain(..BOM.len());
            }
            Ok(Source {
                path: path.to_path_buf(),
                text,
                bom,
                stamp: Some(stamp),
            })
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Source {
            path: path.to_path_buf(),
            text: String::new(),
            bom: false,
            stamp: None,
        }),
        Err(e) => Err(read_err(e)),
    }
}

/// Where backups go: `$MCPCTL_STATE_DIR` if given, else the platform state directory.
pub fn backup_dir(state_dir: Option<&Path>) -> Option<PathBuf> {
    Some(self::state_dir(state_dir)?.join("backups"))
}

/// mcpctl's state directory: `$MCPCTL_STATE_DIR` if given, else the platform state
/// directory (`~/.local/state/mcpctl` on Linux).
pub fn state_dir(explicit: Option<&Path>) -> Option<PathBuf> {
    if let Some(dir) = explicit {
        return Some(dir.to_path_buf());
    }
    let dirs = directories::ProjectDirs::from("", "", "mcpctl")?;
    Some(
        dirs.state_dir()
            .unwrap_or_else(|| dirs.data_local_dir())
            .to_path_buf(),
    )
}

/// Follow symlinks to the file that really holds the bytes (which may not exist yet).
fn real_target(path: &Path) -> PathBuf {
    let mut current = path.to_path_buf();
    for _ in 0..32 {
        match fs::read_link(&current) {
            Ok(target) => {
                current = if target.is_absolute() {
                    target
                } else {
                    current.parent().map_or(target.clone(), |p| p.join(&target))
                };
            }
            Err(_) => return current,
        }
    }
    current
}

/// What a write did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    pub backup: Option<PathBuf>,
}

/// Replace `source.path` with `text` (and the source's BOM) atomically.
///
/// Fails with `FsError::Changed` when the file is no longer the version that was read
/// (another program wrote it): the caller re-reads and re-applies its edit. The old
/// version is kept in `backups` (a hard link where possible, so big files cost nothing).
pub fn write_atomic(
    source: &Source,
    text: &str,
    backups: Option<&Path>,
) -> Result<Written, FsError> {
    let target = real_target(&source.path);
    let write_err = |e: io::Error| FsError::Write {
        path: source.path.clone(),
        source: e,
    };
    let current = match fs::metadata(&target) {
        Ok(meta) => Some(Stamp::of(&meta)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(write_err(e)),
    };
    if current != source.stamp {
        return Err(FsError::Changed {
            path: source.path.clone(),
        });
    }
    let dir = target
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(write_err)?;
    let backup = match (source.exists(), backups) {
        (true, Some(backups)) => backup(&target, backups).ok(),
        _ => None,
    };
    let file_name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = dir.join(format!(".{file_name}.mcpctl-{}.tmp", std::process::id()));
    let result = (|| {
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)?;
        if let Ok(meta) = fs::metadata(&target) {
            file.set_permissions(meta.permissions())?;
        } else {
            restrict_new_file(&file)?;
        }
        if source.bom {
            file.write_all(BOM.as_bytes())?;
        }
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        drop(file);
        fs::rename(&temp, &target)?;
        if let Ok(dir) = File::open(dir) {
            let _ = dir.sync_all();
        }
        Ok(())
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&temp);
        return Err(write_err(e));
    }
    Ok(Written { backup })
}

/// Ask for transparent huge pages on a big read buffer: a 17 MB `~/.claude.json` otherwise
/// costs ~4,300 page faults (measured: a tenth of the run) just to receive the bytes.
#[cfg(target_os = "linux")]
fn advise_huge_pages(buffer: &mut Vec<u8>) {
    const PAGE: usize = 4096;
    const HUGE: usize = 2 << 20;
    if buffer.capacity() < 2 * HUGE {
        return;
    }
    let start = buffer.as_mut_ptr() as usize;
    let aligned = start.next_multiple_of(PAGE);
    let end = (start + buffer.capacity()) / PAGE * PAGE;
    if end > aligned {
        // SAFETY: the range lies inside the Vec's own allocation; MADV_HUGEPAGE is only
        // advice about how to back it and never changes its contents.
        unsafe {
            libc::madvise(
                aligned as *mut libc::c_void,
                end - aligned,
                libc::MADV_HUGEPAGE,
            );
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_buffer: &mut Vec<u8>) {}

/// New config files may hold tokens: make them private to the user.
#[cfg(unix)]
fn restrict_new_file(file: &File) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    file.set_permissions(fs::Permissions::from_mode(0o600))
}

#[cfg(not(unix))]
fn restrict_new_file(_file: &File) -> io::Result<()> {
    Ok(())
}

/// The name suffix every backup of `target` carries (its path, flattened).
fn backup_suffix(target: &Path) -> String {
    let flat: String = target
        .to_string_lossy()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("-{}", flat.trim_start_matches('_'))
}

/// Keep the current version of `target` in `backups`: a hard link (the rename that
/// follows leaves the old inode to the backup alone), else a private copy.
fn backup(target: &Path, backups: &Path) -> io::Result<PathBuf> {
    fs::create_dir_all(backups)?;
    let stamp = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let suffix = backup_suffix(target);
    let path = backups.join(format!("{stamp:020}-{}{suffix}", std::process::id()));
    if fs::hard_link(target, &path).is_err() {
        let old = fs::read(target)?;
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)?;
        restrict_new_file(&file)?;
        file.write_all(&old)?;
    }
    prune_backups(backups, &suffix);
    Ok(path)
}

/// How many backups of one file are kept (a big `~/.claude.json` is tens of MB each).
const BACKUPS_KEPT: usize = 10;

/// Delete all but the newest `BACKUPS_KEPT` backups whose name ends with `suffix`.
fn prune_backups(backups: &Path, suffix: &str) {
    let Ok(entries) = fs::read_dir(backups) else {
        return;
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| {
            n.ends_with(suffix)
                && n.split('-')
                    .next()
                    .is_some_and(|s| s.chars().all(|c| c.is_ascii_digit()))
        })
        .collect();
    // Names start with a zero-padded nanosecond stamp: lexical order is age order.
    names.sort_unstable();
    let excess = names.len().saturating_sub(BACKUPS_KEPT);
    for name in &names[..excess] {
        let _ = fs::remove_file(backups.join(name));
    }
}

/// One kept previous version of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Backup {
    pub path: PathBuf,
    /// When it was taken (the write that replaced it).
    pub time: SystemTime,
    pub size: u64,
}

/// The backups of the file at `path` (symlinks followed), newest first.
pub fn backups_of(backups: &Path, path: &Path) -> Vec<Backup> {
    let suffix = backup_suffix(&real_target(path));
    let Ok(entries) = fs::read_dir(backups) else {
        return Vec::new();
    };
    let mut found: Vec<(String, Backup)> = entries
        .filter_map(|e| {
            let entry = e.ok()?;
            let name = entry.file_name().into_string().ok()?;
            let nanos: u64 = name.split('-').next()?.parse().ok()?;
            // A pid sits between the stamp and the suffix: `{stamp}-{pid}{suffix}`.
            let rest = name.split_once('-')?.1;
            let pid_len = rest.find('-')?;
            if rest[pid_len..] != suffix {
                return None;
            }
            let size = entry.metadata().ok()?.len();
            let backup = Backup {
                path: entry.path(),
                time: UNIX_EPOCH + std::time::Duration::from_nanos(nanos),
                size,
            };
            Some((name, backup))
        })
        .collect();
    found.sort_unstable_by(|a, b| b.0.cmp(&a.0));
    found.into_iter().map(|(_, b)| b).collect()
}

/// Keep the current bytes of `path` in `backups` (before mcpctl deletes or replaces it
/// outside `write_atomic`).
pub fn backup_now(path: &Path, backups: &Path) -> Result<PathBuf, FsError> {
    backup(&real_target(path), backups).map_err(|source| FsError::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// Delete a file mcpctl wrote (undo of a created file), and then each of `dirs` that is
/// left empty, deepest first.
pub fn remove_created(path: &Path, dirs: &[PathBuf]) -> Result<(), FsError> {
    match fs::remove_file(real_target(path)) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(source) => {
            return Err(FsError::Write {
                path: path.to_path_buf(),
                source,
            });
        }
    }
    for dir in dirs {
        // Only empty directories go; `remove_dir` refuses the others.
        let _ = fs::remove_dir(dir);
    }
    Ok(())
}

/// The directories a write of `path` would create, deepest first.
pub fn missing_dirs(path: &Path) -> Vec<PathBuf> {
    let target = real_target(path);
    let mut missing = Vec::new();
    let mut dir = target.parent();
    while let Some(d) = dir.filter(|d| !d.as_os_str().is_empty()) {
        if d.exists() {
            break;
        }
        missing.push(d.to_path_buf());
        dir = d.parent();
    }
    missing
}

/// The path that identifies a file across spellings: symlinks followed, the directory
/// made canonical (the file itself may not exist yet).
pub fn identity(path: &Path) -> PathBuf {
    let target = real_target(path);
    if let Ok(real) = fs::canonicalize(&target) {
        return real;
    }
    match (target.parent(), target.file_name()) {
        (Some(parent), Some(name)) => fs::canonicalize(parent)
            .map(|p| p.join(name))
            .unwrap_or(target.clone()),
        _ => target,
    }
}

/// Hold an exclusive advisory lock on `path` (created if missing) until the returned file
/// is dropped. Blocks while another mcpctl holds it.
pub fn lock_exclusive(path: &Path) -> Result<File, FsError> {
    let err = |source: io::Error| FsError::Write {
        path: path.to_path_buf(),
        source,
    };
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(err)?;
    }
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(err)?;
    file.lock().map_err(err)?;
    Ok(file)
}

/// Read a file mcpctl owns (state, backups) as bytes; `None` when missing.
pub fn read_bytes(path: &Path) -> Result<Option<Vec<u8>>, FsError> {
    match fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(FsError::Read {
            path: path.to_path_buf(),
            source,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_file_reads_as_empty_and_bom_is_split_off() {
        let dir = tempfile::tempdir().unwrap();
        let missing = read_source(&dir.path().join("nope.json")).unwrap();
        assert!(!missing.exists());
        let path = dir.path().join("bom.json");
        fs::write(&path, "\u{feff}{}\r\n").unwrap();
        let source = read_source(&path).unwrap();
        assert!(source.bom);
        assert_eq!(source.text, "{}\r\n");
        assert_eq!(source.bytes_for(&source.text), fs::read(&path).unwrap());
        write_atomic(&source, "{\"a\":1}\r\n", None).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"\xef\xbb\xbf{\"a\":1}\r\n");
    }

    #[test]
    fn write_refuses_when_file_changed_since_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.json");
        fs::write(&path, "{}").unwrap();
        let source = read_source(&path).unwrap();
        fs::write(&path, "{\"x\":1}").unwrap();
        assert!(matches!(
            write_atomic(&source, "{\"y\":1}", None),
            Err(FsError::Changed { .. })
        ));
        assert_eq!(fs::read_to_string(&path).unwrap(), "{\"x\":1}");
    }

    #[test]
    fn backups_are_pruned_to_the_newest_ten_per_file() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        let path = dir.path().join("c.json");
        fs::write(&path, "0").unwrap();
        fs::write(dir.path().join("other.json"), "x").unwrap();
        let other = read_source(&dir.path().join("other.json")).unwrap();
        write_atomic(&other, "y", Some(&state)).unwrap();
        for i in 1..=15 {
            let source = read_source(&path).unwrap();
            write_atomic(&source, &i.to_string(), Some(&state)).unwrap();
        }
        let mut kept: Vec<String> = fs::read_dir(&state)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        kept.sort();
        assert_eq!(kept.len(), 11, "{kept:?}");
        assert!(kept.iter().any(|n| n.ends_with("other.json")));
        let newest = kept.iter().rfind(|n| n.ends_with("c.json")).unwrap();
        assert_eq!(fs::read_to_string(state.join(newest)).unwrap(), "14");
    }

    #[cfg(unix)]
    #[test]
    fn write_goes_through_symlink_keeps_mode_and_backs_up() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("dotfiles/mcp.json");
        fs::create_dir_all(real.parent().unwrap()).unwrap();
        fs::write(&real, "old").unwrap();
        fs::set_permissions(&real, fs::Permissions::from_mode(0o640)).unwrap();
        let link = dir.path().join("mcp.json");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let source = read_source(&link).unwrap();
        let written = write_atomic(&source, "new", Some(&dir.path().join("state"))).unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read_to_string(&real).unwrap(), "new");
        assert_eq!(
            fs::metadata(&real).unwrap().permissions().mode() & 0o777,
            0o640
        );
        assert_eq!(fs::read_to_string(written.backup.unwrap()).unwrap(), "old");
    }
}
