//! Switching one server off and on without losing it (design §10): `disable`, `enable`,
//! and `apply --profile` all go through [`switch`].
//!
//! Each client row says how (`clients.toml` field `switch`, [`Method`]):
//! - `field`: the entry's own field (`"disabled": true`, Codex `enabled = false`);
//! - `list`: a list of names elsewhere (Claude Code's per-project `disabledMcpServers` in
//!   `~/.claude.json`, Qwen Code's `mcp.excluded`);
//! - `enablement`: a file of its own (Gemini CLI's `mcp-server-enablement.json`);
//! - `park`: no switch (Claude Desktop, Cursor, VS Code, Claude Code user scope): the
//!   entry's exact bytes move to the state directory and come back byte for byte.
//!
//! Either way `disable` then `enable` gives back the original bytes: a field or list
//! mcpctl added is removed again, a value the user had is restored (`store` remembers it).
//! Every file goes through `session::edit` (lock, atomic write, backup, journal), so
//! `undo` reverts a switch like any other command.
//!
//! # The seam
//!
//! ```text
//! toggle::switch(ctx, client, &location, name, Want::Off | Want::On, dry_run)
//!     -> anyhow::Result<Switched>
//! ```
//! `location` is where the entry lives (`client.location(scope, …)`); the result says what
//! happened (`Action::Disabled | Enabled | Unchanged | Missing`), by which [`Method`], to
//! which file (with the diff under `dry_run`). `Missing`: no such entry there and nothing
//! parked. Errors: a parked entry that was re-created by hand with other content (a
//! conflict: nothing is overwritten), an unreadable file. [`Probe::power`] reads the
//! state without writing (for `list`, `doctor`, `plan`).

pub mod filters;
pub mod here;
pub mod native;
pub mod park;
pub mod store;

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::PathBuf;

use serde::Serialize;

use crate::clients::{Client, Location, Scope, Switch};
use crate::formats::{ConfigDoc, Edit, RawEntry, ServersAt};
use crate::session::Context;
use crate::session::inventory::read_document;
use serde_json::Value;

pub use store::{Parked, Store};

/// Which way to switch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Want {
    On,
    Off,
}

/// How a client's entry is switched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    Field,
    List,
    Enablement,
    Park,
}

/// What a switch did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Disabled,
    Enabled,
    /// Already in the wanted state (or, for `enable`, never disabled).
    Unchanged,
    /// No entry of that name at the location, and none parked.
    Missing,
}

/// The result of one switch.
#[derive(Debug)]
pub struct Switched {
    pub action: Action,
    pub method: Method,
    /// The file that changed (or would): the client's file, or the file holding its list.
    pub path: PathBuf,
    /// Unified diff, with `dry_run` (secrets redacted).
    pub diff: Option<String>,
    /// Where the previous bytes were kept.
    pub backup: Option<PathBuf>,
    /// Something the user should know (`was not disabled`, `the file changed since it was
    /// parked: put back as a new entry`).
    pub note: Option<String>,
    /// The file changed, and a later step did not happen (it says which): the outcome is
    /// partial, not failed, and the command exits 2.
    pub unfinished: Option<String>,
}

impl Switched {
    fn unchanged(method: Method, path: PathBuf, note: impl Into<String>) -> Switched {
        Switched {
            action: Action::Unchanged,
            method,
            path,
            diff: None,
            backup: None,
            note: Some(note.into()),
            unfinished: None,
        }
    }

    fn missing(method: Method, path: PathBuf) -> Switched {
        Switched {
            action: Action::Missing,
            method,
            path,
            diff: None,
            backup: None,
            note: None,
            unfinished: None,
        }
    }
}

/// How `client` switches entries of `scope`.
pub fn method(client: &Client, scope: Scope) -> Method {
    match &client.switch {
        Some(Switch::Field { .. }) => Method::Field,
        Some(Switch::List { scopes, .. }) if scopes.contains(&scope) => Method::List,
        Some(Switch::Enablement { .. }) => Method::Enablement,
        _ => Method::Park,
    }
}

/// Switch the server `name` at `location` on or off (see the module doc).
pub fn switch(
    ctx: &Context,
    client: &Client,
    location: &Location,
    name: &str,
    want: Want,
    dry_run: bool,
) -> anyhow::Result<Switched> {
    let key = crate::session::edit::entry_key(location, name);
    let parked = store::load(ctx)?.parked(&key).is_some();
    match (want, method(client, location.scope)) {
        (Want::On, _) if parked => park::unpark(ctx, client, location, name, dry_run),
        (Want::Off, _) if parked => park::park_again(ctx, client, location, name, dry_run),
        (Want::Off, Method::Park) => park::park(ctx, client, location, name, dry_run),
        (Want::On, Method::Park) => Ok(match entry_in(ctx, client, location, name)? {
            Some(_) => Switched::unchanged(Method::Park, location.path.clone(), "not disabled"),
            None => Switched::missing(Method::Park, location.path.clone()),
        }),
        (want, _) => native::switch(ctx, client, location, name, want, dry_run),
    }
}

/// The entry `name` at `at`, as the document spells it.
/// The field `field` of the entry `name` at `location`.
pub(crate) fn entry_field(
    doc: &dyn ConfigDoc,
    location: &Location,
    name: &str,
    field: &str,
) -> anyhow::Result<Option<Value>> {
    Ok(find(doc, location.at(), name)?.and_then(|entry| entry.get(field).cloned()))
}

/// Set (`Some`) or drop (`None`) the field `field` of the entry `name` at `location`. In a
/// map of servers the field is edited through the entry's key path; a named item of a
/// list (Mistral Vibe's `[[mcp_servers]]`) has no key path, so the item is upserted with
/// the field changed, which updates it key by key: its other lines keep their bytes.
pub(crate) fn set_entry_field(
    doc: &mut dyn ConfigDoc,
    location: &Location,
    name: &str,
    field: &str,
    value: Option<&Value>,
) -> anyhow::Result<Edit> {
    if location.name_key.is_none() {
        let at = [location.key.clone(), vec![name.to_owned()]].concat();
        return Ok(match value {
            Some(value) => doc.upsert(ServersAt::map(&at), field, value)?,
            None => doc.remove(ServersAt::map(&at), field)?,
        });
    }
    let Some(mut entry) = find(doc, location.at(), name)? else {
        return Ok(Edit::Unchanged);
    };
    let Some(fields) = entry.as_object_mut() else {
        return Ok(Edit::Unchanged);
    };
    match value {
        Some(value) => {
            fields.insert(field.to_owned(), value.clone());
        }
        None => {
            fields.remove(field);
        }
    }
    Ok(doc.upsert(location.at(), name, &entry)?)
}

pub(crate) fn find(
    doc: &dyn ConfigDoc,
    at: ServersAt<'_>,
    name: &str,
) -> anyhow::Result<Option<RawEntry>> {
    Ok(doc
        .servers(at)?
        .into_iter()
        .rev()
        .find(|(n, _)| n == name)
        .map(|(_, raw)| raw))
}

/// The entry `name` at `location` (`None`: not in the file, or no file).
fn entry_in(
    ctx: &Context,
    client: &Client,
    location: &Location,
    name: &str,
) -> anyhow::Result<Option<RawEntry>> {
    if !crate::fs::exists(&location.path) {
        return Ok(None);
    }
    let document = read_document(ctx, client, &location.path)?;
    find(document.doc.as_ref(), location.at(), name)
}

/// Whether a configured entry is switched off by its client's own switch.
pub fn switched_off(probe: &Probe<'_>, found: &crate::session::inventory::Found<'_>) -> bool {
    let location = Location {
        scope: found.scope,
        path: found.path.clone(),
        key: found.key.clone(),
        name_key: found.client.servers_name_key.clone(),
    };
    probe.power(found.client, &location, &found.name, found.raw()) == Power::Off
}

/// Whether a server is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Power {
    On,
    /// Off through the client's own switch.
    Off,
}

type Place = (PathBuf, Vec<String>);
type Members = Vec<(String, RawEntry)>;

/// Reads switch states for many entries (`list`, `doctor`): the parked store and the
/// files holding lists are read once.
pub struct Probe<'c> {
    ctx: &'c Context,
    store: Store,
    /// Members of the objects read so far, by (file, key path).
    objects: RefCell<HashMap<Place, Members>>,
}

impl<'c> Probe<'c> {
    pub fn new(ctx: &'c Context) -> anyhow::Result<Probe<'c>> {
        Ok(Probe {
            ctx,
            store: store::load(ctx)?,
            objects: RefCell::new(HashMap::new()),
        })
    }

    /// Every parked entry.
    pub fn parked(&self) -> &[Parked] {
        &self.store.parked
    }

    /// Whether the entry `name` (read as `raw`) at `location` is switched off.
    pub fn power(&self, client: &Client, location: &Location, name: &str, raw: &RawEntry) -> Power {
        let off = match (&client.switch, method(client, location.scope)) {
            (Some(Switch::Field { key, off }), _) => raw.get(key) == Some(off),
            (
                Some(Switch::List {
                    file,
                    format,
                    at,
                    key,
                    ..
                }),
                Method::List,
            ) => native::list_place(self.ctx, client, file.as_deref(), at)
                .ok()
                .is_some_and(|(path, at)| {
                    self.member(&native::list_reader(client, *format), &path, &at, key)
                        .and_then(|v| v.as_array().cloned())
                        .is_some_and(|names| names.iter().any(|n| n == name))
                }),
            (Some(Switch::Enablement { file }), _) => self
                .ctx
                .platform
                .expand(file)
                .ok()
                .and_then(|path| self.member(client, &path, &[], &native::enablement_name(name)))
                .is_some_and(|state| native::enablement_off(&state)),
            _ => false,
        };
        if off { Power::Off } else { Power::On }
    }

    fn member(
        &self,
        client: &Client,
        path: &std::path::Path,
        at: &[String],
        key: &str,
    ) -> Option<RawEntry> {
        let mut objects = self.objects.borrow_mut();
        let members = objects
            .entry((path.to_path_buf(), at.to_vec()))
            .or_insert_with(|| {
                if !path.is_file() {
                    return Vec::new();
                }
                read_document(self.ctx, client, path)
                    .ok()
                    .and_then(|d| d.doc.servers(ServersAt::map(at)).ok())
                    .unwrap_or_default()
            });
        members
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
    }
}
