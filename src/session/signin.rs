//! `mcpctl login NAME --yes` (issue 42): rewrite a remote entry a client reaches on its
//! own into mcpctl's bridge with `--oauth NAME`, so the client uses mcpctl's sign-in.
//! Each file through the edit loop (backup, journal); an entry mcpctl owned stays its.

use std::cell::RefCell;
use std::path::PathBuf;

use crate::clients::{Client, Location, Scope};
use crate::entry::{Dialect, ServerEntry, StringMap, Transport};
use crate::error::UserError;
use crate::formats::Edit;
use crate::session::{Context, edit};

/// One entry to rewrite: where it is.
pub struct Target<'a> {
    pub client: &'a Client,
    pub scope: Scope,
    pub path: PathBuf,
    pub key: Vec<String>,
}

/// Whether `transport` is a remote entry for `url` that a client reaches by itself (not
/// one of mcpctl's forms).
pub fn signs_in_by_itself(transport: &Transport, url: &str) -> bool {
    matches!(transport, Transport::Remote { url: u, .. } if u == url)
}

/// Rewrite entry `name` in each target into the bridge with `--oauth label`, started by
/// `program`. Returns the outcome per file.
pub fn rewrite(
    ctx: &Context,
    targets: &[Target<'_>],
    name: &str,
    label: &str,
    program: &str,
    dry_run: bool,
) -> anyhow::Result<Vec<(String, edit::Outcome)>> {
    let mut out = Vec::new();
    for target in targets {
        let client = target.client;
        let location = Location {
            scope: target.scope,
            path: target.path.clone(),
            key: target.key.clone(),
            name_key: client.servers_name_key.clone(),
        };
        let dialect = Dialect::of(client);
        let written: RefCell<Option<(serde_json::Value, serde_json::Value)>> = RefCell::new(None);
        let outcome = edit::apply(ctx, client, &location, dry_run, &|doc| {
            written.borrow_mut().take();
            let Some((_, raw)) = doc
                .servers(location.at())?
                .into_iter()
                .find(|(n, _)| n == name)
            else {
                return Ok(Edit::Unchanged);
            };
            let Ok(entry) = dialect.read_raw(&raw) else {
                return Ok(Edit::Unchanged);
            };
            let Transport::Remote { url, kind, headers } = &entry.transport else {
                return Ok(Edit::Unchanged);
            };
            let new = ServerEntry {
                transport: Transport::Stdio {
                    command: program.to_owned(),
                    args: crate::entry::launcher::oauth_bridge_args(url, *kind, headers, label),
                    env: StringMap::new(),
                    cwd: None,
                },
                extras: entry.extras.clone(),
            };
            let new_raw = dialect.to_raw_named(&new, Some(name)).map_err(|e| {
                UserError::new(format!(
                    "{} cannot take `{name}` in the bridge form: {e}",
                    client.name
                ))
                .hint("nothing was written to this file")
            })?;
            let changed = doc.upsert(location.at(), name, &new_raw)?;
            if changed != Edit::Unchanged {
                *written.borrow_mut() = Some((raw, new_raw));
                return Ok(Edit::Updated);
            }
            Ok(Edit::Unchanged)
        })?;
        if !dry_run
            && outcome.action == edit::Action::Updated
            && let Some((before, after)) = written.borrow().as_ref()
        {
            crate::session::adopt::keep_ownership(ctx, &dialect, &location, name, before, after)?;
        }
        out.push((client.id.clone(), outcome));
    }
    Ok(out)
}
