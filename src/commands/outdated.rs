//! `mcpctl outdated`: registry-installed entries whose server has a newer version in the
//! registry (`versions/latest`), or whose server the registry now marks deprecated or
//! deleted (with the publisher's `statusMessage`). Reads only: exit 0 whatever it finds, 2
//! if the registry could not be asked.

use serde::Serialize;

use crate::cli::OutdatedArgs;
use crate::error::ExitStatus;
use crate::output::{Block, Paint, Printer, Report};
use crate::registry::installed::newer;
use crate::registry::{self, Status, installed};
use crate::session::Context;
use crate::session::registry::{Newest, live_installs, registry_for};

/// One `outdated --json` item: a server at one installed version.
#[derive(Debug, Serialize)]
pub struct Outdated {
    /// The entry name(s), as `list` shows them.
    pub name: String,
    pub server: String,
    pub installed: String,
    pub latest: String,
    pub status: Status,
    /// Why the registry marks it deprecated or deleted, as the publisher said.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    pub clients: Vec<String>,
    pub registry: String,
}

pub fn run(args: OutdatedArgs, ctx: &Context, printer: &mut Printer) -> anyhow::Result<ExitStatus> {
    let OutdatedArgs {
        clients,
        registry: registry_args,
    } = args;
    let installs: Vec<installed::Install> = live_installs(ctx)?
        .into_iter()
        .filter(|i| clients.is_empty() || clients.contains(&i.client))
        .collect();
    let mut rows: Vec<Outdated> = Vec::new();
    let mut warned: Vec<String> = Vec::new();
    let mut newest = Newest::default();
    let mut answered = 0;
    for install in &installs {
        let registry = registry_for(ctx, &registry_args, Some(&install.registry));
        let latest = match newest.get(&registry, &install.server, printer) {
            Ok(item) => Some((
                item.server.version.clone(),
                item.status(),
                item.status_message().map(registry::clean),
            )),
            Err(message) => {
                if !warned.contains(&message) {
                    warned.push(message);
                }
                None
            }
        };
        let Some((latest, status, status_message)) = latest else {
            continue;
        };
        answered += 1;
        // A deprecated or deleted server is worth a row even without a newer version.
        if !newer(&latest, &install.version) && status == Status::Active {
            continue;
        }
        match rows.iter_mut().find(|r| {
            r.server == install.server && r.installed == install.version && r.name == install.name
        }) {
            Some(row) => {
                if !row.clients.contains(&install.client) {
                    row.clients.push(install.client.clone());
                }
            }
            None => rows.push(Outdated {
                name: install.name.clone(),
                server: install.server.clone(),
                installed: install.version.clone(),
                latest: registry::clean(&latest),
                status,
                status_message,
                clients: vec![install.client.clone()],
                registry: registry.base.clone(),
            }),
        }
    }
    printer.emit(&OutdatedReport {
        rows,
        warnings: warned,
        checked: answered,
        installed: installs.len(),
    })
}

/// The installed versions that have a newer one, and the registries that did not answer.
struct OutdatedReport {
    rows: Vec<Outdated>,
    /// One per registry answer that failed (exit 2: the check is incomplete).
    warnings: Vec<String>,
    /// How many registry-installed entries the registry answered for.
    checked: usize,
    /// How many registry-installed entries there are.
    installed: usize,
}

impl Report for OutdatedReport {
    fn json(&self) -> serde_json::Result<serde_json::Value> {
        serde_json::to_value(&self.rows)
    }

    fn human(&self, _paint: Paint) -> Vec<Block> {
        let mut blocks: Vec<Block> = self.warnings.iter().cloned().map(Block::Warning).collect();
        let plural = if self.installed == 1 { "y" } else { "ies" };
        if !self.warnings.is_empty() {
            // A registry that did not answer: say how far the check got, never "none".
            blocks.push(Block::Note(format!(
                "{} of {} registry-installed entr{plural} checked; the others could not be asked",
                self.checked, self.installed
            )));
        } else if self.rows.is_empty() {
            blocks.push(Block::Note(format!(
                "{} registry-installed entr{plural} checked; none has a newer version",
                self.checked
            )));
        }
        if self.rows.is_empty() {
            return blocks;
        }
        blocks.push(Block::table(
            vec!["NAME", "SERVER", "INSTALLED", "LATEST", "STATUS", "CLIENTS"],
            &self.rows,
            |r| {
                vec![
                    r.name.clone(),
                    r.server.clone(),
                    r.installed.clone(),
                    r.latest.clone(),
                    match (r.status, &r.status_message) {
                        (Status::Active, _) => "active".to_owned(),
                        (status, message) => {
                            let word = if status == Status::Deleted {
                                "deleted"
                            } else {
                                "deprecated"
                            };
                            match message {
                                Some(m) => format!("{word}: {m}"),
                                None => word.to_owned(),
                            }
                        }
                    },
                    r.clients.join(","),
                ]
            },
        ));
        blocks.push(Block::Note("update with `mcpctl update NAME`".to_owned()));
        blocks
    }

    fn status(&self) -> ExitStatus {
        if self.warnings.is_empty() {
            ExitStatus::Success
        } else {
            ExitStatus::Error
        }
    }
}

#[cfg(test)]
mod tests {
    use super::newer;

    #[test]
    fn versions_compare_as_numbers() {
        assert!(newer("1.10.0", "1.9.3"));
        assert!(!newer("1.9.3", "1.10.0"));
        assert!(!newer("1.0.0", "1.0.0"));
        assert!(newer("2025-12-01", "2025-11-30"));
        assert!(newer("v2", "v1.9"));
    }
}
