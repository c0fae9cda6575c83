//! The manifest's `[budget]`: what each targeted client's servers cost it against its
//! budget (`plan`, `plan --check`), and the cut that brings it under (`apply` makes it,
//! in the same command: one `undo` takes both back). Counted as `budget` counts: the
//! client's files as they are, each server's tools from the committed `mcpctl.lock`
//! beside the manifest (no network needed), else from what was measured here (state).

use crate::budget::cut::{self, Cut, Keep, thousands};
use crate::budget::{self, ClientBudget};
use crate::clients::Client;
use crate::manifest::Manifest;
use crate::session::Context;

/// One budgeted client.
#[derive(Debug, Clone)]
pub struct Trim {
    pub counted: ClientBudget,
    pub cut: Cut,
}

impl Trim {
    /// Over its budget as the files are (measured; an unmeasured total is not judged).
    pub fn over(&self) -> bool {
        self.counted.tokens.is_some_and(|t| t > self.cut.max)
    }

    /// A change of the cut failed to be made.
    pub fn failed(&self) -> bool {
        self.cut.done.iter().any(|d| d.action == "failed")
    }

    /// What `plan` and `apply` print.
    pub fn lines(&self, made: bool) -> Vec<String> {
        let c = &self.cut;
        let mut lines = vec![match self.counted.tokens {
            None => format!(
                "budget {}: {} not measured (`mcpctl budget --measure -c {}`)",
                c.client,
                self.counted.unknown.join(", "),
                c.client
            ),
            Some(t) if t <= c.max => format!(
                "budget {}: {} tokens, within {}",
                c.client,
                thousands(t),
                thousands(c.max)
            ),
            Some(t) => format!(
                "budget {}: {} tokens, over {} by {}{}",
                c.client,
                thousands(t),
                thousands(c.max),
                thousands(t - c.max),
                match (c.short.is_some(), made) {
                    (true, _) => "",
                    (false, true) => "; trimmed:",
                    (false, false) => "; apply trims it:",
                }
            ),
        }];
        for change in &c.changes {
            lines.extend(change.lines().into_iter().map(|l| format!("  {l}")));
        }
        for done in &c.done {
            if let Some(error) = done.error.as_ref().filter(|_| done.action == "failed") {
                lines.push(format!("  failed {}: {error}", done.server));
            }
        }
        if let (Some(short), true) = (&c.short, self.over()) {
            lines.push(format!("  {short}"));
        }
        lines
    }
}

/// Every client of `clients` the manifest gives a budget, counted and cut; the cut is
/// made when `write`, else shown (its diffs in `cut.done`).
pub fn trims(
    ctx: &Context,
    manifest: &Manifest,
    clients: &[&Client],
    write: bool,
) -> anyhow::Result<Vec<Trim>> {
    let Some(spec) = &manifest.budget else {
        return Ok(Vec::new());
    };
    let budgeted: Vec<(&Client, usize, Vec<String>)> = clients
        .iter()
        .filter_map(|c| spec.of(&c.id).map(|(max, keep)| (*c, max, keep)))
        .collect();
    let only: Vec<&Client> = budgeted.iter().map(|(c, _, _)| *c).collect();
    // The committed lock beside the manifest first (CI counts without starting anything
    // or needing the network), else what was measured here.
    let lock = crate::lock::path_for(Some(&manifest.path), ctx.state.root());
    let locked = budget::locked(lock.as_deref())?;
    let counted = budget::count_with(ctx, &only, &locked, true);
    let mut out = Vec::new();
    for (client, max, keep) in budgeted {
        let Some(counted) = counted.iter().find(|b| b.client == client.id) else {
            continue;
        };
        let place = budget::place(ctx, client, false);
        let mut cut = cut::plan(client, counted, max, &Keep::parse(&keep), &place);
        if !cut.changes.is_empty() {
            let dry_run = !(write && cut.short.is_none());
            cut::make(ctx, client, counted, &mut cut, &place, dry_run);
        }
        out.push(Trim {
            counted: counted.clone(),
            cut,
        });
    }
    Ok(out)
}

/// The distinct clients of the planned files, in order.
pub fn planned_clients<'c>(plans: &[crate::manifest::plan::FilePlan<'c>]) -> Vec<&'c Client> {
    let mut out: Vec<&Client> = Vec::new();
    for plan in plans {
        if !out.iter().any(|c| c.id == plan.client.id) {
            out.push(plan.client);
        }
    }
    out
}
