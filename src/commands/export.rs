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
    let mut secrets = Vec::new();
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
        if let Some(where_) = literal_secret(&spec.entry.transport) {
            secrets.push(format!("`{name}` ({where_})"));
            continue;
        }
        let entry = crate::manifest::plan::placeholders(ctx, &spec.entry)?;
        // Spelled as written for this OS (Windows `cmd /c`): the policy matches the
        // command line the client starts. Its env and headers do not matter here.
        let rendered =
            crate::entry::render::for_platform(&entry, ctx.platform.os, &client.fields, false);
        servers.push((name.clone(), rendered));
    }
    if !secrets.is_empty() {
        return Err(UserError::new(format!(
            "`{}` holds a literal secret in {}: an allow-list holds the command line or URL as written, so it would publish the secret; nothing was exported",
            crate::output::file(&manifest.path),
            secrets.join(", ")
        ))
        .hint("pass the secret in the server's env instead (`env = { API_KEY = \"${API_KEY}\" }`, or `mcpctl secret set` and `--secret`), or leave the server out of this export with a profile (`--profile`)")
        .into());
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

/// Where `transport` holds a literal secret an allow-list would carry (its arguments:
/// the flags naming them; its URL: the query parameters, or its userinfo), if it does.
/// Its env and headers are not part of an allow-list.
fn literal_secret(transport: &crate::entry::Transport) -> Option<String> {
    use crate::secrets::{arg_secrets, url_secrets};
    let url_parts = |url: &str| -> Vec<String> {
        url_secrets(url)
            .into_iter()
            .map(|s| match s.param {
                Some(param) => format!("`{param}=` in the URL"),
                None => "the URL's `user:password@`".to_owned(),
            })
            .collect()
    };
    let parts: Vec<String> = match transport {
        crate::entry::Transport::Stdio { args, .. } => {
            let mut parts: Vec<String> = arg_secrets(args)
                .into_iter()
                .map(|s| match s.written {
                    Some(flag) => format!("the argument of `{flag}`"),
                    None => format!("argument {}", s.index + 1),
                })
                .collect();
            parts.extend(
                args.iter()
                    .filter(|a| a.contains("://"))
                    .flat_map(|a| url_parts(a)),
            );
            parts
        }
        crate::entry::Transport::Remote { url, .. } => url_parts(url),
    };
    let mut parts = parts;
    parts.dedup();
    (!parts.is_empty()).then(|| parts.join(", "))
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
