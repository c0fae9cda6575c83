//! doctor against `mcpctl.lock`: a server whose tools were added, removed or whose
//! definitions changed since they were locked is a warning (`--strict` fails it), with
//! the diff of each changed description; a server the lock does not have is "not
//! locked", which is no fault.

use std::path::Path;

use crate::doctor::probe::{DoctorResult, LockCheck, LockStatus, Status};
use crate::lock::{Changes, Lock, LockedServer};

/// Compare a server that listed its tools with its record in `lock` (read from `file`)
/// for the capabilities it was started declaring (`declared`; `None`: mcpctl's own), and
/// record the outcome on `result`. A server that did not list tools is left alone.
pub(crate) fn compare(
    result: &mut DoctorResult,
    file: &Path,
    lock: &Lock,
    declared: Option<&serde_json::Value>,
) {
    if result.tools.is_none() || result.name.is_empty() {
        return;
    }
    let Some(locked) = lock
        .server(&result.name)
        .map(|l| l.for_profile(&crate::lock::profile_of(declared)))
    else {
        result.record(
            "lock",
            Status::Ok,
            format!(
                "not locked: `{}` has no record of it (`mcpctl lock {}` adds one)",
                crate::output::file(file),
                result.name
            ),
        );
        result.lock = Some(LockCheck {
            file: file.to_path_buf(),
            status: LockStatus::NotLocked,
            changes: Changes::default(),
        });
        return;
    };
    let now = LockedServer::of(
        result.server_name.clone(),
        result.server_version.clone(),
        &result.tool_definitions,
    );
    let changes = locked.changes(&now);
    let status = if changes.is_empty() {
        result.record(
            "lock",
            Status::Ok,
            format!(
                "its {} tool{} match `{}`",
                now.tools.len(),
                super::plural(now.tools.len()),
                crate::output::file(file)
            ),
        );
        LockStatus::Same
    } else {
        result.record(
            "lock",
            Status::Warn,
            format!(
                "tools changed since `{}`: {}; if you trust the change, `mcpctl lock {}` records it",
                crate::output::file(file),
                changes.summary(),
                result.name
            ),
        );
        LockStatus::Changed
    };
    result.lock = Some(LockCheck {
        file: file.to_path_buf(),
        status,
        changes,
    });
}
