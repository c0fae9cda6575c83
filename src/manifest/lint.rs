//! `mcpctl check mcpctl.toml`: what a manifest would meet on the machines it is applied
//! to, judged without writing anything: each server against the administrators' policies
//! of the clients it targets (MCP210).

use std::path::Path;

use crate::check::Finding;
use crate::clients::Client;
use crate::error::UserError;
use crate::session::Context;

/// An mcpctl manifest: `mcpctl.toml` by name, or another TOML file that reads as one.
/// (A path a client's file spells, such as `.codex/config.toml`, is that client's.)
pub fn is_manifest(ctx: &Context, path: &Path) -> bool {
    if !path.is_file()
        || !crate::check::Tails::new(&ctx.table)
            .clients(path)
            .is_empty()
    {
        return false;
    }
    if path.file_name().is_some_and(|n| n == super::FILE_NAME) {
        return true;
    }
    path.extension().is_some_and(|e| e == "toml")
        && crate::fs::read_source(path)
            .is_ok_and(|source| super::Manifest::parse(path, &source.text, &ctx.table).is_ok())
}

/// A manifest's servers against the administrators' policies of the clients it targets
/// (its `clients`, or the detected ones; narrowed per server): MCP210 at the server's
/// `[servers.NAME]` line for each client whose policy keeps the entry `apply` would write
/// out. A registry server is judged once resolved, by `apply`.
pub fn policy_findings(ctx: &Context, path: &Path) -> anyhow::Result<Vec<Finding>> {
    let shown = path
        .strip_prefix(&ctx.platform.cwd)
        .unwrap_or(path)
        .display()
        .to_string();
    let source = crate::fs::read_source(path).map_err(|e| UserError::new(e.to_string()))?;
    let manifest = super::Manifest::parse(path, &source.text, &ctx.table)
        .map_err(|e| UserError::new(e.to_string()).hint("fix the manifest"))?;
    let targeted: Vec<&Client> = match &manifest.clients {
        super::ClientChoice::Ids(ids) => ids.iter().filter_map(|id| ctx.table.get(id)).collect(),
        super::ClientChoice::Detected => ctx
            .table
            .all()
            .iter()
            .filter(|c| c.detected(&ctx.platform))
            .collect(),
    };
    let mut findings = Vec::new();
    let Some(rule) = crate::check::rule("MCP210") else {
        return Ok(findings);
    };
    for client in targeted.iter().copied() {
        if client.policy.is_empty() {
            continue;
        }
        let policies = crate::policy::read::load(client, &ctx.platform);
        for (name, spec) in &manifest.servers {
            if spec.registry.is_some()
                || spec
                    .clients
                    .as_ref()
                    .is_some_and(|ids| !ids.contains(&client.id))
            {
                continue;
            }
            let (entry, _) = crate::entry::render::for_client_inputs(&spec.entry, client);
            let Ok((rendered, _, _)) =
                crate::entry::render::render(ctx.platform.os, client, &entry, false)
            else {
                continue;
            };
            if let Some(block) = policies.blocks(name, &rendered) {
                findings.push(Finding {
                    path: shown.clone(),
                    line: spec.line,
                    column: 1,
                    severity: rule.severity,
                    code: rule.code,
                    message: format!("`{name}`: {}", block.reason(&client.name)),
                    server: Some(name.clone()),
                    fixable: false,
                });
            }
        }
    }
    Ok(findings)
}
