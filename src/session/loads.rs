//! What each client really loads of what its files hold (the table's loading model,
//! `clients::loading`): a file the client's parser rejects loads none of its servers
//! (Claude Code and a comment in `~/.claude.json`; Gemini CLI, Qwen Code and a trailing
//! comma), and a settings list keeps servers out (Gemini CLI `mcp.excluded` /
//! `mcp.allowed`). Entries are marked `not_loaded` with the reason, for `list` and
//! `doctor`. Reads files (through `fs`, which refuses FIFOs and devices without
//! blocking); never writes.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::clients::loading::Rejection;
use crate::clients::{Client, Scope};
use crate::platform::Platform;
use crate::session::found::{Broken, Found, NotLoaded};

/// The reason for an entry of a file `client` rejects.
#[must_use]
pub fn rejected(client: &Client, r: &Rejection) -> NotLoaded {
    NotLoaded::Rejected(format!(
        "{} refuses the whole file ({} at line {}, column {}), so it loads none of its servers; remove it",
        client.name, r.what, r.line, r.column
    ))
}

/// What `client`'s parser rejects in the file at `path`, if anything (a missing or
/// unreadable file: nothing).
#[must_use]
pub fn rejection(client: &Client, path: &std::path::Path) -> Option<Rejection> {
    client.parser()?;
    let source = crate::fs::read_source(path).ok()?;
    client.rejects(&source.text)
}

/// Mark the entries their client will not load, with the reason.
pub fn mark(platform: &Platform, project: &Path, found: &mut [Found<'_>]) {
    overridden(found);
    refused_with_a_bad_entry(found);
    let mut files: HashMap<(String, PathBuf), Option<Rejection>> = HashMap::new();
    let mut settings: HashMap<String, Vec<Value>> = HashMap::new();
    for f in found.iter_mut() {
        if f.origin.is_some() || f.not_loaded.is_some() {
            continue;
        }
        let client = f.client;
        let rejected_here = files
            .entry((client.id.clone(), f.path.clone()))
            .or_insert_with(|| rejection(client, &f.path));
        if let Some(r) = rejected_here {
            f.not_loaded = Some(rejected(client, r));
            continue;
        }
        let loading = &client.loading;
        if loading.excluded.is_none() && loading.allowed.is_none() {
            continue;
        }
        let docs = settings
            .entry(client.id.clone())
            .or_insert_with(|| settings_of(platform, project, client));
        let docs: Vec<&Value> = docs.iter().collect();
        if let Some(why) = loading.gated(&docs, &f.name) {
            f.not_loaded = Some(NotLoaded::Gated(why));
        }
    }
    // Last: a rejected file, an exclusion list or a later file say more than the folder.
    untrusted_folder(platform, project, found);
}

/// In a folder the user has not trusted, a client with folder trust starts none of its
/// servers, the user's own included (Gemini CLI), or none of the project's files'
/// (`project_only`: Copilot CLI).
fn untrusted_folder(platform: &Platform, project: &Path, found: &mut [Found<'_>]) {
    let mut verdicts: HashMap<String, Option<NotLoaded>> = HashMap::new();
    for f in found.iter_mut() {
        if f.not_loaded.is_some() {
            continue;
        }
        let client = f.client;
        let Some(trust) = &client.loading.folder_trust else {
            continue;
        };
        if trust.project_only && (f.scope != Scope::Project || f.origin.is_some()) {
            continue;
        }
        let why = verdicts
            .entry(client.id.clone())
            .or_insert_with(|| {
                let read = |path: &Path| -> Option<Value> {
                    let source = crate::fs::read_source(path).ok()?;
                    jsonc_parser::parse_to_serde_value::<Value>(&source.text, &Default::default())
                        .ok()
                };
                // The switch: the user's settings, then an administrator's (a project
                // cannot turn it off).
                let user = client
                    .location(Scope::User, platform, project)
                    .ok()
                    .flatten()
                    .and_then(|l| read(&l.path));
                let system = client
                    .read_only
                    .iter()
                    .filter(|s| s.kind == crate::clients::SourceKind::ManagedFile)
                    .filter_map(|s| s.path(platform).ok().flatten())
                    .filter_map(|p| read(&p));
                let docs: Vec<Value> = user.into_iter().chain(system).collect();
                if !trust.is_on(&docs.iter().collect::<Vec<_>>()) {
                    return None;
                }
                let rules = platform
                    .expand(&trust.file)
                    .ok()
                    .and_then(|p| read(&p))
                    .unwrap_or(Value::Null);
                let folder =
                    std::fs::canonicalize(project).unwrap_or_else(|_| project.to_path_buf());
                let trusted = trust.verdict(&rules, &folder) == Some(true)
                    || trust.verdict(&rules, project) == Some(true);
                (!trusted).then(|| NotLoaded::Untrusted {
                    folder: project.to_path_buf(),
                    client: client.name.clone(),
                    how: trust.how.clone(),
                    project_only: trust.project_only,
                })
            })
            .clone();
        f.not_loaded = why;
    }
}

/// In a client that refuses a whole file for one entry it cannot read (Cline CLI), every
/// other entry of a file holding one loads nothing either.
fn refused_with_a_bad_entry(found: &mut [Found<'_>]) {
    let mut bad: HashMap<(String, PathBuf), String> = HashMap::new();
    for f in found.iter_mut() {
        if !f.client.loading.whole_file || f.origin.is_some() {
            continue;
        }
        let refused_type = if f.entry().is_ok() {
            untaken_type(f.client, f.raw())
        } else {
            None
        };
        if let Some(why) = &refused_type {
            f.not_loaded = Some(NotLoaded::Rejected(format!(
                "{why}, so it refuses the whole file and loads none of its servers; fix or remove `{}`",
                f.name
            )));
        }
        if f.entry().is_err() || refused_type.is_some() {
            bad.entry((f.client.id.clone(), f.path.clone()))
                .or_insert_with(|| f.name.clone());
        }
    }
    if bad.is_empty() {
        return;
    }
    for f in found.iter_mut() {
        if f.not_loaded.is_some() || f.origin.is_some() {
            continue;
        }
        let Some(name) = bad.get(&(f.client.id.clone(), f.path.clone())) else {
            continue;
        };
        if f.entry().is_err() {
            continue;
        }
        f.not_loaded = Some(NotLoaded::Rejected(format!(
            "{} refuses the whole file because entry `{name}` is not a server it can read, so it loads none of its servers; fix or remove `{name}`",
            f.client.name
        )));
    }
}

/// Why the client refuses this entry's `type` (Cline: `mcpServers.ws: Invalid input`),
/// read where the client reads it: in the nested transport object first, else flat.
fn untaken_type(client: &Client, raw: &Value) -> Option<String> {
    let allowed = client.accepted_types()?;
    let f = &client.fields;
    let map = raw.as_object()?;
    let nested = f
        .nest_key
        .as_deref()
        .and_then(|nest| map.get(nest)?.as_object()?.get(&f.type_key));
    let t = nested.or_else(|| map.get(&f.type_key))?.as_str()?;
    if allowed.contains(&t) {
        return None;
    }
    let takes: Vec<String> = allowed.iter().map(|a| format!("`{a}`")).collect();
    Some(format!(
        "{} does not take `\"type\": \"{t}\"`; it takes {}",
        client.name,
        takes.join(", ")
    ))
}

/// In a client that merges several user files (OpenCode), a server defined again in a
/// later file is the later file's: the earlier one is not loaded.
fn overridden(found: &mut [Found<'_>]) {
    let mut last: HashMap<(&str, &str), usize> = HashMap::new();
    for (i, f) in found.iter().enumerate() {
        if f.origin.is_none() && f.scope == Scope::User && !f.client.loading.merge.is_empty() {
            last.insert((f.client.id.as_str(), f.name.as_str()), i);
        }
    }
    let winners: Vec<(usize, usize)> = found
        .iter()
        .enumerate()
        .filter_map(|(i, f)| {
            let &w = last.get(&(f.client.id.as_str(), f.name.as_str()))?;
            (w != i && f.scope == Scope::User && f.origin.is_none()).then_some((i, w))
        })
        .collect();
    for (i, w) in winners {
        let file = found[w]
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let f = &mut found[i];
        f.not_loaded = Some(NotLoaded::Overridden {
            file,
            name: f.name.clone(),
            client: f.client.name.clone(),
        });
    }
}

/// The client's user and project settings, parsed (files that are missing or do not
/// parse are left out).
fn settings_of(platform: &Platform, project: &Path, client: &Client) -> Vec<Value> {
    // An administrator's settings file (Gemini CLI's system settings) gates the user's
    // servers too, when the client reads it at all.
    let system = client
        .read_only
        .iter()
        .filter(|s| s.kind == crate::clients::SourceKind::ManagedFile)
        .filter_map(|s| {
            let path = s.path(platform).ok().flatten()?;
            (!s.root_owned || crate::fs::not_root_only(&path).is_none()).then_some(path)
        });
    [Scope::User, Scope::Project]
        .into_iter()
        .filter_map(|scope| client.location(scope, platform, project).ok().flatten())
        .map(|location| location.path)
        .chain(system)
        .filter_map(|path| {
            let source = crate::fs::read_source(&path).ok()?;
            jsonc_parser::parse_to_serde_value::<Value>(&source.text, &Default::default()).ok()
        })
        .collect()
}

/// Mark the entries an administrator's policy file keeps out (src/policy/), with the rule
/// and the file; a policy file that does not parse is reported as broken (mcpctl judges
/// nothing by it). The servers of an administrator's own `managed-mcp.json` are left
/// alone: Claude Code exempts them from the allow-list.
pub fn judge_policy<'a>(
    platform: &Platform,
    clients: &[&'a Client],
    found: &mut [Found<'a>],
    broken: &mut Vec<Broken<'a>>,
) {
    for client in clients {
        if client.policy.is_empty() {
            continue;
        }
        let loaded = crate::policy::read::load(client, platform);
        for (path, why) in &loaded.broken {
            broken.push(Broken {
                client,
                path: path.clone(),
                error: crate::error::UserError::new(format!("policy file: {why}"))
                    .hint("mcpctl never edits this file and judges nothing by it; the client may refuse servers until its administrator fixes it")
                    .into(),
            });
        }
        // No policy blocks anything (and the entries need not be read).
        if loaded.policies.is_empty() {
            continue;
        }
        for f in found.iter_mut().filter(|f| f.client.id == client.id) {
            if f.not_loaded.is_some() || f.origin.as_ref().is_some_and(|o| o.kind == "managed") {
                continue;
            }
            let block = match f.entry() {
                Ok(entry) => loaded.blocks(&f.name, entry),
                Err(_) => None,
            };
            if let Some(block) = block {
                f.not_loaded = Some(NotLoaded::Policy {
                    block,
                    client: client.name.clone(),
                });
            }
        }
    }
}
