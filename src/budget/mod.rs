//! What the servers each client loads cost its context (`mcpctl budget`), and the
//! smallest set of changes that brings a client under a budget (`cut`).
//!
//! The servers are what `list` and `doctor` see a client load (`collect_all`, with what
//! the client will not load and what is switched off left out); each server's tools come
//! from what `doctor` and `tools` last measured (state `tokens.json`, per tool), as the
//! client receives them: only the tools the entry's own tool filter lets through, and for
//! a client that defers tool definitions (row field `deferred_tools`) a deferred tool
//! costs only the name it is listed by. A server may list other tools to a client that
//! declares other capabilities, so a client's count comes from the measurement made
//! declaring its own (row field `[client.loading] capabilities`), and says so when it
//! falls back to one made with mcpctl's own. `--measure` starts the servers never
//! measured as each client, through doctor (the same trust rules).

pub mod cut;

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;

use serde::Serialize;
use serde_json::Value;

use crate::clients::{Client, DeferredTools, Location, Scope, ToolFilter};
use crate::formats::RawEntry;
use crate::session::Context;
use crate::session::inventory::{Found, collect_all};
use crate::state::tokens::{Measured, Tokens};

/// Where a cut for one client may write in the project `budget` runs in: the client's
/// project-level switch (`here`) and, where the client merges a project entry key by key
/// into the user's (a `field` switch) and has a deny-list, the project file that takes a
/// tool filter — each only where the client reads that file here (no trust step, or the
/// folder trusted) and that file is not the user's own (a project at HOME).
#[derive(Debug, Clone, Default)]
pub struct Place<'c> {
    /// The project-level switch, for servers switched off in this project only.
    pub switch: Option<&'c crate::clients::Here>,
    /// The project's file that takes the entry's deny-list alone (Codex's
    /// `.codex/config.toml`), merged into the user's entry by the client.
    pub filter: Option<(&'c crate::clients::Here, PathBuf)>,
    /// Why the project's file is not used: the client reads it only in a trusted folder,
    /// and this one is not.
    pub not_read: Option<String>,
    /// The client would take a tool filter in the project's file (where it reads it).
    pub merges: bool,
}

/// Where `client`'s cut writes in this project ([`Place`]); `user_only` (`--scope user`)
/// keeps every change in the user's files.
pub fn place<'c>(ctx: &Context, client: &'c Client, user_only: bool) -> Place<'c> {
    let Some(here) = client.here.as_ref().filter(|_| !user_only) else {
        return Place::default();
    };
    let personal = crate::toggle::here::personal(here);
    let file = if personal {
        None
    } else {
        let Ok((file, _)) = crate::toggle::here::place(ctx, client, here, &ctx.project, false)
        else {
            return Place::default();
        };
        let user = client.user_path(&ctx.platform).ok().flatten();
        if user.is_some_and(|u| crate::fs::same_file(&file, &u)) {
            return Place::default();
        }
        Some(file)
    };
    let merges = here.kind == crate::clients::HereKind::Field
        && client
            .tool_filter
            .as_ref()
            .is_some_and(|f| f.deny.is_some());
    if let Some(step) = &here.trust
        && !reads_project(ctx, client)
    {
        return Place {
            merges,
            not_read: Some(format!(
                "{} reads `{}` only in a trusted folder, and this one is not ({step})",
                client.name,
                file.as_deref()
                    .map_or_else(String::new, |f| f.display().to_string())
            )),
            ..Place::default()
        };
    }
    Place {
        switch: Some(here),
        filter: file.filter(|_| merges).map(|f| (here, f)),
        not_read: None,
        merges,
    }
}

/// Whether `client` reads its project-level file in this project: no trust step, or the
/// folder trusted the client's own way (`--trust-project` does not count: the client
/// does not know of it).
fn reads_project(ctx: &Context, client: &Client) -> bool {
    client.here.as_ref().is_some_and(|here| {
        here.trust.is_none()
            || crate::trust::TrustRule::new(&ctx.platform, &ctx.project, false)
                .client_folder(client)
                .allows_start()
    })
}

/// The entry `f` as the client reads it in this project: where it merges a project entry
/// key by key into the user's (a `field` switch) and reads the project's file here, the
/// keys of the project's entry of that name over the user's (Codex's `disabled_tools` in
/// `.codex/config.toml`).
fn merged(ctx: &Context, f: &Found<'_>) -> RawEntry {
    let raw = f.raw().clone();
    let client = f.client;
    let Some(here) = client
        .here
        .as_ref()
        .filter(|h| h.kind == crate::clients::HereKind::Field && !crate::toggle::here::personal(h))
    else {
        return raw;
    };
    let Ok((file, at)) = crate::toggle::here::place(ctx, client, here, &ctx.project, false) else {
        return raw;
    };
    if crate::fs::same_file(&file, &f.path) || !file.is_file() || !reads_project(ctx, client) {
        return raw;
    }
    let Ok(document) = crate::session::inventory::read_document(ctx, client, &file) else {
        return raw;
    };
    let over = crate::toggle::find(
        document.doc.as_ref(),
        crate::formats::ServersAt::map(&at),
        &f.name,
    )
    .ok()
    .flatten();
    match (raw, over) {
        (Value::Object(mut mine), Some(Value::Object(project))) => {
            mine.extend(project);
            Value::Object(mine)
        }
        (raw, _) => raw,
    }
}

/// How many of the costliest tools a client's row names.
pub const COSTLIEST: usize = 5;

/// One tool as a client receives it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct ToolCost {
    pub name: String,
    /// What it costs this client (its name only, when deferred).
    pub tokens: usize,
    /// Its whole definition's estimate.
    pub definition: usize,
    /// The client lists only its name (deferred tool definitions).
    pub deferred: bool,
    /// The keys of its `_meta` set to `true`, as measured.
    #[serde(skip)]
    pub meta_true: Vec<String>,
}

/// One server a client loads.
#[derive(Debug, Clone, Serialize)]
pub struct ServerCost {
    pub name: String,
    pub scope: Scope,
    #[serde(serialize_with = "crate::output::path_json")]
    pub path: PathBuf,
    /// What it costs the client: `null` when it was never measured.
    pub tokens: Option<usize>,
    /// Its tools' definitions with no filter and no deferral.
    pub full: Option<usize>,
    /// The tools the client receives (empty when measured before per-tool costs were
    /// kept: then `tokens` is the server's whole estimate).
    pub tools: Vec<ToolCost>,
    /// Tools the entry's tool filter keeps from the client.
    pub filtered: Vec<String>,
    /// The client defers this server's tools (lists their names only).
    pub deferred: bool,
    /// When it was measured.
    pub measured: Option<String>,
    /// Declaring whose capabilities it was measured (`null`: never measured).
    pub measured_as: Option<MeasuredAs>,
    /// From a read-only source (a plugin, an extension): mcpctl cannot trim it.
    pub read_only: bool,
    #[serde(skip)]
    pub(crate) key: Vec<String>,
    /// The entry as the client reads it here (a project's keys merged over the user's).
    #[serde(skip)]
    pub(crate) raw: RawEntry,
}

impl ServerCost {
    /// `name` where it lives, nothing counted yet (`fill_tools` counts it).
    fn unmeasured(name: String, scope: Scope, path: PathBuf, key: Vec<String>) -> ServerCost {
        ServerCost {
            name,
            scope,
            path,
            tokens: None,
            full: None,
            tools: Vec::new(),
            filtered: Vec::new(),
            deferred: false,
            measured: None,
            measured_as: None,
            read_only: false,
            key,
            raw: Value::Null,
        }
    }

    /// Where the entry lives, for a switch or a filter.
    pub fn location(&self, client: &Client) -> Location {
        Location {
            scope: self.scope,
            path: self.path.clone(),
            key: self.key.clone(),
            name_key: client.servers_name_key.clone(),
        }
    }
}

/// Whose capabilities a measurement declared.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum MeasuredAs {
    /// This client's own (its row's `[client.loading] capabilities`).
    Client,
    /// mcpctl's own: the row records none, or the server was not measured as this client.
    Mcpctl,
    /// From the tool lock (`mcpctl.lock`), however `mcpctl lock` started it.
    Lock,
}

/// How a deferring client counts, as the row says.
#[derive(Debug, Clone, Serialize)]
pub struct Deferral {
    /// Whether deferral is on here (the variable, the threshold).
    pub active: bool,
    pub rule: String,
    pub source: String,
    /// Why it is on or off (`ENABLE_TOOL_SEARCH=false`).
    pub why: String,
}

/// One of the costliest tools.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Costly {
    pub server: String,
    pub tool: String,
    pub tokens: usize,
}

/// What one client loads and what it costs.
#[derive(Debug, Clone, Serialize)]
pub struct ClientBudget {
    pub client: String,
    /// The project it was counted in (project scopes change what a client loads).
    #[serde(serialize_with = "crate::output::path_json")]
    pub project: PathBuf,
    /// The total: `null` when a server was never measured (`unknown`).
    pub tokens: Option<usize>,
    /// The total of what was measured.
    pub known: usize,
    /// Servers never measured.
    pub unknown: Vec<String>,
    /// Sorted by cost, the costliest first.
    pub servers: Vec<ServerCost>,
    pub costliest: Vec<Costly>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deferral: Option<Deferral>,
    /// Servers counted from a measurement made with mcpctl's own capabilities rather
    /// than this client's: why, and what to do (`null`: none).
    pub fallback: Option<String>,
}

/// The entries each client loads, once per name (the first, as doctor counts them): not
/// what it will not load, not what is switched off, not what does not read as a server.
pub fn loaded<'c>(ctx: &Context, clients: &[&'c Client]) -> Vec<Found<'c>> {
    let found = collect_all(ctx, clients, None).found;
    let switches = crate::toggle::Probe::new(ctx).ok();
    let mut seen: HashSet<(String, String)> = HashSet::new();
    found
        .into_iter()
        .filter(|f| f.not_loaded.is_none() && f.entry().is_ok())
        .filter(|f| {
            !switches
                .as_ref()
                .is_some_and(|p| crate::toggle::switched_off(p, f))
        })
        // Switched off in this project by the client's project-level switch, where the
        // client reads it here.
        .filter(|f| {
            !f.client.here.as_ref().is_some_and(|here| {
                reads_project(ctx, f.client)
                    && [false, true].into_iter().any(|local| {
                        crate::toggle::here::state(
                            ctx,
                            f.client,
                            here,
                            &ctx.project,
                            local,
                            &f.name,
                        ) == Some(true)
                    })
            })
        })
        .filter(|f| seen.insert((f.client.id.clone(), f.name.clone())))
        .collect()
}

/// Measurements by server name, read from a tool lock (`mcpctl.lock`): `time` says where.
pub type Locked = BTreeMap<String, LockedCosts>;

/// One server's record in the lock: what it listed as locked, and what it listed to
/// clients declaring other capabilities where that differs (by profile).
#[derive(Debug, Clone)]
pub struct LockedCosts {
    record: Measured,
    profiles: BTreeMap<String, Measured>,
}

impl LockedCosts {
    /// What the server lists to `client` (declaring its row's capabilities), as locked.
    fn for_client(&self, client: &Client) -> &Measured {
        let profile = crate::lock::profile_of(client.loading.capabilities.as_ref());
        self.profiles.get(&profile).unwrap_or(&self.record)
    }
}

/// The lock at `path` as measurements by server name (no file: none). Its `time` is
/// `mcpctl.lock`, so a row says where its numbers came from.
pub fn locked(path: Option<&std::path::Path>) -> anyhow::Result<Locked> {
    let Some(path) = path else {
        return Ok(Locked::new());
    };
    let lock = crate::lock::Lock::read(path).map_err(|e| {
        let hint = e.hint();
        crate::error::UserError::new(e.to_string()).hint(hint)
    })?;
    let measured = |tokens: usize, tools: &[crate::lock::LockedTool]| {
        let per_tool: Vec<crate::state::tokens::ToolTokens> = tools
            .iter()
            .map(|t| crate::state::tokens::ToolTokens {
                name: t.name.clone(),
                tokens: t.tokens,
                meta_true: Vec::new(),
            })
            .collect();
        Measured {
            tokens,
            tools: per_tool.len(),
            time: crate::lock::FILE_NAME.to_owned(),
            per_tool,
        }
    };
    Ok(lock
        .map(|lock| {
            lock.servers
                .iter()
                .map(|(name, server)| {
                    let costs = LockedCosts {
                        record: measured(server.tokens, &server.tools),
                        profiles: server
                            .profiles
                            .iter()
                            .map(|(p, listed)| (p.clone(), measured(listed.tokens, &listed.tools)))
                            .collect(),
                    };
                    (name.clone(), costs)
                })
                .collect()
        })
        .unwrap_or_default())
}

/// Each client's budget: a server's tools from state, else from `locked` by its name
/// (`lock_first`: from `locked` first, as CI counts from the committed lock).
pub fn count_with(
    ctx: &Context,
    clients: &[&Client],
    locked: &Locked,
    lock_first: bool,
) -> Vec<ClientBudget> {
    let found = loaded(ctx, clients);
    let measured = ctx.state.tokens();
    let sources = Sources {
        measured: &measured,
        locked,
        lock_first,
    };
    clients
        .iter()
        .filter_map(|client| {
            let mine: Vec<&Found<'_>> = found.iter().filter(|f| f.client.id == client.id).collect();
            (!mine.is_empty()).then(|| count_client(ctx, client, &mine, &sources))
        })
        .collect()
}

/// Where a server's measurement comes from.
struct Sources<'a> {
    measured: &'a Tokens,
    locked: &'a Locked,
    lock_first: bool,
}

impl Sources<'_> {
    /// The measurement to count for `client`: the one made declaring its capabilities,
    /// else mcpctl's own, per tool before a whole-server estimate; the lock's by name
    /// before state when `lock_first`, else after state's per-tool ones.
    fn of(
        &self,
        client: &Client,
        name: &str,
        entry: &crate::entry::ServerEntry,
    ) -> Option<(&Measured, MeasuredAs)> {
        let declared = client.loading.capabilities.as_ref();
        let as_client = || {
            declared
                .and_then(|d| self.measured.get_as(entry, Some(d)))
                .map(|m| (m, MeasuredAs::Client))
        };
        let own = || self.measured.get(entry).map(|m| (m, MeasuredAs::Mcpctl));
        let per_tool = |m: &(&Measured, MeasuredAs)| !m.0.per_tool.is_empty();
        let state = || {
            as_client()
                .filter(per_tool)
                .or_else(|| own().filter(per_tool))
        };
        let lock = || {
            self.locked
                .get(name)
                .map(|m| (m.for_client(client), MeasuredAs::Lock))
        };
        let any = || as_client().or_else(own);
        if self.lock_first {
            lock().or_else(state).or_else(any)
        } else {
            state().or_else(lock).or_else(any)
        }
    }
}

fn count_client(
    ctx: &Context,
    client: &Client,
    found: &[&Found<'_>],
    measured: &Sources<'_>,
) -> ClientBudget {
    let mut servers: Vec<ServerCost> = found
        .iter()
        .filter_map(|f| {
            let entry = f.entry().as_ref().ok()?;
            Some(server_cost(
                ctx,
                client,
                f,
                measured.of(client, &f.name, entry),
            ))
        })
        .collect();
    // Deferral: on, off, or by threshold over the definitions the client receives.
    let deferral = client.deferred_tools.as_ref().map(|row| {
        let full: usize = servers.iter().filter_map(|s| s.tokens).sum();
        deferral(ctx, row, full)
    });
    if let (Some(row), Some(d)) = (&client.deferred_tools, &deferral)
        && d.active
    {
        for server in &mut servers {
            let raw = server.raw.clone();
            defer(row, server, &raw);
        }
    }
    servers.sort_by(|a, b| {
        b.tokens
            .unwrap_or(usize::MAX)
            .cmp(&a.tokens.unwrap_or(usize::MAX))
            .then_with(|| a.name.cmp(&b.name))
    });
    let known: usize = servers.iter().filter_map(|s| s.tokens).sum();
    let unknown: Vec<String> = servers
        .iter()
        .filter(|s| s.tokens.is_none())
        .map(|s| s.name.clone())
        .collect();
    let mut costliest: Vec<Costly> = servers
        .iter()
        .flat_map(|s| {
            s.tools.iter().map(|t| Costly {
                server: s.name.clone(),
                tool: t.name.clone(),
                tokens: t.tokens,
            })
        })
        .collect();
    costliest.sort_by(|a, b| {
        b.tokens
            .cmp(&a.tokens)
            .then_with(|| (&a.server, &a.tool).cmp(&(&b.server, &b.tool)))
    });
    costliest.truncate(COSTLIEST);
    let fallback = fallback(client, &servers);
    ClientBudget {
        client: client.id.clone(),
        project: ctx.project.clone(),
        tokens: unknown.is_empty().then_some(known),
        known,
        unknown,
        servers,
        costliest,
        deferral,
        fallback,
    }
}

/// What to say when servers were counted from a measurement made with mcpctl's own
/// capabilities: the row records none, or they were not measured as this client yet.
fn fallback(client: &Client, servers: &[ServerCost]) -> Option<String> {
    let names: Vec<String> = servers
        .iter()
        .filter(|s| s.measured_as == Some(MeasuredAs::Mcpctl))
        .map(|s| format!("`{}`", s.name))
        .collect();
    if names.is_empty() {
        return None;
    }
    Some(if client.loading.capabilities.is_none() {
        format!(
            "{} (`{}`): its row records no capabilities it declares, so {} counted as the server lists {} to mcpctl's own; what {} receives may differ",
            client.name,
            client.id,
            names.join(", "),
            if names.len() == 1 {
                "its tools"
            } else {
                "their tools"
            },
            client.name
        )
    } else {
        format!(
            "{} measured with mcpctl's own capabilities, not {}'s: `mcpctl budget --measure -c {}` measures {} as {} receives {}",
            names.join(", "),
            client.name,
            client.id,
            if names.len() == 1 { "it" } else { "them" },
            client.name,
            if names.len() == 1 { "it" } else { "them" },
        )
    })
}

/// The allow-list and deny-list the entry's tool filter holds (`None`: no such field, or
/// an allow-list that allows every tool).
pub fn filter_lists(
    filter: Option<&ToolFilter>,
    raw: &RawEntry,
) -> (Option<Vec<String>>, Option<Vec<String>>) {
    let Some(filter) = filter else {
        return (None, None);
    };
    let list = |field: &Option<String>| -> Option<Vec<String>> {
        let value = raw.get(field.as_deref()?)?;
        Some(
            value
                .as_array()?
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect(),
        )
    };
    let allow = list(&filter.allow).filter(|l| {
        !filter
            .wildcard
            .as_ref()
            .is_some_and(|w| l.iter().any(|t| t == w))
    });
    (allow, list(&filter.deny))
}

/// Whether a tool gets through the lists.
pub fn passes(lists: &(Option<Vec<String>>, Option<Vec<String>>), tool: &str) -> bool {
    lists.0.as_ref().is_none_or(|a| a.iter().any(|t| t == tool))
        && !lists
            .1
            .as_ref()
            .is_some_and(|d| d.iter().any(|t| t == tool))
}

fn server_cost(
    ctx: &Context,
    client: &Client,
    f: &Found<'_>,
    measured: Option<(&Measured, MeasuredAs)>,
) -> ServerCost {
    let raw = merged(ctx, f);
    let mut cost = ServerCost {
        read_only: f.origin.is_some(),
        ..ServerCost::unmeasured(f.name.clone(), f.scope, f.path.clone(), f.key.clone())
    };
    fill_tools(client, &mut cost, &raw, measured);
    cost.raw = raw;
    cost
}

/// What `name`, started as `entry` and written as `raw`, would cost `client` once
/// switched on, counted as `budget` counts a server it loads; `None`: never measured.
pub fn would_cost(
    ctx: &Context,
    client: &Client,
    name: &str,
    entry: &crate::entry::ServerEntry,
    raw: &RawEntry,
    locked: &Locked,
) -> Option<usize> {
    let measured = ctx.state.tokens();
    let sources = Sources {
        measured: &measured,
        locked,
        lock_first: true,
    };
    let mut cost = ServerCost::unmeasured(name.to_owned(), Scope::User, PathBuf::new(), Vec::new());
    fill_tools(client, &mut cost, raw, sources.of(client, name, entry));
    if let (Some(row), Some(full)) = (&client.deferred_tools, cost.tokens)
        && deferral(ctx, row, full).active
    {
        defer(row, &mut cost, raw);
    }
    cost.tokens
}

/// The server's tools from its measurement, through the entry's tool filter.
fn fill_tools(
    client: &Client,
    cost: &mut ServerCost,
    raw: &RawEntry,
    measured: Option<(&Measured, MeasuredAs)>,
) {
    let Some((m, measured_as)) = measured else {
        return;
    };
    cost.measured = Some(m.time.clone());
    cost.measured_as = Some(measured_as);
    cost.full = Some(m.tokens);
    if m.per_tool.is_empty() {
        cost.tokens = Some(m.tokens);
        return;
    }
    let lists = filter_lists(client.tool_filter.as_ref(), raw);
    for tool in &m.per_tool {
        if passes(&lists, &tool.name) {
            cost.tools.push(ToolCost {
                name: tool.name.clone(),
                tokens: tool.tokens,
                definition: tool.tokens,
                deferred: false,
                meta_true: tool.meta_true.clone(),
            });
        } else {
            cost.filtered.push(tool.name.clone());
        }
    }
    // Counted tool by tool, so that a filtered server and an unfiltered one add up alike
    // (the sum of the parts is a few tokens more than the estimate of the whole list).
    cost.tokens = Some(cost.tools.iter().map(|t| t.tokens).sum());
    cost.full = Some(m.per_tool.iter().map(|t| t.tokens).sum());
}

/// Whether deferral is on for this client here, and why.
fn deferral(ctx: &Context, row: &DeferredTools, full: usize) -> Deferral {
    let value = row
        .env
        .as_deref()
        .and_then(|name| ctx.platform.var(name).map(|v| (name, v.trim().to_owned())));
    let (active, why) = match &value {
        None => (true, "on by default".to_owned()),
        Some((name, v)) => {
            let lower = v.to_ascii_lowercase();
            let percent = if lower == "auto" {
                row.auto_percent
            } else {
                lower
                    .strip_prefix("auto:")
                    .and_then(|n| n.parse::<usize>().ok())
            };
            match (lower.as_str(), percent) {
                (_, Some(0)) => (true, format!("{name}={v}")),
                (_, Some(100)) => (false, format!("{name}={v}")),
                (_, Some(p)) => {
                    let window = row.window.unwrap_or(0);
                    let threshold = window * p.min(100) / 100;
                    (
                        full > threshold,
                        format!(
                            "{name}={v}: deferred above {threshold} tokens ({p}% of {window}); these come to {full}"
                        ),
                    )
                }
                ("false" | "0" | "no" | "off" | "standard", None) => (false, format!("{name}={v}")),
                _ => (true, format!("{name}={v}")),
            }
        }
    };
    Deferral {
        active,
        rule: row.rule.clone(),
        source: row.source.clone(),
        why,
    }
}

/// Count the server's tools as deferred unless the entry loads them up front (its
/// `load_key` true), or, the entry saying nothing, the tool itself does (its `_meta`
/// `tool_key` true); an entry's `false` defers every tool.
fn defer(row: &DeferredTools, server: &mut ServerCost, raw: &RawEntry) {
    let entry = raw.get(&row.load_key).and_then(Value::as_bool);
    if entry == Some(true) || server.tools.is_empty() {
        return;
    }
    for tool in &mut server.tools {
        let own = entry.is_none()
            && row
                .tool_key
                .as_ref()
                .is_some_and(|key| tool.meta_true.contains(key));
        if own {
            continue;
        }
        let listed = row
            .listed_as
            .replace("{server}", &server.name)
            .replace("{tool}", &tool.name);
        tool.tokens = listed.len().div_ceil(4);
        tool.deferred = true;
    }
    server.deferred = server.tools.iter().any(|t| t.deferred);
    server.tokens = Some(server.tools.iter().map(|t| t.tokens).sum());
}

/// Start the servers of `clients` never measured as that client (declaring its own
/// capabilities where its row records them; doctor's probe and trust rules; what it
/// measures is remembered). Returns how many were started.
pub fn measure_unmeasured(
    ctx: &Context,
    printer: &mut crate::output::Printer,
    clients: &[&Client],
    trust_project: bool,
    timeout: f64,
) -> anyhow::Result<usize> {
    let measured = ctx.state.tokens();
    let options = crate::doctor::probe::probe_options(ctx, timeout)?;
    let mut checkup = crate::doctor::gather(
        ctx,
        &crate::doctor::Request {
            clients,
            names: &[],
            no_spawn: false,
            trust_project,
            as_client: None,
            own_capabilities: true,
            options: &options,
        },
    )?;
    checkup.keep_probes(|f| {
        f.entry().as_ref().is_ok_and(|e| {
            measured
                .get_as(e, f.client.loading.capabilities.as_ref())
                .is_none_or(|m| m.per_tool.is_empty())
        })
    });
    let started = checkup.starting();
    if started > 0 {
        printer.stream(&[crate::output::Block::Note(format!(
            "measuring {started} server{} never measured — this starts the commands and contacts the URLs in your config files",
            if started == 1 { "" } else { "s" }
        ))]);
        let jobs = std::thread::available_parallelism().map_or(4, usize::from);
        checkup.probe(jobs, |_, _| {});
    }
    let finished = checkup.finish(ctx, printer);
    // A server that could not be measured stays unknown; say why.
    for r in &finished.results {
        if let (Some(error), None) = (&r.error, r.tokens)
            && !r.name.is_empty()
            && r.elapsed_ms.is_some()
        {
            printer.warn(&format!(
                "could not measure `{}` in {}: {error}",
                r.name, r.client
            ));
        }
    }
    Ok(started)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn filter(allow: Option<&str>, deny: Option<&str>, wildcard: Option<&str>) -> ToolFilter {
        ToolFilter {
            allow: allow.map(str::to_owned),
            deny: deny.map(str::to_owned),
            wildcard: wildcard.map(str::to_owned),
        }
    }

    #[test]
    fn a_tool_passes_the_allow_list_and_not_the_deny_list() {
        let codex = filter(Some("enabled_tools"), Some("disabled_tools"), None);
        let raw = json!({"enabled_tools": ["a", "b"], "disabled_tools": ["b"]});
        let lists = filter_lists(Some(&codex), &raw);
        assert!(passes(&lists, "a"));
        assert!(!passes(&lists, "b"), "denied wins");
        assert!(!passes(&lists, "c"), "not allowed");
        // Copilot CLI's `tools: ["*"]` allows every tool.
        let copilot = filter(Some("tools"), None, Some("*"));
        let lists = filter_lists(Some(&copilot), &json!({"tools": ["*"]}));
        assert!(passes(&lists, "anything"));
        // No filter, or no fields: everything.
        assert!(passes(&filter_lists(None, &raw), "b"));
        assert!(passes(&filter_lists(Some(&codex), &json!({})), "b"));
    }
}
