//! `mcpctl restore -c ID`: put one of a client file's backups back. The current bytes
//! become a backup first, and the restore is journaled, so `undo` takes it back.

use crate::cli::RestoreArgs;
use crate::commands::inventory::display_path;
use crate::commands::{Context, edit, targets};
use crate::error::{ExitStatus, UserError};
use crate::output::Printer;

pub fn run(args: RestoreArgs, ctx: &Context, printer: &mut Printer) -> anyhow::Result<ExitStatus> {
    let RestoreArgs {
        client,
        scope,
        backup,
        dry_run,
    } = args;
    let client = targets::by_ids(ctx, std::slice::from_ref(&client))?
        .into_iter()
        .next()
        .ok_or_else(|| UserError::new("say which client to restore").hint("`-c ID`"))?;
    let location = targets::location(ctx, client, scope)?;
    let shown = display_path(ctx, &location.path);
    let backups = ctx
        .backups
        .as_deref()
        .map(|dir| crate::fs::backups_of(dir, &location.path))
        .unwrap_or_default();
    let index = usize::try_from(backup).unwrap_or(usize::MAX) - 1;
    let Some(chosen) = backups.get(index) else {
        return Err(UserError::new(format!(
            "`{shown}` has {} backup{}; there is no number {backup}",
            backups.len(),
            if backups.len() == 1 { "" } else { "s" }
        ))
        .hint(format!("see `mcpctl backups -c {}`", client.id))
        .into());
    };
    let bytes = crate::fs::read_bytes(&chosen.path)
        .map_err(|e| UserError::new(e.to_string()))?
        .ok_or_else(|| UserError::new(format!("backup `{}` is gone", chosen.path.display())))?;
    if dry_run {
        let current =
            crate::fs::read_bytes(&location.path).map_err(|e| UserError::new(e.to_string()))?;
        printer.raw(&edit::unified_diff(
            &shown,
            current.as_deref().unwrap_or_default(),
            &bytes,
            current.is_some(),
        ));
        printer.note("dry run: nothing was written");
        return Ok(ExitStatus::Success);
    }
    ctx.state.lock()?;
    let changed = edit::put_bytes(ctx, &location.path, &bytes)?;
    if printer.json {
        printer.json_value(&serde_json::json!({
            "client": client.id,
            "path": location.path,
            "backup": chosen.path,
            "action": if changed { "restored" } else { "unchanged" },
        }))?;
        return Ok(ExitStatus::Success);
    }
    if changed {
        printer.line(&format!(
            "restored {shown} from backup {backup} ({})",
            crate::state::rfc3339(chosen.time)
        ));
        printer.note("the replaced version is a backup now; `mcpctl undo` takes this back");
    } else {
        printer.line(&format!(
            "unchanged {shown}: it already holds backup {backup}"
        ));
    }
    Ok(ExitStatus::Success)
}
