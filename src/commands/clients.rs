//! `mcpctl clients`: the client table as it resolves on this machine.

use serde::Serialize;

use crate::cli::ClientsArgs;
use crate::commands::Context;
use crate::commands::inventory::{display_path, read_document};
use crate::error::ExitStatus;
use crate::output::{Printer, Style};

#[derive(Debug, Serialize)]
struct ClientRow {
    id: String,
    name: String,
    detected: bool,
    path: Option<String>,
    exists: bool,
    format: &'static str,
    /// Servers in the user file; `null` when the file is missing or unreadable.
    servers: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

pub fn run(args: ClientsArgs, ctx: &Context, printer: &mut Printer) -> anyhow::Result<ExitStatus> {
    let ClientsArgs { all } = args;
    let mut rows = Vec::new();
    for client in ctx.table.all() {
        let detected = client.detected(&ctx.platform);
        if !all && !detected && !printer.json {
            continue;
        }
        let path = client.user_path(&ctx.platform).ok().flatten();
        let exists = path.as_ref().is_some_and(|p| crate::fs::exists(p));
        let (servers, error) = match (&path, exists) {
            (Some(p), true) => match read_document(ctx, client, p)
                .and_then(|d| Ok(d.doc.servers(&client.servers_key)?))
            {
                Ok(entries) => (Some(entries.len()), None),
                Err(e) => (None, Some(e.to_string())),
            },
            _ => (None, None),
        };
        rows.push(ClientRow {
            id: client.id.clone(),
            name: client.name.clone(),
            detected,
            path: path.map(|p| display_path(ctx, &p)),
            exists,
            format: client.format.as_str(),
            servers,
            error,
        });
    }
    if printer.json {
        printer.json_value(&rows)?;
        return Ok(ExitStatus::Success);
    }
    if rows.is_empty() {
        printer.note("no clients detected; `mcpctl clients --all` lists every known client");
        return Ok(ExitStatus::Success);
    }
    let table: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.id.clone(),
                r.name.clone(),
                if r.detected {
                    printer.paint(Style::Ok, "yes")
                } else {
                    printer.paint(Style::Dim, "no")
                },
                match (&r.servers, &r.error) {
                    (Some(n), _) => n.to_string(),
                    (None, Some(_)) => printer.paint(Style::Fail, "unreadable"),
                    (None, None) => printer.paint(Style::Dim, "-"),
                },
                match &r.path {
                    Some(p) if r.exists => p.clone(),
                    Some(p) => printer.paint(Style::Dim, &format!("{p} (missing)")),
                    None => printer.paint(
                        Style::Dim,
                        &format!("(not on {})", ctx.platform.os.as_str()),
                    ),
                },
            ]
        })
        .collect();
    printer.table(&["CLIENT", "NAME", "DETECTED", "SERVERS", "CONFIG"], &table);
    if !all {
        printer.note("showing detected clients; `--all` shows every known client");
    }
    Ok(ExitStatus::Success)
}
