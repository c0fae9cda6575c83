//! `mcpctl budget`: what the servers each client loads cost its context, per server and
//! per tool, as the client receives them (`crate::budget`); `--max N` shows (and with
//! `--apply` makes) the smallest set of changes that brings each client under N.

use serde::Serialize;

use crate::budget::cut::{self, Cut, Keep, thousands};
use crate::budget::{self, ClientBudget};
use crate::cli::{BudgetArgs, BudgetScope};
use crate::error::ExitStatus;
use crate::handshake::tools::TOKEN_METHOD;
use crate::output::{Block, Paint, Printer, Report, Style};
use crate::session::{Context, targets};

#[derive(Serialize)]
struct BudgetReport {
    clients: Vec<ClientBudget>,
    token_method: &'static str,
    /// With `--max`: the cut per client.
    #[serde(skip_serializing_if = "Option::is_none")]
    cuts: Option<Vec<Cut>>,
    #[serde(skip)]
    applied: bool,
}

pub fn run(args: BudgetArgs, ctx: &Context, printer: &mut Printer) -> anyhow::Result<ExitStatus> {
    let clients = if args.clients.is_empty() {
        targets::detected_to_read(ctx)
    } else {
        targets::by_ids(ctx, &args.clients)?
    };
    if args.measure {
        budget::measure_unmeasured(ctx, printer, &clients, args.trust_project, args.timeout)?;
    }
    // What state does not know comes from the tool lock (`mcpctl lock`), by name.
    let lock = crate::manifest::lock_file(None, &ctx.project, &ctx.platform, ctx.state.root())?;
    // A damaged lock is said, not fatal: state's measurements still count.
    let locked = budget::locked(lock.as_deref()).unwrap_or_else(|e| {
        printer.warn(&format!("{e:#}; counting without it"));
        budget::Locked::new()
    });
    let mut counted = budget::count_with(ctx, &clients, &locked, false);
    sort(&mut counted);
    let cuts = match args.max {
        None => None,
        Some(max) => {
            let keep = Keep::parse(&args.keep);
            let mut cuts = Vec::new();
            for counted in &counted {
                let Some(client) = clients.iter().find(|c| c.id == counted.client) else {
                    continue;
                };
                let user_only = args.scope == Some(BudgetScope::User);
                let place = budget::place(ctx, client, user_only);
                let mut cut = cut::plan(client, counted, max, &keep, &place);
                if args.scope == Some(BudgetScope::Project) {
                    cut::project_only(client, &mut cut, &place);
                }
                // A cut that cannot reach N is shown, never half made.
                let write = args.apply && cut.short.is_none();
                cut::make(ctx, client, counted, &mut cut, &place, !write);
                cuts.push(cut);
            }
            Some(cuts)
        }
    };
    if args.apply {
        // What the client receives now: the numbers after the cut.
        counted = budget::count_with(ctx, &clients, &locked, false);
        sort(&mut counted);
    }
    printer.emit(&BudgetReport {
        clients: counted,
        token_method: TOKEN_METHOD,
        cuts,
        applied: args.apply,
    })
}

/// The costliest client first; unknown totals last.
fn sort(counted: &mut [ClientBudget]) {
    counted.sort_by(|a, b| {
        b.tokens
            .is_some()
            .cmp(&a.tokens.is_some())
            .then(b.known.cmp(&a.known))
            .then_with(|| a.client.cmp(&b.client))
    });
}

impl Report for BudgetReport {
    fn json(&self) -> serde_json::Result<serde_json::Value> {
        serde_json::to_value(self)
    }

    fn human(&self, paint: Paint) -> Vec<Block> {
        let mut blocks = Vec::new();
        if self.clients.is_empty() {
            blocks.push(Block::Note(
                "no client here loads a server (`mcpctl list` shows what is configured)".to_owned(),
            ));
        }
        if let Some(cuts) = &self.cuts {
            return cut_blocks(cuts, self.applied, paint, blocks);
        }
        for c in &self.clients {
            let total = match c.tokens {
                Some(n) => format!("≈ {} tokens", thousands(n)),
                None if c.known == 0 => format!(
                    "tokens unknown, {} not measured (`mcpctl budget --measure`)",
                    c.unknown
                        .iter()
                        .map(|n| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                None => format!(
                    "≥ {} tokens, {} not measured (`mcpctl budget --measure`)",
                    thousands(c.known),
                    c.unknown
                        .iter()
                        .map(|n| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            blocks.push(Block::Line(paint.paint(
                Style::Bold,
                &format!(
                    "{} {total} · {} server{}",
                    c.client,
                    c.servers.len(),
                    if c.servers.len() == 1 { "" } else { "s" }
                ),
            )));
            if let Some(d) = &c.deferral {
                blocks.push(Block::Line(paint.paint(
                    Style::Dim,
                    &format!(
                        "  {} ({}): {} — {}",
                        if d.active {
                            "defers tool definitions"
                        } else {
                            "loads every tool definition"
                        },
                        d.why,
                        d.rule,
                        d.source
                    ),
                )));
            }
            let rows: Vec<Vec<String>> = c
                .servers
                .iter()
                .map(|s| {
                    let mut note = Vec::new();
                    if !s.filtered.is_empty() {
                        note.push(format!("{} filtered out", s.filtered.len()));
                    }
                    if s.deferred {
                        let deferred = s.tools.iter().filter(|t| t.deferred).count();
                        let which = if deferred == s.tools.len() {
                            "deferred".to_owned()
                        } else {
                            format!("{deferred} of {} deferred", s.tools.len())
                        };
                        note.push(format!(
                            "{which} ({} in full)",
                            thousands(s.tools.iter().map(|t| t.definition).sum())
                        ));
                    }
                    if s.read_only {
                        note.push("read-only source".to_owned());
                    }
                    if s.tokens.is_none() {
                        note.push("not measured".to_owned());
                    }
                    vec![
                        format!("  {}", s.name),
                        s.scope.as_str().to_owned(),
                        s.tokens.map_or_else(|| "?".to_owned(), thousands),
                        if s.tools.is_empty() {
                            "-".to_owned()
                        } else {
                            s.tools.len().to_string()
                        },
                        note.join(", "),
                    ]
                })
                .collect();
            blocks.push(Block::Table {
                header: vec!["  SERVER", "SCOPE", "TOKENS", "TOOLS", "NOTE"],
                rows,
            });
            if let Some(fallback) = &c.fallback {
                blocks.push(Block::Line(
                    paint.paint(Style::Dim, &format!("  {fallback}")),
                ));
            }
            if !c.costliest.is_empty() {
                blocks.push(Block::Line(format!(
                    "  costliest: {}",
                    c.costliest
                        .iter()
                        .map(|t| format!("{}/{} {}", t.server, t.tool, thousands(t.tokens)))
                        .collect::<Vec<_>>()
                        .join(" · ")
                )));
            }
        }
        blocks.push(Block::Note(format!("tokens: {TOKEN_METHOD}, per tool")));
        blocks
    }

    fn status(&self) -> ExitStatus {
        let Some(cuts) = &self.cuts else {
            return ExitStatus::Success;
        };
        let failed = cuts
            .iter()
            .flat_map(|c| &c.done)
            .any(|d| d.action == "failed" || d.action == "unsupported");
        if failed {
            ExitStatus::Error
        } else if cuts.iter().any(|c| c.short.is_some()) {
            // Not reachable (kept, read-only, not measured): nothing was written.
            ExitStatus::Problems
        } else {
            ExitStatus::Success
        }
    }
}

fn cut_blocks(cuts: &[Cut], applied: bool, paint: Paint, mut blocks: Vec<Block>) -> Vec<Block> {
    for done in cuts.iter().flat_map(|c| &c.done) {
        if let Some(diff) = &done.diff {
            blocks.push(Block::Raw(paint.diff(diff)));
        }
    }
    for c in cuts {
        let before = c.before.map_or_else(|| "?".to_owned(), thousands);
        let line = if c.changes.is_empty() && c.short.is_none() {
            paint.paint(
                Style::Dim,
                &format!(
                    "{}: {before} tokens, under {}: nothing to cut",
                    c.client,
                    thousands(c.max)
                ),
            )
        } else {
            let after = c.after.map_or_else(|| "?".to_owned(), thousands);
            paint.paint(
                Style::Bold,
                &format!(
                    "{}: {before} → {after} tokens (max {})",
                    c.client,
                    thousands(c.max)
                ),
            )
        };
        blocks.push(Block::Line(line));
        for change in &c.changes {
            for line in change.lines() {
                blocks.push(Block::Line(format!("  {line}")));
            }
        }
        for done in &c.done {
            if let Some(error) = &done.error {
                let style = if done.action == "failed" {
                    Style::Fail
                } else {
                    Style::Dim
                };
                blocks.push(Block::Line(paint.paint(
                    style,
                    &format!("  {} {}: {error}", done.action, done.server),
                )));
            }
        }
        if let Some(short) = &c.short {
            blocks.push(Block::Line(paint.paint(Style::Fail, &format!("  {short}"))));
        }
    }
    let any = cuts.iter().any(|c| !c.changes.is_empty());
    if any && !applied {
        blocks.push(Block::Note(
            "dry run: nothing was written (`--apply` writes it; one `mcpctl undo` takes it back)"
                .to_owned(),
        ));
    }
    blocks
}
