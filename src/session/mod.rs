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
    /// Texts a plan has decided for files, by path, that a dry run of a later step reads
    /// instead of the file on disk, and updates with its edit (`plan`'s switches run on the
    /// text `apply` will have written: one diff per file, from its bytes now to its bytes
    /// after every step). Empty outside a plan.
    pub planned: std::sync::Mutex<std::collections::HashMap<PathBuf, String>>,
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
    /// The text a plan has decided for `path` (see [`Context::planned`]).
    pub fn planned_text(&self, path: &std::path::Path) -> Option<String> {
        self.planned
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(path)
            .cloned()
    }

    /// Set (`Some`) or forget (`None`) the text a plan has decided for `path`.
    pub fn plan_text(&self, path: &std::path::Path, text: Option<String>) {
        let mut planned = self
            .planned
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match text {
            Some(text) => planned.insert(path.to_path_buf(), text),
            None => planned.remove(path),
        };
    }

    /// This machine's secret store, beside the state directory the command uses.
    pub fn secret_store(&self) -> crate::secret_store::Store {
        crate::secret_store::Store::new(
            &self.platform,
            self.state.root().map(std::path::Path::to_path_buf),
        )
    }
}
