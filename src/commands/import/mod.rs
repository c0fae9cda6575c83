//! `mcpctl import`: write a manifest from what is installed. Identical servers in several
//! clients become one entry with their `clients`; variants of one name are reported (the
//! first is imported); variable spellings become `${VAR}`; literal secrets become `${NAME}`
//! references (unless `--keep-secrets`) and the variables to export are printed. An
//! existing manifest is extended losslessly (toml_edit): servers it already has are kept.
//! Imported entries are adopted into the ledger for that manifest, so `apply` right after
//! changes nothing (except moving secrets out, which `plan` shows as `update`).

mod tables;

use tables::{extend_clients, server_table};

use indexmap::IndexMap;
use serde_json::{Map, Value};
use toml_edit::{DocumentMut, Item, Table};

use crate::cli::ImportArgs;
use crate::clients::{Client, Scope};
use crate::entry::{self, Dialect, ServerEntry, Transport};
use crate::error::{ExitStatus, UserError};
use crate::manifest::{self, Manifest};
use crate::output::Printer;
use crate::secrets::literal_secret;
use crate::session::inventory;
use crate::session::{Context, edit, targets};
use crate::state::Origin;
use crate::state::ledger::HOUSEKEEPING_KEYS;

/// One spelling of a server, and where it was found.
struct Variant<'a> {
    entry: ServerEntry,
    /// A launcher entry's `--secret` pairs: the manifest's `secrets = {…}`.
    secrets: Vec<crate::entry::launcher::EnvSecret>,
    /// A signed-in bridge's `--oauth LABEL`: the manifest's `login`.
    login: Option<String>,
    /// (client, file, raw entry as found)
    found: Vec<(&'a Client, crate::clients::Location, Value)>,
    /// Fields the manifest does not model, per client (`[servers.NAME.client.ID]`).
    client_fields: IndexMap<String, Map<String, Value>>,
    /// Per `found`: switched off there (the client's switch, or parked by `disable`).
    off: Vec<bool>,
}

/// An entry to import: in a client's file, or parked by `disable` (off).
struct Seen<'a> {
    client: &'a Client,
    scope: Scope,
    name: String,
    raw: Value,
    entry: Result<ServerEntry, crate::entry::EntryError>,
    off: bool,
}

pub fn run(args: ImportArgs, ctx: &Context, printer: &mut Printer) -> anyhow::Result<ExitStatus> {
    let ImportArgs {
        clients,
        scope,
        manifest: manifest_file,
        keep_secrets,
        store_secrets,
    } = args;
    if keep_secrets {
        // Asked for: the manifest (perhaps on stdout) keeps them as they are.
        printer.reveal_secrets();
    }
    let clients: Vec<&Client> = if clients.is_empty() {
        targets::detected_to_read(ctx)
    } else {
        targets::by_ids(ctx, &clients)?
    };
    let path = manifest::locate(manifest_file.as_deref(), &ctx.project, &ctx.platform)?;
    printer.note(&manifest::describe(
        &path,
        manifest_file.is_some(),
        &ctx.project,
    ));
    let found = read_entries(ctx, printer, &clients, scope, keep_secrets, store_secrets)?;
    let mut gathered = Gathered::default();
    for f in found {
        gathered.add(ctx, printer, f, scope, keep_secrets);
    }
    let existing = match crate::fs::read_source(&path) {
        Ok(source) if manifest_file.is_some() && source.exists() => Some(source),
        Ok(_) => None,
        Err(e) => return Err(UserError::new(e.to_string()).into()),
    };
    let mut doc = manifest_document(&path, existing.as_ref())?;
    // Only clients `apply` may write: servers read from home-manager's file go to every
    // detected client (no `clients` when nothing else was imported from).
    let used: Vec<&str> = clients
        .iter()
        .filter(|c| c.owned_by.is_none())
        .map(|c| c.id.as_str())
        .filter(|id| {
            gathered
                .servers
                .values()
                .any(|v| v[0].found.iter().any(|(c, _, _)| c.id == *id))
        })
        .collect();
    extend_clients(&mut doc, &used, scope, existing.is_none());
    let imported = insert_servers(&mut doc, &gathered.servers, &used, &path, printer)?;
    let text = doc.to_string();
    // Whatever we wrote must read back as a valid manifest.
    let parsed = Manifest::parse(&path, &text, &ctx.table).map_err(|e| {
        UserError::new(format!("the imported manifest does not validate: {e}"))
            .hint("this is a bug in mcpctl; nothing was written")
    })?;
    if manifest_file.is_some() {
        let source = match existing {
            Some(source) => source,
            None => crate::fs::read_source(&path).map_err(|e| UserError::new(e.to_string()))?,
        };
        ctx.state.lock()?;
        // The manifest was read before the lock: the write's version check catches an
        // edit made since (exit 2, nothing overwritten).
        let lock = edit::lock(ctx, &path)?;
        edit::write_file(ctx, &lock, &source, &text).map_err(|e| UserError::new(e.to_string()))?;
        printer.note(&format!(
            "imported {} server{} into `{}`",
            imported.len(),
            if imported.len() == 1 { "" } else { "s" },
            crate::output::file(&path)
        ));
    }
    if printer.json {
        // `--json`: the manifest as a string in a JSON object, as `export` prints its
        // document, never TOML on stdout.
        printer.json_value(&serde_json::json!({
            "path": manifest_file.is_some().then(|| path.display().to_string()),
            "written": manifest_file.is_some(),
            "servers": imported.iter().map(|(name, _)| name.as_str()).collect::<Vec<_>>(),
            "document": text,
        }))?;
    } else if manifest_file.is_none() {
        printer.raw(&text);
    }
    adopt(ctx, &parsed, &imported)?;
    gathered.notes(printer);
    Ok(ExitStatus::Success)
}

/// The entries of the clients' files (and the parked ones), once literal secrets went
/// into the store if the user says so; the files that could not be read are warned about.
fn read_entries<'a>(
    ctx: &Context,
    printer: &mut Printer,
    clients: &[&'a Client],
    scope: Scope,
    keep_secrets: bool,
    store_secrets: bool,
) -> anyhow::Result<Vec<Seen<'a>>> {
    let (mut found, mut broken) = inventory::collect(ctx, clients, None);
    // Literal secrets into the store first (the client entries become the launcher
    // form); read again, so the manifest gets `secrets = {…}` from those entries.
    if !keep_secrets
        && crate::session::adopt::offer_on_import(ctx, printer, &found, scope, store_secrets)?
    {
        (found, broken) = inventory::collect(ctx, clients, None);
    }
    let found = with_switch_states(ctx, clients, scope, found)?;
    for b in &broken {
        printer.warn(&format!(
            "skipped `{}`: {}",
            crate::output::file(&b.path),
            b.error
        ));
    }
    Ok(found)
}

/// The servers found, by name (each with its variants), and what the manifest needs
/// said about them.
#[derive(Default)]
struct Gathered<'a> {
    servers: IndexMap<String, Vec<Variant<'a>>>,
    /// Variables literal secrets became → where each secret was.
    variables: IndexMap<String, String>,
    /// Variable → the VS Code prompt id it stands for.
    prompts: IndexMap<String, String>,
}

impl<'a> Gathered<'a> {
    /// One entry found in `scope`, as the manifest spells it: a variant of its name.
    fn add(
        &mut self,
        ctx: &Context,
        printer: &Printer,
        f: Seen<'a>,
        scope: Scope,
        keep_secrets: bool,
    ) {
        if f.scope != scope || entry::is_override(f.client, &f.raw) {
            return;
        }
        let Ok(entry) = &f.entry else {
            printer.warn(&format!(
                "skipped `{}` in {}: it does not read as a server",
                f.name, f.client.id
            ));
            return;
        };
        // A launcher entry is the server it starts plus `secrets = {…}`, a signed-in
        // bridge its URL plus `login` (round trip).
        let (mut portable, secrets, login) = manifest::portable_server(entry);
        let extras = std::mem::take(&mut portable.extras);
        let prompt_fields = prompts_to_variables(&mut portable, &f.raw, &mut self.prompts);
        if !keep_secrets {
            move_secrets(&f.name, &mut portable, f.client, &mut self.variables);
        }
        let Some(location) = f
            .client
            .location(f.scope, &ctx.platform, &ctx.project)
            .ok()
            .flatten()
        else {
            return;
        };
        let mut fields = client_fields(f.client, &f.name, extras);
        fields.extend(prompt_fields);
        let variants = self.servers.entry(f.name.clone()).or_default();
        let variant = match variants
            .iter_mut()
            .position(|v| v.entry == portable && v.secrets == secrets && v.login == login)
        {
            Some(i) => &mut variants[i],
            None => {
                variants.push(Variant {
                    entry: portable,
                    secrets,
                    login,
                    found: Vec::new(),
                    client_fields: IndexMap::new(),
                    off: Vec::new(),
                });
                let last = variants.len() - 1;
                &mut variants[last]
            }
        };
        // A file another tool writes (home-manager's) is a source, never a target: its
        // raw fields are not the manifest's to render back.
        if !fields.is_empty() && f.client.owned_by.is_none() {
            variant.client_fields.insert(f.client.id.clone(), fields);
        }
        variant.found.push((f.client, location, f.raw));
        variant.off.push(f.off);
    }

    /// What the user must set where the clients run.
    fn notes(&self, printer: &Printer) {
        if !self.variables.is_empty() {
            printer.note(&format!(
                "literal secrets became references; set these variables where your clients run: {}",
                self.variables
                    .iter()
                    .map(|(name, from)| format!("{name} (from {from})"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            printer.note("`mcpctl plan` shows the entries whose secret moves to a variable");
        }
        if !self.prompts.is_empty() {
            printer.note(&format!(
                "VS Code prompts became variables for the other clients (VS Code keeps its prompts); set them where those clients run: {}",
                self.prompts
                    .iter()
                    .map(|(variable, id)| format!("{variable} (for `${{input:{id}}}`)"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
}

/// Timeouts are housekeeping to the ledger (a client may change them) but a setting of
/// the server's to the manifest: Codex's `startup_timeout_sec` round-trips.
const KEPT_HOUSEKEEPING: &[&str] = &[
    "timeout",
    "startup_timeout_sec",
    "startup_timeout_ms",
    "tool_timeout_sec",
];

/// The fields of a client's entry the manifest keeps for that client
/// (`[servers.NAME.client.ID]`): what the manifest does not model and `apply` would not
/// write anyway. Switches, approvals and tool filters are the client's own; what the
/// client's row writes into every entry (Goose's `name`, `description = ""`, `timeout =
/// 300`) and empty values (`envs = {}`, `available_tools = []`, `bundled = null`) are
/// left out, so only what differs from a fresh entry is kept.
fn client_fields(client: &Client, name: &str, extras: Map<String, Value>) -> Map<String, Value> {
    let defaults = match Dialect::of(client).with_defaults(Value::Object(Map::new()), name) {
        Value::Object(defaults) => defaults,
        _ => Map::new(),
    };
    extras
        .into_iter()
        .filter(|(k, _)| {
            !HOUSEKEEPING_KEYS.contains(&k.as_str()) || KEPT_HOUSEKEEPING.contains(&k.as_str())
        })
        .filter(|(k, v)| defaults.get(k) != Some(v))
        .filter(|(_, v)| match v {
            Value::Null => false,
            Value::Array(a) => !a.is_empty(),
            Value::Object(o) => !o.is_empty(),
            _ => true,
        })
        .collect()
}

/// `${input:id}` is VS Code's alone: the manifest gets a variable (remembered in
/// `prompts`), and VS Code its own spelling back as raw fields (returned), so importing
/// and applying changes nothing there.
fn prompts_to_variables(
    portable: &mut ServerEntry,
    raw: &Value,
    prompts: &mut IndexMap<String, String>,
) -> Map<String, Value> {
    let mut prompt_fields: Map<String, Value> = Map::new();
    let ids = crate::entry::render::inputs_to_variables(portable);
    if !ids.is_empty() {
        if let Value::Object(raw) = raw {
            for (key, value) in raw {
                if value.to_string().contains("${input:") {
                    prompt_fields.insert(key.clone(), value.clone());
                }
            }
        }
        for (id, variable) in ids {
            prompts.entry(variable).or_insert(id);
        }
    }
    prompt_fields
}

/// The manifest to extend (`existing`), or a new one.
fn manifest_document(
    path: &std::path::Path,
    existing: Option<&crate::fs::Source>,
) -> anyhow::Result<DocumentMut> {
    Ok(match existing {
        Some(source) => source.text.parse().map_err(|e: toml_edit::TomlError| {
            let position = e
                .span()
                .map(|span| crate::formats::position_of(&source.text, span.start));
            crate::session::inventory::file_error(
                path,
                position,
                format_args!("not valid TOML: {}", e.message().trim()),
            )
            .hint("fix the manifest first; mcpctl left it unchanged")
        })?,
        None => DocumentMut::new(),
    })
}

/// Each server's first variant into the manifest's `servers` (the others are warned
/// about), unless the manifest has it already: the ones imported.
fn insert_servers<'v, 'a>(
    doc: &mut DocumentMut,
    servers: &'v IndexMap<String, Vec<Variant<'a>>>,
    used: &[&str],
    path: &std::path::Path,
    printer: &Printer,
) -> anyhow::Result<Vec<(String, &'v Variant<'a>)>> {
    if !doc.contains_key("servers") {
        let mut table = Table::new();
        table.set_implicit(true);
        doc.insert("servers", Item::Table(table));
    }
    let mut imported = Vec::new();
    for (name, variants) in servers {
        let Some(table) = doc["servers"].as_table_mut() else {
            return Err(UserError::new(format!(
                "`servers` in `{}` is not a table",
                path.display()
            ))
            .hint("fix the manifest first; mcpctl left it unchanged")
            .into());
        };
        if table.contains_key(name) {
            printer.note(&format!(
                "`{name}` is already in the manifest; kept as it is"
            ));
            continue;
        }
        let variant = &variants[0];
        for other in &variants[1..] {
            printer.warn(&format!(
                "`{name}` differs between clients: imported the one in {}, not the one in {}",
                ids(variant),
                ids(other)
            ));
        }
        let everywhere = used
            .iter()
            .all(|id| variant.found.iter().any(|(c, _, _)| c.id == *id))
            || variant.found.iter().all(|(c, _, _)| c.owned_by.is_some());
        warn_off_in_some(printer, name, variant);
        table.insert(name, Item::Table(server_table(name, variant, !everywhere)));
        imported.push((name.clone(), variant));
    }
    Ok(imported)
}

/// A server off in some clients and on in others is imported as on: say so.
fn warn_off_in_some(printer: &Printer, name: &str, variant: &Variant<'_>) {
    if !(variant.off.contains(&true) && variant.off.contains(&false)) {
        return;
    }
    let side = |off: bool| {
        variant
            .found
            .iter()
            .zip(&variant.off)
            .filter(|(_, o)| **o == off)
            .map(|((c, _, _), _)| c.id.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    printer.warn(&format!(
        "`{name}` is off in {} but on in {}: imported as on, so `mcpctl apply` switches it on there (`mcpctl plan` shows it); add `enabled = false` to keep it off everywhere",
        side(true),
        side(false)
    ));
}

fn ids(variant: &Variant<'_>) -> String {
    variant
        .found
        .iter()
        .map(|(c, _, _)| c.id.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The entries of `scope` to import, each with whether it is switched off, plus the ones
/// `disable` parked (out of the file, kept in the state directory): a server that is off
/// stays off after `import` and `apply`.
fn with_switch_states<'a>(
    ctx: &Context,
    clients: &[&'a Client],
    scope: Scope,
    found: Vec<inventory::Found<'a>>,
) -> anyhow::Result<Vec<Seen<'a>>> {
    let probe = crate::toggle::Probe::new(ctx)?;
    let mut seen = Vec::new();
    for f in found {
        let location = crate::clients::Location {
            scope: f.scope,
            path: f.path.clone(),
            key: f.key.clone(),
            name_key: f.client.servers_name_key.clone(),
        };
        let off = probe.power(f.client, &location, &f.name, f.raw()) != crate::toggle::Power::On;
        let (client, scope) = (f.client, f.scope);
        let name = f.name.clone();
        let (raw, entry) = f.into_parts();
        seen.push(Seen {
            client,
            scope,
            name,
            raw,
            entry,
            off,
        });
    }
    for parked in probe.parked() {
        let Some(client) = clients.iter().find(|c| c.id == parked.client) else {
            continue;
        };
        if parked.scope != scope {
            continue;
        }
        let here = client
            .location(scope, &ctx.platform, &ctx.project)
            .ok()
            .flatten()
            .is_some_and(|l| crate::fs::identity(&l.path) == parked.entry.path);
        if here {
            seen.push(Seen {
                client,
                scope,
                name: parked.entry.name.clone(),
                raw: parked.raw.clone(),
                entry: Dialect::of(client).read_raw(&parked.raw),
                off: true,
            });
        }
    }
    Ok(seen)
}

/// Record every imported entry as the manifest's, with the fingerprint it has now.
fn adopt(
    ctx: &Context,
    manifest: &Manifest,
    imported: &[(String, &Variant<'_>)],
) -> anyhow::Result<()> {
    let origin = Origin::manifest(&manifest.path);
    for (name, variant) in imported {
        for (client, location, raw) in variant
            .found
            .iter()
            .filter(|(c, _, _)| c.owned_by.is_none())
        {
            crate::session::write::record(
                ctx,
                &Dialect::of(client),
                edit::entry_key(location, name),
                raw,
                &origin,
                crate::state::Created::default(),
            )?;
        }
    }
    Ok(())
}

/// Literal secrets (env and header values, secret arguments, URL userinfo and query
/// values: `secrets`' rule) become `${NAME}` references.
fn move_secrets(
    server: &str,
    entry: &mut ServerEntry,
    client: &Client,
    variables: &mut IndexMap<String, String>,
) {
    let variable = |key: &str| {
        format!("{server}_{key}")
            .to_ascii_uppercase()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect::<String>()
    };
    let mut note = |name: &str| {
        variables
            .entry(name.to_owned())
            .or_insert_with(|| format!("{server} in {}", client.id));
    };
    match &mut entry.transport {
        Transport::Stdio { env, args, .. } => {
            for found in crate::secrets::arg_secrets(args) {
                let name = variable(found.flag.as_deref().unwrap_or("arg"));
                let arg = &mut args[found.index];
                *arg = arg.replace(&found.value, &format!("${{{name}}}"));
                note(&name);
            }
            for (key, value) in env.iter_mut() {
                if literal_secret(key, value).is_some() {
                    *value = format!("${{{key}}}");
                    note(key);
                }
            }
        }
        Transport::Remote { headers, url, .. } => {
            let mut moved = url.clone();
            for found in crate::secrets::url_secrets(url).into_iter().rev() {
                let name = variable(found.param.as_deref().unwrap_or("userinfo"));
                moved.replace_range(found.at, &format!("${{{name}}}"));
                note(&name);
            }
            *url = moved;
            for (key, value) in headers.iter_mut() {
                if literal_secret(key, value).is_none() {
                    continue;
                }
                if key.eq_ignore_ascii_case("authorization")
                    && value.to_ascii_lowercase().starts_with("bearer ")
                {
                    let name = variable("token");
                    *value = format!("Bearer ${{{name}}}");
                    note(&name);
                } else {
                    let name = variable(key);
                    *value = format!("${{{name}}}");
                    note(&name);
                }
            }
        }
    }
}
