//! `mcpctl profiles`: the manifest's `[profiles.NAME]`, their servers, and what each
//! profile's tool definitions cost every client it targets, from the estimates `doctor`
//! and `tools` last measured (state `tokens.json`; nothing is started here). A server
//! never measured makes its client's total "unknown", never a silent undercount.

use serde::Serialize;

use crate::cli::ProfilesArgs;
use crate::commands::Context;
use crate::commands::plan::{self, FilePlan};
use crate::error::ExitStatus;
use crate::manifest::Manifest;
use crate::output::{Block, Paint, Printer, Report, Style};
use crate::state::tokens::Tokens;

/// One profile (`profiles --json` item).
#[derive(Debug, Serialize)]
struct ProfileRow {
    name: String,
    servers: Vec<String>,
    /// The manifest's `profile = "NAME"` (what a plain `apply` uses).
    active: bool,
    clients: Vec<ClientCost>,
}

/// What one profile's servers cost one client.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct ClientCost {
    pub client: String,
    /// Estimated tokens of the tool definitions; `null` when any server is unmeasured.
    pub tokens: Option<usize>,
    /// The profile's servers in this client never measured by `doctor` or `tools`.
    pub unknown: Vec<String>,
}

struct ProfilesReport {
    rows: Vec<ProfileRow>,
    manifest: String,
}

pub fn run(args: ProfilesArgs, ctx: &Context, printer: &mut Printer) -> anyhow::Result<ExitStatus> {
    let manifest = plan::load(ctx, &args.manifest)?;
    let plans = plan::plan_all(ctx, &manifest, None, false)?;
    let measured = ctx.state.tokens();
    let rows = manifest
        .profiles
        .iter()
        .filter(|(name, _)| args.manifest.profile.as_ref().is_none_or(|p| p == *name))
        .map(|(name, servers)| ProfileRow {
            name: name.clone(),
            servers: servers.clone(),
            active: manifest.profile.as_ref() == Some(name),
            clients: costs(&plans, &measured, servers),
        })
        .collect();
    printer.emit(&ProfilesReport {
        rows,
        manifest: manifest.path.display().to_string(),
    })
}

/// Per targeted client, what `servers` cost it (clients that get none of them are left
/// out).
pub fn costs(plans: &[FilePlan<'_>], measured: &Tokens, servers: &[String]) -> Vec<ClientCost> {
    let mut out = Vec::new();
    for plan in plans {
        let mut cost = ClientCost {
            client: plan.client.id.clone(),
            tokens: Some(0),
            unknown: Vec::new(),
        };
        let mut any = false;
        // In the profile's order (the manifest's own order is not kept by the parser).
        for name in servers {
            let Some((_, entry)) = plan.rendered.iter().find(|(n, _)| n == name) else {
                continue;
            };
            any = true;
            match measured.get(entry) {
                Some(m) => cost.tokens = cost.tokens.map(|t| t + m.tokens),
                None => cost.unknown.push(name.clone()),
            }
        }
        if !cost.unknown.is_empty() {
            cost.tokens = None;
        }
        if any {
            out.push(cost);
        }
    }
    out
}

/// `≈ 1234 tokens`, or why it is unknown.
pub fn cost_text(cost: &ClientCost) -> String {
    match cost.tokens {
        Some(n) => format!("≈ {n} tokens"),
        None => format!(
            "unknown: {} not measured yet (`mcpctl doctor -c {}` measures it)",
            cost.unknown
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", "),
            cost.client
        ),
    }
}

/// The one-line summary `plan --profile NAME` prints.
pub fn plan_line(
    manifest: &Manifest,
    plans: &[FilePlan<'_>],
    ctx: &Context,
    profile: &str,
) -> Option<String> {
    let servers = manifest.profiles.get(profile)?;
    let costs = costs(plans, &ctx.state.tokens(), servers);
    if costs.is_empty() {
        return None;
    }
    Some(format!(
        "profile {profile}: {}",
        costs
            .iter()
            .map(|c| format!("{} {}", c.client, cost_text(c)))
            .collect::<Vec<_>>()
            .join("; ")
    ))
}

impl Report for ProfilesReport {
    fn json(&self) -> serde_json::Result<serde_json::Value> {
        serde_json::to_value(&self.rows)
    }

    fn human(&self, paint: Paint) -> Vec<Block> {
        if self.rows.is_empty() {
            return vec![Block::Note(format!(
                "`{}` has no `[profiles.NAME]`; add one with `servers = [...]`",
                self.manifest
            ))];
        }
        let mut blocks = Vec::new();
        for row in &self.rows {
            let mut head = paint.paint(Style::Bold, &row.name);
            if row.active {
                head.push_str(&paint.paint(Style::Dim, " (the manifest's `profile`)"));
            }
            head.push_str(&format!(": {}", row.servers.join(", ")));
            blocks.push(Block::Line(head));
            let width = row
                .clients
                .iter()
                .map(|c| c.client.len())
                .max()
                .unwrap_or(0);
            for cost in &row.clients {
                let text = cost_text(cost);
                let text = if cost.tokens.is_some() {
                    text
                } else {
                    paint.paint(Style::Dim, &text)
                };
                blocks.push(Block::Line(format!("  {:<width$}  {text}", cost.client)));
            }
        }
        blocks.push(Block::Note(format!(
            "tokens: {}; measured by `mcpctl doctor` and `mcpctl tools`",
            crate::handshake::tools::TOKEN_METHOD
        )));
        blocks
    }

    fn status(&self) -> ExitStatus {
        ExitStatus::Success
    }
}
