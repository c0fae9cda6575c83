//! Starting and ending a stdio server's processes: the only `cfg(unix)` code in the
//! handshake. A server runs in its own process group so that ending it also ends what it
//! started (`npx` → `node`, `sh -c` → anything); ending follows the MCP spec: close stdin
//! (the caller), wait briefly, SIGTERM the group, wait, SIGKILL the group. On Windows a
//! Job Object plays the group's part (`job`); there is no SIGTERM, so after the grace
//! period the job is terminated.
//!
//! A process that leaves the group (`setsid`, a double fork) is found by the tag
//! `configure` puts in the server's environment, which its descendants inherit: after
//! the group, every process still carrying the tag is killed (Linux, from `/proc`). A
//! child subreaper would keep such orphans in mcpctl's own tree, but could not tell two
//! parallel servers' orphans apart and would leave mcpctl to reap them; the tag does
//! both. On Linux a server also gets `PR_SET_PDEATHSIG`, so `kill -9` of mcpctl (which
//! runs no clean-up) still ends it; the rest of its group sees its stdin close.
//! The kernel sends that signal when the *thread* that started the server exits, not the
//! process: whoever starts a server keeps that thread alive until the server has ended.
//! What the server started gets no such signal (it is cleared on fork): a child in its
//! group that does not read stdin, one that `setsid`s away. So (Linux) the first server a
//! run starts also starts a guard: mcpctl itself again (`guard`), in a group of its own,
//! reading a pipe only this mcpctl holds open. When mcpctl dies, however it dies, the
//! pipe ends, and the guard kills every process carrying a tag of this run (issue 39
//! F21); after a clean end there are none left to kill.
//!
//! Must never signal a process group it did not create, and never return while the
//! group it is ending still has live members it could kill.

use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus};
use std::time::{Duration, Instant};

#[cfg(windows)]
mod job;

/// How long a server gets to exit by itself after its stdin closes.
pub(crate) const EXIT_GRACE: Duration = Duration::from_millis(300);
/// How long the process group gets to exit after SIGTERM.
pub(crate) const TERM_GRACE: Duration = Duration::from_millis(1000);
/// How often to check whether processes have exited.
const POLL: Duration = Duration::from_millis(10);
/// Most processes of one server looked at to tell whether it is idle (see [`idle`]).
#[cfg(target_os = "linux")]
const MAX_PROCESSES: usize = 256;

/// Set once nothing waits for a server's ending but mcpctl's own exit (every handshake
/// of the run is over, so the report is complete): from then on a server that has taken
/// the end of its input and stays, idle, gets SIGTERM at once instead of after
/// [`EXIT_GRACE`] (see [`end`]).
#[derive(Default)]
pub(crate) struct Hurry(std::sync::atomic::AtomicBool);

impl Hurry {
    /// Already set: for a single server, whose report is complete with its handshake.
    pub(crate) fn now() -> Hurry {
        Hurry(std::sync::atomic::AtomicBool::new(true))
    }

    pub(crate) fn set(&self) {
        self.0.store(true, std::sync::atomic::Ordering::SeqCst);
    }

    #[cfg_attr(
        windows,
        allow(dead_code, reason = "an idle server is told apart on unix only")
    )]
    fn is_set(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::SeqCst)
    }
}

/// How a server ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ending {
    /// Everything exited after stdin closed.
    Exited,
    /// SIGTERM was needed (for the server or something it started).
    Terminated,
    /// The server itself ignored SIGTERM and had to be killed (on Windows: it had not
    /// exited when the grace ran out, and was terminated).
    Killed,
}

/// What ending a server took, said as `doctor`'s warning does (`Ending::Killed`).
#[cfg(unix)]
pub(crate) const KILLED: &str = "kill it (it ignored SIGTERM)";
/// What ending a server took, said as `doctor`'s warning does (`Ending::Killed`).
#[cfg(windows)]
pub(crate) const KILLED: &str =
    "terminate it (it had not exited 1.3 s after its input closed; Windows has no SIGTERM)";

/// Process groups of servers that are running now, readable from a signal handler
/// (atomics only: a handler may not lock). 0 is a free slot.
#[cfg(unix)]
static LIVE_GROUPS: [std::sync::atomic::AtomicI32; 64] =
    [const { std::sync::atomic::AtomicI32::new(0) }; 64];

/// While alive, the server's process group is killed if mcpctl is interrupted (Ctrl-C,
/// SIGTERM, SIGHUP): the servers sit in groups of their own, so the terminal's signal
/// does not reach them, and without this they would outlive `doctor`. On Windows it holds
/// the server's kill-on-close job, which ends the server's processes when dropped or
/// when mcpctl dies.
pub(crate) struct Tracked {
    /// The tag in the server's environment (see [`configure`]).
    #[cfg_attr(
        not(target_os = "linux"),
        expect(dead_code, reason = "swept on Linux only")
    )]
    tag: Tag,
    #[cfg(unix)]
    slot: Option<usize>,
    #[cfg(windows)]
    job: Option<job::Job>,
}

/// The environment variable whose value tells one server's processes from another's.
pub(crate) const TAG_VARIABLE: &str = "MCPCTL_SERVER_TAG";

/// A value of [`TAG_VARIABLE`] unique to one started server.
pub(crate) struct Tag(String);

impl Tag {
    fn new() -> Tag {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Tag(format!("{}-{n}", std::process::id()))
    }
}

/// Register `child`'s group for the interrupt handler (installed on first use).
pub(crate) fn track(child: &Child, tag: Tag) -> Tracked {
    #[cfg(unix)]
    {
        use std::sync::atomic::Ordering;
        static INSTALL: std::sync::Once = std::sync::Once::new();
        INSTALL.call_once(|| {
            for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
                // SAFETY: `on_interrupt` only reads atomics and calls async-signal-safe
                // functions (killpg, signal, raise).
                unsafe {
                    libc::signal(signal, on_interrupt as *const () as libc::sighandler_t);
                }
            }
        });
        let group = libc::pid_t::try_from(child.id()).unwrap_or(0);
        let slot = (group > 0)
            .then(|| {
                LIVE_GROUPS.iter().position(|s| {
                    s.compare_exchange(0, group, Ordering::SeqCst, Ordering::SeqCst)
                        .is_ok()
                })
            })
            .flatten();
        Tracked { tag, slot }
    }
    #[cfg(windows)]
    {
        Tracked {
            tag,
            job: job::Job::assign(child),
        }
    }
}

#[cfg(unix)]
impl Drop for Tracked {
    fn drop(&mut self) {
        if let Some(slot) = self.slot {
            LIVE_GROUPS[slot].store(0, std::sync::atomic::Ordering::SeqCst);
        }
    }
}

#[cfg(unix)]
extern "C" fn on_interrupt(signal: libc::c_int) {
    for slot in &LIVE_GROUPS {
        let group = slot.load(std::sync::atomic::Ordering::SeqCst);
        if group > 0 {
            // SAFETY: async-signal-safe; the group was created by `configure`.
            unsafe {
                libc::killpg(group, libc::SIGKILL);
            }
        }
    }
    // Then die of the same signal, as if no handler were installed.
    // SAFETY: async-signal-safe calls.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        libc::raise(signal);
    }
}

/// The first argument that makes mcpctl the guard of another mcpctl's servers (see the
/// module note); the second is that mcpctl's pid. Not a command anyone types.
pub const GUARD_ARG: &str = "__guard-servers";

/// Set by [`guard_servers`]: this process is the mcpctl binary (`/proc/self/exe` can be
/// the guard), not a test harness that links the library.
static GUARDED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Have the servers this process starts guarded (see the module note); `lib::run` calls
/// it, for the binary.
pub fn guard_servers() {
    GUARDED.store(true, std::sync::atomic::Ordering::SeqCst);
}

/// Start the guard of this run's servers, once (Linux; see the module note). The pipe's
/// write end is kept for the rest of the process: only its end closes it.
#[cfg(target_os = "linux")]
fn start_guard() {
    if !GUARDED.load(std::sync::atomic::Ordering::SeqCst) {
        return;
    }
    static GUARD: std::sync::OnceLock<Option<ChildStdin>> = std::sync::OnceLock::new();
    GUARD.get_or_init(|| {
        use std::os::unix::process::CommandExt;
        // Std's pipes are close-on-exec: no server inherits the write end.
        Command::new("/proc/self/exe")
            .arg0("mcpctl")
            .args([GUARD_ARG, &std::process::id().to_string()])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            // Out of mcpctl's group: a Ctrl-C or a group kill that ends mcpctl leaves it
            // to do its work.
            .process_group(0)
            .spawn()
            .ok()
            .and_then(|mut child| child.stdin.take())
    });
}

/// The guard's side (`mcpctl __guard-servers PID`, started by [`start_guard`]): wait for
/// the end of the pipe from mcpctl `of`, then kill every process carrying a tag of that
/// run, a few rounds apart (one may be forking while the first round runs).
pub fn guard(of: &str) -> std::process::ExitCode {
    #[cfg(target_os = "linux")]
    {
        use std::io::Read;
        if of.parse::<u32>().is_err() {
            return std::process::ExitCode::from(2);
        }
        let mut sink = [0u8; 64];
        let mut stdin = std::io::stdin().lock();
        while stdin.read(&mut sink).is_ok_and(|n| n > 0) {}
        let prefix = format!("{TAG_VARIABLE}={of}-");
        for _ in 0..3 {
            sweep_where(|value| value.starts_with(prefix.as_bytes()));
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = of;
    std::process::ExitCode::SUCCESS
}

/// Put the child in a new process group (its pid is the group id), tag its
/// environment, and (Linux) have it killed when mcpctl dies — with what it starts, by
/// the guard. The tag goes to [`track`].
pub(crate) fn configure(command: &mut Command) -> Tag {
    #[cfg(target_os = "linux")]
    start_guard();
    let tag = Tag::new();
    command.env(TAG_VARIABLE, &tag.0);
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        command.process_group(0);
    }
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        let parent = libc::pid_t::try_from(std::process::id()).unwrap_or(0);
        // SAFETY: the closure runs between fork and exec and calls only prctl and
        // getppid, both async-signal-safe; it allocates nothing.
        unsafe {
            command.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // mcpctl died before the prctl: nobody would end this server.
                if libc::getppid() != parent {
                    return Err(std::io::Error::from(std::io::ErrorKind::BrokenPipe));
                }
                Ok(())
            });
        }
    }
    // Windows: the job is created and the server assigned to it in `track`.
    tag
}

/// The signal that ended `status`, if any.
pub(crate) fn exit_signal(status: ExitStatus) -> Option<i32> {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        status.signal()
    }
    #[cfg(windows)]
    {
        let _ = status;
        None
    }
}

/// Wait until `child` exits or `limit` passes; `Some(status)` if it exited.
pub(crate) fn wait_for(child: &mut Child, limit: Duration) -> Option<ExitStatus> {
    let until = Instant::now() + limit;
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return Some(status);
        }
        if Instant::now() >= until {
            return None;
        }
        std::thread::sleep(POLL);
    }
}

/// End `child` and its process group. The caller has already closed its stdin.
///
/// The server gets [`EXIT_GRACE`] to exit by itself; once `hurry` is set, one that is
/// idle (see [`idle`]) at two looks in a row gets SIGTERM without waiting for the rest of
/// it: it has taken the end of its input and stays until told to stop, as many servers
/// do, and nothing but mcpctl's exit waits for it. One still at work keeps the grace.
/// Past [`TERM_GRACE`], a leader that is still at work (running, or runnable and waiting
/// for a CPU; see [`working`]) is waited for up to `patience` (the probe's own time
/// limit) before it is killed: on a loaded machine a server that exits promptly may need
/// more wall time than the grace to get the CPU it needs to do so, and killing it then
/// would report a fault it does not have. An idle server gets only the grace.
#[cfg(unix)]
pub(crate) fn end(
    child: &mut Child,
    tracked: &Tracked,
    patience: Duration,
    hurry: &Hurry,
) -> Ending {
    let ending = end_group(child, EXIT_GRACE, patience, hurry);
    #[cfg(target_os = "linux")]
    sweep(&tracked.tag);
    #[cfg(not(target_os = "linux"))]
    let _ = tracked;
    ending
}

/// Kill every process (other than mcpctl) whose environment carries `tag`: what left the
/// server's group. Processes of other users cannot be read, and are not the server's.
#[cfg(target_os = "linux")]
fn sweep(tag: &Tag) {
    let wanted = format!("{TAG_VARIABLE}={}", tag.0);
    sweep_where(|value| value == wanted.as_bytes());
}

/// Kill every process (other than this one) with an environment variable (`NAME=value`)
/// that `tagged` picks.
#[cfg(target_os = "linux")]
fn sweep_where(tagged: impl Fn(&[u8]) -> bool) {
    let own = std::process::id();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<libc::pid_t>().ok())
        else {
            continue;
        };
        if u32::try_from(pid).ok() == Some(own) {
            continue;
        }
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        if environ.split(|b| *b == 0).any(&tagged) {
            // SAFETY: kill has no memory-safety preconditions; the process carries the
            // tag of a server this run started and has already ended (or of a run that
            // died: the guard's).
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
    }
}

/// Wait until `child` exits (`true`) or `grace` passes, or, once `hurry` is set, until
/// the server has been idle at two looks in a row.
#[cfg(unix)]
fn wait_to_exit(child: &mut Child, grace: Duration, hurry: &Hurry) -> bool {
    let until = Instant::now() + grace;
    let mut idle_looks = 0;
    loop {
        if let Ok(Some(_)) = child.try_wait() {
            return true;
        }
        if Instant::now() >= until {
            return false;
        }
        if hurry.is_set() && idle(child.id()) {
            idle_looks += 1;
            if idle_looks >= 2 {
                return false;
            }
        } else {
            idle_looks = 0;
        }
        std::thread::sleep(POLL);
    }
}

/// The process group part of [`end`]; `grace`: how long the server gets to exit by itself.
#[cfg(unix)]
fn end_group(child: &mut Child, grace: Duration, patience: Duration, hurry: &Hurry) -> Ending {
    let Ok(group) = libc::pid_t::try_from(child.id()) else {
        let _ = child.kill();
        let _ = child.wait();
        return Ending::Killed;
    };
    // The group lives while the leader is unreaped, so killpg below cannot hit a
    // recycled group id before the leader is waited for.
    let leader_exited = wait_to_exit(child, grace, hurry);
    if group_is_empty(group) {
        return Ending::Exited;
    }
    signal_group(group, libc::SIGTERM);
    let signalled = Instant::now();
    let mut leader_done = leader_exited;
    loop {
        leader_done = leader_done || matches!(child.try_wait(), Ok(Some(_)));
        if leader_done && group_is_empty(group) {
            return Ending::Terminated;
        }
        let waited = signalled.elapsed();
        // Past the grace, only a leader still at work (not idle) gets more time.
        let patient = !leader_done && waited < patience && working(child.id());
        if waited >= TERM_GRACE && !patient {
            // The leader may have ended between the look above and `working`'s read of
            // its state (a zombie is not at work): look once more before calling it
            // killed.
            leader_done = leader_done || matches!(child.try_wait(), Ok(Some(_)));
            if leader_done && group_is_empty(group) {
                return Ending::Terminated;
            }
            break;
        }
        std::thread::sleep(POLL);
    }
    signal_group(group, libc::SIGKILL);
    let _ = child.wait();
    // Members reparented to init may take a moment to be reaped.
    let until = Instant::now() + TERM_GRACE;
    while !group_is_empty(group) && Instant::now() < until {
        std::thread::sleep(POLL);
    }
    if leader_done {
        Ending::Terminated
    } else {
        Ending::Killed
    }
}

/// End `child` and everything in its job. The caller has already closed its stdin.
/// There is no SIGTERM to ask a server to stop, so it gets the whole of the spec's two
/// waits ([`EXIT_GRACE`], then the [`TERM_GRACE`] a unix server has after SIGTERM) to
/// exit by itself before its job is terminated: one that flushes for half a second
/// after its input closes is not cut off and called killed. Past that, a server whose
/// job still uses CPU time is at work, as a leader in state `R` is on unix, and is
/// waited for up to `patience` (see [`end`] on unix for why). `hurry` changes nothing
/// here: an idle server is told apart only once the grace has run out.
#[cfg(windows)]
pub(crate) fn end(
    child: &mut Child,
    tracked: &Tracked,
    patience: Duration,
    _hurry: &Hurry,
) -> Ending {
    let mut exited = wait_for(child, EXIT_GRACE + TERM_GRACE).is_some();
    if let (false, Some(job)) = (exited, &tracked.job) {
        exited = wait_while_working(child, job, patience);
    }
    let Some(job) = &tracked.job else {
        // No job: the server process only.
        if exited {
            return Ending::Exited;
        }
        let _ = child.kill();
        let _ = child.wait();
        return Ending::Killed;
    };
    if exited && job.active() == 0 {
        return Ending::Exited;
    }
    job.terminate(TERM_GRACE);
    let _ = child.wait();
    if exited {
        Ending::Terminated
    } else {
        Ending::Killed
    }
}

/// Wait while `job` keeps using CPU time (some in every [`WORK_LOOK`]), up to
/// `patience`: `true` once `child` has exited, `false` when the job was idle for a
/// look, or Windows cannot say how much CPU time it used.
#[cfg(windows)]
fn wait_while_working(child: &mut Child, job: &job::Job, patience: Duration) -> bool {
    let until = Instant::now() + patience;
    // The job's time covers what the server started; the server's own time is read too,
    // in case the job's accounting is not kept (the larger counts).
    let cpu = |child: &Child| match (job.cpu_time(), job::process_cpu_time(child)) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    };
    let Some(mut used) = cpu(child) else {
        return false;
    };
    let mut idle_looks = 0;
    while Instant::now() < until {
        if wait_for(child, WORK_LOOK).is_some() {
            return true;
        }
        match cpu(child) {
            Some(now) if now > used => {
                used = now;
                idle_looks = 0;
            }
            Some(_) if idle_looks + 1 < IDLE_LOOKS => idle_looks += 1,
            _ => return false,
        }
    }
    false
}

/// How long a Windows server must use no CPU time at all to count as idle: `IDLE_LOOKS`
/// looks of `WORK_LOOK` in a row. Under load a busy server may get only a small share of
/// a CPU (12 servers at work on 2 busy cores got under a tenth each, under Wine), so any
/// time used counts as work; with the machine's load near 9 on 2 cores one look of
/// 200 ms now and then saw none at all (CPU time is counted in clock ticks), and a server
/// about to exit by itself was terminated and flagged.
#[cfg(windows)]
const WORK_LOOK: Duration = Duration::from_millis(200);
#[cfg(windows)]
const IDLE_LOOKS: u32 = 3;

#[cfg(unix)]
fn signal_group(group: libc::pid_t, signal: libc::c_int) {
    // SAFETY: killpg has no memory-safety preconditions; `group` is the group this
    // module created for the child (see `configure`).
    unsafe {
        libc::killpg(group, signal);
    }
}

/// Whether process `pid` is at work: running or waiting for a CPU (state `R`), or in
/// uninterruptible I/O (`D`), as opposed to idle (sleeping, stopped, a zombie). Read from
/// `/proc`; where there is none, `false` (the fixed grace periods apply).
#[cfg(unix)]
fn working(pid: u32) -> bool {
    #[cfg(target_os = "linux")]
    {
        state_at(&format!("/proc/{pid}/stat")).is_some_and(at_work)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = pid;
        false
    }
}

/// Whether no process of the server led by `pid` is at work (see [`working`]): neither
/// any thread of the leader nor of a descendant it started (followed through
/// `/proc/PID/task/TID/children`, so one that left the group counts too). `false` when
/// the leader cannot be read, when a thread's state cannot, or where there is no `/proc`.
pub(crate) fn idle(pid: u32) -> bool {
    #[cfg(target_os = "linux")]
    {
        let mut pending = vec![pid];
        let mut looked = 0;
        while let Some(next) = pending.pop() {
            looked += 1;
            if looked > MAX_PROCESSES {
                return false;
            }
            let Ok(tasks) = std::fs::read_dir(format!("/proc/{next}/task")) else {
                // A descendant may have exited since its parent listed it.
                if next == pid {
                    return false;
                }
                continue;
            };
            for task in tasks.flatten() {
                let path = task.path();
                match state_at(&path.join("stat").to_string_lossy()) {
                    Some(state) if at_work(state) => return false,
                    Some(_) => {}
                    None if next == pid => return false,
                    None => continue,
                }
                if let Ok(children) = std::fs::read_to_string(path.join("children")) {
                    pending.extend(
                        children
                            .split_whitespace()
                            .filter_map(|c| c.parse::<u32>().ok()),
                    );
                }
            }
        }
        true
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = pid;
        false
    }
}

/// How many bytes of what was written to the server's input it has not read yet
/// (Linux: `FIONREAD`, which a pipe answers at either end); `None` where that cannot be
/// told.
pub(crate) fn unread_input(stdin: &ChildStdin) -> Option<usize> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        unread(stdin.as_raw_fd())
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = stdin;
        None
    }
}

/// A second handle on the read end of the server's output (its reader thread owns the
/// first), to tell whether the pipe holds bytes that thread has not taken yet.
#[cfg_attr(
    not(target_os = "linux"),
    allow(dead_code, reason = "looked into on Linux only")
)]
pub(crate) struct Peek(#[cfg(target_os = "linux")] std::os::fd::OwnedFd);

impl Peek {
    /// `None` where the pipe cannot be looked into.
    pub(crate) fn of(stdout: &ChildStdout) -> Option<Peek> {
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsFd;
            stdout.as_fd().try_clone_to_owned().ok().map(Peek)
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = stdout;
            None
        }
    }

    /// Bytes in the pipe not read yet.
    pub(crate) fn unread(&self) -> Option<usize> {
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            unread(self.0.as_raw_fd())
        }
        #[cfg(not(target_os = "linux"))]
        {
            None
        }
    }
}

/// `FIONREAD` of a pipe end.
#[cfg(target_os = "linux")]
fn unread(fd: std::os::fd::RawFd) -> Option<usize> {
    let mut bytes: libc::c_int = 0;
    // SAFETY: FIONREAD writes one c_int through the pointer, which points at one; `fd` is
    // open (borrowed from a live handle).
    let result = unsafe { libc::ioctl(fd, libc::FIONREAD, &mut bytes) };
    (result == 0).then(|| usize::try_from(bytes).ok()).flatten()
}

/// The state letter in a `/proc/…/stat` file: `pid (comm) state …`; comm may hold
/// spaces and parentheses.
#[cfg(target_os = "linux")]
fn state_at(path: &str) -> Option<char> {
    let stat = std::fs::read_to_string(path).ok()?;
    let (_, rest) = stat.rsplit_once(')')?;
    rest.trim_start().chars().next()
}

/// Running or runnable, or in uninterruptible I/O.
#[cfg(target_os = "linux")]
fn at_work(state: char) -> bool {
    matches!(state, 'R' | 'D')
}

/// True when `group` has no members left (an unreaped zombie still counts).
#[cfg(unix)]
fn group_is_empty(group: libc::pid_t) -> bool {
    // SAFETY: signal 0 only checks for existence and permission.
    let result = unsafe { libc::kill(-group, 0) };
    result != 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
}

/// Become the server `command` describes (the launcher, `mcpctl run`): on unix the
/// process is replaced (`exec`: same pid, the client's pipes and signals reach the server
/// directly), so this returns only the error that prevented it. On Windows, which has no
/// `exec`, the server runs as a child in a kill-on-close Job Object with the same stdio
/// (ending the launcher ends the server and what it started) and its exit code is
/// returned for the launcher to exit with.
pub(crate) fn become_server(
    #[cfg_attr(windows, allow(unused_mut, reason = "only exec needs it mutable"))]
    mut command: Command,
) -> std::io::Result<i32> {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        Err(command.exec())
    }
    #[cfg(windows)]
    {
        let mut child = command.spawn()?;
        let _job = job::Job::assign(&child);
        let status = child.wait()?;
        Ok(status.code().unwrap_or(1))
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::process::Stdio;

    /// `program args…` started as a server is (own group, tagged, tracked), its input
    /// closed, then ended on a thread of its own with an exit grace far beyond the test's
    /// limit: the ending, or `None` if it did not come within that limit.
    fn ended(program: &str, args: &[&str], hurry: Hurry) -> Option<Ending> {
        let (done, ending) = std::sync::mpsc::channel();
        // The thread that starts a server must outlive it (`PR_SET_PDEATHSIG`).
        let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
        let program = program.to_owned();
        std::thread::spawn(move || {
            let mut command = Command::new(program);
            command.args(args).stdin(Stdio::piped());
            let tag = configure(&mut command);
            // Not started: no ending is sent, and the caller sees `None`.
            let Ok(mut child) = command.spawn() else {
                return;
            };
            let tracked = track(&child, tag);
            drop(child.stdin.take());
            let grace = Duration::from_secs(3600);
            let ending = end_group(&mut child, grace, Duration::from_secs(60), &hurry);
            sweep(&tracked.tag);
            let _ = done.send(ending);
        });
        ending.recv_timeout(Duration::from_secs(120)).ok()
    }

    /// Issue 26: once nothing but mcpctl's exit waits, a server that stays after its
    /// input closes, idle, is told to stop without the exit grace running out.
    #[test]
    fn an_idle_server_gets_sigterm_at_once_when_hurried() {
        assert_eq!(
            ended("sleep", &["1000"], Hurry::now()),
            Some(Ending::Terminated)
        );
    }

    /// A server still at work after its input closed keeps the grace, hurried or not:
    /// this one ignores SIGTERM and exits by itself once its work is done.
    #[test]
    fn a_server_at_work_keeps_the_grace_when_hurried() {
        let script = "trap '' TERM; i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done";
        assert_eq!(
            ended("sh", &["-c", script], Hurry::now()),
            Some(Ending::Exited)
        );
    }

    #[test]
    fn a_sleeping_process_is_idle_and_a_busy_one_is_not() {
        let mut sleeping = Command::new("sleep").arg("1000").spawn().unwrap();
        let mut busy = Command::new("sh")
            .args(["-c", "while :; do :; done"])
            .spawn()
            .unwrap();
        // `sleep` may still be starting: idle once it waits.
        let mut sleeping_idle = false;
        for _ in 0..500 {
            if idle(sleeping.id()) {
                sleeping_idle = true;
                break;
            }
            std::thread::sleep(POLL);
        }
        let busy_idle = idle(busy.id());
        for child in [&mut sleeping, &mut busy] {
            let _ = child.kill();
            let _ = child.wait();
        }
        assert!(sleeping_idle);
        assert!(!busy_idle);
        // A process that is gone cannot be seen idle.
        assert!(!idle(sleeping.id()));
    }
}
