//! `mcpctl add io.github.owner/server[@VERSION]`: fetch the entry from the MCP Registry,
//! render the form each target client can use (a remote where it speaks HTTP, a package
//! otherwise), resolve every input (flags, defaults, prompts; secrets only as variable
//! references), then write through `add`'s own path and record what was used so
//! `outdated`/`update` can follow. Nothing is written if any input is missing.

use std::path::Path;

use crate::cli::{AddArgs, RegistryArgs};
use crate::clients::{Client, Scope};
use crate::commands::Context;
use crate::commands::add::{self, Provenance};
use crate::commands::edit::{self, Action};
use crate::commands::targets;
use crate::entry::{self, Transport};
use crate::error::{ExitStatus, UserError};
use crate::output::Printer;
use crate::registry::mapping::{self, Ask, InputKind};
use crate::registry::{
    self, Given, Item, Preference, Registry, RegistryError, ResolveError, Resolved, Status,
    installed,
};
use crate::state::Origin;

/// `add NAME` means the registry: NAME looks like `namespace/name` and nothing else says
/// what to run.
pub fn is_registry_add(args: &AddArgs) -> bool {
    args.command.is_empty()
        && args.url.is_none()
        && args.from_json.is_none()
        && args.stray.is_empty()
        && args.name.as_deref().is_some_and(registry::is_registry_name)
}

/// The state directory.
pub fn state_dir(ctx: &Context) -> Option<&Path> {
    ctx.state.root()
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

/// A registry error for a person: the URL and cause, a hint, nothing written.
pub fn registry_error(error: RegistryError) -> anyhow::Error {
    let hint = error.hint();
    UserError::new(error.to_string()).hint(hint).into()
}

pub fn resolve_error(error: ResolveError) -> anyhow::Error {
    match error {
        ResolveError::Registry(e) => registry_error(e),
        ResolveError::Map(e) => {
            let hint = e.hint();
            UserError::new(e.to_string()).hint(hint).into()
        }
        ResolveError::Deleted { .. } => UserError::new(error.to_string())
            .hint(
                "it is no longer offered; `mcpctl search` finds alternatives; nothing was written",
            )
            .into(),
        ResolveError::Inputs { .. } => UserError::new(error.to_string())
            .hint("nothing was written; give the values and run the command again")
            .into(),
    }
}

/// Fetch `name[@version]`; warn about a deprecated entry, refuse a deleted one.
pub fn fetch(
    registry: &Registry,
    name: &str,
    version: Option<&str>,
    printer: &Printer,
) -> anyhow::Result<Item> {
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
            for (name, value) in add::parse_pairs(std::slice::from_ref(pair), what, separators)? {
                given.push(kind, &name, &value);
            }
        }
    }
    Ok(given)
}

/// The form per client, rendered once per distinct form.
struct Plan {
    /// Per target client: index into `forms`.
    per_client: Vec<usize>,
    forms: Vec<Resolved>,
}

fn plan(
    ctx: &Context,
    item: &Item,
    clients: &[&Client],
    preference: Preference,
    given: &Given,
) -> anyhow::Result<Plan> {
    let mut forms: Vec<Resolved> = Vec::new();
    let mut per_client = Vec::new();
    let mut problems: Vec<String> = Vec::new();
    for client in clients {
        let speaks = |t| client.supports(t);
        let form = mapping::choose(&item.server, preference, &speaks)
            .map_err(|e| resolve_error(e.into()))?;
        if let Some(at) = forms.iter().position(|r| r.form == form) {
            per_client.push(at);
            continue;
        }
        let asker: Option<registry::inputs::Prompt<'_>> = ctx
            .interactive
            .then(|| Box::new(prompt) as registry::inputs::Prompt<'_>);
        match registry::render_item(item.clone(), preference, given, &speaks, asker) {
            Ok(resolved) => {
                per_client.push(forms.len());
                forms.push(resolved);
            }
            Err(ResolveError::Inputs { lines, .. }) => {
                for line in lines {
                    if !problems.contains(&line) {
                        problems.push(line);
                    }
                }
                per_client.push(usize::MAX);
            }
            Err(other) => return Err(resolve_error(other)),
        }
    }
    if !problems.is_empty() {
        return Err(UserError::new(format!(
            "cannot add `{}`: {} input{} need{} a value or {} refused:\n  - {}",
            item.server.name,
            problems.len(),
            if problems.len() == 1 { "" } else { "s" },
            if problems.len() == 1 { "s" } else { "" },
            if problems.len() == 1 { "was" } else { "were" },
            problems
                .iter()
                .map(|p| registry::clean(p))
                .collect::<Vec<_>>()
                .join("\n  - ")
        ))
        .hint("nothing was written; secrets go in as references: `export TOKEN=…` then `--env TOKEN='${TOKEN}'`")
        .into());
    }
    Ok(Plan { per_client, forms })
}

/// Given values no form asked about: `--env`/`--header` extras go into the entries that
/// can hold them (as with a plain `add`); an unknown `--var` is an error.
fn place_extras(
    item: &Item,
    given: &Given,
    cwd: Option<&String>,
    forms: &mut [Resolved],
) -> anyhow::Result<()> {
    let asked: Vec<mapping::InputKey> = forms.iter().flat_map(|r| r.asked.clone()).collect();
    let extras = registry::inputs::unasked(given, &asked);
    let stdio = forms
        .iter()
        .any(|r| matches!(r.entry.transport, Transport::Stdio { .. }));
    let remote = forms
        .iter()
        .any(|r| matches!(r.entry.transport, Transport::Remote { .. }));
    for (kind, pairs) in &extras {
        let names = pairs
            .iter()
            .map(|(n, _)| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let refuse = match kind {
            InputKind::Var => Some(format!(
                "`{}` has no input {names}; its inputs: {}",
                item.server.name,
                known_inputs(&asked)
            )),
            InputKind::Env if !stdio => Some(format!(
                "`--env` {names}: the chosen form of `{}` is remote; use `--header`",
                item.server.name
            )),
            InputKind::Header if !remote => Some(format!(
                "`--header` {names}: the chosen form of `{}` is a local command; use `--env`",
                item.server.name
            )),
            _ => None,
        };
        if let Some(message) = refuse {
            return Err(UserError::new(message)
                .hint("nothing was written; see the inputs with `mcpctl add NAME --dry-run`")
                .into());
        }
    }
    if cwd.is_some() && !stdio {
        return Err(UserError::new("`--cwd` is for local (stdio) servers")
            .hint("drop `--cwd`, or choose a package with `--package TYPE`")
            .into());
    }
    for resolved in forms.iter_mut() {
        match &mut resolved.entry.transport {
            Transport::Stdio { env, cwd: c, .. } => {
                for (name, value) in extras.get(&InputKind::Env).into_iter().flatten() {
                    env.insert(name.clone(), value.clone());
                }
                if let Some(cwd) = cwd {
                    *c = Some(cwd.clone());
                }
            }
            Transport::Remote { headers, .. } => {
                for (name, value) in extras.get(&InputKind::Header).into_iter().flatten() {
                    headers.insert(name.clone(), value.clone());
                }
            }
        }
    }
    Ok(())
}

fn known_inputs(asked: &[mapping::InputKey]) -> String {
    let vars: Vec<String> = asked
        .iter()
        .filter(|k| k.kind == InputKind::Var)
        .map(|k| format!("`{}`", k.name))
        .collect();
    if vars.is_empty() {
        "none via `--var`".to_owned()
    } else {
        vars.join(", ")
    }
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

/// The ledger's source for an install.
pub fn origin(resolved: &Resolved) -> Origin {
    Origin::registry(&resolved.item.server.name, &resolved.item.server.version)
}

/// Tell what was resolved: the final command per form, the variables to export, and
/// the optional inputs left out.
pub fn explain(printer: &Printer, forms: &[&Resolved]) {
    for resolved in forms {
        let server = &resolved.item.server;
        printer.note(&format!(
            "{}@{} as {}: {}",
            server.name,
            registry::clean(&server.version),
            resolved.form_label,
            registry::clean(&mapping::command_line(&resolved.entry.transport))
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
                format!("  export {}=…{about}", e.variable)
            })
            .collect();
        printer.note(&format!(
            "secrets are not written into config files; set these where the clients start:\n{}",
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

pub fn run(args: AddArgs, ctx: &Context, printer: &mut Printer) -> anyhow::Result<ExitStatus> {
    let AddArgs {
        name,
        stray: _,
        targets: target_args,
        scope,
        global,
        env,
        headers,
        cwd,
        url: _,
        transport: _,
        from_json: _,
        force,
        dry_run,
        no_wrap,
        command: _,
        vars,
        package,
        remote,
        entry_name,
        registry: registry_args,
    } = args;
    let scope = if global {
        crate::clients::Scope::User
    } else {
        scope
    };
    let name = name.unwrap_or_default();
    let (server_name, version) = registry::split_version(&name);
    let preference = match (package, remote) {
        (Some(kind), _) => Preference::Package(kind),
        (None, true) => Preference::Remote,
        (None, false) => Preference::Auto,
    };
    let given = given_from(&env, &headers, &vars)?;
    let registry = registry_for(ctx, &registry_args, None);
    let item = fetch(&registry, server_name, version, printer)?;
    let entry_name = entry_name.unwrap_or_else(|| registry::short_name(&item.server.name));
    entry::validate_name(&entry_name)
        .map_err(|m| UserError::new(m).hint("pick a short name with `--name`"))?;
    let clients = targets::choose(ctx, &target_args, "add", &|_| true)?;
    let Plan {
        per_client,
        mut forms,
    } = plan(ctx, &item, &clients, preference, &given)?;
    place_extras(&item, &given, cwd.as_ref(), &mut forms)?;
    for resolved in &forms {
        if let Transport::Remote { url, .. } = &resolved.entry.transport {
            add::validate_url(url)?;
        }
    }
    explain(printer, &forms.iter().collect::<Vec<_>>());
    let mut report = edit::EditReport::new(dry_run);
    for (client, at) in clients.iter().zip(per_client) {
        let Some(resolved) = forms.get(at) else {
            continue;
        };
        add::warn_unportable_name(printer, client, &entry_name);
        let how = Provenance {
            origin: origin(resolved),
            guard: None,
        };
        let result = add::add_to(
            ctx,
            client,
            scope,
            &entry_name,
            &resolved.entry,
            &[],
            add::Flags {
                force,
                dry_run,
                no_wrap,
            },
            &how,
        )
        .and_then(|(path, outcome, notes, _)| {
            for note in notes {
                printer.warn(&note);
            }
            if !dry_run && outcome.action != Action::Failed {
                record(&Written {
                    ctx,
                    client,
                    scope,
                    name: &entry_name,
                    registry: &registry,
                    resolved,
                })?;
            }
            Ok((path, outcome))
        });
        report.push(ctx, client, scope, result);
    }
    printer.emit(&report)
}
