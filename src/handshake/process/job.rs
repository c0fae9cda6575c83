//! Windows: each stdio server runs in a Job Object of its own, so ending the server ends
//! what it started (`cmd /c npx …` → `node`), as its process group does on unix. The job
//! is kill-on-close: when its handle closes — on drop, or when mcpctl itself dies — every
//! process still in it is terminated, so nothing outlives `doctor`.
//!
//! The server is assigned right after it is created; a process it started in the
//! microseconds before would escape (`cmd`, `npx` and `node` take far longer than that).

use std::os::windows::io::AsRawHandle;
use std::process::Child;
use std::time::{Duration, Instant};

use windows_sys::Win32::Foundation::{CloseHandle, HANDLE};
use windows_sys::Win32::System::JobObjects::{
    AssignProcessToJobObject, CreateJobObjectW, JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
    JOBOBJECT_BASIC_ACCOUNTING_INFORMATION, JOBOBJECT_EXTENDED_LIMIT_INFORMATION,
    JobObjectBasicAccountingInformation, JobObjectExtendedLimitInformation,
    QueryInformationJobObject, SetInformationJobObject, TerminateJobObject,
};

/// An owned kill-on-close job handle.
pub(crate) struct Job(HANDLE);

// SAFETY: a job handle is a kernel handle; any thread may use or close it.
unsafe impl Send for Job {}
unsafe impl Sync for Job {}

impl Job {
    /// A kill-on-close job holding `child`, or `None` when Windows refuses one (then
    /// only the server itself is ended, as without a job).
    pub(crate) fn assign(child: &Child) -> Option<Job> {
        // SAFETY: null attributes and name create an unnamed job with default security.
        let handle = unsafe { CreateJobObjectW(std::ptr::null(), std::ptr::null()) };
        if handle.is_null() {
            return None;
        }
        let job = Job(handle);
        let mut limits = JOBOBJECT_EXTENDED_LIMIT_INFORMATION::default();
        limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
        // SAFETY: `limits` is the structure this information class names, of the size
        // passed; the job handle is valid.
        let limited = unsafe {
            SetInformationJobObject(
                job.0,
                JobObjectExtendedLimitInformation,
                (&raw const limits).cast(),
                size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>() as u32,
            )
        } != 0;
        // SAFETY: both handles are valid; `child` owns its process handle.
        let assigned =
            limited && unsafe { AssignProcessToJobObject(job.0, child.as_raw_handle()) } != 0;
        assigned.then_some(job)
    }

    /// How many processes in the job are still running (0 if Windows cannot say).
    pub(crate) fn active(&self) -> u32 {
        let mut info = JOBOBJECT_BASIC_ACCOUNTING_INFORMATION::default();
        // SAFETY: `info` is the structure this information class names, of the size
        // passed; a null return-length pointer is allowed.
        let ok = unsafe {
            QueryInformationJobObject(
                self.0,
                JobObjectBasicAccountingInformation,
                (&raw mut info).cast(),
                size_of::<JOBOBJECT_BASIC_ACCOUNTING_INFORMATION>() as u32,
                std::ptr::null_mut(),
            )
        } != 0;
        if ok { info.ActiveProcesses } else { 0 }
    }

    /// The CPU time the job's processes have used so far, in 100 ns units (user and
    /// kernel, the ended ones included); `None` if Windows cannot say.
    pub(crate) fn cpu_time(&self) -> Option<i64> {
        let mut info = JOBOBJECT_BASIC_ACCOUNTING_INFORMATION::default();
        // SAFETY: as in `active`.
        let ok = unsafe {
            QueryInformationJobObject(
                self.0,
                JobObjectBasicAccountingInformation,
                (&raw mut info).cast(),
                size_of::<JOBOBJECT_BASIC_ACCOUNTING_INFORMATION>() as u32,
                std::ptr::null_mut(),
            )
        } != 0;
        ok.then(|| info.TotalUserTime.saturating_add(info.TotalKernelTime))
    }

    /// Terminate every process in the job and wait up to `limit` for them to be gone.
    pub(crate) fn terminate(&self, limit: Duration) {
        // SAFETY: the job handle is valid; 1 is the exit code the processes get.
        unsafe {
            TerminateJobObject(self.0, 1);
        }
        let until = Instant::now() + limit;
        while self.active() > 0 && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Job {
    fn drop(&mut self) {
        // SAFETY: the handle is owned and closed once. Closing it terminates whatever is
        // still in the job (kill-on-close).
        unsafe {
            CloseHandle(self.0);
        }
    }
}

/// The CPU time `child` itself has used so far, in 100 ns units; `None` if Windows
/// cannot say.
pub(crate) fn process_cpu_time(child: &Child) -> Option<i64> {
    use windows_sys::Win32::Foundation::FILETIME;
    use windows_sys::Win32::System::Threading::GetProcessTimes;
    let mut times = [FILETIME::default(); 4];
    let [created, exited, kernel, user] = &mut times;
    // SAFETY: the handle is `child`'s own and valid; each pointer is a FILETIME.
    let ok = unsafe { GetProcessTimes(child.as_raw_handle(), created, exited, kernel, user) } != 0;
    let value = |t: &FILETIME| (i64::from(t.dwHighDateTime) << 32) | i64::from(t.dwLowDateTime);
    ok.then(|| value(kernel).saturating_add(value(user)))
}
