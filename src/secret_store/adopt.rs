//! Moving literal secrets out of an entry (`secret adopt`, `check --fix --secrets`): find
//! the env values and header values the one secret rule (`crate::secrets`) calls literal
//! secrets, and rewrite the entry to name stored secrets instead — a stdio server behind
//! the launcher (`--secret VAR=NAME`, the variable gone from `env`), a remote server
//! behind the bridge (`Bearer {secret:NAME}`). Pure: the store and the file are the
//! caller's.

use crate::entry::Transport;

use super::{Value, check_name};
use crate::entry::launcher::{self, Via};

/// One literal secret in an entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Literal {
    /// The env variable or header it is the value of.
    pub field: String,
    /// `env` or `header`.
    pub place: Place,
    /// What the secret rule says it is (`a GitHub token`, ...).
    pub what: &'static str,
    /// The part of the value that is the secret (the token of `Bearer TOKEN`).
    pub value: Value,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Place {
    Env,
    Header,
}

impl Place {
    pub fn label(self) -> &'static str {
        match self {
            Place::Env => "env",
            Place::Header => "header",
        }
    }
}

/// The server an entry stands for (behind mcpctl's launcher or bridge, or the entry itself),
/// the secrets it names already, and mcpctl's program when it is one of mcpctl's forms.
fn unwrap(transport: &Transport) -> (Transport, Vec<launcher::EnvSecret>, Option<String>) {
    let program = match transport {
        Transport::Stdio { command, .. } => Some(command.clone()),
        Transport::Remote { .. } => None,
    };
    match launcher::logical(transport) {
        // The bridge's secrets are its header placeholders, which stay where they are.
        Some(logical) if logical.via == Via::Bridge => (logical.transport, Vec::new(), program),
        Some(logical) => (logical.transport, logical.secrets, program),
        None => (transport.clone(), Vec::new(), None),
    }
}

/// The literal secrets in `transport`'s env (stdio) or headers (remote), looking through
/// mcpctl's launcher and bridge to the server behind them.
pub fn literals(transport: &Transport) -> Vec<Literal> {
    let (inner, _, _) = unwrap(transport);
    let (place, map) = match &inner {
        Transport::Stdio { env, .. } => (Place::Env, env),
        Transport::Remote { headers, .. } => (Place::Header, headers),
    };
    map.iter()
        .filter_map(|(field, value)| {
            let what = crate::secrets::literal_secret(field, value)?;
            let (_, secret) = split_bearer(value);
            Some(Literal {
                field: field.clone(),
                place,
                what,
                value: Value(secret.to_owned()),
            })
        })
        .collect()
}

/// An env value (stdio) or header value (remote) that is nothing but a reference to a
/// variable (`${VAR}`, `${env:VAR}`, `Bearer ${VAR}`), looking through mcpctl's launcher
/// and bridge: (field, place, variable). `secret adopt` points such a field at the stored
/// secret of the variable's name.
pub fn references(transport: &Transport) -> Vec<(String, Place, String)> {
    let (inner, _, _) = unwrap(transport);
    let (place, map) = match &inner {
        Transport::Stdio { env, .. } => (Place::Env, env),
        Transport::Remote { headers, .. } => (Place::Header, headers),
    };
    map.iter()
        .filter_map(|(field, value)| {
            let (_, rest) = split_bearer(value);
            let variable = crate::vars::sole_reference(rest)?;
            Some((field.clone(), place, variable))
        })
        .collect()
}

/// `Bearer TOKEN` → (`Bearer `, `TOKEN`); any other value is all secret.
fn split_bearer(value: &str) -> (&str, &str) {
    for prefix in ["Bearer ", "bearer "] {
        if let Some(token) = value.strip_prefix(prefix) {
            return (prefix, token.trim());
        }
    }
    ("", value)
}

/// The secret name `secret adopt` gives a literal of server `server` when the caller has
/// no better one: the server's name when it is the entry's only secret, else
/// `SERVER-FIELD` (lowercase, `_` as `-`), reduced to the characters a name may hold.
pub fn default_name(server: &str, field: &str, only: bool) -> String {
    let raw = if only {
        server.to_owned()
    } else {
        format!("{server}-{}", field.to_ascii_lowercase().replace('_', "-"))
    };
    let mut name: String = raw
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c
            } else {
                '-'
            }
        })
        .collect();
    name.truncate(128);
    if check_name(&name).is_err() {
        name = "secret".to_owned();
    }
    name
}

/// `transport` with each literal `named` (field → secret name) replaced by its secret:
/// a stdio server goes behind the launcher at `program` (kept when the entry already is
/// one), a remote server behind the bridge. Fields not in `named` stay as they are.
pub fn adopted(transport: &Transport, named: &[(String, String)], program: &str) -> Transport {
    let (inner, mut secrets, own) = unwrap(transport);
    let program = own.as_deref().unwrap_or(program);
    let name_of = |field: &str| {
        named
            .iter()
            .find(|(f, _)| f == field)
            .map(|(_, n)| n.clone())
    };
    let inner = match inner {
        Transport::Stdio {
            command,
            args,
            mut env,
            cwd,
        } => {
            env.retain(|field, _| match name_of(field) {
                Some(secret) => {
                    secrets.retain(|s| s.var != *field);
                    secrets.push(launcher::EnvSecret {
                        var: field.clone(),
                        secret,
                    });
                    false
                }
                None => true,
            });
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
            }
        }
        Transport::Remote {
            url,
            kind,
            mut headers,
        } => {
            for (field, value) in headers.iter_mut() {
                if let Some(secret) = name_of(field) {
                    let (prefix, _) = split_bearer(value);
                    *value = format!("{prefix}{{secret:{secret}}}");
                }
            }
            Transport::Remote { url, kind, headers }
        }
    };
    launcher::with_secrets(inner, &secrets, program)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entry::{RemoteKind, StringMap};

    fn map(pairs: &[(&str, &str)]) -> StringMap {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    const TOKEN: &str = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";

    #[test]
    fn a_stdio_literal_moves_behind_the_launcher_and_the_rest_of_env_stays() {
        let transport = Transport::Stdio {
            command: "npx".to_owned(),
            args: vec!["-y".to_owned(), "server-github".to_owned()],
            env: map(&[("GITHUB_TOKEN", TOKEN), ("LOG_LEVEL", "debug")]),
            cwd: None,
        };
        let found = literals(&transport);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].field, "GITHUB_TOKEN");
        assert_eq!(found[0].value.0, TOKEN);
        let named = vec![("GITHUB_TOKEN".to_owned(), "github".to_owned())];
        let out = adopted(&transport, &named, "/opt/mcpctl");
        let Transport::Stdio {
            command, args, env, ..
        } = &out
        else {
            panic!("{out:?}")
        };
        assert_eq!(command, "/opt/mcpctl");
        assert_eq!(
            args,
            &[
                "run",
                "--secret",
                "GITHUB_TOKEN=github",
                "--",
                "npx",
                "-y",
                "server-github"
            ]
        );
        assert_eq!(env, &map(&[("LOG_LEVEL", "debug")]));
        assert!(literals(&out).is_empty());
        // Adopting again finds nothing and keeps the launcher as it is.
        assert_eq!(adopted(&out, &[], "/other/mcpctl"), out);
    }

    #[test]
    fn a_bearer_header_keeps_its_scheme_and_goes_behind_the_bridge() {
        let transport = Transport::Remote {
            url: "https://docs.example.com/mcp".to_owned(),
            kind: RemoteKind::Http,
            headers: map(&[("Authorization", &format!("Bearer {TOKEN}"))]),
        };
        let found = literals(&transport);
        assert_eq!(found[0].value.0, TOKEN);
        assert_eq!(found[0].place, Place::Header);
        let named = vec![("Authorization".to_owned(), "docs".to_owned())];
        let out = adopted(&transport, &named, "/opt/mcpctl");
        let Transport::Stdio { args, .. } = &out else {
            panic!("{out:?}")
        };
        assert_eq!(
            args,
            &[
                "bridge",
                "https://docs.example.com/mcp",
                "--header",
                "Authorization=Bearer {secret:docs}"
            ]
        );
        assert!(literals(&out).is_empty());
    }

    #[test]
    fn a_launcher_entry_with_another_literal_keeps_its_secrets_and_program() {
        let transport = Transport::Stdio {
            command: "/usr/bin/mcpctl".to_owned(),
            args: ["run", "--secret", "A_TOKEN=a", "--", "srv"]
                .map(str::to_owned)
                .to_vec(),
            env: map(&[("B_TOKEN", TOKEN)]),
            cwd: None,
        };
        assert_eq!(literals(&transport).len(), 1);
        let out = adopted(
            &transport,
            &[("B_TOKEN".to_owned(), "b".to_owned())],
            "/elsewhere/mcpctl",
        );
        let Transport::Stdio { command, args, .. } = &out else {
            panic!("{out:?}")
        };
        assert_eq!(command, "/usr/bin/mcpctl");
        assert_eq!(
            args,
            &[
                "run",
                "--secret",
                "A_TOKEN=a",
                "--secret",
                "B_TOKEN=b",
                "--",
                "srv"
            ]
        );
    }

    #[test]
    fn default_names_are_the_server_or_server_and_field() {
        assert_eq!(default_name("github", "GITHUB_TOKEN", true), "github");
        assert_eq!(
            default_name("github", "GITHUB_TOKEN", false),
            "github-github-token"
        );
        assert_eq!(default_name("my server", "X", true), "my-server");
    }
}
