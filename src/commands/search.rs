//! `mcpctl search TEXT`: servers in the MCP Registry whose name matches, newest version
//! each, with how they run. Falls back to the cached answers (with a note) when the
//! registry cannot be reached. Registry text is sanitised before it reaches a terminal.

use serde::Serialize;

use crate::cli::SearchArgs;
use crate::commands::Context;
use crate::commands::install::{registry_error, registry_for};
use crate::error::ExitStatus;
use crate::output::{Printer, Style};
use crate::registry::{self, Status};

/// One `search --json` item.
#[derive(Debug, Serialize)]
pub struct Hit {
    pub name: String,
    pub title: Option<String>,
    pub version: String,
    /// `npm`, `pypi`, `oci`, `nuget`, `mcpb`, `remote`.
    pub runs: Vec<String>,
    pub description: String,
    pub status: Status,
    /// `github` for `io.github.*` names (verified by GitHub login), else `domain`.
    pub namespace: &'static str,
    /// The entry name `add` would use.
    pub entry_name: String,
}

pub fn run(args: SearchArgs, ctx: &Context, printer: &mut Printer) -> anyhow::Result<ExitStatus> {
    let SearchArgs {
        text,
        limit,
        registry: registry_args,
    } = args;
    let registry = registry_for(ctx, &registry_args, None);
    printer.progress(&format!("searching {}…", registry.base));
    let found = registry.search(&text, usize::from(limit));
    printer.progress_done();
    let found = found.map_err(registry_error)?;
    let hits: Vec<Hit> = found
        .items
        .iter()
        .filter(|i| i.status() != Status::Deleted)
        .map(|i| {
            let s = &i.server;
            let mut runs: Vec<String> = s
                .packages
                .iter()
                .map(|p| registry::clean(&p.registry_type))
                .collect();
            if !s.remotes.is_empty() {
                runs.push("remote".to_owned());
            }
            runs.dedup();
            Hit {
                name: registry::clean(&s.name),
                title: s.title.as_deref().map(registry::clean),
                version: registry::clean(&s.version),
                runs,
                description: registry::clean(&s.description),
                status: i.status(),
                namespace: if s.name.starts_with("io.github.") {
                    "github"
                } else {
                    "domain"
                },
                entry_name: registry::short_name(&s.name),
            }
        })
        .collect();
    if let Some((error, age)) = &found.offline {
        printer.warn(&format!(
            "{error}; showing {} cached result{} from {} ago",
            hits.len(),
            if hits.len() == 1 { "" } else { "s" },
            age_text(*age)
        ));
    }
    if printer.json {
        printer.json_value(&hits)?;
        return Ok(ExitStatus::Success);
    }
    if hits.is_empty() {
        printer.note(&format!("no server in {} matches `{text}`", registry.base));
        return Ok(ExitStatus::Success);
    }
    let rows: Vec<Vec<String>> = hits
        .iter()
        .map(|h| {
            let mut description: String = h.description.chars().take(60).collect();
            if h.description.chars().count() > 60 {
                description.push('…');
            }
            if h.status == Status::Deprecated {
                description = format!(
                    "{} {description}",
                    printer.paint(Style::Warn, "(deprecated)")
                );
            }
            vec![
                h.name.clone(),
                h.version.clone(),
                h.runs.join(","),
                description,
            ]
        })
        .collect();
    printer.table(&["NAME", "VERSION", "RUNS", "DESCRIPTION"], &rows);
    printer.note("install with `mcpctl add NAME -c CLIENT` (or `--all`)");
    Ok(ExitStatus::Success)
}

fn age_text(seconds: u64) -> String {
    match seconds {
        0..=119 => format!("{seconds}s"),
        120..=7199 => format!("{} min", seconds / 60),
        7200..=172_799 => format!("{} h", seconds / 3600),
        _ => format!("{} days", seconds / 86_400),
    }
}
