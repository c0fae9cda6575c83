//! The one single-entry write path: put one rendered entry into one client's file (the
//! edit loop, `--force` rules, VS Code `inputs`) and record it in the ledger. `add`,
//! `copy`, registry installs and `update` write through here; nothing here prints.

use serde_json::Value;

use crate::clients::{Client, Scope};
use crate::entry::render::{entry_error, render};
use crate::entry::{self, Dialect, ServerEntry, StringMap};
use crate::error::UserError;
use crate::formats::{Edit, ServersAt};
use crate::output::{Printer, redact_raw};
use crate::session::edit::{self, Action};
use crate::session::{Context, inventory, targets};
use crate::state::{Created, Origin, ledger};

/// A name a target client keeps for its own built-in servers (Claude Code's `workspace`,
/// `computer-use`, ...) would be skipped or rejected by that client: refuse it before
/// anything is written.
pub(crate) fn refuse_reserved_name(clients: &[&Client], name: &str) -> Result<(), UserError> {
    match clients
        .iter()
        .find(|c| c.reserved_names.iter().any(|r| r == name))
    {
        Some(client) => Err(UserError::new(format!(
            "{} keeps the server name `{name}` for its own built-in server and skips or rejects an entry by that name",
            client.name
        ))
        .hint(format!("pick another name, such as `{name}-mcp`"))),
        None => Ok(()),
    }
}

/// Clients with `strict_names` take only `[A-Za-z0-9_-]` in names: say so before writing.
pub(crate) fn warn_unportable_name(printer: &Printer, client: &Client, name: &str) {
    if client.fields.strict_names && !entry::name_is_portable(name) {
        printer.warn(&format!(
            "{} may reject or rename the server `{name}`: its tool ids take only letters, digits, `-` and `_`",
            client.name
        ));
    }
}

/// The switches of `add` that shape each write.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Flags {
    pub force: bool,
    pub dry_run: bool,
    pub no_wrap: bool,
}

/// Checks an existing entry before it is replaced (`update`: still as mcpctl wrote it?).
pub(crate) type Guard<'a> = &'a dyn Fn(Option<&Value>) -> anyhow::Result<()>;

/// Where an entry comes from (for the ledger), and a check on the entry it replaces.
pub(crate) struct Provenance<'a> {
    pub origin: Origin,
    pub guard: Option<Guard<'a>>,
}

/// Merge VS Code `inputs` into the file's top-level `inputs` list, by id.
fn merge_inputs(doc: &mut dyn crate::formats::ConfigDoc, inputs: &[Value]) -> anyhow::Result<Edit> {
    let existing = doc
        .servers(ServersAt::map(&[]))?
        .into_iter()
        .find(|(k, _)| k == "inputs")
        .map(|(_, v)| v);
    let mut list = match existing {
        None => Vec::new(),
        Some(Value::Array(list)) => list,
        Some(_) => {
            return Err(UserError::new("the file's `inputs` is not a list")
                .hint("fix `inputs` by hand, or add the server without `${input:...}`")
                .into());
        }
    };
    let before = list.len();
    for input in inputs {
        let id = input.get("id");
        if !list.iter().any(|i| i.get("id") == id) {
            list.push(input.clone());
        }
    }
    if list.len() == before {
        return Ok(Edit::Unchanged);
    }
    Ok(doc.upsert(ServersAt::map(&[]), "inputs", &Value::Array(list))?)
}

/// Write `entry` into `client`'s file as that client spells it (Windows wrap, variable
/// syntax), with VS Code `inputs` it references. Returns the path shown, the outcome,
/// notes to print, and the entry as rendered for this client.
#[expect(
    clippy::too_many_arguments,
    reason = "the parts of one write, shared with registry installs and update"
)]
pub(crate) fn add_to(
    ctx: &Context,
    client: &Client,
    scope: Scope,
    name: &str,
    entry: &ServerEntry,
    inputs: &[Value],
    flags: Flags,
    how: &Provenance<'_>,
) -> anyhow::Result<(String, edit::Outcome, Vec<String>, ServerEntry)> {
    let Flags {
        force,
        dry_run,
        no_wrap,
    } = flags;
    let location = targets::location(ctx, client, scope)?;
    match inventory::read_only_of(ctx, client, name) {
        (Some(ex), _) => return Err(inventory::exclusive_error(ctx, client, &ex)),
        (None, Some(entry)) if !force => {
            return Err(inventory::managed_elsewhere(
                ctx,
                client,
                &entry,
                ", or pass --force to add an entry of your own with that name",
            ));
        }
        _ => {}
    }
    let dialect = Dialect::of(client);
    // Fail early (before reading the file) when the client cannot take this entry.
    let (entry, _, notes) = render(ctx.platform.os, client, entry, no_wrap)?;
    let path = location.path.clone();
    // The entry as last written by the closure below (it may run again after a
    // concurrent write), for the ledger.
    let written: std::cell::RefCell<Option<Value>> = std::cell::RefCell::new(None);
    // How the map was written before a new entry went in (what the add creates).
    let before: std::cell::RefCell<Option<crate::formats::MapState>> =
        std::cell::RefCell::new(None);
    let outcome = edit::apply(ctx, client, &location, dry_run, &|doc| {
        let existing = doc
            .servers(location.at())?
            .into_iter()
            .find(|(n, _)| n == name)
            .map(|(_, raw)| raw);
        edit::refuse_builtin(client, name, existing.as_ref())?;
        if let Some(guard) = how.guard {
            guard(existing.as_ref())?;
        }
        *before.borrow_mut() = match existing {
            // List-shaped servers (Vibe's `[[mcp_servers]]`) have no map to restore.
            None if location.name_key.is_none() => Some(doc.map_state(&location.key)?),
            None => None,
            Some(_) => None,
        };
        let raw = match existing {
            None => dialect
                .to_raw_named(&entry, Some(name))
                .map_err(|e| entry_error(e, client))?,
            Some(old_raw) => {
                let old = dialect.from_raw(&old_raw);
                if old.as_ref().is_ok_and(|old| old.same_as(&entry)) {
                    return if inputs.is_empty() {
                        Ok(Edit::Unchanged)
                    } else {
                        merge_inputs(doc, inputs)
                    };
                }
                if !force {
                    return Err(UserError::new(format!(
                        "`{name}` already exists in {} with different content\n  existing: {}\n  new:      {}",
                        client.name,
                        redact_raw(&old_raw, &client.fields),
                        redact_raw(&dialect.to_raw_named(&entry, Some(name)).map_err(|e| entry_error(e, client))?, &client.fields),
                    ))
                    .hint("pass `--force` to replace it (fields mcpctl does not manage are kept), or pick another name")
                    .into());
                }
                // Keep the client's own fields (autoApprove, timeout, ...) on replace.
                let mut merged = entry.clone();
                if let Ok(old) = old {
                    let mut extras = old.extras;
                    extras.extend(entry.extras.clone());
                    merged.extras = extras;
                }
                dialect
                    .to_raw_named(&merged, Some(name))
                    .map_err(|e| entry_error(e, client))?
            }
        };
        let edited = doc.upsert(location.at(), name, &raw)?;
        *written.borrow_mut() = Some(raw);
        let inputs_edit = if inputs.is_empty() {
            Edit::Unchanged
        } else {
            merge_inputs(doc, inputs)?
        };
        Ok(if edited == Edit::Unchanged {
            inputs_edit
        } else {
            edited
        })
    })?;
    if !dry_run
        && matches!(outcome.action, Action::Added | Action::Updated)
        && let Some(fingerprint) = written
            .borrow()
            .as_ref()
            .and_then(|raw| ledger::fingerprint_raw(&dialect, raw))
    {
        let key = edit::entry_key(&location, name);
        let mut created = Created {
            created_file: outcome.created,
            created_dirs: outcome.created_dirs.clone(),
            created_map: before
                .borrow()
                .clone()
                .filter(|m| !m.created_nothing(&location.key)),
        };
        created.inherit(&key, &ctx.state.records(&|r| r.entry.path == key.path)?);
        ctx.state
            .record(key, fingerprint, how.origin.clone(), created)?;
    }
    Ok((edit::shown(ctx, &path), outcome, notes, entry))
}

/// A remote URL must be `http(s)://host...` (or start with a variable reference).
pub(crate) fn validate_url(url: &str) -> anyhow::Result<()> {
    if url.starts_with("${") || url.starts_with("{env:") {
        return Ok(());
    }
    let lower = url.to_ascii_lowercase();
    let rest = lower
        .strip_prefix("https://")
        .or_else(|| lower.strip_prefix("http://"));
    let host = rest.map(|r| r.split(['/', '?', '#']).next().unwrap_or_default());
    let problem = match host {
        _ if url.trim().is_empty() => Some("the URL is empty"),
        None => Some("only http:// and https:// URLs reach an MCP server"),
        Some("") => Some("the URL has no host"),
        Some(_) if url.contains(char::is_whitespace) => Some("the URL contains a space"),
        Some(_) => None,
    };
    match problem {
        Some(problem) => Err(UserError::new(format!("`{url}` is not a server URL: {problem}"))
            .hint("give the address the server's docs print, e.g. `--url https://example.com/mcp`; nothing was written")
            .into()),
        None => Ok(()),
    }
}

pub(crate) fn parse_pairs(
    pairs: &[String],
    what: &str,
    separators: &[char],
) -> anyhow::Result<StringMap> {
    let mut out = StringMap::new();
    for pair in pairs {
        let Some(at) = pair.find(separators) else {
            return Err(UserError::new(format!("`{pair}` is not KEY=VALUE"))
                .hint(format!("write the {what} as `--{what} KEY=VALUE`"))
                .into());
        };
        let key = pair[..at].trim();
        if key.is_empty() {
            return Err(UserError::new(format!("`{pair}` has an empty key"))
                .hint(format!("write the {what} as `--{what} KEY=VALUE`"))
                .into());
        }
        out.insert(key.to_owned(), pair[at + 1..].trim_start().to_owned());
    }
    Ok(out)
}

/// The entry behind mcpctl's launcher or bridge when it names stored secrets (`--secret`,
/// `{secret:NAME}` values), with mcpctl's own absolute path: a client starts it with no
/// shell, and `npx mcpctl` would cost seconds per start. A secret the store does not
/// have yet is a warning: the entry works once it is set.
pub(crate) fn with_secrets(
    ctx: &Context,
    printer: &Printer,
    entry: ServerEntry,
    secrets: &[String],
) -> anyhow::Result<ServerEntry> {
    use crate::secret_store::launcher;
    let secrets = secrets
        .iter()
        .map(|s| {
            launcher::EnvSecret::parse(s).map_err(|e| {
                UserError::new(e)
                    .hint("write --secret ENV=SECRET, e.g. --secret GITHUB_TOKEN=github")
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let placeholders = |t: &entry::Transport| match t {
        entry::Transport::Stdio { env, .. } => env.values().any(|v| v.contains("{secret:")),
        entry::Transport::Remote { headers, .. } => {
            headers.values().any(|v| v.contains("{secret:"))
        }
    };
    if secrets.is_empty() && !placeholders(&entry.transport) {
        return Ok(entry);
    }
    let program = std::env::current_exe()
        .and_then(std::fs::canonicalize)
        .map_err(|e| {
            UserError::new(format!("cannot tell where this mcpctl binary is: {e}"))
                .hint("the launcher entry needs mcpctl's absolute path; run mcpctl by its path")
        })?;
    let ServerEntry { transport, extras } = entry;
    let transport = launcher::with_secrets(transport, &secrets, &program.display().to_string());
    let store = crate::secret_store::Store::new(
        &ctx.platform,
        ctx.state.root().map(std::path::Path::to_path_buf),
    );
    if let Some(logical) = launcher::logical(&transport) {
        for s in &logical.secrets {
            if store.backend_of(&s.secret).is_none() {
                printer.warn(&format!(
                    "secret `{}` is not in the store yet: the server cannot start until you run `mcpctl secret set {}`",
                    s.secret, s.secret
                ));
            }
        }
    }
    Ok(ServerEntry { transport, extras })
}
