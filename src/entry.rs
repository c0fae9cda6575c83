//! The canonical server entry (`ServerEntry`) and its conversion to and from each
//! client's entry shape (`Dialect`), plus Windows `cmd /c` wrapping.
//!
//! Which spelling a client writes (`serverUrl`, `httpUrl`, `environment`,
//! `working_directory`, `type` values) comes from its table row; every spelling reading
//! tolerates lives in `spelling`. Only structural differences are code here.
//! This module never reads files or the environment.

mod nesting;
pub use nesting::carried_header;
pub mod launcher;
pub mod loading;
pub mod render;
pub mod snippet;
pub mod spelling;

use indexmap::IndexMap;
use serde_json::{Map, Value};

/// An ordered string map (env, headers): order is the user's.
pub type StringMap = IndexMap<String, String>;

/// How a client talks to the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// A local process speaking newline-delimited JSON-RPC on stdin/stdout.
    Stdio {
        command: String,
        args: Vec<String>,
        env: StringMap,
        cwd: Option<String>,
    },
    /// A remote server reached over HTTP.
    Remote {
        url: String,
        kind: RemoteKind,
        headers: StringMap,
    },
}

/// Which HTTP transport a remote entry uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RemoteKind {
    /// Streamable HTTP (2025-03-26 and later).
    Http,
    /// Legacy HTTP+SSE (2024-11-05).
    Sse,
}

impl RemoteKind {
    /// The transport a URL names when nothing else says: a path ending in `/sse` (query,
    /// fragment and trailing slash aside) is the legacy transport, anything else HTTP.
    pub fn of_url(url: &str) -> RemoteKind {
        let path = url.split(['?', '#']).next().unwrap_or(url);
        if path.trim_end_matches('/').ends_with("/sse") {
            RemoteKind::Sse
        } else {
            RemoteKind::Http
        }
    }
}

/// A server entry, independent of any client's spelling.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerEntry {
    pub transport: Transport,
    /// Client fields mcpctl does not model (`disabled`, `autoApprove`, `timeout`, `trust`,
    /// `tools`, ...), kept verbatim in file order.
    pub extras: Map<String, Value>,
}

use crate::clients::{Client, DialectName, Fields, TransportName, UntypedRemote};
use crate::formats::kind_of;
use crate::vars::VarSyntax;
use spelling::{
    ARGS_KEYS, COMMAND_KEYS, CWD_KEYS, ENV_KEYS, GOOSE_ENV_KEYS, HEADER_KEYS, HTTP_URL_KEYS,
    PASSTHROUGH_BEARER_KEY, PASSTHROUGH_ENV_KEY, PASSTHROUGH_HEADERS_KEY, SSE_TYPES, TOGGLE_KEYS,
    TYPE_KEY, URL_KEYS,
};

impl Transport {
    /// Every value a variable reference can stand in, in order: command, args, env
    /// values and cwd; or URL and header values.
    pub fn strings(&self) -> Vec<&String> {
        match self {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
            } => std::iter::once(command)
                .chain(args)
                .chain(env.values())
                .chain(cwd)
                .collect(),
            Transport::Remote { url, headers, .. } => {
                std::iter::once(url).chain(headers.values()).collect()
            }
        }
    }

    pub fn name(&self) -> TransportName {
        match self {
            Transport::Stdio { .. } => TransportName::Stdio,
            Transport::Remote {
                kind: RemoteKind::Http,
                ..
            } => TransportName::Http,
            Transport::Remote {
                kind: RemoteKind::Sse,
                ..
            } => TransportName::Sse,
        }
    }
}

impl TransportName {
    pub fn as_str(self) -> &'static str {
        match self {
            TransportName::Stdio => "stdio",
            TransportName::Http => "http",
            TransportName::Sse => "sse",
        }
    }
}

impl ServerEntry {
    /// Whether the entry is switched off (`disabled: true` or `enabled: false`).
    pub fn disabled(&self) -> bool {
        self.extras.get("disabled") == Some(&Value::Bool(true))
            || self.extras.get("enabled") == Some(&Value::Bool(false))
    }

    /// The entry's own startup timeout, in seconds, with the key that set it, among the
    /// `keys` the client reads (its row's `extra_keys`). The first such key with a
    /// positive number wins; anything else is left to the client.
    pub fn startup_timeout(&self, keys: &[String]) -> Option<(f64, &'static str)> {
        spelling::STARTUP_TIMEOUT_KEYS
            .iter()
            .filter(|(key, _)| keys.iter().any(|k| k == key))
            .find_map(|(key, factor)| {
                let seconds = self.extras.get(*key)?.as_f64()? * factor;
                (seconds.is_finite() && seconds > 0.0).then_some((seconds, *key))
            })
    }

    /// Same server: equal transports, and every extra the new entry sets is already set
    /// the same way here. `add` uses it to decide "unchanged".
    pub fn same_as(&self, new: &ServerEntry) -> bool {
        self.transport == new.transport && self.has_extras_of(new)
    }

    /// [`same_as`](Self::same_as), but a launcher or bridge entry is the same server
    /// whichever mcpctl binary starts it (`launcher::same_form`): what a
    /// manifest's plan compares, so a project file written on another person's machine
    /// is in sync here.
    pub fn same_server(&self, new: &ServerEntry) -> bool {
        crate::entry::launcher::same_form(&self.transport, &new.transport)
            && self.has_extras_of(new)
    }

    fn has_extras_of(&self, new: &ServerEntry) -> bool {
        new.extras
            .iter()
            .all(|(k, v)| self.extras.get(k) == Some(v))
    }
}

/// An entry that cannot be read or written for a client.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EntryError {
    #[error("entry is {0}, expected an object")]
    NotAnObject(&'static str),
    #[error("entry has both `command` and `{0}`; a server is either local or remote")]
    Ambiguous(String),
    #[error("entry has neither `command` nor a URL")]
    NoTransport,
    #[error("`{field}` is {found}, expected {expected}")]
    WrongType {
        field: String,
        found: &'static str,
        expected: &'static str,
    },
    #[error("`command` is empty")]
    EmptyCommand,
    #[error("{client} cannot use {transport} servers")]
    Unsupported {
        client: String,
        transport: &'static str,
        hint: Option<String>,
    },
    #[error("{client} has no working-directory field; drop `--cwd`")]
    NoCwd { client: String },
    #[error(
        "entry has {outer} beside an `{table}` table; the client refuses the mix: move them into `{table}`"
    )]
    Mixed { outer: String, table: String },
}

/// Whether `raw` is such a switch or extension entry rather than a broken server (also an
/// entry built into the client, see `is_builtin`).
pub fn is_toggle(raw: &Value) -> bool {
    is_builtin(raw)
        || raw.as_object().is_some_and(|map| {
            !map.is_empty() && map.keys().all(|k| TOGGLE_KEYS.contains(&k.as_str()))
        })
}

/// Whether `raw` is not a server of its own for `client`: a switch or extension entry
/// ([`is_toggle`]), or, where the client merges a project's entry key by key into the
/// user's (a `field` project-level switch: Codex), that entry's tool filter alone
/// (`disabled_tools`, which `budget` writes in a trusted project).
pub fn is_override(client: &Client, raw: &Value) -> bool {
    is_toggle(raw)
        || raw
            .as_object()
            .is_some_and(|map| !map.is_empty() && map.keys().all(|k| override_key(client, k)))
}

/// Whether `key` may stand in a project's override of a server for `client` ([`is_override`]).
pub fn override_key(client: &Client, key: &str) -> bool {
    TOGGLE_KEYS.contains(&key)
        || (client
            .here
            .as_ref()
            .is_some_and(|h| h.kind == crate::clients::HereKind::Field)
            && client
                .tool_filter
                .as_ref()
                .is_some_and(|f| f.allow.as_deref() == Some(key) || f.deny.as_deref() == Some(key)))
}

/// Whether `raw` runs inside the client (`type: builtin` or `platform` in Goose): not a
/// server to start, and never edited.
pub fn is_builtin(raw: &Value) -> bool {
    raw.get(TYPE_KEY)
        .and_then(Value::as_str)
        .is_some_and(|t| spelling::BUILTIN_TYPES.contains(&t))
}

/// A client's entry shape: the structural dialect plus its field spellings.
#[derive(Debug, Clone, Copy)]
pub struct Dialect<'a> {
    pub name: DialectName,
    pub fields: &'a Fields,
    pub client: &'a str,
    pub remote_hint: Option<&'a str>,
}

impl<'a> Dialect<'a> {
    pub fn of(client: &'a Client) -> Dialect<'a> {
        Dialect {
            name: client.dialect,
            fields: &client.fields,
            client: &client.id,
            remote_hint: client.remote_hint.as_deref(),
        }
    }

    /// Read an entry as the client spells it. Tolerant: any client's spelling of a modelled
    /// field is understood, so a snippet copied from another client's README reads too.
    pub fn read_raw(self, raw: &Value) -> Result<ServerEntry, EntryError> {
        let Value::Object(map) = raw else {
            return Err(EntryError::NotAnObject(kind_of(raw)));
        };
        let mut extras = match nesting::lift(map, self.fields)? {
            Some(flat) => flat,
            None => map.clone(),
        };
        // The client's own key first; `type` is read everywhere (snippets from READMEs).
        let type_key = [self.fields.type_key.as_str(), TYPE_KEY]
            .into_iter()
            .find(|k| extras.contains_key(*k))
            .unwrap_or(TYPE_KEY)
            .to_owned();
        let type_value = match extras.shift_remove(&type_key) {
            Some(Value::String(s)) => Some(s),
            Some(other) => {
                extras.insert(type_key.clone(), other);
                None
            }
            None => None,
        };
        let command = take_first(&mut extras, COMMAND_KEYS, &self.fields.command_key);
        let url_key = URL_KEYS
            .iter()
            .copied()
            .chain(std::iter::once(self.fields.url_key.as_str()))
            .find(|k| extras.contains_key(*k))
            .map(str::to_owned);
        let transport = match (command, url_key) {
            (Some(_), Some(url_key)) => return Err(EntryError::Ambiguous(url_key)),
            (None, None) => return Err(EntryError::NoTransport),
            (Some((command_key, command)), None) => {
                let (command, mut args) = match command {
                    Value::String(s) => (s, Vec::new()),
                    Value::Array(items) => {
                        let mut items = string_list(&command_key, &items)?.into_iter();
                        (
                            items.next().ok_or(EntryError::EmptyCommand)?,
                            items.collect(),
                        )
                    }
                    other => {
                        return Err(EntryError::WrongType {
                            field: command_key,
                            found: kind_of(&other),
                            expected: "a string",
                        });
                    }
                };
                if command.is_empty() {
                    return Err(EntryError::EmptyCommand);
                }
                if let Some((args_key, value)) =
                    take_first(&mut extras, ARGS_KEYS, &self.fields.args_key)
                {
                    let Value::Array(items) = &value else {
                        return Err(EntryError::WrongType {
                            field: args_key,
                            found: kind_of(&value),
                            expected: "a list of strings",
                        });
                    };
                    args.extend(string_list(&args_key, items)?);
                }
                let env = take_map(&mut extras, ENV_KEYS, &self.fields.env_key)?;
                let cwd = match take_first(&mut extras, CWD_KEYS, &self.fields.cwd_key) {
                    Some((_, Value::String(s))) => Some(s),
                    Some((key, other)) => {
                        return Err(EntryError::WrongType {
                            field: key,
                            found: kind_of(&other),
                            expected: "a string",
                        });
                    }
                    None => None,
                };
                Transport::Stdio {
                    command,
                    args,
                    env,
                    cwd,
                }
            }
            (None, Some(url_key)) => {
                let url = match extras.shift_remove(&url_key) {
                    Some(Value::String(s)) => s,
                    other => {
                        return Err(EntryError::WrongType {
                            field: url_key,
                            found: other.as_ref().map_or("missing", kind_of),
                            expected: "a string",
                        });
                    }
                };
                let kind = self.remote_kind(&url_key, type_value.as_deref());
                let headers = take_map(&mut extras, HEADER_KEYS, &self.fields.headers_key)?;
                Transport::Remote { url, kind, headers }
            }
        };
        // A `type` we did not consume as a transport marker stays an extra only when it
        // is not one of the known values (keeps e.g. Goose-like custom types visible).
        if let Some(t) = type_value
            && !spelling::is_known_type(&t)
        {
            extras.insert(type_key, Value::String(t));
        }
        let mut entry = ServerEntry { transport, extras };
        match self.fields.var_syntax {
            Some(VarSyntax::Codex) => passthrough_in(&mut entry),
            Some(VarSyntax::Goose) => goose_env_keys_in(&mut entry),
            _ => {}
        }
        Ok(entry)
    }

    fn remote_kind(&self, url_key: &str, type_value: Option<&str>) -> RemoteKind {
        if HTTP_URL_KEYS.contains(&url_key) {
            return RemoteKind::Http;
        }
        match type_value {
            Some(t) if Some(t) == self.fields.sse_type.as_deref() || SSE_TYPES.contains(&t) => {
                RemoteKind::Sse
            }
            Some(_) => RemoteKind::Http,
            None => match self.fields.untyped_remote {
                UntypedRemote::Sse => RemoteKind::Sse,
                UntypedRemote::Http | UntypedRemote::None => RemoteKind::Http,
            },
        }
    }

    /// Write an entry as the client spells it: modelled fields first, then the extras.
    pub fn to_raw(self, entry: &ServerEntry) -> Result<Value, EntryError> {
        self.to_raw_named(entry, None)
    }

    /// `to_raw` for an entry called `name`, with the row's `defaults` (see `with_defaults`).
    pub fn to_raw_named(
        self,
        entry: &ServerEntry,
        name: Option<&str>,
    ) -> Result<Value, EntryError> {
        let fields = Value::Object(self.raw_fields(entry)?);
        Ok(match name {
            Some(name) => self.with_defaults(fields, name),
            None => fields,
        })
    }

    /// `raw` with the fields the client needs in every entry (row field `defaults`,
    /// `{name}` standing for the name) put first where `raw` does not set them.
    pub fn with_defaults(&self, raw: Value, name: &str) -> Value {
        let Value::Object(fields) = raw else {
            return raw;
        };
        if self.fields.defaults.is_empty() {
            return Value::Object(fields);
        }
        let mut out = Map::new();
        for (key, value) in &self.fields.defaults {
            if !fields.contains_key(key) {
                let value = match value {
                    Value::String(s) => Value::String(s.replace("{name}", name)),
                    other => other.clone(),
                };
                out.insert(key.clone(), value);
            }
        }
        out.extend(fields);
        Value::Object(out)
    }

    fn raw_fields(&self, entry: &ServerEntry) -> Result<Map<String, Value>, EntryError> {
        let passthrough;
        let entry = match self.fields.var_syntax {
            Some(VarSyntax::Codex) => {
                passthrough = passthrough_out(entry);
                &passthrough
            }
            Some(VarSyntax::Goose) => {
                passthrough = goose_env_keys_out(entry);
                &passthrough
            }
            _ => entry,
        };
        let f = self.fields;
        let name = entry.transport.name();
        if !f.transports.contains(&name) {
            return Err(EntryError::Unsupported {
                client: self.client.to_owned(),
                transport: name.as_str(),
                hint: self.remote_hint.map(str::to_owned),
            });
        }
        let mut out = Map::new();
        let mut modelled: Vec<&str> = vec![TYPE_KEY, f.type_key.as_str()];
        match &entry.transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                if let Some(t) = &f.stdio_type {
                    out.insert(f.type_key.clone(), Value::String(t.clone()));
                }
                match self.name {
                    DialectName::Standard => {
                        out.insert(f.command_key.clone(), Value::String(command.clone()));
                        out.insert(f.args_key.clone(), strings(args));
                    }
                    DialectName::CommandArray => {
                        let all: Vec<String> = std::iter::once(command.clone())
                            .chain(args.iter().cloned())
                            .collect();
                        out.insert(f.command_key.clone(), strings(&all));
                    }
                }
                if !env.is_empty() {
                    out.insert(f.env_key.clone(), string_map(env));
                }
                if let Some(cwd) = cwd {
                    if f.cwd_key.is_empty() {
                        return Err(EntryError::NoCwd {
                            client: self.client.to_owned(),
                        });
                    }
                    out.insert(f.cwd_key.clone(), Value::String(cwd.clone()));
                }
                modelled.extend([
                    f.command_key.as_str(),
                    f.args_key.as_str(),
                    f.env_key.as_str(),
                    f.cwd_key.as_str(),
                ]);
                modelled.extend(
                    COMMAND_KEYS
                        .iter()
                        .chain(ARGS_KEYS)
                        .chain(ENV_KEYS)
                        .chain(CWD_KEYS),
                );
            }
            Transport::Remote { url, kind, headers } => {
                let (type_value, url_key) = match kind {
                    RemoteKind::Http => {
                        (&f.http_type, f.http_url_key.as_ref().unwrap_or(&f.url_key))
                    }
                    RemoteKind::Sse => (&f.sse_type, &f.url_key),
                };
                if let Some(t) = type_value {
                    out.insert(f.type_key.clone(), Value::String(t.clone()));
                }
                out.insert(url_key.clone(), Value::String(url.clone()));
                if !headers.is_empty() {
                    out.insert(f.headers_key.clone(), string_map(headers));
                }
                modelled.extend(URL_KEYS.iter().chain(HEADER_KEYS));
                modelled.push(f.url_key.as_str());
                modelled.push(f.headers_key.as_str());
            }
        }
        let transport_keys: Vec<String> = out.keys().cloned().collect();
        for (key, value) in &entry.extras {
            if !modelled.contains(&key.as_str()) && !out.contains_key(key) {
                out.insert(key.clone(), value.clone());
            }
        }
        let transport_keys: Vec<&str> = transport_keys.iter().map(String::as_str).collect();
        Ok(nesting::lower(out, f, &transport_keys))
    }
}

/// Codex's pass-through fields as canonical references: `env_vars = ["T"]` is env
/// `T = "${T}"`, `env_http_headers = {X = "V"}` is header `X: ${V}`, and
/// `bearer_token_env_var = "V"` is `Authorization: Bearer ${V}`.
fn passthrough_in(entry: &mut ServerEntry) {
    let extras = &mut entry.extras;
    match &mut entry.transport {
        Transport::Stdio { env, .. } => {
            if let Some(Value::Array(names)) = extras.get(PASSTHROUGH_ENV_KEY)
                && names.iter().all(Value::is_string)
            {
                for name in names.iter().filter_map(Value::as_str) {
                    env.entry(name.to_owned())
                        .or_insert_with(|| format!("${{{name}}}"));
                }
                extras.shift_remove(PASSTHROUGH_ENV_KEY);
            }
        }
        Transport::Remote { headers, .. } => {
            if let Some(Value::Object(map)) = extras.get(PASSTHROUGH_HEADERS_KEY)
                && map.values().all(Value::is_string)
            {
                for (header, name) in map.iter().filter_map(|(h, n)| Some((h, n.as_str()?))) {
                    headers
                        .entry(header.clone())
                        .or_insert_with(|| format!("${{{name}}}"));
                }
                extras.shift_remove(PASSTHROUGH_HEADERS_KEY);
            }
            if let Some(Value::String(name)) = extras.get(PASSTHROUGH_BEARER_KEY) {
                headers
                    .entry("Authorization".to_owned())
                    .or_insert_with(|| format!("Bearer ${{{name}}}"));
                extras.shift_remove(PASSTHROUGH_BEARER_KEY);
            }
        }
    }
}

/// The inverse of `passthrough_in`: whole-value references become pass-through fields;
/// anything else stays as written (Codex would see it literally).
fn passthrough_out(entry: &ServerEntry) -> ServerEntry {
    let mut out = entry.clone();
    let extras = &mut out.extras;
    match &mut out.transport {
        Transport::Stdio { env, .. } => {
            let mut names = Vec::new();
            env.retain(|key, value| {
                let passes = crate::vars::sole_reference(value).as_deref() == Some(key.as_str());
                if passes {
                    names.push(Value::String(key.clone()));
                }
                !passes
            });
            if !names.is_empty() {
                extras.insert(PASSTHROUGH_ENV_KEY.to_owned(), Value::Array(names));
            }
        }
        Transport::Remote { headers, .. } => {
            let mut from_env = Map::new();
            let mut bearer = None;
            headers.retain(|key, value| {
                if let Some(name) = crate::vars::sole_reference(value) {
                    from_env.insert(key.clone(), Value::String(name));
                    return false;
                }
                if key.eq_ignore_ascii_case("authorization")
                    && let Some(name) = value
                        .strip_prefix("Bearer ")
                        .and_then(crate::vars::sole_reference)
                {
                    bearer = Some(name);
                    return false;
                }
                true
            });
            if let Some(name) = bearer {
                extras.insert(PASSTHROUGH_BEARER_KEY.to_owned(), Value::String(name));
            }
            if !from_env.is_empty() {
                extras.insert(PASSTHROUGH_HEADERS_KEY.to_owned(), Value::Object(from_env));
            }
        }
    }
    out
}

/// Goose's `env_keys` as canonical references: a stdio entry's `env_keys: [T]` is env
/// `T = "${T}"` (a value in `envs` wins, as in Goose); a remote entry's names are those
/// its headers' `${VAR}` read, so they go when every one is referenced there.
fn goose_env_keys_in(entry: &mut ServerEntry) {
    let extras = &mut entry.extras;
    let Some(Value::Array(names)) = extras.get(GOOSE_ENV_KEYS) else {
        return;
    };
    if !names.iter().all(Value::is_string) {
        return;
    }
    let names: Vec<String> = names
        .iter()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect();
    match &mut entry.transport {
        Transport::Stdio { env, .. } => {
            for name in names {
                env.entry(name.clone())
                    .or_insert_with(|| format!("${{{name}}}"));
            }
            extras.shift_remove(GOOSE_ENV_KEYS);
        }
        Transport::Remote { headers, .. } => {
            let read = header_variables(headers);
            if names.iter().all(|n| read.contains(n)) {
                extras.shift_remove(GOOSE_ENV_KEYS);
            }
        }
    }
}

/// The inverse of `goose_env_keys_in`: an env value that is exactly a reference to the
/// variable of its own name goes to `env_keys`; a remote entry lists every variable its
/// headers read. Anything else stays as written (Goose would see it literally;
/// `render` refuses it first).
fn goose_env_keys_out(entry: &ServerEntry) -> ServerEntry {
    let mut out = entry.clone();
    let names: Vec<String> = match &mut out.transport {
        Transport::Stdio { env, .. } => {
            let mut names = Vec::new();
            env.retain(|key, value| {
                let passes = crate::vars::sole_reference(value).as_deref() == Some(key.as_str());
                if passes {
                    names.push(key.clone());
                }
                !passes
            });
            names
        }
        Transport::Remote { headers, .. } => header_variables(headers),
    };
    if !names.is_empty() {
        out.extras.insert(
            GOOSE_ENV_KEYS.to_owned(),
            Value::Array(names.into_iter().map(Value::String).collect()),
        );
    }
    out
}

/// The variables header values reference, in order, each once.
fn header_variables(headers: &StringMap) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for value in headers.values() {
        for r in crate::vars::references(value) {
            if r.syntax != crate::vars::Syntax::Input && !names.contains(&r.name) {
                names.push(r.name);
            }
        }
    }
    names
}

fn strings(items: &[String]) -> Value {
    Value::Array(items.iter().cloned().map(Value::String).collect())
}

fn string_map(map: &StringMap) -> Value {
    Value::Object(
        map.iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect(),
    )
}

fn string_list(field: &str, items: &[Value]) -> Result<Vec<String>, EntryError> {
    items
        .iter()
        .map(|v| match v {
            Value::String(s) => Ok(s.clone()),
            other => Err(EntryError::WrongType {
                field: field.to_owned(),
                found: kind_of(other),
                expected: "a list of strings",
            }),
        })
        .collect()
}

fn take_first(
    extras: &mut Map<String, Value>,
    keys: &[&str],
    preferred: &str,
) -> Option<(String, Value)> {
    let key = std::iter::once(preferred)
        .chain(keys.iter().copied())
        .filter(|k| !k.is_empty())
        .find(|k| extras.contains_key(*k))?
        .to_owned();
    let value = extras.shift_remove(&key)?;
    Some((key, value))
}

fn take_map(
    extras: &mut Map<String, Value>,
    keys: &[&str],
    preferred: &str,
) -> Result<StringMap, EntryError> {
    match take_first(extras, keys, preferred) {
        None => Ok(StringMap::new()),
        Some((_, Value::Object(map))) => Ok(map
            .into_iter()
            .map(|(k, v)| {
                let v = match v {
                    Value::String(s) => s,
                    other => other.to_string(),
                };
                (k, v)
            })
            .collect()),
        Some((key, other)) => Err(EntryError::WrongType {
            field: key,
            found: kind_of(&other),
            expected: "an object of strings",
        }),
    }
}

// ---------------------------------------------------------------------------------------
// Windows `cmd /c` wrapping (design.md §5, mcp-notes.md §3).

/// Launchers that are batch shims on Windows and need `cmd /c`: npm's, and .NET's `dnx`
/// (shipped as `dnx.cmd`; there is no `dnx.exe`, see dotnet/dotnet-docker#6554).
pub const WINDOWS_SHIMS: &[&str] = &[
    "npx", "npm", "pnpm", "pnpx", "yarn", "yarnpkg", "corepack", "tsx", "ts-node", "dnx",
];

fn command_stem(command: &str) -> String {
    let base = command.rsplit(['/', '\\']).next().unwrap_or(command);
    base.trim_end_matches(['.', ' ']).to_ascii_lowercase()
}

/// `cmd /c ...` (also `cmd.exe`, `/C`, `/s /c`, `/d /c`).
pub fn is_wrapped(command: &str, args: &[String]) -> bool {
    let stem = command_stem(command);
    if stem != "cmd" && stem != "cmd.exe" {
        return false;
    }
    slash_c(args).is_some()
}

/// The index of `/c` among `cmd`'s leading switches (`/s /c`, `/d /c`, ...). A switch is
/// a slash and one letter, so an absolute Unix path after `/c` is the command, not one.
fn slash_c(args: &[String]) -> Option<usize> {
    args.iter()
        .take(3)
        .take_while(|a| a.len() == 2 && a.starts_with('/'))
        .position(|a| a.eq_ignore_ascii_case("/c"))
}

/// Whether a stdio command must be wrapped as `cmd /c` to start on Windows.
pub fn needs_wrap(command: &str, args: &[String]) -> bool {
    if is_wrapped(command, args) {
        return false;
    }
    let stem = command_stem(command);
    if stem.ends_with(".cmd") || stem.ends_with(".bat") {
        return true;
    }
    WINDOWS_SHIMS.contains(&stem.as_str())
}

/// `npx a b` → `cmd /c npx a b`; never wraps twice. A command the client will quote (it
/// has a space: `C:\Program Files\X\srv.cmd`) goes after `call` (`needs_call`).
pub fn wrap(command: &str, args: &[String]) -> (String, Vec<String>) {
    if !needs_wrap(command, args) {
        return (command.to_owned(), args.to_vec());
    }
    let mut wrapped = vec!["/c".to_owned()];
    if needs_call(command) {
        wrapped.push("call".to_owned());
    }
    wrapped.push(command.to_owned());
    wrapped.extend(args.iter().cloned());
    ("cmd".to_owned(), wrapped)
}

/// A command `cmd /c` must be given through `call`: one that clients quote. A client
/// starts `cmd` with an argument list (Node's libuv, Rust's and Go's process APIs) and
/// quotes each argument with a space or tab, so `cmd /c "C:\Program Files\X\srv.cmd" "a b"`
/// reaches cmd.exe; with more than two quotes on the line, cmd strips the first and the
/// last (`cmd /?`) and looks for `C:\Program Files\X\srv.cmd" "a b`: not found, exit
/// 9009. After `call` the line no longer starts with a quote and cmd leaves the quotes
/// alone. (`cmd /s /c ""…" "a b""` only works typed at a prompt: written as arguments,
/// the client quotes it again.)
fn needs_call(command: &str) -> bool {
    command.contains([' ', '\t'])
}

/// The client quotes this argument (libuv's rule: a space, a tab, a quote, or empty).
fn client_quotes(arg: &str) -> bool {
    arg.is_empty() || arg.contains([' ', '\t', '"'])
}

/// A `cmd /c` entry cmd.exe cannot parse once the client has quoted its arguments: a
/// quoted command (a space in it, or quotes of its own) not behind `call`, with another
/// quoted argument after it, or with `/s` (which always strips the first and last quote).
/// `wrap` writes the working form; `check` reports this one (MCP305).
pub fn cmd_quoting_breaks(command: &str, args: &[String]) -> bool {
    if !is_wrapped(command, args) {
        return false;
    }
    let Some(at) = slash_c(args) else {
        return false;
    };
    let Some((inner, rest)) = args[at + 1..].split_first() else {
        return false;
    };
    if inner.eq_ignore_ascii_case("call") || !client_quotes(inner) {
        return false;
    }
    let slash_s = args[..at].iter().any(|a| a.eq_ignore_ascii_case("/s"));
    inner.contains('"') || slash_s || rest.iter().any(|a| client_quotes(a))
}

/// The command a person means: `cmd /c npx a` → (`npx`, [`a`], true); `cmd /c call X a`
/// → (`X`, [`a`], true).
pub fn logical(command: &str, args: &[String]) -> (String, Vec<String>, bool) {
    if is_wrapped(command, args)
        && let Some(at) = slash_c(args)
        && let Some((inner, rest)) = args[at + 1..].split_first()
    {
        if inner.eq_ignore_ascii_case("call")
            && let Some((inner, rest)) = rest.split_first()
        {
            return (inner.clone(), rest.to_vec(), true);
        }
        return (inner.clone(), rest.to_vec(), true);
    }
    (command.to_owned(), args.to_vec(), false)
}

/// Arguments with characters `cmd.exe` re-interprets after `cmd /c`.
pub fn cmd_metachar_args(args: &[String]) -> Vec<&str> {
    args.iter()
        .filter(|a| a.contains(['&', '|', '<', '>', '^', '%', '!', '"']))
        .map(String::as_str)
        .collect()
}

// ---------------------------------------------------------------------------------------
// Server names.

/// Names longer than this are refused.
pub const MAX_NAME_LEN: usize = 128;

/// A server name is refused: empty, too long, or with control characters.
pub fn validate_name(name: &str) -> Result<(), String> {
    if name.trim().is_empty() {
        return Err("server name is empty".to_owned());
    }
    if name.chars().count() > MAX_NAME_LEN {
        return Err(format!(
            "server name is longer than {MAX_NAME_LEN} characters"
        ));
    }
    if name.chars().any(char::is_control) {
        return Err("server name contains a control character or newline".to_owned());
    }
    Ok(())
}

/// Clients with `strict_names` accept only `[A-Za-z0-9_-]` in names.
pub fn name_is_portable(name: &str) -> bool {
    name.chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clients::ClientTable;
    use serde_json::json;

    fn dialect_roundtrip(id: &str, raw: Value) -> ServerEntry {
        let table = ClientTable::builtin().unwrap();
        let d = Dialect::of(table.get(id).unwrap());
        let entry = d.read_raw(&raw).unwrap();
        assert_eq!(d.to_raw(&entry).unwrap(), raw, "{id}");
        entry
    }

    #[test]
    fn to_raw_from_raw_identity_per_client_shape() {
        dialect_roundtrip(
            "claude-code",
            json!({"type":"stdio","command":"npx","args":["-y","x"],"env":{"K":"v"}}),
        );
        dialect_roundtrip(
            "claude-code",
            json!({"type":"http","url":"https://x/mcp","headers":{"A":"b"}}),
        );
        dialect_roundtrip(
            "windsurf",
            json!({"serverUrl":"https://x/mcp","disabled":false}),
        );
        dialect_roundtrip(
            "cline",
            json!({"type":"streamableHttp","url":"https://x/mcp","autoApprove":[]}),
        );
        dialect_roundtrip(
            "roo-code",
            json!({"type":"streamable-http","url":"https://x"}),
        );
        dialect_roundtrip(
            "copilot-cli",
            json!({"type":"local","command":"npx","args":[],"tools":["*"]}),
        );
        dialect_roundtrip(
            "opencode",
            json!({"type":"local","command":["npx","-y","x"],"environment":{"A":"1"},"enabled":true}),
        );
        dialect_roundtrip(
            "opencode",
            json!({"type":"remote","url":"https://x","headers":{"A":"1"}}),
        );
        dialect_roundtrip("qwen-code", json!({"httpUrl":"https://x"}));
        dialect_roundtrip("qwen-code", json!({"url":"https://x/sse"}));
        dialect_roundtrip(
            "gemini-cli",
            json!({"type":"http","url":"https://x","trust":true}),
        );
        dialect_roundtrip("codex", json!({"url":"https://x","http_headers":{"A":"1"}}));
        dialect_roundtrip(
            "warp",
            json!({"command":"uvx","args":["x"],"working_directory":"/tmp"}),
        );
        dialect_roundtrip("vscode", json!({"type":"sse","url":"https://x"}));
        dialect_roundtrip(
            "goose",
            json!({"type":"stdio","cmd":"npx","args":["-y","x"],"envs":{"K":"v"},"name":"x","enabled":true,"timeout":300}),
        );
        dialect_roundtrip(
            "goose",
            json!({"type":"streamable_http","uri":"https://x/mcp","headers":{"A":"b"},"name":"x","enabled":false,"description":""}),
        );
    }

    #[test]
    fn defaults_fill_what_the_client_requires_unless_the_entry_sets_it() {
        let table = ClientTable::builtin().unwrap();
        let goose = Dialect::of(table.get("goose").unwrap());
        let entry = goose
            .read_raw(&json!({"cmd":"uvx","args":["m"],"timeout":60}))
            .unwrap();
        assert_eq!(
            goose.to_raw_named(&entry, Some("mem")).unwrap(),
            json!({"description":"","enabled":true,"name":"mem","type":"stdio","cmd":"uvx","args":["m"],"timeout":60})
        );
        // Rows without defaults are unchanged by a name.
        let cursor = Dialect::of(table.get("cursor").unwrap());
        let entry = cursor.read_raw(&json!({"command":"x","args":[]})).unwrap();
        assert_eq!(
            cursor.to_raw_named(&entry, Some("n")).unwrap(),
            cursor.to_raw(&entry).unwrap()
        );
    }

    #[test]
    fn codex_pass_through_fields_read_as_references_and_write_back() {
        let env = dialect_roundtrip(
            "codex",
            json!({"command":"npx","args":[],"env":{"MODE":"fast"},"env_vars":["GITHUB_TOKEN"]}),
        );
        match env.transport {
            Transport::Stdio { env, .. } => assert_eq!(env["GITHUB_TOKEN"], "${GITHUB_TOKEN}"),
            Transport::Remote { .. } => unreachable!(),
        }
        let remote = dialect_roundtrip(
            "codex",
            json!({"url":"https://x","bearer_token_env_var":"TOKEN","env_http_headers":{"X-Api-Key":"KEY"}}),
        );
        match remote.transport {
            Transport::Remote { headers, .. } => {
                assert_eq!(headers["Authorization"], "Bearer ${TOKEN}");
                assert_eq!(headers["X-Api-Key"], "${KEY}");
            }
            Transport::Stdio { .. } => unreachable!(),
        }
        assert!(remote.extras.is_empty());
    }

    #[test]
    fn untyped_remote_follows_the_client() {
        let table = ClientTable::builtin().unwrap();
        let raw = json!({"url":"https://x"});
        let kind = |id: &str| match Dialect::of(table.get(id).unwrap())
            .read_raw(&raw)
            .unwrap()
            .transport
        {
            Transport::Remote { kind, .. } => kind,
            Transport::Stdio { .. } => unreachable!(),
        };
        assert_eq!(kind("cline"), RemoteKind::Sse);
        assert_eq!(kind("cursor"), RemoteKind::Http);
        assert_eq!(kind("qwen-code"), RemoteKind::Sse);
    }

    #[test]
    fn read_raw_rejects_bad_shapes() {
        let table = ClientTable::builtin().unwrap();
        let d = Dialect::of(table.get("cursor").unwrap());
        assert_eq!(
            d.read_raw(&json!([])),
            Err(EntryError::NotAnObject("an array"))
        );
        assert!(matches!(
            d.read_raw(&json!({"command":"x","url":"y"})),
            Err(EntryError::Ambiguous(_))
        ));
        assert_eq!(
            d.read_raw(&json!({"disabled":true})),
            Err(EntryError::NoTransport)
        );
        assert!(matches!(
            d.read_raw(&json!({"command":"x","args":"y"})),
            Err(EntryError::WrongType { .. })
        ));
        assert!(matches!(
            d.read_raw(&json!({"command":"x","env":[]})),
            Err(EntryError::WrongType { .. })
        ));
    }

    #[test]
    fn remote_in_claude_desktop_is_refused_with_hint() {
        let table = ClientTable::builtin().unwrap();
        let d = Dialect::of(table.get("claude-desktop").unwrap());
        let entry = ServerEntry {
            transport: Transport::Remote {
                url: "https://x".into(),
                kind: RemoteKind::Http,
                headers: StringMap::new(),
            },
            extras: Map::new(),
        };
        match d.to_raw(&entry) {
            Err(EntryError::Unsupported { hint: Some(h), .. }) => assert!(h.contains("Connectors")),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn wrapping_rules() {
        let a = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(
            wrap("npx", &a(&["-y", "x"])),
            ("cmd".to_owned(), a(&["/c", "npx", "-y", "x"]))
        );
        assert_eq!(
            wrap("cmd", &a(&["/c", "npx"])),
            ("cmd".to_owned(), a(&["/c", "npx"]))
        );
        assert!(!needs_wrap("node", &a(&["x.js"])));
        assert!(!needs_wrap("uvx", &a(&["x"])));
        assert!(needs_wrap("C:\\nodejs\\NPX.CMD", &[]));
        assert!(needs_wrap("pnpm", &[]));
        assert!(needs_wrap("dnx", &a(&["Contoso.Mcp@1.0.0", "--yes"])));
        assert!(is_wrapped("cmd.exe", &a(&["/d", "/c", "npx"])));
        assert_eq!(
            logical("cmd", &a(&["/C", "npx", "-y"])),
            ("npx".to_owned(), a(&["-y"]), true)
        );
        assert_eq!(
            cmd_metachar_args(&a(&["https://x?a=1&b=2", "ok"])),
            vec!["https://x?a=1&b=2"]
        );
        // Regression: an absolute Unix path after /c was taken for another switch.
        assert_eq!(
            logical("cmd", &a(&["/c", "/usr/bin/srv", "x"])),
            ("/usr/bin/srv".to_owned(), a(&["x"]), true)
        );
        assert_eq!(
            logical("cmd", &a(&["/s", "/c", "npx"])),
            ("npx".to_owned(), vec![], true)
        );
    }

    #[test]
    fn a_quoted_batch_file_is_called_and_the_form_cmd_cannot_parse_is_known() {
        let a = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        let srv = r"C:\Program Files\X\srv.cmd";
        let (command, args) = wrap(srv, &a(&["a b"]));
        assert_eq!(
            (command.as_str(), args.clone()),
            ("cmd", a(&["/c", "call", srv, "a b"]))
        );
        assert!(!cmd_quoting_breaks(&command, &args));
        assert_eq!(
            logical(&command, &args),
            (srv.to_owned(), a(&["a b"]), true)
        );
        assert!(!needs_wrap(&command, &args), "never wrapped twice");
        assert!(cmd_quoting_breaks("cmd", &a(&["/c", srv, "a b"])));
        assert!(cmd_quoting_breaks("cmd", &a(&["/s", "/c", srv])));
        assert!(cmd_quoting_breaks(
            "cmd",
            &a(&["/s", "/c", &format!("\"\"{srv}\" \"a b\"\"")])
        ));
        // Two quotes only (the command), or no quoted command: cmd keeps them.
        assert!(!cmd_quoting_breaks("cmd", &a(&["/c", srv, "ab"])));
        assert!(!cmd_quoting_breaks(
            "cmd",
            &a(&["/c", r"C:\X\srv.cmd", "a b"])
        ));
        // A command without a space needs no `call`.
        assert_eq!(wrap("npx", &a(&["a b"])).1, a(&["/c", "npx", "a b"]));
    }

    #[test]
    fn batch_shims_of_every_spelling_are_wrapped() {
        let a = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        for shim in [
            r"C:\tools\srv.bat",
            r"C:\tools\SRV.BAT",
            r"C:\tools\srv.Cmd",
            "srv.bat",
        ] {
            assert_eq!(
                wrap(shim, &a(&["x"])),
                ("cmd".to_owned(), a(&["/c", shim, "x"])),
                "{shim}"
            );
        }
    }

    #[test]
    fn names_are_validated() {
        assert!(validate_name("github").is_ok());
        assert!(validate_name("").is_err());
        assert!(validate_name("a\nb").is_err());
        assert!(validate_name(&"x".repeat(129)).is_err());
        assert!(name_is_portable("my-server_2"));
        assert!(!name_is_portable("my server"));
    }
}
