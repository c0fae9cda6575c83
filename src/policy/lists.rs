//! `allowedMcpServers` / `deniedMcpServers` in a `managed-settings.json`: the shape Claude
//! Code and GitHub Copilot share. Each entry names exactly one of `serverName` (the entry's
//! name, compared verbatim), `serverCommand` (`[command, ...args]`, compared exactly) or
//! `serverUrl` (a pattern with `*` wildcards).
//!
//! The two vendors judge the lists differently:
//! - Claude Code (its 2.1.332 binary): a deny match blocks first. With an allow-list, a
//!   local server must match a `serverCommand` entry when the list has any, else its name a
//!   `serverName` entry; a remote server likewise with `serverUrl`. An empty allow-list
//!   allows nothing. A deny `serverUrl` without a query also matches the URL with one, and
//!   with a trailing slash added or removed.
//! - Copilot (docs.github.com, "Evaluation rules"): a deny match blocks; with an allow-list,
//!   a server matching none of its entries (of any kind) is blocked.

use serde_json::Value;

use super::{PolicyKind, Subject, Verdict, glob};

/// One list entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Entry {
    Name(String),
    Command(Vec<String>),
    Url(String),
}

impl Entry {
    fn parse(list: &str, i: usize, v: &Value) -> Result<Entry, String> {
        let bad = |why: &str| format!("`{list}` entry {}: {why}", i + 1);
        let Some(obj) = v.as_object() else {
            return Err(bad("not an object"));
        };
        let keys: Vec<&str> = ["serverName", "serverCommand", "serverUrl"]
            .into_iter()
            .filter(|k| obj.contains_key(*k))
            .collect();
        if keys.len() != 1 {
            return Err(bad(
                "must have exactly one of `serverName`, `serverCommand` or `serverUrl`",
            ));
        }
        let value = &obj[keys[0]];
        match keys[0] {
            "serverName" => value
                .as_str()
                .map(|s| Entry::Name(s.to_owned()))
                .ok_or_else(|| bad("`serverName` is not a string")),
            "serverCommand" => {
                let parts: Option<Vec<String>> = value
                    .as_array()
                    .and_then(|a| a.iter().map(|p| p.as_str().map(str::to_owned)).collect());
                match parts {
                    Some(p) if !p.is_empty() => Ok(Entry::Command(p)),
                    _ => Err(bad("`serverCommand` must be a non-empty list of strings")),
                }
            }
            _ => value
                .as_str()
                .map(|s| Entry::Url(s.to_owned()))
                .ok_or_else(|| bad("`serverUrl` is not a string")),
        }
    }

    /// The entry as the file spells it, for messages.
    pub(super) fn json(&self) -> String {
        let v = match self {
            Entry::Name(n) => serde_json::json!({ "serverName": n }),
            Entry::Command(c) => serde_json::json!({ "serverCommand": c }),
            Entry::Url(u) => serde_json::json!({ "serverUrl": u }),
        };
        v.to_string()
    }

    fn matches(&self, subject: &Subject<'_>, deny: bool) -> bool {
        match self {
            Entry::Name(n) => n == subject.name,
            Entry::Command(want) => subject.command_line().is_some_and(|got| {
                got.len() == want.len() && got.iter().zip(want).all(|(g, w)| g == w)
            }),
            Entry::Url(pattern) => subject.url().is_some_and(|url| {
                if deny {
                    url_variants(url, pattern)
                        .iter()
                        .any(|u| glob::matches(pattern, u))
                } else {
                    glob::matches(pattern, url)
                }
            }),
        }
    }
}

/// The forms of `url` a deny pattern without a query also catches (Claude Code): the URL
/// itself, without its query and fragment, and that with a trailing slash added or
/// removed (removed only when the pattern's path has no `*`).
fn url_variants(url: &str, pattern: &str) -> Vec<String> {
    let mut out = vec![url.to_owned()];
    if pattern.contains('?') || pattern.contains('#') {
        return out;
    }
    let bare = url.split(['?', '#']).next().unwrap_or(url);
    out.push(bare.to_owned());
    if let Some(trimmed) = bare.strip_suffix('/') {
        let path_has_star = pattern
            .split_once("://")
            .and_then(|(_, rest)| rest.split_once('/'))
            .is_some_and(|(_, path)| path.contains('*'));
        if !path_has_star {
            out.push(trimmed.to_owned());
        }
    } else {
        out.push(format!("{bare}/"));
    }
    out
}

/// The two lists of one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Lists {
    /// `None`: no allow-list (everything not denied is allowed).
    pub(super) allowed: Option<Vec<Entry>>,
    pub(super) denied: Vec<Entry>,
}

impl Lists {
    /// `Ok(None)`: the file sets neither list.
    pub(super) fn parse(text: &str) -> Result<Option<Lists>, String> {
        let root: Value = jsonc_parser::parse_to_serde_value(text, &Default::default())
            .map_err(|e| e.to_string())?;
        if root.is_null() {
            return Ok(None);
        }
        let Some(root) = root.as_object() else {
            return Err("the file is not a JSON object".to_owned());
        };
        let list = |key: &str| -> Result<Option<Vec<Entry>>, String> {
            let Some(v) = root.get(key) else {
                return Ok(None);
            };
            let items = v
                .as_array()
                .ok_or_else(|| format!("`{key}` is not a list"))?;
            items
                .iter()
                .enumerate()
                .map(|(i, v)| Entry::parse(key, i, v))
                .collect::<Result<Vec<_>, _>>()
                .map(Some)
        };
        let allowed = list("allowedMcpServers")?;
        let denied = list("deniedMcpServers")?;
        if allowed.is_none() && denied.is_none() {
            return Ok(None);
        }
        Ok(Some(Lists {
            allowed,
            denied: denied.unwrap_or_default(),
        }))
    }

    pub(super) fn judge(&self, kind: PolicyKind, s: &Subject<'_>) -> Option<(Verdict, String)> {
        if let Some(entry) = self.denied.iter().find(|e| e.matches(s, true)) {
            return Some((
                Verdict::Denied,
                format!("`deniedMcpServers` entry {}", entry.json()),
            ));
        }
        let allowed = self.allowed.as_ref()?;
        if allowed.is_empty() {
            return Some((
                Verdict::NotAllowed,
                "`allowedMcpServers` is empty (it allows no server)".to_owned(),
            ));
        }
        let ok = match kind {
            PolicyKind::ClaudeManaged => claude_allows(allowed, s),
            _ => allowed.iter().any(|e| e.matches(s, false)),
        };
        if ok {
            return None;
        }
        let what = match (s.command_line(), s.url()) {
            (Some(line), _) => format!("`{}` (command `{}`)", s.name, line.join(" ")),
            (None, Some(url)) => format!("`{}` (URL `{url}`)", s.name),
            (None, None) => format!("`{}`", s.name),
        };
        Some((
            Verdict::NotAllowed,
            format!("`allowedMcpServers` has no entry matching {what}"),
        ))
    }
}

/// Claude Code's allow rule: by command (local) or URL (remote) when the list has entries
/// of that kind, else by name.
fn claude_allows(allowed: &[Entry], s: &Subject<'_>) -> bool {
    let by_name = || {
        allowed
            .iter()
            .any(|e| matches!(e, Entry::Name(n) if n == s.name))
    };
    if s.command_line().is_some() {
        if allowed.iter().any(|e| matches!(e, Entry::Command(_))) {
            return allowed
                .iter()
                .any(|e| matches!(e, Entry::Command(_)) && e.matches(s, false));
        }
        return by_name();
    }
    if allowed.iter().any(|e| matches!(e, Entry::Url(_))) {
        return allowed
            .iter()
            .any(|e| matches!(e, Entry::Url(_)) && e.matches(s, false));
    }
    by_name()
}
