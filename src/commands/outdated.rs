//! `mcpctl outdated`: registry-installed entries whose server has a newer version in the
//! registry (`versions/latest`). Reads only: exit 0 whatever it finds, 2 if the registry
//! could not be asked.

use serde::Serialize;

use crate::cli::OutdatedArgs;
use crate::commands::Context;
use crate::commands::install::{Newest, live_installs, registry_for};
use crate::error::ExitStatus;
use crate::output::Printer;
use crate::registry::{self, Status, installed};

/// One `outdated --json` item: a server at one installed version.
#[derive(Debug, Serialize)]
pub struct Outdated {
    /// The entry name(s), as `list` shows them.
    pub name: String,
    pub server: String,
    pub installed: String,
    pub latest: String,
    pub status: Status,
    pub clients: Vec<String>,
    pub registry: String,
}

/// Whether `latest` is newer than `installed`: numeric dotted parts compared as numbers;
/// anything else, when different.
pub fn newer(latest: &str, installed: &str) -> bool {
    let numbers = |v: &str| -> Option<Vec<u64>> {
        v.trim_start_matches('v')
            .split(['-', '+'])
            .next()?
            .split('.')
            .map(|p| p.parse().ok())
            .collect()
    };
    match (numbers(latest), numbers(installed)) {
        (Some(l), Some(i)) if l != i => l > i,
        _ => latest != installed,
    }
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
    for install in &installs {
        let registry = registry_for(ctx, &registry_args, Some(&install.registry));
        let latest = match newest.get(&registry, &install.server, printer) {
            Ok(item) => Some((item.server.version.clone(), item.status())),
            Err(message) => {
                if !warned.contains(&message) {
                    printer.warn(&message);
                    warned.push(message);
                }
                None
            }
        };
        let Some((latest, status)) = latest else {
            continue;
        };
        if !newer(&latest, &install.version) {
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
                clients: vec![install.client.clone()],
                registry: registry.base.clone(),
            }),
        }
    }
    if printer.json {
        printer.json_value(&rows)?;
    } else if rows.is_empty() {
        printer.note(&format!(
            "{} registry-installed entr{} checked; none has a newer version",
            installs.len(),
            if installs.len() == 1 { "y" } else { "ies" }
        ));
    } else {
        let table: Vec<Vec<String>> = rows
            .iter()
            .map(|r| {
                vec![
                    r.name.clone(),
                    r.server.clone(),
                    r.installed.clone(),
                    r.latest.clone(),
                    r.clients.join(","),
                ]
            })
            .collect();
        printer.table(
            &["NAME", "SERVER", "INSTALLED", "LATEST", "CLIENTS"],
            &table,
        );
        printer.note("update with `mcpctl update NAME`");
    }
    Ok(if !warned.is_empty() {
        ExitStatus::Error
    } else {
        ExitStatus::Success
    })
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
