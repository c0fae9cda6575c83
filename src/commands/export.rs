//! `mcpctl export --format claude-managed|copilot-managed|codex-requirements`: the
//! manifest as the vendor's policy file (src/policy/export.rs), each server rendered as
//! the vendor's client would have it written (`--platform` decides Windows wrapping), so
//! an administrator deploys through MDM exactly what the team applies. Prints the
//! document; writes nothing.

use crate::cli::ExportArgs;
use crate::error::{ExitStatus, UserError};
use crate::output::{Block, Paint, Printer, Report};
use crate::policy::PolicyKind;
use crate::session::Context;

/// The client whose policy file each format is.
fn client_id(kind: PolicyKind) -> &'static str {
    match kind {
        PolicyKind::ClaudeManaged => "claude-code",
        PolicyKind::CopilotManaged => "copilot-cli",
        PolicyKind::CodexRequirements => "codex",
    }
}

pub fn run(args: ExportArgs, ctx: &Context, printer: &mut Printer) -> anyhow::Result<ExitStatus> {
    let ExportArgs {
        manifest: margs,
        format,
    } = args;
    let manifest = crate::manifest::plan::load(ctx, &margs)?;
    printer.note(&crate::manifest::describe(
        &manifest.path,
        margs.manifest.is_some(),
        &ctx.project,
    ));
    let client = ctx.table.get(client_id(format)).ok_or_else(|| {
        UserError::new(format!(
            "no `{}` row in the client table",
            client_id(format)
        ))
    })?;
    let mut servers = Vec::new();
    let mut notes = Vec::new();
    for (name, spec) in &manifest.servers {
        if !manifest.switched_on(name, margs.profile.as_deref()) {
            continue;
        }
        if spec
            .clients
            .as_ref()
            .is_some_and(|ids| !ids.iter().any(|id| id == &client.id))
        {
            continue;
        }
        if spec.registry.is_some() {
            notes.push(format!(
                "`{name}` comes from the MCP Registry and is resolved when applied: left out; write its command or URL in the manifest to allow it"
            ));
            continue;
        }
        let entry = crate::manifest::plan::placeholders(ctx, &spec.entry)?;
        // Spelled as written for this OS (Windows `cmd /c`): the policy matches the
        // command line the client starts. Its env and headers do not matter here.
        let rendered =
            crate::entry::render::for_platform(&entry, ctx.platform.os, &client.fields, false);
        servers.push((name.clone(), rendered));
    }
    let (document, more) = crate::policy::export::document(format, &servers);
    notes.extend(more);
    printer.emit(&ExportReport {
        format,
        client: client.id.clone(),
        document,
        notes,
        servers: servers.into_iter().map(|(n, _)| n).collect(),
    })
}

struct ExportReport {
    format: PolicyKind,
    client: String,
    document: String,
    notes: Vec<String>,
    servers: Vec<String>,
}

impl Report for ExportReport {
    fn json(&self) -> serde_json::Result<serde_json::Value> {
        Ok(serde_json::json!({
            "format": self.format,
            "client": self.client,
            "servers": self.servers,
            "document": self.document,
            "notes": self.notes,
        }))
    }

    fn human(&self, _paint: Paint) -> Vec<Block> {
        let mut blocks = vec![Block::Raw(self.document.clone())];
        blocks.extend(self.notes.iter().map(|n| Block::Note(n.clone())));
        blocks
    }

    fn status(&self) -> ExitStatus {
        ExitStatus::Success
    }
}
