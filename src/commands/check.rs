//! `mcpctl check`: lint MCP config files for CI and pre-commit. It reads the named files
//! (or every client's project file under the project directory, plus user files with
//! `--user`), reports findings in text, JSON, GitHub or SARIF form, and with `--fix`
//! applies the safe fixes through the shared edit loop.
//!
//! It never starts a process, never connects anywhere, never prints a secret value, and
//! never writes a file that does not parse.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::check::fix::{self, Fix};
use crate::check::{self, Finding, Severity, Target, render};
use crate::cli::{CheckArgs, CheckFormat, DenyLevel};
use crate::clients::{Client, Scope, Unread};
use crate::error::{ExitStatus, UserError};
use crate::fs;
use crate::output::{Block, ErrorText, Paint, Printer, Report};
use crate::session::Context;
use crate::session::{edit, write};

/// A file to check and the clients that may read it (table order; the first whose
/// servers key the file uses wins).
struct File<'a> {
    path: PathBuf,
    /// The file as its findings name it: as typed, relative to the working directory, or
    /// as the printer shows a path (`~/…` to a person, absolute under `--json`).
    shown: String,
    candidates: Vec<(&'a Client, Scope)>,
    /// A file the (only) candidate client does not read: MCP006 instead of its rules.
    unread: Option<&'a Unread>,
}

pub fn run(args: CheckArgs, ctx: &Context, printer: &mut Printer) -> anyhow::Result<ExitStatus> {
    let CheckArgs {
        paths,
        client,
        format,
        deny,
        user,
        fix,
        dry_run,
        secrets,
        yes,
        explain,
    } = args;
    if let Some(code) = explain {
        let rule = check::rule(&code).ok_or_else(|| {
            UserError::new(format!("unknown rule code `{code}`")).hint(format!(
                "known codes: {}",
                check::RULES
                    .iter()
                    .map(|r| r.code)
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })?;
        printer.raw(&render::explain(rule));
        return Ok(ExitStatus::Success);
    }
    // `--json` is `--format json` here, and the format is needed before the report
    // exists: it decides where a `--fix` diff goes (stdout beside text, stderr beside
    // JSON). The one read of `printer.json` outside `Printer::emit`, for that reason.
    let format = if printer.json && format == CheckFormat::Text {
        CheckFormat::Json
    } else {
        format
    };
    let forced = match &client {
        Some(id) => Some(crate::session::targets::resolve(ctx, id)?),
        None => None,
    };
    // Findings name their file as the printer shows a path.
    let home = printer.shown_home().map(Path::to_path_buf);
    let paint = Paint::none().with_home(home.as_deref());
    // A manifest named (`mcpctl.toml`): its servers against the targeted clients' policies.
    let (manifests, paths): (Vec<PathBuf>, Vec<PathBuf>) = paths.into_iter().partition(|p| {
        forced.is_none() && crate::manifest::lint::is_manifest(ctx, &ctx.platform.cwd.join(p))
    });
    let files = files(ctx, &paths, forced, user, paint)?;
    let mut report = CheckReport {
        on_the_way: Vec::new(),
        findings: Vec::new(),
        format,
        files: files.len() + manifests.len(),
        fix,
        failed: false,
        deny: match deny {
            DenyLevel::Warning => Severity::Warning,
            DenyLevel::Error => Severity::Error,
        },
    };
    if files.is_empty() && manifests.is_empty() {
        report.on_the_way.push(Block::Aside(format!(
            "no MCP config files found under `{}`; name files to check, or pass `--user`",
            crate::output::file(&ctx.project)
        )));
    }
    for path in &manifests {
        let found = crate::manifest::lint::policy_findings(ctx, path);
        report.findings.extend(found.unwrap_or_else(|error| {
            report.on_the_way.push(Block::Error(ErrorText::of(&error)));
            report.failed = true;
            Vec::new()
        }));
    }
    for file in &files {
        let fix = Fix {
            on: fix,
            dry_run,
            secrets,
            yes,
        };
        match check_file(ctx, file, fix, (format, paint), &mut report.on_the_way) {
            Ok(mut found) => report.findings.append(&mut found),
            Err(error) => {
                report.on_the_way.push(Block::Error(ErrorText::of(&error)));
                report.failed = true;
            }
        }
    }
    printer.emit(&report)
}

/// The findings of every file checked, in the chosen format.
struct CheckReport {
    /// What happened file by file: errors, `--fix` diffs and notes.
    on_the_way: Vec<Block>,
    findings: Vec<Finding>,
    format: CheckFormat,
    /// How many files were checked.
    files: usize,
    fix: bool,
    /// A file could not be checked.
    failed: bool,
    /// The severity from which findings fail the run (`--deny`).
    deny: Severity,
}

impl Report for CheckReport {
    fn json(&self) -> serde_json::Result<serde_json::Value> {
        match self.format {
            CheckFormat::Sarif => Ok(render::sarif(&self.findings)),
            CheckFormat::Text | CheckFormat::Json | CheckFormat::Github => {
                serde_json::to_value(&self.findings)
            }
        }
    }

    fn human(&self, _paint: Paint) -> Vec<Block> {
        let mut blocks = self.on_the_way.clone();
        let findings = &self.findings;
        match self.format {
            CheckFormat::Text => {
                blocks.extend(findings.iter().map(|f| Block::Line(render::text_line(f))));
                if self.files > 0 {
                    blocks.push(Block::Note(render::summary(findings, self.files)));
                }
                let fixable = findings.iter().filter(|f| f.fixable).count();
                if fixable > 0 && !self.fix {
                    blocks.push(Block::Note(format!(
                        "{fixable} finding{} marked (fixable); `mcpctl check --fix --dry-run` shows the changes",
                        if fixable == 1 { "" } else { "s" }
                    )));
                }
            }
            CheckFormat::Github => {
                blocks.extend(findings.iter().map(|f| Block::Line(render::github_line(f))));
            }
            CheckFormat::Json | CheckFormat::Sarif => {
                if let Ok(json) = self.json().and_then(|v| serde_json::to_string_pretty(&v)) {
                    blocks.push(Block::Line(json));
                }
            }
        }
        blocks
    }

    fn status(&self) -> ExitStatus {
        if self.failed {
            ExitStatus::Error
        } else if self.findings.iter().any(|f| f.severity >= self.deny) {
            ExitStatus::Problems
        } else {
            ExitStatus::Success
        }
    }
}

/// The files to check: named paths (directories are searched like the project
/// directory), or the project directory's files; plus detected clients' user files.
fn files<'a>(
    ctx: &'a Context,
    paths: &[PathBuf],
    forced: Option<&'a Client>,
    user: bool,
    paint: Paint<'_>,
) -> anyhow::Result<Vec<File<'a>>> {
    let mut out = Files::default();
    let missing: Vec<String> = paths
        .iter()
        .filter(|p| !ctx.platform.cwd.join(p).exists())
        .map(|p| format!("`{}`", p.display()))
        .collect();
    if !missing.is_empty() {
        return Err(
            UserError::new(format!("{} does not exist", missing.join(", ")))
                .hint("check the path; without paths `check` finds every client's project file")
                .into(),
        );
    }
    // Resolved once: each named file is compared with every client's user file (the
    // first client with that file), and matched against the table's path tails.
    let mut user_paths: HashMap<PathBuf, &Client> = HashMap::new();
    if !paths.is_empty() {
        for client in ctx.table.all() {
            if let Ok(Some(path)) = client.user_path(&ctx.platform) {
                user_paths.entry(path).or_insert(client);
            }
        }
    }
    let tails = check::Tails::new(&ctx.table);
    for path in paths {
        let absolute = ctx.platform.cwd.join(path);
        if absolute.is_dir() {
            discover(ctx, &absolute, forced, paint, &mut out);
            continue;
        }
        let inferred = tails.clients(path);
        let user_match = user_paths.get(&absolute).copied();
        let candidates = match (forced, user_match) {
            (Some(client), _) => {
                let scope = if user_match.is_some_and(|u| u.id == client.id) {
                    Scope::User
                } else {
                    inferred
                        .iter()
                        .find(|(c, _)| c.id == client.id)
                        .map_or(Scope::Project, |(_, s)| *s)
                };
                vec![(client, scope)]
            }
            (None, Some(client)) => vec![(client, Scope::User)],
            (None, None) if !inferred.is_empty() => inferred,
            (None, None) if unread_match(ctx, &tails, path, &absolute).is_some() => {
                if let Some((client, unread)) = unread_match(ctx, &tails, path, &absolute) {
                    let shown = path.display().to_string();
                    push_unread(&mut out, absolute, shown, client, unread);
                }
                continue;
            }
            (None, None) => {
                return Err(UserError::new(format!(
                    "cannot tell which client reads `{}`",
                    path.display()
                ))
                .hint("pass `-c ID` to check it as that client's file (`mcpctl clients --known`)")
                .into());
            }
        };
        push(&mut out, absolute, path.display().to_string(), candidates);
    }
    if paths.is_empty() {
        discover(ctx, &ctx.project, forced, paint, &mut out);
    }
    if user {
        for client in ctx.table.all() {
            if forced.is_some_and(|f| f.id != client.id) || !client.detected(&ctx.platform) {
                continue;
            }
            if let Ok(Some(path)) = client.user_path(&ctx.platform)
                && crate::fs::exists(&path)
            {
                let shown = paint.path(&path);
                push(&mut out, path, shown, vec![(client, Scope::User)]);
            }
            for unread in client.unread.iter().filter(|u| u.path.contains('{')) {
                if let Ok(path) = ctx.platform.expand(&unread.path)
                    && path.is_file()
                {
                    let shown = paint.path(&path);
                    push_unread(&mut out, path, shown, client, unread);
                }
            }
        }
    }
    Ok(out.list)
}

/// The files to check, each once (a second client reading it joins its candidates).
#[derive(Default)]
struct Files<'a> {
    list: Vec<File<'a>>,
    /// Where each path is in `list`.
    at: HashMap<PathBuf, usize>,
}

/// Every client's project files under `dir` (`project`, `project_also`, and their
/// `formats::extension_twin`).
fn discover<'a>(
    ctx: &'a Context,
    dir: &Path,
    forced: Option<&'a Client>,
    paint: Paint<'_>,
    out: &mut Files<'a>,
) {
    for client in ctx.table.all() {
        if forced.is_some_and(|f| f.id != client.id) {
            continue;
        }
        let twins = client.project_files().flat_map(|rel| {
            std::iter::once(rel.clone()).chain(crate::formats::extension_twin(rel))
        });
        for rel in twins {
            let path = dir.join(&rel);
            if !crate::fs::exists(&path) {
                continue;
            }
            let shown = path
                .strip_prefix(&ctx.platform.cwd)
                .map_or_else(|_| paint.path(&path), |p| p.display().to_string());
            push(out, path, shown, vec![(client, Scope::Project)]);
        }
        for unread in client.unread.iter().filter(|u| !u.path.contains('{')) {
            let path = dir.join(&unread.path);
            if path.is_file() {
                let shown = path
                    .strip_prefix(&ctx.platform.cwd)
                    .map_or_else(|_| paint.path(&path), |p| p.display().to_string());
                push_unread(out, path, shown, client, unread);
            }
        }
    }
}

/// The file no client reads that `path` is: a user-level template expanded here, else
/// matched by its literal tail (`.claude/mcp.json` in any project).
fn unread_match<'a>(
    ctx: &'a Context,
    tails: &check::Tails<'a>,
    path: &Path,
    absolute: &Path,
) -> Option<(&'a Client, &'a Unread)> {
    ctx.table
        .all()
        .iter()
        .flat_map(|c| c.unread.iter().map(move |u| (c, u)))
        .find(|(_, u)| {
            u.path.contains('{') && ctx.platform.expand(&u.path).is_ok_and(|p| p == absolute)
        })
        .or_else(|| tails.unread(path))
}

/// Add a file that `client` does not read (row field `unread`).
fn push_unread<'a>(
    out: &mut Files<'a>,
    path: PathBuf,
    shown: String,
    client: &'a Client,
    unread: &'a Unread,
) {
    if !out.at.contains_key(&path) {
        out.at.insert(path.clone(), out.list.len());
        out.list.push(File {
            path,
            shown,
            candidates: vec![(client, Scope::User)],
            unread: Some(unread),
        });
    }
}

/// Add a file, or another candidate client to a file already listed.
fn push<'a>(
    out: &mut Files<'a>,
    path: PathBuf,
    shown: String,
    candidates: Vec<(&'a Client, Scope)>,
) {
    match out.at.get(&path).and_then(|&i| out.list.get_mut(i)) {
        Some(file) => {
            for candidate in candidates {
                if !file.candidates.iter().any(|(c, _)| c.id == candidate.0.id) {
                    file.candidates.push(candidate);
                }
            }
        }
        None => {
            out.at.insert(path.clone(), out.list.len());
            out.list.push(File {
                path,
                shown,
                candidates,
                unread: None,
            });
        }
    }
}

/// Check one file (`lint_file`), then, in the user's own files, its entries' variables
/// against this environment (MCP503, the one rule of `unset`), judged on the file as it
/// is now. A project file is committed and checked in CI, where its variables are not
/// set: its verdict must not depend on where `check` runs (`doctor` and `list` say it).
fn check_file(
    ctx: &Context,
    file: &File<'_>,
    fix: Fix,
    format: (CheckFormat, Paint<'_>),
    on_the_way: &mut Vec<Block>,
) -> anyhow::Result<Vec<Finding>> {
    let mut findings = lint_file(ctx, file, fix, format, on_the_way)?;
    if file.unread.is_none()
        && !findings.iter().any(|f| f.code == "MCP001")
        && let Ok(source) = fs::read_source(&file.path)
        && let Some((client, scope)) = check::choose_client(&file.candidates, &source.text)
        && (scope != Scope::Project
            || client
                .user_path(&ctx.platform)
                .is_ok_and(|user| user.as_deref() == Some(file.path.as_path())))
        && let Ok(doc) = client.format.parse(source.text)
    {
        let target = Target {
            client,
            scope,
            os: ctx.platform.os,
            policy: &[],
        };
        findings.extend(check::rules::references::unset_variables(
            &ctx.platform,
            &file.shown,
            doc.as_ref(),
            &target,
        ));
        // In file order, as `check_text` gives the others.
        findings.sort_by_key(|f| (f.line, f.column));
    }
    Ok(findings)
}

/// A unified diff of one file with its `--- a/…`/`+++ b/…` header naming the file as the
/// findings do (`.cursor/mcp.json`), not by the absolute path the edit loop labels it with.
fn relabel(diff: &str, shown: &str) -> String {
    let lines: Vec<&str> = diff.split_inclusive('\n').collect();
    let mut out = String::with_capacity(diff.len());
    let mut at = 0;
    while at < lines.len() {
        let header = lines[at].starts_with("--- ")
            && lines.get(at + 1).is_some_and(|l| l.starts_with("+++ b/"))
            && lines.get(at + 2).is_some_and(|l| l.starts_with("@@"));
        if header {
            if lines[at].starts_with("--- a/") {
                out.push_str(&format!("--- a/{shown}\n"));
            } else {
                out.push_str(lines[at]);
            }
            out.push_str(&format!("+++ b/{shown}\n"));
            at += 2;
        } else {
            out.push_str(lines[at]);
            at += 1;
        }
    }
    out
}

/// Lint one file; with `fix`, repair it first (or show the diff) and check the result.
fn lint_file(
    ctx: &Context,
    file: &File<'_>,
    fix: Fix,
    (format, paint): (CheckFormat, Paint<'_>),
    on_the_way: &mut Vec<Block>,
) -> anyhow::Result<Vec<Finding>> {
    let read = |path: &Path| {
        fs::read_source(path).map_err(|e| {
            anyhow::Error::from(
                UserError::new(e.to_string()).hint("check the file's permissions and encoding"),
            )
        })
    };
    let source = read(&file.path)?;
    if let (Some(unread), Some((client, _))) = (file.unread, file.candidates.first()) {
        return Ok(check::check_unread(
            &file.shown,
            &source.text,
            client,
            unread,
        ));
    }
    let (client, scope) = check::choose_client(&file.candidates, &source.text)
        .ok_or_else(|| UserError::new(format!("no client for `{}`", file.shown)))?;
    let policy = crate::policy::read::load(client, &ctx.platform).policies;
    let target = Target {
        client,
        scope,
        os: ctx.platform.os,
        policy: &policy,
    };
    let alternatives = crate::session::registry::sse_alternatives(ctx);
    let mut findings = check::check_text_with(
        &file.shown,
        &source.text,
        source.bom,
        &target,
        &alternatives,
    );
    fix::mark_fixable(
        &mut findings,
        &file.shown,
        &source.text,
        source.bom,
        &target,
    );
    let scrubbing = if fix.yes {
        crate::session::adopt::Scrubbing::Yes
    } else {
        crate::session::adopt::Scrubbing::Ask
    };
    let plan = fix.plan(&findings);
    let dry_run = plan.dry_run;
    // A diff goes to stdout beside text, to stderr beside JSON; its header names the
    // file as the findings do.
    let diff = |diff: String| {
        let diff = paint.diff(&relabel(&diff, &file.shown));
        if format == CheckFormat::Text {
            Block::Raw(diff)
        } else {
            Block::Aside(diff.trim_end().to_owned())
        }
    };
    let mut moved = false;
    if plan.adopt
        && let Some(adopted) = crate::session::adopt::adopt_literals(
            ctx,
            &target,
            &file.path,
            &file.shown,
            &source.text,
            dry_run,
            scrubbing,
        )?
    {
        on_the_way.extend(adopted.diffs.into_iter().map(diff));
        on_the_way.push(Block::Aside(format!(
            "{} {}: {}",
            if dry_run {
                "would move into the OS keychain"
            } else {
                "moved into the OS keychain"
            },
            file.shown,
            adopted.moved.join(", ")
        )));
        on_the_way.extend(adopted.backups.map(Block::Aside));
        moved = true;
    }
    // What makes the client reject the whole file goes first: the entries' fixes then
    // run on a file the client reads.
    let mut repaired = false;
    if plan.rewrite
        && findings
            .iter()
            .any(|f| f.fixable && matches!(f.code, "MCP002" | "MCP003"))
        && let Some(text) = write::repair_rejected(ctx, client, &file.path, &file.shown, dry_run)?
    {
        on_the_way.push(diff(text));
        repaired = true;
    }
    if !plan.rewrite {
        return Ok(if moved && !dry_run {
            let source = read(&file.path)?;
            check::check_text(&file.shown, &source.text, source.bom, &target)
        } else {
            findings
        });
    }
    let outcome = write::fix_entries(ctx, &target, &file.path, dry_run)?;
    if let Some(text) = outcome.diff {
        on_the_way.push(diff(text));
    }
    if outcome.action == edit::Action::Unchanged && !repaired {
        return Ok(findings);
    }
    if dry_run {
        on_the_way.push(Block::Aside(format!(
            "would fix `{}` (dry run: nothing was written)",
            file.shown
        )));
        return Ok(findings);
    }
    on_the_way.push(Block::Aside(format!("fixed `{}`", file.shown)));
    let source = read(&file.path)?;
    Ok(check::check_text(
        &file.shown,
        &source.text,
        source.bom,
        &target,
    ))
}
