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
    let mut update = Update {
        ctx,
        registry_args,
        force,
        dry_run,
        no_wrap,
        newest: Newest::default(),
        warned: Vec::new(),
        shown: Vec::new(),
        report: edit::EditReport::new(dry_run),
    };
    for install in &installs {
        update.one(install, printer)?;
    }
    printer.emit(&update.report)
}

/// What updating the installs of one name shares: the registry's answers, what was said
/// already, and the report.
struct Update<'c> {
    ctx: &'c Context,
    registry_args: crate::cli::RegistryArgs,
    /// Replace an entry edited by hand since it was installed.
    force: bool,
    dry_run: bool,
    no_wrap: bool,
    newest: Newest,
    /// Servers warned about as deprecated.
    warned: Vec<String>,
    /// (form, version) explained.
    shown: Vec<(String, String)>,
    report: edit::EditReport,
}

impl Update<'_> {
    /// One install: the newest version, rendered with the install's form and inputs,
    /// written over the entry.
    fn one(&mut self, install: &installed::Install, printer: &Printer) -> anyhow::Result<()> {
        let ctx = self.ctx;
        let Some(client) = ctx.table.get(&install.client) else {
            printer.warn(&format!(
                "`{}` was installed in client `{}`, which the table no longer has",
                install.name, install.client
            ));
            return Ok(());
        };
        let scope =
            <Scope as clap::ValueEnum>::from_str(&install.scope, true).unwrap_or(Scope::User);
        let registry = registry_for(ctx, &self.registry_args, Some(&install.registry));
        let Some(item) = self.newer_item(install, client, scope, &registry, printer)? else {
            return Ok(());
        };
        let version = item.server.version.clone();
        let resolved = match resolve(ctx, install, client, item) {
            Ok(r) => r,
            Err(e) => {
                self.report.push(ctx, client, scope, Err(e));
                return Ok(());
            }
        };
        let marker = (resolved.form_label.clone(), version);
        if !self.shown.contains(&marker) {
            install::explain(printer, &[&resolved], ctx.platform.os);
            self.shown.push(marker);
        }
        let dialect = Dialect::of(client);
        let entry_key = crate::state::ledger::EntryKey {
            path: install.path.clone(),
            key: install.key.clone(),
            name: install.name.clone(),
        };
        let force = self.force;
        let guard = |current: Option<&serde_json::Value>| {
            still_installed(ctx, &dialect, &entry_key, install, force, current)
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
                dry_run: self.dry_run,
                no_wrap: self.no_wrap,
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
            if !self.dry_run && outcome.action != Action::Failed {
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
        self.report.push(ctx, client, scope, result);
        Ok(())
    }

    /// The registry's newest version of the install's server, when it is newer; a
    /// deprecated one is warned about (once), a deleted one reported as failed.
    fn newer_item(
        &mut self,
        install: &installed::Install,
        client: &crate::clients::Client,
        scope: Scope,
        registry: &registry::Registry,
        printer: &Printer,
    ) -> anyhow::Result<Option<registry::Item>> {
        let item = self
            .newest
            .get(registry, &install.server, printer)
            .map_err(|message| {
                UserError::new(message)
                    .hint("nothing was written; try again when the registry answers")
            })?;
        if item.status() == Status::Deprecated && !self.warned.contains(&item.server.name) {
            self.warned.push(item.server.name.clone());
            install::warn_deprecated(printer, &item);
        }
        if item.status() == Status::Deleted {
            self.report.push(
                self.ctx,
                client,
                scope,
                Err(resolve_error(registry::ResolveError::Deleted {
                    name: item.server.name.clone(),
                    message: item.status_message().map(registry::clean),
                })),
            );
            return Ok(None);
        }
        if !newer(&item.server.version, &install.version) {
            printer.note(&format!(
                "{} in {}: {} is the newest version",
                install.name, install.client, install.version
            ));
            return Ok(None);
        }
        Ok(Some(item))
    }
}

/// `item` rendered for `client` in the install's form, with its inputs. Inputs recorded
/// as `{secret:NAME}` stay in the store: the launcher or bridge form, as the install
/// wrote it.
fn resolve(
    ctx: &Context,
    install: &installed::Install,
    client: &crate::clients::Client,
    item: registry::Item,
) -> anyhow::Result<registry::Resolved> {
    let speaks = |t| client.supports(t);
    let asker: Option<registry::inputs::Prompt<'_>> = ctx
        .interactive
        .then(|| Box::new(install::prompt) as registry::inputs::Prompt<'_>);
    let version = item.server.version.clone();
    let resolved = registry::render_item(
        item,
        preference(&install.form),
        &install.inputs,
        &speaks,
        asker,
    )
    .map_err(|e| new_inputs_error(e, install, &version));
    resolved.and_then(|mut r| {
        r.entry = write::secret_form(ctx, r.entry, &[])?;
        let transport = &r.entry.transport;
        r.exports
            .retain(|e| install::reads_variable(transport, &e.variable));
        Ok(r)
    })
}

/// The guard of the write: the entry is still there, and still as mcpctl installed it
/// (or `--force`).
fn still_installed(
    ctx: &Context,
    dialect: &Dialect<'_>,
    entry_key: &crate::state::ledger::EntryKey,
    install: &installed::Install,
    force: bool,
    current: Option<&serde_json::Value>,
) -> anyhow::Result<()> {
    let Some(current) = current else {
        return Err(
            UserError::new(format!("`{}` is no longer in the file", install.name))
                .hint(format!("add it again with `mcpctl add {}`", install.server))
                .into(),
        );
    };
    let mine = match ledger::fingerprint_raw(dialect, current) {
        Some(fingerprint) => ctx.state.ownership(entry_key, &fingerprint)? == Ownership::Mcpctl,
        None => false,
    };
    if !mine && !force {
        return Err(UserError::new(format!(
            "`{}` was edited by hand since mcpctl installed {}@{}",
            install.name, install.server, install.version
        ))
        .hint(
            "pass `--force` to replace it with the new version (the client's own fields are kept)",
        )
        .into());
    }
    Ok(())
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
