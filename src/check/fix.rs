//! The safe fixes `--fix` applies, as pure functions of one raw entry: rename the URL key
//! to the client's spelling (MCP201), add a required remote `type` (MCP203), wrap a shim in
//! `cmd /c` for `--platform windows` (MCP301), unwrap `cmd /c` in a user file used on
//! macOS/Linux (MCP302), respell a variable reference as the client expands it (MCP501).
//! Entries are read and written through the client's dialect.
//!
//! A fix never changes what the entry means to its client beyond the finding, never
//! touches another entry, and never runs on a file that does not parse; the bytes are
//! written by `session::write::fix_entries` (the edit loop) through `ConfigDoc::upsert`.
//!
//! [`Fix::plan`] decides what `--fix` does to one file from its findings, [`apply_fixes`]
//! edits a document in memory, [`mark_fixable`] tells which findings `--fix` removes, and
//! [`literals_to_adopt`] lists the entries whose literal secrets `--fix --secrets` moves.

use serde_json::{Map, Value};

use crate::clients::{Client, DialectName, Scope, UntypedRemote};
use crate::entry::{self, Dialect, RemoteKind, ServerEntry, Transport, spelling};
use crate::formats::{ConfigDoc, Edit, ServersAt};
use crate::platform::Os;
use crate::vars::{self, VarSyntax};

use super::{Finding, Target};

/// What `--fix` is to do (`check --fix [--dry-run] [--secrets]`).
#[derive(Debug, Clone, Copy)]
pub struct Fix {
    pub on: bool,
    pub dry_run: bool,
    /// `--secrets`: move literal secrets into the store too.
    pub secrets: bool,
    /// `--yes`: scrub the moved values out of the backups without asking.
    pub yes: bool,
}

/// What `--fix` does to one file, decided from the file's findings before anything is
/// written: first move its literal secrets into the store, then rewrite the entries that
/// have a fixable finding.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    /// `--secrets` and a literal secret (MCP401).
    pub adopt: bool,
    /// A finding `--fix` removes.
    pub rewrite: bool,
    pub dry_run: bool,
}

impl Fix {
    pub fn plan(self, findings: &[Finding]) -> Plan {
        Plan {
            adopt: self.on && self.secrets && findings.iter().any(|f| f.code == "MCP401"),
            rewrite: self.on && findings.iter().any(|f| f.fixable),
            dry_run: self.dry_run,
        }
    }
}

/// Apply every safe fix to the entries of `doc`; whether anything changed.
pub fn apply_fixes(doc: &mut dyn ConfigDoc, target: &Target<'_>) -> anyhow::Result<bool> {
    let mut changed = false;
    for key in keys_in(doc, &fix_keys(target.client, target.scope))? {
        let at = ServersAt {
            key: &key,
            name_key: target.client.servers_name_key.as_deref(),
        };
        for (name, raw) in doc.servers(at)? {
            if let Some(fixed) = fix_entry(&raw, target) {
                changed |= doc.upsert(at, &name, &fixed)? != Edit::Unchanged;
            }
        }
    }
    Ok(changed)
}

/// Mark the findings `--fix` would remove, by fixing a copy of `text` in memory and
/// checking it again: a finding is fixable when its rule has a fix and it is gone
/// afterwards. So the `(fixable)` marker and the closing hint never promise what `--fix`
/// will not do.
pub fn mark_fixable(
    findings: &mut [Finding],
    shown: &str,
    text: &str,
    bom: bool,
    target: &Target<'_>,
) {
    let candidates = findings
        .iter()
        .any(|f| super::rule(f.code).is_some_and(|r| r.fixable));
    if !candidates || super::has_parse_error(findings) {
        return;
    }
    // `--fix` first removes what makes the client reject the whole file (MCP002, MCP003).
    let repaired = target.client.repaired(text);
    let Ok(mut doc) = target
        .client
        .format
        .parse(repaired.clone().unwrap_or_else(|| text.to_owned()))
    else {
        return;
    };
    if !matches!(apply_fixes(doc.as_mut(), target), Ok(true)) && repaired.is_none() {
        return;
    }
    let after = super::check_text(shown, &doc.render(), bom, target);
    // The same finding (rule, server and words) still there is not fixed: a server
    // with one reference `--fix` respells and one it cannot (MCP501) gets the first fixed.
    for finding in findings.iter_mut() {
        finding.fixable = super::rule(finding.code).is_some_and(|r| r.fixable)
            && !after.iter().any(|a| {
                a.code == finding.code && a.server == finding.server && a.message == finding.message
            });
    }
}

/// The entries of `doc` that `--fix --secrets` looks at for literal secrets (those of the
/// keys `--fix` may rewrite that read as servers): (servers key, name, entry).
pub fn literals_to_adopt(
    doc: &dyn ConfigDoc,
    target: &Target<'_>,
) -> anyhow::Result<Vec<(Vec<String>, String, ServerEntry)>> {
    let mut found = Vec::new();
    each_literal_to_adopt(doc, target, &mut |key, name, entry| {
        found.push((key.to_vec(), name, entry));
    })?;
    Ok(found)
}

/// [`literals_to_adopt`] handed to `each` one entry at a time. On an error some entries
/// may have been handed out already.
pub fn each_literal_to_adopt(
    doc: &dyn ConfigDoc,
    target: &Target<'_>,
    each: &mut dyn FnMut(&[String], String, ServerEntry),
) -> anyhow::Result<()> {
    let client = target.client;
    let dialect = Dialect::of(client);
    for key in keys_in(doc, &fix_keys(client, target.scope))? {
        let at = ServersAt {
            key: &key,
            name_key: client.servers_name_key.as_deref(),
        };
        for (name, raw) in doc.servers(at)? {
            if let Ok(entry) = dialect.read_raw(&raw) {
                each(&key, name, entry);
            }
        }
    }
    Ok(())
}

/// Key paths whose entries `--fix` may rewrite: the servers map, and in a user file the
/// per-project sections (`{project}` is expanded against the document).
fn fix_keys(client: &Client, scope: Scope) -> Vec<Vec<String>> {
    let mut keys = vec![client.servers_key.clone()];
    if scope == Scope::User
        && let Some(local) = &client.local_key
    {
        keys.push(local.clone());
    }
    keys
}

fn keys_in(doc: &dyn ConfigDoc, keys: &[Vec<String>]) -> anyhow::Result<Vec<Vec<String>>> {
    let mut out = Vec::new();
    for key in keys {
        match key.iter().position(|k| k == "{project}") {
            None => out.push(key.clone()),
            // One project at a time: a `~/.claude.json`'s projects hold its whole prompt
            // history, which is not to be held as values at once only to learn their names.
            Some(at) => {
                for project in doc.names(ServersAt::map(&key[..at]))? {
                    let mut expanded = key.clone();
                    expanded[at] = project;
                    out.push(expanded);
                }
            }
        }
    }
    Ok(out)
}

/// The entry with every safe fix applied, or `None` when nothing applies.
///
/// The entry is read and written through the client's dialect
/// (`Dialect::read_raw` → `ServerEntry` → `Dialect::to_raw`), so fixes reason about the
/// entry, never about how a client spells it; only the keys a fix is about are then taken
/// from the rewritten entry, in the file's own key order.
pub fn fix_entry(raw: &Value, target: &Target<'_>) -> Option<Value> {
    let reshaped = fix_shape(raw, target);
    let mut fixed = reshaped.clone().unwrap_or_else(|| raw.clone());
    let respelled = target
        .client
        .fields
        .var_syntax
        .is_some_and(|syntax| respell_references(&mut fixed, syntax));
    (reshaped.is_some() || respelled).then_some(fixed)
}

/// MCP501: every variable reference in another client's spelling (`${TOKEN}` in a
/// Cursor file) respelled as this client expands it (`${env:TOKEN}`), in every string of
/// the entry, in place. Left as written: what the client reads already (Cursor's own
/// `${workspaceFolder}`), VS Code prompts, a `:-default` the client cannot say, and
/// clients that expand nothing in place (Codex, Goose: the name goes into `env_vars` /
/// `env_keys`, not a fix of one string). Whether anything changed.
fn respell_references(value: &mut Value, syntax: VarSyntax) -> bool {
    if matches!(syntax, VarSyntax::Codex | VarSyntax::Goose) {
        return false;
    }
    match value {
        Value::String(text) => {
            let mut out = String::with_capacity(text.len());
            let mut last = 0;
            for r in vars::references(text) {
                let read = match (r.syntax, syntax) {
                    (vars::Syntax::Input, _)
                    | (vars::Syntax::DollarEnv, VarSyntax::Editor | VarSyntax::Vscode)
                    | (vars::Syntax::BraceEnv, VarSyntax::Opencode)
                    | (vars::Syntax::Dollar, VarSyntax::Shell) => true,
                    (vars::Syntax::Dollar, VarSyntax::Editor | VarSyntax::Vscode) => {
                        vars::EDITOR_VARIABLES.contains(&r.name.as_str())
                    }
                    _ => false,
                };
                if read || (r.default.is_some() && syntax != VarSyntax::Shell) {
                    continue;
                }
                out.push_str(&text[last..r.offset]);
                out.push_str(&vars::respell(&r.text, syntax));
                last = r.offset + r.text.len();
            }
            if last == 0 {
                return false;
            }
            out.push_str(&text[last..]);
            *text = out;
            true
        }
        Value::Array(items) => items.iter_mut().fold(false, |changed, item| {
            respell_references(item, syntax) | changed
        }),
        Value::Object(map) => map.values_mut().fold(false, |changed, item| {
            respell_references(item, syntax) | changed
        }),
        _ => false,
    }
}

/// The entry with the fixes of its shape applied (MCP201, MCP203, MCP301, MCP302), or
/// `None` when none applies.
fn fix_shape(raw: &Value, target: &Target<'_>) -> Option<Value> {
    let Value::Object(map) = raw else { return None };
    let client = target.client;
    let dialect = Dialect::of(client);
    let mut fixed = dialect.read_raw(raw).ok()?;
    let mut fields: Vec<&str> = Vec::new();
    match &mut fixed.transport {
        Transport::Remote { url, kind, .. } => {
            if !url_key_readable(map, client) {
                fields.extend(spelling::URL_KEYS);
                fields.push(&client.fields.url_key);
            }
            if needs_type(map, client) {
                // Only the URL can tell: `/sse` is the legacy transport.
                *kind = RemoteKind::of_url(url);
                fields.push(&client.fields.type_key);
            }
        }
        Transport::Stdio { command, args, .. } => {
            // A fix keeps the client's own shape (a string `command` in an OpenCode file
            // is MCP202, which has no fix).
            let own_shape = matches!(
                (client.dialect, command_value(map, client)),
                (DialectName::Standard, Some(Value::String(_)))
                    | (DialectName::CommandArray, Some(Value::Array(_)))
            );
            if !own_shape {
                return None;
            }
            let (new_command, new_args) = rewrap(command, args, target)?;
            *command = new_command;
            *args = new_args;
            fields.extend(spelling::COMMAND_KEYS.iter().chain(spelling::ARGS_KEYS));
            fields.extend([
                client.fields.command_key.as_str(),
                client.fields.args_key.as_str(),
            ]);
        }
    }
    if fields.is_empty() {
        return None;
    }
    let Value::Object(written) = dialect.to_raw(&fixed).ok()? else {
        return None;
    };
    let out = overlay(map, &written, &fields);
    (out != *map).then_some(Value::Object(out))
}

fn command_value<'m>(map: &'m Map<String, Value>, client: &Client) -> Option<&'m Value> {
    std::iter::once(client.fields.command_key.as_str())
        .chain(spelling::COMMAND_KEYS.iter().copied())
        .find_map(|k| map.get(k))
}

/// The URL is under a key the client does not read (MCP201).
fn url_key_readable(map: &Map<String, Value>, client: &Client) -> bool {
    let f = &client.fields;
    let readable = |k: &str| {
        k == f.url_key
            || f.http_url_key.as_deref() == Some(k)
            || f.extra_keys.iter().flatten().any(|e| e == k)
    };
    let found = spelling::URL_KEYS
        .iter()
        .copied()
        .find(|k| map.contains_key(*k));
    found.is_none_or(|k| readable(k) || map.contains_key(&f.url_key))
}

/// The client requires `type` on remote entries and this one has none (MCP203).
fn needs_type(map: &Map<String, Value>, client: &Client) -> bool {
    let f = &client.fields;
    f.untyped_remote == UntypedRemote::None
        && !map.contains_key(&f.type_key)
        && (map.contains_key(&f.url_key) || !url_key_readable(map, client))
        && (f.http_type.is_some() || f.sse_type.is_some())
}

/// `cmd /c` for `--platform windows` (MCP301), or without it in a user file used on
/// macOS/Linux (MCP302); `None` when neither applies.
fn rewrap(command: &str, args: &[String], target: &Target<'_>) -> Option<(String, Vec<String>)> {
    if !target.client.fields.wrap_windows {
        return None;
    }
    let windows = target.os == Os::Windows || target.client.windows_only();
    if windows && entry::needs_wrap(command, args) {
        return Some(entry::wrap(command, args));
    }
    if !windows && target.scope == Scope::User && entry::is_wrapped(command, args) {
        let (inner, rest, _) = entry::logical(command, args);
        return Some((inner, rest));
    }
    None
}

/// `original` with the keys in `fields` taken from `written`: a key present in both keeps
/// its place; a key `written` spells differently (`url` → `serverUrl`) takes the place of
/// the old spelling; a new key goes right after the key that precedes it in `written`
/// (`args` after `command`), or first. Every other key stays exactly as it was.
fn overlay(
    original: &Map<String, Value>,
    written: &Map<String, Value>,
    fields: &[&str],
) -> Map<String, Value> {
    let wanted = |k: &str| fields.contains(&k);
    let new: Vec<(&String, &Value)> = written.iter().filter(|(k, _)| wanted(k)).collect();
    let mut out = Map::new();
    for (key, value) in original {
        if let Some(v) = written.get(key).filter(|_| wanted(key)) {
            out.insert(key.clone(), v.clone());
        } else if wanted(key) {
            // Dropped by the rewrite: its new spelling (if any) takes this place.
            match new.iter().find(|(k, _)| {
                !original.contains_key(*k)
                    && spelling::synonyms(k).is_some_and(|group| group.contains(&key.as_str()))
            }) {
                Some((k, v)) => out.insert((*k).clone(), (*v).clone()),
                None => out.insert(key.clone(), value.clone()),
            };
        } else {
            out.insert(key.clone(), value.clone());
        }
    }
    for (at, (key, value)) in new.iter().enumerate() {
        if out.contains_key(*key) {
            continue;
        }
        let before = at.checked_sub(1).map(|i| new[i].0);
        let position = match before {
            Some(prev) => out
                .keys()
                .position(|k| k == prev)
                .map_or(out.len(), |i| i + 1),
            None => 0,
        };
        out.shift_insert(position, (*key).clone(), (*value).clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clients::ClientTable;
    use serde_json::json;

    fn fix(id: &str, os: Os, scope: Scope, raw: Value) -> Option<Value> {
        let table = ClientTable::builtin().unwrap();
        let target = Target {
            client: table.get(id).unwrap(),
            scope,
            os,
            policy: &[],
        };
        fix_entry(&raw, &target)
    }

    #[test]
    fn renames_url_for_windsurf_in_place() {
        let fixed = fix(
            "windsurf",
            Os::Linux,
            Scope::User,
            json!({"url": "https://x/mcp", "disabled": false}),
        )
        .unwrap();
        assert_eq!(
            serde_json::to_string(&fixed).unwrap(),
            r#"{"serverUrl":"https://x/mcp","disabled":false}"#
        );
        assert!(
            fix(
                "cursor",
                Os::Linux,
                Scope::User,
                json!({"url": "https://x"})
            )
            .is_none()
        );
    }

    #[test]
    fn adds_required_type() {
        let fixed = fix(
            "roo-code",
            Os::Linux,
            Scope::Project,
            json!({"url": "https://x/sse"}),
        )
        .unwrap();
        assert_eq!(fixed, json!({"type": "sse", "url": "https://x/sse"}));
        let fixed = fix(
            "vscode",
            Os::Linux,
            Scope::Project,
            json!({"url": "https://x/mcp"}),
        )
        .unwrap();
        assert_eq!(
            serde_json::to_string(&fixed).unwrap(),
            r#"{"type":"http","url":"https://x/mcp"}"#
        );
        assert!(fix("cline", Os::Linux, Scope::User, json!({"url": "https://x"})).is_none());
    }

    #[test]
    fn wraps_only_for_windows_and_unwraps_user_files_elsewhere() {
        let raw = json!({"command": "npx", "args": ["-y", "p@1"], "env": {}});
        assert_eq!(
            fix("cursor", Os::Windows, Scope::Project, raw.clone()).unwrap(),
            json!({"command": "cmd", "args": ["/c", "npx", "-y", "p@1"], "env": {}})
        );
        assert!(fix("cursor", Os::Linux, Scope::Project, raw).is_none());
        let wrapped = json!({"command": "cmd", "args": ["/c", "npx", "p@1"]});
        assert_eq!(
            fix("cursor", Os::Linux, Scope::User, wrapped.clone()).unwrap(),
            json!({"command": "npx", "args": ["p@1"]})
        );
        assert!(fix("cursor", Os::Linux, Scope::Project, wrapped).is_none());
        let no_args = json!({"command": "npx", "env": {}});
        assert_eq!(
            serde_json::to_string(&fix("cursor", Os::Windows, Scope::User, no_args).unwrap())
                .unwrap(),
            r#"{"command":"cmd","args":["/c","npx"],"env":{}}"#
        );
        assert_eq!(
            fix(
                "opencode",
                Os::Windows,
                Scope::Project,
                json!({"type": "local", "command": ["npx", "-y", "p@1"]})
            )
            .unwrap(),
            json!({"type": "local", "command": ["cmd", "/c", "npx", "-y", "p@1"]})
        );
    }
}
