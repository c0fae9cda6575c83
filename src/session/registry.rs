//! The MCP Registry as a command asks it: which registry (`--registry`, the state
//! cache), fetching with progress, prompting for inputs, the installs the ledger still
//! follows, and recording what an install used. Shared by registry `add`, `search`,
//! `outdated`, `update` and the manifest planner; the registry's data and mapping are
//! `crate::registry`.

use std::path::Path;

use crate::cli::RegistryArgs;
use crate::clients::{Client, Scope};
use crate::error::UserError;
use crate::output::Printer;
use crate::registry::mapping::{Ask, InputKind};
use crate::registry::{
    self, Given, Item, Registry, ResolveError, Resolved, Status, installed, registry_error,
    resolve_error,
};
use crate::session::write::parse_pairs;
use crate::session::{Context, targets};

/// The state directory.
pub fn state_dir(ctx: &Context) -> Option<&Path> {
    ctx.state.root()
}

/// Legacy SSE URLs whose registry entry (as mcpctl last fetched it) also lists a
/// Streamable HTTP remote: URL → (server name, HTTP URL), for `check`'s MCP209.
pub fn sse_alternatives(ctx: &Context) -> crate::check::SseAlternatives {
    state_dir(ctx)
        .map(|s| crate::registry::api::sse_alternatives(&s.join("registry-cache")))
        .unwrap_or_default()
}

/// Registry installs the ledger still knows as mcpctl's `registry:SERVER@VERSION` entry
/// (a removed entry, or one whose ledger record is gone, is not followed any more).
pub fn live_installs(ctx: &Context) -> anyhow::Result<Vec<installed::Install>> {
    let mut out = Vec::new();
    for install in installed::load(state_dir(ctx)) {
        if is_live(ctx, &install)? {
            out.push(install);
        }
    }
    Ok(out)
}

/// The ledger still has the install's entry, from this registry server and version.
fn is_live(ctx: &Context, install: &installed::Install) -> anyhow::Result<bool> {
    let key = crate::state::ledger::EntryKey {
        path: install.path.clone(),
        key: install.key.clone(),
        name: install.name.clone(),
    };
    Ok(ctx.state.lookup(&key)?.is_some_and(|record| {
        record.source.registry_parts() == Some((install.server.as_str(), install.version.as_str()))
    }))
}

/// The registry the flags (or `MCPCTL_REGISTRY`) name, else `fallback`.
pub fn registry_for(ctx: &Context, args: &RegistryArgs, fallback: Option<&str>) -> Registry {
    let base = args
        .registry
        .as_deref()
        .or(fallback)
        .unwrap_or(registry::api::OFFICIAL);
    Registry::new(base, state_dir(ctx).map(|s| s.join("registry-cache")))
}

/// Fetch `name[@version]`; warn about a deprecated entry, refuse a deleted one.
pub fn fetch(
    registry: &Registry,
    name: &str,
    version: Option<&str>,
    printer: &Printer,
) -> anyhow::Result<Item> {
    warn_plain_http(printer, registry);
    printer.progress(&format!("asking {} for {name}…", registry.base));
    let item = registry.version(name, version);
    printer.progress_done();
    let item = item.map_err(registry_error)?;
    let pinned = version.is_none_or(|v| v == item.server.version);
    if !item.server.name.eq_ignore_ascii_case(name) || !pinned {
        return Err(UserError::new(format!(
            "{} answered with `{}@{}` when asked for `{name}@{}`",
            registry.base,
            registry::clean(&item.server.name),
            registry::clean(&item.server.version),
            version.unwrap_or("latest")
        ))
        .hint("the registry is not answering as the MCP Registry API does; nothing was written")
        .into());
    }
    match item.status() {
        Status::Deleted => {
            return Err(resolve_error(ResolveError::Deleted {
                name: item.server.name.clone(),
                message: item.status_message().map(registry::clean),
            }));
        }
        Status::Deprecated => warn_deprecated(printer, &item),
        Status::Active => {}
    }
    Ok(item)
}

/// A registry reached over plain `http://` (not loopback): what it answers becomes
/// commands, and anyone on the way can change it.
pub fn warn_plain_http(printer: &Printer, registry: &Registry) {
    if registry::validate::plain_http(&registry.base) {
        printer.warn(&format!(
            "the registry {} is reached over plain `http://`: what it answers becomes commands on this machine, and anyone on the network path can change it; use `https://`",
            registry.base
        ));
    }
}

/// `deprecated` entries install, with the publisher's message.
pub fn warn_deprecated(printer: &Printer, item: &Item) {
    printer.warn(&format!(
        "`{}` is deprecated{}",
        registry::clean(&item.server.name),
        item.status_message()
            .map(|m| format!(": {}", registry::clean(m)))
            .unwrap_or_default()
    ));
}

/// Newest versions already asked for in this run, by registry and server name.
#[derive(Default)]
pub struct Newest {
    seen: Vec<(String, String, Result<Item, String>)>,
}

impl Newest {
    /// `versions/latest` of `server`, asked once per run; errors as their message.
    pub fn get(
        &mut self,
        registry: &Registry,
        server: &str,
        printer: &Printer,
    ) -> Result<Item, String> {
        if let Some((_, _, answer)) = self
            .seen
            .iter()
            .find(|(base, name, _)| *base == registry.base && name == server)
        {
            return answer.clone();
        }
        printer.progress(&format!("asking {} for {server}…", registry.base));
        let answer = registry.version(server, None).map_err(|e| e.to_string());
        printer.progress_done();
        self.seen
            .push((registry.base.clone(), server.to_owned(), answer.clone()));
        answer
    }
}

/// A dialoguer prompt for a required, non-secret input (never for a secret).
pub fn prompt(ask: &Ask) -> anyhow::Result<Option<String>> {
    if ask.secret {
        return Ok(None);
    }
    let label = match ask.description {
        Some(d) => format!("{} ({})", ask.what, registry::clean(d)),
        None => ask.what.clone(),
    };
    if !ask.choices.is_empty() {
        let picked = dialoguer::Select::new()
            .with_prompt(label)
            .items(ask.choices)
            .default(0)
            .interact_opt()?;
        return Ok(picked.and_then(|i| ask.choices.get(i).cloned()));
    }
    let value: String = dialoguer::Input::new()
        .with_prompt(label)
        .allow_empty(true)
        .interact_text()?;
    Ok(Some(value))
}

/// `--env`, `--header`, `--var` as given values.
pub fn given_from(env: &[String], headers: &[String], vars: &[String]) -> anyhow::Result<Given> {
    let mut given = Given::default();
    for (kind, pairs, what, separators) in [
        (InputKind::Env, env, "env", &['='][..]),
        (InputKind::Header, headers, "header", &['=', ':'][..]),
        (InputKind::Var, vars, "var", &['='][..]),
    ] {
        for pair in pairs {
            for (name, value) in parse_pairs(std::slice::from_ref(pair), what, separators)? {
                given.push(kind, &name, &value);
            }
        }
    }
    Ok(given)
}

/// What one install wrote, for the record.
pub struct Written<'a> {
    pub ctx: &'a Context,
    pub client: &'a Client,
    pub scope: Scope,
    pub name: &'a str,
    pub registry: &'a Registry,
    pub resolved: &'a Resolved,
}

/// Record (or re-record) an install.
pub fn record(w: &Written<'_>) -> anyhow::Result<()> {
    let location = targets::location(w.ctx, w.client, w.scope)?;
    installed::record(
        state_dir(w.ctx),
        installed::Install {
            path: crate::fs::identity(&location.path),
            key: location.key,
            name: w.name.to_owned(),
            client: w.client.id.clone(),
            scope: w.scope.as_str().to_owned(),
            registry: w.registry.base.clone(),
            server: w.resolved.item.server.name.clone(),
            version: w.resolved.item.server.version.clone(),
            form: w.resolved.form_label.clone(),
            inputs: w.resolved.used.clone(),
        },
        &|install| is_live(w.ctx, install).unwrap_or(true),
    )
}

/// Whether `transport` still refers to `variable` (`${VAR}`, `${env:VAR}`, ...) anywhere.
pub fn reads_variable(transport: &crate::entry::Transport, variable: &str) -> bool {
    transport.strings().iter().any(|t| {
        crate::vars::references(t)
            .iter()
            .any(|r| r.name == variable)
    })
}

/// Tell what was resolved: the final command per form, the variables to export, and
/// the optional inputs left out.
/// How to set a variable is said the way `os` sets one.
pub fn explain(printer: &Printer, forms: &[&Resolved], os: crate::platform::Os) {
    for resolved in forms {
        for warning in &resolved.warnings {
            printer.warn(&format!(
                "{}: {}",
                registry::clean(&resolved.item.server.name),
                registry::clean(warning)
            ));
        }
    }
    for resolved in forms {
        let server = &resolved.item.server;
        printer.note(&format!(
            "{}@{} as {}: {}",
            server.name,
            registry::clean(&server.version),
            resolved.form_label,
            registry::clean(&registry::mapping::command_line(&resolved.entry.transport))
        ));
    }
    let mut exports: Vec<&registry::Export> = Vec::new();
    let mut optional: Vec<&String> = Vec::new();
    for resolved in forms {
        for export in &resolved.exports {
            if !exports.iter().any(|e| e.variable == export.variable) {
                exports.push(export);
            }
        }
        for line in &resolved.optional {
            if !optional.contains(&line) {
                optional.push(line);
            }
        }
    }
    if !exports.is_empty() {
        let lines: Vec<String> = exports
            .iter()
            .map(|e| {
                let about = e
                    .description
                    .as_deref()
                    .map(|d| format!("  # {d}"))
                    .unwrap_or_default();
                match &e.store {
                    Some(fill) => format!(
                        "  mcpctl secret set {}, then add again with {}{about}",
                        fill.secret, fill.flag
                    ),
                    None => format!(
                        "  {}{about}",
                        os.set_var_command(&e.variable).replace('`', "")
                    ),
                }
            })
            .collect();
        let stored = exports.iter().filter(|e| e.store.is_some()).count();
        printer.note(&format!(
            "secrets are not written into config files; {}:\n{}",
            if stored == 0 {
                "set these where the clients start"
            } else if stored == exports.len() {
                "as written, the entry reads them from the environment its client starts with; keep them in mcpctl's secret store instead"
            } else {
                "as written, the entry reads them from the environment its client starts with; keep them in mcpctl's secret store instead, or export the ones the store cannot fill"
            },
            lines.join("\n")
        ));
    }
    if !optional.is_empty() {
        printer.note(&format!(
            "optional inputs left out:\n  {}",
            optional
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join("\n  ")
        ));
    }
}
