//! The client table: loading `clients.toml` (built in, plus `--clients FILE` overrides),
//! validating it, resolving each client's files for a `Platform`, and detection.
//!
//! This module knows where files are; it never reads or writes their content.

pub mod loading;
mod row;
pub mod verified;

use std::path::{Path, PathBuf};

/// The variable syntax lives in `vars`; the table names it (`fields.var_syntax`).
pub use crate::vars::VarSyntax;
pub use row::{
    Approval, DeferredTools, Here, HereKind, PolicyKind, ProjectKey, SourceKind, Switch,
    ToolFilter, Unread,
};
pub use row::{DialectName, Fields, TransportName, UntypedRemote};
use row::{Row, TableFile};
pub use verified::{Date, Verified};

use crate::formats::{Format, ServersAt};
use crate::platform::{Os, Platform, TemplateError};

/// The table as it is edited (the tests check it; the binary carries `BUILTIN_JSON`).
#[cfg(test)]
const BUILTIN_TABLE: &str = include_str!("../../clients.toml");

/// The table compiled into the binary: `clients.toml` turned into JSON by build.rs,
/// which serde_json reads in a tenth of the time the TOML parser takes (every command
/// loads the table first). The table's checks run in the tests
/// (`tests::builtin_json_is_the_checked_toml_table`), not at every start.
const BUILTIN_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/clients.json"));

const BUILTIN_ORIGIN: &str = "clients.toml (built in)";

/// The table is malformed.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    #[error("cannot parse client table `{origin}`: {message}")]
    Parse { origin: String, message: String },
    #[error("client table `{origin}`: {message}")]
    Invalid { origin: String, message: String },
}

/// One client (a validated row).
#[derive(Debug, Clone)]
pub struct Client {
    pub id: String,
    pub name: String,
    /// Other words people type for this client (`code` for VS Code); several rows may
    /// share one (`claude`), which makes it ambiguous.
    pub aliases: Vec<String>,
    pub format: Format,
    pub servers_key: Vec<String>,
    /// `Some(k)`: the servers are a list whose items carry their name under `k` (Mistral
    /// Vibe's `[[mcp_servers]]` with `name`); `None`: a map from name to entry.
    pub servers_name_key: Option<String>,
    pub local_key: Option<Vec<String>>,
    /// How `{project}` is spelled in key paths (`local_key`, `approval`, `switch`).
    pub project_key: ProjectKey,
    pub project: Option<String>,
    /// Other project files the client reads (`opencode.jsonc`, `.kilo/kilo.json`): mcpctl
    /// edits the first of `project` and these that exists, else creates `project`.
    pub project_also: Vec<String>,
    pub dialect: DialectName,
    pub fields: Fields,
    pub remote_hint: Option<String>,
    /// How the client records approval of project servers; `None`: it keeps none that
    /// mcpctl can read.
    pub approval: Option<Approval>,
    /// How the client switches a server off; `None`: `disable` parks entries.
    pub switch: Option<Switch>,
    /// How the client switches a server off for one project (`--here`); `None`: it has
    /// no project-level switch.
    pub here: Option<Here>,
    /// The entry's tool allow/deny fields; `None`: the file has none.
    pub tool_filter: Option<ToolFilter>,
    /// How the client defers tool definitions; `None`: every tool is loaded up front.
    pub deferred_tools: Option<DeferredTools>,
    /// Names the client keeps for its own servers (row field `reserved_names`): `add`
    /// refuses them.
    pub reserved_names: Vec<String>,
    /// The tool that writes this file (row field `owned_by`, `home-manager`): read as a
    /// source by `list`, `doctor` and `import`, never a target of a writing command.
    pub owned_by: Option<String>,
    pub source: String,
    /// How the client loads and connects to servers (row block `[client.loading]`).
    pub loading: loading::Loading,
    /// When the row was checked against the client's own documentation or program (row
    /// field `verified`), or that it is not confirmed; `clients` says so, and shows stale
    /// rows.
    pub verified: Verified,
    /// The client version or docs page the row was checked against.
    pub verified_against: Option<String>,
    /// Files that look like the client's but that it does not read (`check`: MCP006).
    pub unread: Vec<Unread>,
    /// Places the client loads servers from that the user did not write (plugins,
    /// extensions, an administrator's file): listed and checked, never edited.
    pub read_only: Vec<ReadOnlySource>,
    /// An administrator's MCP policy files the client enforces (row `[[client.policy]]`).
    pub policy: Vec<PolicyFile>,
    legacy: Option<LegacyLocation>,
    paths_macos: Vec<String>,
    paths_linux: Vec<String>,
    paths_windows: Vec<String>,
    detect_paths: Vec<String>,
    detect_commands: Vec<String>,
}

/// Which of a client's files.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    clap::ValueEnum,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// The user's own config file (every project).
    #[value(alias = "global")]
    User,
    /// The project file (`.mcp.json`, `.cursor/mcp.json`, ...) under the project directory.
    Project,
    /// Per-project entries inside the user file (Claude Code, CodeBuddy).
    Local,
    /// An older file the client still reads (VS Code's `settings.json`); never written.
    #[value(skip)]
    Legacy,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::User => "user",
            Scope::Project => "project",
            Scope::Local => "local",
            Scope::Legacy => "legacy",
        }
    }
}

/// A read-only older location (row field `legacy`).
#[derive(Debug, Clone)]
struct LegacyLocation {
    macos: Vec<String>,
    linux: Vec<String>,
    windows: Vec<String>,
    servers_key: Vec<String>,
}

impl LegacyLocation {
    fn templates(&self, os: Os) -> &[String] {
        match os {
            Os::Macos => &self.macos,
            Os::Linux => &self.linux,
            Os::Windows => &self.windows,
        }
    }
}

/// A read-only source of servers (row field `read_only`; src/sources/ reads it).
#[derive(Debug, Clone)]
pub struct ReadOnlySource {
    pub kind: SourceKind,
    macos: Vec<String>,
    linux: Vec<String>,
    windows: Vec<String>,
    /// Files that switch parts of the source on or off (templates, or project-relative).
    pub settings: Vec<String>,
    pub servers_key: Vec<String>,
    /// When present, the client loads only this source's servers.
    pub exclusive: bool,
    /// The client skips the file unless it and every folder above it are root's and
    /// writable by no one else (POSIX; `crate::fs::not_root_only`).
    pub root_owned: bool,
    /// How a person changes these servers; `{origin}` is the plugin or extension name.
    pub manage: String,
}

impl ReadOnlySource {
    /// The file or folder on this platform (the first candidate that exists, else the
    /// first), `None` when the source does not exist on this OS.
    pub fn path(&self, platform: &Platform) -> Result<Option<PathBuf>, TemplateError> {
        platform.resolve_candidates(match platform.os {
            Os::Macos => &self.macos,
            Os::Linux => &self.linux,
            Os::Windows => &self.windows,
        })
    }

    /// A settings file: a template, or relative to the project root.
    pub fn settings_path(
        &self,
        template: &str,
        platform: &Platform,
        project: &Path,
    ) -> Result<PathBuf, TemplateError> {
        if template.contains('{') {
            platform.expand(template)
        } else {
            Ok(crate::platform::join_relative(project, template))
        }
    }

    fn templates(&self) -> impl Iterator<Item = &String> {
        self.macos
            .iter()
            .chain(&self.linux)
            .chain(&self.windows)
            .chain(self.settings.iter().filter(|s| s.contains('{')))
    }
}

/// An administrator's MCP policy file (row field `policy`; src/policy/ parses it).
#[derive(Debug, Clone)]
pub struct PolicyFile {
    pub kind: PolicyKind,
    macos: Vec<String>,
    linux: Vec<String>,
    windows: Vec<String>,
    /// Where its rules are documented.
    pub source: String,
}

impl PolicyFile {
    /// The file on this platform, `None` when the client has none on this OS.
    pub fn path(&self, platform: &Platform) -> Result<Option<PathBuf>, TemplateError> {
        platform.resolve_candidates(match platform.os {
            Os::Macos => &self.macos,
            Os::Linux => &self.linux,
            Os::Windows => &self.windows,
        })
    }

    fn templates(&self) -> impl Iterator<Item = &String> {
        self.macos.iter().chain(&self.linux).chain(&self.windows)
    }
}

/// What a word typed after `-c` names.
#[derive(Debug)]
pub enum Lookup<'a> {
    Found(&'a Client),
    /// An alias several rows share (`claude`).
    Ambiguous(Vec<&'a Client>),
    /// Nothing; the closest id, when one is a likely typo.
    Unknown {
        suggestion: Option<&'a str>,
    },
}

/// Lower case, with spaces and underscores as hyphens: `VS Code` → `vs-code`.
fn normalize(word: &str) -> String {
    word.trim()
        .to_lowercase()
        .chars()
        .map(|c| if c == ' ' || c == '_' { '-' } else { c })
        .collect()
}

/// A resolved place where a client keeps servers: file + key path (+ the list shape).
#[derive(Debug, Clone)]
pub struct Location {
    pub scope: Scope,
    pub path: PathBuf,
    pub key: Vec<String>,
    /// The servers are a list named by this key (`Client::servers_name_key`).
    pub name_key: Option<String>,
}

impl Location {
    /// The servers' address inside the file, for `ConfigDoc`.
    pub fn at(&self) -> ServersAt<'_> {
        ServersAt {
            key: &self.key,
            name_key: self.name_key.as_deref(),
        }
    }

    /// The same servers map as `other`: the same key in the same file, however the two
    /// paths spell it (with the project directory at HOME, or HOME through a symlink, a
    /// project path can be the user file itself).
    pub fn same_place(&self, other: &Location) -> bool {
        self.key == other.key && crate::fs::same_file(&self.path, &other.path)
    }
}

impl Client {
    /// How strictly the client parses its file, as every command judges it (one loading
    /// model for `check`, `list`, `doctor` and the writing commands): the row's
    /// `loading.parser`, else what `format` says (`json`: a strict reader; the other
    /// formats: their own reader, nothing more refused).
    #[must_use]
    pub fn parser(&self) -> Option<loading::Parser> {
        if !matches!(self.format, Format::Json | Format::Jsonc) {
            return None;
        }
        self.loading
            .parser
            .or_else(|| self.format.strict().then_some(loading::Parser::Strict))
    }

    /// What in `text` (this client's file) makes the client reject the whole file: the
    /// first offending byte, or `None`.
    #[must_use]
    pub fn rejects(&self, text: &str) -> Option<loading::Rejection> {
        self.parser()?.rejects(text)
    }

    /// `text` without what makes the client reject it, or `None` when nothing does.
    #[must_use]
    pub fn repaired(&self, text: &str) -> Option<String> {
        self.parser()?.repaired(text)
    }

    /// The `type` values this client takes in an entry, when its row says: a row that
    /// names an HTTP type validates `type` (`None`: any value is left to the client).
    /// `check` lints against it, and a client that refuses a whole file for one entry it
    /// cannot read (Cline) refuses it for a `type` outside it too.
    pub fn accepted_types(&self) -> Option<Vec<&str>> {
        let f = &self.fields;
        f.http_type.as_ref()?;
        let mut allowed: Vec<&str> = [&f.stdio_type, &f.http_type, &f.sse_type]
            .into_iter()
            .flatten()
            .map(String::as_str)
            .collect();
        allowed.extend(f.extra_types.iter().map(String::as_str));
        if self.dialect == DialectName::Standard && !allowed.contains(&"stdio") {
            allowed.push("stdio");
        }
        Some(allowed)
    }

    fn from_row(row: Row) -> Client {
        let list = |v: Option<row::OneOrMany>| v.map(|v| v.to_vec()).unwrap_or_default();
        Client {
            id: row.id,
            name: row.name,
            aliases: row.aliases,
            format: row.format,
            servers_key: row.servers_key,
            servers_name_key: row.servers_name_key,
            local_key: row.local_key,
            project_key: row.project_key,
            project: row.project,
            project_also: row.project_also,
            dialect: row.dialect,
            fields: row.fields,
            remote_hint: row.remote_hint,
            approval: row.approval,
            switch: row.switch,
            here: row.here,
            tool_filter: row.tool_filter,
            deferred_tools: row.deferred_tools,
            reserved_names: row.reserved_names,
            owned_by: row.owned_by,
            source: row.source,
            loading: row.loading,
            verified: Verified::from_field(&row.verified).unwrap_or(Verified::Unverified),
            verified_against: row.verified_against,
            unread: row.unread,
            read_only: row
                .read_only
                .into_iter()
                .map(|r| ReadOnlySource {
                    kind: r.kind,
                    macos: list(r.paths.macos),
                    linux: list(r.paths.linux),
                    windows: list(r.paths.windows),
                    settings: r.settings,
                    servers_key: r.servers_key,
                    exclusive: r.exclusive,
                    root_owned: r.root_owned,
                    manage: r.manage,
                })
                .collect(),
            policy: row
                .policy
                .into_iter()
                .map(|p| PolicyFile {
                    kind: p.kind,
                    macos: list(p.paths.macos),
                    linux: list(p.paths.linux),
                    windows: list(p.paths.windows),
                    source: p.source,
                })
                .collect(),
            legacy: row.legacy.map(|l| LegacyLocation {
                macos: list(l.paths.macos),
                linux: list(l.paths.linux),
                windows: list(l.paths.windows),
                servers_key: l.servers_key,
            }),
            paths_macos: list(row.paths.macos),
            paths_linux: list(row.paths.linux),
            paths_windows: list(row.paths.windows),
            detect_paths: row.detect_paths,
            detect_commands: row.detect_commands,
        }
    }

    /// Where the client's own files keep servers (`servers_key` + list shape).
    pub fn servers_at(&self) -> ServersAt<'_> {
        ServersAt {
            key: &self.servers_key,
            name_key: self.servers_name_key.as_deref(),
        }
    }

    /// The user-file templates for an OS (empty: the client does not exist there).
    pub fn path_templates(&self, os: Os) -> &[String] {
        match os {
            Os::Macos => &self.paths_macos,
            Os::Linux => &self.paths_linux,
            Os::Windows => &self.paths_windows,
        }
    }

    pub fn supported_on(&self, os: Os) -> bool {
        !self.path_templates(os).is_empty()
    }

    /// The client exists only on Windows (Visual Studio): its files are used there
    /// whatever `--platform` says.
    pub fn windows_only(&self) -> bool {
        self.supported_on(Os::Windows)
            && !self.supported_on(Os::Linux)
            && !self.supported_on(Os::Macos)
    }

    /// The user config file on this platform, `None` when the client does not exist there.
    pub fn user_path(&self, platform: &Platform) -> Result<Option<PathBuf>, TemplateError> {
        platform.resolve_candidates(self.path_templates(platform.os))
    }

    /// Whether the client looks installed: a detect path (default: the user file's
    /// directory) exists, or a detect command is on PATH.
    pub fn detected(&self, platform: &Platform) -> bool {
        if !self.supported_on(platform.os) {
            return false;
        }
        let by_path = if self.detect_paths.is_empty() {
            matches!(self.user_path(platform), Ok(Some(p)) if p.parent().is_some_and(Path::exists))
        } else {
            platform.any_exists(&self.detect_paths)
        };
        by_path || self.detect_commands.iter().any(|c| platform.on_path(c))
    }

    /// The scopes this client has.
    pub fn scopes(&self) -> Vec<Scope> {
        let mut scopes = vec![Scope::User];
        if self.project.is_some() {
            scopes.push(Scope::Project);
        }
        if self.local_key.is_some() {
            scopes.push(Scope::Local);
        }
        if self.legacy.is_some() {
            scopes.push(Scope::Legacy);
        }
        scopes
    }

    /// Every project file the client reads, relative to the project root: `project`
    /// first, then `project_also`.
    pub fn project_files(&self) -> impl Iterator<Item = &String> {
        self.project.iter().chain(&self.project_also)
    }

    /// Where servers of `scope` live, for the project directory `project`.
    /// `None` when the client has no such scope (or does not exist on this OS).
    pub fn location(
        &self,
        scope: Scope,
        platform: &Platform,
        project: &Path,
    ) -> Result<Option<Location>, TemplateError> {
        Ok(match scope {
            Scope::User => self.user_path(platform)?.map(|path| Location {
                scope,
                path,
                key: self.servers_key.clone(),
                name_key: self.servers_name_key.clone(),
            }),
            Scope::Project => self.project.as_ref().map(|rel| Location {
                scope,
                path: self
                    .project_files()
                    .map(|rel| crate::platform::join_relative(project, rel))
                    .find(|path| path.exists())
                    .unwrap_or_else(|| crate::platform::join_relative(project, rel)),
                key: self.servers_key.clone(),
                name_key: self.servers_name_key.clone(),
            }),
            Scope::Legacy => match &self.legacy {
                Some(legacy) => platform
                    .resolve_candidates(legacy.templates(platform.os))?
                    .map(|path| Location {
                        scope,
                        path,
                        key: legacy.servers_key.clone(),
                        name_key: None,
                    }),
                None => None,
            },
            Scope::Local => match (&self.local_key, self.user_path(platform)?) {
                (Some(key), Some(path)) => Some(Location {
                    scope,
                    path,
                    key: with_project(key, &self.project_key(platform.os, project)),
                    name_key: self.servers_name_key.clone(),
                }),
                _ => None,
            },
        })
    }

    /// `project` as this client spells it in a key path (`{project}`): what it writes and
    /// reads there.
    pub fn project_key(&self, os: Os, project: &Path) -> String {
        let native = project.to_string_lossy();
        match (self.project_key, os) {
            (ProjectKey::Slashes, Os::Windows) => native.replace('\\', "/"),
            _ => native.into_owned(),
        }
    }

    /// Every spelling of the local scope's place, the one the client reads first; then
    /// the native spelling when the client's differs (an entry an older mcpctl or another
    /// tool wrote there is listed and removable, though the client does not load it).
    pub fn local_locations(&self, platform: &Platform, project: &Path) -> Vec<Location> {
        let Ok(Some(first)) = self.location(Scope::Local, platform, project) else {
            return Vec::new();
        };
        let native = project.to_string_lossy();
        let other = self
            .local_key
            .as_ref()
            .map(|key| with_project(key, &native))
            .filter(|key| *key != first.key);
        let mut out = vec![first.clone()];
        out.extend(other.map(|key| Location { key, ..first }));
        out
    }

    pub fn supports(&self, transport: TransportName) -> bool {
        self.fields.transports.contains(&transport)
    }

    /// All templates of the row (for validation).
    fn templates(&self) -> impl Iterator<Item = &String> {
        self.paths_macos
            .iter()
            .chain(&self.paths_linux)
            .chain(&self.paths_windows)
            .chain(&self.detect_paths)
            .chain(
                self.legacy
                    .iter()
                    .flat_map(|l| l.macos.iter().chain(&l.linux).chain(&l.windows)),
            )
            .chain(self.read_only.iter().flat_map(ReadOnlySource::templates))
            .chain(self.policy.iter().flat_map(PolicyFile::templates))
    }
}

/// A key path with `{project}` replaced by `project`.
fn with_project(key: &[String], project: &str) -> Vec<String> {
    key.iter()
        .map(|k| k.replace("{project}", project))
        .collect()
}

/// All known clients, in table order.
#[derive(Debug, Clone)]
pub struct ClientTable {
    clients: Vec<Client>,
}

impl ClientTable {
    /// The built-in table.
    pub fn builtin() -> Result<ClientTable, TableError> {
        let file: TableFile =
            serde_json::from_str(BUILTIN_JSON).map_err(|e| TableError::Parse {
                origin: BUILTIN_ORIGIN.to_owned(),
                message: e.to_string(),
            })?;
        Ok(ClientTable {
            clients: file.client.into_iter().map(Client::from_row).collect(),
        })
    }

    /// The built-in table plus the rows of `extra` (same id replaces, new id appends).
    pub fn with_overrides(extra: Option<(&str, &str)>) -> Result<ClientTable, TableError> {
        let mut table = Self::builtin()?;
        if let Some((text, origin)) = extra {
            for client in Self::parse(text, origin)?.clients {
                match table.clients.iter_mut().find(|c| c.id == client.id) {
                    Some(slot) => *slot = client,
                    None => table.clients.push(client),
                }
            }
        }
        Ok(table)
    }

    /// Parse and validate a table.
    pub fn parse(text: &str, origin: &str) -> Result<ClientTable, TableError> {
        let file: TableFile = toml::from_str(text).map_err(|e| TableError::Parse {
            origin: origin.to_owned(),
            message: e.to_string().trim_end().to_owned(),
        })?;
        Self::checked(file, origin)
    }

    /// The rows of a table file as clients, each checked.
    fn checked(file: TableFile, origin: &str) -> Result<ClientTable, TableError> {
        let invalid = |message: String| TableError::Invalid {
            origin: origin.to_owned(),
            message,
        };
        for row in &file.client {
            Verified::from_field(&row.verified)
                .map_err(|e| invalid(format!("`{}`: {e}", row.id)))?;
        }
        let clients: Vec<Client> = file.client.into_iter().map(Client::from_row).collect();
        let probe = Platform::new(Os::Linux, &[("HOME", "/home/u")], Path::new("/"));
        for (i, client) in clients.iter().enumerate() {
            if client.id.is_empty()
                || !client
                    .id
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
            {
                return Err(invalid(format!("id `{}` must be kebab-case", client.id)));
            }
            if clients[..i].iter().any(|c| c.id == client.id) {
                return Err(invalid(format!("id `{}` appears twice", client.id)));
            }
            for alias in &client.aliases {
                if alias.is_empty() || *alias != normalize(alias) {
                    return Err(invalid(format!(
                        "`{}`: alias `{alias}` must be lower case, with hyphens for spaces",
                        client.id
                    )));
                }
                if clients.iter().any(|c| c.id == *alias) {
                    return Err(invalid(format!(
                        "`{}`: alias `{alias}` is another client's id",
                        client.id
                    )));
                }
            }
            if client.servers_key.is_empty() || client.servers_key.iter().any(String::is_empty) {
                return Err(invalid(format!(
                    "`{}`: servers_key needs at least one non-empty key",
                    client.id
                )));
            }
            if client.servers_name_key.is_some() && !client.format.holds_lists() {
                return Err(invalid(format!(
                    "`{}`: servers_name_key needs a format that holds lists ({} does not)",
                    client.id,
                    client.format.as_str()
                )));
            }
            if client.fields.transports.is_empty() {
                return Err(invalid(format!("`{}`: transports is empty", client.id)));
            }
            let loading = &client.loading;
            if loading.parser.is_some() && !matches!(client.format, Format::Json | Format::Jsonc) {
                return Err(invalid(format!(
                    "`{}`: loading.parser is for JSON files ({} is not)",
                    client.id,
                    client.format.as_str()
                )));
            }
            for key in [&loading.excluded, &loading.allowed].into_iter().flatten() {
                if key.is_empty() || key.iter().any(String::is_empty) {
                    return Err(invalid(format!(
                        "`{}`: loading.excluded/allowed needs a non-empty key path",
                        client.id
                    )));
                }
            }
            if loading
                .capabilities
                .as_ref()
                .is_some_and(|c| !c.is_object())
            {
                return Err(invalid(format!(
                    "`{}`: loading.capabilities must be a table",
                    client.id
                )));
            }
            for template in client.templates() {
                probe
                    .expand_str(template)
                    .map_err(|e| invalid(format!("`{}`: {e}", client.id)))?;
            }
        }
        Ok(ClientTable { clients })
    }

    pub fn all(&self) -> &[Client] {
        &self.clients
    }

    pub fn get(&self, id: &str) -> Option<&Client> {
        self.clients.iter().find(|c| c.id == id)
    }

    /// Resolve what a person typed: an id in any case, an alias, or the display name.
    pub fn lookup(&self, word: &str) -> Lookup<'_> {
        let word = normalize(word);
        if let Some(client) = self.get(&word) {
            return Lookup::Found(client);
        }
        let matches: Vec<&Client> = self
            .clients
            .iter()
            .filter(|c| c.aliases.contains(&word) || normalize(&c.name) == word)
            .collect();
        match matches.as_slice() {
            [one] => Lookup::Found(one),
            [] => Lookup::Unknown {
                suggestion: crate::suggest::closest(
                    &word,
                    self.clients
                        .iter()
                        .flat_map(|c| std::iter::once(&c.id).chain(&c.aliases))
                        .map(String::as_str),
                )
                // The start of a name (`vsc`, `claude-d`): the shortest id or alias it begins.
                .or_else(|| {
                    self.clients
                        .iter()
                        .flat_map(|c| std::iter::once(&c.id).chain(&c.aliases))
                        .map(String::as_str)
                        .filter(|name| word.chars().count() >= 2 && name.starts_with(&*word))
                        .min_by_key(|name| name.len())
                })
                .map(|hit| {
                    // Suggest the id, also when the near miss was an alias.
                    self.clients
                        .iter()
                        .find(|c| c.id == hit || c.aliases.iter().any(|a| a == hit))
                        .map_or(hit, |c| c.id.as_str())
                }),
            },
            _ => Lookup::Ambiguous(matches),
        }
    }

    /// The client table of the book (docs/reference/clients.md), generated so it cannot drift from the data.
    pub fn markdown(&self) -> String {
        let cell = |templates: &[String]| {
            if templates.is_empty() {
                "—".to_owned()
            } else {
                templates
                    .iter()
                    .map(|t| format!("`{}`", t.replace('|', "\\|")))
                    .collect::<Vec<_>>()
                    .join("<br>")
            }
        };
        let mut out = String::from(
            "| id | client | macOS | Linux | Windows | project file | format | servers key | checked |\n|---|---|---|---|---|---|---|---|---|\n",
        );
        for c in &self.clients {
            let key = c
                .servers_key
                .iter()
                .map(|k| {
                    if k.contains('.') {
                        format!("\"{k}\"")
                    } else {
                        k.clone()
                    }
                })
                .collect::<Vec<_>>()
                .join(".");
            let key = match &c.servers_name_key {
                None => format!("`{key}`"),
                Some(name) => format!("`{key}` (list, named by `{name}`)"),
            };
            let name = if c.verified.confirmed() {
                c.name.clone()
            } else {
                format!("{} (unverified)", c.name)
            };
            let checked = match c.verified {
                Verified::On(day) => day.to_string(),
                Verified::Undated => "yes".to_owned(),
                Verified::Unverified => "—".to_owned(),
            };
            out.push_str(&format!(
                "| `{}` | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                c.id,
                name,
                cell(&c.paths_macos),
                cell(&c.paths_linux),
                cell(&c.paths_windows),
                // Every project file the client reads, the one `add` creates first.
                if c.project.is_some() {
                    c.project_files()
                        .map(|p| format!("`{p}`"))
                        .collect::<Vec<_>>()
                        .join("<br>")
                } else {
                    "—".to_owned()
                },
                c.format.as_str(),
                key,
                checked,
            ));
        }
        out
    }

    /// Ids, for error messages.
    pub fn ids(&self) -> Vec<&str> {
        self.clients.iter().map(|c| c.id.as_str()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What build.rs compiles in is the table as edited, as `parse` reads and checks it:
    /// the checks `builtin` skips at start-up pass here.
    #[test]
    fn builtin_json_is_the_checked_toml_table() {
        let checked = ClientTable::parse(BUILTIN_TABLE, BUILTIN_ORIGIN).unwrap();
        let builtin = ClientTable::builtin().unwrap();
        assert_eq!(format!("{:?}", builtin), format!("{:?}", checked));
        let file: TableFile = serde_json::from_str(BUILTIN_JSON).unwrap();
        ClientTable::checked(file, BUILTIN_ORIGIN).unwrap();
    }

    #[test]
    fn builtin_table_parses_with_unique_ids() {
        let table = ClientTable::builtin().unwrap();
        let mut ids = table.ids();
        let n = ids.len();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), n);
        // Every row of the file became a client (none dropped by a parse quirk).
        assert_eq!(n, BUILTIN_TABLE.matches("\n[[client]]").count());
    }

    #[test]
    fn every_template_expands_on_every_listed_os() {
        let table = ClientTable::builtin().unwrap();
        for os in [Os::Linux, Os::Macos, Os::Windows] {
            let platform = Platform::new(
                os,
                &[("HOME", "/h"), ("USERPROFILE", "/h")],
                Path::new("/p"),
            );
            for client in table.all() {
                for template in client.path_templates(os) {
                    let path = platform.expand(template).unwrap();
                    assert!(
                        path.starts_with("/h"),
                        "{} on {os:?}: {}",
                        client.id,
                        path.display()
                    );
                }
                for scope in client.scopes() {
                    if client.supported_on(os) {
                        assert!(
                            client
                                .location(scope, &platform, Path::new("/p"))
                                .unwrap()
                                .is_some()
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn every_client_exists_somewhere_and_strict_fields_are_consistent() {
        for client in ClientTable::builtin().unwrap().all() {
            assert!(
                [Os::Linux, Os::Macos, Os::Windows]
                    .iter()
                    .any(|os| client.supported_on(*os)),
                "{}",
                client.id
            );
            let f = &client.fields;
            if f.sse_type.is_some() {
                assert!(client.supports(TransportName::Sse), "{}", client.id);
            }
            if f.untyped_remote == UntypedRemote::None {
                assert!(
                    f.http_type.is_some() && f.sse_type.is_some(),
                    "{}",
                    client.id
                );
            }
        }
    }

    /// Every field spelling a row writes is one reading, `check` and redaction know: a
    /// brand-new word (`variables` for env) must be added to `entry::spelling` too, or
    /// mcpctl would write entries it cannot read back, lint or redact.
    #[test]
    fn every_field_spelling_a_row_writes_is_in_the_spelling_lists() {
        use crate::entry::spelling;
        let table = ClientTable::builtin().unwrap();
        for client in table.all() {
            let fields = &client.fields;
            let rows: [(&str, &str, &[&str], &str); 7] = [
                (
                    "command_key",
                    &fields.command_key,
                    spelling::COMMAND_KEYS,
                    "COMMAND_KEYS",
                ),
                (
                    "args_key",
                    &fields.args_key,
                    spelling::ARGS_KEYS,
                    "ARGS_KEYS",
                ),
                ("env_key", &fields.env_key, spelling::ENV_KEYS, "ENV_KEYS"),
                (
                    "headers_key",
                    &fields.headers_key,
                    spelling::HEADER_KEYS,
                    "HEADER_KEYS",
                ),
                ("url_key", &fields.url_key, spelling::URL_KEYS, "URL_KEYS"),
                ("cwd_key", &fields.cwd_key, spelling::CWD_KEYS, "CWD_KEYS"),
                (
                    "type_key",
                    &fields.type_key,
                    spelling::TYPE_KEYS,
                    "TYPE_KEYS",
                ),
            ];
            // An empty key: the client has no such field.
            for (field, key, known, list) in rows.into_iter().filter(|r| !r.1.is_empty()) {
                assert!(
                    known.contains(&key),
                    "{}: fields.{field} = `{key}` is not a spelling mcpctl reads; add `{key}` to {list} in src/entry/spelling.rs",
                    client.id
                );
            }
            if let Some(key) = &fields.http_url_key {
                assert!(
                    spelling::URL_KEYS.contains(&key.as_str())
                        && spelling::HTTP_URL_KEYS.contains(&key.as_str()),
                    "{}: fields.http_url_key = `{key}`; add `{key}` to URL_KEYS and HTTP_URL_KEYS in src/entry/spelling.rs",
                    client.id
                );
            }
        }
    }

    #[test]
    fn switch_and_filter_fields_are_keys_check_accepts() {
        let table = ClientTable::builtin().unwrap();
        for client in table.all() {
            let mut written: Vec<&str> = Vec::new();
            match &client.switch {
                Some(Switch::Field { key, .. }) => written.push(key),
                Some(Switch::List { scopes, .. }) => {
                    for scope in scopes {
                        assert!(client.scopes().contains(scope), "{}: {scope:?}", client.id);
                    }
                }
                _ => {}
            }
            if let Some(filter) = &client.tool_filter {
                written.extend(filter.allow.as_deref());
                written.extend(filter.deny.as_deref());
                assert!(
                    filter.allow.is_some() || filter.deny.is_some(),
                    "{}",
                    client.id
                );
            }
            if let Some(extra) = &client.fields.extra_keys {
                for key in written {
                    assert!(
                        extra.iter().any(|k| k == key),
                        "{}: `{key}` is written by disable/enable but not in extra_keys",
                        client.id
                    );
                }
            }
        }
        // The switch kinds the table uses parse, and park is the default.
        let id = |id: &str| table.all().iter().find(|c| c.id == id).unwrap();
        assert!(id("cursor").switch.is_none() && id("vscode").switch.is_none());
        assert!(matches!(id("codex").switch, Some(Switch::Field { .. })));
        assert!(matches!(
            id("gemini-cli").switch,
            Some(Switch::Enablement { .. })
        ));
    }

    #[test]
    fn unknown_field_is_rejected_and_override_replaces_by_id() {
        let bad = "[[client]]\nid='x'\nname='X'\nformat='json'\nservers_key=['a']\ndialect='standard'\nsource='s'\nbogus=1\n";
        assert!(matches!(
            ClientTable::parse(bad, "f"),
            Err(TableError::Parse { .. })
        ));
        let extra = "[[client]]\nid='cursor'\nname='My Cursor'\nformat='json'\nservers_key=['mcpServers']\ndialect='standard'\nsource='s'\npaths.linux='{home}/c.json'\n";
        let table = ClientTable::with_overrides(Some((extra, "f"))).unwrap();
        assert_eq!(table.get("cursor").unwrap().name, "My Cursor");
        let builtin = ClientTable::builtin().unwrap();
        assert_eq!(
            table.all().len(),
            builtin.all().len(),
            "replaced, not added"
        );
    }

    #[test]
    fn lookup_takes_any_case_aliases_and_names() {
        let table = ClientTable::builtin().unwrap();
        let id = |word: &str| match table.lookup(word) {
            Lookup::Found(c) => c.id.clone(),
            other => panic!("{word}: {other:?}"),
        };
        assert_eq!(id("Cursor"), "cursor");
        assert_eq!(id("gemini"), "gemini-cli");
        assert_eq!(id("code"), "vscode");
        assert_eq!(id("vs-code"), "vscode");
        assert_eq!(id("VS Code"), "vscode");
        assert_eq!(id("Claude Desktop"), "claude-desktop");
        match table.lookup("claude") {
            Lookup::Ambiguous(c) => assert_eq!(
                c.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(),
                ["claude-code", "claude-desktop"]
            ),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            table.lookup("cursr"),
            Lookup::Unknown {
                suggestion: Some("cursor")
            }
        ));
        assert!(matches!(
            table.lookup("nothing-like-it"),
            Lookup::Unknown { suggestion: None }
        ));
    }

    #[test]
    fn claude_code_local_scope_keys_by_project_path() {
        let table = ClientTable::builtin().unwrap();
        let platform = Platform::new(Os::Linux, &[("HOME", "/h")], Path::new("/"));
        let loc = table
            .get("claude-code")
            .unwrap()
            .location(Scope::Local, &platform, Path::new("/work/app"))
            .unwrap()
            .unwrap();
        assert_eq!(loc.path, PathBuf::from("/h/.claude.json"));
        assert_eq!(loc.key, vec!["projects", "/work/app", "mcpServers"]);
    }

    #[test]
    fn claude_code_local_scope_keys_by_the_forward_slash_path_on_windows() {
        let table = ClientTable::builtin().unwrap();
        let claude = table.get("claude-code").unwrap();
        let platform = Platform::new(
            Os::Windows,
            &[("USERPROFILE", r"C:\Users\dev")],
            Path::new("/"),
        );
        let project = Path::new(r"C:\Users\dev\proj");
        let keys: Vec<Vec<String>> = claude
            .local_locations(&platform, project)
            .into_iter()
            .map(|l| l.key)
            .collect();
        assert_eq!(
            keys,
            [
                ["projects", "C:/Users/dev/proj", "mcpServers"],
                ["projects", r"C:\Users\dev\proj", "mcpServers"]
            ]
        );
        assert_eq!(
            claude.project_key(Os::Windows, project),
            "C:/Users/dev/proj"
        );
        // Elsewhere, and for a client that keys by the native path, one spelling.
        let linux = Platform::new(Os::Linux, &[("HOME", "/h")], Path::new("/"));
        assert_eq!(claude.local_locations(&linux, Path::new("/w/a")).len(), 1);
        let buddy = table.get("codebuddy-cli").unwrap();
        assert_eq!(
            buddy.project_key(Os::Windows, project),
            r"C:\Users\dev\proj"
        );
    }

    #[test]
    fn claude_code_managed_file_is_a_system_path_per_os_under_an_optional_sysroot() {
        let table = ClientTable::builtin().unwrap();
        let managed = table
            .get("claude-code")
            .unwrap()
            .read_only
            .iter()
            .find(|s| s.kind == SourceKind::ManagedFile)
            .unwrap();
        assert!(managed.exclusive);
        let at = |os: Os, vars: &[(&str, &str)]| {
            managed
                .path(&Platform::new(os, vars, Path::new("/")))
                .unwrap()
                .unwrap()
        };
        let home = [("HOME", "/h"), ("USERPROFILE", "/h")];
        assert_eq!(
            at(Os::Linux, &home),
            PathBuf::from("/etc/claude-code/managed-mcp.json")
        );
        assert_eq!(
            at(Os::Macos, &home),
            PathBuf::from("/Library/Application Support/ClaudeCode/managed-mcp.json")
        );
        assert_eq!(
            at(Os::Windows, &home),
            PathBuf::from("C:\\Program Files")
                .join("ClaudeCode")
                .join("managed-mcp.json")
        );
        assert_eq!(
            at(Os::Linux, &[("HOME", "/h"), ("MCPCTL_SYSROOT", "/r")]),
            PathBuf::from("/r/etc/claude-code/managed-mcp.json")
        );
        assert_eq!(
            at(
                Os::Windows,
                &[("USERPROFILE", "/h"), ("ProgramFiles", "/pf")]
            ),
            PathBuf::from("/pf/ClaudeCode/managed-mcp.json")
        );
    }

    #[test]
    fn plugin_and_extension_folders_follow_the_clients_home_variables() {
        let table = ClientTable::builtin().unwrap();
        let platform = Platform::new(
            Os::Linux,
            &[
                ("HOME", "/h"),
                ("CLAUDE_CONFIG_DIR", "/cc"),
                ("CODEX_HOME", "/c"),
                ("GEMINI_CLI_HOME", "/g"),
            ],
            Path::new("/"),
        );
        let source = |id: &str, kind: SourceKind| {
            table
                .get(id)
                .unwrap()
                .read_only
                .iter()
                .find(|s| s.kind == kind)
                .unwrap()
                .path(&platform)
                .unwrap()
                .unwrap()
        };
        assert_eq!(
            source("claude-code", SourceKind::ClaudePlugins),
            PathBuf::from("/cc/plugins/installed_plugins.json")
        );
        assert_eq!(
            source("codex", SourceKind::CodexPlugins),
            PathBuf::from("/c/plugins/cache")
        );
        assert_eq!(
            source("gemini-cli", SourceKind::GeminiExtensions),
            PathBuf::from("/g/.gemini/extensions")
        );
    }

    #[test]
    fn codex_home_and_claude_config_dir_override() {
        let table = ClientTable::builtin().unwrap();
        let platform = Platform::new(
            Os::Linux,
            &[
                ("HOME", "/h"),
                ("CODEX_HOME", "/c"),
                ("CLAUDE_CONFIG_DIR", "/cc"),
            ],
            Path::new("/"),
        );
        assert_eq!(
            table
                .get("codex")
                .unwrap()
                .user_path(&platform)
                .unwrap()
                .unwrap(),
            PathBuf::from("/c/config.toml")
        );
        assert_eq!(
            table
                .get("claude-code")
                .unwrap()
                .user_path(&platform)
                .unwrap()
                .unwrap(),
            PathBuf::from("/cc/.claude.json")
        );
    }

    /// The user files of newer rows: id, Linux, macOS, Windows.
    const NEW_ROWS: &[(&str, &str, &str, &str)] = &[
        (
            "mistral-vibe",
            "/h/.vibe/config.toml",
            "/h/.vibe/config.toml",
            "/h/.vibe/config.toml",
        ),
        (
            "grok-build",
            "/h/.grok/config.toml",
            "/h/.grok/config.toml",
            "/h/.grok/config.toml",
        ),
        (
            "devin",
            "/h/.config/devin/mcp_config.json",
            "/h/.config/devin/mcp_config.json",
            "/h/AppData/Roaming/devin/mcp_config.json",
        ),
        (
            "rovo-dev",
            "/h/.rovodev/mcp.json",
            "/h/.rovodev/mcp.json",
            "/h/.rovodev/mcp.json",
        ),
        (
            "deepagents",
            "/h/.deepagents/.mcp.json",
            "/h/.deepagents/.mcp.json",
            "/h/.deepagents/.mcp.json",
        ),
        (
            "abacus",
            "/h/.abacusai/mcp.json",
            "/h/.abacusai/mcp.json",
            "/h/.abacusai/mcp.json",
        ),
        (
            "kimi-code",
            "/h/.kimi-code/mcp.json",
            "/h/.kimi-code/mcp.json",
            "/h/.kimi-code/mcp.json",
        ),
        (
            "jetbrains-ai-assistant",
            "/h/.ai/mcp/mcp.json",
            "/h/.ai/mcp/mcp.json",
            "/h/.ai/mcp/mcp.json",
        ),
        (
            "kimi-cli",
            "/h/.kimi/mcp.json",
            "/h/.kimi/mcp.json",
            "/h/.kimi/mcp.json",
        ),
        (
            "crush",
            "/h/.config/crush/crush.json",
            "/h/.config/crush/crush.json",
            // Crush's home.Config() is ~/.config on Windows too; %LOCALAPPDATA% holds
            // the data file Crush writes itself.
            "/h/.config/crush/crush.json",
        ),
        (
            "tabnine-cli",
            "/h/.tabnine/agent/settings.json",
            "/h/.tabnine/agent/settings.json",
            "/h/.tabnine/agent/settings.json",
        ),
        (
            "pi",
            "/h/.pi/agent/mcp.json",
            "/h/.pi/agent/mcp.json",
            "/h/.pi/agent/mcp.json",
        ),
        (
            "zoo-code",
            "/h/.config/Code/User/globalStorage/zoocodeorganization.zoo-code/settings/mcp_settings.json",
            "/h/Library/Application Support/Code/User/globalStorage/zoocodeorganization.zoo-code/settings/mcp_settings.json",
            "/h/AppData/Roaming/Code/User/globalStorage/zoocodeorganization.zoo-code/settings/mcp_settings.json",
        ),
        (
            "hermes-agent",
            "/h/.hermes/config.yaml",
            "/h/.hermes/config.yaml",
            "/h/AppData/Local/hermes/config.yaml",
        ),
        (
            "jan",
            "/h/.local/share/Jan/data/mcp_config.json",
            "/h/Library/Application Support/Jan/data/mcp_config.json",
            "/h/AppData/Roaming/Jan/data/mcp_config.json",
        ),
        (
            "qoder-cli",
            "/h/.qoder/settings.json",
            "/h/.qoder/settings.json",
            "/h/.qoder/settings.json",
        ),
    ];

    /// New rows resolve to the files their sources name, per OS, with the env overrides.
    #[test]
    fn new_rows_resolve_per_os() {
        let table = ClientTable::builtin().unwrap();
        let user = |id: &str, os: Os, vars: &[(&str, &str)]| {
            let platform = Platform::new(os, vars, Path::new("/"));
            table
                .get(id)
                .unwrap()
                .user_path(&platform)
                .unwrap()
                .unwrap()
        };
        let linux = [("HOME", "/h")];
        let windows = [
            ("USERPROFILE", "/h"),
            ("APPDATA", "/h/AppData/Roaming"),
            ("LOCALAPPDATA", "/h/AppData/Local"),
        ];
        for (id, on_linux, on_macos, on_windows) in NEW_ROWS {
            assert_eq!(user(id, Os::Linux, &linux), PathBuf::from(on_linux), "{id}");
            assert_eq!(user(id, Os::Macos, &linux), PathBuf::from(on_macos), "{id}");
            assert_eq!(
                user(id, Os::Windows, &windows),
                PathBuf::from(on_windows),
                "{id}"
            );
        }
        assert_eq!(
            user(
                "mistral-vibe",
                Os::Linux,
                &[("HOME", "/h"), ("VIBE_HOME", "/v")]
            ),
            PathBuf::from("/v/config.toml")
        );
        let project = |id: &str| {
            let platform = Platform::new(Os::Linux, &linux, Path::new("/"));
            table
                .get(id)
                .unwrap()
                .location(Scope::Project, &platform, Path::new("/p"))
                .unwrap()
                .unwrap()
        };
        let vibe = project("mistral-vibe");
        assert_eq!(vibe.path, PathBuf::from("/p/.vibe/config.toml"));
        assert_eq!(vibe.at(), ServersAt::list(&vibe.key, "name"));
        assert_eq!(
            project("devin").path,
            PathBuf::from("/p/.devin/mcp_config.json")
        );
        assert_eq!(
            project("grok-build").at(),
            ServersAt::map(&["mcp_servers".to_owned()])
        );
        // Unverified rows say so.
        for id in [
            "kimi-cli",
            "jetbrains-ai-assistant",
            "rovo-dev",
            "devin",
            "jan",
        ] {
            assert!(!table.get(id).unwrap().verified.confirmed(), "{id}");
        }
        assert!(table.get("mistral-vibe").unwrap().verified.confirmed());
    }

    /// The process behind the table: every built-in row says when it was checked and
    /// against what, or that it is unverified.
    #[test]
    fn every_builtin_row_is_dated_or_marked_unverified() {
        let table = ClientTable::builtin().unwrap();
        for c in table.all() {
            match c.verified {
                Verified::On(_) => assert!(
                    c.verified_against.as_deref().is_some_and(|a| !a.is_empty()),
                    "{}: a dated row names what it was checked against (`verified_against`)",
                    c.id
                ),
                Verified::Unverified => {}
                Verified::Undated => panic!(
                    "{}: a built-in row carries `verified = \"YYYY-MM-DD\"` or `verified = false`",
                    c.id
                ),
            }
        }
        let bad = "[[client]]\nid='x'\nname='X'\nformat='json'\nservers_key=['s']\ndialect='standard'\nsource='s'\nverified='last week'\npaths.linux='{home}/x.json'\n";
        let err = ClientTable::with_overrides(Some((bad, "f"))).unwrap_err();
        assert!(err.to_string().contains("YYYY-MM-DD"), "{err}");
    }

    /// Issue 21: the loading model as the clients' own CLIs showed it.
    #[test]
    fn loading_model_rows_say_what_the_clients_do() {
        use loading::{EraName, Parser};
        let table = ClientTable::builtin().unwrap();
        let get = |id: &str| table.get(id).unwrap();
        assert_eq!(
            get("claude-code").loading.speaks(EraName::Modern),
            Some(true)
        );
        for id in ["codex", "gemini-cli", "qwen-code", "amp"] {
            assert_eq!(get(id).loading.speaks(EraName::Modern), Some(false), "{id}");
            assert_eq!(
                get(id).loading.speaks(EraName::Handshake),
                Some(true),
                "{id}"
            );
        }
        assert_eq!(get("cursor").loading.speaks(EraName::Modern), None);
        assert_eq!(get("claude-code").loading.parser, Some(Parser::Strict));
        assert_eq!(get("gemini-cli").loading.parser, Some(Parser::Comments));
        assert_eq!(get("qwen-code").loading.parser, Some(Parser::Comments));
        assert!(get("claude-code").fields.sse_fallback && get("amp").fields.sse_fallback);
        assert!(!get("gemini-cli").fields.sse_fallback && !get("qwen-code").fields.sse_fallback);
        let blocked = &get("gemini-cli").loading.env_blocked;
        for name in [
            "PYTHONPATH",
            "NODE_OPTIONS",
            "LD_PRELOAD",
            "LD_LIBRARY_PATH",
        ] {
            assert!(blocked.iter().any(|b| b == name), "{name}");
        }
        for id in ["qwen-code", "amp", "factory"] {
            assert_eq!(get(id).fields.var_syntax, Some(VarSyntax::Shell), "{id}");
        }
        for id in ["cline-cli", "mistral-vibe"] {
            assert_eq!(get(id).loading.expands, Some(false), "{id}");
        }
        let bad = "[[client]]\nid='x'\nname='X'\nformat='toml'\nservers_key=['s']\ndialect='standard'\nsource='s'\npaths.linux='{home}/x.toml'\n[client.loading]\nparser='strict'\n";
        let err = ClientTable::with_overrides(Some((bad, "f"))).unwrap_err();
        assert!(err.to_string().contains("loading.parser"), "{err}");
    }

    #[test]
    fn a_list_shaped_json_row_is_refused() {
        let row = "[[client]]\nid='x'\nname='X'\nformat='json'\nservers_key=['s']\nservers_name_key='name'\ndialect='standard'\nsource='s'\npaths.linux='{home}/x.json'\n";
        let err = ClientTable::with_overrides(Some((row, "f"))).unwrap_err();
        assert!(err.to_string().contains("servers_name_key"), "{err}");
    }
}
