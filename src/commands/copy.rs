//! `mcpctl copy NAME --from ID -c ...`: one entry from one client into others, through
//! exactly the rendering `add` uses (dialect, variable syntax, Windows wrap). The source's
//! spelling is made portable first (`cmd /c` unwrapped, `${env:X}` → `${X}`), and its
//! housekeeping (switches, approvals, timeouts) stays behind. Recorded as `copy`.

use crate::cli::CopyArgs;
use crate::clients::Scope;
use crate::entry::render::portable_entry;
use crate::error::{ExitStatus, UserError};
use crate::output::Printer;
use crate::session::edit::EditReport;
use crate::session::write::{Flags, Provenance, add_to};
use crate::session::{Context, inventory, targets};
use crate::state::Origin;
use crate::state::ledger::HOUSEKEEPING_KEYS;

pub fn run(args: CopyArgs, ctx: &Context, printer: &mut Printer) -> anyhow::Result<ExitStatus> {
    let CopyArgs {
        name,
        from,
        targets: target_args,
        scope,
        force,
        dry_run,
    } = args;
    let from = match from {
        Some(from) => from,
        None => source_of(ctx, printer, &name, scope)?,
    };
    let source = targets::by_ids(ctx, std::slice::from_ref(&from))?;
    let (found, broken) = inventory::collect(ctx, &source, Some(&name));
    let found = found
        .into_iter()
        .filter(|f| f.scope == scope)
        .find(|f| f.entry().is_ok());
    let Some(found) = found else {
        if let Some(b) = broken.into_iter().next() {
            return Err(b.error);
        }
        return Err(UserError::new(format!(
            "`{name}` is not in {from}'s {} file",
            scope.as_str()
        ))
        .hint(format!("`mcpctl list -c {from}` shows its servers"))
        .into());
    };
    let Ok(entry) = found.entry() else {
        return Err(UserError::new(format!("`{name}` in {from} does not read as a server")).into());
    };
    let mut entry = portable_entry(entry);
    entry
        .extras
        .retain(|k, _| !HOUSEKEEPING_KEYS.contains(&k.as_str()));
    let clients = targets::choose(ctx, &target_args, "copy to", &|c| c.id != from)?;
    let how = Provenance {
        origin: Origin::copy(),
        guard: None,
    };
    let mut report = EditReport::new(dry_run);
    for client in clients.into_iter().filter(|c| c.id != from) {
        let flags = Flags {
            force,
            dry_run,
            no_wrap: false,
        };
        let result = add_to(ctx, client, scope, &name, &entry, &[], flags, &how).map(
            |(path, outcome, notes, _)| {
                for note in notes {
                    printer.warn(&note);
                }
                (path, outcome)
            },
        );
        report.push(ctx, client, scope, result);
    }
    printer.emit(&report)
}

/// The client to copy `name` from when `--from` is not given: the one detected client
/// that has it in `scope`, or the first of several that have the same server (as `add`
/// wrote it everywhere); different servers of that name need `--from`.
fn source_of(ctx: &Context, printer: &Printer, name: &str, scope: Scope) -> anyhow::Result<String> {
    // Also from a file another tool writes (home-manager's): copying out of it is reading.
    let detected = targets::detected_to_read(ctx);
    let (found, _) = inventory::collect(ctx, &detected, Some(name));
    let have: Vec<_> = found
        .iter()
        .filter(|f| f.scope == scope && f.origin.is_none())
        .filter_map(|f| {
            let mut entry = portable_entry(f.entry().as_ref().ok()?);
            entry.extras.clear();
            Some((f.client.id.as_str(), entry))
        })
        .collect();
    let Some((first, entry)) = have.first() else {
        return Err(targets::no_server_named(ctx, &detected, name));
    };
    let ids: Vec<&str> = have.iter().map(|(id, _)| *id).collect();
    if have.iter().any(|(_, e)| e != entry) {
        return Err(UserError::new(format!(
            "`{name}` is a different server in {}",
            ids.join(", ")
        ))
        .hint(format!("say which to copy: `--from {first}`"))
        .into());
    }
    if ids.len() > 1 {
        printer.note(&format!(
            "copying `{name}` from {first} (the same server is in {})",
            ids.join(", ")
        ));
    }
    Ok((*first).to_owned())
}
