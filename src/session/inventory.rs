//! Reading what is configured: a client's locations, each file parsed, each entry read
//! through the client's dialect. Shared by `clients`, `list` and `doctor`; never writes.

use std::path::{Path, PathBuf};

use anyhow::Context as _;

use crate::clients::{Client, Location, Scope};
use crate::entry::{Dialect, EntryError, ServerEntry};
use crate::error::UserError;
use crate::formats::{ConfigDoc, Position, RawEntry, ShapeError, Span};
use crate::fs::{self, Source};
use crate::session::Context;
use crate::sources::{self, Exclusive, Origin};

/// A parsed config file.
pub struct Document {
    pub source: Source,
    pub doc: Box<dyn ConfigDoc>,
}

/// `~/x` for paths under the home directory, for messages; absolute under `--json`.
pub fn display_path(ctx: &Context, path: &Path) -> String {
    if !ctx.json
        && let Ok(home) = ctx.platform.home()
        && let Ok(rest) = path.strip_prefix(&home)
    {
        return format!("~/{}", rest.display());
    }
    path.display().to_string()
}

/// An error about `path`, as editors and terminals take it: `PATH:LINE:COLUMN: message`
/// where there is a position, else `PATH: message` (the path as `display_path` shows it:
/// absolute under `--json`).
pub fn file_error(
    ctx: &Context,
    path: &Path,
    position: Option<Position>,
    message: impl std::fmt::Display,
) -> UserError {
    let shown = display_path(ctx, path);
    UserError::new(match position {
        Some(Position { line, column }) => format!("{shown}:{line}:{column}: {message}"),
        None => format!("{shown}: {message}"),
    })
}

/// A value of the wrong type on the way to the servers map of `path`.
pub fn shape_error(ctx: &Context, path: &Path, error: &ShapeError) -> UserError {
    let hint = match error {
        ShapeError::NotAnObject { .. } => {
            "mcpctl reads and writes only an object there; fix the file by hand (mcpctl left it unchanged)"
        }
        ShapeError::NotAList { .. } => {
            "mcpctl reads and writes only a list there; fix the file by hand (mcpctl left it unchanged)"
        }
        ShapeError::ListUnsupported { .. } => {
            "the client table names a list where this format has none; fix the client table (mcpctl left the file unchanged)"
        }
        ShapeError::Unrepresentable { .. } => {
            "the entry cannot be written in this file's format; change the entry (mcpctl left the file unchanged)"
        }
    };
    file_error(ctx, path, error.position(), error).hint(hint)
}

/// `error` from editing `path`'s document, with the file named when it is a
/// `ShapeError` (the document's errors do not know their file).
pub fn in_file(ctx: &Context, path: &Path, error: anyhow::Error) -> anyhow::Error {
    match error.downcast_ref::<ShapeError>() {
        Some(shape) => shape_error(ctx, path, shape).into(),
        None => error,
    }
}

/// Read and parse a client's file. A missing file is an empty document.
pub fn read_document(ctx: &Context, client: &Client, path: &Path) -> anyhow::Result<Document> {
    let mut source = fs::read_settled(path, || ctx.state.wrote_into(path)).map_err(|e| {
        UserError::new(e.to_string())
            .hint("check the file's permissions and encoding; mcpctl left it unchanged")
    })?;
    // The document takes the text over (no second copy of a big file); `source` keeps
    // what a write needs: path, BOM and the version stamp.
    let doc = client.format.parse(source.take_text()).map_err(|e| {
        let position = Position {
            line: e.line,
            column: e.column,
        };
        file_error(
            ctx,
            path,
            Some(position),
            format_args!("not valid {}: {}", client.format.display_name(), e.message),
        )
        .hint(format!(
            "mcpctl left the file unchanged; fix the syntax, then run `mcpctl list -c {}`",
            client.id
        ))
    })?;
    Ok(Document { source, doc })
}

/// One configured server.
pub struct Found<'a> {
    pub client: &'a Client,
    pub scope: Scope,
    pub path: PathBuf,
    /// Where the servers map is in the file.
    pub key: Vec<String>,
    pub name: String,
    /// The entry as the file spells it and as a server: `raw()`, `entry()`.
    contents: Contents,
    /// `None`: an entry in one of the client's config files, which mcpctl edits. `Some`: a
    /// read-only source (a plugin, an extension, an administrator's file), never edited.
    /// Boxed: few entries have one, and every entry's `Found` is held at once.
    pub origin: Option<Box<Origin>>,
    /// Why the client does not load this entry although it is there (an administrator's
    /// file has exclusive control; the user's settings define the same name).
    pub not_loaded: Option<String>,
}

/// An entry's contents: read once and kept, or (entries of a JSON file collected with
/// [`Keep::Names`]) read again from the file's text whenever they are wanted, and let go
/// with [`Found::release`]. 100,000 entries' values do not fit in memory at once
/// (about 2 KB each as values, against 150 bytes of text).
struct Contents {
    read: std::sync::OnceLock<Box<Read>>,
    again: Option<Again>,
}

/// The entry read: as the file spells it, and as a server.
struct Read {
    raw: RawEntry,
    entry: Result<ServerEntry, EntryError>,
    /// Where the entry's name is written, when the entry does not read as a server.
    position: Option<Position>,
}

/// Where to read an entry again: its file's text (shared by its entries) and its bytes.
struct Again {
    text: std::sync::Arc<String>,
    span: Span,
}

impl Again {
    fn read(&self, client: &Client) -> Read {
        // The same bytes `collect` read (and the document validated) read the same way.
        let raw = crate::formats::read_span(&self.text, &self.span).unwrap_or(RawEntry::Null);
        let entry = Dialect::of(client).from_raw(&raw);
        let position = entry
            .is_err()
            .then(|| crate::formats::position_of(&self.text, self.span.key_start));
        Read {
            raw,
            entry,
            position,
        }
    }
}

/// What [`collect`] keeps of each entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// Everything, read once.
    All,
    /// For a JSON file's entries, what the passes over all entries need (names, places,
    /// scopes); the contents are read again from the file's text when asked for, and
    /// `release` lets them go again (`doctor` at 100,000 entries).
    Names,
}

impl<'a> Found<'a> {
    /// An entry whose contents are kept.
    pub fn new(
        client: &'a Client,
        scope: Scope,
        path: PathBuf,
        key: Vec<String>,
        name: String,
        raw: RawEntry,
        position: impl FnOnce(&str) -> Option<Position>,
    ) -> Self {
        let entry = Dialect::of(client).from_raw(&raw);
        // Looked up only for a broken entry (a scan of the file each).
        let position = if entry.is_err() {
            position(&name)
        } else {
            None
        };
        let read = std::sync::OnceLock::new();
        let _ = read.set(Box::new(Read {
            raw,
            entry,
            position,
        }));
        Found {
            client,
            scope,
            path,
            key,
            name,
            contents: Contents { read, again: None },
            origin: None,
            not_loaded: None,
        }
    }

    /// An entry whose contents are read again from its file's text when asked for.
    fn read_again(
        client: &'a Client,
        scope: Scope,
        path: PathBuf,
        key: Vec<String>,
        name: String,
        again: Again,
    ) -> Self {
        Found {
            client,
            scope,
            path,
            key,
            name,
            contents: Contents {
                read: std::sync::OnceLock::new(),
                again: Some(again),
            },
            origin: None,
            not_loaded: None,
        }
    }

    /// The entry as the file spells it (TOML tables as objects).
    pub fn raw(&self) -> &RawEntry {
        &self.read().raw
    }

    /// The entry as a server, or why it does not read as one.
    pub fn entry(&self) -> &Result<ServerEntry, EntryError> {
        &self.read().entry
    }

    /// The entry as the file spells it, taken.
    pub fn into_raw(self) -> RawEntry {
        self.into_parts().0
    }

    /// The entry as the file spells it and as a server, taken.
    pub fn into_parts(self) -> (RawEntry, Result<ServerEntry, EntryError>) {
        self.read();
        let read = self
            .contents
            .read
            .into_inner()
            .unwrap_or_else(|| unreachable!("read above"));
        (read.raw, read.entry)
    }

    /// Let the contents go if they can be read again (see [`Keep::Names`]); the next
    /// `raw()` or `entry()` reads them again.
    pub fn release(&mut self) {
        if self.contents.again.is_some() {
            self.contents.read.take();
        }
    }

    /// `use_it(entry)` with the contents read, without keeping them in `self` when they
    /// can be read again: for one look at each of many entries held together (`doctor`
    /// at 100,000 entries), where `release` cannot be called while others borrow them.
    pub fn with_contents<R>(&self, use_it: impl FnOnce(&Found<'a>) -> R) -> R {
        let Some(again) = self
            .contents
            .again
            .as_ref()
            .filter(|_| self.contents.read.get().is_none())
        else {
            return use_it(self);
        };
        let read = std::sync::OnceLock::new();
        let _ = read.set(Box::new(again.read(self.client)));
        let copy = Found {
            client: self.client,
            scope: self.scope,
            path: self.path.clone(),
            key: self.key.clone(),
            name: self.name.clone(),
            contents: Contents { read, again: None },
            origin: self.origin.clone(),
            not_loaded: self.not_loaded.clone(),
        };
        use_it(&copy)
    }

    fn read(&self) -> &Read {
        self.contents.read.get_or_init(|| {
            let again =
                self.contents.again.as_ref().unwrap_or_else(|| {
                    unreachable!("contents are kept unless they can be read again")
                });
            Box::new(again.read(self.client))
        })
    }

    /// Why the entry does not read as a server, as `PATH:LINE:COLUMN: message`.
    pub fn entry_error(&self, ctx: &Context) -> Option<String> {
        let read = self.read();
        let error = read.entry.as_ref().err()?;
        let message = format!(
            "invalid {} entry `{}`: {error}",
            self.client.name, self.name
        );
        Some(file_error(ctx, &self.path, read.position, message).message)
    }
}

/// Everything `list` and `doctor` show: entries of the config files and of the clients'
/// read-only sources, unreadable files, and the clients whose servers an administrator's
/// file controls exclusively.
pub struct Inventory<'a> {
    pub found: Vec<Found<'a>>,
    pub broken: Vec<Broken<'a>>,
    pub exclusive: Vec<(&'a Client, Exclusive)>,
}

/// [`collect`], plus each client's read-only sources (src/sources/): their entries marked
/// with their origin, the user's own entries marked not loaded where a source takes
/// exclusive control, and a source's entry marked not loaded where the client lets the
/// user's settings win (Gemini CLI extensions).
pub fn collect_all<'a>(ctx: &Context, clients: &[&'a Client], name: Option<&str>) -> Inventory<'a> {
    collect_all_keeping(ctx, clients, name, Keep::All)
}

/// [`collect_all`], keeping of each entry what `keep` says.
pub fn collect_all_keeping<'a>(
    ctx: &Context,
    clients: &[&'a Client],
    name: Option<&str>,
    keep: Keep,
) -> Inventory<'a> {
    let (mut found, mut broken) = collect_keeping(ctx, clients, name, keep);
    crate::loads::mark(ctx, &mut found);
    let mut exclusive = Vec::new();
    let env = sources::Env {
        platform: &ctx.platform,
        project: &ctx.project,
    };
    for client in clients {
        if client.read_only.is_empty() {
            continue;
        }
        let read = sources::read(client, &env);
        for (path, message) in read.broken {
            broken.push(Broken {
                client,
                path,
                error: UserError::new(message)
                    .hint("mcpctl never edits this file; the client skips it too until it is fixed")
                    .into(),
            });
        }
        if let Some(ex) = &read.exclusive {
            let why = format!(
                "not loaded: `{}` has exclusive control of {}'s servers",
                ex.file.display(),
                client.name
            );
            for f in found.iter_mut().filter(|f| f.client.id == client.id) {
                f.not_loaded = Some(why.clone());
            }
        }
        for entry in read.entries {
            if name.is_some_and(|n| n != entry.name) {
                continue;
            }
            // Gemini CLI: a server of the same name in a settings file wins over an
            // extension's.
            let shadowed_by_settings = entry.origin.kind == "extension"
                && found.iter().any(|f| {
                    f.client.id == client.id && f.origin.is_none() && f.name == entry.name
                });
            let not_loaded = if let Some(ex) = read
                .exclusive
                .as_ref()
                .filter(|ex| ex.file != entry.origin.file)
            {
                Some(format!(
                    "not loaded: `{}` has exclusive control of {}'s servers",
                    ex.file.display(),
                    client.name
                ))
            } else if shadowed_by_settings {
                Some(format!(
                    "not loaded: a server named `{}` in {}'s settings takes precedence",
                    entry.name, client.name
                ))
            } else {
                None
            };
            let scope = match entry.origin.chosen_by {
                sources::Chooser::Project => Scope::Project,
                _ => Scope::User,
            };
            let mut f = Found::new(
                client,
                scope,
                entry.origin.file.clone(),
                client.servers_key.clone(),
                entry.name,
                entry.raw,
                |_| None,
            );
            f.origin = Some(Box::new(entry.origin));
            f.not_loaded = not_loaded;
            found.push(f);
        }
        if let Some(ex) = read.exclusive {
            exclusive.push((*client, ex));
        }
    }
    crate::loads::judge_policy(ctx, clients, &mut found, &mut broken);
    Inventory {
        found,
        broken,
        exclusive,
    }
}

/// A file that could not be read.
pub struct Broken<'a> {
    pub client: &'a Client,
    pub path: PathBuf,
    pub error: anyhow::Error,
}

/// Every existing location of a client: user file, project file (if present) and the
/// local section of the user file.
pub fn locations(ctx: &Context, client: &Client) -> anyhow::Result<Vec<Location>> {
    let mut out = Vec::new();
    for scope in client.scopes() {
        let location = client
            .location(scope, &ctx.platform, &ctx.project)
            .with_context(|| format!("cannot resolve `{}`'s {} path", client.id, scope.as_str()))?;
        // With the project directory at HOME, a project path can be the user file itself
        // (`~/.cursor/mcp.json`): list each file+key once, as the wider scope.
        // A client that merges several user files reads each one that exists.
        if let (Scope::User, Some(user), false) =
            (scope, &location, client.loading.merge.is_empty())
            && let Some(dir) = user.path.parent()
        {
            for name in &client.loading.merge {
                let path = dir.join(name);
                if crate::fs::exists(&path)
                    && !out
                        .iter()
                        .any(|l: &Location| crate::fs::same_file(&l.path, &path))
                {
                    out.push(Location {
                        path,
                        ..user.clone()
                    });
                }
            }
            continue;
        }
        if let Some(location) = location
            && crate::fs::exists(&location.path)
            && !out.iter().any(|l: &Location| l.same_place(&location))
        {
            out.push(location);
        }
    }
    Ok(out)
}

/// Collect all entries of these clients (optionally only `name`).
pub fn collect<'a>(
    ctx: &Context,
    clients: &[&'a Client],
    name: Option<&str>,
) -> (Vec<Found<'a>>, Vec<Broken<'a>>) {
    collect_keeping(ctx, clients, name, Keep::All)
}

/// [`collect`], keeping of each entry what `keep` says.
pub fn collect_keeping<'a>(
    ctx: &Context,
    clients: &[&'a Client],
    name: Option<&str>,
    keep: Keep,
) -> (Vec<Found<'a>>, Vec<Broken<'a>>) {
    let mut found = Vec::new();
    let mut broken = Vec::new();
    for client in clients {
        let locations = match locations(ctx, client) {
            Ok(l) => l,
            Err(error) => {
                broken.push(Broken {
                    client,
                    path: PathBuf::new(),
                    error,
                });
                continue;
            }
        };
        // The document of the last path read, and the first entry read from it.
        let mut cache: Option<(PathBuf, Document, usize)> = None;
        // What the entries that read their contents again (`Keep::Names`) point at until
        // their document is done with: then its text, shared by them (not copied).
        let unsealed = std::sync::Arc::new(String::new());
        for location in locations {
            if cache.as_ref().is_none_or(|(p, _, _)| *p != location.path) {
                seal(&mut found, cache.take());
                match read_document(ctx, client, &location.path) {
                    Ok(doc) => cache = Some((location.path.clone(), doc, found.len())),
                    Err(error) => {
                        if !broken.iter().any(|b: &Broken<'_>| b.path == location.path) {
                            broken.push(Broken {
                                client,
                                path: location.path.clone(),
                                error,
                            });
                        }
                        continue;
                    }
                }
            }
            let Some((_, document, _)) = &cache else {
                continue;
            };
            let before = found.len();
            let doc = document.doc.as_ref();
            let mut each = |served: crate::formats::Served| {
                if name.is_some_and(|n| n != served.name) {
                    return;
                }
                let f = match (keep, served.span) {
                    // Read (and validated) once here; read again when asked for.
                    (Keep::Names, Some(span)) => Found::read_again(
                        client,
                        location.scope,
                        location.path.clone(),
                        location.key.clone(),
                        served.name,
                        Again {
                            text: unsealed.clone(),
                            span,
                        },
                    ),
                    _ => {
                        let position = |name: &str| {
                            let mut path = location.key.clone();
                            path.push(name.to_owned());
                            doc.position(&path)
                        };
                        Found::new(
                            client,
                            location.scope,
                            location.path.clone(),
                            location.key.clone(),
                            served.name,
                            served.raw,
                            position,
                        )
                    }
                };
                found.push(f);
            };
            if let Err(e) = doc.each_server(location.at(), &mut each) {
                found.truncate(before);
                broken.push(Broken {
                    client,
                    path: location.path.clone(),
                    error: shape_error(ctx, &location.path, &e).into(),
                });
            }
        }
        seal(&mut found, cache.take());
    }
    (found, broken)
}

/// A document `collect` is done with: its text goes to the entries read from it (from
/// the index given on) that read their contents again, the rest of it is dropped.
fn seal(found: &mut [Found<'_>], done: Option<(PathBuf, Document, usize)>) {
    let Some((_, document, first)) = done else {
        return;
    };
    let mut again = found[first..]
        .iter_mut()
        .filter_map(|f| f.contents.again.as_mut())
        .peekable();
    if again.peek().is_none() {
        return;
    }
    let text = std::sync::Arc::new(document.doc.into_text());
    for again in again {
        again.text = text.clone();
    }
}

/// What a client's read-only sources say about `name`, for `add` and `remove`: the file
/// that takes exclusive control (if any), and the source entry of that name (if any).
pub fn read_only_of(
    ctx: &Context,
    client: &Client,
    name: &str,
) -> (Option<Exclusive>, Option<sources::SourceEntry>) {
    if client.read_only.is_empty() {
        return (None, None);
    }
    let read = sources::read(
        client,
        &sources::Env {
            platform: &ctx.platform,
            project: &ctx.project,
        },
    );
    let entry = read.entries.into_iter().find(|e| e.name == name);
    (read.exclusive, entry)
}

/// The error for an edit of `name` that only a read-only source holds.
pub fn managed_elsewhere(
    ctx: &Context,
    client: &Client,
    entry: &sources::SourceEntry,
    also: &str,
) -> anyhow::Error {
    let what = match entry.origin.kind {
        "plugin" => format!("the plugin `{}`", entry.origin.name),
        "extension" => format!("the extension `{}`", entry.origin.name),
        _ => format!("`{}`", entry.origin.name),
    };
    UserError::new(format!(
        "`{}` is not in a file mcpctl edits: {} loads it from {what} ({})",
        entry.name,
        client.name,
        display_path(ctx, &entry.origin.file)
    ))
    .hint(format!(
        "change it with {}{also}; mcpctl changed nothing",
        entry.origin.manage
    ))
    .into()
}

/// The error for an edit of a client whose servers an administrator's file controls.
pub fn exclusive_error(ctx: &Context, client: &Client, ex: &Exclusive) -> anyhow::Error {
    UserError::new(format!(
        "{} loads only the servers in `{}`: an entry added to your own files would not be loaded",
        client.name,
        display_path(ctx, &ex.file)
    ))
    .hint(format!("{}; mcpctl changed nothing", ex.manage))
    .into()
}

/// The error for a name that only a read-only source of one of `clients` holds (`remove`,
/// `enable`, `disable`: the change belongs to the plugin or extension, not to mcpctl).
pub fn read_only_holder(ctx: &Context, clients: &[&Client], name: &str) -> Option<anyhow::Error> {
    clients.iter().find_map(|client| {
        read_only_of(ctx, client, name)
            .1
            .map(|entry| managed_elsewhere(ctx, client, &entry, ""))
    })
}
