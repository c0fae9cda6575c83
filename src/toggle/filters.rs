//! Tool filters: the client's own per-server allow/deny fields (`clients.toml`
//! `tool_filter`: Codex `enabled_tools`/`disabled_tools`, Gemini and Qwen
//! `includeTools`/`excludeTools`, Windsurf, Kiro, Roo, Antigravity `disabledTools`, Copilot
//! CLI `tools`). A client without one is `Unsupported`: nothing is written.
//!
//! Like switches, filters remember the field's value before mcpctl's first change, so
//! taking every change back (`enable --deny-tools` for the tools denied, `--all-tools`)
//! gives the original bytes back.

use std::cell::RefCell;
use std::path::PathBuf;

use serde::Serialize;
use serde_json::Value;

use super::store::{self, Memory};
use super::{entry_in, find};
use crate::clients::{Client, Location, ToolFilter};
use crate::formats::Edit;
use crate::session::Context;
use crate::session::edit;

/// An allow-list and a deny-list (`None`: no such field).
type Lists = (Option<Vec<String>>, Option<Vec<String>>);

/// A field that changed: its name, its value before, its value after.
type FieldChange = (String, Option<Value>, Option<Value>);

/// A change to a server's tools.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolOp {
    /// `disable --deny-tools`: these tools off.
    Deny(Vec<String>),
    /// `enable --deny-tools`: these tools back on (off the deny-list).
    Undeny(Vec<String>),
    /// `enable --allow-tools`: only these tools (the allow-list becomes exactly them).
    AllowOnly(Vec<String>),
    /// `enable --all-tools`: no filter.
    Clear,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FilterAction {
    Filtered,
    Unchanged,
    Missing,
    /// The client has no such field: nothing was written.
    Unsupported,
}

/// What a filter change did.
#[derive(Debug)]
pub struct Filtered {
    pub action: FilterAction,
    pub diff: Option<String>,
    pub backup: Option<PathBuf>,
    pub note: Option<String>,
    /// The allow-list and deny-list after the change (`None`: no such field).
    pub allow: Option<Vec<String>>,
    pub deny: Option<Vec<String>>,
}

impl Filtered {
    fn plain(action: FilterAction, note: Option<String>) -> Filtered {
        Filtered {
            action,
            diff: None,
            backup: None,
            note,
            allow: None,
            deny: None,
        }
    }
}

/// Why `client` cannot take `op`, if it cannot.
fn unsupported(client: &Client, op: &ToolOp) -> Option<String> {
    let Some(filter) = &client.tool_filter else {
        return Some(if client.id == "claude-code" {
            "Claude Code filters tools in settings.json (`permissions.deny: [\"mcp__SERVER__TOOL\"]`), not in the server entry; mcpctl does not edit that file".to_owned()
        } else {
            format!(
                "{} has no per-server tool filter in its config file",
                client.name
            )
        });
    };
    match op {
        ToolOp::AllowOnly(_) if filter.allow.is_none() => Some(format!(
            "{} has no allow-list, only a deny-list (`{}`): use `mcpctl disable NAME -c {} --deny-tools TOOL,...`",
            client.name,
            filter.deny.as_deref().unwrap_or_default(),
            client.id
        )),
        _ => None,
    }
}

fn strings(value: Option<&Value>) -> Option<Vec<String>> {
    value.and_then(Value::as_array).map(|items| {
        items
            .iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect()
    })
}

fn list(names: Vec<String>) -> Value {
    Value::Array(names.into_iter().map(Value::String).collect())
}

/// The new allow and deny values (`None` = no field) for `op`, or a reason to refuse.
fn next(
    filter: &ToolFilter,
    allow: Option<Vec<String>>,
    deny: Option<Vec<String>>,
    op: &ToolOp,
) -> Result<Lists, String> {
    let wildcard = |list: &Option<Vec<String>>| {
        list.as_ref().is_none_or(|l| {
            filter
                .wildcard
                .as_ref()
                .is_some_and(|w| l.iter().any(|t| t == w))
        })
    };
    let add = |list: Option<Vec<String>>, tools: &[String]| {
        let mut list = list.unwrap_or_default();
        for tool in tools {
            if !list.contains(tool) {
                list.push(tool.clone());
            }
        }
        list
    };
    let take = |list: Option<Vec<String>>, tools: &[String]| {
        list.map(|mut l| {
            l.retain(|t| !tools.contains(t));
            l
        })
    };
    Ok(match op {
        ToolOp::Deny(tools) if filter.deny.is_some() => (allow, Some(add(deny, tools))),
        ToolOp::Deny(tools) => {
            if wildcard(&allow) {
                return Err(format!(
                    "only an allow-list (`{}`) exists and it allows every tool: name the tools to keep with `enable --allow-tools`",
                    filter.allow.as_deref().unwrap_or_default()
                ));
            }
            let kept = take(allow, tools).unwrap_or_default();
            if kept.is_empty() {
                return Err(
                    "that would leave the allow-list empty; disable the server instead".to_owned(),
                );
            }
            (Some(kept), deny)
        }
        ToolOp::Undeny(tools) if filter.deny.is_some() => (allow, take(deny, tools)),
        ToolOp::Undeny(tools) => {
            if wildcard(&allow) {
                (allow, deny)
            } else {
                (Some(add(allow, tools)), deny)
            }
        }
        ToolOp::AllowOnly(tools) => (Some(tools.clone()), deny),
        ToolOp::Clear => (None, None),
    })
}

/// Refuse a tool name the server was measured not to have (`doctor` and `tools` keep
/// each tool's name in state `tokens.json`): a typo would deny nothing, or allow
/// nothing. Names of a server never measured are taken as given; `enable --deny-tools`
/// takes back any name.
fn measured_names(
    ctx: &Context,
    client: &Client,
    raw: &crate::formats::RawEntry,
    name: &str,
    op: &ToolOp,
    wildcard: Option<&str>,
) -> anyhow::Result<()> {
    let (ToolOp::Deny(tools) | ToolOp::AllowOnly(tools)) = op else {
        return Ok(());
    };
    let Ok(entry) = crate::entry::Dialect::of(client).read_raw(raw) else {
        return Ok(());
    };
    let measured = ctx.state.tokens();
    let Some(seen) = measured.get(&entry).filter(|m| !m.per_tool.is_empty()) else {
        return Ok(());
    };
    let known: Vec<&str> = seen.per_tool.iter().map(|t| t.name.as_str()).collect();
    let unknown: Vec<&String> = tools
        .iter()
        .filter(|t| !known.contains(&t.as_str()) && Some(t.as_str()) != wildcard)
        .collect();
    let Some(first) = unknown.first() else {
        return Ok(());
    };
    let listed = unknown
        .iter()
        .map(|t| format!("`{t}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let mut message = format!(
        "server `{name}` has no tool {listed} (it listed {} when last measured, {})",
        known.len(),
        seen.time.get(..10).unwrap_or(&seen.time)
    );
    if let Some(meant) = crate::suggest::closest(first, known.iter().copied()) {
        message.push_str(&format!(": did you mean `{meant}`?"));
    }
    Err(crate::error::UserError::new(message)
        .hint(format!(
            "its tools: {}; if the server changed since, `mcpctl tools {name}` lists them again; nothing was written",
            known.join(", ")
        ))
        .into())
}

/// Apply `op` to the server `name` at `location`.
pub fn filter(
    ctx: &Context,
    client: &Client,
    location: &Location,
    name: &str,
    op: &ToolOp,
    dry_run: bool,
) -> anyhow::Result<Filtered> {
    if let Some(why) = unsupported(client, op) {
        return Ok(Filtered::plain(FilterAction::Unsupported, Some(why)));
    }
    let filter = client.tool_filter.clone().unwrap_or(ToolFilter {
        allow: None,
        deny: None,
        wildcard: None,
    });
    let Some(raw) = entry_in(ctx, client, location, name)? else {
        return Ok(Filtered::plain(FilterAction::Missing, None));
    };
    measured_names(ctx, client, &raw, name, op, filter.wildcard.as_deref())?;
    let at: Vec<String> = [location.key.clone(), vec![name.to_owned()]].concat();
    let identity = crate::fs::identity(&location.path);
    let store_now = store::load(ctx)?;
    let fields: Vec<&String> = filter.allow.iter().chain(&filter.deny).collect();
    let memories: Vec<Option<Memory>> = fields
        .iter()
        .map(|f| store_now.memory(&identity, &at, f).cloned())
        .collect();
    // (field, value before this change, value after) for each field that changes.
    let changes: RefCell<Vec<FieldChange>> = RefCell::new(Vec::new());
    let result: RefCell<Lists> = RefCell::new((None, None));
    let outcome = edit::apply(ctx, client, location, dry_run, &|doc| {
        let Some(entry) = find(doc, location.at(), name)? else {
            return Ok(Edit::Unchanged);
        };
        let get = |field: &Option<String>| field.as_ref().and_then(|f| entry.get(f)).cloned();
        let (allow_before, deny_before) = (get(&filter.allow), get(&filter.deny));
        let (allow, deny) = next(
            &filter,
            strings(allow_before.as_ref()),
            strings(deny_before.as_ref()),
            op,
        )
        .map_err(|why| crate::error::UserError::new(format!("{}: {why}", client.id)))?;
        *result.borrow_mut() = (allow.clone(), deny.clone());
        changes.borrow_mut().clear();
        let mut edit = Edit::Unchanged;
        let mut slots = Vec::new();
        if let Some(field) = &filter.allow {
            slots.push((field, allow_before, allow));
        }
        if let Some(field) = &filter.deny {
            slots.push((field, deny_before, deny));
        }
        for (field, before, after) in slots {
            let memory = memories.iter().flatten().find(|m| m.field == *field);
            // An empty deny-list is no deny-list: drop it unless the user had one.
            let after = after.filter(|l| {
                !(l.is_empty()
                    && filter.deny.as_ref() == Some(field)
                    && memory.is_some_and(|m| m.before.is_none()))
            });
            let mut after = after.map(list);
            // Back to what the user had: write their value (or no field) again.
            if let Some(m) = memory
                && strings(m.before.as_ref()) == strings(after.as_ref())
            {
                after = m.before.clone();
            }
            if before == after {
                continue;
            }
            let done = super::set_entry_field(doc, location, name, field, after.as_ref())?;
            if done != Edit::Unchanged {
                edit = Edit::Updated;
                changes.borrow_mut().push((field.clone(), before, after));
            }
        }
        Ok(edit)
    })?;
    let changed = outcome.action != edit::Action::Unchanged;
    if changed && !dry_run {
        let changes = changes.into_inner();
        store::update(ctx, false, |s| {
            for (field, before, after) in changes {
                let original = s.memory(&identity, &at, &field).map(|m| m.before.clone());
                match original {
                    Some(original) if original == after => s.forget(&identity, &at, &field),
                    Some(_) => {}
                    None => s.remember(Memory {
                        path: identity.clone(),
                        at: at.clone(),
                        field,
                        before,
                        created_parent: false,
                        created_above: 0,
                    }),
                }
            }
        })?;
    }
    let (allow, deny) = result.into_inner();
    Ok(Filtered {
        action: if changed {
            FilterAction::Filtered
        } else {
            FilterAction::Unchanged
        },
        diff: outcome.diff,
        backup: outcome.backup,
        note: None,
        allow: filter.allow.as_ref().and(allow),
        deny: filter.deny.as_ref().and(deny),
    })
}
