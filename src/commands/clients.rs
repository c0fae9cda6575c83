//! `mcpctl clients`: the client table as it resolves on this machine.

use std::path::PathBuf;

use serde::Serialize;

use crate::cli::ClientsArgs;
use crate::clients::{Date, Verified};
use crate::error::ExitStatus;
use crate::output::{Block, Paint, Printer, Report, Style};
use crate::platform::Os;
use crate::session::Context;
use crate::session::inventory::{collect_all, read_document};
use crate::toggle::Probe;

#[derive(Debug, Serialize)]
struct ClientRow {
    id: String,
    name: String,
    detected: bool,
    #[serde(serialize_with = "crate::output::option_path_json")]
    path: Option<PathBuf>,
    exists: bool,
    format: &'static str,
    /// The day the row was checked against the client (`"2026-12-01"`); `false`: its path
    /// or shape is not confirmed by the client itself; `true`: confirmed, undated (a user
    /// table's row).
    verified: serde_json::Value,
    /// The client version or docs page that check was made against.
    verified_against: Option<String>,
    /// Checked more than 90 days ago: the client may have moved on.
    stale: bool,
    /// Where the row's facts come from.
    source: String,
    /// The entries `list -c ID` shows (every scope here, parked ones included); `null`
    /// when the user file is unreadable, or missing with nothing elsewhere.
    servers: Option<usize>,
    /// The tool that writes the file (`home-manager`): read, never written by mcpctl.
    #[serde(skip_serializing_if = "Option::is_none")]
    owned_by: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// Every row (JSON always has them all), and what the table shows.
struct ClientsReport {
    rows: Vec<ClientRow>,
    all: bool,
    os: Os,
}

pub fn run(args: ClientsArgs, ctx: &Context, printer: &mut Printer) -> anyhow::Result<ExitStatus> {
    let ClientsArgs { known, all: old } = args;
    if old {
        printer.block(&Block::Note(
            "`clients --known` is `clients --known` now: `--all` elsewhere means every detected client".to_owned(),
        ));
    }
    let all = known || old;
    let today = Date::today();
    let mut rows = Vec::new();
    // Parked entries are listed by `list`, so they count here too.
    let parked = Probe::new(ctx).ok();
    for client in ctx.table.all() {
        let detected = client.detected(&ctx.platform);
        let path = client.user_path(&ctx.platform).ok().flatten();
        let exists = path.as_ref().is_some_and(|p| crate::fs::exists(p));
        let (servers, error) = match (&path, exists) {
            (Some(p), true) => match read_document(ctx, client, p).and_then(|d| {
                d.doc
                    .servers(client.servers_at())
                    .map_err(|e| crate::session::inventory::shape_error(p, &e).into())
            }) {
                Ok(_) => (Some(listed(ctx, client, parked.as_ref())), None),
                Err(e) => (None, Some(e.to_string())),
            },
            // No user file: the project's may still have entries.
            _ if detected => {
                let n = listed(ctx, client, parked.as_ref());
                ((n > 0).then_some(n), None)
            }
            _ => (None, None),
        };
        rows.push(ClientRow {
            id: client.id.clone(),
            name: client.name.clone(),
            detected,
            path,
            exists,
            format: client.format.as_str(),
            verified: match client.verified {
                Verified::On(date) => date.to_string().into(),
                other => other.confirmed().into(),
            },
            verified_against: client.verified_against.clone(),
            stale: client.verified.stale(today),
            source: client.source.clone(),
            servers,
            owned_by: client.owned_by.clone(),
            error,
        });
    }
    printer.emit(&ClientsReport {
        rows,
        all,
        os: ctx.platform.os,
    })
}

/// The entries `list -c ID` shows for `client`: every scope here (user, project, local),
/// read-only sources and parked entries included, so the two commands agree.
fn listed(ctx: &Context, client: &crate::clients::Client, parked: Option<&Probe<'_>>) -> usize {
    let found = collect_all(ctx, &[client], None).found.len();
    let parked = parked.map_or(0, |p| {
        p.parked().iter().filter(|e| e.client == client.id).count()
    });
    found + parked
}

impl Report for ClientsReport {
    fn json(&self) -> serde_json::Result<serde_json::Value> {
        serde_json::to_value(&self.rows)
    }

    fn human(&self, paint: Paint) -> Vec<Block> {
        let shown: Vec<&ClientRow> = self
            .rows
            .iter()
            .filter(|r| self.all || r.detected)
            .collect();
        if shown.is_empty() {
            return vec![Block::Note(
                "no clients detected; `mcpctl clients --known` lists every client mcpctl knows"
                    .to_owned(),
            )];
        }
        let rows = shown
            .iter()
            .map(|r| {
                vec![
                    r.id.clone(),
                    if r.verified == false {
                        format!("{} {}", r.name, paint.paint(Style::Warn, "(unverified)"))
                    } else if r.stale {
                        format!("{} {}", r.name, paint.paint(Style::Warn, "(stale)"))
                    } else {
                        r.name.clone()
                    },
                    if r.detected {
                        paint.paint(Style::Ok, "yes")
                    } else {
                        paint.paint(Style::Dim, "no")
                    },
                    match (&r.servers, &r.error) {
                        (Some(n), _) => n.to_string(),
                        (None, Some(_)) => paint.paint(Style::Fail, "unreadable"),
                        (None, None) => paint.paint(Style::Dim, "-"),
                    },
                    match (&r.verified, r.stale) {
                        (serde_json::Value::String(day), true) => paint.paint(Style::Warn, day),
                        (serde_json::Value::String(day), false) => day.clone(),
                        _ => paint.paint(Style::Dim, "-"),
                    },
                    match &r.path {
                        Some(p) if r.exists => paint.path(p),
                        Some(p) => paint.paint(Style::Dim, &format!("{} (missing)", paint.path(p))),
                        None => paint.paint(Style::Dim, &format!("(not on {})", self.os.as_str())),
                    },
                ]
            })
            .collect();
        let mut blocks = vec![Block::Table {
            header: vec![
                "CLIENT", "NAME", "DETECTED", "SERVERS", "VERIFIED", "CONFIG",
            ],
            rows,
        }];
        if shown.iter().any(|r| r.verified == false) {
            blocks.push(Block::Note(
                "(unverified): the config path or shape comes from a secondary source; `--json` names it (`source`)"
                    .to_owned(),
            ));
        }
        if shown.iter().any(|r| r.stale) {
            blocks.push(Block::Note(format!(
                "(stale): checked more than {} days ago; the client may have moved on (`--json`: `verified`, `verified_against`)",
                crate::clients::verified::STALE_AFTER_DAYS
            )));
        }
        if !self.all {
            blocks.push(Block::Note(
                "showing detected clients (the ones `--all` writes to); `--known` shows every client mcpctl knows".to_owned(),
            ));
        }
        blocks
    }

    fn status(&self) -> ExitStatus {
        ExitStatus::Success
    }
}
