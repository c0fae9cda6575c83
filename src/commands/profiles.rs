//! `mcpctl profiles`: the manifest's `[profiles.NAME]`, their servers, and what each
//! profile's tool definitions cost every client it targets, from the estimates `doctor`
//! and `tools` last measured (state `tokens.json`; nothing is started here). A server
//! never measured makes its client's total "unknown", never a silent undercount.

use serde::Serialize;

use crate::cli::ProfilesArgs;
use crate::error::ExitStatus;
use crate::manifest::cost::{ClientCost, cost_text, costs};
use crate::manifest::plan;
use crate::output::{Block, Paint, Printer, Report, Style};
use crate::session::Context;

/// One profile (`profiles --json` item).
#[derive(Debug, Serialize)]
struct ProfileRow {
    name: String,
    servers: Vec<String>,
    /// The manifest's `profile = "NAME"` (what a plain `apply` uses).
    active: bool,
    clients: Vec<ClientCost>,
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
