//! Moving the literal secrets of client files into the secret store, for `secret adopt`,
//! `check --fix --secrets` and `import --store-secrets`: [`plan`] finds them (the one
//! secret rule, `secret_store::adopt`) and names each, [`keep`] puts the values in the
//! store, and [`rewrite`] edits each file in place through the shared edit loop (backup,
//! journal, the bytes outside the entry untouched) to the launcher or bridge form;
//! [`carry_out`] does the last two in that order for every caller. Values are never
//! printed: only names, fields and where they were.

use std::cell::RefCell;
use std::path::PathBuf;

use crate::clients::{Client, Location, Scope};
use crate::entry::{Dialect, ServerEntry};
use crate::error::UserError;
use crate::formats::Edit;
use crate::secret_store::adopt::{self, Place};
use crate::secret_store::{Store, Value};
use crate::session::{Context, edit};
use crate::state::Ownership;

/// One literal secret and the stored secret it becomes.
#[derive(Debug, Clone)]
pub struct Adoption<'a> {
    pub client: &'a Client,
    pub scope: Scope,
    pub path: PathBuf,
    /// The servers map it is in.
    pub key: Vec<String>,
    pub server: String,
    pub field: String,
    pub place: Place,
    /// What the secret rule took it for (`a GitHub token`).
    pub what: &'static str,
    /// The secret's name in the store.
    pub secret: String,
    /// The store has this secret with this value already (nothing to keep).
    pub stored: bool,
}

/// What adopting comes to: each literal and its name, and the values to keep.
pub struct Plan<'a> {
    pub items: Vec<Adoption<'a>>,
    /// Name → value, once per name.
    values: Vec<(String, Value)>,
}

/// One entry of a client file, as `plan` looks at it.
pub struct Candidate<'a> {
    pub client: &'a Client,
    pub scope: Scope,
    pub path: PathBuf,
    /// The servers map it is in.
    pub key: Vec<String>,
    pub name: String,
    pub entry: ServerEntry,
}

impl<'a> Candidate<'a> {
    /// The entries of config files mcpctl edits (not read-only sources) that read as servers.
    pub fn of_found(found: &[crate::session::inventory::Found<'a>]) -> Vec<Candidate<'a>> {
        found
            .iter()
            .filter(|f| f.origin.is_none())
            .filter_map(|f| {
                Some(Candidate {
                    client: f.client,
                    scope: f.scope,
                    path: f.path.clone(),
                    key: f.key.clone(),
                    name: f.name.clone(),
                    entry: f.entry().as_ref().ok()?.clone(),
                })
            })
            .collect()
    }
}

/// The literal secrets of `found`, each named: the same value always gets the same name
/// (one server in several clients is one secret), a name the store holds with another
/// value gets a `-2`, `-3` … suffix.
pub fn plan<'a>(store: &Store, found: &[Candidate<'a>]) -> Plan<'a> {
    let mut items = Vec::new();
    let mut values: Vec<(String, Value)> = Vec::new();
    for f in found {
        let entry = &f.entry;
        let literals = adopt::literals(&entry.transport);
        let only = literals.len() == 1;
        for literal in literals {
            let (secret, stored) = match values.iter().find(|(_, v)| *v == literal.value) {
                Some((name, _)) => (name.clone(), false),
                None => {
                    let base = adopt::default_name(&f.name, &literal.field, only);
                    let (name, stored) = free_name(store, &base, &literal.value, &values);
                    values.push((name.clone(), literal.value.clone()));
                    (name, stored)
                }
            };
            items.push(Adoption {
                client: f.client,
                scope: f.scope,
                path: f.path.clone(),
                key: f.key.clone(),
                server: f.name.clone(),
                field: literal.field,
                place: literal.place,
                what: literal.what,
                secret,
                stored,
            });
        }
    }
    Plan { items, values }
}

/// [`plan`], and also each env or header value that is only a reference to a variable
/// `unset` here for which the store holds a secret of that very name (`${MY_TOKEN}`
/// after `mcpctl secret set MY_TOKEN`): `secret adopt` points those entries at the
/// stored secret, which is the way on the unset-variable hint names (`crate::unset`).
pub fn plan_with_references<'a>(
    store: &Store,
    found: &[Candidate<'a>],
    unset: &dyn Fn(&str) -> bool,
) -> Plan<'a> {
    let mut plan = plan(store, found);
    for f in found {
        for (field, place, variable) in adopt::references(&f.entry.transport) {
            if !unset(&variable) || store.backend_of(&variable).is_none() {
                continue;
            }
            plan.items.push(Adoption {
                client: f.client,
                scope: f.scope,
                path: f.path.clone(),
                key: f.key.clone(),
                server: f.name.clone(),
                field,
                place,
                what: "a variable the store keeps as a secret",
                secret: variable,
                stored: true,
            });
        }
    }
    plan
}

/// `base`, or `base-2`, `base-3` … : the first name neither this plan nor the store uses
/// for another value; `true` when the store has it with this very value.
fn free_name(
    store: &Store,
    base: &str,
    value: &Value,
    taken: &[(String, Value)],
) -> (String, bool) {
    for n in 1.. {
        let name = if n == 1 {
            base.to_owned()
        } else {
            format!("{base}-{n}")
        };
        if taken.iter().any(|(t, _)| *t == name) {
            continue;
        }
        if store.backend_of(&name).is_none() {
            return (name, false);
        }
        if store.resolve(&name).is_ok_and(|v| v == *value) {
            return (name, true);
        }
    }
    unreachable!("some suffix is free")
}

/// What carrying out a plan did: each file rewritten, and the note on the backups that
/// still hold the plaintext (`backups_note`).
pub struct Carried {
    pub rewritten: Vec<Rewritten>,
    pub backups: Option<String>,
}

/// Whether to scrub the moved values out of the backups that still hold them
/// (`session::scrub`) once the files are rewritten.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scrubbing {
    /// `--yes`: scrub them.
    Yes,
    /// Ask on a terminal; elsewhere only say how.
    Ask,
    /// Only say how.
    Never,
}

/// Carry out `plan`: keep the values in the store (not on a dry run), then rewrite each
/// file to start mcpctl's launcher or bridge at this binary's path, then scrub the
/// backups that still hold the values as `scrubbing` says.
pub fn carry_out(
    ctx: &Context,
    store: &Store,
    plan: &Plan<'_>,
    dry_run: bool,
    scrubbing: Scrubbing,
) -> anyhow::Result<Carried> {
    // A dry run asks the store whether it could keep them (writing nothing), so it fails
    // where the real run would, with the same words.
    keep(store, plan, dry_run)?;
    let program = crate::session::write::program(ctx)?;
    let rewritten = rewrite(ctx, plan, &program, dry_run)?;
    let backups = if dry_run {
        None
    } else {
        scrub_backups(ctx, plan, &program, &rewritten, scrubbing)?
    };
    Ok(Carried { rewritten, backups })
}

/// After the files are rewritten: the backups of those files that hold a moved value,
/// scrubbed (`--yes`, or a yes at the prompt), and the note saying so; else the note
/// naming them and how to scrub or delete them.
fn scrub_backups(
    ctx: &Context,
    plan: &Plan<'_>,
    program: &str,
    rewritten: &[Rewritten],
    scrubbing: Scrubbing,
) -> anyhow::Result<Option<String>> {
    let mut files: Vec<(&Client, Scope, PathBuf)> = Vec::new();
    for item in &plan.items {
        if !files.iter().any(|(_, _, p)| *p == item.path) {
            files.push((item.client, item.scope, item.path.clone()));
        }
    }
    let found = crate::session::scrub::find(ctx, &files, &plan.values, program);
    let count = found.scrubs.len();
    if count == 0 {
        return Ok(backups_note(ctx, rewritten));
    }
    let plural = if count == 1 { "" } else { "s" };
    let go = match scrubbing {
        Scrubbing::Yes => true,
        Scrubbing::Never => false,
        Scrubbing::Ask => {
            ctx.interactive
                && dialoguer::Confirm::new()
                    .with_prompt(format!(
                        "{count} backup{plural} of these files still hold the plaintext: replace it there by the stored secret (as in the files now)? `undo` of this command then keeps the entries naming the stored secrets"
                    ))
                    .default(true)
                    .interact_opt()?
                    == Some(true)
        }
    };
    if !go {
        return Ok(backups_note(ctx, rewritten));
    }
    let done = crate::session::scrub::carry_out(ctx, &found.scrubs)?;
    let plural = if done == 1 { "" } else { "s" };
    let mut note = format!(
        "scrubbed {done} backup{plural}: the plaintext secret is replaced there by the stored secret's name, as in the files now; `mcpctl undo` of this command leaves the entries naming the stored secrets, and undoing the commands before it works as before"
    );
    if !found.left.is_empty() {
        note.push_str(&format!(
            "; {} backup{} still hold{} it where no entry rewrite reaches (`mcpctl backups --purge-secrets` deletes them)",
            found.left.len(),
            if found.left.len() == 1 { "" } else { "s" },
            if found.left.len() == 1 { "s" } else { "" },
        ));
    }
    Ok(Some(note))
}

/// `import`: the literal secrets of the `scope` entries in `found`, into the store and out
/// of the client files. With `--store-secrets` (`asked`), or a yes at the one prompt on a
/// terminal; otherwise only a note that the flag exists. `true` when files were rewritten.
pub fn offer_on_import(
    ctx: &Context,
    printer: &crate::output::Printer,
    found: &[crate::session::inventory::Found<'_>],
    scope: Scope,
    asked: bool,
) -> anyhow::Result<bool> {
    let candidates: Vec<Candidate<'_>> = Candidate::of_found(found)
        .into_iter()
        .filter(|c| c.scope == scope)
        .collect();
    let store = ctx.secret_store();
    let plan = plan(&store, &candidates);
    let count = plan.items.len();
    if count == 0 {
        return Ok(false);
    }
    let what = format!(
        "{count} literal secret{} in client files",
        if count == 1 { "" } else { "s" }
    );
    if !asked {
        if !ctx.interactive {
            printer.note(&format!(
                "{what}: `mcpctl import --store-secrets` moves {} into mcpctl's secret store and rewrites those entries to start through `mcpctl run`",
                if count == 1 { "it" } else { "them" }
            ));
            return Ok(false);
        }
        let yes = dialoguer::Confirm::new()
            .with_prompt(format!(
                "{what}: move them into mcpctl's secret store (the OS keychain) and rewrite those entries to start through `mcpctl run`?"
            ))
            .default(true)
            .interact_opt()?;
        if yes != Some(true) {
            return Ok(false);
        }
    }
    let carried = carry_out(ctx, &store, &plan, false, Scrubbing::Never)?;
    for item in &plan.items {
        printer.note(&format!(
            "moved {} `{}` of `{}` ({}) into secret `{}`",
            item.place.label(),
            item.field,
            item.server,
            item.client.id,
            item.secret
        ));
    }
    if let Some(note) = carried.backups {
        printer.note(&note);
    }
    Ok(true)
}

/// Keep every value of the plan in the OS keychain, before any file names it.
pub fn keep(store: &Store, plan: &Plan<'_>, dry_run: bool) -> anyhow::Result<()> {
    for (name, value) in &plan.values {
        // A value the store already has under its name is not kept again.
        if plan.items.iter().any(|i| i.secret == *name && i.stored) {
            continue;
        }
        let kept = if dry_run {
            store.could_set_value(name)
        } else {
            store.set_value(name, value)
        };
        kept.map_err(|e| {
            let text = e.to_string();
            anyhow::Error::from(UserError::new(format!("{text}; no client file was changed")).hint(
                "without an OS keychain, keep the secret in your password manager (`mcpctl secret set NAME --command '…'`) and add the server with `--secret ENV=NAME`",
            ))
        })?;
    }
    Ok(())
}

/// After secrets moved out of files: the backups the edit loop kept of those files still
/// hold the plaintext values (what `undo` restores). Where they are, and the line that
/// deletes them once no undo is wanted; `None` when no backup was made.
pub fn backups_note(ctx: &Context, rewritten: &[Rewritten]) -> Option<String> {
    let windows = ctx.platform.os == crate::platform::Os::Windows;
    let quoted: Vec<String> = rewritten
        .iter()
        .filter_map(|r| r.outcome.backup.as_ref())
        .map(|p| {
            let p = p.display().to_string();
            if windows {
                format!("\"{p}\"")
            } else {
                format!("'{}'", p.replace('\'', "'\\''"))
            }
        })
        .collect();
    if quoted.is_empty() {
        return None;
    }
    let (them, verb) = if quoted.len() == 1 {
        (
            "it",
            "the backup mcpctl kept of the file it rewrote still holds",
        )
    } else {
        (
            "them",
            "the backups mcpctl kept of the files it rewrote still hold",
        )
    };
    Some(format!(
        "{verb} the plaintext secret{} (`mcpctl undo` restores from {them}); `mcpctl backups --scrub-secrets` replaces it there by the stored secret's name (undo keeps working), or once you need no undo, delete {them}: {} {} (or `mcpctl backups --purge-secrets`, every backup holding one)",
        if quoted.len() == 1 { "" } else { "s" },
        if windows { "del" } else { "rm" },
        quoted.join(" ")
    ))
}

/// What rewriting one file did.
pub struct Rewritten {
    pub outcome: edit::Outcome,
}

/// Rewrite the entries of the plan, file by file, to name their stored secrets (mcpctl's
/// launcher at `program` for stdio servers, its bridge for remote ones). A literal whose
/// value changed since the plan was made is left as it is. An entry mcpctl owned stays
/// mcpctl's (its ledger record follows the new content).
pub fn rewrite(
    ctx: &Context,
    plan: &Plan<'_>,
    program: &str,
    dry_run: bool,
) -> anyhow::Result<Vec<Rewritten>> {
    let mut files: Vec<(&Client, Scope, &PathBuf, &Vec<String>)> = Vec::new();
    for item in &plan.items {
        if !files
            .iter()
            .any(|(c, _, p, k)| c.id == item.client.id && *p == &item.path && *k == &item.key)
        {
            files.push((item.client, item.scope, &item.path, &item.key));
        }
    }
    let mut out = Vec::new();
    for (client, scope, path, key) in files {
        let location = Location {
            scope,
            path: path.clone(),
            key: key.clone(),
            name_key: client.servers_name_key.clone(),
        };
        let dialect = Dialect::of(client);
        let items: Vec<&Adoption<'_>> = plan
            .items
            .iter()
            .filter(|i| i.client.id == client.id && &i.path == path && &i.key == key)
            .collect();
        // (name, raw before, raw after), as last written by the closure.
        let written: RefCell<Vec<(String, serde_json::Value, serde_json::Value)>> =
            RefCell::new(Vec::new());
        let outcome = edit::apply(ctx, client, &location, dry_run, &|doc| {
            written.borrow_mut().clear();
            let mut changed = Edit::Unchanged;
            for (name, raw) in doc.servers(location.at())? {
                let mine: Vec<&&Adoption<'_>> = items.iter().filter(|i| i.server == name).collect();
                if mine.is_empty() {
                    continue;
                }
                let Ok(entry) = dialect.read_raw(&raw) else {
                    continue;
                };
                let mut named: Vec<(String, String)> = adopt::literals(&entry.transport)
                    .into_iter()
                    .filter_map(|l| {
                        let item = mine.iter().find(|i| i.field == l.field)?;
                        plan.value_of(&item.secret)
                            .is_none_or(|v| *v == l.value)
                            .then(|| (l.field.clone(), item.secret.clone()))
                    })
                    .collect();
                // A reference still to the variable the plan saw.
                for (field, _, variable) in adopt::references(&entry.transport) {
                    if mine
                        .iter()
                        .any(|i| i.field == field && i.secret == variable)
                        && !named.iter().any(|(f, _)| *f == field)
                    {
                        named.push((field, variable));
                    }
                }
                if named.is_empty() {
                    continue;
                }
                let new = ServerEntry {
                    transport: adopt::adopted(&entry.transport, &named, program),
                    extras: entry.extras.clone(),
                };
                let new_raw = dialect.to_raw_named(&new, Some(&name)).map_err(|e| {
                    UserError::new(format!(
                        "{} cannot take `{name}` in the launcher form: {e}",
                        client.name
                    ))
                    .hint("nothing was written to this file; move the secret by hand")
                })?;
                if doc.upsert(location.at(), &name, &new_raw)? != Edit::Unchanged {
                    changed = Edit::Updated;
                    written.borrow_mut().push((name, raw, new_raw));
                }
            }
            Ok(changed)
        })?;
        if !dry_run && outcome.action == edit::Action::Updated {
            for (name, before, after) in written.borrow().iter() {
                keep_ownership(ctx, &dialect, &location, name, before, after)?;
            }
        }
        out.push(Rewritten { outcome });
    }
    Ok(out)
}

impl Plan<'_> {
    fn value_of(&self, name: &str) -> Option<&Value> {
        self.values.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }
}

/// An entry mcpctl owned before the rewrite is recorded with its new content (same
/// source); any other entry stays hand-made.
pub(crate) fn keep_ownership(
    ctx: &Context,
    dialect: &Dialect<'_>,
    location: &Location,
    name: &str,
    before: &serde_json::Value,
    after: &serde_json::Value,
) -> anyhow::Result<()> {
    let key = edit::entry_key(location, name);
    let Some(record) = ctx.state.lookup(&key)? else {
        return Ok(());
    };
    let Some(fingerprint) = crate::state::ledger::fingerprint_raw(dialect, before) else {
        return Ok(());
    };
    if ctx.state.ownership(&key, &fingerprint)? != Ownership::Mcpctl {
        return Ok(());
    }
    crate::session::write::record(ctx, dialect, key, after, &record.source, record.created)
}

/// What `check --fix --secrets` moved out of one file.
pub struct Adopted {
    /// The diff of each file rewritten.
    pub diffs: Vec<String>,
    /// Each literal moved: `env `TOKEN` of `github` → secret `github``.
    pub moved: Vec<String>,
    /// That the backups of the rewritten files still hold the values, and how to delete
    /// them ([`backups_note`]).
    pub backups: Option<String>,
}

/// `check --fix --secrets`: move the literal secrets of the file at `path` (its text
/// `text`, shown as `shown`) into the store and rewrite their entries, as `secret adopt`
/// does; `None` when there is nothing to move.
pub fn adopt_literals(
    ctx: &Context,
    target: &crate::check::Target<'_>,
    path: &std::path::Path,
    shown: &str,
    text: &str,
    dry_run: bool,
    scrubbing: Scrubbing,
) -> anyhow::Result<Option<Adopted>> {
    let client = target.client;
    let doc = client.format.parse(text.to_owned()).map_err(|e| {
        UserError::new(format!("`{shown}` does not parse: {e}"))
            .hint("fix the syntax first; nothing was moved")
    })?;
    let found: Vec<Candidate<'_>> = crate::check::fix::literals_to_adopt(doc.as_ref(), target)?
        .into_iter()
        .map(|(key, name, entry)| Candidate {
            client,
            scope: target.scope,
            path: path.to_path_buf(),
            key,
            name,
            entry,
        })
        .collect();
    let store = ctx.secret_store();
    let plan = plan(&store, &found);
    if plan.items.is_empty() {
        return Ok(None);
    }
    let Carried { rewritten, backups } = carry_out(ctx, &store, &plan, dry_run, scrubbing)?;
    let diffs = rewritten
        .into_iter()
        .filter_map(|r| r.outcome.diff)
        .collect();
    let moved = plan
        .items
        .iter()
        .map(|i| {
            format!(
                "{} `{}` of `{}` → secret `{}`",
                i.place.label(),
                i.field,
                i.server,
                i.secret
            )
        })
        .collect();
    Ok(Some(Adopted {
        diffs,
        moved,
        backups,
    }))
}
