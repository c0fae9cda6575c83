//! Reading what is configured: a client's locations, each file parsed, each entry read
//! through the client's dialect. Shared by `clients`, `list` and `doctor`; never writes.

use std::path::{Path, PathBuf};

use anyhow::Context as _;

use crate::clients::{Client, Location, Scope};
use crate::commands::Context;
use crate::entry::{Dialect, EntryError, ServerEntry};
use crate::error::UserError;
use crate::formats::{ConfigDoc, Position, RawEntry, ShapeError};
use crate::fs::{self, Source};

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
    let mut source = fs::read_source(path).map_err(|e| {
        UserError::new(e.to_string())
            .hint("check the file's permissions and encoding; mcpctl left it unchanged")
    })?;
    // The document takes the text over (no second copy of a big file); `source` keeps
    // what a write needs: path, BOM and the version stamp.
    let doc = client
        .format
        .parse(std::mem::take(&mut source.text))
        .map_err(|e| {
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
    pub name: String,
    pub raw: RawEntry,
    pub entry: Result<ServerEntry, EntryError>,
    /// Where the entry's name is written, when the entry does not read as a server.
    pub position: Option<Position>,
}

impl Found<'_> {
    /// Why the entry does not read as a server, as `PATH:LINE:COLUMN: message`.
    pub fn entry_error(&self, ctx: &Context) -> Option<String> {
        let error = self.entry.as_ref().err()?;
        let message = format!("invalid {} entry `{}`: {error}", self.client.name, self.name);
        Some(file_error(ctx, &self.path, self.position, message).message)
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
        if let Some(location) = location
            && crate::fs::exists(&location.path)
            && !out
                .iter()
                .any(|l: &Location| l.path == location.path && l.key == location.key)
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
        let dialect = Dialect::of(client);
        let mut cache: Option<(PathBuf, Document)> = None;
        for location in locations {
            if cache.as_ref().is_none_or(|(p, _)| *p != location.path) {
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
                        cache = None;
                        continue;
                    }
                }
            }
            let Some((_, document)) = &cache else {
                continue;
            };
            let entries = match document.doc.servers(&location.key) {
                Ok(e) => e,
                Err(e) => {
                    broken.push(Broken {
                        client,
                        path: location.path.clone(),
                        error: shape_error(ctx, &location.path, &e).into(),
                    });
                    continue;
                }
            };
            for (entry_name, raw) in entries {
                if name.is_some_and(|n| n != entry_name) {
                    continue;
                }
                let entry = dialect.from_raw(&raw);
                // Looked up only for a broken entry (a scan of the file each).
                let position = entry.is_err().then(|| {
                    let mut path = location.key.clone();
                    path.push(entry_name.clone());
                    document.doc.position(&path)
                });
                found.push(Found {
                    client,
                    scope: location.scope,
                    path: location.path.clone(),
                    entry,
                    position: position.flatten(),
                    name: entry_name,
                    raw,
                });
            }
        }
    }
    (found, broken)
}
