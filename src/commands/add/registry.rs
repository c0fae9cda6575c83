//! `mcpctl add io.github.owner/server[@VERSION]`: fetch the entry from the MCP Registry,
//! render the form each target client can use (a remote where it speaks HTTP, a package
//! otherwise), resolve every input (flags, defaults, prompts; secrets only as variable
//! references), then write through `add`'s own path and record what was used so
//! `outdated`/`update` can follow. Nothing is written if any input is missing.

use crate::cli::AddArgs;
use crate::clients::Client;
use crate::entry::{self, Transport};
use crate::error::{ExitStatus, UserError};
use crate::output::Printer;
use crate::registry::installed::origin;
use crate::registry::mapping::{self, InputKind};
use crate::registry::resolve_error;
use crate::registry::{self, Given, Item, Preference, ResolveError, Resolved};
use crate::session::Context;
use crate::session::edit::{self, Action};
use crate::session::registry::{
    Written, explain, fetch, given_from, prompt, reads_variable, record, registry_for,
};
use crate::session::targets;
use crate::session::write::{self, Provenance};

/// `add NAME` means the registry: NAME looks like `namespace/name` and nothing else says
/// what to run.
pub fn is_registry_add(args: &AddArgs) -> bool {
    args.command.is_empty()
        && args.url.is_none()
        && args.from_json.is_none()
        && args.stray.is_empty()
        && args.name.as_deref().is_some_and(registry::is_registry_name)
}

/// The form per client, rendered once per distinct form.
struct Plan {
    /// Per target client: index into `forms`.
    per_client: Vec<usize>,
    forms: Vec<Resolved>,
}

/// A registry `cargo` package runs a binary that `cargo install --locked CRATE@VERSION`
/// puts on PATH: run that before any client file is written (`--dry-run` only says it
/// would), or refuse with a hint when there is no Rust toolchain.
fn install_cargo(
    ctx: &Context,
    forms: &[Resolved],
    dry_run: bool,
    printer: &Printer,
) -> anyhow::Result<()> {
    for resolved in forms {
        let mapping::Form::Package(at) = resolved.form else {
            continue;
        };
        let Some(package) = resolved.item.server.packages.get(at) else {
            continue;
        };
        let Some(args) = mapping::cargo_install(package) else {
            continue;
        };
        let shown = format!("cargo {}", args.join(" "));
        if !ctx.platform.on_path("cargo") {
            return Err(UserError::new(format!(
                "`{}` is a Rust crate (registry type cargo), and installing it needs a Rust toolchain: `cargo` is not on PATH",
                package.identifier
            ))
            .hint(format!(
                "install Rust (https://rustup.rs) and run this again, which runs `{shown}`; or pick another form with `--remote` or `--package TYPE`"
            ))
            .into());
        }
        if dry_run {
            printer.note(&format!("would run `{shown}` first"));
            continue;
        }
        printer.note(&format!("running `{shown}`"));
        let status = std::process::Command::new("cargo")
            .args(&args)
            .stdin(std::process::Stdio::null())
            .status()
            .map_err(|e| UserError::new(format!("cannot run `{shown}`: {e}")))?;
        if !status.success() {
            return Err(UserError::new(format!("`{shown}` failed ({status})"))
                .hint("cargo's output above says why; mcpctl wrote no client file")
                .into());
        }
    }
    Ok(())
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
        .hint("nothing was written; a secret comes from mcpctl's store (`mcpctl secret set NAME`, then `--secret VAR=NAME`) or, as a reference, from the client's environment (`--env VAR='${VAR}'`)")
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
    // A given value no form declared is written as given: a literal secret among them
    // would land in the file, so it is refused like a declared secret input.
    for (kind, pairs) in &extras {
        let flag = match kind {
            InputKind::Env => "--env",
            InputKind::Header => "--header",
            InputKind::Var => continue,
        };
        for (name, value) in pairs {
            if crate::secrets::literal_secret(name, value).is_some() {
                let variable = mapping::variable_name(
                    &registry::short_name(&item.server.name),
                    if name.eq_ignore_ascii_case("authorization") {
                        "token"
                    } else {
                        name
                    },
                );
                let bearer = if value.to_ascii_lowercase().starts_with("bearer ") {
                    "Bearer "
                } else {
                    ""
                };
                let secret = variable.to_ascii_lowercase().replace('_', "-");
                let stored = match kind {
                    InputKind::Env => format!("--secret {name}={secret}"),
                    _ => format!("--header '{name}={bearer}{{secret:{secret}}}'"),
                };
                return Err(UserError::new(format!(
                    "`{flag} {name}` holds a literal secret; mcpctl never writes secrets into config files"
                ))
                .hint(format!(
                    "nothing was written; keep it in mcpctl's store (`mcpctl secret set {secret}`) and pass `{stored}` instead"
                ))
                .into());
            }
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

/// A `cmd /c` line is re-read by `cmd.exe`, so on a Windows target a registry entry whose
/// wrapped arguments hold `& | < > ^ % ! "` would run more than the package: refused,
/// where a hand-made entry only gets a warning.
fn refuse_cmd_metacharacters(
    ctx: &Context,
    client: &Client,
    entry: &crate::entry::ServerEntry,
    no_wrap: bool,
) -> anyhow::Result<()> {
    let (rendered, _, _) = crate::entry::render::render(ctx.platform.os, client, entry, no_wrap)?;
    if let Transport::Stdio { command, args, .. } = &rendered.transport
        && entry::is_wrapped(command, args)
    {
        let risky = entry::cmd_metachar_args(args);
        if !risky.is_empty() {
            return Err(UserError::new(format!(
                "the `cmd /c` line for {} would hand {} from the registry to cmd.exe, which reads `& | < > ^ % ! \"` as commands",
                client.name,
                risky
                    .iter()
                    .map(|a| format!("`{}`", registry::clean(a)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
            .hint("nothing was written for it; add the server by hand if you trust those arguments")
            .into());
        }
    }
    Ok(())
}

/// Ask, hidden, for each secret input of `forms` that the store can fill and no
/// `--secret` gave, and keep each answer in the store (a name it holds already is used
/// as it is). An empty answer leaves that input to the environment, as off a terminal;
/// so does a store that cannot keep it (said as a warning).
fn ask_secrets(
    ctx: &Context,
    printer: &Printer,
    forms: &[Resolved],
    given: &[String],
) -> anyhow::Result<Vec<registry::inputs::StoreFill>> {
    let mut fills: Vec<&registry::Export> = Vec::new();
    for export in forms.iter().flat_map(|r| &r.exports) {
        let Some(fill) = &export.store else { continue };
        let by_flag = given
            .iter()
            .any(|g| g.split_once('=').is_some_and(|(var, _)| var == fill.field));
        if !by_flag
            && !fills
                .iter()
                .any(|f| f.store.as_ref().is_some_and(|s| s.secret == fill.secret))
        {
            fills.push(export);
        }
    }
    let store = ctx.secret_store();
    let mut stored = Vec::new();
    for export in fills {
        let Some(fill) = &export.store else { continue };
        if store.backend_of(&fill.secret).is_some() {
            printer.note(&format!(
                "{} comes from secret `{}`, already in mcpctl's store",
                export.what, fill.secret
            ));
            stored.push(fill.clone());
            continue;
        }
        let about = export
            .description
            .as_deref()
            .map(|d| format!(" ({d})"))
            .unwrap_or_default();
        let value = crate::picker::password_or_skip(&format!(
            "{}{about}: its value, kept in mcpctl's secret store as `{}` (empty: read it from the environment instead)",
            export.what, fill.secret
        ))?;
        if value.is_empty() {
            continue;
        }
        match store.set_value(&fill.secret, &crate::secret_store::Value(value)) {
            Ok(()) => stored.push(fill.clone()),
            Err(e) => printer.warn(&format!(
                "{e:#}; {} is left to the environment (`mcpctl secret set {} --command '…'` keeps it in a password manager instead)",
                export.what, fill.secret
            )),
        }
    }
    Ok(stored)
}

/// Record each secret input the store fills as the given value `{secret:NAME}` (a
/// header's whole value, `Bearer {secret:NAME}`), so `update` renders the same launcher
/// or bridge form instead of a `${VAR}` reference.
fn record_store_inputs(resolved: &mut Resolved, pairs: &[String]) {
    use crate::entry::launcher::EnvSecret;
    for export in &resolved.exports {
        let Some(fill) = &export.store else { continue };
        let value = match (&resolved.entry.transport, fill.kind) {
            (Transport::Stdio { .. }, InputKind::Env) => pairs
                .iter()
                .filter_map(|p| EnvSecret::parse(p).ok())
                .find(|p| p.var == fill.field)
                .map(|p| format!("{{secret:{}}}", p.secret)),
            (Transport::Remote { headers, .. }, InputKind::Header) => headers
                .get(&fill.field)
                .filter(|v| v.contains("{secret:"))
                .cloned(),
            _ => None,
        };
        if let Some(value) = value {
            resolved.used.push(fill.kind, &fill.field, &value);
        }
    }
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

pub fn run(args: AddArgs, ctx: &Context, printer: &mut Printer) -> anyhow::Result<ExitStatus> {
    let AddArgs {
        name,
        stray: _,
        targets: target_args,
        scope,
        global,
        env,
        headers,
        secrets,
        cwd,
        url: _,
        transport: _,
        from_json: _,
        force,
        dry_run,
        no_wrap,
        login,
        no_browser: _,
        command: _,
        vars,
        package,
        remote,
        entry_name,
        registry: registry_args,
    } = args;
    if login {
        return Err(crate::error::UserError::new(
            "`--login` signs in to a remote server given with --url",
        )
        .hint("add the registry server, then `mcpctl login NAME`")
        .into());
    }
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
    write::refuse_reserved_name(&clients, &entry_name)?;
    let Plan {
        per_client,
        mut forms,
    } = plan(ctx, &item, &clients, preference, &given)?;
    place_extras(&item, &given, cwd.as_ref(), &mut forms)?;
    // On a terminal, each secret input no flag gave is asked for (hidden) and kept in
    // the store.
    let stored = if ctx.interactive && !dry_run {
        ask_secrets(ctx, printer, &forms, &secrets)?
    } else {
        Vec::new()
    };
    // `--secret ENV=NAME`: the store fills the input, behind the launcher or bridge. A
    // variable the entry no longer reads (the store fills it) is not one to export.
    for resolved in &mut forms {
        let mut pairs = secrets.clone();
        pairs.extend(
            registry::inputs::fill_from_store(&mut resolved.entry.transport, &stored)
                .iter()
                .map(|p| p.arg()),
        );
        record_store_inputs(resolved, &pairs);
        resolved.entry = write::with_secrets(ctx, printer, resolved.entry.clone(), &pairs)?;
        let entry = &resolved.entry;
        resolved
            .exports
            .retain(|e| reads_variable(&entry.transport, &e.variable));
    }
    for resolved in &forms {
        if let Transport::Remote { url, .. } = &resolved.entry.transport {
            write::validate_url(url)?;
        }
    }
    explain(printer, &forms.iter().collect::<Vec<_>>(), ctx.platform.os);
    install_cargo(ctx, &forms, dry_run, printer)?;
    let mut report = edit::EditReport::new(dry_run);
    for (client, at) in clients.iter().zip(per_client) {
        let Some(resolved) = forms.get(at) else {
            continue;
        };
        write::warn_unportable_name(printer, client, &entry_name);
        if let Err(error) = refuse_cmd_metacharacters(ctx, client, &resolved.entry, no_wrap) {
            report.push(ctx, client, scope, Err(error));
            continue;
        }
        let how = Provenance {
            origin: origin(resolved),
            guard: None,
        };
        let result = write::add_to(
            ctx,
            client,
            scope,
            &entry_name,
            &resolved.entry,
            &[],
            write::Flags {
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
