//! The floor every command stands on: the `Context` built once in `lib::run`, reading
//! what is configured (`inventory`, one entry a `found::Found`, what each client really
//! loads of it `loads`), choosing files (`targets`), the one write loop and its undo
//! primitives (`edit`), the single-entry write path that records in the ledger (`write`),
//! moving literal secrets into the store (`adopt`), mcpctl's own program path
//! (`program`), and the MCP Registry as a command asks it (`registry`). The engines that
//! serve verbs (`doctor`, `toggle`, `manifest`) stand on this floor; nothing here parses
//! arguments or prints a report.

pub mod adopt;
pub mod edit;
pub mod found;
pub mod inventory;
pub mod loads;
pub mod program;
pub mod registry;
pub mod scrub;
pub mod signin;
pub mod targets;
pub mod write;

use std::path::PathBuf;

use crate::clients::ClientTable;
use crate::platform::Platform;

/// What every command may use; built once in `lib::run`.
#[derive(Debug)]
pub struct Context {
    pub platform: Platform,
    pub table: ClientTable,
    /// Project directory for project and local scopes (absolute).
    pub project: PathBuf,
    /// Prompts are allowed (a terminal, and no `--no-input`).
    pub interactive: bool,
    /// Where backups of edited files go.
    pub backups: Option<PathBuf>,
    /// Ledger and journal: what mcpctl wrote, and what each command changed.
    pub state: crate::state::State,
    /// The command line as typed (program name first), for messages that show a corrected
    /// one.
    pub argv: Vec<String>,
    /// `--force`: an existing config file of 0 bytes may be written as a new document
    /// (without it, such a file is reported: it may be another program's half-done write).
    pub write_empty: bool,
    /// What a writing command does with a file its client rejects (a comment or trailing
    /// comma its parser refuses, `Client::rejects`).
    pub rejected: Rejected,
}

/// What a writing command does with a file its client rejects as a whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rejected {
    /// Refuse, naming the offending byte and the fix; `force`: the command takes
    /// `--force` (the hint then offers it).
    Refuse { force: bool },
    /// Write it anyway (`--force`; `check --fix`, which repairs the file first).
    Write,
}

impl Context {
    /// This machine's secret store, beside the state directory the command uses.
    pub fn secret_store(&self) -> crate::secret_store::Store {
        crate::secret_store::Store::new(
            &self.platform,
            self.state.root().map(std::path::Path::to_path_buf),
        )
    }
}
