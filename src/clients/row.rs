//! The serde mirror of one `clients.toml` row. Unknown fields are rejected so a typo in
//! the table (or in a user's `--clients` file) is an error, not a silently ignored field.

use serde::Deserialize;

use crate::formats::Format;
use crate::vars::VarSyntax;

/// A value that may be written as one string or as a list of strings.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(untagged)]
pub(crate) enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    pub(crate) fn to_vec(&self) -> Vec<String> {
        match self {
            OneOrMany::One(one) => vec![one.clone()],
            OneOrMany::Many(many) => many.clone(),
        }
    }
}

/// How a client spells the project directory where `{project}` stands in a key path
/// (`local_key`, `approval.at`, `switch.at`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProjectKey {
    /// The directory as the OS spells it (`C:\Users\me\app` on Windows).
    #[default]
    Native,
    /// Forward slashes on Windows too (`C:/Users/me/app`): Claude Code normalizes the
    /// path and replaces every `\` with `/` before using it as a `projects` key.
    Slashes,
}

/// The file: `[[client]]` rows.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TableFile {
    #[serde(default)]
    pub(crate) client: Vec<Row>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Row {
    pub(crate) id: String,
    pub(crate) name: String,
    #[serde(default)]
    pub(crate) aliases: Vec<String>,
    pub(crate) format: Format,
    pub(crate) servers_key: Vec<String>,
    #[serde(default)]
    pub(crate) servers_name_key: Option<String>,
    #[serde(default)]
    pub(crate) local_key: Option<Vec<String>>,
    #[serde(default)]
    pub(crate) project_key: ProjectKey,
    #[serde(default)]
    pub(crate) project: Option<String>,
    #[serde(default)]
    pub(crate) project_also: Vec<String>,
    pub(crate) dialect: DialectName,
    #[serde(default)]
    pub(crate) paths: Paths,
    #[serde(default)]
    pub(crate) detect_paths: Vec<String>,
    #[serde(default)]
    pub(crate) detect_commands: Vec<String>,
    #[serde(default)]
    pub(crate) fields: Fields,
    #[serde(default)]
    pub(crate) remote_hint: Option<String>,
    #[serde(default)]
    pub(crate) approval: Option<Approval>,
    #[serde(default)]
    pub(crate) switch: Option<Switch>,
    #[serde(default)]
    pub(crate) here: Option<Here>,
    #[serde(default)]
    pub(crate) tool_filter: Option<ToolFilter>,
    #[serde(default)]
    pub(crate) deferred_tools: Option<DeferredTools>,
    #[serde(default)]
    pub(crate) legacy: Option<Legacy>,
    #[serde(default)]
    pub(crate) unread: Vec<Unread>,
    #[serde(default)]
    pub(crate) read_only: Vec<ReadOnlyRow>,
    /// An administrator's MCP policy files the client enforces (src/policy/).
    #[serde(default)]
    pub(crate) policy: Vec<PolicyRow>,
    /// Server names the client keeps for its own built-in servers: it skips or rejects a
    /// user entry by that name, so `add` refuses it.
    #[serde(default)]
    pub(crate) reserved_names: Vec<String>,
    /// The tool that writes this file (`home-manager`): mcpctl lists, checks and imports
    /// its servers, and never writes it.
    #[serde(default)]
    pub(crate) owned_by: Option<String>,
    pub(crate) source: String,
    /// How the client loads and connects (`[client.loading]`; src/clients/loading.rs).
    #[serde(default)]
    pub(crate) loading: super::loading::Loading,
    /// The day the row was last checked (`"2026-12-01"`), or `false` when its path or
    /// shape comes from a secondary source that could not be checked against the client
    /// itself (shown by `mcpctl clients`).
    #[serde(default)]
    pub(crate) verified: crate::clients::verified::VerifiedField,
    /// What the check was made against: the client's version (`claude 2.1.332`) or the
    /// docs page.
    #[serde(default)]
    pub(crate) verified_against: Option<String>,
}

/// Servers the client loads from somewhere the user did not write them (`clients.toml`
/// `[[client.read_only]]`): listed and checked, never edited. `kind` says how to read the
/// place (src/sources/ has one module per kind).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ReadOnlyRow {
    pub(crate) kind: SourceKind,
    /// The file or folder per OS (path templates; an absent OS: none there).
    pub(crate) paths: Paths,
    /// Files that switch the source's parts on or off (kind-specific): path templates, or
    /// paths relative to the project root when they have no `{`.
    #[serde(default)]
    pub(crate) settings: Vec<String>,
    /// Where servers sit in the file (`managed-file`).
    #[serde(default)]
    pub(crate) servers_key: Vec<String>,
    /// When the file exists, the client loads only its servers (Claude Code's
    /// `managed-mcp.json`): the user's own entries and other sources are not loaded.
    #[serde(default)]
    pub(crate) exclusive: bool,
    /// The client reads the file only when it and every folder above it are owned by root
    /// and writable by no one else (Gemini CLI's system settings file); POSIX only.
    #[serde(default)]
    pub(crate) root_owned: bool,
    /// How a person changes these servers, for `add`/`remove`; `{origin}` is the plugin or
    /// extension name.
    pub(crate) manage: String,
}

/// Which vendor's policy file (`clients.toml` `[[client.policy]] kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum PolicyKind {
    /// Claude Code `managed-settings.json`.
    ClaudeManaged,
    /// GitHub Copilot enterprise `managed-settings.json`.
    CopilotManaged,
    /// Codex `requirements.toml`.
    CodexRequirements,
}

impl PolicyKind {
    pub fn as_str(self) -> &'static str {
        match self {
            PolicyKind::ClaudeManaged => "claude-managed",
            PolicyKind::CopilotManaged => "copilot-managed",
            PolicyKind::CodexRequirements => "codex-requirements",
        }
    }
}

/// An administrator's policy file (`clients.toml` `[[client.policy]]`): where it is per OS,
/// and which vendor's shape it has.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PolicyRow {
    pub(crate) kind: PolicyKind,
    pub(crate) paths: Paths,
    /// Where the file's rules are documented.
    pub(crate) source: String,
}

/// How a read-only source is laid out.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SourceKind {
    /// Claude Code plugins: `installed_plugins.json` names each plugin's directory;
    /// `enabledPlugins` in the settings files switches it on; servers in `<plugin>/.mcp.json`
    /// and `plugin.json` `mcpServers`.
    ClaudePlugins,
    /// One JSON file an administrator deploys (Claude Code's `managed-mcp.json`).
    ManagedFile,
    /// Gemini CLI extensions: `<dir>/<name>/gemini-extension.json` `mcpServers`, switched
    /// by `extension-enablement.json`.
    GeminiExtensions,
    /// Codex plugins: `[plugins."name@marketplace"]` in `config.toml` names them, the
    /// plugin cache holds them.
    CodexPlugins,
    /// Continue: `config.yaml`'s `mcpServers` list and every file in `mcpServers/` of the
    /// folder and of the project's `.continue/`.
    Continue,
}

/// Where a client records that the user approved a project's servers (`clients.toml`
/// field `approval`): the object at key path `at` (`{project}` = the absolute project
/// directory) in `file` (a path template; absent = the client's user file). The project is
/// approved as a whole when that object's `key` holds one of `values`; a server by name
/// when it is listed under `names`, and refused when it is listed under `denied`.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Approval {
    #[serde(default)]
    pub file: Option<String>,
    #[serde(default)]
    pub at: Vec<String>,
    pub key: String,
    pub values: Vec<serde_json::Value>,
    #[serde(default)]
    pub names: Option<String>,
    #[serde(default)]
    pub denied: Option<String>,
    /// The folder-wide approval (`key`/`values`) trusts the folder only: each project
    /// server still waits for the client's own per-server approval, which mcpctl cannot
    /// verify (Qwen Code's hash-bound `qwen mcp approve NAME`). The text says how.
    #[serde(default)]
    pub per_server: Option<String>,
}

/// How a client switches one server off without removing it (`clients.toml` field
/// `switch`). A client without one gets its entries *parked* by `disable` (cut out of the
/// file, kept byte for byte in mcpctl's state directory).
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Switch {
    /// A field of the entry itself: the server is off when `key` holds `off`
    /// (`disabled = true`, `enabled = false`).
    Field { key: String, off: serde_json::Value },
    /// A list of server names at key path `at` + `key` (`{project}` = the absolute project
    /// directory) in `file` (a path template; absent = the client's user file). It covers
    /// the entries of `scopes` only; other scopes park. `format`: that file's format when
    /// it is not the client's (Rovo Dev keeps the list in YAML beside a JSON servers file).
    List {
        #[serde(default)]
        file: Option<String>,
        #[serde(default)]
        format: Option<Format>,
        #[serde(default)]
        at: Vec<String>,
        key: String,
        scopes: Vec<crate::clients::Scope>,
    },
    /// A file of its own mapping each (lower-cased) server name to `{"enabled": false}`
    /// (Gemini CLI's `mcp-server-enablement.json`); it covers every scope.
    Enablement { file: String },
}

/// How a client switches a server off (or on) for one project only, whatever scope the
/// server comes from (`clients.toml` field `here`; `disable NAME --here`). Absent: the
/// client has no project-level switch, and `--here` says so and writes nothing there.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Here {
    /// `list` (names at `at` + `key`) or `field` (the entry `NAME` in the servers map at
    /// `at` carries `key` = `off`, the entry written with that field alone when the
    /// project does not define the server: OpenCode, Codex merge it into the user's).
    pub kind: HereKind,
    /// The file, relative to the project root; a template (with `{`) for a user file
    /// (Claude Code's `~/.claude.json`); absent = the client's project file.
    #[serde(default)]
    pub file: Option<String>,
    /// The project's uncommitted variant of `file` (`--local`), relative to the root.
    #[serde(default)]
    pub local: Option<String>,
    /// Key path of the list's parent object (`list`) or of the servers map (`field`);
    /// `{project}` is the absolute project root, spelled as the client does.
    #[serde(default)]
    pub at: Vec<String>,
    pub key: String,
    /// The value of `key` that switches the server off (`field` only).
    #[serde(default)]
    pub off: Option<serde_json::Value>,
    /// The value that switches a server the user turned off back on in this project
    /// (`field` only, when the client lets a project do it: OpenCode, Codex).
    #[serde(default)]
    pub on: Option<serde_json::Value>,
    /// The client reads the file only in a folder the user trusted: the client's own
    /// trust step, for people.
    #[serde(default)]
    pub trust: Option<String>,
    /// What a project entry of the same name does to the user's entry (for people).
    #[serde(default)]
    pub same_name: Option<String>,
    /// How the fact was verified (the client's own CLI run in the project).
    pub source: String,
}

/// The shape of a project-level switch ([`Here`]).
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum HereKind {
    List,
    Field,
}

/// A client's per-server tool filter fields (`clients.toml` field `tool_filter`): an
/// allow-list and/or a deny-list of tool names in the entry.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ToolFilter {
    #[serde(default)]
    pub allow: Option<String>,
    #[serde(default)]
    pub deny: Option<String>,
    /// An allow-list holding this value allows every tool (Copilot CLI's `"*"`).
    #[serde(default)]
    pub wildcard: Option<String>,
}

/// How a client that defers MCP tool definitions (loads them on demand, behind a search
/// tool) counts them (`clients.toml` field `deferred_tools`): what `budget` counts a tool
/// as, with the rule and where it was read.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct DeferredTools {
    /// The entry field that decides per server: `true` loads every tool up front, `false`
    /// defers them; absent: the client's default (deferred while deferral is on).
    pub load_key: String,
    /// The variable that turns deferral off (`false`, `0`, `no`, `off`, `standard`,
    /// `auto:100`) or makes it a threshold (`auto`, `auto:N`: deferred only when the
    /// definitions exceed N% of `window`); unset: deferred.
    #[serde(default)]
    pub env: Option<String>,
    /// The context window `auto:N` takes its share of, in tokens.
    #[serde(default)]
    pub window: Option<usize>,
    /// N of a bare `auto`.
    #[serde(default)]
    pub auto_percent: Option<usize>,
    /// How a deferred tool is still listed to the model (`mcp__{server}__{tool}`): its
    /// cost is that name's.
    pub listed_as: String,
    /// The key of a tool's own `_meta` that, `true`, loads that tool in full while the
    /// entry leaves `load_key` unset (`anthropic/alwaysLoad`); `false` in `load_key`
    /// defers it all the same.
    #[serde(default)]
    pub tool_key: Option<String>,
    /// The rule in words, and where it was read.
    pub rule: String,
    pub source: String,
}

/// A file that looks like one of the client's but that it does not read: servers put
/// there are silently ignored, so `check` reports them (MCP006) and names the right file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Unread {
    /// A path template (`{home}/.claude/mcp.json`), or a path relative to the project
    /// root when it has no `{`.
    pub path: String,
    /// Where servers sit in that file.
    pub servers_key: Vec<String>,
    /// The file's format when it is not the client's own (`~/.codex/mcp.json` is JSON).
    #[serde(default)]
    pub format: Option<Format>,
    /// Why the client ignores it, and which file it reads instead.
    pub why: String,
}

/// An older location the client still reads: mcpctl lists and checks it, never writes it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Legacy {
    pub(crate) paths: Paths,
    pub(crate) servers_key: Vec<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Paths {
    pub(crate) macos: Option<OneOrMany>,
    pub(crate) linux: Option<OneOrMany>,
    pub(crate) windows: Option<OneOrMany>,
}

/// The structural entry shapes; everything else is a field spelling.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DialectName {
    /// `command` string + `args` list (Claude, Cursor, VS Code, Codex, Zed, ...).
    Standard,
    /// `command` is one list `[cmd, arg...]` (OpenCode, Kilo).
    CommandArray,
}

/// How a client spells an entry's fields (see the header of `clients.toml`).
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields, default)]
pub struct Fields {
    pub stdio_type: Option<String>,
    pub http_type: Option<String>,
    pub sse_type: Option<String>,
    pub untyped_remote: UntypedRemote,
    /// The key holding the transport marker (`type`; Mistral Vibe and Rovo Dev spell it
    /// `transport`).
    pub type_key: String,
    /// The program's key (`command`; Goose spells it `cmd`).
    pub command_key: String,
    /// The arguments' key (`args`).
    pub args_key: String,
    pub url_key: String,
    pub http_url_key: Option<String>,
    pub headers_key: String,
    pub env_key: String,
    pub cwd_key: String,
    /// Other `type` values the client accepts (aliases such as `streamable-http`,
    /// transports mcpctl does not write such as `ws`); `check` does not flag them.
    pub extra_types: Vec<String>,
    pub transports: Vec<TransportName>,
    pub wrap_windows: bool,
    pub strict_names: bool,
    /// Entry keys the client documents beyond the modelled ones (`disabled`, `timeout`,
    /// `autoApprove`, ...). `None`: not verified, so `check` does not flag unknown keys.
    pub extra_keys: Option<Vec<String>>,
    /// How the client references environment variables inside entry values.
    /// `None`: no documented expansion, so `check` does not judge references.
    pub var_syntax: Option<VarSyntax>,
    /// The client refuses a file that starts with a byte-order mark (Gemini CLI).
    pub rejects_bom: bool,
    /// An `http` entry whose URL serves only legacy SSE still works: the client falls
    /// back to SSE as the spec suggests. `false`: it reports the server broken (Claude
    /// Code: "MCP endpoint not found").
    pub sse_fallback: bool,
    /// The key of an object holding the transport's fields (`type`, `command`, `args`,
    /// `env`, `cwd`; `url`, `headers`): Cline CLI 3 nests them under `transport`. Both
    /// shapes are read; the nested one is written (src/entry/nesting.rs).
    pub nest_key: Option<String>,
    /// The key of a static-auth table holding a remote entry's headers and the variable
    /// of its API key (Mistral Vibe: `auth`, with `headers` and `api_key_env`).
    pub auth_key: Option<String>,
    /// Fields every new entry carries because the client requires them (Goose: `name`,
    /// `enabled`, `description`, `timeout`); `{name}` in a string is the server's name.
    pub defaults: serde_json::Map<String, serde_json::Value>,
}

impl Default for Fields {
    fn default() -> Self {
        Fields {
            stdio_type: None,
            http_type: None,
            sse_type: None,
            untyped_remote: UntypedRemote::Http,
            type_key: "type".to_owned(),
            command_key: "command".to_owned(),
            args_key: "args".to_owned(),
            url_key: "url".to_owned(),
            http_url_key: None,
            headers_key: "headers".to_owned(),
            env_key: "env".to_owned(),
            cwd_key: "cwd".to_owned(),
            extra_types: Vec::new(),
            transports: vec![
                TransportName::Stdio,
                TransportName::Http,
                TransportName::Sse,
            ],
            wrap_windows: true,
            strict_names: false,
            extra_keys: None,
            var_syntax: None,
            rejects_bom: false,
            sse_fallback: true,
            nest_key: None,
            auth_key: None,
            defaults: serde_json::Map::new(),
        }
    }
}

/// What a remote entry without a `type` key means to the client.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum UntypedRemote {
    Http,
    Sse,
    /// The client requires `type` on remote entries (Roo Code).
    None,
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TransportName {
    Stdio,
    Http,
    Sse,
}
