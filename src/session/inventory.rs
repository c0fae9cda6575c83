//! Reading what is configured: a client's locations, each file parsed, each entry read
//! through the client's dialect. Shared by `clients`, `list` and `doctor`; never writes.

use std::path::{Path, PathBuf};

use anyhow::Context as _;

use crate::clients::{Client, Location, Scope};
use crate::error::UserError;
use crate::formats::{ConfigDoc, Position, ShapeError};
use crate::fs::{self, Source};
use crate::session::Context;
pub use crate::session::found::{Broken, Found, NotLoaded};
use crate::sources::{self, Exclusive};

/// A parsed config file.
pub struct Document {
    pub source: Source,
    pub doc: Box<dyn ConfigDoc>,
}

/// An error about `path`, as editors and terminals take it: `PATH:LINE:COLUMN: message`
/// where there is a position, else `PATH: message`. The path is absolute; the printer
/// shows it as `~/…` to a person.
pub fn file_error(
    path: &Path,
    position: Option<Position>,
    message: impl std::fmt::Display,
) -> UserError {
    let shown = crate::output::file(path);
    UserError::new(match position {
        Some(Position { line, column }) => format!("{shown}:{line}:{column}: {message}"),
        None => format!("{shown}: {message}"),
    })
}

/// A value of the wrong type on the way to the servers map of `path`.
pub fn shape_error(path: &Path, error: &ShapeError) -> UserError {
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
    file_error(path, error.position(), error).hint(hint)
}

/// `error` from editing `path`'s document, with the file named when it is a
/// `ShapeError` (the document's errors do not know their file).
pub fn in_file(path: &Path, error: anyhow::Error) -> anyhow::Error {
    match error.downcast_ref::<ShapeError>() {
        Some(shape) => shape_error(path, shape).into(),
        None => error,
    }
}

/// Read and parse a client's file. A missing file is an empty document.
pub fn read_document(ctx: &Context, client: &Client, path: &Path) -> anyhow::Result<Document> {
    let waiting = || {
        crate::output::notice(&format!(
            "waiting for `{}`: it reads empty while another program may be writing it",
            crate::output::file(path)
        ));
    };
    let started = std::time::Instant::now();
    loop {
        let mut source = match fs::read_settled(path, || ctx.state.wrote_into(path), waiting) {
            Ok(source) => source,
            // Bytes cut inside a character by another program's save: read again.
            Err(fs::FsError::NotUtf8 { stamp, .. })
                if started.elapsed() < fs::REREAD_FOR
                    && fs::changed_since(path, stamp.as_ref()) =>
            {
                continue;
            }
            Err(e) => {
                let hint = e.hint().unwrap_or(
                    "check the file's permissions and encoding; mcpctl left it unchanged",
                );
                return Err(UserError::new(e.to_string()).hint(hint).into());
            }
        };
        // A plan's dry run of a later step reads the text the plan decided for the file.
        if let Some(text) = ctx.planned_text(path) {
            source.text = text;
        }
        // The document takes the text over (no second copy of a big file); `source` keeps
        // what a write needs: path, BOM and the version stamp.
        match client.format.parse(source.take_text()) {
            Ok(doc) => return Ok(Document { source, doc }),
            // Caught in the middle of another program's save (rewritten in place): read
            // the file again rather than call it broken.
            Err(_) if started.elapsed() < fs::REREAD_FOR && fs::may_be_mid_write(&source) => {
                std::thread::sleep(fs::REREAD_STEP);
            }
            Err(e) => return Err(parse_error(client, path, &e)),
        }
    }
}

/// The error of a file that does not parse, at its line and column.
fn parse_error(client: &Client, path: &Path, e: &crate::formats::ParseError) -> anyhow::Error {
    let position = Position {
        line: e.line,
        column: e.column,
    };
    file_error(
        path,
        Some(position),
        format_args!("not valid {}: {}", client.format.display_name(), e.message),
    )
    .hint(format!(
        "mcpctl left the file unchanged; fix the syntax, then run `mcpctl list -c {}`",
        client.id
    ))
    .into()
}

impl Found<'_> {
    /// Why the entry does not read as a server, as `PATH:LINE:COLUMN: message`.
    pub fn entry_error(&self) -> Option<String> {
        let error = self.entry().as_ref().err()?;
        let message = format!(
            "invalid {} entry `{}`: {error}",
            self.client.name, self.name
        );
        Some(file_error(&self.path, self.position(), message).message)
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
    let (mut found, mut broken) = collect(ctx, clients, name);
    crate::session::loads::mark(&ctx.platform, &ctx.project, &mut found);
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
            let why = NotLoaded::Exclusive {
                file: ex.file.clone(),
                client: client.name.clone(),
            };
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
                Some(NotLoaded::Exclusive {
                    file: ex.file.clone(),
                    client: client.name.clone(),
                })
            } else if let Some((file, why)) = read
                .skipped
                .iter()
                .find(|(file, _)| *file == entry.origin.file)
            {
                Some(NotLoaded::Skipped {
                    file: file.clone(),
                    why: why.clone(),
                    client: client.name.clone(),
                })
            } else if shadowed_by_settings {
                Some(NotLoaded::Shadowed {
                    name: entry.name.clone(),
                    client: client.name.clone(),
                })
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
    crate::session::loads::judge_policy(&ctx.platform, clients, &mut found, &mut broken);
    Inventory {
        found,
        broken,
        exclusive,
    }
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
        // The local scope under each spelling of the project's key (Claude Code's own and
        // the native one an older mcpctl wrote on Windows).
        let places = match scope {
            Scope::Local => client.local_locations(&ctx.platform, &ctx.project),
            _ => location.into_iter().collect(),
        };
        for location in places {
            if crate::fs::exists(&location.path)
                && !out.iter().any(|l: &Location| l.same_place(&location))
            {
                out.push(location);
            }
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
        // The document of the last path read.
        let mut cache: Option<(PathBuf, Document)> = None;
        for location in locations {
            if cache.as_ref().is_none_or(|(p, _)| *p != location.path) {
                cache = None;
                match read_document(ctx, client, &location.path) {
                    Ok(doc) => cache = Some((location.path.clone(), doc)),
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
            let Some((_, document)) = &cache else {
                continue;
            };
            let doc = document.doc.as_ref();
            let servers = match doc.servers(location.at()) {
                Ok(servers) => servers,
                Err(e) => {
                    broken.push(Broken {
                        client,
                        path: location.path.clone(),
                        error: shape_error(&location.path, &e).into(),
                    });
                    continue;
                }
            };
            for (served, raw) in servers {
                if name.is_some_and(|n| n != served) {
                    continue;
                }
                let position = |name: &str| {
                    let mut path = location.key.clone();
                    path.push(name.to_owned());
                    doc.position(&path)
                };
                found.push(Found::new(
                    client,
                    location.scope,
                    location.path.clone(),
                    location.key.clone(),
                    served,
                    raw,
                    position,
                ));
            }
        }
    }
    (found, broken)
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
        crate::output::file(&entry.origin.file)
    ))
    .hint(format!(
        "change it with {}{also}; mcpctl changed nothing",
        entry.origin.manage
    ))
    .into()
}

/// The error for an edit of a client whose servers an administrator's file controls.
pub fn exclusive_error(client: &Client, ex: &Exclusive) -> anyhow::Error {
    UserError::new(format!(
        "{} loads only the servers in `{}`: an entry added to your own files would not be loaded",
        client.name,
        crate::output::file(&ex.file)
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
            .map(|entry| managed_elsewhere(client, &entry, ""))
    })
}
