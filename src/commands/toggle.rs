//! `mcpctl disable` / `mcpctl enable`: switch a server (or some of its tools) off and on in
//! each target client, through the client's own switch or by parking the entry (see
//! `crate::toggle`). One row per file touched; a client without the server is reported.
//!
//! Without a target, the clients that have the server are the targets (asking which when
//! there are several, as `remove` does). Without `--scope`, every scope that has it.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::cli::{DisableArgs, EnableArgs, TargetArgs};
use crate::clients::{Client, Location, Scope, Switch};
use crate::error::{ExitStatus, hint_of};
use crate::output::{Block, Paint, Printer, Report, Style};
use crate::session::inventory::{self, read_document};
use crate::session::{Context, edit, targets};
use crate::toggle::filters::{self, FilterAction, ToolOp};
use crate::toggle::{self, Method, Want, here, store};

pub fn disable(
    args: DisableArgs,
    ctx: &Context,
    printer: &mut Printer,
) -> anyhow::Result<ExitStatus> {
    let tools = (!args.deny_tools.is_empty()).then_some(ToolOp::Deny(args.deny_tools));
    let request = Request {
        name: args.name,
        want: Want::Off,
        tools,
        scope: args.scope,
        dry_run: args.dry_run,
    };
    if args.here {
        return run_here(&request, &args.targets, (args.local, false), ctx, printer);
    }
    run(request, &args.targets, ctx, printer)
}

pub fn enable(
    args: EnableArgs,
    ctx: &Context,
    printer: &mut Printer,
) -> anyhow::Result<ExitStatus> {
    let tools = if args.all_tools {
        Some(ToolOp::Clear)
    } else if !args.allow_tools.is_empty() {
        Some(ToolOp::AllowOnly(args.allow_tools))
    } else if !args.deny_tools.is_empty() {
        Some(ToolOp::Undeny(args.deny_tools))
    } else {
        None
    };
    let request = Request {
        name: args.name,
        want: Want::On,
        tools,
        scope: args.scope,
        dry_run: args.dry_run,
    };
    if args.here {
        return run_here(
            &request,
            &args.targets,
            (args.local, args.yes),
            ctx,
            printer,
        );
    }
    run(request, &args.targets, ctx, printer)
}

struct Request {
    name: String,
    want: Want,
    tools: Option<ToolOp>,
    scope: Option<Scope>,
    dry_run: bool,
}

impl Request {
    fn verb(&self) -> &'static str {
        match self.want {
            Want::Off => "disable",
            Want::On => "enable",
        }
    }
}

fn run(
    request: Request,
    target_args: &TargetArgs,
    ctx: &Context,
    printer: &mut Printer,
) -> anyhow::Result<ExitStatus> {
    let store = store::load(ctx)?;
    let name = request.name.as_str();
    // Parked entries count as present (`enable` brings them back; `disable` has nothing
    // left to do).
    let places = |client: &Client| places(ctx, client, name, &request, &store);
    let named = !target_args.clients.is_empty() || target_args.all;
    let verb = request.verb();
    let clients = if named {
        targets::choose(ctx, target_args, verb, &|c| !places(c).is_empty())?
    } else {
        let have: Vec<&Client> = targets::detected(ctx)
            .into_iter()
            .filter(|c| !places(c).is_empty())
            .collect();
        match have.as_slice() {
            [] => {
                let detected = targets::detected(ctx);
                return Err(inventory::read_only_holder(ctx, &detected, name)
                    .unwrap_or_else(|| targets::no_server_named(ctx, &detected, name)));
            }
            [_] => have,
            _ => targets::choose(ctx, target_args, verb, &|c| !places(c).is_empty())?,
        }
    };
    let mut report = ToggleReport {
        rows: Vec::new(),
        dry_run: request.dry_run,
    };
    for client in &clients {
        let found = places(client);
        if found.is_empty() {
            report.rows.push(Row::new(
                client,
                request.scope.unwrap_or(Scope::User),
                name,
                Path::new(""),
                "missing",
            ));
            continue;
        }
        for location in found {
            report.rows.push(one(ctx, client, &location, &request));
        }
    }
    if report.rows.iter().all(|r| r.action == "missing") {
        if let Some(error) = inventory::read_only_holder(ctx, &clients, name) {
            return Err(error);
        }
        // With a close name ("did you mean"), or one client named, not finding it is an
        // error; else the report says where it is missing.
        let near = targets::closest_server(ctx, &clients, name);
        if near.is_some() || clients.len() == 1 {
            return Err(targets::no_server_near(&clients, name, near));
        }
    }
    printer.emit(&report)
}

/// `disable NAME --here` / `enable NAME --here`: each target client's own project-level
/// switch in the project (`toggle::here`), the user's entry untouched. Without a target,
/// the detected clients that have the server; a client without a project-level switch is
/// reported and left alone. `enable` of a server a target lacks, found in another client
/// or another project, offers to add it to this project's scope (`--yes`: without asking).
fn run_here(
    request: &Request,
    target_args: &TargetArgs,
    (local, yes): (bool, bool),
    ctx: &Context,
    printer: &mut Printer,
) -> anyhow::Result<ExitStatus> {
    let name = request.name.as_str();
    let has = |client: &Client| {
        !inventory::collect_all(ctx, &[client], Some(name))
            .found
            .is_empty()
    };
    let readable = targets::detected_to_read(ctx);
    let source = (request.want == Want::On)
        .then(|| here::elsewhere(ctx, &readable, name))
        .flatten();
    let named = !target_args.clients.is_empty() || target_args.all;
    let clients = if named {
        targets::choose(ctx, target_args, request.verb(), &has)?
    } else {
        let detected = targets::detected(ctx);
        let have: Vec<&Client> = detected.iter().copied().filter(|c| has(c)).collect();
        match (&source, have.is_empty()) {
            (_, false) => have,
            // Only in another project: the client that has it there.
            (Some((id, _, _)), true) => targets::by_ids(ctx, std::slice::from_ref(id))?,
            (None, true) => return Err(targets::no_server_named(ctx, &detected, name)),
        }
    };
    let trust = crate::trust::TrustRule::new(&ctx.platform, &ctx.project, false);
    let mut report = ToggleReport {
        rows: Vec::new(),
        dry_run: request.dry_run,
    };
    for client in clients {
        let row = match (has(client), &source) {
            (false, Some((_, from, entry))) => {
                offer_add(ctx, client, request, (local, yes), from, entry)
            }
            (has, _) => here_one(ctx, client, request, local, has, &trust),
        };
        report.rows.push(row);
    }
    printer.emit(&report)
}

/// `enable NAME --here` for a client without the server: add the entry found `from`
/// elsewhere to this project's scope (`--local`: the client's local scope), asking first
/// unless `--yes` (a dry run shows the diff without asking).
fn offer_add(
    ctx: &Context,
    client: &Client,
    request: &Request,
    (local, yes): (bool, bool),
    from: &str,
    entry: &crate::entry::ServerEntry,
) -> Row {
    use crate::session::write::{Flags, Provenance, add_to};
    let name = request.name.as_str();
    let scope = if local { Scope::Local } else { Scope::Project };
    let mut row = Row::new(client, scope, name, &ctx.project, "missing");
    let place = if local {
        "your own entries for this project"
    } else {
        "this project's file"
    };
    let question = format!(
        "`{name}` is in {from}, not in {}: add it to {place}?",
        client.name
    );
    if !(yes
        || request.dry_run
        || (ctx.interactive && crate::picker::confirm(&question).unwrap_or(false)))
    {
        row.note = Some(format!(
            "`{name}` is in {from}: `mcpctl enable {name} --here -c {} --yes` adds it to \
             {place}",
            client.id
        ));
        return row;
    }
    let flags = Flags {
        force: false,
        dry_run: request.dry_run,
        no_wrap: false,
    };
    let how = Provenance {
        origin: crate::state::ledger::Origin::copy(),
        guard: None,
    };
    match add_to(ctx, client, scope, name, entry, &[], flags, &how) {
        Ok((path, outcome, _, _)) => {
            row.action = "added";
            row.path = path;
            row.diff = outcome.diff;
            row.backup = outcome.backup;
            row.note = Some(format!("from {from}"));
        }
        Err(error) => row.fail(&error),
    }
    row
}

/// One client's project-level switch, as a report row.
fn here_one(
    ctx: &Context,
    client: &Client,
    request: &Request,
    local: bool,
    has: bool,
    trust: &crate::trust::TrustRule<'_>,
) -> Row {
    let name = request.name.as_str();
    let scope = if local { Scope::Local } else { Scope::Project };
    let mut row = Row::new(client, scope, name, &ctx.project, "unsupported");
    let ask = here::Ask {
        name,
        want: request.want,
        local,
        has,
        dry_run: request.dry_run,
        verb: request.verb(),
    };
    match here::apply(ctx, client, &ask, trust) {
        Ok(done) => {
            row.action = done.action;
            row.method = done.method;
            row.how = done.how;
            if let Some(path) = done.path {
                row.path = path;
            }
            row.note = done.note;
            row.diff = done.diff;
            row.backup = done.backup;
            row.error = done.unfinished;
        }
        Err(error) => row.fail(&error),
    }
    row
}

/// The locations of `client` that hold `name` (or, for a plain `enable`, hold it parked).
fn places(
    ctx: &Context,
    client: &Client,
    name: &str,
    request: &Request,
    store: &store::Store,
) -> Vec<Location> {
    let mut out: Vec<Location> = Vec::new();
    for scope in client.scopes() {
        if scope == Scope::Legacy || request.scope.is_some_and(|s| s != scope) {
            continue;
        }
        let Ok(location) = targets::location(ctx, client, scope) else {
            continue;
        };
        if out.iter().any(|l| l.same_place(&location)) {
            continue;
        }
        let in_file = location.path.is_file()
            && read_document(ctx, client, &location.path)
                .ok()
                .and_then(|d| d.doc.servers(location.at()).ok())
                .is_some_and(|entries| entries.iter().any(|(n, _)| n == name));
        // A parked entry is there for `enable` (it brings it back) and for a second
        // `disable` (already off), just not in the file.
        let parked =
            request.tools.is_none() && store.parked(&edit::entry_key(&location, name)).is_some();
        if in_file || parked {
            out.push(location);
        }
    }
    out
}

/// Switch (or filter) one location.
fn one(ctx: &Context, client: &Client, location: &Location, request: &Request) -> Row {
    let name = request.name.as_str();
    let mut row = Row::new(client, location.scope, name, &location.path, "failed");
    // An entry built into the client (Goose's `developer`) is switched in the client.
    let existing = read_document(ctx, client, &location.path)
        .ok()
        .and_then(|d| d.doc.servers(location.at()).ok())
        .and_then(|entries| entries.into_iter().find(|(n, _)| n == name))
        .map(|(_, raw)| raw);
    if let Err(error) = edit::refuse_builtin(client, name, existing.as_ref()) {
        row.fail(&error);
        return row;
    }
    if let Some(op) = &request.tools {
        match filters::filter(ctx, client, location, name, op, request.dry_run) {
            Ok(done) => {
                row.action = match done.action {
                    FilterAction::Filtered => "filtered",
                    FilterAction::Unchanged => "unchanged",
                    FilterAction::Missing => "missing",
                    FilterAction::Unsupported => "unsupported",
                };
                row.note = done.note;
                row.allow = done.allow;
                row.deny = done.deny;
                row.diff = done.diff;
                row.backup = done.backup;
            }
            Err(error) => row.fail(&error),
        }
        return row;
    }
    match toggle::switch(ctx, client, location, name, request.want, request.dry_run) {
        Ok(done) => {
            row.action = match done.action {
                toggle::Action::Disabled => "disabled",
                toggle::Action::Enabled => "enabled",
                toggle::Action::Unchanged => "unchanged",
                toggle::Action::Missing => "missing",
            };
            row.method = Some(done.method);
            row.how = Some(how(client, done.method, request.want));
            row.path = done.path;
            row.note = done.note;
            row.diff = done.diff;
            row.backup = done.backup;
            // The file changed; a later step did not happen.
            row.error = done.unfinished;
        }
        Err(error) => row.fail(&error),
    }
    row
}

/// How the switch is spelled, for people: `"disabled": true`, `disabledMcpServers`, ...
fn how(client: &Client, method: Method, want: Want) -> String {
    match (&client.switch, method) {
        (Some(Switch::Field { key, off }), Method::Field) => match want {
            Want::Off => format!("{key}: {off}"),
            Want::On => format!("{key}: {off} taken back"),
        },
        (Some(Switch::List { key, .. }), Method::List) => match want {
            Want::Off => format!("listed in {key}"),
            Want::On => format!("taken off {key}"),
        },
        (_, Method::Enablement) => "enablement file".to_owned(),
        _ => match want {
            Want::Off => "parked in mcpctl's state directory".to_owned(),
            Want::On => "spliced back from mcpctl's state directory".to_owned(),
        },
    }
}

/// One file's outcome (the `--json` item).
#[derive(Debug, Serialize)]
struct Row {
    client: String,
    scope: &'static str,
    name: String,
    #[serde(serialize_with = "crate::output::path_json")]
    path: PathBuf,
    /// disabled | enabled | unchanged | missing | filtered | unsupported | failed | added
    /// (`enable --here` of a server from elsewhere)
    action: &'static str,
    /// field | list | enablement | park (switches only)
    #[serde(skip_serializing_if = "Option::is_none")]
    method: Option<Method>,
    /// The allow-list after a tool change (`null`: none).
    #[serde(skip_serializing_if = "Option::is_none")]
    allow: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    deny: Option<Vec<String>>,
    note: Option<String>,
    error: Option<String>,
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "crate::output::option_path_json"
    )]
    backup: Option<PathBuf>,
    #[serde(skip)]
    how: Option<String>,
    #[serde(skip)]
    hint: Option<String>,
    #[serde(skip)]
    diff: Option<String>,
}

impl Row {
    fn new(client: &Client, scope: Scope, name: &str, path: &Path, action: &'static str) -> Row {
        Row {
            client: client.id.clone(),
            scope: scope.as_str(),
            name: name.to_owned(),
            path: path.to_path_buf(),
            action,
            method: None,
            allow: None,
            deny: None,
            note: None,
            error: None,
            backup: None,
            how: None,
            hint: None,
            diff: None,
        }
    }

    fn fail(&mut self, error: &anyhow::Error) {
        self.action = "failed";
        self.error = Some(error.to_string());
        self.hint = hint_of(error).map(str::to_owned);
    }
}

struct ToggleReport {
    rows: Vec<Row>,
    dry_run: bool,
}

impl Report for ToggleReport {
    fn json(&self) -> serde_json::Result<serde_json::Value> {
        serde_json::to_value(&self.rows)
    }

    fn human(&self, paint: Paint) -> Vec<Block> {
        let mut blocks: Vec<Block> = self
            .rows
            .iter()
            .filter_map(|r| r.diff.as_deref())
            .map(|diff| Block::Raw(paint.diff(diff)))
            .collect();
        for r in &self.rows {
            let verb = match (r.action, self.dry_run) {
                ("disabled", true) => "would disable",
                ("enabled", true) => "would enable",
                ("filtered", true) => "would filter",
                ("added", true) => "would add",
                ("missing", _) => "not there",
                (action, _) => action,
            };
            let style = match r.action {
                "failed" => Style::Fail,
                "unchanged" | "missing" | "unsupported" => Style::Dim,
                _ => Style::Ok,
            };
            let verb = paint.paint(style, &format!("{verb:<13}"));
            let client = match r.scope {
                "user" => r.client.clone(),
                scope => format!("{} ({scope})", r.client),
            };
            let path = paint.path(&r.path);
            let mut line = match r.error.as_deref().map(|e| paint.text(e)) {
                Some(error) if r.action != "failed" => {
                    format!("{verb} {client:<16} {path}\n{:31}not done: {error}", "")
                }
                Some(error) => format!("{verb} {client:<16} {error}"),
                None if r.action == "missing" => {
                    format!("{verb} {client:<16} no server named `{}`", r.name)
                }
                None => format!("{verb} {client:<16} {path}"),
            };
            if let Some(how) = r.how.as_ref().filter(|_| r.action != "unchanged") {
                line.push_str(&paint.paint(Style::Dim, &format!(" ({how})")));
            }
            if r.allow.is_some() || r.deny.is_some() {
                let show = |l: &Option<Vec<String>>| {
                    l.as_ref()
                        .map_or_else(|| "-".to_owned(), |l| format!("[{}]", l.join(", ")))
                };
                line.push_str(&paint.paint(
                    Style::Dim,
                    &format!(" allow {} deny {}", show(&r.allow), show(&r.deny)),
                ));
            }
            if let Some(note) = &r.note {
                line.push_str(&format!("\n  {}", paint.text(note)));
            }
            if let Some(hint) = &r.hint {
                line.push_str(&format!("\n  hint: {}", paint.text(hint)));
            }
            blocks.push(Block::Line(line));
        }
        // Every file backed up, counted as `add` counts them.
        let backups: Vec<&std::path::Path> = self
            .rows
            .iter()
            .filter_map(|r| r.backup.as_deref())
            .collect();
        if let Some(first) = backups.first() {
            let more = match backups.len() {
                1 => String::new(),
                n => format!(" (and {} more in the same directory)", n - 1),
            };
            blocks.push(Block::Note(paint.paint(
                Style::Dim,
                &format!("previous version kept in {}{more}", paint.path(first)),
            )));
        }
        if self.dry_run {
            blocks.push(Block::Note("dry run: nothing was written".to_owned()));
        }
        blocks
    }

    fn status(&self) -> ExitStatus {
        let done = |r: &Row| {
            matches!(
                r.action,
                "disabled" | "enabled" | "unchanged" | "filtered" | "added"
            )
        };
        if self
            .rows
            .iter()
            .any(|r| r.action == "failed" || r.error.is_some())
            || !self.rows.iter().any(done)
        {
            ExitStatus::Error
        } else {
            ExitStatus::Success
        }
    }
}
