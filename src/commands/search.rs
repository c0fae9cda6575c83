//! `mcpctl search TEXT`: servers in the MCP Registry whose name matches, newest version
//! each, with how they run. Falls back to the cached answers (with a note) when the
//! registry cannot be reached. Registry text is sanitised before it reaches a terminal.

use serde::Serialize;

use crate::cli::SearchArgs;
use crate::error::ExitStatus;
use crate::output::{Block, Paint, Printer, Report, Style};
use crate::registry::registry_error;
use crate::registry::{self, Status};
use crate::session::Context;
use crate::session::registry::{registry_for, warn_plain_http};

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
    /// The name's namespace (`io.github.example` of `io.github.example/weather`).
    pub namespace: String,
    /// How the registry verified the namespace: `github` for `io.github.*` names (a
    /// GitHub login), else `domain` (DNS or HTTP proof of the reversed domain).
    pub verified_by: &'static str,
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
    warn_plain_http(printer, &registry);
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
                namespace: registry::clean(s.name.split_once('/').map_or("", |(ns, _)| ns)),
                verified_by: if s.name.starts_with("io.github.") {
                    "github"
                } else {
                    "domain"
                },
                entry_name: registry::short_name(&s.name),
            }
        })
        .collect();
    let offline = found.offline.as_ref().map(|(error, age)| {
        format!(
            "{error}; showing {} cached result{} from {} ago",
            hits.len(),
            if hits.len() == 1 { "" } else { "s" },
            age_text(*age)
        )
    });
    printer.emit(&SearchReport {
        hits,
        offline,
        text,
        registry: registry.base.clone(),
    })
}

/// The servers found, newest version each.
struct SearchReport {
    hits: Vec<Hit>,
    /// The registry could not be reached: why, and how old the cached answer is.
    offline: Option<String>,
    /// What was searched for, and where.
    text: String,
    registry: String,
}

impl Report for SearchReport {
    fn json(&self) -> serde_json::Result<serde_json::Value> {
        serde_json::to_value(&self.hits)
    }

    fn human(&self, paint: Paint) -> Vec<Block> {
        let mut blocks: Vec<Block> = self.offline.iter().cloned().map(Block::Warning).collect();
        if self.hits.is_empty() {
            blocks.push(Block::Note(format!(
                "no server in {} matches `{}`",
                self.registry, self.text
            )));
            return blocks;
        }
        let rows = self
            .hits
            .iter()
            .map(|h| {
                let mut description: String = h.description.chars().take(60).collect();
                if h.description.chars().count() > 60 {
                    description.push('…');
                }
                if h.status == Status::Deprecated {
                    description =
                        format!("{} {description}", paint.paint(Style::Warn, "(deprecated)"));
                }
                vec![
                    h.name.clone(),
                    h.version.clone(),
                    h.runs.join(","),
                    description,
                ]
            })
            .collect();
        blocks.push(Block::Table {
            header: vec!["NAME", "VERSION", "RUNS", "DESCRIPTION"],
            rows,
        });
        blocks.push(Block::Note(
            "install with `mcpctl add NAME -c CLIENT` (or `--all`)".to_owned(),
        ));
        blocks
    }

    fn status(&self) -> ExitStatus {
        ExitStatus::Success
    }
}

fn age_text(seconds: u64) -> String {
    match seconds {
        0..=119 => format!("{seconds}s"),
        120..=7199 => format!("{} min", seconds / 60),
        7200..=172_799 => format!("{} h", seconds / 3600),
        _ => format!("{} days", seconds / 86_400),
    }
}
