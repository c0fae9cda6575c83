//! Administrators' MCP policy files, read only: Claude Code's and Copilot's
//! `managed-settings.json` (`allowedMcpServers` / `deniedMcpServers`) and Codex's
//! `requirements.toml` (`[mcp_servers.NAME.identity]`). Each vendor's rules are parsed
//! from text and judged against a server here, without touching the disk (`read` is the one
//! place that opens the files), so every rule is a table test; `export` writes the same
//! files from a manifest. `list`, `doctor` and `check` show what a policy blocks; `add`,
//! `copy` and `apply` refuse it, naming the rule and the file.

mod codex;
pub mod export;
mod glob;
mod lists;
pub mod read;

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::entry::{ServerEntry, Transport};

pub use crate::clients::PolicyKind;

/// What a policy judges a server by: its name and how it starts or where it is.
#[derive(Debug, Clone, Copy)]
pub struct Subject<'a> {
    pub name: &'a str,
    pub transport: &'a Transport,
}

impl<'a> Subject<'a> {
    pub fn of(name: &'a str, entry: &'a ServerEntry) -> Self {
        Subject {
            name,
            transport: &entry.transport,
        }
    }

    /// `[command, args...]` of a local server.
    fn command_line(&self) -> Option<Vec<&'a str>> {
        match self.transport {
            Transport::Stdio { command, args, .. } => Some(
                std::iter::once(command.as_str())
                    .chain(args.iter().map(String::as_str))
                    .collect(),
            ),
            Transport::Remote { .. } => None,
        }
    }

    fn url(&self) -> Option<&'a str> {
        match self.transport {
            Transport::Remote { url, .. } => Some(url),
            Transport::Stdio { .. } => None,
        }
    }
}

/// The MCP rules of one policy file.
#[derive(Debug, Clone, PartialEq)]
enum Rules {
    Lists(lists::Lists),
    Codex(codex::Requirements),
}

/// One parsed policy file.
#[derive(Debug, Clone, PartialEq)]
pub struct Policy {
    pub kind: PolicyKind,
    pub file: PathBuf,
    rules: Rules,
}

/// Whether a policy denies the server outright or only does not allow it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// A deny rule matches it.
    Denied,
    /// An allow-list exists and nothing on it matches.
    NotAllowed,
}

const DENIED: &str = "blocked by policy";
const NOT_ALLOWED: &str = "not allowed by policy";

/// Why a policy keeps a server out: the file, the verdict and the rule, for messages and
/// `--json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Block {
    pub kind: PolicyKind,
    pub file: PathBuf,
    pub verdict: Verdict,
    /// The rule as the file spells it (`deniedMcpServers: {"serverName":"x"}`) or what is
    /// missing from the allow-list.
    pub rule: String,
}

impl Block {
    /// Whether a `not_loaded` reason is a policy's ([`Block::reason`]).
    pub fn is_reason(why: &str) -> bool {
        why.starts_with(DENIED) || why.starts_with(NOT_ALLOWED)
    }

    /// The `not_loaded` reason `list` and `doctor` show.
    pub fn reason(&self, client: &str) -> String {
        let word = match self.verdict {
            Verdict::Denied => DENIED,
            Verdict::NotAllowed => NOT_ALLOWED,
        };
        format!(
            "{word}: {} in `{}`; {client} will not load it",
            self.rule,
            self.file.display()
        )
    }

    /// Who can change it, for refusals.
    pub fn ask(&self) -> String {
        format!(
            "`{}` is deployed by your administrator (MDM or configuration management): ask them to allow the server; mcpctl does not override it, the client would block it anyway",
            self.file.display()
        )
    }
}

impl Policy {
    /// Parse a policy file's text. `Ok(None)`: the file has no MCP rules.
    pub fn parse(kind: PolicyKind, file: &Path, text: &str) -> Result<Option<Policy>, String> {
        let rules = match kind {
            PolicyKind::ClaudeManaged | PolicyKind::CopilotManaged => {
                lists::Lists::parse(text)?.map(Rules::Lists)
            }
            PolicyKind::CodexRequirements => codex::Requirements::parse(text)?.map(Rules::Codex),
        };
        Ok(rules.map(|rules| Policy {
            kind,
            file: file.to_path_buf(),
            rules,
        }))
    }

    /// Why this policy keeps `subject` out, if it does.
    pub fn judge(&self, subject: &Subject<'_>) -> Option<Block> {
        let (verdict, rule) = match &self.rules {
            Rules::Lists(l) => l.judge(self.kind, subject)?,
            Rules::Codex(r) => r.judge(subject)?,
        };
        Some(Block {
            kind: self.kind,
            file: self.file.clone(),
            verdict,
            rule,
        })
    }
}

/// The first policy that keeps `subject` out.
pub fn blocked(policies: &[Policy], subject: &Subject<'_>) -> Option<Block> {
    policies.iter().find_map(|p| p.judge(subject))
}

#[cfg(test)]
mod tests;
