//! Reading and writing client config files: the only module that touches `std::fs` for
//! them. Reads keep the BOM and bytes aside; writes happen under the file's lock
//! (`lock`), are atomic (a uniquely named temp file in the same directory, fsync, then an
//! atomic exchange where the OS has one, `swap`), keep permissions, write through
//! symlinks, keep the version they replaced in mcpctl's state directory, and never
//! overwrite a version they did not read (another writer's).
#![allow(
    clippy::disallowed_methods,
    reason = "the one module that writes and renames client files"
)]

pub mod backup;
pub mod lock;
pub mod owner;
mod swap;
mod temp;

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

pub use backup::Backup;
pub use lock::{FileLock, LockKey};
use swap::Swapped;
use temp::Temp;

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
    /// The digest of the bytes read (`digest`), computed once while reading: what the
    /// backup of this version is named by and what `undo` compares with. `None` for a
    /// missing file.
    pub digest: Option<String>,
}

/// What identifies one version of a file without reading it again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
    inode: u64,
}

impl Stamp {
    /// The file's length when it was read.
    pub fn len(&self) -> u64 {
        self.len
    }

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

    /// The text, for a document to own (no copy of a big file); what a write needs (path,
    /// BOM, stamp, digest) stays.
    pub fn take_text(&mut self) -> String {
        std::mem::take(&mut self.text)
    }

    /// The full bytes for `text`, with the BOM restored.
    /// Borrowed when there is no BOM: a many-MB file is not copied just to be hashed or
    /// compared.
    pub fn bytes_for<'a>(&self, text: &'a str) -> std::borrow::Cow<'a, [u8]> {
        match self.text_for(text) {
            std::borrow::Cow::Borrowed(text) => std::borrow::Cow::Borrowed(text.as_bytes()),
            std::borrow::Cow::Owned(text) => std::borrow::Cow::Owned(text.into_bytes()),
        }
    }

    /// [`Source::bytes_for`] as text (the bytes mcpctl writes are always UTF-8).
    pub fn text_for<'a>(&self, text: &'a str) -> std::borrow::Cow<'a, str> {
        if !self.bom {
            return std::borrow::Cow::Borrowed(text);
        }
        let mut out = String::with_capacity(text.len() + 3);
        out.push_str(BOM);
        out.push_str(text);
        std::borrow::Cow::Owned(out)
    }
}

/// Reading or writing failed.
#[derive(Debug, thiserror::Error)]
pub enum FsError {
    #[error("cannot read `{path}`: {source}")]
    Read { path: PathBuf, source: io::Error },
    #[error("`{path}` is not UTF-8 text (byte {offset})")]
    NotUtf8 {
        path: PathBuf,
        offset: usize,
        /// The version read (to tell a file caught mid-save: `changed_since`).
        stamp: Option<Stamp>,
    },
    #[error("cannot write `{path}`: {source}")]
    Write { path: PathBuf, source: io::Error },
    #[error(
        "cannot keep the previous version of `{path}` in mcpctl's state directory (`{backups}`): {source}; nothing was written"
    )]
    Backup {
        path: PathBuf,
        backups: PathBuf,
        source: io::Error,
    },
    #[error(
        "cannot record what mcpctl is about to write in its state directory (`{dir}`): {source}; nothing was written"
    )]
    Intent { dir: PathBuf, source: io::Error },
    #[error("backup `{backup}` {why}; nothing was written")]
    Unverified { backup: PathBuf, why: String },
    /// Another tool owns the file (a link into the Nix store, a read-only file).
    #[error("{0}; nothing was written")]
    Foreign(Box<owner::Foreign>),
    #[error("`{path}` changed while mcpctl was editing it")]
    Changed { path: PathBuf },
    /// An existing file that reads empty, held open for writing by another program.
    #[error("`{path}` is being written by another program (it read empty for {}s while open for writing); nothing was changed", waited.as_secs())]
    BeingWritten { path: PathBuf, waited: Duration },
    #[error("`{path}` is {kind}, not a regular file; mcpctl reads and writes only regular files")]
    NotRegular { path: PathBuf, kind: &'static str },
    #[error("cannot lock `{path}` (lock file `{sidecar}`): {source}")]
    Lock {
        path: PathBuf,
        sidecar: PathBuf,
        source: io::Error,
    },
    #[error("another mcpctl ({holder}) has been editing `{path}` for {}s", waited.as_secs())]
    Locked {
        path: PathBuf,
        holder: String,
        waited: std::time::Duration,
    },
}

impl FsError {
    /// What to do about it, where that differs from the caller's general advice.
    pub fn hint(&self) -> Option<&'static str> {
        match self {
            FsError::Backup { source, .. }
            | FsError::Intent { source, .. }
            | FsError::Lock { source, .. } => Some(state_dir_hint(source.kind())),
            FsError::Locked { .. } => {
                Some("another mcpctl is writing this file; wait for it, or end it if it hangs")
            }
            FsError::Foreign(foreign) => Some(foreign.hint()),
            FsError::BeingWritten { .. } => Some(
                "let the other program finish (close it, or wait for it to save), then run the command again",
            ),
            _ => None,
        }
    }
}

/// What to do when mcpctl's state directory refused a file: only a full disk (or quota)
/// is a matter of free space.
fn state_dir_hint(kind: io::ErrorKind) -> &'static str {
    match kind {
        io::ErrorKind::StorageFull | io::ErrorKind::QuotaExceeded => {
            "free space in mcpctl's state directory (or point MCPCTL_STATE_DIR at a disk with room), then run the command again"
        }
        io::ErrorKind::NotADirectory | io::ErrorKind::AlreadyExists => {
            "a file stands where mcpctl's state directory (or a folder in it) should be: move that file away (or point MCPCTL_STATE_DIR at a directory), then run the command again"
        }
        io::ErrorKind::PermissionDenied | io::ErrorKind::ReadOnlyFilesystem => {
            "make mcpctl's state directory writable for you (or point MCPCTL_STATE_DIR at a directory you own), then run the command again"
        }
        _ => {
            "check that mcpctl's state directory is a directory you can write to (or point MCPCTL_STATE_DIR at one), then run the command again"
        }
    }
}

/// Read a config file. A missing file is an empty source, not an error; anything but a
/// regular file (a directory, FIFO, socket or device, also behind symlinks) is
/// `FsError::NotRegular`, found without blocking and before reading a byte.
pub fn read_source(path: &Path) -> Result<Source, FsError> {
    let read_err = |source: io::Error| FsError::Read {
        path: path.to_path_buf(),
        source,
    };
    let mut file = match open_nonblocking(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Ok(Source {
                path: path.to_path_buf(),
                text: String::new(),
                bom: false,
                stamp: None,
                digest: None,
            });
        }
        Err(e) => {
            // Windows cannot open a directory as a file ("Access denied"): say what it is
            // rather than blame its permissions.
            if let Ok(meta) = fs::metadata(path) {
                regular(path, &meta)?;
            }
            return Err(read_err(e));
        }
    };
    let meta = file.metadata().map_err(read_err)?;
    regular(path, &meta)?;
    // Slack for the entry an edit splices in, so a big file is not reallocated (copied)
    // to grow by a few hundred bytes. What `std::fs::read` does, on the file opened above
    // (opening it again could block on a FIFO put in its place).
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0) + EDIT_SLACK);
    advise_huge_pages(&mut bytes);
    file.read_to_end(&mut bytes).map_err(read_err)?;
    let digest = Some(digest(&bytes));
    let mut text = String::from_utf8(bytes).map_err(|e| FsError::NotUtf8 {
        path: path.to_path_buf(),
        offset: e.utf8_error().valid_up_to(),
        stamp: Some(Stamp::of(&meta)),
    })?;
    let bom = text.starts_with(BOM);
    if bom {
        text.drain(..BOM.len());
    }
    Ok(Source {
        path: path.to_path_buf(),
        text,
        bom,
        stamp: Some(Stamp::of(&meta)),
        digest,
    })
}

/// How long an existing file that reads empty is waited for while another program has
/// it open for writing (truncated, not yet written back: `fs.writeFileSync`, an editor):
/// past this it is reported as being written (`FsError::BeingWritten`).
const SETTLE_WRITER: Duration = Duration::from_secs(5);
/// Where the OS cannot say whether another program has the file open for writing: how
/// long an empty file must hold still before it is read as empty (longer for one mcpctl
/// knows had content, `expect_content`).
const SETTLE_STILL: Duration = Duration::from_secs(1);
const SETTLE_KNOWN: Duration = Duration::from_secs(3);
const SETTLE_STEP: Duration = Duration::from_millis(10);
/// After this long, the caller's `waiting` is told (once) so it can name the file.
const SETTLE_NOTICE: Duration = Duration::from_millis(300);

/// `read_source`, but an existing file that reads empty (0 bytes, or only whitespace) is
/// never taken as an empty document while another program may be half-way through an
/// in-place write (truncate first, write second: the gap is not an empty config, and a
/// write in it would replace the file with only mcpctl's entry). Where the OS says
/// whether a writer has the file open (Linux: a read lease cannot be taken then), it is
/// waited for until it closes the file, up to `SETTLE_WRITER`; elsewhere the file must
/// hold still for `SETTLE_STILL` (`SETTLE_KNOWN` when `expect_content`: mcpctl wrote it).
/// Content that arrives is taken once it held still between two looks. `waiting` is
/// called once when the wait passes `SETTLE_NOTICE`.
pub fn read_settled(
    path: &Path,
    expect_content: impl FnOnce() -> bool,
    waiting: impl FnOnce(),
) -> Result<Source, FsError> {
    let source = read_source(path)?;
    if !source.exists() || !source.text.trim().is_empty() {
        return Ok(source);
    }
    let still_for = if expect_content() {
        SETTLE_KNOWN
    } else {
        SETTLE_STILL
    };
    let started = Instant::now();
    let mut still_since = started;
    let mut waiting = Some(waiting);
    let mut last = source;
    loop {
        match writer_has_open(path) {
            // Nobody is writing it: empty is what it is (a file mcpctl knows had content
            // must also hold still: a writer may be between two opens).
            Some(false) if still_for == SETTLE_STILL || still_since.elapsed() >= still_for => {
                return Ok(last);
            }
            Some(true) if started.elapsed() >= SETTLE_WRITER => {
                return Err(FsError::BeingWritten {
                    path: path.to_path_buf(),
                    waited: started.elapsed(),
                });
            }
            None if still_since.elapsed() >= still_for => return Ok(last),
            _ => {}
        }
        if started.elapsed() >= SETTLE_NOTICE
            && let Some(waiting) = waiting.take()
        {
            waiting();
        }
        std::thread::sleep(SETTLE_STEP);
        let again = read_source(path)?;
        let settled = again.stamp == last.stamp;
        let filled = !again.text.trim().is_empty();
        if !settled {
            still_since = Instant::now();
        }
        last = again;
        if filled && settled {
            // Content arrived and held still between two looks.
            return Ok(last);
        }
    }
}

/// How long a read that does not parse is read again while the file is being rewritten
/// (`may_be_mid_write`): a save of a many-MB file takes a fraction of this.
pub const REREAD_FOR: Duration = Duration::from_secs(3);
/// Between two such reads.
pub const REREAD_STEP: Duration = SETTLE_STEP;

/// Whether `source` (a read) may have caught its file in the middle of another program's
/// save, so that text which does not parse says nothing about the file: it changed since
/// the read, or (Linux) another process has it open for writing now.
pub fn may_be_mid_write(source: &Source) -> bool {
    source.exists() && changed_since(&source.path, source.stamp.as_ref())
}

/// Whether the file at `path` is no longer the version `stamp` (read earlier), or
/// (Linux) another process has it open for writing now.
pub fn changed_since(path: &Path, stamp: Option<&Stamp>) -> bool {
    stamp_of_path(path).as_ref() != stamp || writer_has_open(path) == Some(true)
}

/// Whether another process has `path` open for writing now. Linux: a read lease
/// (`F_SETLEASE`, `F_RDLCK`) is refused with `EAGAIN` exactly then, and is released at
/// once (a writer's `open` meanwhile waits those microseconds); `None` where the OS or the file system cannot say (no lease support, not the
/// file's owner).
#[cfg(target_os = "linux")]
fn writer_has_open(path: &Path) -> Option<bool> {
    /// `F_SETSIG` (asm-generic/fcntl.h; the `libc` crate does not export it for every
    /// Linux target).
    const F_SETSIG: libc::c_int = 10;
    use std::os::fd::AsRawFd;
    let file = open_nonblocking(path).ok()?;
    let fd = file.as_raw_fd();
    // A writer opening the file while the lease is held "breaks" it, and the kernel
    // signals the holder: SIGIO by default, which would end mcpctl. SIGURG is ignored
    // unless handled, and nothing in mcpctl handles it.
    // SAFETY: plain fcntl calls on a descriptor we own; no memory is passed.
    if unsafe { libc::fcntl(fd, F_SETSIG, libc::SIGURG) } != 0 {
        return None;
    }
    // SAFETY: as above.
    let taken = unsafe { libc::fcntl(fd, libc::F_SETLEASE, libc::F_RDLCK) };
    if taken == 0 {
        // SAFETY: as above.
        unsafe { libc::fcntl(fd, libc::F_SETLEASE, libc::F_UNLCK) };
        return Some(false);
    }
    match io::Error::last_os_error().raw_os_error() {
        Some(libc::EAGAIN) => Some(true),
        _ => None,
    }
}

#[cfg(not(target_os = "linux"))]
fn writer_has_open(_path: &Path) -> Option<bool> {
    None
}

/// Open for reading without blocking on a FIFO (whose `open` waits for a writer).
fn open_nonblocking(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    options.open(path).map_err(|e| {
        if e.raw_os_error() == Some(ELOOP) {
            io::Error::other(format!(
                "more than {MAX_SYMLINKS} symbolic links (a symlink loop?)"
            ))
        } else {
            e
        }
    })
}

#[cfg(unix)]
const ELOOP: i32 = libc::ELOOP;
#[cfg(not(unix))]
const ELOOP: i32 = -1;

/// `Ok` for a regular file; else what it is, named.
fn regular(path: &Path, meta: &fs::Metadata) -> Result<(), FsError> {
    if meta.is_file() {
        return Ok(());
    }
    let kind = if meta.is_dir() {
        "a directory"
    } else {
        special_kind(meta)
    };
    Err(FsError::NotRegular {
        path: path.to_path_buf(),
        kind,
    })
}

#[cfg(unix)]
fn special_kind(meta: &fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let kind = meta.file_type();
    if kind.is_fifo() {
        "a FIFO (named pipe)"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}

#[cfg(not(unix))]
fn special_kind(_meta: &fs::Metadata) -> &'static str {
    "not a regular file"
}

/// `Err(FsError::Foreign)` when another tool owns the file at `path` (`owner`): a link
/// into the Nix store, a read-only file. Every write of a client file asks first.
pub fn refuse_foreign(path: &Path) -> Result<(), FsError> {
    match owner::foreign(path) {
        Some(foreign) => Err(FsError::Foreign(Box::new(foreign))),
        None => Ok(()),
    }
}

/// Why a file that must be root's alone is not (POSIX: the file, and every folder above it,
/// owned by root and not writable by group or others — the rule Gemini CLI applies to its
/// system settings file before it reads it), naming the first path that breaks it;
/// `None` when it holds or the file does not exist. Windows: `None` (the rule there is an
/// ACL check mcpctl does not make).
#[cfg(unix)]
pub fn not_root_only(path: &Path) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    if !exists(path) {
        return None;
    }
    let mut paths = vec![path.to_path_buf()];
    if let Ok(real) = fs::canonicalize(path)
        && real != path
    {
        paths.push(real);
    }
    let mut checked = std::collections::HashSet::new();
    for start in &paths {
        for at in start.ancestors().filter(|a| !a.as_os_str().is_empty()) {
            if !checked.insert(at.to_path_buf()) {
                continue;
            }
            let what = if at == start.as_path() {
                "file"
            } else {
                "folder"
            };
            let meta = match fs::metadata(at) {
                Ok(meta) => meta,
                Err(e) => return Some(format!("`{}` cannot be read: {e}", at.display())),
            };
            if meta.uid() != 0 {
                return Some(format!(
                    "the {what} `{}` is not owned by root (uid {})",
                    at.display(),
                    meta.uid()
                ));
            }
            if meta.mode() & 0o022 != 0 {
                return Some(format!(
                    "the {what} `{}` is writable by group or others (mode {:o})",
                    at.display(),
                    meta.mode() & 0o7777
                ));
            }
        }
    }
    None
}

#[cfg(not(unix))]
pub fn not_root_only(_path: &Path) -> Option<String> {
    None
}

/// Whether something (a file, or anything else, or a broken symlink chain) is at `path`:
/// `false` only for "no such file", so odd files are reported instead of skipped.
pub fn exists(path: &Path) -> bool {
    match fs::metadata(path) {
        Ok(_) => true,
        Err(e) => e.kind() != io::ErrorKind::NotFound,
    }
}

/// mcpctl's state directory (backups, locks, ledger, journal): `$MCPCTL_STATE_DIR` if
/// given, else the platform state directory (`~/.local/state/mcpctl` on Linux).
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

/// How many symlinks a path may go through (Linux's own limit, `ELOOP` beyond).
const MAX_SYMLINKS: usize = 40;

/// Follow symlinks to the file that really holds the bytes (which may not exist yet);
/// past `MAX_SYMLINKS` (a loop), the path as given.
fn real_target(path: &Path) -> PathBuf {
    follow_links(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Follow symlinks to the file that really holds the bytes (which may not exist yet).
fn follow_links(path: &Path) -> Result<PathBuf, FsError> {
    let mut current = path.to_path_buf();
    for _ in 0..=MAX_SYMLINKS {
        match fs::read_link(&current) {
            Ok(target) => {
                current = if target.is_absolute() {
                    target
                } else {
                    current.parent().map_or(target.clone(), |p| p.join(&target))
                };
            }
            Err(_) => return Ok(current),
        }
    }
    Err(FsError::Read {
        path: path.to_path_buf(),
        source: io::Error::other(format!(
            "more than {MAX_SYMLINKS} symbolic links (a symlink loop?)"
        )),
    })
}

/// What a write did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// Where the version that was replaced is kept (none for a new file).
    pub backup: Option<PathBuf>,
    /// The directory whose fsync the caller took on (`write_atomic_when` with
    /// `dir_later`): the new name is durable once it is synced (`sync_dirs`).
    pub unsynced: Option<PathBuf>,
}

/// Replace `source.path` with `text` (and the source's BOM) atomically, under `lock`
/// (taken before `source` was read; see `fs::lock`).
///
/// Fails with `FsError::Changed` when the file is no longer the version that was read
/// (another program wrote it): the caller re-reads and re-applies its edit. Where the OS
/// can exchange two files atomically (`fs::swap`), that check is exact: the new bytes
/// are swapped in, and if what came out is not the version that was read, the other
/// writer's version is swapped back and `Changed` returned. Elsewhere the check is a
/// stat just before a plain rename (a window of microseconds). The version replaced is
/// kept in `backups` (moved there, so a big file costs no copy on one file system).
pub fn write_atomic(
    lock: &FileLock,
    source: &Source,
    text: &str,
    backups: Option<&Path>,
) -> Result<Written, FsError> {
    write_atomic_when(lock, source, text, backups, false, || Ok(()))
}

/// `write_atomic`, calling `ready` once the new bytes are written to the temp file (their
/// writeback started, their fsync not yet waited for) and before anything else (the
/// backup, the swap): `ready` makes what must be durable before the file changes (the
/// command's intent) durable, side by side with the new bytes; the temp's fsync follows
/// it. An error from `ready` changes nothing. With `dir_later`, the directory's fsync
/// after the swap is left to the caller (`Written::unsynced`), who must do it before
/// anything else changes and before it says the write is done.
pub fn write_atomic_when(
    lock: &FileLock,
    source: &Source,
    text: &str,
    backups: Option<&Path>,
    dir_later: bool,
    ready: impl FnOnce() -> Result<(), FsError>,
) -> Result<Written, FsError> {
    let target = lock.key().real_path().to_path_buf();
    let write_err = |e: io::Error| FsError::Write {
        path: source.path.clone(),
        source: e,
    };
    if LockKey::of(&source.path)? != *lock.key() {
        return Err(write_err(io::Error::other(format!(
            "internal error: the lock held is for `{}`",
            target.display()
        ))));
    }
    let dir = target
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if let Ok(meta) = fs::metadata(&target) {
        regular(&source.path, &meta)?;
    }
    fs::create_dir_all(dir).map_err(write_err)?;
    temp::sweep_stale(&target);
    // The new bytes go to the disk (writeback started, not waited for) while `ready`
    // makes the intent durable; the fsync after it then finds them written, and on a
    // journaling file system the intent's commit carried the temp's allocation too.
    let (temp, file) = write_temp(&target, source, text).map_err(write_err)?;
    ready()?;
    let ours = sync_temp(&target, &file).map_err(write_err)?;
    drop(file);
    if current_stamp(&target).map_err(write_err)? != source.stamp {
        return Err(FsError::Changed {
            path: source.path.clone(),
        });
    }
    before_swap();
    let Some(read_stamp) = &source.stamp else {
        // A new file: only if nobody created one meanwhile.
        if !swap::create_new(&temp.path, &target).map_err(write_err)? {
            return Err(FsError::Changed {
                path: source.path.clone(),
            });
        }
        crate::fault::step_at("swapped", &target).map_err(write_err)?;
        let unsynced = settle_dir(dir, dir_later, &target).map_err(write_err)?;
        return Ok(Written {
            backup: None,
            unsynced,
        });
    };
    // The version being replaced is kept before the file changes: no room for it, no write.
    let backup = keep_before(source, &target, read_stamp, backups)?;
    let drop_backup = || {
        if let Some(backup) = &backup {
            let _ = fs::remove_file(backup);
        }
    };
    match swap::swap(&temp.path, &target) {
        Ok(Swapped::Done { old }) => {
            crate::fault::step_at("swapped", &target).map_err(write_err)?;
            if stamp_of_path(&old).as_ref() != Some(read_stamp) {
                // Another program replaced the file after the last look: put its
                // version back and start over from it.
                restore(&old, &target, &ours, backups);
                drop_backup();
                return Err(FsError::Changed {
                    path: source.path.clone(),
                });
            }
            let unsynced = settle_dir(dir, dir_later, &target).map_err(write_err)?;
            // A writer that had the file open (truncate, then write) may have written
            // into the version displaced just now: look again before dropping it.
            if stamp_of_path(&old).as_ref() != Some(read_stamp) {
                restore(&old, &target, &ours, backups);
                drop_backup();
                return Err(FsError::Changed {
                    path: source.path.clone(),
                });
            }
            if let Some(backup) = &backup
                && stamp_of_path(backup).is_some_and(|b| b.inode == read_stamp.inode)
            {
                backup::narrow_link(&old, &target);
            }
            let _ = fs::remove_file(&old);
            Ok(Written { backup, unsynced })
        }
        Ok(Swapped::Unsupported) => {
            swap::rename(&temp.path, &target).map_err(|e| {
                drop_backup();
                write_err(e)
            })?;
            let unsynced = settle_dir(dir, dir_later, &target).map_err(write_err)?;
            Ok(Written { backup, unsynced })
        }
        Err(e) => {
            drop_backup();
            Err(write_err(e))
        }
    }
}

/// Replace one of mcpctl's own state files (the ledger) with `text`, under `lock`: a temp
/// file written and fsynced, then renamed over it, with no directory fsync (the caller
/// says why the name may lag) and no backup. Fails with `FsError::Changed` when the file
/// is no longer the version read (edited by hand meanwhile).
pub fn write_own(lock: &FileLock, source: &Source, text: &str) -> Result<(), FsError> {
    let target = lock.key().real_path().to_path_buf();
    let write_err = |e: io::Error| FsError::Write {
        path: source.path.clone(),
        source: e,
    };
    if let Some(dir) = target.parent() {
        fs::create_dir_all(dir).map_err(write_err)?;
    }
    temp::sweep_stale(&target);
    let (temp, _) = prepare_temp(&target, source, text).map_err(write_err)?;
    if current_stamp(&target).map_err(write_err)? != source.stamp {
        return Err(FsError::Changed {
            path: source.path.clone(),
        });
    }
    swap::rename(&temp.path, &target).map_err(write_err)?;
    crate::fault::step_at("swapped", &target).map_err(write_err)
}

/// Delete `source.path` (a file mcpctl created and has emptied again), under `lock`, only
/// if it is still the version that was read: it is renamed aside (atomic: whatever version
/// is there moves), checked, and put back if another program wrote it meanwhile
/// (`FsError::Changed`). The deleted version is kept in `backups`, like a replaced one.
pub fn delete_atomic(
    lock: &FileLock,
    source: &Source,
    backups: Option<&Path>,
) -> Result<Written, FsError> {
    let target = lock.key().real_path().to_path_buf();
    let write_err = |e: io::Error| FsError::Write {
        path: source.path.clone(),
        source: e,
    };
    let changed = || FsError::Changed {
        path: source.path.clone(),
    };
    let Some(read_stamp) = &source.stamp else {
        return Ok(Written {
            backup: None,
            unsynced: None,
        });
    };
    if current_stamp(&target).map_err(write_err)?.as_ref() != Some(read_stamp) {
        return Err(changed());
    }
    let dir = target
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let backup = keep_before(source, &target, read_stamp, backups)?;
    let drop_backup = || {
        if let Some(backup) = &backup {
            let _ = fs::remove_file(backup);
        }
    };
    let (aside, _) = Temp::create(&target).map_err(write_err)?;
    before_swap();
    if let Err(e) = swap::rename(&target, &aside.path) {
        drop_backup();
        return Err(write_err(e));
    }
    crate::fault::step_at("swapped", &target).map_err(write_err)?;
    if stamp_of_path(&aside.path).as_ref() != Some(read_stamp) {
        // Another program's version: back in place, unless yet another one is there now
        // (then this one is kept as a backup).
        drop_backup();
        if !swap::create_new(&aside.path, &target).map_err(write_err)?
            && let Some(backups) = backups
        {
            let _ = keep_moved(&aside.path, &target, backups);
        }
        return Err(changed());
    }
    sync_dir(dir);
    Ok(Written {
        backup,
        unsynced: None,
    })
}

/// Keep the version `source` read (stamp `read`) of `target` as a backup before it is
/// replaced or deleted: no room for it (or no permission) is `FsError::Backup`, and a
/// file that is no longer that version is `FsError::Changed`.
fn keep_before(
    source: &Source,
    target: &Path,
    read: &Stamp,
    backups: Option<&Path>,
) -> Result<Option<PathBuf>, FsError> {
    let Some(backups) = backups else {
        return Ok(None);
    };
    match backup::keep(target, source.digest.as_deref(), read, backups) {
        Ok(Some(kept)) => Ok(Some(kept)),
        Ok(None) => Err(FsError::Changed {
            path: source.path.clone(),
        }),
        Err(e) => Err(FsError::Backup {
            path: source.path.clone(),
            backups: backups.to_path_buf(),
            source: e,
        }),
    }
}

/// Write the temp file: the target's permissions (private for a new file), BOM, text,
/// fsync. Returns it with the stamp of our version.
fn prepare_temp(target: &Path, source: &Source, text: &str) -> io::Result<(Temp, Stamp)> {
    let (temp, file) = write_temp(target, source, text)?;
    let ours = sync_temp(target, &file)?;
    Ok((temp, ours))
}

/// Write the temp file (the target's permissions, private for a new file; BOM, text) and
/// start its writeback without waiting for it (`start_writeback`):
/// `sync_temp` is what makes it durable.
fn write_temp(target: &Path, source: &Source, text: &str) -> io::Result<(Temp, File)> {
    let (temp, mut file) = Temp::create(target)?;
    if let Ok(meta) = fs::metadata(target) {
        keep_owner(&file, &meta);
        file.set_permissions(meta.permissions())?;
    } else {
        restrict_new_file(&file)?;
    }
    if source.bom {
        file.write_all(BOM.as_bytes())?;
    }
    file.write_all(text.as_bytes())?;
    start_writeback(&file);
    Ok((temp, file))
}

/// Make the temp file durable (fsync); the stamp of our version.
fn sync_temp(target: &Path, file: &File) -> io::Result<Stamp> {
    file.sync_all()?;
    crate::fault::step_at("synced", target)?;
    Ok(Stamp::of(&file.metadata()?))
}

/// Ask the kernel to start writing `file`'s dirty pages out now (Linux:
/// `sync_file_range(SYNC_FILE_RANGE_WRITE)`, which does not wait), so that they are on
/// their way while another durable step runs (the intent's `fdatasync`): that step's
/// journal commit then also carries the file's block allocation, and the file's own fsync
/// after it has little left to wait for. Only advice: the fsync that follows is what
/// guarantees anything, and reports any error; elsewhere it does nothing.
#[cfg(target_os = "linux")]
fn start_writeback(file: &File) {
    use std::os::fd::AsRawFd;
    // SAFETY: a plain syscall on an open descriptor; it reads and writes no memory of ours.
    unsafe {
        libc::sync_file_range(file.as_raw_fd(), 0, 0, libc::SYNC_FILE_RANGE_WRITE);
    }
}

#[cfg(not(target_os = "linux"))]
fn start_writeback(_file: &File) {}

/// Below this a read buffer keeps ordinary pages.
#[cfg(target_os = "linux")]
const HUGE_READ: usize = 4 << 20;

/// Ask for huge pages for a big file's fresh read buffer (Linux: `madvise(MADV_HUGEPAGE)`,
/// which the usual `madvise` mode of transparent huge pages waits for): reading 17 MB into
/// 4 KiB pages takes about 4,400 page faults, into 2 MiB pages a few dozen. Only advice:
/// the contents are the same either way; elsewhere it does nothing.
#[cfg(target_os = "linux")]
fn advise_huge_pages(buffer: &mut Vec<u8>) {
    const PAGE: usize = 4096;
    if buffer.capacity() < HUGE_READ {
        return;
    }
    let start = (buffer.as_mut_ptr() as usize).next_multiple_of(PAGE);
    let end = (buffer.as_mut_ptr() as usize + buffer.capacity()) / PAGE * PAGE;
    // SAFETY: advice on whole pages inside our own allocation; it changes no memory.
    unsafe {
        libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_buffer: &mut Vec<u8>) {}

/// After a swap brought out a version that is not the one read: swap back so the other
/// writer's file is in place again. If yet another writer replaced ours meanwhile, its
/// (newer) version goes back instead. A foreign version that ends up out of place is
/// kept as a backup; ours is deleted.
fn restore(old: &Path, target: &Path, ours: &Stamp, backups: Option<&Path>) {
    let mut out = old.to_path_buf();
    let mut expected = ours.clone();
    for _ in 0..4 {
        let before = stamp_of_path(target);
        let Ok(Swapped::Done { old: back }) = swap::swap(&out, target) else {
            return;
        };
        out = back;
        let came_back = stamp_of_path(&out);
        if came_back.as_ref() == Some(&expected) {
            if expected == *ours {
                let _ = fs::remove_file(&out);
            } else if let Some(backups) = backups {
                let _ = keep_moved(&out, target, backups);
            }
            return;
        }
        // A newer foreign version came out: it goes back in next round.
        match before {
            Some(stamp) => expected = stamp,
            None => return,
        }
    }
}

#[cfg(test)]
thread_local! {
    /// Tests: run in the gap between the last look and the swap (another writer's moment).
    static BEFORE_SWAP: std::cell::RefCell<Option<Box<dyn FnOnce()>>> =
        std::cell::RefCell::new(None);
}

fn before_swap() {
    #[cfg(test)]
    BEFORE_SWAP.with(|hook| {
        if let Some(hook) = hook.borrow_mut().take() {
            hook();
        }
    });
}

fn current_stamp(path: &Path) -> io::Result<Option<Stamp>> {
    match fs::metadata(path) {
        Ok(meta) => Ok(Some(Stamp::of(&meta))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

fn stamp_of_path(path: &Path) -> Option<Stamp> {
    fs::symlink_metadata(path).ok().map(|m| Stamp::of(&m))
}

/// Whether `dir` and the (existing or future) file `path` are on one file system, whose
/// journal then orders their changes.
pub fn same_file_system(dir: &Path, path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let target = real_target(path);
        let parent = target.parent().filter(|p| !p.as_os_str().is_empty());
        match (fs::metadata(dir), parent.map(fs::metadata)) {
            (Ok(a), Some(Ok(b))) => a.dev() == b.dev(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (dir, path);
        false
    }
}

/// After a swap: fsync `dir` now (and pass the "dir" fault step), or leave it to the
/// caller (`dir_later`), who gets it back.
fn settle_dir(dir: &Path, dir_later: bool, target: &Path) -> io::Result<Option<PathBuf>> {
    if dir_later {
        return Ok(Some(dir.to_path_buf()));
    }
    sync_dir(dir);
    crate::fault::step_at("dir", target)?;
    Ok(None)
}

/// Make the names in `dirs` durable: the fsyncs `write_atomic_when` left to its caller.
pub fn sync_dirs(dirs: &[PathBuf]) -> io::Result<()> {
    for dir in dirs {
        sync_dir(dir);
        crate::fault::step_at("dir", dir)?;
    }
    Ok(())
}

/// Make the name of `path` durable (fsync its directory).
pub fn sync_dir_of(path: &Path) {
    if let Some(dir) = path.parent() {
        sync_dir(dir);
    }
}

fn sync_dir(dir: &Path) {
    if let Ok(dir) = File::open(dir) {
        let _ = dir.sync_all();
    }
}

/// Give the new version the owner of the one it replaces (root writing a user's file);
/// anyone else may not change owners and needs not.
#[cfg(unix)]
fn keep_owner(file: &File, meta: &fs::Metadata) {
    use std::os::unix::fs::MetadataExt;
    let _ = std::os::unix::fs::fchown(file, Some(meta.uid()), Some(meta.gid()));
}

#[cfg(not(unix))]
fn keep_owner(_file: &File, _meta: &fs::Metadata) {}

/// Keep a version that is out of place already (a foreign one a swap brought out) as a
/// backup: its bytes are read, so the backup's name carries their digest.
fn keep_moved(old: &Path, target: &Path, backups: &Path) -> io::Result<PathBuf> {
    let bytes = fs::read(old)?;
    let kept = backup::keep_bytes(target, &bytes, backups)?;
    let _ = fs::remove_file(old);
    Ok(kept)
}

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

/// The backups of the file at `path` (symlinks followed), newest first.
pub fn backups_of(backups: &Path, path: &Path) -> Vec<Backup> {
    backup::of(backups, path)
}

/// The prefix of every digest mcpctl writes (journal, intents, backup names).
pub const DIGEST_PREFIX: &str = "xxh3:";

/// The digest that names one version of a file: XXH3-128. It tells versions apart (did
/// the file change since mcpctl wrote it? is this backup the bytes that were kept?); it
/// is not a defence against someone who can write the file, who could change it anyway.
pub fn digest(bytes: &[u8]) -> String {
    let hash = xxhash_rust::xxh3::xxh3_128(bytes);
    format!("{DIGEST_PREFIX}{hash:032x}")
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
/// made canonical (the file itself may not exist yet). The same key `lock` uses.
pub fn identity(path: &Path) -> PathBuf {
    LockKey::of(path).map_or_else(|_| path.to_path_buf(), |key| key.real_path().to_path_buf())
}

/// `a` and `b` name the same file: equal spellings, or the same [`identity`] (a HOME
/// reached through a symlink, a project directory that is HOME by its real path).
pub fn same_file(a: &Path, b: &Path) -> bool {
    a == b || identity(a) == identity(b)
}

/// Hold an exclusive advisory lock on `path` (created if missing) until the returned file
/// is dropped. Blocks while another mcpctl holds it.
pub fn lock_exclusive(path: &Path) -> Result<File, FsError> {
    let err = |source: io::Error| FsError::Write {
        path: path.to_path_buf(),
        source,
    };
    crate::fault::step_at("lock", path).map_err(err)?;
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

    /// The input the pinned digests below are of: `n` bytes of a fixed pattern.
    fn pattern(n: usize) -> Vec<u8> {
        (0..n).map(|i| ((i * 31 + 7) % 251) as u8).collect()
    }

    /// The digests mcpctl writes into the journal, intents and backup names are compared
    /// with files by later versions of mcpctl: a hasher update that changed a value would
    /// make every recorded version look foreign (`undo` refuses, `remove` keeps entries).
    /// So they are pinned to XXH3-128 as its specification defines it: the values were
    /// computed by the reference C library (Python's `xxhash` 3.x), not by the crate
    /// under test, at one length in each of XXH3's code paths (0, 1–3, 4–8, 9–16,
    /// 17–128, 129–240, longer in stripes and blocks, and a tail past a block).
    #[test]
    fn only_a_full_disk_is_blamed_on_free_space() {
        let backup = |kind: io::ErrorKind| FsError::Backup {
            path: PathBuf::from("/c.json"),
            backups: PathBuf::from("/s/backups"),
            source: io::Error::new(kind, "x"),
        };
        assert!(
            backup(io::ErrorKind::StorageFull)
                .hint()
                .unwrap()
                .contains("free space")
        );
        for kind in [
            io::ErrorKind::InvalidFilename,
            io::ErrorKind::PermissionDenied,
            io::ErrorKind::Other,
        ] {
            let hint = backup(kind).hint().unwrap();
            assert!(!hint.contains("free space"), "{kind:?}: {hint}");
            assert!(hint.contains("MCPCTL_STATE_DIR"), "{kind:?}: {hint}");
        }
    }

    #[test]
    fn digests_are_the_xxh3_128_specification_values() {
        let pinned = [
            (0, "99aa06d3014798d86001c324468d497f"),
            (1, "495b62073ef70ca44c5cca45d0f4811f"),
            (3, "46f66cb93538156515f7093b173d005c"),
            (4, "7fefeeffb4d0eab3b987ca5d9241572a"),
            (8, "803c675a846cc6c256bb836ceb6d4baa"),
            (9, "365644c233ffe5c213af585c9bf5827d"),
            (16, "da917c385cc874c00d463cb04ceffbaf"),
            (17, "d443578f2c4e2fb495c34448580e19c8"),
            (128, "22c34350373a38ae5b77925b2c683a12"),
            (129, "c4a7d8f7893f2090d6d9e73553568be1"),
            (240, "e29d70b8920fd24bc6ed4333f79384f8"),
            (241, "f91b3cb8ed0fa91a07525dbc14902c7f"),
            (1024, "f53a1b1e9f1efedfe2898655db7bc9ee"),
            (4096, "92c9e665ac5b016d04a1779c9e7ddcd7"),
            (65536, "0906745d5eda3e1e804c62b879e03431"),
            (1_048_577, "c1bd461e3f36e68a984c81cf9b480bec"),
        ];
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        for (n, hex) in pinned {
            let want = format!("{DIGEST_PREFIX}{hex}");
            let bytes = pattern(n);
            assert_eq!(digest(&bytes), want, "digest of {n} bytes");
            // The same value from the read: what is recorded when writing is what a
            // later read computes.
            // (The pattern is ASCII below 128 only in part: keep to files that are UTF-8.)
            let text: String = bytes.iter().map(|b| char::from(b % 128)).collect();
            fs::write(&path, &text).unwrap();
            let source = read_source(&path).unwrap();
            assert_eq!(
                source.digest.as_deref(),
                Some(digest(text.as_bytes()).as_str())
            );
        }
        // A BOM is part of the bytes digested, by the read and by the write alike.
        let with_bom = "\u{feff}{\"a\":1}\r\n";
        fs::write(&path, with_bom).unwrap();
        let source = read_source(&path).unwrap();
        let want = format!("{DIGEST_PREFIX}7c5b7cd7e6c96d4b2cfd604f86819a4b");
        assert_eq!(source.digest.as_deref(), Some(want.as_str()));
        assert_eq!(digest(&source.bytes_for("{\"a\":1}\r\n")), want);
    }

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
        let lock = lock::acquire(&path, &dir.path().join("state")).unwrap();
        write_atomic(&lock, &source, "{\"a\":1}\r\n", None).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"\xef\xbb\xbf{\"a\":1}\r\n");
    }

    /// A big file (over a megabyte) reads with its BOM split off, the digest of all its
    /// bytes, and bytes that are not UTF-8 refused at the first one.
    #[test]
    fn a_big_file_reads_with_its_bom_digest_and_first_bad_byte() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.json");
        let body = format!(
            "{{\"history\": \"{}\", \"mcpServers\": {{}}}}\r\n",
            "é✓x".repeat(200_000)
        );
        let bytes = [BOM.as_bytes(), body.as_bytes()].concat();
        fs::write(&path, &bytes).unwrap();
        let source = read_source(&path).unwrap();
        assert!(source.bom);
        assert_eq!(source.text, body);
        assert_eq!(source.digest.as_deref(), Some(digest(&bytes).as_str()));
        assert_eq!(source.bytes_for(&source.text), bytes);
        let mut bad = bytes.clone();
        bad[1_000_001] = 0xff;
        fs::write(&path, &bad).unwrap();
        let want = String::from_utf8(bad.clone())
            .unwrap_err()
            .utf8_error()
            .valid_up_to();
        assert!(matches!(
            read_source(&path),
            Err(FsError::NotUtf8 { offset, .. }) if offset == want
        ));
    }

    #[test]
    fn write_refuses_when_file_changed_since_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.json");
        fs::write(&path, "{}").unwrap();
        let lock = lock::acquire(&path, &dir.path().join("state")).unwrap();
        let source = read_source(&path).unwrap();
        fs::write(&path, "{\"x\":1}").unwrap();
        assert!(matches!(
            write_atomic(&lock, &source, "{\"y\":1}", None),
            Err(FsError::Changed { .. })
        ));
        assert_eq!(fs::read_to_string(&path).unwrap(), "{\"x\":1}");
    }

    /// Another program replaces the file by rename after mcpctl's last look: its version
    /// stays, ours is not written, and the caller is told to start over.
    #[cfg(any(target_os = "linux", target_os = "macos"))]
    #[test]
    fn foreign_rename_in_the_last_gap_is_never_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        let path = dir.path().join("c.json");
        fs::write(&path, "read").unwrap();
        let lock = lock::acquire(&path, &state).unwrap();
        let source = read_source(&path).unwrap();
        let foreign = path.clone();
        BEFORE_SWAP.with(|h| {
            *h.borrow_mut() = Some(Box::new(move || {
                let temp = foreign.with_file_name("foreign.tmp");
                fs::write(&temp, "foreign").unwrap();
                fs::rename(&temp, &foreign).unwrap();
            }));
        });
        let result = write_atomic(&lock, &source, "ours", Some(&state.join("backups")));
        assert!(matches!(result, Err(FsError::Changed { .. })), "{result:?}");
        assert_eq!(fs::read_to_string(&path).unwrap(), "foreign");
        let left: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left.len(), 2, "only c.json and state/: {left:?}");
        // The retry reads the foreign version and writes on top of it, keeping it.
        let source = read_source(&path).unwrap();
        let written =
            write_atomic(&lock, &source, "foreign+ours", Some(&state.join("backups"))).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "foreign+ours");
        assert_eq!(
            fs::read_to_string(written.backup.unwrap()).unwrap(),
            "foreign"
        );
    }

    #[test]
    fn file_created_by_another_program_in_the_last_gap_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new.json");
        let lock = lock::acquire(&path, &dir.path().join("state")).unwrap();
        let source = read_source(&path).unwrap();
        let foreign = path.clone();
        BEFORE_SWAP.with(|h| {
            *h.borrow_mut() = Some(Box::new(move || fs::write(&foreign, "theirs").unwrap()));
        });
        let result = write_atomic(&lock, &source, "ours", None);
        assert!(matches!(result, Err(FsError::Changed { .. })), "{result:?}");
        assert_eq!(fs::read_to_string(&path).unwrap(), "theirs");
    }

    #[test]
    fn a_write_keeps_a_backup_and_prunes_none() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        let path = dir.path().join("c.json");
        fs::write(&path, "0").unwrap();
        let lock = lock::acquire(&path, &state).unwrap();
        for i in 1..=15 {
            let source = read_source(&path).unwrap();
            write_atomic(&lock, &source, &i.to_string(), Some(&state)).unwrap();
        }
        // Pruning is the journal's business (`backup::prune`, once a command is recorded).
        assert_eq!(backups_of(&state, &path).len(), 15);
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
        let lock = lock::acquire(&link, &dir.path().join("lockstate")).unwrap();
        let source = read_source(&link).unwrap();
        let written = write_atomic(&lock, &source, "new", Some(&dir.path().join("state"))).unwrap();
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
