//! Exit codes (one enum, mapped in one place) and errors that carry a `hint:` for the
//! renderer. Messages: lowercase, no trailing period, name the file, end with what to do.

use std::process::ExitCode;

/// mcpctl's documented exit codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// 0: success.
    Success,
    /// 1: `check`, `doctor` or `plan --check` ran and found problems; `call`'s tool
    /// reported an error.
    Problems,
    /// 1: `apply --exit-code` changed a client file (with `--dry-run`: would change one).
    Changed,
    /// 1: a writing command wrote its files but could not record what it wrote in
    /// mcpctl's ledger (a damaged ledger): the write stands, it is not a failure.
    Unrecorded,
    /// 2: error (usage, unknown client, unparsable file, I/O, a failed target).
    Error,
    /// 130: the person cancelled a prompt (Esc, Ctrl-C).
    Cancelled,
}

impl From<ExitStatus> for ExitCode {
    fn from(status: ExitStatus) -> ExitCode {
        ExitCode::from(match status {
            ExitStatus::Success => 0,
            ExitStatus::Problems | ExitStatus::Changed | ExitStatus::Unrecorded => 1,
            ExitStatus::Error => 2,
            ExitStatus::Cancelled => 130,
        })
    }
}

/// The exit codes as `--help` and docs/reference/exit-codes.md state them (a macro, so `--help` can
/// `concat!` it after its examples).
#[macro_export]
macro_rules! exit_codes_help {
    () => {
        "Exit codes:\n  0    success\n  1    `check`, `doctor` or `plan --check` ran and found problems; the tool `call` called reported an error; `apply --exit-code` changed a file; a write mcpctl could not record in its ledger\n  2    error: bad usage, unknown client, unparsable file, I/O failure, or a failed target\n  130  a prompt was cancelled (Esc, Ctrl-C)"
    };
}

/// An error meant for a person: the message, and what to do about it.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct UserError {
    pub message: String,
    pub hint: Option<String>,
}

impl UserError {
    pub fn new(message: impl Into<String>) -> UserError {
        UserError {
            message: message.into(),
            hint: None,
        }
    }

    pub fn hint(mut self, hint: impl Into<String>) -> UserError {
        self.hint = Some(hint.into());
        self
    }
}

/// The first hint in an error chain.
pub fn hint_of(error: &anyhow::Error) -> Option<&str> {
    error.chain().find_map(|e| {
        e.downcast_ref::<UserError>()
            .and_then(|u| u.hint.as_deref())
    })
}
