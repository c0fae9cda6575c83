//! The plan as it is shown (`plan`, and `apply` before it writes): a summary per file
//! with its diff, or the items as JSON or check annotations. Secrets are redacted in every
//! form; this module never edits a document.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::check::{Finding, Severity, render};
use crate::cli::CheckFormat;
use crate::error::ExitStatus;
use crate::manifest::Manifest;
use crate::manifest::plan::{Action, FilePlan, Item, Note};
use crate::output::{Block, Paint, Report, Style};
use crate::session::Context;

/// The plan as check findings (for `--format github|sarif`): paths relative to the
/// project directory when inside it, as a repository's annotations need.
fn findings(ctx: &Context, items: &[&Item]) -> Vec<Finding> {
    items
        .iter()
        .filter(|i| !i.action.in_sync())
        .map(|i| Finding {
            path: relative(&ctx.project, &i.path),
            line: i.line,
            column: i.column,
            severity: Severity::Error,
            code: i.action.code(),
            message: format!(
                "`{}` ({}): {}{}",
                i.name,
                i.client,
                i.action.as_str(),
                i.reason
                    .as_ref()
                    .map(|r| format!(": {r}"))
                    .unwrap_or_default()
            ),
            server: Some(i.name.clone()),
            fixable: false,
        })
        .collect()
}

/// How a plan's diff names a file in its `--- a/…`/`+++ b/…` headers, so that the diff
/// applies as a patch: a project file relative to the project (`patch -p1` there, as
/// `check --fix` names it), any other file under the home directory as `~/…` (`patch -p2`
/// in the home directory), `/` between the parts on every OS; else the absolute path.
pub fn diff_label(ctx: &Context, location: &crate::clients::Location) -> String {
    let slashed = |rest: &Path| {
        rest.components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/")
    };
    let path = &location.path;
    if location.scope == crate::clients::Scope::Project
        && let Ok(rest) = path.strip_prefix(&ctx.project)
    {
        return slashed(rest);
    }
    match ctx
        .platform
        .home()
        .ok()
        .and_then(|h| path.strip_prefix(h).ok().map(slashed))
    {
        Some(rest) => format!("~/{rest}"),
        None => path.display().to_string(),
    }
}

fn relative(base: &Path, path: &Path) -> String {
    path.strip_prefix(base)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// The plan as it is shown: `--json` is the items; the human form is a summary per file
/// with its diff (`--format text`), or the items as annotations (`github`, `sarif`) or JSON.
pub struct PlanReport {
    files: Vec<FileSummary>,
    /// What the plans say beside their items, each said once after the files.
    notes: Vec<Note>,
    /// The manifest, as shown.
    manifest: String,
    format: CheckFormat,
    /// `--format github|sarif`: the items out of sync, as check findings.
    findings: Vec<Finding>,
    /// `plan --check`: out of sync is exit 1.
    check: bool,
    /// `--profile`: what the profile costs each client (`profiles::plan_line`), after
    /// the text.
    pub profile_line: Option<String>,
    /// `[budget]`: each budgeted client against its budget, and the cut `apply` makes.
    pub budget: Vec<crate::manifest::budget::Trim>,
    /// The budget's cut was made (by `apply`), not only shown.
    pub budget_made: bool,
}

/// One planned file, ready to print.
struct FileSummary {
    /// The file (absolute).
    path: PathBuf,
    /// ` (cursor, user)`, after the path in its title.
    title: String,
    items: Vec<Item>,
    /// Secrets redacted.
    diff: Option<String>,
}

impl PlanReport {
    pub fn new(
        ctx: &Context,
        manifest: &Manifest,
        plans: &[FilePlan<'_>],
        format: CheckFormat,
        check: bool,
    ) -> PlanReport {
        let files: Vec<FileSummary> = plans
            .iter()
            .map(|plan| FileSummary {
                path: plan.location.path.clone(),
                title: format!(" ({}, {})", plan.client.id, plan.location.scope.as_str()),
                items: plan.items.clone(),
                diff: plan.diff(&diff_label(ctx, &plan.location)),
            })
            .collect();
        let notes = plans.iter().flat_map(|p| p.notes.iter().cloned()).collect();
        let items: Vec<&Item> = files.iter().flat_map(|f| &f.items).collect();
        let findings = match format {
            CheckFormat::Github | CheckFormat::Sarif => findings(ctx, &items),
            CheckFormat::Text | CheckFormat::Json => Vec::new(),
        };
        PlanReport {
            manifest: manifest.path.display().to_string(),
            format,
            findings,
            check,
            files,
            notes,
            profile_line: None,
            budget: Vec::new(),
            budget_made: false,
        }
    }

    /// The manifest's `[here]` lines, one summary per file holding a project-level switch,
    /// and the notes on clients that have none.
    pub fn add_here(&mut self, here: &[crate::manifest::plan::HerePlan<'_>], notes: Vec<String>) {
        for plan in here {
            let item = plan.item.clone();
            match self
                .files
                .iter_mut()
                .find(|f| f.path == item.path && f.title.starts_with(" (here"))
            {
                Some(file) => file.items.push(item),
                None => self.files.push(FileSummary {
                    path: item.path.clone(),
                    title: format!(" (here: {})", plan.client.id),
                    items: vec![item],
                    diff: None,
                }),
            }
        }
        self.notes.extend(notes.into_iter().map(Note::plain));
    }

    fn items(&self) -> impl Iterator<Item = &Item> {
        self.files.iter().flat_map(|f| &f.items)
    }

    /// Text: a summary per file, then the diffs.
    fn text(&self, paint: Paint) -> Vec<Block> {
        let mut blocks = Vec::new();
        let mut shown = 0;
        for file in &self.files {
            // Files in sync are summed up below, not listed entry by entry, and a file
            // whose only news is a note is not a header with nothing under it: the notes
            // come once, after the files, naming their clients.
            if file.items.iter().all(|i| i.action == Action::Ok) && file.diff.is_none() {
                continue;
            }
            shown += 1;
            blocks.push(Block::Line(paint.paint(
                Style::Bold,
                &format!("{}{}", paint.path(&file.path), file.title),
            )));
            for item in file.items.iter().filter(|i| i.action != Action::Ok) {
                let style = match item.action {
                    Action::Ok | Action::Adopt => Style::Dim,
                    Action::Conflict | Action::Drift => Style::Fail,
                    Action::Add
                    | Action::Update
                    | Action::Remove
                    | Action::Enable
                    | Action::Disable => Style::Ok,
                };
                let mut line = paint.paint(
                    style,
                    &format!("  {} {:<9}", item.action.sign(), item.action.as_str()),
                );
                line.push_str(&format!(" {}", item.name));
                if let Some(reason) = &item.reason {
                    line.push_str(&paint.paint(Style::Dim, &format!("  ({reason})")));
                }
                blocks.push(Block::Line(line));
            }
            if let Some(diff) = &file.diff {
                blocks.push(Block::Raw(paint.diff(diff)));
            }
        }
        blocks.extend(said_once(&self.notes).into_iter().map(Block::Warning));
        if self.files.iter().all(|f| f.items.is_empty()) {
            blocks.push(Block::Note(format!(
                "`{}` has nothing for the targeted clients",
                self.manifest
            )));
            return blocks;
        }
        if shown == 0 {
            blocks.push(Block::Line(
                "every client file matches the manifest".to_owned(),
            ));
        }
        let count = |a: Action| self.items().filter(|i| i.action == a).count();
        let switches = match (count(Action::Enable), count(Action::Disable)) {
            (0, 0) => String::new(),
            (on, off) => format!(", {on} to enable, {off} to disable"),
        };
        blocks.push(Block::Note(format!(
            "{} to add, {} to update, {} to remove, {} to adopt{switches}, {} ok, {} conflict, {} drift",
            count(Action::Add),
            count(Action::Update),
            count(Action::Remove),
            count(Action::Adopt),
            count(Action::Ok),
            count(Action::Conflict),
            count(Action::Drift)
        )));
        blocks
    }
}

/// The notes, each text once (in the order first said), with every entry and client it
/// was said of: `` `a`, `b` (cursor, codex): secret `k` is not set… ``.
fn said_once(notes: &[Note]) -> Vec<String> {
    let mut groups: Vec<(&str, Vec<&str>, Vec<&str>)> = Vec::new();
    for note in notes {
        let at = match groups.iter().position(|(text, ..)| *text == note.text) {
            Some(at) => at,
            None => {
                groups.push((&note.text, Vec::new(), Vec::new()));
                groups.len() - 1
            }
        };
        let (_, clients, servers) = &mut groups[at];
        for (list, value) in [(clients, &note.client), (servers, &note.server)] {
            if let Some(value) = value
                && !list.contains(&value.as_str())
            {
                list.push(value);
            }
        }
    }
    groups
        .into_iter()
        .map(|(text, clients, servers)| {
            let clients = clients.join(", ");
            match (servers.is_empty(), clients.is_empty()) {
                (true, true) => text.to_owned(),
                (true, false) => format!("{clients}: {text}"),
                (false, _) => format!("`{}` ({clients}): {text}", servers.join("`, `")),
            }
        })
        .collect()
}

impl Report for PlanReport {
    /// The items, whatever `--format` says (`--json` wins over it).
    fn json(&self) -> serde_json::Result<Value> {
        let mut items = serde_json::to_value(self.items().collect::<Vec<_>>())?;
        // `[budget]`: one line per budgeted client, after the items.
        if let Value::Array(items) = &mut items {
            for trim in &self.budget {
                let mut line = serde_json::Map::new();
                line.insert("client".into(), trim.cut.client.clone().into());
                line.insert("action".into(), "budget".into());
                line.insert("tokens".into(), serde_json::to_value(trim.counted.tokens)?);
                line.insert("max".into(), trim.cut.max.into());
                line.insert("over".into(), trim.over().into());
                line.insert(
                    "lines".into(),
                    serde_json::to_value(trim.lines(self.budget_made))?,
                );
                line.insert("changes".into(), serde_json::to_value(&trim.cut.changes)?);
                items.push(Value::Object(line));
            }
        }
        Ok(items)
    }

    fn human(&self, paint: Paint) -> Vec<Block> {
        let pretty = |value: serde_json::Result<Value>| {
            value
                .and_then(|v| serde_json::to_string_pretty(&v))
                .map(Block::Line)
                .into_iter()
                .collect()
        };
        match self.format {
            CheckFormat::Text => {
                let mut blocks = self.text(paint);
                blocks.extend(self.profile_line.clone().map(Block::Line));
                for trim in &self.budget {
                    if !self.budget_made {
                        blocks.extend(
                            trim.cut
                                .done
                                .iter()
                                .filter_map(|d| d.diff.as_deref())
                                .map(|d| Block::Raw(paint.diff(d))),
                        );
                    }
                    blocks.extend(trim.lines(self.budget_made).into_iter().map(Block::Line));
                }
                blocks
            }
            CheckFormat::Github => self
                .findings
                .iter()
                .map(|f| Block::Line(render::github_line(f)))
                .collect(),
            CheckFormat::Json => pretty(self.json()),
            CheckFormat::Sarif => pretty(Ok(render::sarif(&self.findings))),
        }
    }

    fn status(&self) -> ExitStatus {
        // A client over its budget is out of sync too (CI catches a server added by hand
        // that `apply` has not trimmed yet).
        let over = self.budget.iter().any(crate::manifest::budget::Trim::over);
        if self.check && (over || self.items().any(|i| !i.action.in_sync())) {
            ExitStatus::Problems
        } else {
            ExitStatus::Success
        }
    }
}
