//! `mcpctl update NAME`: re-render a registry-installed entry with the newest version,
//! the same form and the same inputs, and rewrite it in place (bytes outside the entry
//! untouched, the client's own fields kept). An entry edited by hand since mcpctl wrote
//! it is left alone unless `--force`.

use crate::cli::UpdateArgs;
use crate::clients::Scope;
use crate::entry::Dialect;
use crate::error::{ExitStatus, UserError};
use crate::output::Printer;
use crate::registry::installed::{newer, origin};
use crate::registry::resolve_error;
use crate::registry::{self, PackageType, Preference, Status, installed};
use crate::session::Context;
use crate::session::edit::{self, Action};
use crate::session::registry::{self as install, Newest, Written, live_installs, registry_for};
use crate::session::write::{self, Provenance};
use crate::state::ledger::{self, Ownership};

fn preference(form: &str) -> Preference {
    match form {
        "npm" => Preference::Package(PackageType::Npm),
        "pypi" => Preference::Package(PackageType::Pypi),
        "oci" => Preference::Package(PackageType::Oci),
        "nuget" => Preference::Package(PackageType::Nuget),
        _ => Preference::Remote,
    }
}

pub fn run(args: UpdateArgs, ctx: &Context, printer: &mut Printer) -> anyhow::Result<ExitStatus> {
    let UpdateArgs {
        name,
        clients,
        force,
        dry_run,
        no_wrap,
        registry: registry_args,
    } = args;
    let installs: Vec<installed::Install> = live_installs(ctx)?
        .into_iter()
        .filter(|i| i.name == name && (clients.is_empty() || clients.contains(&i.client)))
        .collect();
    if installs.is_empty() {
        return Err(UserError::new(format!(
            "no entry named `{name}` was installed from the registry{}",
            if clients.is_empty() {
                String::new()
            } else {
                format!(" in {}", clients.join(", "))
            }
        ))
        .hint("`mcpctl outdated` lists registry installs; an entry added another way can be replaced with `mcpctl add SERVER --force`")
        .into());
    }
    let mut newest = Newest::default();
    let mut warned: Vec<String> = Vec::new();
    let mut report = edit::EditReport::new(dry_run);
    let mut shown: Vec<(String, String)> = Vec::new();
    for install in &installs {
        let Some(client) = ctx.table.get(&install.client) else {
            printer.warn(&format!(
                "`{}` was installed in client `{}`, which the table no longer has",
                install.name, install.client
            ));
            continue;
        };
        let scope =
            <Scope as clap::ValueEnum>::from_str(&install.scope, true).unwrap_or(Scope::User);
        let registry = registry_for(ctx, &registry_args, Some(&install.registry));
        let item = newest
            .get(&registry, &install.server, printer)
            .map_err(|message| {
                UserError::new(message)
                    .hint("nothing was written; try again when the registry answers")
            })?;
        if item.status() == Status::Deprecated && !warned.contains(&item.server.name) {
            warned.push(item.server.name.clone());
            install::warn_deprecated(printer, &item);
        }
        if item.status() == Status::Deleted {
            report.push(
                ctx,
                client,
                scope,
                Err(resolve_error(registry::ResolveError::Deleted {
                    name: item.server.name.clone(),
                    message: item.status_message().map(registry::clean),
                })),
            );
            continue;
        }
        if !newer(&item.server.version, &install.version) {
            printer.note(&format!(
                "{} in {}: {} is the newest version",
                install.name, install.client, install.version
            ));
            continue;
        }
        let speaks = |t| client.supports(t);
        let asker: Option<registry::inputs::Prompt<'_>> = ctx
            .interactive
            .then(|| Box::new(install::prompt) as registry::inputs::Prompt<'_>);
        let resolved = registry::render_item(
            item.clone(),
            preference(&install.form),
            &install.inputs,
            &speaks,
            asker,
        )
        .map_err(|e| new_inputs_error(e, install, &item.server.version));
        // Inputs recorded as `{secret:NAME}` stay in the store: the launcher or bridge
        // form, as the install wrote it.
        let resolved = resolved.and_then(|mut r| {
            r.entry = write::secret_form(ctx, r.entry, &[])?;
            let transport = &r.entry.transport;
            r.exports
                .retain(|e| install::reads_variable(transport, &e.variable));
            Ok(r)
        });
        let resolved = match resolved {
            Ok(r) => r,
            Err(e) => {
                report.push(ctx, client, scope, Err(e));
                continue;
            }
        };
        let marker = (resolved.form_label.clone(), item.server.version.clone());
        if !shown.contains(&marker) {
            install::explain(printer, &[&resolved]);
            shown.push(marker);
        }
        let dialect = Dialect::of(client);
        let entry_key = crate::state::ledger::EntryKey {
            path: install.path.clone(),
            key: install.key.clone(),
            name: install.name.clone(),
        };
        let guard = |current: Option<&serde_json::Value>| -> anyhow::Result<()> {
            let Some(current) = current else {
                return Err(
                    UserError::new(format!("`{}` is no longer in the file", install.name))
                        .hint(format!("add it again with `mcpctl add {}`", install.server))
                        .into(),
                );
            };
            let mine = match ledger::fingerprint_raw(&dialect, current) {
                Some(fingerprint) => {
                    ctx.state.ownership(&entry_key, &fingerprint)? == Ownership::Mcpctl
                }
                None => false,
            };
            if !mine && !force {
                return Err(UserError::new(format!(
                    "`{}` was edited by hand since mcpctl installed {}@{}",
                    install.name, install.server, install.version
                ))
                .hint("pass `--force` to replace it with the new version (the client's own fields are kept)")
                .into());
            }
            Ok(())
        };
        let result = write::add_to(
            ctx,
            client,
            scope,
            &install.name,
            &resolved.entry,
            &[],
            write::Flags {
                force: true,
                dry_run,
                no_wrap,
            },
            &Provenance {
                origin: origin(&resolved),
                guard: Some(&guard),
            },
        )
        .and_then(|(path, outcome, notes, _)| {
            for note in notes {
                printer.warn(&note);
            }
            if !dry_run && outcome.action != Action::Failed {
                install::record(&Written {
                    ctx,
                    client,
                    scope,
                    name: &install.name,
                    registry: &registry,
                    resolved: &resolved,
                })?;
            }
            Ok((path, outcome))
        });
        report.push(ctx, client, scope, result);
    }
    printer.emit(&report)
}

/// A newer version that needs inputs the install did not give: `update` takes no
/// `--var`/`--env`/`--header` (it reuses the install's), so the way on is installing again.
fn new_inputs_error(
    error: registry::ResolveError,
    install: &installed::Install,
    version: &str,
) -> anyhow::Error {
    let registry::ResolveError::Inputs { name, lines } = error else {
        return resolve_error(error);
    };
    let mut what = Vec::new();
    let mut flags = Vec::new();
    for line in &lines {
        match line.split_once(": pass `") {
            Some((input, flag)) => {
                what.push(input.to_owned());
                flags.push(flag.trim_end_matches('`').to_owned());
            }
            None => what.push(line.clone()),
        }
    }
    UserError::new(format!(
        "`{name}` {} needs inputs that {} did not: {}",
        registry::clean(version),
        install.version,
        what.join(", ")
    ))
    .hint(format!(
        "`update` reuses the values given at install; give the new ones by installing it again: `mcpctl add {name} -c {} --force {}`; nothing was written",
        install.client,
        flags.join(" ")
    ))
    .into()
}
