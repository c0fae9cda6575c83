//! Per-project overrides (issue 43): switch a server off (or back on) in one project only,
//! through the client's own project-level switch (`clients.toml` field `here`), whatever
//! scope the server comes from. The user's entry is never touched, and nothing is parked:
//! a client without a project-level switch is reported and left alone.
//!
//! The edit goes through [`super::native::switch_member`] (lock, atomic write, backup,
//! journal, and the memory that lets `enable --here` give back the bytes `disable --here`
//! found), so `undo` reverts it like any other command.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::native::{self, Target};
use super::{Method, Switched, Want};
use crate::clients::{Client, Here, HereKind, Location, Scope, Switch};
use crate::error::UserError;
use crate::formats::ServersAt;
use crate::session::Context;
use crate::session::inventory::read_document;

/// The project `--here` means without `--project`: the repository holding the working
/// directory `cwd` (the nearest folder up with a `.git`, as Claude Code keys its
/// projects), else `cwd` itself.
pub fn repository(cwd: &Path) -> PathBuf {
    cwd.ancestors()
        .find(|dir| dir.join(".git").exists())
        .unwrap_or(cwd)
        .to_path_buf()
}

/// Where `client`'s project-level switch lives for the project at `root`: the file and
/// the key path of the object holding the list (`list`) or the servers (`field`).
pub fn place(
    ctx: &Context,
    client: &Client,
    here: &Here,
    root: &Path,
    local: bool,
) -> anyhow::Result<(PathBuf, Vec<String>)> {
    let rel = if local {
        here.local.as_deref()
    } else {
        here.file.as_deref()
    };
    let path = match rel {
        Some(template) if template.contains('{') => ctx.platform.expand(template)?,
        Some(rel) => crate::platform::join_relative(root, rel),
        None => client
            .location(Scope::Project, &ctx.platform, root)?
            .map(|l| l.path)
            .ok_or_else(|| UserError::new(format!("{} has no project file", client.name)))?,
    };
    let project = client.project_key(ctx.platform.os, root);
    let at = here
        .at
        .iter()
        .map(|k| k.replace("{project}", &project))
        .collect();
    Ok((path, at))
}

/// Whether the switch's file is the user's own (Claude Code's `~/.claude.json`): nothing
/// there is committed, so it is "local" already.
pub fn personal(here: &Here) -> bool {
    here.file.as_deref().is_some_and(|f| f.contains('{'))
}

/// The switch as [`native::switch_member`] takes it, and its target.
fn spelled(
    ctx: &Context,
    client: &Client,
    here: &Here,
    root: &Path,
    local: bool,
    name: &str,
    value: Option<&Value>,
) -> anyhow::Result<(Switch, Target)> {
    let (path, at) = place(ctx, client, here, root, local)?;
    let scope = if local || personal(here) {
        Scope::Local
    } else {
        Scope::Project
    };
    Ok(match here.kind {
        HereKind::List => (
            Switch::List {
                file: None,
                format: None,
                at: Vec::new(),
                key: here.key.clone(),
                scopes: Vec::new(),
            },
            Target {
                place: Location {
                    scope,
                    path,
                    key: at.clone(),
                    name_key: None,
                },
                at,
                field: here.key.clone(),
            },
        ),
        HereKind::Field => (
            Switch::Field {
                key: here.key.clone(),
                off: value.cloned().unwrap_or(Value::Bool(false)),
            },
            Target {
                place: Location {
                    scope,
                    path,
                    key: at.clone(),
                    name_key: None,
                },
                at: [at, vec![name.to_owned()]].concat(),
                field: here.key.clone(),
            },
        ),
    })
}

/// Switch `name` off (`Want::Off`) or back on (what was there before the project's `off`)
/// in the project at `root`, in `client`'s own project-level switch (`local`: its
/// uncommitted file).
#[allow(clippy::too_many_arguments)]
pub fn switch(
    ctx: &Context,
    client: &Client,
    here: &Here,
    root: &Path,
    name: &str,
    want: Want,
    local: bool,
    dry_run: bool,
) -> anyhow::Result<Switched> {
    let method = match here.kind {
        HereKind::List => Method::List,
        HereKind::Field => Method::Field,
    };
    let (switch, target) = spelled(ctx, client, here, root, local, name, here.off.as_ref())?;
    native::switch_member(
        ctx, client, &switch, &target, None, name, want, method, dry_run,
    )
}

/// Deny tools of `name` in the project at `root` only, where the client merges a project
/// entry key by key into the user's (a `field` switch: Codex's `.codex/config.toml`): the
/// entry's deny-list field (the row's `tool_filter.deny`) written alone as `list`, the
/// user's entry untouched.
/// The project's list replaces the user's, so `list` holds what the client denies now as
/// well as the new tools. Journaled like any edit: `undo` gives the bytes back.
pub fn deny_tools(
    ctx: &Context,
    client: &Client,
    here: &Here,
    root: &Path,
    name: &str,
    list: &[String],
    dry_run: bool,
) -> anyhow::Result<Switched> {
    let field = client
        .tool_filter
        .as_ref()
        .and_then(|f| f.deny.as_deref())
        .ok_or_else(|| UserError::new(format!("{} has no deny-list", client.name)))?;
    let (path, at) = place(ctx, client, here, root, false)?;
    let entry: Vec<String> = [at.clone(), vec![name.to_owned()]].concat();
    let location = Location {
        scope: Scope::Project,
        path: path.clone(),
        key: at,
        name_key: None,
    };
    let value = Value::Array(list.iter().cloned().map(Value::String).collect());
    let outcome = crate::session::edit::apply(ctx, client, &location, dry_run, &|doc| {
        if native::member(&*doc, &entry, field)?.as_ref() == Some(&value) {
            return Ok(crate::formats::Edit::Unchanged);
        }
        Ok(doc.upsert(ServersAt::map(&entry), field, &value)?)
    })?;
    let changed = outcome.action != crate::session::edit::Action::Unchanged;
    Ok(Switched {
        action: if changed {
            super::Action::Disabled
        } else {
            super::Action::Unchanged
        },
        method: Method::Field,
        path,
        diff: outcome.diff,
        backup: outcome.backup,
        note: None,
        unfinished: None,
    })
}

/// Write `here.on` for `name` in the project (a server the user switched off, turned on
/// here): the opposite `disable --here` takes it back.
#[allow(clippy::too_many_arguments)]
pub fn turn_on(
    ctx: &Context,
    client: &Client,
    here: &Here,
    root: &Path,
    name: &str,
    local: bool,
    dry_run: bool,
) -> anyhow::Result<Option<Switched>> {
    let Some(on) = here.on.as_ref() else {
        return Ok(None);
    };
    let (switch, target) = spelled(ctx, client, here, root, local, name, Some(on))?;
    native::switch_member(
        ctx,
        client,
        &switch,
        &target,
        None,
        name,
        Want::Off,
        Method::Field,
        dry_run,
    )
    .map(Some)
}

/// What the project says about `name` in `client`: `Some(true)` switched off by the
/// project-level switch, `Some(false)` turned on there (`here.on`), `None` nothing.
pub fn state(
    ctx: &Context,
    client: &Client,
    here: &Here,
    root: &Path,
    local: bool,
    name: &str,
) -> Option<bool> {
    let (path, at) = place(ctx, client, here, root, local).ok()?;
    if !path.is_file() {
        return None;
    }
    let document = read_document(ctx, client, &path).ok()?;
    let doc = document.doc.as_ref();
    match here.kind {
        HereKind::List => {
            let list = native::member(doc, &at, &here.key).ok()??;
            list.as_array()?.iter().any(|n| n == name).then_some(true)
        }
        HereKind::Field => {
            let entry = super::find(doc, ServersAt::map(&at), name).ok()??;
            let value = entry.get(&here.key)?;
            if Some(value) == here.off.as_ref() {
                Some(true)
            } else if Some(value) == here.on.as_ref() {
                Some(false)
            } else {
                None
            }
        }
    }
}

/// What `disable/enable NAME --here` asks of one client.
pub struct Ask<'a> {
    pub name: &'a str,
    pub want: Want,
    /// `--local`: the project's uncommitted file.
    pub local: bool,
    /// The client has the server (any scope, a plugin, parked).
    pub has: bool,
    pub dry_run: bool,
    /// `disable` | `enable`, for the notes.
    pub verb: &'a str,
}

/// What one client's project-level switch did, for the report.
#[derive(Debug, Default)]
pub struct Done {
    /// disabled | enabled | unchanged | missing | unsupported
    pub action: &'static str,
    pub method: Option<Method>,
    /// How the switch is spelled, for people.
    pub how: Option<String>,
    pub path: Option<PathBuf>,
    pub note: Option<String>,
    pub diff: Option<String>,
    pub backup: Option<PathBuf>,
    pub unfinished: Option<String>,
}

/// Switch `ask.name` in `client`'s own project-level switch for the project at
/// `ctx.project`: said and left alone where the client has none (never parked); turned
/// on in the project where the user switched it off and the client lets a project do it;
/// a note where the client reads the file only in a trusted folder that is not.
pub fn apply(
    ctx: &Context,
    client: &Client,
    ask: &Ask<'_>,
    trust: &crate::trust::TrustRule<'_>,
) -> anyhow::Result<Done> {
    let name = ask.name;
    let Some(here) = client.here.as_ref() else {
        return Ok(Done {
            action: "unsupported",
            note: Some(format!(
                "{} has no project-level switch: nothing written (its user entry stays as it \
                 is; `mcpctl {} {name} -c {}` switches it everywhere)",
                client.name, ask.verb, client.id
            )),
            ..Done::default()
        });
    };
    if ask.local && here.local.is_none() && !personal(here) {
        return Ok(Done {
            action: "unsupported",
            note: Some(format!(
                "{} has no uncommitted project file: nothing written (drop --local to use its \
                 project file)",
                client.name
            )),
            ..Done::default()
        });
    }
    if !ask.has {
        return Ok(Done {
            action: "missing",
            ..Done::default()
        });
    }
    let root = ctx.project.as_path();
    // The project at HOME: its project file is the user's own (`~/.codex/config.toml`),
    // where a project switch would switch the server off everywhere.
    let (file, _) = place(ctx, client, here, root, ask.local)?;
    if !personal(here)
        && let Ok(Some(user)) = client.user_path(&ctx.platform)
        && crate::fs::same_file(&file, &user)
    {
        return Err(UserError::new(format!(
            "the project is {}, where {}'s project file `{}` is its user file: a switch \
             there would switch `{name}` off in every project",
            root.display(),
            client.name,
            file.display()
        ))
        .hint(format!(
            "run it in the repository (or pass --project DIR); `mcpctl {} {name} -c {}` \
             switches it everywhere",
            ask.verb, client.id
        ))
        .into());
    }
    let done = switch(
        ctx,
        client,
        here,
        root,
        name,
        ask.want,
        ask.local,
        ask.dry_run,
    )?;
    let mut how = None;
    // Not switched off here, but off for the user: the project turns it on where the
    // client lets it.
    let done = if ask.want == Want::On
        && done.action == super::Action::Unchanged
        && user_off(ctx, client, name)
    {
        match turn_on(ctx, client, here, root, name, ask.local, ask.dry_run)? {
            Some(on) => {
                how = Some(format!("{}: {} here", here.key, shown(here.on.as_ref())));
                on
            }
            None => {
                return Ok(Done {
                    action: "unchanged",
                    path: Some(done.path),
                    note: Some(format!(
                        "off in the user's settings, which a project cannot override in {}: \
                         `mcpctl enable {name} -c {}` switches it on everywhere",
                        client.name, client.id
                    )),
                    ..Done::default()
                });
            }
        }
    } else {
        done
    };
    let mut note = done.note;
    if let Some(step) = &here.trust
        && !trust.client_folder(client).allows_start()
    {
        let read = format!(
            "{} reads this file only in a trusted folder, and this one is not: {step}",
            client.name
        );
        note = Some(match note {
            Some(note) => format!("{note}; {read}"),
            None => read,
        });
    }
    Ok(Done {
        action: match (done.action, ask.want) {
            (super::Action::Unchanged, _) => "unchanged",
            (super::Action::Missing, _) => "missing",
            (_, Want::Off) => "disabled",
            (_, Want::On) => "enabled",
        },
        method: Some(done.method),
        how: Some(how.unwrap_or_else(|| spelling(here, ask.want))),
        path: Some(done.path),
        note,
        diff: done.diff,
        backup: done.backup,
        unfinished: done.unfinished,
    })
}

fn shown(value: Option<&Value>) -> String {
    value.map_or_else(String::new, ToString::to_string)
}

/// How a project-level switch is spelled, for people.
fn spelling(here: &Here, want: Want) -> String {
    match (here.kind, want) {
        (HereKind::List, Want::Off) => format!("listed in {}", here.key),
        (HereKind::List, Want::On) => format!("taken off {}", here.key),
        (HereKind::Field, Want::Off) => format!("{}: {} here", here.key, shown(here.off.as_ref())),
        (HereKind::Field, Want::On) => format!("{} taken back here", here.key),
    }
}

/// Whether the client's own switch (or a settings list: Gemini CLI's `mcp.excluded`) has
/// `name` off in one of the user's files.
fn user_off(ctx: &Context, client: &Client, name: &str) -> bool {
    let Ok(probe) = super::Probe::new(ctx) else {
        return false;
    };
    crate::session::inventory::collect_all(ctx, &[client], Some(name))
        .found
        .iter()
        .filter(|f| f.scope == Scope::User && f.origin.is_none())
        .any(|f| {
            super::switched_off(&probe, f)
                || matches!(
                    f.not_loaded,
                    Some(crate::session::found::NotLoaded::Gated(_))
                )
        })
}

/// One entry's verdict in this project (`list --here`).
#[derive(Debug, serde::Serialize)]
pub struct Verdict {
    /// The client loads it in this project.
    pub loads: bool,
    /// Where it comes from: user | project | local | plugin | extension | managed ...
    pub from: String,
    /// on | off | blocked | pending | not-loaded
    pub state: &'static str,
    /// The file whose switch decides `state` (off or on here), when one does.
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "crate::output::option_path_json"
    )]
    pub by: Option<PathBuf>,
    /// Why, for people.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

/// What `f`'s client does with it in this project (`list --here`): its own project-level
/// switch first (`clients.toml` `here`, read only where the client would read it), then
/// what keeps it out (policy, a rejected file, settings lists), the user's switch, and a
/// project entry's pending approval.
pub fn verdict(
    ctx: &Context,
    f: &crate::session::found::Found<'_>,
    disabled: bool,
    trust: &crate::trust::TrustRule<'_>,
) -> Verdict {
    let client = f.client;
    let from = f
        .origin
        .as_ref()
        .map_or_else(|| f.scope.as_str().to_owned(), |o| o.kind.to_owned());
    let say = |state, by: Option<PathBuf>, why: Option<String>| Verdict {
        loads: state == "on",
        from: from.clone(),
        state,
        by,
        why,
    };
    // A policy or a rejected file keeps it out whatever the project says; a settings list
    // (Gemini CLI's `mcp.excluded`) may be the project's own switch, said as such below.
    let gated = matches!(
        f.not_loaded,
        Some(crate::session::found::NotLoaded::Gated(_))
    );
    if let Some(not) = f.not_loaded.as_ref().filter(|_| !gated) {
        let state = if not.policy().is_some() {
            "blocked"
        } else {
            "not-loaded"
        };
        return say(state, None, Some(not.to_string()));
    }
    if let Some(here) = &client.here {
        let trusted = here.trust.is_none() || trust.client_folder(client).allows_start();
        for local in [true, false] {
            if local && here.local.is_none() {
                continue;
            }
            let Some(off) = state(ctx, client, here, &ctx.project, local, &f.name) else {
                continue;
            };
            let by = place(ctx, client, here, &ctx.project, local)
                .ok()
                .map(|(path, _)| path);
            if !trusted {
                return say(
                    if disabled { "off" } else { "on" },
                    None,
                    Some(format!(
                        "{} ignores {} until the folder is trusted: {}",
                        client.name,
                        by.as_ref()
                            .map_or_else(String::new, |p| p.display().to_string()),
                        here.trust.as_deref().unwrap_or_default()
                    )),
                );
            }
            return if off {
                say("off", by, Some(format!("{} here", here.key)))
            } else {
                say("on", by, Some("turned on for this project".to_owned()))
            };
        }
    }
    if let Some(not) = f.not_loaded.as_ref() {
        return say("not-loaded", None, Some(not.to_string()));
    }
    if disabled {
        return say("off", Some(f.path.clone()), None);
    }
    if f.origin.is_none()
        && let crate::trust::Trust::Untrusted { reason } = trust.decide(client, f.scope, &f.name)
    {
        return say("pending", None, Some(reason));
    }
    say("on", None, None)
}

/// Where `enable NAME --here` finds a server the target clients lack: in a detected
/// client's files for this project, else in another project's entries of a client that
/// keeps them per project in its user file (Claude Code's `projects["<dir>"].mcpServers`).
/// `(the client's id, where, the entry made portable)`, for a person and for `add`.
pub fn elsewhere(
    ctx: &Context,
    clients: &[&Client],
    name: &str,
) -> Option<(String, String, crate::entry::ServerEntry)> {
    let portable = |f: &crate::session::found::Found<'_>| {
        let mut entry = crate::entry::render::portable_entry(f.entry().as_ref().ok()?);
        entry
            .extras
            .retain(|k, _| !crate::state::ledger::HOUSEKEEPING_KEYS.contains(&k.as_str()));
        Some(entry)
    };
    let (found, _) = crate::session::inventory::collect(ctx, clients, Some(name));
    if let Some((f, entry)) = found
        .iter()
        .filter(|f| f.origin.is_none())
        .find_map(|f| Some((f, portable(f)?)))
    {
        return Some((
            f.client.id.clone(),
            format!(
                "{}'s {} file {}",
                f.client.name,
                f.scope.as_str(),
                f.path.display()
            ),
            entry,
        ));
    }
    for client in clients {
        let Some(key) = &client.local_key else {
            continue;
        };
        let Some(at) = key.iter().position(|k| k == "{project}") else {
            continue;
        };
        let (prefix, suffix) = (&key[..at], &key[at + 1..]);
        let Ok(Some(path)) = client.user_path(&ctx.platform) else {
            continue;
        };
        if !path.is_file() {
            continue;
        }
        let Ok(document) = read_document(ctx, client, &path) else {
            continue;
        };
        let doc = document.doc.as_ref();
        for project in doc.names(ServersAt::map(prefix)).unwrap_or_default() {
            let servers = [prefix, std::slice::from_ref(&project), suffix].concat();
            let Some(raw) = super::find(doc, ServersAt::map(&servers), name)
                .ok()
                .flatten()
            else {
                continue;
            };
            let f = crate::session::found::Found::new(
                client,
                Scope::Local,
                path.clone(),
                servers,
                name.to_owned(),
                raw,
                |_| None,
            );
            if let Some(entry) = portable(&f) {
                return Some((
                    client.id.clone(),
                    format!("{}'s entries for {project}", client.name),
                    entry,
                ));
            }
        }
    }
    None
}

/// The file whose project-level switch has `f` off in the project the command runs in
/// (the repository of the working directory without `--project`), where the client reads
/// it: `doctor` does not start such a server.
pub fn off_here(ctx: &Context, f: &crate::session::found::Found<'_>) -> Option<PathBuf> {
    let client = f.client;
    let here = client.here.as_ref()?;
    let root = if ctx.project == ctx.platform.cwd {
        repository(&ctx.project)
    } else {
        ctx.project.clone()
    };
    let trust = crate::trust::TrustRule::new(&ctx.platform, &root, false);
    if here.trust.is_some() && !trust.client_folder(client).allows_start() {
        return None;
    }
    [true, false]
        .into_iter()
        .filter(|local| !local || here.local.is_some())
        .find(|local| state(ctx, client, here, &root, *local, &f.name) == Some(true))
        .and_then(|local| place(ctx, client, here, &root, local).ok())
        .map(|(path, _)| path)
}
