//! The smallest set of changes that brings a client under a budget (`budget --max N`):
//! deny the costliest tools not kept through the client's own tool filter where it has
//! one, else (or when denying is not enough) switch off whole servers (the client's own
//! switch, else park). The costliest first, ties by name: deterministic, and the fewest
//! changes (taking the largest first reaches any amount in the fewest steps). Each change
//! is made where the entry lives, through `toggle` (so `undo` takes the command back).

use std::path::PathBuf;

use serde::Serialize;

use super::{ClientBudget, Place, ServerCost};
use crate::clients::Client;
use crate::session::Context;
use crate::toggle::filters::{self, FilterAction, ToolOp};
use crate::toggle::{self, Want};

/// What `--keep` keeps: whole servers, or single tools (`SERVER/TOOL`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Keep {
    servers: Vec<String>,
    tools: Vec<(String, String)>,
}

impl Keep {
    pub fn parse<S: AsRef<str>>(items: &[S]) -> Keep {
        let mut keep = Keep::default();
        for item in items {
            match item.as_ref().split_once('/') {
                Some((server, tool)) => keep.tools.push((server.to_owned(), tool.to_owned())),
                None => keep.servers.push(item.as_ref().to_owned()),
            }
        }
        keep
    }

    fn server(&self, server: &str) -> bool {
        self.servers.iter().any(|s| s == server)
    }

    fn tool(&self, server: &str, tool: &str) -> bool {
        self.server(server) || self.tools.iter().any(|(s, t)| s == server && t == tool)
    }

    /// Tools kept of `server` (by name), however many it has.
    fn kept_of(&self, server: &ServerCost) -> usize {
        server
            .tools
            .iter()
            .filter(|t| self.tool(&server.name, &t.name))
            .count()
    }

    /// Whether anything of `server` is kept.
    pub fn touches(&self, server: &str) -> bool {
        self.server(server) || self.tools.iter().any(|(s, _)| s == server)
    }
}

/// One change of a cut.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Change {
    /// Deny these tools of the server through the client's tool filter.
    Deny {
        server: String,
        tools: Vec<Denied>,
        /// Every line of explanation, one per tool.
        #[serde(skip)]
        lines: Vec<String>,
    },
    /// Switch the whole server off.
    SwitchOff {
        server: String,
        tokens: usize,
        why: String,
    },
}

#[derive(Debug, Clone, Serialize)]
pub struct Denied {
    pub tool: String,
    pub tokens: usize,
}

impl Change {
    pub fn server(&self) -> &str {
        match self {
            Change::Deny { server, .. } | Change::SwitchOff { server, .. } => server,
        }
    }

    /// The explanation, a line per tool or server.
    pub fn lines(&self) -> Vec<String> {
        match self {
            Change::Deny { lines, .. } => lines.clone(),
            Change::SwitchOff { why, .. } => vec![why.clone()],
        }
    }
}

/// The cut for one client.
#[derive(Debug, Clone, Serialize)]
pub struct Cut {
    pub client: String,
    pub max: usize,
    pub before: Option<usize>,
    /// The total once the changes are made.
    pub after: Option<usize>,
    pub changes: Vec<Change>,
    /// Why it cannot be brought under `max` (nothing left to cut, or not measured).
    pub short: Option<String>,
    /// What each change did (or, without `--apply`, would do): the file and its diff.
    pub done: Vec<Done>,
}

/// One change made (or shown).
#[derive(Debug, Clone, Serialize)]
pub struct Done {
    pub server: String,
    #[serde(serialize_with = "crate::output::path_json")]
    pub path: PathBuf,
    /// filtered | disabled | unchanged | failed | ...
    pub action: String,
    pub error: Option<String>,
    #[serde(skip)]
    pub diff: Option<String>,
}

/// `1234567` as `1,234,567`.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The changes that bring `budget` under `max`.
/// `place`: where in this project the client takes a switch or a tool filter
/// (`super::place`), used to make the changes in this project only.
pub fn plan(
    client: &Client,
    budget: &ClientBudget,
    max: usize,
    keep: &Keep,
    place: &Place<'_>,
) -> Cut {
    let mut cut = Cut {
        client: client.id.clone(),
        max,
        before: budget.tokens,
        after: budget.tokens,
        changes: Vec::new(),
        short: None,
        done: Vec::new(),
    };
    let Some(mut total) = budget.tokens else {
        cut.short = Some(format!(
            "{} not measured yet: `mcpctl budget --measure -c {}` measures {}",
            budget
                .unknown
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", "),
            client.id,
            if budget.unknown.len() == 1 {
                "it"
            } else {
                "them"
            }
        ));
        return cut;
    };
    if total <= max {
        return cut;
    }
    let editable = |s: &&ServerCost| !s.read_only;
    // What each server still costs, as changes are chosen.
    let mut left: Vec<(String, usize)> = budget
        .servers
        .iter()
        .map(|s| (s.name.clone(), s.tokens.unwrap_or(0)))
        .collect();
    let mut denied: Vec<(String, Vec<Denied>)> = Vec::new();
    if client.tool_filter.is_some() {
        let mut candidates: Vec<(&ServerCost, &super::ToolCost)> = budget
            .servers
            .iter()
            .filter(editable)
            .flat_map(|s| s.tools.iter().map(move |t| (s, t)))
            .filter(|(s, t)| t.tokens > 0 && !keep.tool(&s.name, &t.name))
            .collect();
        candidates.sort_by(|a, b| {
            b.1.tokens
                .cmp(&a.1.tokens)
                .then_with(|| (&a.0.name, &a.1.name).cmp(&(&b.0.name, &b.1.name)))
        });
        for (server, tool) in candidates {
            if total <= max {
                break;
            }
            // A server whose every tool would go is switched off instead (an empty
            // allow-list is refused, and one change says it better).
            total -= tool.tokens;
            if let Some(l) = left.iter_mut().find(|(n, _)| *n == server.name) {
                l.1 -= tool.tokens;
            }
            let item = Denied {
                tool: tool.name.clone(),
                tokens: tool.tokens,
            };
            match denied.iter_mut().find(|(n, _)| *n == server.name) {
                Some((_, tools)) => tools.push(item),
                None => denied.push((server.name.clone(), vec![item])),
            }
        }
    }
    // Whole servers, the costliest left first, when there is no filter or it was not
    // enough.
    let mut off: Vec<(String, usize)> = Vec::new();
    if total > max {
        let mut servers: Vec<(&ServerCost, usize)> = budget
            .servers
            .iter()
            .filter(editable)
            .filter(|s| !keep.touches(&s.name))
            .filter_map(|s| {
                let cost = left.iter().find(|(n, _)| *n == s.name)?.1;
                (cost > 0).then_some((s, cost))
            })
            .collect();
        servers.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.name.cmp(&b.0.name)));
        for (server, cost) in servers {
            if total <= max {
                break;
            }
            total -= cost;
            off.push((server.name.clone(), cost));
        }
    }
    // A server switched off needs none of its tools denied.
    denied.retain(|(name, _)| !off.iter().any(|(n, _)| n == name));
    explain(&mut cut, client, budget, keep, place, denied, off);
    cut.after = Some(total);
    if total > max {
        cut.short = Some(format!(
            "cannot get under {}: {} tokens are kept (`--keep`) or in read-only sources",
            thousands(max),
            thousands(total)
        ));
    }
    cut
}

/// `--scope project`: a cut with a change this project's files cannot take (no project
/// file the client reads takes a tool filter, or no project-level switch) is not made:
/// `short` says why.
pub fn project_only(client: &Client, cut: &mut Cut, place: &Place<'_>) {
    let denies = cut.changes.iter().any(|c| matches!(c, Change::Deny { .. }));
    let offs = cut
        .changes
        .iter()
        .any(|c| matches!(c, Change::SwitchOff { .. }));
    let missing = if denies && place.filter.is_none() {
        Some("a tool filter")
    } else if offs && place.switch.is_none() {
        Some("a switch")
    } else {
        None
    };
    if let Some(what) = missing {
        let why = place.not_read.clone().unwrap_or_else(|| {
            format!(
                "{} reads no file of this project that takes {what}",
                client.name
            )
        });
        cut.short = Some(format!(
            "cannot cut in this project only (--scope project): {why}; `--scope user` cuts in the user's files"
        ));
    }
}

/// The changes chosen, each with its line of explanation.
fn explain(
    cut: &mut Cut,
    client: &Client,
    budget: &ClientBudget,
    keep: &Keep,
    place: &Place<'_>,
    denied: Vec<(String, Vec<Denied>)>,
    off: Vec<(String, usize)>,
) {
    // Where the tools are denied: in this project's file, or the user's (and why).
    let denied_where = match (&place.filter, &place.not_read) {
        (Some((_, file)), _) => format!(
            "; in this project only (`{}`, merged into the user's entry)",
            file.display()
        ),
        (None, Some(why)) if place.merges => format!("; in the user's file: {why}"),
        _ => String::new(),
    };
    for (name, tools) in denied {
        let Some(server) = budget.servers.iter().find(|s| s.name == name) else {
            continue;
        };
        let count = server.tools.len() + server.filtered.len();
        let kept = keep.kept_of(server);
        let lines = tools
            .iter()
            .map(|d| {
                format!(
                    "deny `{}` ({} tokens) — {name} has {count} tool{}, {kept} kept{denied_where}",
                    d.tool,
                    thousands(d.tokens),
                    if count == 1 { "" } else { "s" }
                )
            })
            .collect();
        cut.changes.push(Change::Deny {
            server: name,
            tools,
            lines,
        });
    }
    for (name, tokens) in off {
        let how = if client.tool_filter.is_some() {
            "denying tools was not enough"
        } else {
            "the client has no per-server tool filter"
        };
        let mut switch = match (
            place.switch,
            toggle::method(client, scope_of(budget, &name)),
        ) {
            (Some(here), _) => format!(
                "switched off in this project only ({} in its project-level switch)",
                here.key
            ),
            (None, toggle::Method::Park) => "parked (kept in mcpctl's state directory)".to_owned(),
            _ => "switched off by the client's own switch".to_owned(),
        };
        if let Some(why) = &place.not_read {
            switch.push_str(&format!(", not in this project: {why}"));
        }
        cut.changes.push(Change::SwitchOff {
            why: format!(
                "switch off `{name}` ({} tokens) — {how}; {switch}",
                thousands(tokens)
            ),
            server: name,
            tokens,
        });
    }
}

fn scope_of(budget: &ClientBudget, server: &str) -> crate::clients::Scope {
    budget
        .servers
        .iter()
        .find(|s| s.name == server)
        .map_or(crate::clients::Scope::User, |s| s.scope)
}

/// Make (or, with `dry_run`, show) the changes of `cut`, where `place` says.
pub fn make(
    ctx: &Context,
    client: &Client,
    budget: &ClientBudget,
    cut: &mut Cut,
    place: &Place<'_>,
    dry_run: bool,
) {
    let filter = client.tool_filter.clone();
    for change in &cut.changes {
        let Some(server) = budget.servers.iter().find(|s| s.name == change.server()) else {
            continue;
        };
        let location = server.location(client);
        let mut done = Done {
            server: server.name.clone(),
            path: server.path.clone(),
            action: "failed".to_owned(),
            error: None,
            diff: None,
        };
        match change {
            Change::Deny { tools, .. } => {
                let names: Vec<String> = tools.iter().map(|d| d.tool.clone()).collect();
                if let Some((here, _)) = &place.filter {
                    // The project's list replaces the user's: it holds what is denied
                    // now, and the new tools.
                    let (_, now) = super::filter_lists(filter.as_ref(), &server.raw);
                    let mut list = now.unwrap_or_default();
                    list.extend(
                        names
                            .iter()
                            .filter(|t| !list.contains(t))
                            .cloned()
                            .collect::<Vec<_>>(),
                    );
                    match toggle::here::deny_tools(
                        ctx,
                        client,
                        here,
                        &ctx.project,
                        &server.name,
                        &list,
                        dry_run,
                    ) {
                        Ok(s) => {
                            done.action = match s.action {
                                toggle::Action::Unchanged => "unchanged",
                                _ => "filtered",
                            }
                            .to_owned();
                            done.path = s.path;
                            done.diff = s.diff;
                        }
                        Err(e) => done.error = Some(format!("{e:#}")),
                    }
                    cut.done.push(done);
                    continue;
                }
                // A client with only an allow-list gets the tools that stay.
                let op = if filter.as_ref().is_some_and(|f| f.deny.is_none()) {
                    ToolOp::AllowOnly(
                        server
                            .tools
                            .iter()
                            .map(|t| t.name.clone())
                            .filter(|t| !names.contains(t))
                            .collect(),
                    )
                } else {
                    ToolOp::Deny(names)
                };
                match filters::filter(ctx, client, &location, &server.name, &op, dry_run) {
                    Ok(f) => {
                        done.action = match f.action {
                            FilterAction::Filtered => "filtered",
                            FilterAction::Unchanged => "unchanged",
                            FilterAction::Missing => "missing",
                            FilterAction::Unsupported => "unsupported",
                        }
                        .to_owned();
                        done.error = f.note;
                        done.diff = f.diff;
                    }
                    Err(e) => done.error = Some(format!("{e:#}")),
                }
            }
            Change::SwitchOff { .. } => {
                let switched = match place.switch {
                    Some(here) => toggle::here::switch(
                        ctx,
                        client,
                        here,
                        &ctx.project,
                        &server.name,
                        Want::Off,
                        false,
                        dry_run,
                    ),
                    None => {
                        toggle::switch(ctx, client, &location, &server.name, Want::Off, dry_run)
                    }
                };
                match switched {
                    Ok(s) => {
                        done.action = match s.action {
                            toggle::Action::Disabled => "disabled",
                            toggle::Action::Enabled => "enabled",
                            toggle::Action::Unchanged => "unchanged",
                            toggle::Action::Missing => "missing",
                        }
                        .to_owned();
                        done.path = s.path;
                        done.diff = s.diff;
                        done.error = s.unfinished;
                    }
                    Err(e) => done.error = Some(format!("{e:#}")),
                }
            }
        }
        cut.done.push(done);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(4120), "4,120");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }

    #[test]
    fn keep_takes_servers_and_tools() {
        let keep = Keep::parse(&["memory", "everything/echo"]);
        assert!(keep.tool("memory", "anything"));
        assert!(keep.tool("everything", "echo"));
        assert!(!keep.tool("everything", "add"));
        assert!(keep.touches("everything"));
        assert!(!keep.touches("other"));
    }
}
