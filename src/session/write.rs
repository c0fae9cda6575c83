//! The one single-entry write path: put one rendered entry into one client's file (the
//! edit loop, `--force` rules, VS Code `inputs`) and record it in the ledger. `add`,
//! `copy`, registry installs and `update` write through here; so do `check --fix`
//! ([`fix_entries`], the fixes `check::fix` plans) and `check --fix --secrets`
//! (`session::adopt::adopt_literals`). Nothing here prints.

use std::path::PathBuf;

use serde_json::Value;

use crate::clients::{Client, Location, Scope};
use crate::entry::render::{entry_error, render};
use crate::entry::{self, Dialect, ServerEntry, StringMap};
use crate::error::UserError;
use crate::formats::{ConfigDoc, Edit, ServersAt};
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

/// Refuse an entry an administrator's policy file keeps out of `client` (src/policy/):
/// the client would not load it, and mcpctl does not override the administrator.
pub fn refuse_blocked(
    ctx: &Context,
    client: &Client,
    name: &str,
    entry: &ServerEntry,
) -> anyhow::Result<()> {
    refuse_blocked_by(
        &crate::policy::read::load(client, &ctx.platform),
        client,
        name,
        entry,
    )
}

/// [`refuse_blocked`] by `client`'s policies as already read (`policy::read::load`): a
/// plan checks every entry of a file against the same files.
pub fn refuse_blocked_by(
    policies: &crate::policy::read::Loaded,
    client: &Client,
    name: &str,
    entry: &ServerEntry,
) -> anyhow::Result<()> {
    match policies.blocks(name, entry) {
        Some(block) => Err(crate::error::UserError::new(format!(
            "`{name}` for {}: {}",
            client.name,
            block.reason(&client.name)
        ))
        .hint(format!("{}; nothing was written", block.ask()))
        .into()),
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

/// Where VS Code keeps its prompts: the top-level `inputs` list, items named by `id`.
fn inputs_key() -> Vec<String> {
    vec!["inputs".to_owned()]
}

/// Add the VS Code `inputs` the entry uses to the file's top-level `inputs` list, each
/// spliced in after the others (the user's items and comments stay as written); an id
/// already there is left alone.
fn merge_inputs(doc: &mut dyn crate::formats::ConfigDoc, inputs: &[Value]) -> anyhow::Result<Edit> {
    let key = inputs_key();
    let at = ServersAt::list(&key, "id");
    let have: Vec<String> = doc
        .servers(at)
        .map_err(|e| {
            UserError::new(format!("the file's `inputs` cannot be edited: {e}"))
                .hint("fix `inputs` by hand, or add the server without `${input:...}`")
        })?
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    let mut edit = Edit::Unchanged;
    for input in inputs {
        let Some(id) = input.get("id").and_then(Value::as_str) else {
            continue;
        };
        if have.iter().any(|h| h == id) {
            continue;
        }
        let mut rest = input.clone();
        if let Value::Object(map) = &mut rest {
            map.remove("id");
        }
        if doc.upsert(at, id, &rest)? != Edit::Unchanged {
            edit = Edit::Added;
        }
    }
    Ok(edit)
}

/// After `removed` left the servers at `servers`: take out the VS Code `inputs` it used
/// that no other entry of the file uses (and the `inputs` list, once empty).
pub(crate) fn drop_unused_inputs(
    doc: &mut dyn crate::formats::ConfigDoc,
    servers: ServersAt<'_>,
    removed: &Value,
) -> anyhow::Result<()> {
    let used = |value: &Value| -> Vec<String> {
        // Reference names have no characters JSON escapes, so the text form finds them.
        let mut ids: Vec<String> = Vec::new();
        for r in crate::vars::references(&value.to_string()) {
            if r.syntax == crate::vars::Syntax::Input && !ids.contains(&r.name) {
                ids.push(r.name);
            }
        }
        ids
    };
    let ids = used(removed);
    if ids.is_empty() {
        return Ok(());
    }
    let others: Vec<String> = doc
        .servers(servers)?
        .iter()
        .flat_map(|(_, raw)| used(raw))
        .collect();
    let key = inputs_key();
    let at = ServersAt::list(&key, "id");
    let Ok(listed) = doc.servers(at) else {
        // An `inputs` that is not a list is the user's to fix; the entry is gone anyway.
        return Ok(());
    };
    let mut left = listed.len();
    for id in ids.iter().filter(|id| !others.contains(id)) {
        if listed.iter().any(|(n, _)| n == id) && doc.remove(at, id)? == Edit::Removed {
            left -= 1;
        }
    }
    if left == 0 && !listed.is_empty() {
        doc.remove(ServersAt::map(&[]), "inputs")?;
    }
    Ok(())
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
) -> anyhow::Result<(PathBuf, edit::Outcome, Vec<String>, ServerEntry)> {
    let Flags {
        force,
        dry_run,
        no_wrap,
    } = flags;
    let location = targets::location(ctx, client, scope)?;
    match inventory::read_only_of(ctx, client, name) {
        (Some(ex), _) => return Err(inventory::exclusive_error(client, &ex)),
        (None, Some(entry)) if !force => {
            return Err(inventory::managed_elsewhere(
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
    refuse_blocked(ctx, client, name, &entry)?;
    let path = location.path.clone();
    // The entry as last written by the closure below (it may run again after a
    // concurrent write), for the ledger.
    let written: std::cell::RefCell<Option<Value>> = std::cell::RefCell::new(None);
    // How the map was written before a new entry went in (what the add creates).
    let before: std::cell::RefCell<Option<crate::formats::MapState>> =
        std::cell::RefCell::new(None);
    let spellings = match scope {
        Scope::Local => client.local_locations(&ctx.platform, &ctx.project),
        _ => Vec::new(),
    };
    let outcome = edit::apply(ctx, client, &location, dry_run, &|doc| {
        let moved = take_stray(doc, &spellings, &location, name)?;
        let existing = match &moved {
            Some(raw) => Some(raw.clone()),
            None => entry_at(doc, &location, name),
        };
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
                let old = dialect.read_raw(&old_raw);
                let same = old.as_ref().is_ok_and(|old| old.same_as(&entry));
                if same && moved.is_some() {
                    old_raw
                } else if same {
                    return if inputs.is_empty() {
                        Ok(Edit::Unchanged)
                    } else {
                        merge_inputs(doc, inputs)
                    };
                } else {
                    if !force {
                        return Err(UserError::new(format!(
                        "`{name}` already exists with different content\n  existing: {}\n  new:      {}",
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
            }
        };
        let edited = doc.upsert(location.at(), name, &raw)?;
        if !dry_run {
            expect(
                ctx,
                &dialect,
                &location,
                name,
                &raw,
                &how.origin,
                before.borrow().clone(),
            );
        }
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
    let mut outcome = outcome;
    if !dry_run
        && matches!(outcome.action, Action::Added | Action::Updated)
        && let Some(raw) = written.borrow().as_ref()
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
        // The file is written whatever happens here: a ledger that cannot be read or
        // written is said with the row, not as a failed write (issue 39 F16).
        let recorded = ctx
            .state
            .records(&|r| r.entry.path == key.path)
            .and_then(|records| {
                created.inherit(&key, &records);
                record(ctx, &dialect, key, raw, &how.origin, created)
            });
        if let Err(error) = recorded {
            outcome.unrecorded = Some(edit::Unrecorded::of(&error));
        }
    }
    Ok((path, outcome, notes, entry))
}

/// Say what `add_to` will record for `raw` once the file is written (`State::expect`):
/// the record `add_to` makes after the write, as far as it is known before it.
fn expect(
    ctx: &Context,
    dialect: &Dialect<'_>,
    location: &Location,
    name: &str,
    raw: &Value,
    origin: &Origin,
    created_map: Option<crate::formats::MapState>,
) {
    let Some(fingerprint) = ledger::fingerprint_raw(dialect, raw) else {
        return;
    };
    let key = edit::entry_key(location, name);
    let mut created = Created {
        created_file: std::fs::symlink_metadata(&location.path).is_err(),
        created_dirs: crate::fs::missing_dirs(&location.path),
        created_map: created_map.filter(|m| !m.created_nothing(&location.key)),
    };
    if let Ok(records) = ctx.state.records(&|r| r.entry.path == key.path) {
        created.inherit(&key, &records);
    }
    ctx.state
        .expect_record(key, fingerprint, origin.clone(), created);
}

/// The one ledger recorder of every writing command (`add`, `copy`, installs, `update`,
/// `apply`, `import`): remember that `raw`, written (or adopted) at `key`, is mcpctl's,
/// from `origin`. An entry the dialect cannot read is not recorded: it stays hand-made,
/// which makes mcpctl more careful, never less.
/// The entry `name` at `location` in `doc`, as written.
fn entry_at(doc: &dyn ConfigDoc, location: &Location, name: &str) -> Option<Value> {
    doc.servers(location.at())
        .ok()?
        .into_iter()
        .find(|(n, _)| n == name)
        .map(|(_, raw)| raw)
}

/// An entry `name` under another spelling of the local scope's project key (`spellings`:
/// one an older mcpctl wrote on Windows, which Claude Code never loads), taken out of
/// `doc` so that the add writes it where the client reads it. `None` when there is none,
/// or `location` holds `name` already.
fn take_stray(
    doc: &mut dyn ConfigDoc,
    spellings: &[Location],
    location: &Location,
    name: &str,
) -> anyhow::Result<Option<Value>> {
    if entry_at(doc, location, name).is_some() {
        return Ok(None);
    }
    for stray in spellings.iter().filter(|l| l.key != location.key) {
        if let Some(raw) = entry_at(doc, stray, name) {
            doc.remove(stray.at(), name)?;
            return Ok(Some(raw));
        }
    }
    Ok(None)
}

pub fn record(
    ctx: &Context,
    dialect: &Dialect<'_>,
    key: crate::state::EntryKey,
    raw: &crate::formats::RawEntry,
    origin: &Origin,
    created: Created,
) -> anyhow::Result<()> {
    record_fingerprint(
        ctx,
        key,
        ledger::fingerprint_raw(dialect, raw),
        origin,
        created,
    )
}

/// [`record`] of an entry whose fingerprint is known (`None`: it does not read as a
/// server, and is not recorded).
pub fn record_fingerprint(
    ctx: &Context,
    key: crate::state::EntryKey,
    fingerprint: Option<ledger::Fingerprint>,
    origin: &Origin,
    created: Created,
) -> anyhow::Result<()> {
    match fingerprint {
        Some(fingerprint) => ctx.state.record(key, fingerprint, origin.clone(), created),
        None => Ok(()),
    }
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
    use crate::entry::launcher;
    let secrets = secrets
        .iter()
        .map(|s| {
            launcher::EnvSecret::parse(s).map_err(|e| {
                UserError::new(e)
                    .hint("write --secret ENV=SECRET, e.g. --secret GITHUB_TOKEN=github")
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let entry = secret_form(ctx, entry, &secrets)?;
    if let crate::entry::Transport::Stdio { command, .. } = &entry.transport
        && crate::entry::launcher::logical(&entry.transport).is_some()
        && let Some(warning) = crate::session::program::source_build_warning(&ctx.platform, command)
    {
        printer.warn(&warning);
    }
    for name in unset_secrets(ctx, &entry.transport) {
        printer.warn(&format!(
            "secret `{name}` is not in the store yet: the server cannot start until you run `mcpctl secret set {name}`"
        ));
    }
    Ok(entry)
}

/// `entry` in the launcher or bridge form when it names stored secrets (`secrets`, or
/// `{secret:NAME}` values), started by this mcpctl binary; unchanged otherwise. What
/// `add --secret` and a manifest's `secrets = {…}` write.
pub(crate) fn secret_form(
    ctx: &Context,
    entry: ServerEntry,
    secrets: &[crate::entry::launcher::EnvSecret],
) -> anyhow::Result<ServerEntry> {
    let placeholders = |t: &entry::Transport| match t {
        entry::Transport::Stdio { env, .. } => env.values().any(|v| v.contains("{secret:")),
        entry::Transport::Remote { headers, .. } => {
            headers.values().any(|v| v.contains("{secret:"))
        }
    };
    if secrets.is_empty() && !placeholders(&entry.transport) {
        return Ok(entry);
    }
    let program = program(ctx)?;
    let ServerEntry { transport, extras } = entry;
    let transport = crate::entry::launcher::with_secrets(transport, secrets, &program);
    Ok(ServerEntry { transport, extras })
}

/// `entry` (a remote entry, or the bridge `secret_form` made of it) as mcpctl's bridge
/// sending the sign-in `oauth.LABEL` (`--oauth LABEL`), started by this mcpctl binary.
/// What a manifest's `login` writes; anything else is left as it is.
pub(crate) fn login_form(
    ctx: &Context,
    entry: ServerEntry,
    label: &str,
) -> anyhow::Result<ServerEntry> {
    use crate::entry::launcher;
    let ServerEntry { transport, extras } = entry;
    let transport = match transport {
        entry::Transport::Remote { url, kind, headers } => entry::Transport::Stdio {
            command: program(ctx)?,
            args: launcher::oauth_bridge_args(&url, kind, &headers, label),
            env: crate::entry::StringMap::new(),
            cwd: None,
        },
        entry::Transport::Stdio {
            command,
            mut args,
            env,
            cwd,
        } => {
            let bridge = launcher::logical(&entry::Transport::Stdio {
                command: command.clone(),
                args: args.clone(),
                env: env.clone(),
                cwd: cwd.clone(),
            })
            .filter(|l| l.via == launcher::Via::Bridge);
            if bridge.is_some_and(|b| b.oauth.is_none()) {
                args.push("--oauth".to_owned());
                args.push(label.to_owned());
            }
            entry::Transport::Stdio {
                command,
                args,
                env,
                cwd,
            }
        }
    };
    Ok(ServerEntry { transport, extras })
}

/// The secrets a launcher or bridge entry names that this machine's store does not hold
/// (in order, each once).
pub(crate) fn unset_secrets(ctx: &Context, transport: &entry::Transport) -> Vec<String> {
    let Some(logical) = crate::entry::launcher::logical(transport) else {
        return Vec::new();
    };
    let store = ctx.secret_store();
    let mut unset: Vec<String> = Vec::new();
    for s in logical.secrets {
        if !unset.contains(&s.secret) && store.backend_of(&s.secret).is_none() {
            unset.push(s.secret);
        }
    }
    unset
}

/// The mcpctl binary launcher and bridge entries start (`session::program`): this one,
/// by its absolute path, or the installed one when this runs from npx's cache.
pub(crate) fn program(ctx: &Context) -> anyhow::Result<String> {
    crate::session::program::program(&ctx.platform)
}

/// `check --fix`: apply every safe fix (`check::fix::apply_fixes`) to the entries of the
/// file at `path`, checked as `target`, through the edit loop (backup, journal, a file
/// that does not parse is never written).
pub fn fix_entries(
    ctx: &Context,
    target: &crate::check::Target<'_>,
    path: &std::path::Path,
    dry_run: bool,
) -> anyhow::Result<edit::Outcome> {
    let client = target.client;
    let location = crate::clients::Location {
        scope: target.scope,
        path: path.to_path_buf(),
        key: client.servers_key.clone(),
        name_key: client.servers_name_key.clone(),
    };
    edit::apply(ctx, client, &location, dry_run, &|doc| {
        Ok(if crate::check::fix::apply_fixes(doc, target)? {
            Edit::Updated
        } else {
            Edit::Unchanged
        })
    })
}

/// `check --fix`: remove what makes `client` reject the file at `path` as a whole (every
/// trailing comma, and every comment where its parser takes none), through the journal
/// like any write. Returns the diff (shown before the "fixed" line, with or without
/// `--dry-run`), or `None` when the client rejects nothing there.
pub fn repair_rejected(
    ctx: &Context,
    client: &Client,
    path: &std::path::Path,
    label: &str,
    dry_run: bool,
) -> anyhow::Result<Option<String>> {
    let diff = |source: &crate::fs::Source, repaired: &str| {
        edit::unified_diff(label, &source.text, repaired, true)
    };
    if dry_run {
        let source = crate::fs::read_source(path).map_err(|e| UserError::new(e.to_string()))?;
        return Ok(client
            .repaired(&source.text)
            .map(|repaired| diff(&source, &repaired)));
    }
    let lock = edit::lock(ctx, path)?;
    edit::retry(path, "fix", || {
        let source = lock.read(path).map_err(|e| UserError::new(e.to_string()))?;
        let Some(repaired) = client.repaired(&source.text) else {
            return Ok(Some(None));
        };
        match edit::write_file(ctx, &lock, &source, &repaired) {
            Ok(_) => Ok(Some(Some(diff(&source, &repaired)))),
            Err(crate::fs::FsError::Changed { .. }) => Ok(None),
            Err(e) => Err(edit::write_error(&e)),
        }
    })
}
