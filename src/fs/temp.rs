//! The temp file a write prepares beside its target: a name no other run can have (PID,
//! time and a per-process counter: PID 1 is every container's first process), removed
//! if mcpctl is interrupted while it exists (SIGINT, SIGTERM, SIGHUP on Unix), and stale
//! ones from killed runs swept by the next write of the same file. Must never remove
//! anything but `.NAME.mcpctl-*.tmp` files it can tell are abandoned.

use std::fs::{self, File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Temps older than this are from a run that died (a write takes milliseconds to
/// seconds); younger ones might belong to an older mcpctl without the lock.
const STALE: Duration = Duration::from_secs(600);

/// A temp file that is removed when dropped (and on SIGINT/SIGTERM/SIGHUP meanwhile).
#[derive(Debug)]
pub struct Temp {
    pub path: PathBuf,
    _guard: interrupt::Guard,
}

impl Temp {
    /// Create a new, empty temp file beside `target`.
    pub fn create(target: &Path) -> io::Result<(Temp, File)> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let dir = target.parent().unwrap_or(Path::new("."));
        let prefix = prefix(target);
        loop {
            let nanos = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos());
            let count = COUNTER.fetch_add(1, Ordering::Relaxed);
            let path = dir.join(format!(
                "{prefix}{}-{nanos:x}-{count}.tmp",
                std::process::id()
            ));
            let guard = interrupt::Guard::arm(&path);
            match OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(file) => {
                    return Ok((
                        Temp {
                            path,
                            _guard: guard,
                        },
                        file,
                    ));
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.path);
    }
}

/// `.NAME.mcpctl-`: what every temp of `target` starts with.
fn prefix(target: &Path) -> String {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!(".{name}.mcpctl-")
}

/// Remove temps of `target` left by runs that were killed (called under the file's lock).
pub fn sweep_stale(target: &Path) {
    let dir = target.parent().unwrap_or(Path::new("."));
    let prefix = prefix(target);
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let now = SystemTime::now();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if !(name.starts_with(&prefix) && (name.ends_with(".tmp") || name.ends_with(".tmp.old"))) {
            continue;
        }
        let old = entry
            .metadata()
            .ok()
            .filter(|m| m.is_file())
            .and_then(|m| m.modified().ok())
            .and_then(|t| now.duration_since(t).ok())
            .is_some_and(|age| age > STALE);
        if old {
            let _ = fs::remove_file(entry.path());
        }
    }
}

#[cfg(unix)]
mod interrupt {
    //! The path of the temp file being written, where a signal handler can read it
    //! without locking: one slot per thread that writes (mcpctl writes from one).

    use std::os::unix::ffi::OsStrExt;
    use std::path::Path;
    use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

    const MAX: usize = 4096;

    /// The path, NUL-terminated, written only while `ARMED` is false by the writer that
    /// holds `BUSY`, read by the handler only while `ARMED` is true. Atomic bytes: shared
    /// without `unsafe`, laid out as plain bytes for `unlink`.
    static PATH: [AtomicU8; MAX] = [const { AtomicU8::new(0) }; MAX];
    static ARMED: AtomicBool = AtomicBool::new(false);
    static BUSY: AtomicBool = AtomicBool::new(false);

    #[derive(Debug)]
    pub struct Guard {
        owns: bool,
    }

    impl Guard {
        /// Remember `path` for the handler (installed on first use). A second concurrent
        /// writer in the process, or a path too long, is simply not tracked.
        pub fn arm(path: &Path) -> Guard {
            let bytes = path.as_os_str().as_bytes();
            if bytes.len() >= MAX || bytes.contains(&0) {
                return Guard { owns: false };
            }
            if BUSY
                .compare_exchange(false, true, Ordering::SeqCst, Ordering::SeqCst)
                .is_err()
            {
                return Guard { owns: false };
            }
            install();
            for (slot, byte) in PATH.iter().zip(bytes.iter().chain([&0])) {
                slot.store(*byte, Ordering::Relaxed);
            }
            ARMED.store(true, Ordering::SeqCst);
            Guard { owns: true }
        }
    }

    impl Drop for Guard {
        fn drop(&mut self) {
            if self.owns {
                ARMED.store(false, Ordering::SeqCst);
                BUSY.store(false, Ordering::SeqCst);
            }
        }
    }

    fn install() {
        static INSTALL: std::sync::Once = std::sync::Once::new();
        INSTALL.call_once(|| {
            for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
                // SAFETY: plain `sigaction` setup; the handler only calls async-signal-safe
                // functions. A handler installed before (doctor's) is chained to.
                unsafe {
                    let mut action: libc::sigaction = std::mem::zeroed();
                    action.sa_sigaction = on_signal as *const () as libc::sighandler_t;
                    libc::sigemptyset(&mut action.sa_mask);
                    let mut previous: libc::sigaction = std::mem::zeroed();
                    if libc::sigaction(signal, &action, &mut previous) == 0 {
                        PREVIOUS[slot_of(signal)]
                            .store(previous.sa_sigaction, std::sync::atomic::Ordering::SeqCst);
                    }
                }
            }
        });
    }

    static PREVIOUS: [std::sync::atomic::AtomicUsize; 3] =
        [const { std::sync::atomic::AtomicUsize::new(libc::SIG_DFL) }; 3];

    fn slot_of(signal: libc::c_int) -> usize {
        match signal {
            libc::SIGINT => 0,
            libc::SIGTERM => 1,
            _ => 2,
        }
    }

    extern "C" fn on_signal(signal: libc::c_int) {
        if ARMED.load(Ordering::SeqCst) {
            // SAFETY: armed: `PATH` holds a NUL-terminated path (`AtomicU8` has `u8`'s
            // layout); unlink is async-signal-safe.
            unsafe {
                libc::unlink(PATH.as_ptr().cast::<libc::c_char>());
            }
        }
        let previous = PREVIOUS[slot_of(signal)].load(Ordering::SeqCst);
        // SAFETY: async-signal-safe calls; `previous` is a handler or SIG_DFL/SIG_IGN as
        // sigaction returned it.
        unsafe {
            if previous != libc::SIG_DFL && previous != libc::SIG_IGN {
                let handler: extern "C" fn(libc::c_int) = std::mem::transmute(previous);
                handler(signal);
            }
            libc::signal(signal, libc::SIG_DFL);
            libc::raise(signal);
        }
    }
}

#[cfg(not(unix))]
mod interrupt {
    //! Windows: no signal cleanup (a console Ctrl-C handler is not installed); stale
    //! temps are swept by the next write.

    #[derive(Debug)]
    pub struct Guard;

    impl Guard {
        pub fn arm(_path: &std::path::Path) -> Guard {
            Guard
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temp_names_are_unique_and_removed_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("c.json");
        let (a, fa) = Temp::create(&target).unwrap();
        let (b, _fb) = Temp::create(&target).unwrap();
        assert_ne!(a.path, b.path);
        let name = a.path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.starts_with(".c.json.mcpctl-"), "{name}");
        let path = a.path.clone();
        // The file first, as every caller's `let (temp, file)` drops them: on Windows a
        // file deleted while open keeps its name until the last handle closes.
        drop(fa);
        drop(a);
        assert!(!path.exists());
    }

    #[test]
    fn stale_temps_are_swept_fresh_ones_and_others_kept() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("c.json");
        let stale = dir.path().join(".c.json.mcpctl-1.tmp");
        let fresh = dir.path().join(".c.json.mcpctl-2.tmp");
        let other = dir.path().join(".d.json.mcpctl-1.tmp");
        for p in [&stale, &fresh, &other] {
            fs::write(p, "x").unwrap();
        }
        let old = SystemTime::now() - Duration::from_secs(3600);
        File::options()
            .write(true)
            .open(&stale)
            .unwrap()
            .set_modified(old)
            .unwrap();
        File::options()
            .write(true)
            .open(&other)
            .unwrap()
            .set_modified(old)
            .unwrap();
        sweep_stale(&target);
        assert!(!stale.exists());
        assert!(fresh.exists());
        assert!(other.exists());
    }
}
