//! `mcpctl apply`: make every targeted client file match the manifest, all or nothing.
//! The plan is computed and every new file rendered and re-parsed in memory first; a
//! conflict or drift stops the run before the first write (unless `--force`); files are
//! then written one by one (atomic, backed up, journaled), and if one write fails the
//! files already written in this run are put back. Only files whose bytes change are
//! written. The ledger records what was written, with this manifest as its source.
//!
//! Switching (a profile, `enabled = false`) goes through `toggle::switch`, exactly as
//! `enable`/`disable` do: servers to switch on first (a parked entry must be back in its
//! file before the file is planned again and written), servers to switch off last (an
//! entry this run adds must exist to be parked). A failure anywhere takes back every file
//! this run changed, the record of parked entries included.

use crate::cli::{ApplyArgs, CheckFormat};
use crate::error::{ExitStatus, UserError};
use crate::fs::FsError;
use crate::manifest::Manifest;
use crate::manifest::plan::{self, FilePlan, LedgerOp};
use crate::manifest::report::PlanReport;
use crate::output::{Block, ErrorText, Paint, Printer, Report};
use crate::session::{Context, edit, write};
use crate::state::Origin;
use crate::toggle::{self, Want};

pub fn run(args: ApplyArgs, ctx: &Context, printer: &mut Printer) -> anyhow::Result<ExitStatus> {
    let ApplyArgs {
        manifest: manifest_args,
        dry_run,
        force,
        exit_code,
    } = args;
    let manifest = plan::load(ctx, &manifest_args)?;
    printer.note(&crate::manifest::describe(
        &manifest.path,
        manifest_args.manifest.is_some(),
        &ctx.project,
    ));
    plan::trust_gate(ctx, &manifest, &manifest_args, "apply")?;
    let profile = manifest_args.profile.as_deref();
    // Two applies serialize: the second plans only after the first has finished.
    if !dry_run {
        ctx.state.lock()?;
    }
    let mut plans = plan::plan_all(ctx, &manifest, profile, force)?;
    let (here, notes) = plan::plan_here(ctx, &manifest, &manifest_args)?;
    let mut plan_report = PlanReport::new(ctx, &manifest, &plans, CheckFormat::Text, false);
    plan_report.add_here(&here, notes);
    let mut report = ApplyReport {
        plan: plan_report,
        reverted: Vec::new(),
        outcome: None,
        changed: Vec::new(),
        exit_code,
    };
    let result = execute(
        ctx,
        &manifest,
        (profile, &here),
        dry_run,
        force,
        &mut plans,
        &mut report,
    );
    // `[budget]`: the trims, in the same command (one `undo` takes the apply back whole).
    let result = result.and_then(|()| {
        let clients = crate::manifest::budget::planned_clients(&plans);
        report.plan.budget = crate::manifest::budget::trims(ctx, &manifest, &clients, !dry_run)?;
        report.plan.budget_made = !dry_run;
        Ok(())
    });
    let status = printer.emit(&report)?;
    // The error that stopped the run reaches the edge with its kind (and `hint:`).
    result?;
    Ok(status)
}

/// What `apply` shows: the plan, then what became of it.
struct ApplyReport {
    plan: PlanReport,
    /// Files put back after a failed write could not be restored.
    reverted: Vec<ErrorText>,
    /// `None` when the run stopped (the error follows the report).
    outcome: Option<Outcome>,
    /// The client files this run changed (with `--dry-run`: would change), as planned.
    changed: Vec<std::path::PathBuf>,
    /// `--exit-code`: a changed file is exit 1.
    exit_code: bool,
}

#[derive(Debug, Clone, Copy)]
enum Outcome {
    DryRun,
    Applied { written: usize, unchanged: usize },
}

impl Report for ApplyReport {
    /// The plan's items, each with `changed`: whether this run wrote its file (with
    /// `--dry-run`: would write it).
    fn json(&self) -> serde_json::Result<serde_json::Value> {
        let mut items = self.plan.json()?;
        for item in items.as_array_mut().into_iter().flatten() {
            let changed = item
                .get("path")
                .and_then(serde_json::Value::as_str)
                .is_some_and(|p| self.changed.iter().any(|c| c.as_os_str() == p));
            if let Some(item) = item.as_object_mut() {
                item.insert("changed".to_owned(), changed.into());
            }
        }
        Ok(items)
    }

    fn human(&self, paint: Paint) -> Vec<Block> {
        let mut blocks = self.plan.human(paint);
        blocks.extend(self.reverted.iter().cloned().map(Block::Error));
        match self.outcome {
            None => {}
            // Also beside `--json`: a script sees that nothing was written.
            Some(Outcome::DryRun) => {
                blocks.push(Block::Aside("dry run: nothing was written".to_owned()));
            }
            Some(Outcome::Applied { written, unchanged }) => {
                blocks.push(Block::Note(format!(
                    "applied: {written} file{} written, {unchanged} unchanged",
                    if written == 1 { "" } else { "s" },
                )));
            }
        }
        blocks
    }

    fn status(&self) -> ExitStatus {
        match self.outcome {
            None => ExitStatus::Error,
            Some(_)
                if self
                    .plan
                    .budget
                    .iter()
                    .any(crate::manifest::budget::Trim::failed) =>
            {
                ExitStatus::Error
            }
            Some(_) if self.exit_code && !self.changed.is_empty() => ExitStatus::Changed,
            Some(_) => ExitStatus::Success,
        }
    }
}

/// Check the plan, then write it (unless `dry_run`) and record what was written; the
/// outcome goes into `report`. An error means nothing is left half-written.
fn execute<'a>(
    ctx: &'a Context,
    manifest: &Manifest,
    (profile, here): (Option<&str>, &[plan::HerePlan<'_>]),
    dry_run: bool,
    force: bool,
    plans: &mut Vec<FilePlan<'a>>,
    report: &mut ApplyReport,
) -> anyhow::Result<()> {
    let blocked: Vec<String> = plans
        .iter()
        .flat_map(|p| &p.items)
        .filter(|i| i.blocks())
        .map(|i| format!("`{}` in {}", i.name, i.client))
        .collect();
    if !blocked.is_empty() && !force {
        return Err(UserError::new(format!(
            "apply stopped before writing anything: {} {} not mcpctl's to change ({})",
            blocked.len(),
            if blocked.len() == 1 { "entry is" } else { "entries are" },
            blocked.join(", ")
        ))
        .hint("make those entries match the manifest (or move the edits into it), or pass `--force` to let the manifest win")
        .into());
    }
    // Validate every new file in memory before the first write.
    for plan in plans.iter() {
        if let Some(text) = plan.new_text()
            && let Err(e) = plan.client.format.parse(text.to_owned())
        {
            return Err(UserError::new(format!(
                "mcpctl rendered `{}` into text that does not parse ({e}); nothing was written",
                plan.location.path.display()
            ))
            .hint("this is a bug in mcpctl; please report it with the manifest entry")
            .into());
        }
        // A file another tool owns (home-manager's link into the Nix store) stops the
        // run here, before any file is written, not half-way.
        if plan.new_text().is_some()
            && let Err(e) = crate::fs::refuse_foreign(&plan.location.path)
        {
            return Err(edit::write_error(&e));
        }
    }
    let here_changed = here
        .iter()
        .filter(|h| h.item.action != plan::Action::Ok)
        .map(|h| h.item.path.clone());
    if dry_run {
        report.changed = plans
            .iter()
            .filter(|p| p.new_text().is_some() || !p.switches.is_empty())
            .map(|p| p.location.path.clone())
            .chain(here_changed)
            .collect();
        report.outcome = Some(Outcome::DryRun);
        return Ok(());
    }
    if let Err(error) =
        write_all(ctx, manifest, profile, force, plans).and_then(|()| switch_here(ctx, here))
    {
        let written = ctx.state.written();
        let mut reverted = Vec::new();
        let mut kept = Vec::new();
        for change in written.iter().rev() {
            // Only over what this run wrote (see `edit::revert`).
            if let Err(e) = edit::revert(ctx, change) {
                report.reverted.push(ErrorText::of(&e));
                kept.push(crate::output::file(&change.path));
            } else {
                reverted.push(crate::output::file(&change.path));
            }
        }
        let mut undone = if reverted.is_empty() {
            "no file was put back".to_owned()
        } else {
            format!(
                "the files already written were put back: {}",
                reverted.join(", ")
            )
        };
        if written.is_empty() {
            undone = "no file was changed".to_owned();
        }
        if !kept.is_empty() {
            undone.push_str(&format!(
                "; NOT put back (changed since, or no backup): {}",
                kept.join(", ")
            ));
        }
        return Err(error.context(format!("apply failed; {undone}")));
    }
    let origin = Origin::manifest(&manifest.path);
    for plan in plans.iter() {
        record_plan(ctx, plan, &origin, false)?;
    }
    // Client files only (the record of parked entries is mcpctl's own); a switch kept in
    // another file (Claude Code's lists) changes the planned file's client too.
    let written = ctx.state.written();
    report.changed = plans
        .iter()
        .filter(|p| !p.switches.is_empty() || written.iter().any(|w| w.path == p.location.path))
        .map(|p| p.location.path.clone())
        .chain(here_changed)
        .collect();
    report.changed.sort();
    report.changed.dedup();
    let written = report.changed.len();
    report.outcome = Some(Outcome::Applied {
        written,
        unchanged: plans.len().saturating_sub(written),
    });
    Ok(())
}

/// Record what `plan` wrote in the ledger; with `expect`, before it is written, say what
/// will be recorded (`State::expect`: the intent names it with the write, issue 39 G13).
fn record_plan(
    ctx: &Context,
    plan: &FilePlan<'_>,
    origin: &Origin,
    expect: bool,
) -> anyhow::Result<()> {
    let created = !plan.document.source.exists();
    // The file's identity once, not once per entry (a `readlink` per component).
    let identity = crate::fs::identity(&plan.location.path);
    for op in &plan.ledger {
        match op {
            LedgerOp::Record { name, raw, known } => {
                let key = edit::entry_key_at(&identity, &plan.location, name);
                let fingerprint = plan.fingerprint(raw, known);
                let created = crate::state::Created::file(created);
                match (expect, fingerprint) {
                    (true, Some(fingerprint)) => {
                        ctx.state
                            .expect_record(key, fingerprint, origin.clone(), created);
                    }
                    (true, None) => {}
                    (false, fingerprint) => {
                        write::record_fingerprint(ctx, key, fingerprint, origin, created)?;
                    }
                }
            }
            LedgerOp::Forget { name } => {
                let key = edit::entry_key_at(&identity, &plan.location, name);
                if expect {
                    ctx.state.expect(key, None);
                } else {
                    ctx.state.forget(&key)?;
                }
            }
        }
    }
    Ok(())
}

/// Switch on, write every planned file, switch off; `plans` ends as written (planned again
/// when switching on brought entries back).
fn write_all<'a>(
    ctx: &'a Context,
    manifest: &Manifest,
    profile: Option<&str>,
    force: bool,
    plans: &mut Vec<FilePlan<'a>>,
) -> anyhow::Result<()> {
    if switch(ctx, plans, Want::On)? {
        *plans = plan::plan_all(ctx, manifest, profile, force)?;
        let blocked = plans.iter().flat_map(|p| &p.items).find(|i| i.blocks());
        if let (Some(item), false) = (blocked, force) {
            return Err(UserError::new(format!(
                "`{}` in {} is not mcpctl's to change now that it is switched back on",
                item.name, item.client
            ))
            .hint("run `mcpctl plan` to see it; `--force` lets the manifest win")
            .into());
        }
    }
    for plan in plans.iter_mut() {
        write_plan(ctx, manifest, profile, force, plan)?;
    }
    switch(ctx, plans, Want::Off)?;
    let dropped: Vec<_> = plans.iter().flat_map(|p| &p.drop_parked).collect();
    if !dropped.is_empty() {
        toggle::store::update(ctx, false, |store| {
            store.parked.retain(|p| !dropped.contains(&&p.entry));
        })?;
    }
    Ok(())
}

/// Make the `[here]` switches out of sync, each in its client's project-level switch.
fn switch_here(ctx: &Context, here: &[plan::HerePlan<'_>]) -> anyhow::Result<()> {
    for h in here.iter().filter(|h| h.item.action != plan::Action::Ok) {
        let Some(switch) = &h.client.here else {
            continue;
        };
        toggle::here::switch(
            ctx,
            h.client,
            switch,
            &ctx.project,
            &h.item.name,
            h.want,
            false,
            false,
        )
        .map_err(|e| {
            e.context(format!(
                "switching `{}` {} here in {}",
                h.item.name,
                if h.want == Want::On { "on" } else { "off" },
                crate::output::file(&h.item.path)
            ))
        })?;
    }
    Ok(())
}

/// Make the plans' switches that go `want`; whether any was made.
fn switch(ctx: &Context, plans: &[FilePlan<'_>], want: Want) -> anyhow::Result<bool> {
    let mut any = false;
    for plan in plans {
        for (name, _) in plan.switches.iter().filter(|(_, w)| *w == want) {
            toggle::switch(ctx, plan.client, &plan.location, name, want, false).map_err(|e| {
                e.context(format!(
                    "switching `{name}` {} in {}",
                    if want == Want::On { "on" } else { "off" },
                    crate::output::file(&plan.location.path)
                ))
            })?;
            any = true;
        }
    }
    Ok(any)
}

/// Write one planned file; when another program wrote it since it was read, plan it again
/// from the new bytes (a new conflict or drift stops the run).
fn write_plan(
    ctx: &Context,
    manifest: &Manifest,
    profile: Option<&str>,
    force: bool,
    plan: &mut FilePlan<'_>,
) -> anyhow::Result<()> {
    // Another mcpctl that wrote the file since it was planned is caught by the write's
    // version check; from here on, none can.
    let lock = edit::lock(ctx, &plan.location.path)?;
    let path = plan.location.path.clone();
    // The one retry policy (`edit::retry`), with a step that plans this file again.
    edit::retry(&path, "apply", || {
        let Some(text) = plan.new_text() else {
            return Ok(Some(()));
        };
        record_plan(ctx, plan, &Origin::manifest(&manifest.path), true)?;
        match edit::write_file(ctx, &lock, &plan.document.source, text) {
            Ok(_) => Ok(Some(())),
            Err(FsError::Changed { .. }) => {
                let clients = vec![plan.client];
                let fresh = plan::plan_file(
                    ctx,
                    manifest,
                    &clients,
                    plan.location.clone(),
                    profile,
                    force,
                )?;
                if !force && fresh.items.iter().any(|i| i.blocks()) {
                    return Err(UserError::new(format!(
                        "`{}` changed while mcpctl was applying, and now has entries that are not mcpctl's to change",
                        crate::output::file(&plan.location.path)
                    ))
                    .hint("run `mcpctl plan` to see them")
                    .into());
                }
                *plan = fresh;
                Ok(None)
            }
            Err(e) => Err(edit::write_error(&e)),
        }
    })
}
