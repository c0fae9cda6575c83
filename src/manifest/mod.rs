//! The manifest (design §9): the servers a person or a team wants, in one portable TOML
//! file (`mcpctl.toml`), or a `{"mcpServers":{…}}` JSON file. Parsing and validation only:
//! every mistake is reported with `path:line:column` where there is one, and nothing is
//! ever written because of a manifest that does not validate. Rendering per client is
//! `entry::render`; deciding what to do per file is `plan`, showing it `report`, what a
//! profile costs `cost`.

pub mod budget;
pub mod cost;
pub mod lint;
pub mod plan;
pub mod report;

use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::clients::{ClientTable, Scope};
use crate::entry::{Dialect, RemoteKind, ServerEntry, StringMap, Transport};
use crate::formats::position_of;

use crate::entry::render::{portable, portable_entry};

/// The manifest file name in a project, and in the user's config directory.
pub const FILE_NAME: &str = "mcpctl.toml";

/// Which clients a manifest (or one server) is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClientChoice {
    /// Every detected client (the default).
    Detected,
    /// These ids; naming a client counts as targeting it (its file may be created).
    Ids(Vec<String>),
}

/// `[here]` of a manifest: names switched off / on in this project, for every targeted
/// client and per client (`[here.client.ID]`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HereSpec {
    pub off: Vec<String>,
    pub on: Vec<String>,
    pub client: IndexMap<String, (Vec<String>, Vec<String>)>,
}

impl HereSpec {
    pub fn is_empty(&self) -> bool {
        self.off.is_empty() && self.on.is_empty() && self.client.is_empty()
    }

    /// What `client` should have in this project: `(name, off)`, a client's own line
    /// winning over the manifest-wide one.
    pub fn wanted(&self, client: &str) -> Vec<(String, bool)> {
        let mut out: Vec<(String, bool)> = Vec::new();
        let (own_off, own_on) = self
            .client
            .get(client)
            .map(|(off, on)| (off.as_slice(), on.as_slice()))
            .unwrap_or_default();
        let lines = [
            (own_off, true),
            (own_on, false),
            (&self.off[..], true),
            (&self.on[..], false),
        ];
        for (names, off) in lines {
            for name in names {
                if !out.iter().any(|(n, _)| n == name) {
                    out.push((name.clone(), off));
                }
            }
        }
        out
    }
}

/// One wanted server.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerSpec {
    /// Portable: `${VAR}` references, no `cmd /c`, `{home}`/`{project}` placeholders.
    pub entry: ServerEntry,
    /// Narrows the manifest's clients.
    pub clients: Option<Vec<String>>,
    /// `enabled = false`. Switching a server off is `disable`'s job (design §10); until it
    /// lands the planner treats every server as wanted, and `Manifest::switched_on` is the
    /// one place that decides.
    pub enabled: bool,
    /// `[servers.NAME.client.ID]`: raw fields merged into that client's entry last.
    pub client_fields: IndexMap<String, Map<String, Value>>,
    /// `registry = "NAME@VERSION"`: the entry is resolved from the MCP Registry per client
    /// at plan time (a remote where the client speaks HTTP, else a package), pinned to
    /// that version; `entry` is then only a stand-in naming the server.
    pub registry: Option<(String, String)>,
    /// `secrets = { VAR = "NAME" }`: variable (or, for a remote server, header) VAR gets
    /// the stored secret NAME. The manifest names secrets, never holds them: `apply`
    /// writes the launcher (or bridge) form, and each machine's store has its own values.
    pub secrets: Vec<crate::entry::launcher::EnvSecret>,
    /// `login = true` (or `login = "LABEL"`) on a remote server: it is reached through
    /// mcpctl's bridge with the sign-in `mcpctl login` keeps as `oauth.LABEL` (the
    /// server's name for `true`). The manifest names the sign-in, never a token.
    pub login: Option<String>,
    /// 1-based line of `[servers.NAME]`, for messages.
    pub line: usize,
}

/// A parsed, validated manifest.
#[derive(Debug, Clone)]
pub struct Manifest {
    /// Absolute.
    pub path: PathBuf,
    pub clients: ClientChoice,
    pub scope: Scope,
    /// Entries not in the manifest are drift (and `apply` removes them).
    pub exclusive: bool,
    /// Found as the project's `mcpctl.toml` (it came with the repository), not named by
    /// the user (`--manifest`, `MCPCTL_MANIFEST`) nor the user manifest.
    pub from_project: bool,
    /// `profile = "NAME"`.
    pub profile: Option<String>,
    pub servers: IndexMap<String, ServerSpec>,
    pub profiles: IndexMap<String, Vec<String>>,
    /// `[budget]`: the most tokens each client's tool definitions may cost.
    pub budget: Option<Budget>,
    /// `[here]`: per-project overrides, applied through each client's project-level
    /// switch in the project `apply` runs in.
    pub here: HereSpec,
}

/// `[budget]`: `default = N`, `keep = [SERVER | SERVER/TOOL, …]`, and per client
/// `ID = N` or `[budget.ID] max = N, keep = […]`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Budget {
    pub default: Option<usize>,
    pub keep: Vec<String>,
    pub clients: IndexMap<String, ClientBudget>,
}

/// One client's budget.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClientBudget {
    pub max: Option<usize>,
    pub keep: Vec<String>,
}

impl Budget {
    /// The budget of `client` and what it keeps (the manifest's `keep` and its own), if it
    /// has one.
    pub fn of(&self, client: &str) -> Option<(usize, Vec<String>)> {
        let own = self.clients.get(client);
        let max = own.and_then(|c| c.max).or(self.default)?;
        let mut keep = self.keep.clone();
        keep.extend(own.map(|c| c.keep.clone()).unwrap_or_default());
        Some((max, keep))
    }
}

/// The manifest is not usable. Carries the position when there is one.
#[derive(Debug, thiserror::Error)]
#[error("{}{message}", location(path, *line, *column))]
pub struct ManifestError {
    pub path: PathBuf,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

fn location(path: &Path, line: usize, column: usize) -> String {
    if line == 0 {
        format!("{}: ", path.display())
    } else {
        format!("{}:{line}:{column}: ", path.display())
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawManifest {
    clients: Option<RawClients>,
    scope: Option<String>,
    #[serde(default)]
    exclusive: bool,
    profile: Option<String>,
    #[serde(default)]
    servers: IndexMap<String, toml::Spanned<RawServer>>,
    #[serde(default)]
    profiles: IndexMap<String, toml::Spanned<RawProfile>>,
    budget: Option<toml::Spanned<RawBudget>>,
    here: Option<RawHere>,
}

#[derive(Deserialize)]
struct RawBudget {
    default: Option<usize>,
    #[serde(default)]
    keep: Vec<String>,
    #[serde(flatten)]
    clients: IndexMap<String, RawClientBudget>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RawClientBudget {
    Max(usize),
    Table {
        max: Option<usize>,
        #[serde(default)]
        keep: Vec<String>,
    },
}

/// `[here]`: servers switched off (or back on) in this project only, through each
/// client's own project-level switch; `[here.client.ID]` for one client.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHere {
    #[serde(default)]
    off: Vec<String>,
    #[serde(default)]
    on: Vec<String>,
    #[serde(default)]
    client: IndexMap<String, RawHereSet>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHereSet {
    #[serde(default)]
    off: Vec<String>,
    #[serde(default)]
    on: Vec<String>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RawClients {
    Word(String),
    List(Vec<String>),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawServer {
    command: Option<String>,
    args: Option<Vec<String>>,
    env: Option<IndexMap<String, String>>,
    cwd: Option<String>,
    url: Option<String>,
    transport: Option<String>,
    headers: Option<IndexMap<String, String>>,
    secrets: Option<IndexMap<String, String>>,
    login: Option<RawLogin>,
    clients: Option<Vec<String>>,
    enabled: Option<bool>,
    registry: Option<String>,
    client: Option<IndexMap<String, toml::Table>>,
}

/// `login = true` or `login = "LABEL"`.
#[derive(Deserialize)]
#[serde(untagged)]
enum RawLogin {
    On(bool),
    Label(String),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProfile {
    servers: Vec<String>,
}

impl Manifest {
    /// Parse a manifest's text. `.json` files (and text starting with `{`) are read as a
    /// `{"mcpServers":{…}}` snippet: every detected client, user scope.
    pub fn parse(path: &Path, text: &str, table: &ClientTable) -> Result<Manifest, ManifestError> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        if path.extension().is_some_and(|e| e == "json") || text.trim_start().starts_with('{') {
            return Self::parse_json(path, text);
        }
        let parser = TomlParser { path, text, table };
        let raw: RawManifest = toml::from_str(text).map_err(|e| {
            parser.err_at(
                e.span().map(|s| s.start),
                e.message().trim_end().replace('\n', " "),
            )
        })?;
        let clients = parser.clients(raw.clients)?;
        let scope = parser.scope(raw.scope.as_deref())?;
        let mut servers = IndexMap::new();
        let lines = crate::formats::Lines::new(text);
        // In the order the manifest declares them (the TOML reader hands tables over
        // sorted by name): plans, applies and the files list them in that order.
        let mut declared: Vec<_> = raw.servers.into_iter().collect();
        declared.sort_by_key(|(_, spanned)| spanned.span().start);
        for (name, spanned) in declared {
            let line = lines.position(spanned.span().start).line;
            let server = parser.server(&name, spanned, &clients, line)?;
            servers.insert(name, server);
        }
        let profiles = parser.profiles(raw.profiles, &servers)?;
        let budget = raw.budget.map(|b| parser.budget(b)).transpose()?;
        if let Some(profile) = &raw.profile
            && !profiles.contains_key(profile)
        {
            return Err(parser.err_at(
                Some(find_string(text, profile, 0)),
                format!("`profile = \"{profile}\"` names no `[profiles.{profile}]`"),
            ));
        }
        let here = parser.here(raw.here)?;
        Ok(Manifest {
            path: path.to_path_buf(),
            clients,
            scope,
            exclusive: raw.exclusive,
            from_project: false,
            profile: raw.profile,
            servers,
            profiles,
            budget,
            here,
        })
    }

    fn parse_json(path: &Path, text: &str) -> Result<Manifest, ManifestError> {
        let err = |line: usize, column: usize, message: String| ManifestError {
            path: path.to_path_buf(),
            line,
            column,
            message,
        };
        let value: Value =
            serde_json::from_str(text).map_err(|e| err(e.line(), e.column(), e.to_string()))?;
        let servers = value
            .get("mcpServers")
            .or_else(|| value.get("servers"))
            .and_then(Value::as_object)
            .ok_or_else(|| err(1, 1, "a JSON manifest is `{\"mcpServers\": {...}}`".into()))?;
        let fields = crate::clients::Fields::default();
        let dialect = Dialect {
            name: crate::clients::DialectName::Standard,
            fields: &fields,
            client: "manifest",
            remote_hint: None,
        };
        let mut specs = IndexMap::new();
        for (name, raw) in servers {
            let mut entry = dialect
                .read_raw(raw)
                .map_err(|e| err(0, 0, format!("server `{name}`: {e}")))?;
            entry.extras.retain(|k, _| k != "disabled");
            let (entry, secrets, login) = portable_server(&entry);
            specs.insert(
                name.clone(),
                ServerSpec {
                    entry,
                    clients: None,
                    enabled: raw.get("disabled") != Some(&Value::Bool(true)),
                    client_fields: IndexMap::new(),
                    registry: None,
                    secrets,
                    login,
                    line: 0,
                },
            );
        }
        Ok(Manifest {
            path: path.to_path_buf(),
            clients: ClientChoice::Detected,
            scope: Scope::User,
            exclusive: false,
            from_project: false,
            profile: None,
            servers: specs,
            profiles: IndexMap::new(),
            budget: None,
            here: HereSpec::default(),
        })
    }

    /// Whether a server is switched on under `profile` (`--profile`, else the manifest's
    /// `profile`, else each server's `enabled`). The seam for `disable` (design §10).
    pub fn switched_on(&self, name: &str, profile: Option<&str>) -> bool {
        match profile.or(self.profile.as_deref()) {
            Some(p) => self
                .profiles
                .get(p)
                .is_some_and(|servers| servers.iter().any(|s| s == name)),
            None => self.servers.get(name).is_some_and(|s| s.enabled),
        }
    }

    /// Every client id the manifest names anywhere, in the manifest's order.
    pub fn named_clients(&self) -> Vec<&str> {
        let mut ids: Vec<&str> = Vec::new();
        let top = match &self.clients {
            ClientChoice::Ids(list) => list.as_slice(),
            ClientChoice::Detected => &[],
        };
        for id in top.iter().chain(
            self.servers
                .values()
                .flat_map(|s| s.clients.iter().flatten()),
        ) {
            if !ids.contains(&id.as_str()) {
                ids.push(id);
            }
        }
        ids
    }
}

/// A client's entry as a manifest server: made portable (`portable_entry`), and a
/// launcher entry read back into the server it starts plus its `secrets`; a bridge entry
/// into its URL, whose headers keep their `{secret:NAME}` placeholders (`Bearer
/// {secret:docs}` is more than a whole-header secret), and the sign-in its `--oauth
/// LABEL` sends (`login`). `apply` writes each form back.
pub fn portable_server(
    entry: &ServerEntry,
) -> (
    ServerEntry,
    Vec<crate::entry::launcher::EnvSecret>,
    Option<String>,
) {
    use crate::entry::launcher::{self, Via};
    match launcher::logical(&entry.transport) {
        Some(logical) => {
            let secrets = match logical.via {
                Via::Launcher => logical.secrets,
                Via::Bridge => Vec::new(),
            };
            let behind = ServerEntry {
                transport: logical.transport,
                extras: entry.extras.clone(),
            };
            (portable_entry(&behind), secrets, logical.oauth)
        }
        None => (portable_entry(entry), Vec::new(), None),
    }
}

/// Validating a TOML manifest's text, one part at a time: every error points into it.
struct TomlParser<'t> {
    path: &'t Path,
    text: &'t str,
    table: &'t ClientTable,
}

impl TomlParser<'_> {
    fn err_at(&self, offset: Option<usize>, message: String) -> ManifestError {
        let pos = offset.map(|o| position_of(self.text, o));
        ManifestError {
            path: self.path.to_path_buf(),
            line: pos.map_or(0, |p| p.line),
            column: pos.map_or(0, |p| p.column),
            message,
        }
    }

    fn known(&self, id: &str) -> bool {
        self.table.get(id).is_some()
    }

    fn unknown(&self, id: &str, offset: usize) -> ManifestError {
        let said = match self.table.lookup(id) {
            crate::clients::Lookup::Unknown {
                suggestion: Some(near),
            } => format!("unknown client `{id}`; did you mean `{near}`?"),
            _ => format!(
                "unknown client `{id}`; `mcpctl clients --all` lists the {} known ids",
                self.table.ids().len()
            ),
        };
        self.err_at(Some(offset), said)
    }

    /// The top-level `clients`: "detected" (or left out), or known ids.
    fn clients(&self, raw: Option<RawClients>) -> Result<ClientChoice, ManifestError> {
        Ok(match raw {
            None => ClientChoice::Detected,
            Some(RawClients::Word(w)) if w == "detected" => ClientChoice::Detected,
            Some(RawClients::Word(w)) => {
                return Err(self.err_at(
                    self.text.find("clients").map(|o| o + 1).or(Some(0)),
                    format!("`clients` is `{w}`: give a list of client ids or \"detected\""),
                ));
            }
            Some(RawClients::List(ids)) => {
                for id in &ids {
                    if !self.known(id) {
                        return Err(self.unknown(id, find_string(self.text, id, 0)));
                    }
                }
                ClientChoice::Ids(ids)
            }
        })
    }

    fn here(&self, raw: Option<RawHere>) -> Result<HereSpec, ManifestError> {
        let Some(raw) = raw else {
            return Ok(HereSpec::default());
        };
        let both = |off: &[String], on: &[String]| off.iter().find(|n| on.contains(n)).cloned();
        if let Some(name) = both(&raw.off, &raw.on) {
            return Err(self.err_at(
                Some(find_string(self.text, &name, 0)),
                format!("`[here]` has `{name}` both `off` and `on`"),
            ));
        }
        let mut client = IndexMap::new();
        for (id, set) in raw.client {
            if !self.known(&id) {
                return Err(self.unknown(&id, find_string(self.text, &id, 0)));
            }
            if let Some(name) = both(&set.off, &set.on) {
                return Err(self.err_at(
                    Some(find_string(self.text, &name, 0)),
                    format!("`[here.client.{id}]` has `{name}` both `off` and `on`"),
                ));
            }
            client.insert(id, (set.off, set.on));
        }
        Ok(HereSpec {
            off: raw.off,
            on: raw.on,
            client,
        })
    }

    fn scope(&self, raw: Option<&str>) -> Result<Scope, ManifestError> {
        match raw {
            None | Some("user") => Ok(Scope::User),
            Some("project") => Ok(Scope::Project),
            Some("local") => Ok(Scope::Local),
            Some(other) => Err(self.err_at(
                Some(find_string(self.text, other, 0)),
                format!("`scope` is `{other}`: use \"user\", \"project\" or \"local\""),
            )),
        }
    }

    /// One `[servers.NAME]` (at `line`), checked in the order its errors are reported.
    fn server(
        &self,
        name: &str,
        spanned: toml::Spanned<RawServer>,
        clients: &ClientChoice,
        line: usize,
    ) -> Result<ServerSpec, ManifestError> {
        let start = spanned.span().start;
        let mut server = spanned.into_inner();
        let at = |message: String| self.err_at(Some(start), format!("server `{name}`: {message}"));
        crate::entry::validate_name(name).map_err(at)?;
        let registry = registry_of(&server, &at)?;
        let mut secrets = Vec::new();
        for (var, secret) in server.secrets.iter().flatten() {
            secrets.push(
                crate::entry::launcher::EnvSecret::new(var, secret).map_err(|e| {
                    self.err_at(
                        Some(find_string(self.text, secret, start)),
                        format!(
                            "server `{name}`: `secrets`: {e}; write `secrets = {{ GITHUB_TOKEN = \"github\" }}` (the variable, or header, then the secret's name in `mcpctl secret list`)"
                        ),
                    )
                })?,
            );
        }
        let login = match server.login.take() {
            None | Some(RawLogin::On(false)) => None,
            Some(RawLogin::On(true)) => Some(name.to_owned()),
            Some(RawLogin::Label(label)) => {
                if !crate::entry::launcher::is_secret_name(&label) {
                    return Err(self.err_at(
                        Some(find_string(self.text, &label, start)),
                        format!(
                            "server `{name}`: `login = \"{label}\"` is not a sign-in name: use letters, digits, `_`, `-` and `.`, or `login = true` for the server's own name"
                        ),
                    ));
                }
                Some(label)
            }
        };
        if login.is_some() && (server.url.is_none() || registry.is_some()) {
            return Err(self.err_at(
                Some(find_string(self.text, "login", start)),
                format!(
                    "server `{name}`: `login` is for remote (`url`) servers: mcpctl signs in to a URL (`mcpctl login NAME`) and its bridge sends the token"
                ),
            ));
        }
        let stand_in = registry.as_ref().map(|(name, _)| name.clone());
        let mut transport = transport_of(&mut server, stand_in, &at)?;
        if let Transport::Stdio { command, args, .. } = &mut transport {
            // `cmd /c npx` is Windows-only spelling; the manifest keeps the logical command.
            let (c, a, _) = crate::entry::logical(command, args);
            *command = portable(&c);
            *args = a.iter().map(|s| portable(s)).collect();
        }
        if let Some(ids) = &server.clients {
            for id in ids {
                if !self.known(id) {
                    return Err(self.unknown(id, find_string(self.text, id, start)));
                }
                if let ClientChoice::Ids(top) = clients
                    && !top.contains(id)
                {
                    return Err(at(format!(
                        "`clients` names `{id}`, which the manifest's top-level `clients` does not; a server's list may only narrow it"
                    )));
                }
            }
        }
        let mut client_fields = IndexMap::new();
        for (id, fields) in server.client.unwrap_or_default() {
            if !self.known(&id) {
                return Err(self.unknown(&id, find_string(self.text, &id, start)));
            }
            let value = serde_json::to_value(fields).map_err(|e| at(e.to_string()))?;
            if let Value::Object(map) = value {
                client_fields.insert(id, map);
            }
        }
        Ok(ServerSpec {
            entry: ServerEntry {
                transport,
                extras: Map::new(),
            },
            clients: server.clients,
            enabled: server.enabled.unwrap_or(true),
            client_fields,
            registry,
            secrets,
            login,
            line,
        })
    }

    /// `[profiles.NAME]`, each naming servers of this manifest.
    /// `[budget]`: every key but `default` and `keep` is a known client id.
    fn budget(&self, raw: toml::Spanned<RawBudget>) -> Result<Budget, ManifestError> {
        let start = raw.span().start;
        let raw = raw.into_inner();
        let mut clients = IndexMap::new();
        for (id, value) in raw.clients {
            if !self.known(&id) {
                let at = self
                    .text
                    .get(start..)
                    .and_then(|rest| rest.find(&id))
                    .map_or(start, |o| start + o);
                return Err(self.unknown(&id, at));
            }
            let spec = match value {
                RawClientBudget::Max(max) => ClientBudget {
                    max: Some(max),
                    keep: Vec::new(),
                },
                RawClientBudget::Table { max, keep } => ClientBudget { max, keep },
            };
            clients.insert(id, spec);
        }
        Ok(Budget {
            default: raw.default,
            keep: raw.keep,
            clients,
        })
    }

    fn profiles(
        &self,
        raw: IndexMap<String, toml::Spanned<RawProfile>>,
        servers: &IndexMap<String, ServerSpec>,
    ) -> Result<IndexMap<String, Vec<String>>, ManifestError> {
        let mut profiles = IndexMap::new();
        let mut declared: Vec<_> = raw.into_iter().collect();
        declared.sort_by_key(|(_, spanned)| spanned.span().start);
        for (name, spanned) in declared {
            let start = spanned.span().start;
            let profile = spanned.into_inner();
            for server in &profile.servers {
                if !servers.contains_key(server) {
                    return Err(self.err_at(
                        Some(find_string(self.text, server, start)),
                        format!(
                            "profile `{name}` names `{server}`, which is not a server in this manifest{}",
                            crate::suggest::closest(server, servers.keys().map(String::as_str))
                                .map(|near| format!("; did you mean `{near}`?"))
                                .unwrap_or_default()
                        ),
                    ));
                }
            }
            profiles.insert(name, profile.servers);
        }
        Ok(profiles)
    }
}

/// `registry = "NAME@VERSION"`: a registry name and a pinned version, and no `command`
/// or `url` beside it.
fn registry_of(
    server: &RawServer,
    at: &dyn Fn(String) -> ManifestError,
) -> Result<Option<(String, String)>, ManifestError> {
    let Some(spec) = &server.registry else {
        return Ok(None);
    };
    if server.command.is_some() || server.url.is_some() {
        return Err(at(
            "has `registry` and `command` or `url`; a registry server is resolved from the registry".into(),
        ));
    }
    match crate::registry::split_version(spec) {
        (name, Some(version)) if crate::registry::is_registry_name(name) && !version.is_empty() => {
            Ok(Some((name.to_owned(), version.to_owned())))
        }
        (name, _) => Err(at(format!(
            "`registry = \"{spec}\"` needs a registry name and a pinned version: `registry = \"{name}@VERSION\"` (see `mcpctl search`)"
        ))),
    }
}

/// A server's transport: `command` (or the registry name standing in for it) with
/// `args`, `env`, `cwd`; or `url` with `transport` and `headers`. Never both, never
/// neither, and no field of the other kind.
fn transport_of(
    server: &mut RawServer,
    stand_in: Option<String>,
    at: &dyn Fn(String) -> ManifestError,
) -> Result<Transport, ManifestError> {
    match (server.command.take().or(stand_in), server.url.take()) {
        (Some(_), Some(_)) => Err(at(
            "has both `command` and `url`; a server is either local or remote".into(),
        )),
        (None, None) => Err(at("needs `command` (local) or `url` (remote)".into())),
        (Some(command), None) => {
            if server.headers.is_some() || server.transport.is_some() {
                return Err(at(
                    "`headers` and `transport` are for remote (`url`) servers".into(),
                ));
            }
            if command.trim().is_empty() {
                return Err(at("`command` is empty".into()));
            }
            Ok(Transport::Stdio {
                command,
                args: server.args.take().unwrap_or_default(),
                env: portable_map(server.env.take()),
                cwd: server.cwd.take(),
            })
        }
        (None, Some(url)) => {
            if server.args.is_some() || server.env.is_some() || server.cwd.is_some() {
                return Err(at(
                    "`args`, `env` and `cwd` are for local (`command`) servers".into(),
                ));
            }
            let kind = match server.transport.as_deref() {
                None | Some("http") => RemoteKind::Http,
                Some("sse") => RemoteKind::Sse,
                Some(other) => {
                    return Err(at(format!(
                        "`transport` is `{other}`: use \"http\" or \"sse\""
                    )));
                }
            };
            Ok(Transport::Remote {
                url: portable(&url),
                kind,
                headers: portable_map(server.headers.take()),
            })
        }
    }
}

fn portable_map(map: Option<IndexMap<String, String>>) -> StringMap {
    map.unwrap_or_default()
        .into_iter()
        .map(|(k, v)| (k, portable(&v)))
        .collect()
}

/// The offset of `"needle"` in `text` at or after `from` (for positions of values).
fn find_string(text: &str, needle: &str, from: usize) -> usize {
    let quoted = format!("\"{needle}\"");
    text.get(from..)
        .and_then(|rest| rest.find(&quoted).or_else(|| rest.find(needle)))
        .map_or(from, |o| from + o)
}

/// Where the manifest is: `--manifest`/`MCPCTL_MANIFEST`, else `mcpctl.toml` in the
/// project directory, else the user manifest (`{xdg_config}/mcpctl/mcpctl.toml`,
/// `%APPDATA%\mcpctl\mcpctl.toml` on Windows).
/// How `locate` found `path`, for the line every plan/apply/import prints.
pub fn describe(path: &Path, explicit: bool, project: &Path) -> String {
    let how = if explicit {
        "named with --manifest / MCPCTL_MANIFEST"
    } else if path == project.join(FILE_NAME) {
        "the project's own, from the repository"
    } else {
        "your user manifest"
    };
    format!("manifest: {} ({how})", path.display())
}

pub fn locate(
    explicit: Option<&Path>,
    project: &Path,
    platform: &crate::platform::Platform,
) -> anyhow::Result<PathBuf> {
    if let Some(path) = explicit {
        return Ok(if path.is_absolute() {
            path.to_path_buf()
        } else {
            platform.cwd.join(path)
        });
    }
    let in_project = project.join(FILE_NAME);
    if in_project.is_file() {
        return Ok(in_project);
    }
    user_manifest(platform)
}

/// Where `mcpctl.lock` is: beside the manifest in use (the file [`locate`] finds, when it
/// exists), else in mcpctl's state directory (`None`: there is none).
pub fn lock_file(
    explicit: Option<&Path>,
    project: &Path,
    platform: &crate::platform::Platform,
    state_dir: Option<&Path>,
) -> anyhow::Result<Option<PathBuf>> {
    let manifest = locate(explicit, project, platform)?;
    let in_use = manifest.is_file().then_some(manifest.as_path());
    Ok(crate::lock::path_for(in_use, state_dir))
}

/// The user manifest's path.
pub fn user_manifest(platform: &crate::platform::Platform) -> anyhow::Result<PathBuf> {
    let template = match platform.os {
        crate::platform::Os::Windows => "{appdata}/mcpctl/mcpctl.toml",
        _ => "{xdg_config}/mcpctl/mcpctl.toml",
    };
    Ok(platform.expand(template)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Manifest, ManifestError> {
        Manifest::parse(
            Path::new("/p/mcpctl.toml"),
            text,
            &ClientTable::builtin().unwrap(),
        )
    }

    #[test]
    fn parses_the_design_example() {
        let m = parse(
            r#"clients = ["claude-code", "cursor", "vscode", "codex"]
scope = "project"

[servers.github]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-github"]
env = { GITHUB_PERSONAL_ACCESS_TOKEN = "${env:GITHUB_TOKEN}" }

[servers.docs]
url = "https://docs.example.com/mcp"
headers = { X-Api-Key = "${DOCS_KEY}" }
clients = ["cursor", "vscode"]
enabled = true

[servers.docs.client.codex]
startup_timeout_sec = 20

[profiles.frontend]
servers = ["github", "docs"]
"#,
        )
        .unwrap();
        assert_eq!(m.scope, Scope::Project);
        assert_eq!(m.servers.len(), 2);
        match &m.servers["github"].entry.transport {
            Transport::Stdio { env, .. } => {
                assert_eq!(env["GITHUB_PERSONAL_ACCESS_TOKEN"], "${GITHUB_TOKEN}");
            }
            Transport::Remote { .. } => unreachable!(),
        }
        assert_eq!(
            m.servers["docs"].client_fields["codex"]["startup_timeout_sec"],
            20
        );
        assert_eq!(m.servers["github"].line, 4);
        assert!(m.switched_on("docs", None));
        assert!(m.switched_on("github", Some("frontend")));
    }

    #[test]
    fn bad_manifests_are_errors_with_positions() {
        let e = parse("[servers.a]\ncommand = \n").unwrap_err();
        assert_eq!((e.line, e.column), (2, 11), "{e}");
        let e = parse("clients = [\"cursor\", \"nope\"]\n").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("/p/mcpctl.toml:1:22: unknown client `nope`"),
            "{e}"
        );
        let e = parse("[servers.a]\ncommand = \"x\"\nurl = \"https://x\"\n").unwrap_err();
        assert!(e.to_string().contains("both `command` and `url`"), "{e}");
        assert_eq!(e.line, 1);
        let e = parse("[servers.a]\ncommand = \"x\"\n[profiles.p]\nservers = [\"a\", \"b\"]\n")
            .unwrap_err();
        assert!(e.to_string().contains("profile `p` names `b`"), "{e}");
        assert_eq!(e.line, 4);
        let e =
            parse("clients = [\"cursor\"]\n[servers.a]\ncommand = \"x\"\nclients = [\"codex\"]\n")
                .unwrap_err();
        assert!(e.to_string().contains("may only narrow"), "{e}");
        let e = parse("[servers.a]\ncomand = \"x\"\n").unwrap_err();
        assert!(e.to_string().contains("comand"), "{e}");
        let e = parse("profile = \"x\"\n").unwrap_err();
        assert!(e.to_string().contains("[profiles.x]"), "{e}");
    }

    #[test]
    fn json_snippets_and_windows_spellings_become_portable() {
        let m = Manifest::parse(
            Path::new("/p/servers.json"),
            r#"{"mcpServers":{"mem":{"command":"cmd","args":["/c","npx","-y","m"],"env":{"T":"${env:TOKEN}"}}}}"#,
            &ClientTable::builtin().unwrap(),
        )
        .unwrap();
        match &m.servers["mem"].entry.transport {
            Transport::Stdio {
                command, args, env, ..
            } => {
                assert_eq!(command, "npx");
                assert_eq!(args, &["-y", "m"]);
                assert_eq!(env["T"], "${TOKEN}");
            }
            Transport::Remote { .. } => unreachable!(),
        }
    }
}
