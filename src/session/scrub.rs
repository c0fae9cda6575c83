//! Scrubbing moved secrets out of backups (`secret adopt --yes`, `check --fix --secrets
//! --yes`, `backups --scrub-secrets`): once a literal secret lives in the store, the
//! backups mcpctl kept of the files it was in still hold it in plaintext. Each such backup
//! is kept again with every entry that held a stored value rewritten exactly as `secret
//! adopt` rewrites it (the launcher or bridge form naming the stored secret: the
//! reference the file has now), so it stays a valid document that starts its servers,
//! and the journal is told (`State::rebase`): `undo` and `restore` put back the scrubbed
//! version, never a broken one. Undoing the adopt itself then leaves those entries
//! naming the stored secrets (the plaintext is in no version mcpctl keeps any more);
//! undoing the commands before it works as before.
//!
//! Left alone: a file whose current version still holds the value (scrubbing its past
//! would only break `undo`), a backup a running command names, and a backup that holds
//! the value outside an entry's env or headers (`backups --purge-secrets` deletes those).

use std::path::{Path, PathBuf};

use crate::check::Target;
use crate::clients::{Client, Location, Scope};
use crate::entry::{Dialect, ServerEntry};
use crate::fs::Backup;
use crate::secret_store::Value;
use crate::secret_store::adopt;
use crate::session::Context;
use crate::state::Fingerprint;

/// One backup to scrub: the bytes it is kept as instead.
pub struct Scrub<'a> {
    pub client: &'a Client,
    /// The client file (as named).
    pub path: PathBuf,
    pub backup: Backup,
    bytes: Vec<u8>,
    /// Each entry rewritten: (fingerprint before, after).
    fingerprints: Vec<(Fingerprint, Fingerprint)>,
    /// `gh: env GITHUB_TOKEN → secret gh`, per value taken out.
    pub moved: Vec<String>,
}

/// What looking for backups to scrub found.
#[derive(Default)]
pub struct Found<'a> {
    pub scrubs: Vec<Scrub<'a>>,
    /// Backups that hold a stored value where no entry rewrite reaches it, or that a
    /// running command still names: left as they are.
    pub left: Vec<PathBuf>,
}

/// The backups of `files` (each client file once) holding one of `values` (secret name,
/// value), each with the bytes it would be kept as; `program` is mcpctl's launcher (as
/// `secret adopt` writes it).
pub fn find<'a>(
    ctx: &Context,
    files: &[(&'a Client, Scope, PathBuf)],
    values: &[(String, Value)],
    program: &str,
) -> Found<'a> {
    let mut found = Found::default();
    let Some(backups) = &ctx.backups else {
        return found;
    };
    if values.is_empty() {
        return found;
    }
    let holds = |bytes: &[u8]| {
        values
            .iter()
            .any(|(_, v)| !v.0.is_empty() && contains(bytes, v.0.as_bytes()))
    };
    let mut seen: Vec<PathBuf> = Vec::new();
    for (client, scope, path) in files {
        let identity = crate::fs::identity(path);
        if seen.contains(&identity) {
            continue;
        }
        seen.push(identity);
        // The file itself still holds a value: its past is left as it is.
        if let Ok(Some(current)) = crate::fs::read_bytes(path)
            && holds(&current)
        {
            continue;
        }
        for backup in crate::fs::backups_of(backups, path) {
            let Ok(bytes) = backup.verified_bytes() else {
                continue;
            };
            if !holds(&bytes) {
                continue;
            }
            let pinned = backup
                .path
                .file_name()
                .is_some_and(|n| ctx.state.pinned(n, &backup.digest));
            match scrubbed(ctx, client, *scope, &bytes, values, program) {
                Some((new, fingerprints, moved)) if !pinned && !holds(&new) => {
                    found.scrubs.push(Scrub {
                        client,
                        path: path.clone(),
                        backup,
                        bytes: new,
                        fingerprints,
                        moved,
                    });
                }
                _ => found.left.push(backup.path),
            }
        }
    }
    found
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

type Rewrite = (Vec<u8>, Vec<(Fingerprint, Fingerprint)>, Vec<String>);

/// `bytes` (a backup of a `client` file) with every entry that holds a stored value
/// rewritten to name the stored secret; `None` when it does not parse or nothing changed.
fn scrubbed(
    ctx: &Context,
    client: &Client,
    scope: Scope,
    bytes: &[u8],
    values: &[(String, Value)],
    program: &str,
) -> Option<Rewrite> {
    let text = std::str::from_utf8(bytes).ok()?;
    let (bom, text) = match text.strip_prefix('\u{feff}') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let mut doc = client.format.parse(text.to_owned()).ok()?;
    let target = Target {
        client,
        scope,
        os: ctx.platform.os,
        policy: &[],
    };
    let dialect = Dialect::of(client);
    let mut fingerprints = Vec::new();
    let mut moved = Vec::new();
    for (key, name, entry) in crate::check::fix::literals_to_adopt(doc.as_ref(), &target).ok()? {
        let named: Vec<(String, String)> = adopt::literals(&entry.transport)
            .into_iter()
            .filter_map(|l| {
                let (secret, _) = values.iter().find(|(_, v)| *v == l.value)?;
                moved.push(format!(
                    "{name}: {} {} → secret {secret}",
                    l.place.label(),
                    l.field
                ));
                Some((l.field, secret.clone()))
            })
            .collect();
        if named.is_empty() {
            continue;
        }
        let new = ServerEntry {
            transport: adopt::adopted(&entry.transport, &named, program),
            extras: entry.extras.clone(),
        };
        let raw = dialect.to_raw_named(&new, Some(&name)).ok()?;
        let location = Location {
            scope,
            path: PathBuf::new(),
            key,
            name_key: client.servers_name_key.clone(),
        };
        doc.upsert(location.at(), &name, &raw).ok()?;
        fingerprints.push((
            crate::state::ledger::fingerprint(&entry),
            crate::state::ledger::fingerprint(&new),
        ));
    }
    if moved.is_empty() {
        return None;
    }
    let mut out = Vec::new();
    if bom {
        out.extend_from_slice("\u{feff}".as_bytes());
    }
    out.extend_from_slice(doc.render().as_bytes());
    Some((out, fingerprints, moved))
}

/// Keep each backup of `scrubs` as its scrubbed bytes: the new backup first, then every
/// journal record (and this command's own) told, then the old one deleted. Returns the
/// backups scrubbed.
pub fn carry_out(ctx: &Context, scrubs: &[Scrub<'_>]) -> anyhow::Result<usize> {
    ctx.state.lock()?;
    let mut done = 0;
    for scrub in scrubs {
        let target = crate::fs::identity(&scrub.path);
        let new = crate::fs::backup::rekeep(&scrub.backup, &target, &scrub.bytes).map_err(|e| {
            crate::error::UserError::new(format!(
                "cannot keep the scrubbed version of `{}` beside it: {e}",
                scrub.backup.path.display()
            ))
            .hint("check the free space and permissions of mcpctl's state directory (MCPCTL_STATE_DIR); the backups scrubbed so far are done, the rest are as they were")
        })?;
        if new.path == scrub.backup.path {
            continue;
        }
        ctx.state
            .rebase(&scrub.path, &scrub.backup, &new, &scrub.fingerprints)?;
        remove(&scrub.backup.path)?;
        done += 1;
    }
    Ok(done)
}

/// Delete a backup replaced by its scrubbed copy.
fn remove(path: &Path) -> anyhow::Result<()> {
    std::fs::remove_file(path).map_err(|e| {
        crate::error::UserError::new(format!(
            "cannot delete the backup `{}` (its scrubbed copy is kept beside it): {e}",
            path.display()
        ))
        .hint("delete it by hand; `undo` and `restore` use the scrubbed copy already")
        .into()
    })
}
