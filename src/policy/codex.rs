//! Codex `requirements.toml` `[mcp_servers.NAME.identity]`: once the table exists, Codex
//! disables every server whose name it does not list, or whose identity differs (codex-rs
//! `filter_mcp_servers_by_requirements`): `command = "npx"` compares a local server's
//! command (not its arguments), `url = "https://…"` a remote server's URL, both exactly.
//! The matcher forms (`command = { executable, args = [{ match, value }] }`,
//! `url = { match, value }`) compare `exact` or `prefix`; a `regex` matcher is not judged
//! (mcpctl claims no block it cannot prove).

use std::collections::BTreeMap;

use super::{Subject, Verdict};

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Matcher {
    Exact(String),
    Prefix(String),
    Regex(String),
}

impl Matcher {
    fn parse(v: &toml::Value) -> Result<Matcher, String> {
        let t = v.as_table().ok_or("a matcher must be a table")?;
        let get = |k: &str| {
            t.get(k)
                .and_then(toml::Value::as_str)
                .map(str::to_owned)
                .ok_or(format!("the matcher needs `{k}`"))
        };
        match t.get("match").and_then(toml::Value::as_str) {
            Some("exact") => Ok(Matcher::Exact(get("value")?)),
            Some("prefix") => Ok(Matcher::Prefix(get("value")?)),
            Some("regex") => Ok(Matcher::Regex(get("expression")?)),
            other => Err(format!("unsupported matcher {other:?}")),
        }
    }

    /// `None`: cannot be judged here (a regex).
    fn test(&self, s: &str) -> Option<bool> {
        match self {
            Matcher::Exact(v) => Some(s == v),
            Matcher::Prefix(v) => Some(s.starts_with(v.as_str())),
            Matcher::Regex(_) => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Identity {
    Command(String),
    Url(String),
    CommandMatch {
        executable: String,
        args: Vec<Matcher>,
    },
    UrlMatch(Matcher),
}

impl Identity {
    fn parse(name: &str, v: &toml::Value) -> Result<Identity, String> {
        let bad = |why: String| format!("`mcp_servers.{name}`: {why}");
        let identity = v
            .get("identity")
            .and_then(toml::Value::as_table)
            .ok_or_else(|| bad("an `identity` table is required".to_owned()))?;
        match (identity.get("command"), identity.get("url")) {
            (Some(toml::Value::String(c)), None) => Ok(Identity::Command(c.clone())),
            (None, Some(toml::Value::String(u))) => Ok(Identity::Url(u.clone())),
            (Some(toml::Value::Table(c)), None) => {
                let executable = c
                    .get("executable")
                    .and_then(toml::Value::as_str)
                    .ok_or_else(|| bad("`identity.command.executable` is required".to_owned()))?
                    .to_owned();
                let args = match c.get("args") {
                    None => Vec::new(),
                    Some(toml::Value::Array(a)) => a
                        .iter()
                        .map(Matcher::parse)
                        .collect::<Result<_, _>>()
                        .map_err(bad)?,
                    Some(_) => {
                        return Err(bad("`identity.command.args` must be a list".to_owned()));
                    }
                };
                Ok(Identity::CommandMatch { executable, args })
            }
            (None, Some(m @ toml::Value::Table(_))) => {
                Ok(Identity::UrlMatch(Matcher::parse(m).map_err(bad)?))
            }
            _ => Err(bad(
                "`identity` needs exactly one of `command` or `url`".to_owned()
            )),
        }
    }

    /// `None`: not judged (a regex matcher).
    fn admits(&self, s: &Subject<'_>) -> Option<bool> {
        let line = s.command_line();
        match self {
            Identity::Command(want) => Some(line.is_some_and(|l| l[0] == want)),
            Identity::Url(want) => Some(s.url() == Some(want.as_str())),
            Identity::CommandMatch { executable, args } => {
                let Some(line) = line else { return Some(false) };
                if line[0] != executable || line.len() - 1 != args.len() {
                    return Some(false);
                }
                let mut all = Some(true);
                for (m, a) in args.iter().zip(&line[1..]) {
                    match m.test(a) {
                        Some(false) => return Some(false),
                        None => all = None,
                        Some(true) => {}
                    }
                }
                all
            }
            Identity::UrlMatch(m) => match s.url() {
                Some(url) => m.test(url),
                None => Some(false),
            },
        }
    }

    fn describe(&self) -> String {
        match self {
            Identity::Command(c) | Identity::CommandMatch { executable: c, .. } => {
                format!("command `{c}`")
            }
            Identity::Url(u) => format!("URL `{u}`"),
            Identity::UrlMatch(Matcher::Exact(u) | Matcher::Prefix(u) | Matcher::Regex(u)) => {
                format!("URL matching `{u}`")
            }
        }
    }
}

/// The `[mcp_servers]` table of one `requirements.toml`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Requirements {
    pub(super) servers: BTreeMap<String, Identity>,
}

impl Requirements {
    /// `Ok(None)`: the file has no `[mcp_servers]` table.
    pub(super) fn parse(text: &str) -> Result<Option<Requirements>, String> {
        let root: toml::Table = text.parse().map_err(|e: toml::de::Error| e.to_string())?;
        let Some(table) = root.get("mcp_servers") else {
            return Ok(None);
        };
        let table = table.as_table().ok_or("`mcp_servers` is not a table")?;
        let servers = table
            .iter()
            .map(|(name, v)| Identity::parse(name, v).map(|i| (name.clone(), i)))
            .collect::<Result<_, _>>()?;
        Ok(Some(Requirements { servers }))
    }

    pub(super) fn judge(&self, s: &Subject<'_>) -> Option<(Verdict, String)> {
        let Some(identity) = self.servers.get(s.name) else {
            return Some((
                Verdict::NotAllowed,
                format!("`[mcp_servers]` does not list `{}`", s.name),
            ));
        };
        match identity.admits(s) {
            Some(false) => Some((
                Verdict::NotAllowed,
                format!(
                    "`[mcp_servers.{}.identity]` wants {}",
                    s.name,
                    identity.describe()
                ),
            )),
            Some(true) | None => None,
        }
    }
}
