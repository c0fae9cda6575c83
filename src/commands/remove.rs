//! `mcpctl remove`: delete one named entry from each target client's file, reporting
//! every file; a file without the entry is `unchanged` and is not written. A name that no
//! targeted client has is an error (exit 2), with a "did you mean" when one is close.
//!
//! Without `--scope`, each client's entry is looked for in every scope mcpctl writes (user,
//! project, local); without a target, the clients that have the name are the targets.

use std::cell::RefCell;

use crate::cli::RemoveArgs;
use crate::clients::{Client, Location, Scope, VarSyntax};
use crate::entry::render::portable_entry;
use crate::entry::{Dialect, ServerEntry};
use crate::error::{ExitStatus, UserError};
use crate::formats::{ConfigDoc, Edit};
use crate::output::Printer;
use crate::session::Context;
use crate::session::inventory::{self, Document, read_document};
use crate::session::{edit, targets, write};
use crate::state::ledger::{self, Ownership};

pub fn run(args: RemoveArgs, ctx: &Context, printer: &mut Printer) -> anyhow::Result<ExitStatus> {
    let RemoveArgs {
        name,
        targets: target_args,
        scope,
        global,
        force,
        dry_run,
    } = args;
    let scope = if global { Some(Scope::User) } else { scope };
    // Each file read to find the name is kept, so the edit below starts from it instead
    // of parsing a many-MB `~/.claude.json` again (`edit::apply_from`).
    let read = RefCell::new(Read::new());
    let holds = |client: &Client| scopes_having(ctx, client, &name, scope, &read);
    // In no file, but parked by `disable` (`list` shows it): its parked bytes go.
    let named = !target_args.clients.is_empty() || target_args.all;
    if !named
        && targets::detected(ctx).iter().all(|c| holds(c).is_empty())
        && let Some(report) = remove_parked(ctx, None, &name, scope, dry_run)?
    {
        return printer.emit(&report);
    }
    let clients = choose_clients(ctx, printer, &target_args, &name, &holds)?;
    // `--all` sweeps every detected client: an entry of that name that is someone else's
    // server (hand-made, different) is left unless `--force`, and named.
    let left = if target_args.all && !force {
        not_ours(ctx, &clients, &name, scope)?
    } else {
        Vec::new()
    };
    for (client, scope) in &left {
        printer.warn(&format!(
            "left `{name}` in {client} ({} scope): mcpctl did not write it and it is not the same server as the one it removes; `--force` removes it too, `-c {client}` removes just that one",
            scope.as_str()
        ));
    }
    let clients: Vec<&Client> = clients
        .into_iter()
        .filter(|c| !left.iter().any(|(id, _)| *id == c.id))
        .collect();
    let mut report = edit::EditReport::new(dry_run);
    for client in &clients {
        if let (Some(ex), _) = inventory::read_only_of(ctx, client, &name) {
            printer.warn(&format!(
                "{} loads only the servers in `{}`, so it was not loading your own entries anyway",
                client.name,
                crate::output::file(&ex.file)
            ));
        }
    }
    for client in &clients {
        let found = holds(client);
        let result = which_scope(client, &name, scope, &found)
            .and_then(|scope| remove_from(ctx, client, &name, scope, dry_run, &read));
        report.push(ctx, client, scope.unwrap_or(Scope::User), result);
    }
    if left.is_empty()
        && report
            .files
            .iter()
            .all(|r| r.action == edit::Action::Unchanged)
    {
        if let Some(error) = inventory::read_only_holder(ctx, &clients, &name) {
            return Err(error);
        }
        if let Some(report) = remove_parked(ctx, Some(&clients), &name, scope, dry_run)? {
            return printer.emit(&report);
        }
        // Not found anywhere is an error whether or not a similar name exists: the exit
        // code must not depend on the neighbours' names.
        return Err(targets::no_server_named(ctx, &clients, &name));
    }
    printer.emit(&report)
}

/// `name` as `disable` parked it (cut out of its file, its bytes in mcpctl's state) for
/// `clients` (`None`: any) in `scope`: dropped from the record of parked entries
/// (journaled, so `undo` brings it back) and from the ledger. `None` when none is parked.
fn remove_parked(
    ctx: &Context,
    clients: Option<&[&Client]>,
    name: &str,
    scope: Option<Scope>,
    dry_run: bool,
) -> anyhow::Result<Option<edit::EditReport>> {
    use crate::toggle::store;
    let parked: Vec<store::Parked> = store::load(ctx)?
        .parked
        .into_iter()
        .filter(|p| {
            p.entry.name == name
                && clients.is_none_or(|cs| cs.iter().any(|c| c.id == p.client))
                && scope.is_none_or(|s| p.scope == s)
        })
        .collect();
    if parked.is_empty() {
        return Ok(None);
    }
    store::update(ctx, dry_run, |s| {
        s.parked.retain(|p| !parked.contains(p));
    })?;
    let mut report = edit::EditReport::new(dry_run);
    for p in &parked {
        if !dry_run {
            ctx.state.forget(&p.entry)?;
        }
        let Some(client) = ctx.table.all().iter().find(|c| c.id == p.client) else {
            continue;
        };
        let mut outcome = edit::Outcome::unchanged();
        outcome.action = edit::Action::Removed;
        report.push(ctx, client, p.scope, Ok((p.path.clone(), outcome)));
    }
    report.note = Some(format!(
        "`{name}` was parked (switched off by `mcpctl disable`, not in the file): its parked bytes {} dropped; the file {} unchanged",
        if dry_run { "would be" } else { "were" },
        if dry_run { "stays" } else { "is" },
    ));
    Ok(Some(report))
}

/// The clients to remove `name` from: the ones named (`-c`, `--all`), else those that
/// have it (one is said; several are offered to choose from; none is an error).
fn choose_clients<'c>(
    ctx: &'c Context,
    printer: &Printer,
    target_args: &crate::cli::TargetArgs,
    name: &str,
    holds: &dyn Fn(&Client) -> Vec<Scope>,
) -> anyhow::Result<Vec<&'c Client>> {
    let named = !target_args.clients.is_empty() || target_args.all;
    if named {
        return targets::choose(ctx, target_args, "remove", &|c| !holds(c).is_empty());
    }
    let have: Vec<&Client> = targets::detected(ctx)
        .into_iter()
        .filter(|c| !holds(c).is_empty())
        .collect();
    match have.as_slice() {
        [] => {
            if let Some(error) = inventory::read_only_holder(ctx, &targets::detected(ctx), name) {
                return Err(error);
            }
            Err(targets::no_server_named(ctx, &targets::detected(ctx), name))
        }
        [one] => {
            printer.note(&format!(
                "`{name}` is only in {} ({}); removing it there",
                one.name, one.id
            ));
            Ok(have)
        }
        _ => targets::choose(ctx, target_args, "remove", &|c| !holds(c).is_empty()),
    }
}

/// The scope to remove from: `--scope`, else the one scope of `client` that has `name`
/// (`found`; user when none has it). Several is an error that names them.
fn which_scope(
    client: &Client,
    name: &str,
    scope: Option<Scope>,
    found: &[Scope],
) -> anyhow::Result<Scope> {
    match (scope, found) {
        (Some(scope), _) => Ok(scope),
        (None, []) => Ok(Scope::User),
        (None, [one]) => Ok(*one),
        (None, many) => Err(UserError::new(format!(
            "`{name}` is in {} scopes of {}: {}",
            many.len(),
            client.name,
            many.iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))
        .hint(format!(
            "say which: {}",
            many.iter()
                .map(|s| format!("`--scope {}`", s.as_str()))
                .collect::<Vec<_>>()
                .join(" or ")
        ))
        .into()),
    }
}

/// Remove `name` from `client`'s file of `scope` (the file read to find it, when it was
/// read), with what adding it created there, and forget its ledger record.
fn remove_from(
    ctx: &Context,
    client: &Client,
    name: &str,
    scope: Scope,
    dry_run: bool,
    read: &RefCell<Read>,
) -> anyhow::Result<(std::path::PathBuf, edit::Outcome)> {
    let location = targets::location(ctx, client, scope)?;
    if !crate::fs::exists(&location.path) {
        return Ok((location.path, edit::Outcome::unchanged()));
    }
    // What adding it created (the servers key, the file, its directories) goes
    // with the last entry mcpctl added there; never anything else.
    let key = edit::entry_key(&location, name);
    let created = ctx
        .state
        .lookup(&key)?
        .map(|r| r.created)
        .unwrap_or_default();
    let delete_with = created
        .created_file
        .then_some(created.created_dirs.as_slice());
    // Taken out of the cache: once edited, a later look at this file reads it anew.
    let first = {
        let mut read = read.borrow_mut();
        read.iter()
            .position(|(path, _)| *path == location.path)
            .and_then(|at| read.remove(at).1)
    };
    let spellings = spellings(ctx, client, &location);
    if !dry_run {
        // Named in the intent with the write (issue 39 G13).
        ctx.state.expect(key.clone(), None);
    }
    let outcome = edit::apply_from(
        ctx,
        client,
        &location,
        dry_run,
        delete_with,
        first,
        &|doc| {
            // The local scope's entry may sit under another spelling of the project key.
            let place = spellings
                .iter()
                .find(|l| holds(&*doc, l, name))
                .unwrap_or(&location);
            let existing = doc
                .servers(place.at())?
                .into_iter()
                .find(|(n, _)| *n == name)
                .map(|(_, raw)| raw);
            edit::refuse_builtin(client, name, existing.as_ref())?;
            let edit = doc.remove(place.at(), name)?;
            if edit == Edit::Removed
                && place.name_key.is_none()
                && let Some(before) = &created.created_map
            {
                doc.prune(&place.key, before)?;
            }
            // VS Code's prompts go with the last server that used them.
            if let (Edit::Removed, Some(removed)) = (edit, &existing)
                && client.fields.var_syntax == Some(VarSyntax::Vscode)
            {
                write::drop_unused_inputs(doc, place.at(), removed)?;
            }
            Ok(edit)
        },
    )?;
    if !dry_run {
        ctx.state.forget(&key)?;
    }
    Ok((location.path, outcome))
}

/// For `remove NAME --all`: the (client, scope) entries of `name` to leave alone. An
/// entry stays unless mcpctl wrote it as it is (the ledger) or it is the same server as
/// one mcpctl wrote (made portable, housekeeping aside). With no record at all, one server
/// everywhere is the one being removed; different servers of that name are all left.
fn not_ours(
    ctx: &Context,
    clients: &[&Client],
    name: &str,
    scope: Option<Scope>,
) -> anyhow::Result<Vec<(String, Scope)>> {
    let (found, _) = inventory::collect(ctx, clients, Some(name));
    let mut seen: Vec<(String, Scope, Option<ServerEntry>, bool)> = Vec::new();
    for f in &found {
        if f.origin.is_some() || scope.is_some_and(|s| s != f.scope) {
            continue;
        }
        let portable = f.entry().as_ref().ok().map(|e| {
            let mut p = portable_entry(e);
            p.extras.clear();
            p
        });
        let location = targets::location(ctx, f.client, f.scope)?;
        let key = edit::entry_key(&location, name);
        let owned = match ledger::fingerprint_raw(&Dialect::of(f.client), f.raw()) {
            Some(fingerprint) => ctx.state.ownership(&key, &fingerprint)? == Ownership::Mcpctl,
            None => false,
        };
        seen.push((f.client.id.clone(), f.scope, portable, owned));
    }
    let ours: Vec<&Option<ServerEntry>> = seen.iter().filter(|s| s.3).map(|s| &s.2).collect();
    let leave = |s: &&(String, Scope, Option<ServerEntry>, bool)| {
        if ours.is_empty() {
            seen.iter().any(|other| other.2 != s.2)
        } else {
            !s.3 && !ours.contains(&&s.2)
        }
    };
    Ok(seen
        .iter()
        .filter(leave)
        .map(|(id, scope, _, _)| (id.clone(), *scope))
        .collect())
}

/// The places an entry of `location`'s scope may sit: the local scope under each
/// spelling of the project key (`Client::local_locations`), else `location` alone.
fn spellings(ctx: &Context, client: &Client, location: &Location) -> Vec<Location> {
    match location.scope {
        Scope::Local => client.local_locations(&ctx.platform, &ctx.project),
        _ => vec![location.clone()],
    }
}

/// `doc` has an entry `name` at `location`.
fn holds(doc: &dyn ConfigDoc, location: &Location, name: &str) -> bool {
    doc.servers(location.at())
        .is_ok_and(|entries| entries.iter().any(|(n, _)| n == name))
}

/// Files read so far, by path (`None`: absent or unreadable).
type Read = Vec<(std::path::PathBuf, Option<Document>)>;

/// The scopes of `client` (only `only`, when given) whose file has `name`. A file that two
/// scopes resolve to (the project file at HOME, or through a symlinked HOME, is the user
/// file) counts once, as the wider scope.
fn scopes_having(
    ctx: &Context,
    client: &Client,
    name: &str,
    only: Option<Scope>,
    read: &RefCell<Read>,
) -> Vec<Scope> {
    let mut seen: Vec<Location> = Vec::new();
    let mut read = read.borrow_mut();
    let mut out = Vec::new();
    for scope in client.scopes() {
        let Ok(location) = targets::location(ctx, client, scope) else {
            continue;
        };
        if scope == Scope::Legacy || seen.iter().any(|l| l.same_place(&location)) {
            continue;
        }
        seen.push(location.clone());
        let at = match read.iter().position(|(path, _)| *path == location.path) {
            Some(at) => at,
            None => {
                let doc = location
                    .path
                    .is_file()
                    .then(|| read_document(ctx, client, &location.path).ok())
                    .flatten();
                read.push((location.path.clone(), doc));
                read.len() - 1
            }
        };
        let has = read[at].1.as_ref().is_some_and(|d| {
            spellings(ctx, client, &location)
                .iter()
                .any(|l| holds(d.doc.as_ref(), l, name))
        });
        if has && only.is_none_or(|o| o == scope) {
            out.push(scope);
        }
    }
    out
}
