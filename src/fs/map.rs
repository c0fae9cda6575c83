//! A big config file's bytes as a read-only memory map of the file itself (Linux): no
//! copy out of the page cache and no fresh, zeroed buffer to copy into — for a 17 MB
//! `~/.claude.json` those two were a fifth of a command's CPU (`perf record`: the read's
//! copy 8.7 %, clearing the new pages 10.6 %).
//!
//! A map has one hazard a read does not: another program that truncates the file while it
//! is mapped (`fs.writeFileSync` opens with `O_TRUNC`, then writes) leaves pages with no
//! bytes behind them, and touching one raises `SIGBUS`, which would end mcpctl. So every
//! map is registered in a small table, and a `SIGBUS` handler that finds the faulting
//! address inside one replaces that whole map with zero pages (same address, same length:
//! every later read sees zeros, never a fault) and marks it torn. The reader goes on, the
//! text it sees is still UTF-8 (zeros are), and the map's owner asks `torn` before it
//! trusts what it read: a torn read is read again, a torn source is never written from
//! (`fs::write_atomic_when`, beside its stamp check, which also catches a writer that
//! truncated and wrote the file back between two looks). A `SIGBUS` at any other address
//! goes to the handler that was there before (the standard library's).
//!
//! What a map cannot give is a snapshot: a writer that rewrites the same file in place
//! changes what mcpctl sees as it reads. That writer changes the file's length or time,
//! and every write checks those first, so nothing is written from such a mixed text.

use std::ffi::c_void;
use std::fs::File;
use std::os::fd::AsRawFd;
use std::ptr::NonNull;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Maps alive at once (a command holds one or two); when all are taken a file is read.
const SLOTS: usize = 16;
/// A slot being set up or taken down: not free, and no address is inside it.
const CLAIMED: usize = 1;

struct Slot {
    /// 0: free; `CLAIMED`; else the map's address.
    start: AtomicUsize,
    len: AtomicUsize,
    torn: AtomicBool,
}

#[allow(
    clippy::declare_interior_mutable_const,
    reason = "the initialiser of each slot of `TABLE`, not a shared value"
)]
const FREE: Slot = Slot {
    start: AtomicUsize::new(0),
    len: AtomicUsize::new(0),
    torn: AtomicBool::new(false),
};

static TABLE: [Slot; SLOTS] = [FREE; SLOTS];

/// The `SIGBUS` disposition before ours (`None`: ours could not be installed, so nothing
/// is mapped).
static PREVIOUS: OnceLock<Option<libc::sigaction>> = OnceLock::new();

/// A read-only private map of a whole file.
pub(super) struct Mapped {
    ptr: NonNull<u8>,
    len: usize,
    slot: usize,
}

// SAFETY: the map is read-only and owned by this value; its address and length never
// change while it lives (a torn map is replaced in place by zero pages of the same size).
unsafe impl Send for Mapped {}
// SAFETY: as above; shared access only ever reads.
unsafe impl Sync for Mapped {}

impl Mapped {
    /// Map the first `len` bytes of `file` (its size when looked at), or `None` where a
    /// map cannot be had (no free slot, no handler, the kernel said no): read it instead.
    pub(super) fn of(file: &File, len: usize) -> Option<Mapped> {
        if len == 0 || !guarded() {
            return None;
        }
        let slot = TABLE.iter().position(|slot| {
            slot.start
                .compare_exchange(0, CLAIMED, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
        })?;
        // SAFETY: a new read-only private map chosen by the kernel; nothing else is at
        // that address. MAP_POPULATE faults every page in now, in one go, rather than
        // one fault per 64 KB while the bytes are checked.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_PRIVATE | libc::MAP_POPULATE,
                file.as_raw_fd(),
                0,
            )
        };
        let Some(ptr) = NonNull::new(ptr.cast::<u8>()).filter(|_| ptr != libc::MAP_FAILED) else {
            TABLE[slot].start.store(0, Ordering::Release);
            return None;
        };
        TABLE[slot].len.store(len, Ordering::Release);
        TABLE[slot].torn.store(false, Ordering::Release);
        TABLE[slot]
            .start
            .store(ptr.as_ptr() as usize, Ordering::Release);
        Some(Mapped { ptr, len, slot })
    }

    pub(super) fn bytes(&self) -> &[u8] {
        // SAFETY: `len` readable bytes at `ptr` for as long as `self` lives (the file's
        // pages, or zero pages once torn).
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    /// Whether the file was cut short under the map (it now reads as zeros).
    pub(super) fn torn(&self) -> bool {
        TABLE[self.slot].torn.load(Ordering::Acquire)
    }
}

impl Drop for Mapped {
    fn drop(&mut self) {
        let slot = &TABLE[self.slot];
        slot.start.store(CLAIMED, Ordering::Release);
        // SAFETY: the map made in `of` (or the zero pages put in its place), unmapped
        // once, when its owner is gone.
        unsafe { libc::munmap(self.ptr.as_ptr().cast::<c_void>(), self.len) };
        slot.len.store(0, Ordering::Release);
        slot.start.store(0, Ordering::Release);
    }
}

impl std::fmt::Debug for Mapped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mapped")
            .field("len", &self.len)
            .field("torn", &self.torn())
            .finish()
    }
}

/// Install the `SIGBUS` handler once; whether it is in place.
fn guarded() -> bool {
    PREVIOUS
        .get_or_init(|| {
            // SAFETY: a zeroed `sigaction` is a valid value to fill in; `on_sigbus` has
            // the SA_SIGINFO signature, and the previous disposition is kept for it.
            unsafe {
                let mut ours: libc::sigaction = std::mem::zeroed();
                ours.sa_sigaction = on_sigbus as *const () as libc::sighandler_t;
                ours.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK | libc::SA_NODEFER;
                libc::sigemptyset(&mut ours.sa_mask);
                let mut previous: libc::sigaction = std::mem::zeroed();
                (libc::sigaction(libc::SIGBUS, &ours, &mut previous) == 0).then_some(previous)
            }
        })
        .is_some()
}

/// The `SIGBUS` handler: a fault inside a map of ours makes it zeros (and torn); any other
/// goes to the disposition before ours. Only atomics, `mmap` and `sigaction` here (system
/// calls; nothing allocates or locks), and `errno` is left as it was found.
extern "C" fn on_sigbus(signal: libc::c_int, info: *mut libc::siginfo_t, context: *mut c_void) {
    // SAFETY: the kernel hands a valid siginfo to an SA_SIGINFO handler.
    let addr = unsafe { (*info).si_addr() } as usize;
    // SAFETY: this thread's errno, read and written back.
    let errno = unsafe { *libc::__errno_location() };
    for slot in &TABLE {
        let start = slot.start.load(Ordering::Acquire);
        let len = slot.len.load(Ordering::Acquire);
        if start > CLAIMED && addr >= start && addr - start < len {
            // SAFETY: replaces exactly the map at `start` (ours, registered, alive while
            // its owner reads it) by anonymous zero pages of the same length.
            let zeros = unsafe {
                libc::mmap(
                    start as *mut c_void,
                    len,
                    libc::PROT_READ,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                    -1,
                    0,
                )
            };
            if zeros != libc::MAP_FAILED {
                slot.torn.store(true, Ordering::Release);
                // SAFETY: as above.
                unsafe { *libc::__errno_location() = errno };
                return;
            }
        }
    }
    // Not ours: what was there before decides (the standard library's handler, which
    // tells a stack overflow from the rest, or the default: the process ends).
    if let Some(Some(previous)) = PREVIOUS.get() {
        let handler = previous.sa_sigaction;
        if previous.sa_flags & libc::SA_SIGINFO != 0
            && handler != libc::SIG_DFL
            && handler != libc::SIG_IGN
        {
            // SAFETY: an SA_SIGINFO handler has this signature.
            let previous_handler: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut c_void) =
                unsafe { std::mem::transmute(handler) };
            previous_handler(signal, info, context);
            return;
        }
        // SAFETY: puts back the disposition read when ours was installed; returning
        // re-runs the faulting access under it.
        unsafe { libc::sigaction(libc::SIGBUS, previous, std::ptr::null_mut()) };
    } else {
        // SAFETY: the default disposition (the process ends) for the re-run access.
        unsafe { libc::signal(libc::SIGBUS, libc::SIG_DFL) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_map_reads_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, b"{\"mcpServers\": {}}").unwrap();
        let file = File::open(&path).unwrap();
        let map = Mapped::of(&file, 18).unwrap();
        assert_eq!(map.bytes(), b"{\"mcpServers\": {}}");
        assert!(!map.torn());
    }

    /// The file cut short under the map (a writer's `O_TRUNC`): reading the lost pages is
    /// zeros and a torn map, not the end of the process.
    #[test]
    fn a_file_truncated_under_its_map_reads_as_zeros_and_torn() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let len = 3 * 4096 + 100;
        std::fs::write(&path, vec![b'x'; len]).unwrap();
        let file = File::open(&path).unwrap();
        let map = Mapped::of(&file, len).unwrap();
        assert_eq!(map.bytes()[len - 1], b'x');
        // The writer: truncate, then write part back (shorter).
        let mut writer = std::fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(&path)
            .unwrap();
        writer.write_all(b"{}").unwrap();
        // Past the new end of the file: SIGBUS, caught.
        let last = map.bytes()[len - 1];
        assert_eq!(last, 0);
        assert!(map.torn());
        assert!(
            map.bytes().iter().all(|&b| b == 0),
            "the whole map is zeros"
        );
        drop(map);
        // The slot is free again, and a new map of the new file reads it.
        let file = File::open(&path).unwrap();
        let map = Mapped::of(&file, 2).unwrap();
        assert_eq!(map.bytes(), b"{}");
        assert!(!map.torn());
    }

    /// Maps on several threads at once, each torn or not on its own.
    #[test]
    fn maps_are_torn_one_by_one() {
        let dir = tempfile::tempdir().unwrap();
        std::thread::scope(|scope| {
            for i in 0..4 {
                let path = dir.path().join(format!("f{i}"));
                scope.spawn(move || {
                    let len = 8192 + i;
                    std::fs::write(&path, vec![b'a'; len]).unwrap();
                    let file = File::open(&path).unwrap();
                    let map = Mapped::of(&file, len).unwrap();
                    if i % 2 == 0 {
                        std::fs::File::create(&path).unwrap();
                    }
                    let seen = map.bytes()[len - 1];
                    assert_eq!(map.torn(), i % 2 == 0);
                    assert_eq!(seen, if i % 2 == 0 { 0 } else { b'a' });
                });
            }
        });
    }
}
