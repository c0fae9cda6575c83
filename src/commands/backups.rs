//! `mcpctl backups`: the previous versions mcpctl kept of every client file it wrote,
//! newest first, with the command that replaced each (from the journal). Never writes a
//! client file; `--purge-secrets` deletes the backups that still hold a literal secret
//! (the secret rule of `check`, MCP401), which moving secrets into the store leaves;
//! `--scrub-secrets` keeps them instead with each value the store holds replaced by the
//! stored secret's name (`session::scrub`), so `undo` and `restore` keep working.
//! The listing marks each version that holds a plaintext secret.

use std::collections::HashMap;
use std::path::PathBuf;

use serde::Serialize;

use crate::cli::BackupsArgs;
use crate::clients::{Client, Scope};
use crate::error::ExitStatus;
use crate::output::{Block, Paint, Printer, Report};
use crate::session::{Context, targets};

/// One kept version (`backups --json` item).
#[derive(Debug, Serialize)]
pub struct BackupRow {
    pub client: String,
    pub scope: Scope,
    /// The client file (absolute).
    pub path: PathBuf,
    /// The saved bytes (absolute).
    pub backup: PathBuf,
    /// 1 is the newest: `mcpctl restore --backup N`.
    pub number: usize,
    /// When it was replaced (RFC 3339, UTC).
    pub time: String,
    pub size: u64,
    /// The command that replaced it, when the journal still knows.
    pub command: Option<String>,
    /// `server: env GITHUB_TOKEN`, per literal secret it holds in plaintext (never the
    /// value); empty when it holds none.
    pub secrets: Vec<String>,
}

pub fn run(args: BackupsArgs, ctx: &Context, printer: &mut Printer) -> anyhow::Result<ExitStatus> {
    let BackupsArgs {
        clients,
        purge_secrets,
        scrub_secrets,
        dry_run,
    } = args;
    let clients: Vec<&Client> = if clients.is_empty() {
        ctx.table.all().iter().collect()
    } else {
        targets::by_ids(ctx, &clients)?
    };
    let rows = rows(ctx, &clients);
    if purge_secrets {
        return purge(rows, dry_run, printer);
    }
    if scrub_secrets {
        return scrub(ctx, &clients, &rows, dry_run, printer);
    }
    printer.emit(&BackupsReport { rows })
}

/// The kept versions.
struct BackupsReport {
    rows: Vec<BackupRow>,
}

impl Report for BackupsReport {
    fn json(&self) -> serde_json::Result<serde_json::Value> {
        serde_json::to_value(&self.rows)
    }

    fn human(&self, paint: Paint) -> Vec<Block> {
        if self.rows.is_empty() {
            return vec![Block::Note(
                "no backups yet: mcpctl keeps the previous bytes of every file it writes"
                    .to_owned(),
            )];
        }
        let rows = self
            .rows
            .iter()
            .map(|r| {
                vec![
                    r.client.clone(),
                    r.scope.as_str().to_owned(),
                    r.number.to_string(),
                    r.time.clone(),
                    r.size.to_string(),
                    r.command.clone().unwrap_or_else(|| "-".to_owned()),
                    if r.secrets.is_empty() {
                        "-".to_owned()
                    } else {
                        "plaintext secret".to_owned()
                    },
                    paint.path(&r.path),
                ]
            })
            .collect();
        let mut blocks = vec![
            Block::Table {
                header: vec![
                    "CLIENT",
                    "SCOPE",
                    "N",
                    "TIME",
                    "BYTES",
                    "REPLACED BY",
                    "HOLDS",
                    "FILE",
                ],
                rows,
            },
            Block::Note(
                "each backup is the file as it was before the command in REPLACED BY ran; put one back with `mcpctl restore -c CLIENT --backup N`"
                    .to_owned(),
            ),
        ];
        let holding = self.rows.iter().filter(|r| !r.secrets.is_empty()).count();
        if holding > 0 {
            blocks.push(Block::Note(format!(
                "{holding} backup{} hold{} a plaintext secret: `mcpctl backups --scrub-secrets` replaces the values the secret store keeps by their names (undo keeps working), `--purge-secrets` deletes every backup holding one",
                if holding == 1 { "" } else { "s" },
                if holding == 1 { "s" } else { "" },
            )));
        }
        blocks
    }

    fn status(&self) -> ExitStatus {
        ExitStatus::Success
    }
}

/// Every backup of these clients' files (user and project scope), newest first per file.
pub fn rows(ctx: &Context, clients: &[&Client]) -> Vec<BackupRow> {
    let Some(backups) = &ctx.backups else {
        return Vec::new();
    };
    let commands: HashMap<PathBuf, String> = ctx
        .state
        .journal()
        .into_iter()
        .flat_map(|entry| {
            let command = entry.command;
            entry
                .files
                .into_iter()
                .filter_map(move |f| Some((f.backup?, command.clone())))
        })
        .collect();
    let mut seen: Vec<PathBuf> = Vec::new();
    let mut rows = Vec::new();
    for client in clients {
        for scope in [Scope::User, Scope::Project] {
            let Ok(Some(location)) = client.location(scope, &ctx.platform, &ctx.project) else {
                continue;
            };
            let identity = crate::fs::identity(&location.path);
            if seen.contains(&identity) {
                continue;
            }
            seen.push(identity);
            for (i, backup) in crate::fs::backups_of(backups, &location.path)
                .into_iter()
                .enumerate()
            {
                let secrets = backup
                    .verified_bytes()
                    .map(|bytes| literal_secrets(ctx, client, scope, &bytes))
                    .unwrap_or_default();
                rows.push(BackupRow {
                    secrets,
                    client: client.id.clone(),
                    scope,
                    path: location.path.clone(),
                    command: commands.get(&backup.path).cloned(),
                    number: i + 1,
                    time: crate::state::rfc3339(backup.time),
                    size: backup.size,
                    backup: backup.path,
                });
            }
        }
    }
    rows
}

/// The rows of the `--purge-secrets` and `--scrub-secrets` tables.
fn secret_rows(rows: &[PurgeRow], paint: Paint) -> Vec<Vec<String>> {
    rows.iter()
        .map(|r| {
            vec![
                r.action.to_owned(),
                r.client.clone(),
                r.secrets.join(", "),
                paint.path(&r.path),
                r.backup.display().to_string(),
            ]
        })
        .collect()
}

/// One backup `--purge-secrets` deletes (`backups --purge-secrets --json` item).
#[derive(Debug, Serialize)]
pub struct PurgeRow {
    pub client: String,
    /// The client file (absolute).
    pub path: PathBuf,
    /// The backup (absolute).
    pub backup: PathBuf,
    /// `server: env GITHUB_TOKEN`, per literal secret it holds (never the value).
    pub secrets: Vec<String>,
    /// `deleted`, or `would delete` with --dry-run.
    pub action: &'static str,
}

struct PurgeReport {
    rows: Vec<PurgeRow>,
    dry_run: bool,
}

impl Report for PurgeReport {
    fn json(&self) -> serde_json::Result<serde_json::Value> {
        serde_json::to_value(&self.rows)
    }

    fn human(&self, paint: Paint) -> Vec<Block> {
        if self.rows.is_empty() {
            return vec![Block::Note(
                "no backup holds a literal secret: nothing to delete".to_owned(),
            )];
        }
        let rows = secret_rows(&self.rows, paint);
        vec![
            Block::Table {
                header: vec!["ACTION", "CLIENT", "HOLDS", "FILE", "BACKUP"],
                rows,
            },
            Block::Note(if self.dry_run {
                "dry run: nothing was deleted; run without --dry-run to delete them".to_owned()
            } else {
                "`undo` and `restore` can no longer put those versions back; the client files themselves are unchanged".to_owned()
            }),
        ]
    }

    fn status(&self) -> ExitStatus {
        ExitStatus::Success
    }
}

/// `--purge-secrets`: every backup of `rows` whose entries hold a literal secret, deleted
/// (listed with `dry_run`). A backup that does not parse is left alone.
fn purge(rows: Vec<BackupRow>, dry_run: bool, printer: &mut Printer) -> anyhow::Result<ExitStatus> {
    let mut purged = Vec::new();
    for row in rows {
        let secrets = row.secrets;
        if secrets.is_empty() {
            continue;
        }
        if !dry_run {
            std::fs::remove_file(&row.backup).map_err(|e| {
                crate::error::UserError::new(format!(
                    "cannot delete the backup `{}`: {e}",
                    row.backup.display()
                ))
                .hint("check the permissions of mcpctl's state directory (MCPCTL_STATE_DIR)")
            })?;
        }
        purged.push(PurgeRow {
            client: row.client,
            path: row.path,
            backup: row.backup,
            secrets,
            action: if dry_run { "would delete" } else { "deleted" },
        });
    }
    printer.emit(&PurgeReport {
        rows: purged,
        dry_run,
    })
}

/// `server: env FIELD` for each literal secret in the entries of a client file's `bytes`.
fn literal_secrets(ctx: &Context, client: &Client, scope: Scope, bytes: &[u8]) -> Vec<String> {
    let Ok(text) = String::from_utf8(bytes.to_vec()) else {
        return Vec::new();
    };
    let text = text.trim_start_matches('\u{feff}').to_owned();
    let Ok(doc) = client.format.parse(text) else {
        return Vec::new();
    };
    let target = crate::check::Target {
        client,
        scope,
        os: ctx.platform.os,
        policy: &[],
    };
    let Ok(entries) = crate::check::fix::literals_to_adopt(doc.as_ref(), &target) else {
        return Vec::new();
    };
    entries
        .iter()
        .flat_map(|(_, name, entry)| {
            crate::secret_store::adopt::literals(&entry.transport)
                .into_iter()
                .map(move |l| format!("{name}: {} {}", l.place.label(), l.field))
        })
        .collect()
}

/// One backup `--scrub-secrets` scrubs (`backups --scrub-secrets --json` item): the
/// fields of a purge row; `secrets` says `server: env GITHUB_TOKEN → secret NAME` per value
/// replaced, `action` is `scrubbed`, `would scrub`, or `left` (it holds a stored value where
/// no entry rewrite reaches: `--purge-secrets` deletes it).
pub type ScrubRow = PurgeRow;

struct ScrubReport {
    rows: Vec<ScrubRow>,
    dry_run: bool,
}

impl Report for ScrubReport {
    fn json(&self) -> serde_json::Result<serde_json::Value> {
        serde_json::to_value(&self.rows)
    }

    fn human(&self, paint: Paint) -> Vec<Block> {
        if self.rows.is_empty() {
            return vec![Block::Note(
                "no backup holds the value of a secret the store keeps: nothing to scrub"
                    .to_owned(),
            )];
        }
        let rows = secret_rows(&self.rows, paint);
        vec![
            Block::Table {
                header: vec!["ACTION", "CLIENT", "REPLACED", "FILE", "BACKUP"],
                rows,
            },
            Block::Note(if self.dry_run {
                "dry run: nothing was changed; run without --dry-run to scrub them".to_owned()
            } else {
                "the scrubbed backups name the stored secrets as the files do; `undo` and `restore` put them back so (undoing the move of a secret leaves its entries naming the stored secret)".to_owned()
            }),
        ]
    }

    fn status(&self) -> ExitStatus {
        ExitStatus::Success
    }
}

/// `--scrub-secrets`: every backup of `rows` that holds the value of a secret the OS
/// keychain keeps, kept again with that value replaced by the secret's name
/// (`session::scrub`; listed with `dry_run`). Secrets a command provides are not asked.
fn scrub(
    ctx: &Context,
    clients: &[&Client],
    rows: &[BackupRow],
    dry_run: bool,
    printer: &mut Printer,
) -> anyhow::Result<ExitStatus> {
    let mut files: Vec<(&Client, Scope, PathBuf)> = Vec::new();
    for row in rows.iter().filter(|r| !r.secrets.is_empty()) {
        let Some(client) = clients.iter().find(|c| c.id == row.client) else {
            continue;
        };
        if !files.iter().any(|(_, _, p)| *p == row.path) {
            files.push((client, row.scope, row.path.clone()));
        }
    }
    let mut values = Vec::new();
    if !files.is_empty() {
        let store = ctx.secret_store();
        for (name, record) in store.index()?.secrets {
            if record.backend == crate::secret_store::Backend::Keychain {
                values.push((name.clone(), store.resolve(&name)?));
            }
        }
    }
    let program = crate::session::write::program(ctx)?;
    let found = crate::session::scrub::find(ctx, &files, &values, &program);
    if !dry_run {
        crate::session::scrub::carry_out(ctx, &found.scrubs)?;
    }
    let mut out: Vec<ScrubRow> = found
        .scrubs
        .iter()
        .map(|s| ScrubRow {
            client: s.client.id.clone(),
            path: s.path.clone(),
            backup: s.backup.path.clone(),
            secrets: s.moved.clone(),
            action: if dry_run { "would scrub" } else { "scrubbed" },
        })
        .collect();
    for backup in found.left {
        if let Some(row) = rows.iter().find(|r| r.backup == backup) {
            out.push(ScrubRow {
                client: row.client.clone(),
                path: row.path.clone(),
                backup,
                secrets: row.secrets.clone(),
                action: "left",
            });
        }
    }
    printer.emit(&ScrubReport { rows: out, dry_run })
}
