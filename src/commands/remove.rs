//! `mcpctl remove`: delete one named entry from each target client's file, reporting
//! every file; a file without the entry is `unchanged` and is not written.

use crate::cli::RemoveArgs;
use crate::commands::Context;
use crate::commands::add::{print_reports, report};
use crate::commands::inventory::read_document;
use crate::commands::{edit, targets};
use crate::error::ExitStatus;
use crate::output::Printer;

pub fn run(args: RemoveArgs, ctx: &Context, printer: &mut Printer) -> anyhow::Result<ExitStatus> {
    let RemoveArgs {
        name,
        targets: target_args,
        scope,
        dry_run,
    } = args;
    let has_it = |client: &crate::clients::Client| {
        targets::location(ctx, client, scope)
            .ok()
            .filter(|l| l.path.is_file())
            .and_then(|l| read_document(ctx, client, &l.path).ok().map(|d| (l, d)))
            .and_then(|(l, d)| d.doc.servers(&l.key).ok())
            .is_some_and(|entries| entries.iter().any(|(n, _)| *n == name))
    };
    let clients = targets::choose(ctx, &target_args, "remove", &has_it)?;
    let mut reports = Vec::new();
    for client in clients {
        let result = (|| {
            let location = targets::location(ctx, client, scope)?;
            if !location.path.exists() {
                return Ok((
                    edit::shown(ctx, &location.path),
                    edit::Outcome {
                        action: edit::Action::Unchanged,
                        diff: None,
                        created: false,
                    },
                ));
            }
            let outcome = edit::apply(ctx, client, &location, dry_run, &|doc| {
                Ok(doc.remove(&location.key, &name)?)
            })?;
            if !dry_run {
                ctx.state.forget(&edit::entry_key(&location, &name))?;
            }
            Ok((edit::shown(ctx, &location.path), outcome))
        })();
        reports.push(report(ctx, client, scope, result));
    }
    if !printer.json && reports.iter().all(|r| r.action == edit::Action::Unchanged) {
        printer.note(&format!("`{name}` was not found in any targeted client"));
    }
    print_reports(printer, &reports, dry_run)
}
