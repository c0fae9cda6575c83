//! What doctor checks before it starts a server, and the entry a command starts: the
//! static checks (shape, command on PATH, variables, Windows wrapping, scopes, the
//! project trust rule) that never start anything, the probe options, and [`resolve`]:
//! which entry a name means, made runnable exactly as doctor would (shared by `doctor`,
//! `tools` and `call`). The handshake itself lives in `handshake`.

use std::path::PathBuf;
use std::time::Duration;

use indexmap::IndexMap;
use serde::Serialize;

use crate::clients::Scope;
use crate::entry;
use crate::error::UserError;
use crate::handshake::{self, Fix, Launch, Level, Probe, ProbeOptions, TimeoutSource, clean_text};
use crate::output::Printer;
use crate::platform::Os;
use crate::session::inventory::{Found, Inventory, collect_all};
use crate::session::{Context, targets};
use crate::trust::{Trust, TrustRule};

/// The verdict for one server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Status {
    Ok,
    Skipped,
    Warn,
    Fail,
}

/// One check's result.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Check {
    pub(crate) check: &'static str,
    pub(crate) status: Status,
    pub(crate) message: String,
}

#[derive(Debug, Serialize)]
pub(crate) struct DoctorResult {
    pub(crate) client: String,
    pub(crate) scope: Scope,
    pub(crate) name: String,
    #[serde(serialize_with = "crate::output::path_json")]
    pub(crate) path: PathBuf,
    pub(crate) status: Status,
    pub(crate) checks: Vec<Check>,
    pub(crate) server_name: Option<String>,
    pub(crate) server_version: Option<String>,
    /// `modern` (2026-07-28: `server/discover`) or `handshake` (`initialize`).
    pub(crate) protocol_era: Option<handshake::Era>,
    pub(crate) protocol_version: Option<String>,
    pub(crate) tools: Option<usize>,
    /// Estimated tokens the server's tool definitions add to a client's context.
    pub(crate) tokens: Option<usize>,
    pub(crate) tool_names: Vec<String>,
    /// Each tool's own estimate, for `budget` (state `tokens.json`).
    #[serde(skip)]
    pub(crate) tool_tokens: Vec<crate::state::tokens::ToolTokens>,
    /// The capabilities the server declared.
    pub(crate) capabilities: Option<serde_json::Value>,
    /// Length of the server's `instructions`, in characters.
    pub(crate) instructions_chars: Option<usize>,
    /// On failure: the program that was started (resolved) or the URL contacted, with the
    /// arguments as written (no expanded values).
    pub(crate) started: Option<String>,
    pub(crate) elapsed_ms: Option<u64>,
    pub(crate) phases: Vec<handshake::PhaseTime>,
    pub(crate) error: Option<String>,
    pub(crate) stderr_tail: Vec<String>,
    /// What was started or contacted, secrets left out (`npx -y pkg`, a URL).
    pub(crate) target: String,
    /// From a read-only source (a plugin, an extension, an administrator's file).
    pub(crate) read_only: bool,
    /// That source: `{kind, name, file}` (`file` absolute).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) origin: Option<serde_json::Value>,
    /// The administrator's policy rule that keeps it out: `{kind, file, verdict, rule}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) policy: Option<crate::policy::Block>,
    /// How its tools compare with `mcpctl.lock`, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) lock: Option<LockCheck>,
    /// The tools exactly as the server listed them (compared with the lock, recorded
    /// by `mcpctl lock`).
    #[serde(skip)]
    pub(crate) tool_definitions: Vec<serde_json::Value>,
}

/// How a server's tools compare with the lock, in `--json` (`lock` on a result).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct LockCheck {
    #[serde(serialize_with = "crate::output::path_json")]
    pub(crate) file: PathBuf,
    pub(crate) status: LockStatus,
    #[serde(flatten)]
    pub(crate) changes: crate::lock::Changes,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum LockStatus {
    /// The tools are the ones locked.
    Same,
    /// Tools added, removed or changed since the lock.
    Changed,
    /// The lock has no record of the server.
    NotLocked,
}

impl DoctorResult {
    /// A result with nothing recorded yet.
    pub(crate) fn empty(client: &str, scope: Scope, name: String, path: PathBuf) -> Self {
        DoctorResult {
            client: client.to_owned(),
            scope,
            name,
            path,
            status: Status::Ok,
            checks: Vec::new(),
            server_name: None,
            server_version: None,
            protocol_era: None,
            protocol_version: None,
            tools: None,
            tokens: None,
            tool_names: Vec::new(),
            tool_tokens: Vec::new(),
            capabilities: None,
            instructions_chars: None,
            started: None,
            elapsed_ms: None,
            phases: Vec::new(),
            error: None,
            stderr_tail: Vec::new(),
            target: String::new(),
            read_only: false,
            origin: None,
            policy: None,
            lock: None,
            tool_definitions: Vec::new(),
        }
    }

    /// Add a check's outcome: the result takes the worst status, and the first failure
    /// becomes its `error`.
    pub(crate) fn record(&mut self, check: &'static str, status: Status, message: String) {
        if status == Status::Fail && self.error.is_none() {
            self.error = Some(message.clone());
        }
        self.checks.push(Check {
            check,
            status,
            message,
        });
        self.status = self.status.max(status);
    }
}

/// What to start for `f`, made runnable exactly as doctor makes it (`prepare`, with this
/// machine's environment) and only if doctor would start it (the same trust rule for
/// project entries), or the failed or skipped checks' messages. Shared by `tools` and
/// `call`.
pub(crate) fn runnable(
    ctx: &Context,
    options: &ProbeOptions,
    trust_project: bool,
    f: &Found<'_>,
    all: &[Found<'_>],
) -> Result<Launch, String> {
    let trust = TrustRule::new(&ctx.platform, &ctx.project, trust_project);
    // As in `run`: a read-only source's entry is not another scope of a file's.
    let scopes: Vec<Scope> = all
        .iter()
        .filter(|o| {
            f.origin.is_none()
                && o.origin.is_none()
                && o.client.id == f.client.id
                && o.name == f.name
        })
        .map(|o| o.scope)
        .collect();
    let switches = crate::toggle::Probe::new(ctx).ok();
    let (result, launch) = static_checks(
        ctx,
        &options.parent_env,
        &trust,
        switches.as_ref(),
        f,
        &scopes,
    );
    launch.ok_or_else(|| {
        result
            .checks
            .iter()
            .filter(|c| matches!(c.status, Status::Fail | Status::Skipped))
            .map(|c| c.message.clone())
            .collect::<Vec<_>>()
            .join("; ")
    })
}

/// The options every probe gets: `timeout` seconds and this machine's environment.
pub(crate) fn probe_options(ctx: &Context, timeout: f64) -> anyhow::Result<ProbeOptions> {
    if !(timeout.is_finite() && timeout > 0.0 && timeout <= 3600.0) {
        return Err(
            UserError::new(format!("--timeout {timeout} is out of range"))
                .hint("give a number of seconds above 0 and at most 3600")
                .into(),
        );
    }
    Ok(ProbeOptions {
        capabilities: None,
        timeout: Duration::from_secs_f64(timeout),
        timeout_set_by: TimeoutSource::Option,
        parent_env: ctx
            .platform
            .vars()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect::<IndexMap<_, _>>(),
        opening: handshake::Opening::Discover,
    })
}

/// `launch` as `client` starts it: its filter of the environment it passes on and the
/// entry env names it drops, and when `declare` (`doctor --as`) the capabilities it
/// declares.
pub(crate) fn as_started_by(
    client: &crate::clients::Client,
    launch: Launch,
    options: &mut ProbeOptions,
    declare: bool,
) -> Launch {
    if let (true, Some(capabilities)) = (declare, &client.loading.capabilities) {
        options.capabilities = Some(capabilities.clone());
    }
    match launch {
        Launch::Stdio {
            program,
            command,
            args,
            env,
            cwd,
        } => {
            let (parent, env) = client.loading.server_env(&options.parent_env, &env);
            options.parent_env = parent;
            Launch::Stdio {
                program,
                command,
                args,
                env,
                cwd,
            }
        }
        remote @ Launch::Remote { .. } => remote,
    }
}

/// The options for probing `f`: the entry's own startup timeout (Codex
/// `startup_timeout_sec`), when its client reads one, replaces `--timeout`: the client
/// would give up after that long too.
pub(crate) fn entry_options(options: &ProbeOptions, f: &Found<'_>) -> ProbeOptions {
    let mut options = options.clone();
    let keys = f.client.fields.extra_keys.as_deref().unwrap_or_default();
    if let Some((seconds, key)) = f
        .entry()
        .as_ref()
        .ok()
        .and_then(|e| e.startup_timeout(keys))
        && let Ok(limit) = Duration::try_from_secs_f64(seconds.min(3600.0))
    {
        options.timeout = limit;
        options.timeout_set_by = TimeoutSource::Entry { key };
    }
    options
}

/// Checks that start nothing. Returns the transport to probe when the entry is runnable.
///
/// `switches` reads the clients' own switches and mcpctl's record of parked entries: make
/// it once for many entries (`None` when that record cannot be read: nothing is off).
pub(crate) fn static_checks(
    ctx: &Context,
    env: &IndexMap<String, String>,
    trust: &TrustRule<'_>,
    switches: Option<&crate::toggle::Probe<'_>>,
    f: &Found<'_>,
    scopes: &[Scope],
) -> (DoctorResult, Option<Launch>) {
    let mut result = DoctorResult::empty(&f.client.id, f.scope, f.name.clone(), f.path.clone());
    result.read_only = f.origin.is_some();
    result.origin = f.origin.as_ref().map(|o| {
        serde_json::json!({
            "kind": o.kind,
            "name": o.name,
            "file": o.file.display().to_string(),
            "chosen_by": o.chosen_by,
        })
    });
    let Some(entry) = loaded_entry(switches, f, scopes, &mut result) else {
        return (result, None);
    };
    if let Some(by) = crate::toggle::here::off_here(ctx, f) {
        result.record(
            "enabled",
            Status::Skipped,
            format!(
                "switched off for this project in {}; not started",
                crate::output::file(&by)
            ),
        );
        result.target = handshake::prepare::target_of(&entry.transport);
        return (result, None);
    }
    let Some(resolved) = secrets_resolved(ctx, entry, &mut result) else {
        return (result, None);
    };
    let transport = resolved.as_ref().map_or(&entry.transport, |(t, _)| t);
    let launch = prepared_checks(ctx, env, f, entry, transport, &mut result);
    if !trusted(trust, f, &mut result) {
        return (result, None);
    }
    // A switch in the client's interface that no file records (Cursor 3 keeps a new
    // project server off): the server may work and still not load there.
    if f.origin.is_none()
        && let Some(note) = f.client.loading.starts_off_note(&f.client.name, f.scope)
    {
        result.record("enabled", Status::Warn, note);
    }
    (result, launch.ok())
}

/// The entry the client loads and doctor may start, with the checks that decide it (loaded,
/// enabled, readable, which scope wins, switched on); `None` (recorded why) when it is not
/// started.
fn loaded_entry<'f>(
    switches: Option<&crate::toggle::Probe<'_>>,
    f: &'f Found<'_>,
    scopes: &[Scope],
    result: &mut DoctorResult,
) -> Option<&'f entry::ServerEntry> {
    // An entry the user switched off says so, also in a folder the client does not trust.
    let off_anyway = matches!(
        f.not_loaded,
        Some(crate::session::found::NotLoaded::Untrusted { .. })
    ) && f
        .entry()
        .as_ref()
        .is_ok_and(|e| e.disabled() || switches.is_some_and(|s| crate::toggle::switched_off(s, f)));
    if let Some(why) = f.not_loaded.as_ref().filter(|_| !off_anyway) {
        // A file the client rejects is a fault: none of its servers works there.
        let status = if why.is_rejection() {
            Status::Fail
        } else {
            Status::Skipped
        };
        result.policy = why.policy().cloned();
        let check = if result.policy.is_some() {
            "policy"
        } else {
            "loaded"
        };
        result.record(check, status, format!("{why}; not started"));
        return None;
    }
    if let Some(origin) = f.origin.as_ref().filter(|o| !o.enabled) {
        result.record(
            "enabled",
            Status::Skipped,
            format!(
                "the {} `{}` is disabled, so {} does not load it; not started",
                origin.kind, origin.name, f.client.name
            ),
        );
        return None;
    }
    let entry = match f.entry() {
        Ok(e) => e,
        Err(_) if entry::is_override(f.client, f.raw()) => {
            result.record(
                "entry",
                Status::Skipped,
                if entry::is_builtin(f.raw()) {
                    format!("built into {}: it runs inside the client; not started", f.client.name)
                } else {
                    "no command or URL: an on/off switch or a server an extension provides; not started".to_owned()
                },
            );
            return None;
        }
        Err(_) => {
            result.record("entry", Status::Fail, f.entry_error().unwrap_or_default());
            return None;
        }
    };
    // The same name in several scopes of one client: say which wins.
    if scopes.len() > 1 {
        let winner = scopes
            .iter()
            .filter(|s| **s != Scope::Legacy)
            .max()
            .copied()
            .unwrap_or(f.scope);
        let status = if winner == f.scope {
            Status::Ok
        } else {
            Status::Warn
        };
        result.record(
            "scopes",
            status,
            format!(
                "`{}` is defined in {} scopes ({}); {} wins",
                f.name,
                scopes.len(),
                scopes
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                winner.as_str()
            ),
        );
    }
    if entry.disabled() || switches.is_some_and(|s| crate::toggle::switched_off(s, f)) {
        result.record(
            "enabled",
            Status::Skipped,
            "disabled in the config; not started".to_owned(),
        );
        result.target = handshake::prepare::target_of(&entry.transport);
        return None;
    }
    Some(entry)
}

/// mcpctl's launcher or bridge: the server behind it, its secrets resolved the way
/// `mcpctl run` / `mcpctl bridge` resolve them (`Some(None)`: no secrets to resolve;
/// `None`: a secret failed, recorded).
#[allow(clippy::type_complexity)]
fn secrets_resolved(
    ctx: &Context,
    entry: &entry::ServerEntry,
    result: &mut DoctorResult,
) -> Option<Option<(entry::Transport, Vec<String>)>> {
    let store = ctx.secret_store();
    let resolved = match store.resolve_entry(&entry.transport) {
        Ok(resolved) => resolved,
        Err(error) => {
            result.record("secrets", Status::Fail, error.to_string());
            result.target = handshake::prepare::target_of(
                &crate::entry::launcher::logical(&entry.transport)
                    .map_or_else(|| entry.transport.clone(), |l| l.transport),
            );
            return None;
        }
    };
    let mut resolved = resolved;
    // A remote entry the client reaches by itself while mcpctl keeps a sign-in under its
    // name: the person declined `login`'s rewrite (or has not run it yet).
    if matches!(entry.transport, entry::Transport::Remote { .. })
        && store
            .backend_of(&crate::oauth::secret_name(&result.name))
            .is_some()
    {
        result.record(
            "client sign-in",
            Status::Ok,
            format!(
                "the client signs in by itself; mcpctl's own sign-in is not used here (`mcpctl login {} --yes` makes the client use it)",
                result.name
            ),
        );
    }
    let oauth = crate::entry::launcher::logical(&entry.transport).and_then(|l| l.oauth);
    if let (Some(label), Some((entry::Transport::Remote { headers, .. }, _))) =
        (&oauth, resolved.as_mut())
    {
        match crate::oauth::current(&store, &crate::oauth::secret_name(label)) {
            Ok(grant) => {
                headers.insert(
                    "Authorization".to_owned(),
                    format!("Bearer {}", grant.access_token),
                );
                result.record(
                    "sign-in",
                    Status::Ok,
                    format!(
                        "signed in at {} (mcpctl login {label}){}",
                        grant.issuer,
                        grant.expiry_text()
                    ),
                );
            }
            Err(error) => {
                let hint = crate::error::hint_of(&error)
                    .map(|h| format!("; {h}"))
                    .unwrap_or_default();
                result.record("sign-in", Status::Fail, format!("{error:#}{hint}"));
                result.target = handshake::prepare::target_of(
                    &crate::entry::launcher::logical(&entry.transport)
                        .map_or_else(|| entry.transport.clone(), |l| l.transport),
                );
                return None;
            }
        }
    }
    if let Some((_, names)) = resolved.as_ref().filter(|(_, n)| !n.is_empty()) {
        result.record(
            "secrets",
            Status::Ok,
            format!(
                "{} resolved from the secret store",
                names
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        );
    }
    Some(resolved)
}

/// The static checks of what starts (`handshake::prepare`) and of what the client does
/// with the entry before starting it.
fn prepared_checks(
    ctx: &Context,
    env: &IndexMap<String, String>,
    f: &Found<'_>,
    entry: &entry::ServerEntry,
    transport: &entry::Transport,
    result: &mut DoctorResult,
) -> Result<Launch, handshake::ProbeError> {
    let host = handshake::Host {
        target_os: ctx.platform.os,
        host_os: Os::host(),
        env,
        cwd: &ctx.platform.cwd,
        wrap_windows: f.client.fields.wrap_windows,
    };
    let prepared = handshake::prepare(transport, &host);
    for finding in prepared.findings {
        let status = match finding.level {
            Level::Ok => Status::Ok,
            Level::Warn => Status::Warn,
            Level::Fail => Status::Fail,
        };
        let mut message = finding.message;
        if finding.fix == Some(Fix::Rewrap) {
            let command = prepared.target.split(' ').next().unwrap_or_default();
            message.push_str(&format!(
                "; run `mcpctl add {} -c {} --force -- {command} ...` to rewrite it",
                f.name, f.client.id
            ));
        }
        result.record(finding.check, status, message);
    }
    result.target = prepared.target;
    // What this client does with the entry before starting it (its loading model).
    if let Err(why) = crate::entry::loading::before_write(f.client, entry) {
        result.record("client", Status::Fail, why);
    }
    if let Some(dropped) = crate::entry::loading::dropped_env(f.client, &entry.transport) {
        result.record("client", Status::Warn, dropped);
    }
    prepared.launch
}

/// Whether doctor may start the entry: its own, approved, or `--trust-project` (recorded);
/// an untrusted project entry is skipped.
fn trusted(trust: &TrustRule<'_>, f: &Found<'_>, result: &mut DoctorResult) -> bool {
    // Decided last so the static checks above still run on an entry not started.
    let verdict = match &f.origin {
        Some(origin) => trust.decide_origin(origin),
        None => trust.decide(f.client, f.scope, &f.name),
    };
    match verdict {
        Trust::Own => {}
        Trust::Approved { by } => result.record("trust", Status::Ok, by),
        Trust::Flag => result.record(
            "trust",
            Status::Ok,
            "a project entry, started because of --trust-project".to_owned(),
        ),
        Trust::Untrusted { reason } => {
            result.record("trust", Status::Skipped, format!("not started: {reason}"));
            return false;
        }
    }
    true
}

/// The entry a command acts on, runnable here.
pub(crate) struct Resolved {
    pub(crate) client: String,
    pub(crate) name: String,
    pub(crate) launch: Launch,
    pub(crate) options: ProbeOptions,
    /// `options` with the entry's own startup timeout, if its client reads one (Codex
    /// `startup_timeout_sec`): what listing the tools may take, as the client allows.
    /// A `call` keeps `--timeout`, since the tool's own work comes on top.
    pub(crate) startup: ProbeOptions,
    /// The entry as its client reads it (the key of the remembered token estimate).
    pub(crate) entry: Option<crate::entry::ServerEntry>,
    /// `--as` named a client whose row records no capabilities: said, not hidden.
    pub(crate) fallback: Option<String>,
    /// The client whose capabilities were declared (`--as` one whose row records them);
    /// `None`: mcpctl's own.
    pub(crate) declared_as: Option<String>,
}

/// What to say when `--as CLIENT` cannot declare what that client declares: its row
/// records no capabilities, so the server is measured with mcpctl's own.
pub(crate) fn capability_fallback(client: &crate::clients::Client) -> Option<String> {
    client.loading.capabilities.is_none().then(|| {
        format!(
            "{} (`{}`): its row records no capabilities it declares, so the server was started with mcpctl's own; what it shows {} may differ",
            client.name, client.id, client.name
        )
    })
}

/// The entry `name` in `client` (or in the detected clients, which must agree on it),
/// from the scope the client uses, made runnable by doctor's static checks — including
/// its trust rule: a project entry the client has not approved is not started unless
/// `trust_project`. It starts with the environment its client gives it, or, `as_client`,
/// exactly as that client starts it (capabilities included), as `doctor` and
/// `doctor --as` do.
pub(crate) fn resolve(
    ctx: &Context,
    name: &str,
    client: Option<&str>,
    timeout: f64,
    trust_project: bool,
    as_client: Option<&str>,
) -> anyhow::Result<Resolved> {
    let mut options = probe_options(ctx, timeout)?;
    let as_client = match as_client {
        Some(id) => targets::by_ids(ctx, &[id.to_owned()])?.first().copied(),
        None => None,
    };
    let clients = match client {
        Some(id) => targets::by_ids(ctx, &[id.to_owned()])?,
        None => targets::detected_to_read(ctx),
    };
    let Inventory { found, broken, .. } = collect_all(ctx, &clients, Some(name));
    // Per client: an entry the client loads over one it does not, the user's files over a
    // read-only source (plugin, extension), then the scope that wins (as the client
    // itself resolves a name).
    let rank = |f: &Found<'_>| {
        (
            f.not_loaded.is_none(),
            f.origin.as_ref().is_none_or(|o| o.enabled),
            f.origin.is_none(),
        )
    };
    let mut chosen: Vec<&Found<'_>> = Vec::new();
    for f in &found {
        let best = found
            .iter()
            .filter(|o| o.client.id == f.client.id)
            .map(rank)
            .max();
        if best != Some(rank(f)) {
            continue;
        }
        let wins = found
            .iter()
            .filter(|o| {
                o.client.id == f.client.id && rank(o) == rank(f) && o.scope != Scope::Legacy
            })
            .all(|o| o.scope <= f.scope);
        if wins && !chosen.iter().any(|c| c.client.id == f.client.id) {
            chosen.push(f);
        }
    }
    let Some(first) = chosen.first() else {
        return Err(match broken.first() {
            Some(b) => UserError::new(format!(
                "no server named `{name}` found: `{}` could not be read",
                crate::output::file(&b.path)
            ))
            .hint(format!("{:#}", b.error))
            .into(),
            None => targets::no_server_named(ctx, &clients, name),
        });
    };
    // One `add` writes each client's spelling (`${env:X}`, Codex `env_vars`, `cmd /c`):
    // the same server once made portable, and its housekeeping fields aside.
    let portable = |f: &Found<'_>| {
        f.entry().as_ref().ok().map(|e| {
            let mut p = crate::entry::render::portable_entry(e);
            p.extras.clear();
            p
        })
    };
    let differs = chosen.iter().any(|c| portable(c) != portable(first));
    if differs {
        let ids: Vec<&str> = chosen.iter().map(|c| c.client.id.as_str()).collect();
        return Err(UserError::new(format!(
            "`{name}` is configured differently in {}",
            ids.join(", ")
        ))
        .hint(format!("pick one with `-c {}`", ids[0]))
        .into());
    }
    let launch = runnable(ctx, &options, trust_project, first, &found).map_err(|reason| {
        UserError::new(format!(
            "`{name}` in {} cannot be started: {reason}",
            first.client.id
        ))
        .hint(format!(
            "`mcpctl doctor {name} -c {}` shows every check",
            first.client.id
        ))
    })?;
    let launch = as_started_by(
        as_client.unwrap_or(first.client),
        launch,
        &mut options,
        as_client.is_some(),
    );
    Ok(Resolved {
        client: first.client.id.clone(),
        name: name.to_owned(),
        launch,
        startup: entry_options(&options, first),
        options,
        entry: first.entry().as_ref().ok().cloned(),
        fallback: as_client.and_then(capability_fallback),
        declared_as: as_client
            .filter(|c| c.loading.capabilities.is_some())
            .map(|c| c.id.clone()),
    })
}

/// Start the server, run the session (and `call`, if given), and say so while it runs.
pub(crate) fn exchange(
    printer: &Printer,
    resolved: &Resolved,
    call: Option<&handshake::ToolCall>,
) -> Probe {
    // A URL is connected to; only a command is started.
    let verb = match resolved.launch {
        Launch::Remote { .. } => "connecting to",
        Launch::Stdio { .. } => "starting",
    };
    printer.progress(&format!(
        "{verb} `{}` from {}…",
        resolved.name, resolved.client
    ));
    let probe = match call {
        Some(call) => handshake::call_launch(&resolved.launch, &resolved.options, call),
        None => handshake::probe_launch(&resolved.launch, &resolved.startup),
    };
    printer.progress_done();
    probe
}

/// The error for a session that failed before it got what the command needs.
pub(crate) fn failed(resolved: &Resolved, probe: &Probe, what: &str) -> anyhow::Error {
    let reason = match (&probe.failure, probe.warnings.first()) {
        (Some(failure), _) => failure.to_string(),
        (None, Some(warning)) => warning.to_string(),
        (None, None) => format!("the server declares no tools, so there is nothing to {what}"),
    };
    let mut error = UserError::new(format!(
        "`{}` ({}): {}",
        resolved.name,
        resolved.client,
        clean_text(&reason)
    ));
    if let Some(last) = probe.stderr_tail.last() {
        error = error.hint(format!(
            "its stderr ends with: {} (`mcpctl doctor {} -c {}` shows more)",
            clean_text(last),
            resolved.name,
            resolved.client
        ));
    }
    error.into()
}
