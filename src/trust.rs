//! Whether mcpctl may start a configured server: the one rule `doctor`, `tools` and `call`
//! share. A project file (`.mcp.json`, `.cursor/mcp.json`, ...) arrives with a cloned
//! repository, so its commands are the repository author's, not the user's: they are
//! started only when the client itself recorded the user's approval (the table's
//! `approval` field: Claude Code's `enabledMcpjsonServers` / `enableAllProjectMcpServers`,
//! Codex's `trust_level = "trusted"`, Gemini CLI's and Qwen Code's trusted folders) or
//! the user passes `--trust-project`. Entries in the user's own files (user, local and
//! legacy scopes) are the user's and are trusted.
//!
//! Reads only the approval files, each at most once per [`TrustRule`]; never writes.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::clients::{Approval, Client, Scope};
use crate::platform::Platform;
use crate::sources::{Chooser, Origin};

/// The name `folder` asks about: no server has it, so only a folder-wide approval counts.
const FOLDER: &str = "\0";

/// The verdict for one entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Trust {
    /// From one of the user's own files.
    Own,
    /// The client recorded the user's approval; `by` says where.
    Approved { by: String },
    /// The user passed `--trust-project`.
    Flag,
    /// Not to be started; `reason` says why and how to allow it.
    Untrusted { reason: String },
}

impl Trust {
    /// Whether the entry may be started.
    #[must_use]
    pub fn allows_start(&self) -> bool {
        !matches!(self, Trust::Untrusted { .. })
    }
}

/// What an approval file says about one entry.
enum Recorded {
    Approved,
    Refused,
    Nothing,
}

/// The rule for one run: the project directory, the flag, and a cache of approval files.
pub struct TrustRule<'a> {
    platform: &'a Platform,
    project: &'a Path,
    trust_project: bool,
    /// Parsed approval files (`None`: missing or unreadable).
    files: RefCell<HashMap<PathBuf, Option<Value>>>,
}

impl<'a> TrustRule<'a> {
    #[must_use]
    pub fn new(platform: &'a Platform, project: &'a Path, trust_project: bool) -> Self {
        Self {
            platform,
            project,
            trust_project,
            files: RefCell::default(),
        }
    }

    /// May `client`'s entry `name` in `scope` be started?
    #[must_use]
    pub fn decide(&self, client: &Client, scope: Scope, name: &str) -> Trust {
        if scope != Scope::Project {
            return Trust::Own;
        }
        if self.trust_project {
            return Trust::Flag;
        }
        let how = "pass --trust-project to start it anyway";
        if client.approval.is_none()
            && let Some(folder_trust) = client
                .loading
                .folder_trust
                .as_ref()
                .filter(|t| t.project_only)
        {
            return self.folder_trusted(client, folder_trust, how);
        }
        let Some(approval) = &client.approval else {
            return Trust::Untrusted {
                reason: format!(
                    "a project entry, and {} keeps no approval mcpctl can read; {how}",
                    client.name
                ),
            };
        };
        let Some(file) = self.approval_file(client, approval) else {
            return Trust::Untrusted {
                reason: format!(
                    "a project entry {} has not approved (its approval file cannot be located); {how}",
                    client.name
                ),
            };
        };
        let shown = self.shown(&file);
        let verdict = self.with_file(&file, |document| {
            let project = client.project_key(self.platform.os, self.project);
            let mut node = document?;
            for segment in &approval.at {
                node = node.get(segment.replace("{project}", &project))?;
            }
            let listed = |key: &Option<String>| {
                key.as_ref()
                    .and_then(|key| node.get(key))
                    .and_then(Value::as_array)
                    .is_some_and(|names| names.iter().any(|n| n.as_str() == Some(name)))
            };
            let key = approval.key.replace("{project}", &project);
            Some(if listed(&approval.denied) {
                Recorded::Refused
            } else if node.get(&key).is_some_and(|v| approval.values.contains(v))
                || listed(&approval.names)
            {
                Recorded::Approved
            } else {
                Recorded::Nothing
            })
        });
        match verdict.unwrap_or(Recorded::Nothing) {
            // The folder is trusted, but the client itself still holds the server.
            Recorded::Approved if name != FOLDER && per_server(approval).is_some() => {
                Trust::Untrusted {
                    reason: format!(
                        "{} holds each project server pending approval, even in a trusted folder, until {}; {how}",
                        client.name,
                        per_server(approval)
                            .unwrap_or_default()
                            .replace("{name}", name)
                    ),
                }
            }
            Recorded::Approved => Trust::Approved {
                by: format!("approved in {} ({shown})", client.name),
            },
            Recorded::Refused => Trust::Untrusted {
                reason: format!(
                    "a project entry refused in {} ({shown}); {how}",
                    client.name
                ),
            },
            Recorded::Nothing => Trust::Untrusted {
                reason: format!(
                    "a project entry {} has not approved (nothing in {shown} approves it); {how}",
                    client.name
                ),
            },
        }
    }

    /// Does the user trust the project folder itself, as a whole: `--trust-project`, or a
    /// client that records the folder (not one server) as approved (Claude Code's
    /// `enableAllProjectMcpServers`, Codex's `trust_level = "trusted"`, Gemini CLI's and
    /// Qwen Code's trusted folders)? What a project's `mcpctl.toml` may write depends on it.
    #[must_use]
    pub fn folder(&self, table: &crate::clients::ClientTable) -> Trust {
        if self.trust_project {
            return Trust::Flag;
        }
        for client in table.all() {
            // No server name can match a per-server list: only a folder-wide approval does.
            if let Trust::Approved { by } = self.decide(client, Scope::Project, FOLDER) {
                return Trust::Approved { by };
            }
        }
        Trust::Untrusted {
            reason: "no client records this folder as trusted; pass --trust-project".to_owned(),
        }
    }

    /// Does `client` itself record this folder as trusted (its trusted folders, Codex's
    /// `trust_level`)? Clients that read a project's settings only in a trusted folder
    /// ignore them until it does.
    #[must_use]
    pub fn client_folder(&self, client: &Client) -> Trust {
        self.decide(client, Scope::Project, FOLDER)
    }

    /// May a read-only source's entry be started? What the user installed (a plugin, an
    /// extension) is their own choice, an administrator's file is trusted as deployed;
    /// a plugin only a project's committed settings enable is the repository's choice.
    #[must_use]
    pub fn decide_origin(&self, origin: &Origin) -> Trust {
        match origin.chosen_by {
            Chooser::User => Trust::Own,
            Chooser::Admin => Trust::Approved {
                by: format!("deployed by an administrator ({})", origin.file.display()),
            },
            Chooser::Project if self.trust_project => Trust::Flag,
            Chooser::Project => Trust::Untrusted {
                reason: format!(
                    "only the project's settings enable the {} `{}`; pass --trust-project to start it anyway",
                    origin.kind, origin.name
                ),
            },
        }
    }

    /// A client that loads a project's servers in a folder it trusts, with no approval of
    /// its own beyond that (Copilot CLI's `trusted_folders`): the row's folder trust decides.
    fn folder_trusted(
        &self,
        client: &Client,
        folder_trust: &crate::clients::loading::FolderTrust,
        how: &str,
    ) -> Trust {
        let Ok(file) = self.platform.expand(&folder_trust.file) else {
            return Trust::Untrusted {
                reason: format!(
                    "a project entry in a folder {} does not trust (its trust file cannot be located); {how}",
                    client.name
                ),
            };
        };
        let shown = self.shown(&file);
        let resolved = std::fs::canonicalize(self.project).unwrap_or_else(|_| self.project.into());
        let trusted = self
            .with_file(&file, |document| {
                let rules = document?;
                Some(
                    folder_trust.verdict(rules, &resolved) == Some(true)
                        || folder_trust.verdict(rules, self.project) == Some(true),
                )
            })
            .unwrap_or(false);
        if trusted {
            Trust::Approved {
                by: format!("a folder {} trusts ({shown})", client.name),
            }
        } else {
            Trust::Untrusted {
                reason: format!(
                    "a project entry in a folder {} does not trust (nothing in {shown} covers it): {}; or {how}",
                    client.name, folder_trust.how
                ),
            }
        }
    }

    fn approval_file(&self, client: &Client, approval: &Approval) -> Option<PathBuf> {
        match &approval.file {
            Some(template) => self.platform.expand(template).ok(),
            None => client.user_path(self.platform).ok().flatten(),
        }
    }

    /// `~/...` for a file under HOME.
    fn shown(&self, file: &Path) -> String {
        match self
            .platform
            .home()
            .ok()
            .and_then(|home| file.strip_prefix(home).ok())
        {
            Some(rest) => format!("~/{}", rest.display()),
            None => file.display().to_string(),
        }
    }

    fn with_file<T>(
        &self,
        file: &Path,
        look: impl FnOnce(Option<&Value>) -> Option<T>,
    ) -> Option<T> {
        let mut files = self.files.borrow_mut();
        let document = files
            .entry(file.to_path_buf())
            .or_insert_with(|| read(file));
        look(document.as_ref())
    }
}

/// The client command that approves one project server, where a trusted folder is not
/// enough (the row's `approval.per_server`): Qwen Code holds every project server
/// "pending approval" until `qwen mcp approve NAME` (its approvals, in
/// `~/.qwen/mcpApprovals.json`, are bound to a hash of the entry that mcpctl does not
/// compute).
fn per_server(approval: &Approval) -> Option<&str> {
    approval.per_server.as_deref()
}

/// Parse an approval file: TOML by extension, else JSON (strict first: `~/.claude.json`
/// can be very large) with JSONC as the fallback.
fn read(file: &Path) -> Option<Value> {
    let text = crate::fs::read_source(file).ok()?.text;
    if file.extension().is_some_and(|e| e == "toml") {
        return toml::from_str::<Value>(&text).ok();
    }
    serde_json::from_str::<Value>(&text)
        .ok()
        .or_else(|| jsonc_parser::parse_to_serde_value::<Value>(&text, &Default::default()).ok())
}
