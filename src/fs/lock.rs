//! The lock every mcpctl process takes before it reads a file it is going to write, and
//! keeps until the rename is done: two `mcpctl add` on one file never lose each other's
//! entry. It is an advisory lock (`flock` on Unix, `LockFileEx` on Windows, both through
//! `std::fs::File::lock`) on a sidecar file in mcpctl's state directory, named after the
//! file's real path (symlinks followed, directories canonical), so a file reached through
//! two spellings or a symlink is one lock. Never a lock file beside the client's file.
//!
//! Use: `let lock = fs::lock::acquire(&path, state_dir)?;` then `lock.read()`, edit, and
//! `fs::write_atomic(&lock, &source, text, backups)`; drop the guard when done. The same
//! guard serves mcpctl's own state files (a ledger, a journal): lock them like any file.
//! A process must not lock one file twice (the second waits for the first). Code that
//! needs several files at once must lock them in `LockKey` order, so two
//! processes never wait on each other in a circle.
//!
//! Sidecars of files nobody has locked for a while are pruned (`prune`), so `locks/` does
//! not grow without end. Deleting a lock file is safe only because every taker checks,
//! once it holds the lock, that the name still leads to the file it locked: one that was
//! pruned while it waited (it holds the lock of a file no one else can open any more)
//! starts over with whatever the name holds now.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, Write};
use std::path::{Component, Path, PathBuf};
use std::time::{Duration, Instant};

use super::{FsError, Source};

/// How long a write waits for another mcpctl holding the same file.
pub const WAIT: Duration = Duration::from_secs(30);
/// How often the holder is asked again while waiting.
const POLL: Duration = Duration::from_millis(5);

/// The real file behind a path: what a lock is keyed by and what a write replaces.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LockKey {
    real: PathBuf,
}

impl LockKey {
    /// Resolve `path`: symlinks followed (the file need not exist), the existing part of
    /// the directory made canonical, `.`/`..` removed.
    pub fn of(path: &Path) -> Result<LockKey, FsError> {
        let target = super::follow_links(path)?;
        Ok(LockKey {
            real: canonical_dir(&target),
        })
    }

    /// The file that holds the bytes (what writes replace).
    pub fn real_path(&self) -> &Path {
        &self.real
    }

    /// The sidecar's name: a stable hash of the path, plus the file name to read by.
    fn sidecar_name(&self) -> String {
        let bytes = self.real.as_os_str().as_encoded_bytes();
        // FNV-1a: stable across builds and platforms (std's hasher is not promised to be),
        // so two mcpctl versions running at once still agree on the name.
        let hash = bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
        });
        let name: String = self
            .real
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
            .take(64)
            .collect();
        format!("{hash:016x}-{name}.lock")
    }
}

/// Exclusive use of one real file among mcpctl processes, until dropped.
#[derive(Debug)]
pub struct FileLock {
    key: LockKey,
    /// Closing the sidecar releases the lock (also when the process dies).
    _sidecar: File,
}

impl FileLock {
    pub fn key(&self) -> &LockKey {
        &self.key
    }

    /// Read the file under this lock (see `fs::read_source`).
    pub fn read(&self, path: &Path) -> Result<Source, FsError> {
        super::read_source(path)
    }
}

/// Where lock sidecars live: `locks/` in the state directory.
pub fn lock_dir(state_dir: &Path) -> PathBuf {
    state_dir.join("locks")
}

/// Take the lock for `path`'s real file, waiting up to `WAIT` for another mcpctl.
pub fn acquire(path: &Path, state_dir: &Path) -> Result<FileLock, FsError> {
    acquire_key(LockKey::of(path)?, state_dir, WAIT)
}

/// Take the lock for `key`, giving up after `wait`.
pub fn acquire_key(key: LockKey, state_dir: &Path, wait: Duration) -> Result<FileLock, FsError> {
    let dir = lock_dir(state_dir);
    let sidecar_path = dir.join(key.sidecar_name());
    let lock_err = |source: io::Error| FsError::Lock {
        path: key.real.clone(),
        sidecar: sidecar_path.clone(),
        source,
    };
    crate::fault::step_at("lock", &key.real).map_err(lock_err)?;
    fs::create_dir_all(&dir).map_err(lock_err)?;
    let deadline = Instant::now() + wait;
    let mut sidecar = loop {
        let mut sidecar = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&sidecar_path)
            .map_err(lock_err)?;
        before_lock();
        loop {
            match sidecar.try_lock() {
                Ok(()) => break,
                Err(fs::TryLockError::WouldBlock) if Instant::now() < deadline => {
                    std::thread::sleep(POLL);
                }
                Err(fs::TryLockError::WouldBlock) => {
                    let mut holder = String::new();
                    let _ = sidecar.read_to_string(&mut holder);
                    return Err(FsError::Locked {
                        path: key.real.clone(),
                        holder: holder.trim().to_owned(),
                        waited: wait,
                    });
                }
                Err(fs::TryLockError::Error(e)) => return Err(lock_err(e)),
            }
        }
        if still_named(&sidecar, &sidecar_path) {
            break sidecar;
        }
        // Pruned while we waited: ours is a lock nobody else can see. Start over with
        // the file the name holds now (another taker may have created and locked it).
    };
    // Who holds it, for the message another process shows while it waits (best effort).
    // Written over the old text at a fixed width, padded with spaces (read back trimmed):
    // a truncate first cost a journal operation of its own, 1-2 ms on a loaded disk.
    // One write: `write!` to a `File` pads with a system call per space.
    let holder = format!("{:<24}", format!("pid {}", std::process::id()));
    let _ = sidecar
        .rewind()
        .and_then(|()| sidecar.write_all(holder.as_bytes()));
    Ok(FileLock {
        key,
        _sidecar: sidecar,
    })
}

/// Whether `path` still names the open `file` (it was not pruned, or pruned and created
/// again, since it was opened). Windows: always (sidecars are not pruned there).
#[cfg(unix)]
fn still_named(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), fs::metadata(path)) {
        (Ok(open), Ok(named)) => open.dev() == named.dev() && open.ino() == named.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn still_named(_file: &File, _path: &Path) -> bool {
    true
}

/// Sidecars are pruned once `locks/` holds more than this many.
const PRUNE_OVER: usize = 32;
/// A sidecar nobody has taken for this long is pruned. Any age would be safe for takers
/// that check `still_named`; an hour also leaves alone the sidecars an older mcpctl, which
/// does not check, might be waiting on (a wait lasts at most `WAIT`).
const UNUSED_FOR: Duration = Duration::from_secs(3600);

/// Delete the sidecars in `state_dir` that nobody holds and nobody has taken for
/// `UNUSED_FOR` (taking a lock writes the taker's pid, so the modification time is the
/// last time it was taken), when there are more than `PRUNE_OVER`. Each is deleted while
/// this process holds its lock, so no taker holds it at that moment, and a taker waiting
/// on it starts over (see `still_named`). Unix only: on Windows a name cannot be checked
/// against an open file, so sidecars stay.
pub fn prune(state_dir: &Path) {
    prune_some(state_dir, UNUSED_FOR, PRUNE_OVER);
}

fn prune_some(state_dir: &Path, unused_for: Duration, over: usize) {
    if cfg!(not(unix)) {
        return;
    }
    let Ok(entries) = fs::read_dir(lock_dir(state_dir)) else {
        return;
    };
    let sidecars: Vec<fs::DirEntry> = entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".lock"))
        .collect();
    if sidecars.len() <= over {
        return;
    }
    let now = std::time::SystemTime::now();
    for entry in sidecars {
        let unused = entry
            .metadata()
            .ok()
            .filter(fs::Metadata::is_file)
            .and_then(|m| m.modified().ok())
            .and_then(|t| now.duration_since(t).ok())
            .is_some_and(|age| age >= unused_for);
        if !unused {
            continue;
        }
        let path = entry.path();
        let Ok(file) = OpenOptions::new().read(true).write(true).open(&path) else {
            continue;
        };
        if file.try_lock().is_ok() && still_named(&file, &path) {
            let _ = fs::remove_file(&path);
        }
    }
}

#[cfg(test)]
thread_local! {
    /// Tests: run between opening a sidecar and locking it (a pruner's moment).
    static BEFORE_LOCK: std::cell::RefCell<Option<Box<dyn FnOnce()>>> =
        std::cell::RefCell::new(None);
}

fn before_lock() {
    #[cfg(test)]
    {
        let hook = BEFORE_LOCK.with(|hook| hook.borrow_mut().take());
        if let Some(hook) = hook {
            hook();
        }
    }
}

/// `path` with the longest existing ancestor canonicalized and `.`/`..` folded in the
/// rest (a file, and its directories, may not exist yet).
fn canonical_dir(path: &Path) -> PathBuf {
    let parts: Vec<Component<'_>> = path.components().collect();
    for split in (1..=parts.len()).rev() {
        let head: PathBuf = parts[..split].iter().collect();
        if let Ok(mut base) = fs::canonicalize(&head) {
            for part in &parts[split..] {
                match part {
                    Component::ParentDir => {
                        base.pop();
                    }
                    Component::CurDir => {}
                    other => base.push(other),
                }
            }
            return base;
        }
    }
    path.to_path_buf()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_real_file_is_one_lock_whatever_the_spelling() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        let file = dir.path().join("a/b/c.json");
        let other = dir.path().join("a/x/../b/./c.json");
        assert_eq!(LockKey::of(&file).unwrap(), LockKey::of(&other).unwrap());
        let held = acquire(&file, &state).unwrap();
        let second = acquire_key(LockKey::of(&other).unwrap(), &state, Duration::ZERO);
        assert!(
            matches!(&second, Err(FsError::Locked { holder, .. }) if holder.starts_with("pid ")),
            "{second:?}"
        );
        drop(held);
        acquire_key(LockKey::of(&other).unwrap(), &state, Duration::ZERO).unwrap();
        // Sidecars never sit beside the client's file.
        assert!(!dir.path().join("a").exists());
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_locks_its_target() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        fs::create_dir_all(dir.path().join("dotfiles")).unwrap();
        let real = dir.path().join("dotfiles/mcp.json");
        fs::write(&real, "{}").unwrap();
        let link = dir.path().join("mcp.json");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let _held = acquire(&real, &state).unwrap();
        assert!(matches!(
            acquire_key(LockKey::of(&link).unwrap(), &state, Duration::ZERO),
            Err(FsError::Locked { .. })
        ));
    }

    /// A pruner deletes the sidecar after a taker opened it and before it locked it, and a
    /// third process creates the name again and locks it: the taker must not think it
    /// holds the lock too (it would hold the lock of a file nobody else can open).
    #[cfg(unix)]
    #[test]
    fn a_sidecar_pruned_while_a_taker_waits_never_lets_two_in() {
        use std::cell::RefCell;
        use std::rc::Rc;
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        let file = dir.path().join("mcp.json");
        drop(acquire(&file, &state).unwrap());
        let third: Rc<RefCell<Option<FileLock>>> = Rc::default();
        let (s, f, t) = (state.clone(), file.clone(), third.clone());
        BEFORE_LOCK.with(|hook| {
            *hook.borrow_mut() = Some(Box::new(move || {
                prune_some(&s, Duration::ZERO, 0);
                assert_eq!(fs::read_dir(lock_dir(&s)).unwrap().count(), 0, "not pruned");
                *t.borrow_mut() = Some(acquire(&f, &s).unwrap());
            }));
        });
        let taker = acquire_key(LockKey::of(&file).unwrap(), &state, Duration::ZERO);
        assert!(third.borrow().is_some());
        assert!(
            matches!(&taker, Err(FsError::Locked { .. })),
            "two takers hold the lock of one file: {taker:?}"
        );
        drop(third.borrow_mut().take());
        acquire_key(LockKey::of(&file).unwrap(), &state, Duration::ZERO).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn prune_deletes_only_old_sidecars_nobody_holds() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        let [a, b, c] = ["a.json", "b.json", "c.json"].map(|n| dir.path().join(n));
        drop(acquire(&a, &state).unwrap());
        let held = acquire(&b, &state).unwrap();
        drop(acquire(&c, &state).unwrap());
        let sidecar = |p: &Path| lock_dir(&state).join(LockKey::of(p).unwrap().sidecar_name());
        let old = std::time::SystemTime::now() - Duration::from_secs(7200);
        for p in [&a, &b] {
            File::options()
                .write(true)
                .open(sidecar(p))
                .unwrap()
                .set_modified(old)
                .unwrap();
        }
        prune_some(&state, UNUSED_FOR, 2);
        assert!(!sidecar(&a).exists(), "old and free: pruned");
        assert!(sidecar(&b).exists(), "held: kept");
        assert!(sidecar(&c).exists(), "taken just now: kept");
        prune_some(&state, UNUSED_FOR, 5);
        drop(held);
        acquire_key(LockKey::of(&a).unwrap(), &state, Duration::ZERO).unwrap();
    }

    /// The other half of `the_lock_excludes_another_process`: run as its own process
    /// (this test binary again, with `MCPCTL_TEST_LOCK_HOLDER` set), it takes the lock for
    /// the path given on stdin, says so, and keeps the lock until its stdin closes. Run
    /// any other way (`cargo test -- --include-ignored`) it has no path and returns
    /// without reading stdin, which may be a terminal that never closes.
    #[test]
    #[ignore = "run by the_lock_excludes_another_process in a second process"]
    fn lock_holder_process() {
        use std::io::BufRead;
        if std::env::var_os("MCPCTL_TEST_LOCK_HOLDER").is_none() {
            return;
        }
        let mut line = String::new();
        std::io::stdin().lock().read_line(&mut line).unwrap();
        let Some((file, state)) = line.trim_end().split_once('\t') else {
            return;
        };
        let held = acquire(Path::new(file), Path::new(state)).unwrap();
        let mut out = std::io::stdout().lock();
        // libtest may have printed `test NAME ... ` on this line already.
        writeln!(out, "lock holder: held").unwrap();
        out.flush().unwrap();
        drop(out);
        // Until the other process closes our stdin.
        let _ = std::io::stdin().lock().read_line(&mut line);
        drop(held);
    }

    /// Two real processes: while another process holds a file's lock, this one cannot
    /// take it (a lock that only excluded threads of one process, or nothing, would let
    /// two mcpctl processes interleave read and write); once that process is gone, it can.
    #[test]
    fn the_lock_excludes_another_process() {
        use std::io::BufRead;
        use std::process::{Command, Stdio};
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        let file = dir.path().join("mcp.json");
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "fs::lock::tests::lock_holder_process",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("MCPCTL_TEST_LOCK_HOLDER", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        writeln!(stdin, "{}\t{}", file.display(), state.display()).unwrap();
        stdin.flush().unwrap();
        let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
        let held = lines
            .by_ref()
            .map_while(Result::ok)
            .any(|l| l.ends_with("lock holder: held"));
        assert!(held, "the holder process never took the lock");
        let second = acquire_key(LockKey::of(&file).unwrap(), &state, Duration::ZERO);
        let pid = format!("pid {}", child.id());
        assert!(
            matches!(&second, Err(FsError::Locked { holder, .. }) if *holder == pid),
            "another process holds the lock, yet this one got {second:?}"
        );
        drop(stdin);
        assert!(child.wait().unwrap().success());
        acquire_key(LockKey::of(&file).unwrap(), &state, Duration::ZERO).unwrap();
    }
}
