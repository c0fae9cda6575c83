//! `mcpctl list`: every server of every detected (or named) client in one table, secrets
//! redacted, `cmd /c npx ...` shown as `npx ... (wrapped)`.

use std::path::PathBuf;

use indexmap::IndexMap;
use serde::Serialize;

use crate::cli::ListArgs;
use crate::clients::{Client, Location};
use crate::entry::launcher::{self, Via};
use crate::entry::{self, Dialect, Transport};
use crate::error::ExitStatus;
use crate::output::{Block, ErrorText, Paint, Printer, Report, Style, redact_map};
use crate::session::found::NotLoaded;
use crate::session::inventory::{Inventory, collect_all};
use crate::session::{Context, targets};
use crate::toggle::Power;
use crate::toggle::here::Verdict as HereRow;

#[derive(Debug, Serialize)]
struct ListRow {
    client: String,
    scope: &'static str,
    name: String,
    transport: Option<&'static str>,
    command: Option<String>,
    args: Vec<String>,
    url: Option<String>,
    env: IndexMap<String, String>,
    headers: IndexMap<String, String>,
    #[serde(serialize_with = "crate::output::path_json")]
    path: PathBuf,
    /// Switched off through the client's own switch (or parked).
    disabled: bool,
    /// Cut out of the file by `mcpctl disable` (the client has no switch); `enable` puts
    /// it back. The entry lives in mcpctl's state directory meanwhile.
    parked: bool,
    /// Runs inside the client (Goose's `builtin`/`platform` extensions): read-only.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    builtin: bool,
    /// The file spells the command as `cmd /c ...` (shown unwrapped in `command`/`args`).
    wrapped: bool,
    /// The entry is mcpctl's launcher (`mcpctl run`) or bridge: `command`/`args`/`url`
    /// are the server behind it.
    #[serde(skip_serializing_if = "Option::is_none")]
    via: Option<Via>,
    /// With `via`: the command line the file holds (mcpctl's launcher or bridge), as the
    /// client starts it.
    #[serde(skip_serializing_if = "Option::is_none")]
    written: Option<Written>,
    /// The stored secrets it gives the server (names only, never values).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    secrets: Vec<SecretRow>,
    /// The sign-in (`mcpctl login NAME`) whose token the bridge sends.
    #[serde(skip_serializing_if = "Option::is_none")]
    oauth: Option<String>,
    /// The entry comes from a read-only source (a plugin, an extension, an
    /// administrator's file): mcpctl never edits it.
    read_only: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    origin: Option<OriginRow>,
    /// Why the client does not load the entry although it is there.
    #[serde(skip_serializing_if = "Option::is_none")]
    not_loaded: Option<String>,
    /// The kind of `not_loaded` reason, for the table.
    #[serde(skip)]
    not_loaded_tag: Option<&'static str>,
    /// The administrator's policy rule that keeps it out: `{kind, file, verdict, rule}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    policy: Option<crate::policy::Block>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    /// `${VAR}`s it uses that are not set here, worded by `unset` (a warning: the
    /// list is still right).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    unset: Vec<String>,
    /// `list --here`: what the client does with the entry in this project, and why.
    #[serde(skip_serializing_if = "Option::is_none")]
    here: Option<HereRow>,
}

impl ListRow {
    /// The command or URL columns from the entry's transport, secrets redacted unless
    /// `show_secrets`.
    fn fill(&mut self, transport: &Transport, show_secrets: bool) {
        // mcpctl's launcher or bridge: the server behind it, and the secrets it names.
        let logical = launcher::logical(transport);
        let transport = match &logical {
            Some(l) => {
                self.transport = Some(l.transport.name().as_str());
                self.via = Some(l.via);
                if let Transport::Stdio { command, args, .. } = transport {
                    self.written = Some(Written {
                        command: command.clone(),
                        // Scrubbed by the printer, as `args` is.
                        args: args.clone(),
                    });
                }
                self.oauth = l.oauth.clone();
                self.secrets = l
                    .secrets
                    .iter()
                    .map(|s| SecretRow {
                        to: s.var.clone(),
                        secret: s.secret.clone(),
                    })
                    .collect();
                &l.transport
            }
            None => transport,
        };
        match transport {
            Transport::Stdio {
                command, args, env, ..
            } => {
                let (command, args, wrapped) = entry::logical(command, args);
                self.command = Some(command);
                self.args = args;
                self.wrapped = wrapped;
                self.env = redact_map(env, show_secrets);
            }
            Transport::Remote { url, headers, .. } => {
                self.url = Some(url.clone());
                self.headers = redact_map(headers, show_secrets);
            }
        }
    }
}

/// The command line an entry that runs through mcpctl holds in the file.
#[derive(Debug, Serialize)]
struct Written {
    command: String,
    args: Vec<String>,
}

/// One secret a launcher or bridge entry names: the variable or header it fills.
#[derive(Debug, Serialize)]
struct SecretRow {
    to: String,
    secret: String,
}

/// Where a read-only entry comes from.
#[derive(Debug, Serialize)]
struct OriginRow {
    /// `plugin`, `extension` or `managed`.
    kind: &'static str,
    /// The plugin id, the extension name, or the managed file's name.
    name: String,
    /// The file the entry is in (absolute, also without `--json`).
    file: String,
    /// Who chose that the client loads it: `user`, `project` or `admin`.
    chosen_by: crate::sources::Chooser,
    /// How to change it.
    manage: String,
}

pub fn run(args: ListArgs, ctx: &Context, printer: &mut Printer) -> anyhow::Result<ExitStatus> {
    let ListArgs {
        name,
        clients,
        scope,
        here,
        show_secrets,
    } = args;
    if show_secrets {
        printer.reveal_secrets();
    }
    let clients = if clients.is_empty() {
        targets::detected_to_read(ctx)
    } else {
        targets::by_ids(ctx, &clients)?
    };
    let Inventory {
        found,
        broken,
        exclusive,
    } = collect_all(ctx, &clients, name.as_deref());
    let probe = crate::toggle::Probe::new(ctx)?;
    let trust = crate::trust::TrustRule::new(&ctx.platform, &ctx.project, false);
    let mut rows: Vec<ListRow> = found
        .iter()
        .map(|f| {
            let mut row = ListRow {
                client: f.client.id.clone(),
                scope: f.scope.as_str(),
                name: f.name.clone(),
                transport: None,
                command: None,
                args: Vec::new(),
                url: None,
                env: IndexMap::new(),
                headers: IndexMap::new(),
                path: f.path.clone(),
                disabled: false,
                parked: false,
                builtin: entry::is_builtin(f.raw()),
                wrapped: false,
                via: None,
                written: None,
                secrets: Vec::new(),
                oauth: None,
                read_only: f.origin.is_some() || entry::is_builtin(f.raw()),
                origin: f.origin.as_ref().map(|o| OriginRow {
                    kind: o.kind,
                    name: o.name.clone(),
                    file: o.file.display().to_string(),
                    chosen_by: o.chosen_by,
                    manage: o.manage.clone(),
                }),
                not_loaded: f.not_loaded.as_ref().map(ToString::to_string),
                not_loaded_tag: f.not_loaded.as_ref().map(NotLoaded::tag),
                policy: f.not_loaded.as_ref().and_then(NotLoaded::policy).cloned(),
                error: None,
                unset: Vec::new(),
                here: None,
            };
            match f.entry() {
                Ok(e) => {
                    row.transport = Some(e.transport.name().as_str());
                    let location = Location {
                        scope: f.scope,
                        path: f.path.clone(),
                        key: f.key.clone(),
                        name_key: f.client.servers_name_key.clone(),
                    };
                    row.disabled = e.disabled()
                        || probe.power(f.client, &location, &f.name, f.raw()) == Power::Off;
                    row.fill(&e.transport, show_secrets);
                    row.unset = crate::unset::find_here(&ctx.platform, &e.transport)
                        .iter()
                        .map(|u| u.sentence(&f.name, Some(&crate::output::file(&f.path))))
                        .collect();
                }
                Err(_) if entry::is_override(f.client, f.raw()) => {
                    row.disabled = f.raw().get("enabled") == Some(&serde_json::Value::Bool(false))
                        || f.raw().get("disabled") == Some(&serde_json::Value::Bool(true))
                }
                Err(_) => row.error = f.entry_error(),
            }
            if f.origin.as_ref().is_some_and(|o| !o.enabled) && f.not_loaded.is_none() {
                row.disabled = true;
            }
            if here {
                row.here = Some(crate::toggle::here::verdict(ctx, f, row.disabled, &trust));
            }
            row
        })
        .collect();
    let parked = parked_rows(&probe, &clients, name.as_deref(), show_secrets);
    rows.extend(parked);
    if here {
        here_rows(&mut rows);
    }
    rows.retain(|row| scope.is_none_or(|scope| row.scope == scope.as_str()));
    // A name that matches nothing is an error with the closest name, as `remove` and
    // `doctor` say it. When a file could not be read it may hold the name: its error
    // speaks instead.
    if let Some(name) = &name
        && rows.is_empty()
        && broken.is_empty()
    {
        return Err(targets::no_server_named(ctx, &clients, name));
    }
    let report = ListReport {
        rows,
        broken: broken
            .iter()
            .map(|b| {
                // An error about a file starts with its path (`PATH:LINE:COLUMN:`).
                if b.path.as_os_str().is_empty() {
                    ErrorText::about(&b.client.id, &b.error)
                } else {
                    ErrorText::of(&b.error)
                }
            })
            .collect(),
        name,
        searched: clients.iter().map(|c| c.id.clone()).collect(),
        show_secrets,
        here,
        exclusive: exclusive
            .iter()
            .map(|(client, ex)| {
                format!(
                    "{} loads only the servers in `{}`: {}",
                    client.name,
                    ex.file.display(),
                    ex.manage
                )
            })
            .collect(),
    };
    printer.emit(&report)
}

/// Entries `disable` parked, for the listed clients.
fn parked_rows(
    probe: &crate::toggle::Probe<'_>,
    clients: &[&Client],
    name: Option<&str>,
    show_secrets: bool,
) -> Vec<ListRow> {
    probe
        .parked()
        .iter()
        .filter(|p| name.is_none_or(|n| n == p.entry.name))
        .filter_map(|p| {
            let client = clients.iter().find(|c| c.id == p.client)?;
            let mut row = ListRow {
                client: client.id.clone(),
                scope: p.scope.as_str(),
                name: p.entry.name.clone(),
                transport: None,
                command: None,
                args: Vec::new(),
                url: None,
                env: IndexMap::new(),
                headers: IndexMap::new(),
                path: p.path.clone(),
                disabled: true,
                parked: true,
                builtin: false,
                wrapped: false,
                via: None,
                written: None,
                secrets: Vec::new(),
                oauth: None,
                read_only: false,
                origin: None,
                not_loaded: None,
                not_loaded_tag: None,
                policy: None,
                error: None,
                unset: Vec::new(),
                here: None,
            };
            if let Ok(e) = Dialect::of(client).read_raw(&p.raw) {
                row.transport = Some(e.transport.name().as_str());
                row.fill(&e.transport, show_secrets);
            }
            Some(row)
        })
        .collect()
}

/// ` (via mcpctl run; secrets: github)`: how the launcher or bridge shows in the table.
fn secrets_note(row: &ListRow) -> String {
    let Some(via) = row.via else {
        return String::new();
    };
    let verb = match via {
        Via::Launcher => "mcpctl run",
        Via::Bridge => "mcpctl bridge",
    };
    let names: Vec<&str> = row.secrets.iter().map(|s| s.secret.as_str()).collect();
    if let Some(name) = &row.oauth {
        return format!(" (via {verb}; signed in: {name})");
    }
    if names.is_empty() {
        format!(" (via {verb})")
    } else {
        format!(" (via {verb}; secrets: {})", names.join(", "))
    }
}

/// The servers found, and the files that could not be read.
struct ListReport {
    rows: Vec<ListRow>,
    /// One per unreadable file, with the same hint `add` gives for it.
    broken: Vec<ErrorText>,
    /// `list NAME`.
    name: Option<String>,
    /// The clients looked at.
    searched: Vec<String>,
    /// `--show-secrets`: the table gets an env/headers column.
    show_secrets: bool,
    /// `--here`: the table gets a column saying what the client does with it here.
    here: bool,
    /// One line per client whose servers an administrator's file controls exclusively.
    exclusive: Vec<String>,
}

impl Report for ListReport {
    fn json(&self) -> serde_json::Result<serde_json::Value> {
        serde_json::to_value(&self.rows)
    }

    fn human(&self, paint: Paint) -> Vec<Block> {
        let show_secrets = self.show_secrets;
        let mut blocks: Vec<Block> = self.broken.iter().cloned().map(Block::Error).collect();
        blocks.extend(self.exclusive.iter().cloned().map(Block::Warning));
        if self.rows.is_empty() {
            if self.broken.is_empty() {
                let what = self.name.as_ref().map_or_else(
                    || "no servers configured".to_owned(),
                    |n| format!("no server named `{n}`"),
                );
                blocks.push(Block::Note(match self.searched.as_slice() {
                    [] => format!(
                        "{what}: no client detected here (`mcpctl clients --all` lists every client mcpctl knows and where it looks)"
                    ),
                    [one] => format!("{what} in {one}"),
                    many => format!(
                        "{what} in {} clients: {}",
                        many.len(),
                        many.join(", ")
                    ),
                }));
            }
            return blocks;
        }
        // Which variables (and headers) an entry sets, by name only: the values are
        // `--show-secrets`'.
        let names = !show_secrets
            && self
                .rows
                .iter()
                .any(|r| !r.env.is_empty() || !r.headers.is_empty());
        let rows = self
            .rows
            .iter()
            .map(|r| {
                let target = match (&r.command, &r.url, &r.error) {
                    (_, _, Some(e)) => paint.paint(Style::Fail, &paint.text(e)),
                    (Some(c), _, _) => {
                        let mut s = std::iter::once(c.as_str())
                            .chain(r.args.iter().map(String::as_str))
                            .collect::<Vec<_>>()
                            .join(" ");
                        if r.wrapped {
                            s.push_str(&paint.paint(Style::Dim, " (wrapped)"));
                        }
                        s.push_str(&secrets_note(r));
                        s
                    }
                    (None, Some(u), _) => format!("{u}{}", secrets_note(r)),
                    (None, None, None) if r.builtin => {
                        paint.paint(Style::Dim, "(built into the client; read-only)")
                    }
                    (None, None, None) => {
                        paint.paint(Style::Dim, "(a switch, or a server an extension provides)")
                    }
                };
                let mut name = r.name.clone();
                if r.parked {
                    name.push_str(&paint.paint(Style::Dim, " (parked)"));
                } else if let Some(tag) = r.not_loaded_tag {
                    // The kind of reason (`file rejected`, `excluded`, `not allowed`);
                    // --json has all of it.
                    name.push_str(&paint.paint(Style::Dim, &format!(" ({tag})")));
                } else if r.disabled {
                    name.push_str(&paint.paint(Style::Dim, " (disabled)"));
                }
                if let Some(o) = &r.origin {
                    name.push_str(
                        &paint.paint(Style::Dim, &format!(" [read-only: {} {}]", o.kind, o.name)),
                    );
                }
                let scope = if r.scope == "user" {
                    r.client.clone()
                } else {
                    format!("{} ({})", r.client, r.scope)
                };
                // A builtin runs inside the client; a switch or an extension's entry has no
                // transport of its own.
                let transport = match (r.transport, r.builtin) {
                    (Some(t), _) => t.to_owned(),
                    (None, true) => "builtin".to_owned(),
                    (None, false) => paint.paint(Style::Dim, "-"),
                };
                let mut cells = vec![scope, name, transport, target];
                if let Some(h) = &r.here {
                    let by =
                        h.by.as_ref()
                            .map(|p| format!(" by {}", paint.path(p)))
                            .unwrap_or_default();
                    let state = match h.state {
                        "on" => format!("loads{by}"),
                        "off" => format!("off{by}"),
                        other => other.to_owned(),
                    };
                    let style = if h.loads { Style::Ok } else { Style::Dim };
                    let why = match (h.state, &h.why) {
                        ("off", _) | (_, None) => String::new(),
                        (_, Some(why)) => format!(": {why}"),
                    };
                    cells.push(paint.paint(style, &format!("{state} ({}){why}", h.from)));
                }
                if names {
                    // Before COMMAND / URL, the column that wraps to the terminal.
                    cells.insert(
                        3,
                        r.env
                            .keys()
                            .chain(r.headers.keys())
                            .cloned()
                            .collect::<Vec<_>>()
                            .join(" "),
                    );
                }
                if show_secrets {
                    cells.push(
                        r.env
                            .iter()
                            .chain(&r.headers)
                            .map(|(k, v)| format!("{k}={v}"))
                            .collect::<Vec<_>>()
                            .join(" "),
                    );
                }
                cells
            })
            .collect();
        let mut header = vec!["CLIENT", "NAME", "TRANSPORT", "COMMAND / URL"];
        if names {
            header.insert(3, "ENV");
        }
        if self.here {
            header.push("HERE");
        }
        if show_secrets {
            header.push("ENV / HEADERS");
        }
        blocks.push(Block::Table { header, rows });
        blocks.extend(
            self.rows
                .iter()
                .flat_map(|r| &r.unset)
                .cloned()
                .map(Block::Warning),
        );
        blocks
    }

    fn status(&self) -> ExitStatus {
        if self.broken.is_empty() {
            ExitStatus::Success
        } else {
            ExitStatus::Error
        }
    }
}

/// `list --here`: a parked entry is off here too, and a project's override of a user
/// entry (`{"enabled": false}` alone) is the user row's `by`, not a server of its own.
fn here_rows(rows: &mut Vec<ListRow>) {
    for row in rows.iter_mut().filter(|r| r.parked) {
        row.here = Some(HereRow {
            loads: false,
            from: row.scope.to_owned(),
            state: "off",
            by: None,
            why: Some("parked by `mcpctl disable`: cut out of the file".to_owned()),
        });
    }
    rows.retain(|row| {
        !(row.scope == "project" && row.transport.is_none() && row.error.is_none() && !row.builtin)
    });
}
