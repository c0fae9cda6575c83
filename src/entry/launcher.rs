//! The two entry forms that name secrets instead of holding them, and their inverse:
//!
//! - the launcher, for stdio servers: `ABS/mcpctl run --secret ENV=NAME… -- COMMAND ARG…`
//!   (`mcpctl run` resolves each NAME, sets ENV in the server's environment only, and
//!   becomes the server);
//! - the bridge, for remote servers whose headers need a secret:
//!   `ABS/mcpctl bridge URL [--transport sse] --header 'NAME=…{secret:SECRET}…'…`.
//!
//! Both use mcpctl's absolute path (a client starts them with no shell and often a bare
//! PATH; `npx mcpctl` would add seconds to every start). [`logical`] reads an entry back
//! into the server behind it, so `list`, `doctor`, `tools` and `call` see the real
//! command or URL and the secrets it uses. Pure: no process, no store.

use crate::entry::{RemoteKind, StringMap, Transport};

/// One `--secret ENV=NAME`: the server's variable ENV gets secret NAME.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvSecret {
    pub var: String,
    pub secret: String,
}

impl EnvSecret {
    /// Parse `ENV=NAME`.
    pub fn parse(text: &str) -> Result<EnvSecret, String> {
        let Some((var, secret)) = text.split_once('=') else {
            return Err(format!(
                "`{text}` is not ENV=SECRET (the variable the server reads, then the secret's name)"
            ));
        };
        EnvSecret::new(var, secret)
    }

    /// The pair `var` gets secret `secret` (a manifest's `secrets = { VAR = "NAME" }`).
    pub fn new(var: &str, secret: &str) -> Result<EnvSecret, String> {
        if var.is_empty() || var.contains(['\0', ' ', '=']) {
            return Err(format!("`{var}` is not an environment variable name"));
        }
        if !is_secret_name(secret) {
            return Err(bad_secret_name(secret));
        }
        Ok(EnvSecret {
            var: var.to_owned(),
            secret: secret.to_owned(),
        })
    }

    pub fn arg(&self) -> String {
        format!("{}={}", self.var, self.secret)
    }
}

/// A secret name: `[A-Za-z0-9_.-]{1,128}`, so it fits in `{secret:NAME}`, a keychain
/// account and a command line without quoting.
#[must_use]
pub fn is_secret_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 128
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// What is wrong with a name that is not [`is_secret_name`].
#[must_use]
pub fn bad_secret_name(name: &str) -> String {
    format!("`{name}` is not a secret name: use letters, digits, `_`, `-` and `.` (at most 128)")
}

/// Whether `command` is an mcpctl binary (by file name, any directory, `.exe` or not).
pub fn is_mcpctl(command: &str) -> bool {
    let file = command.rsplit(['/', '\\']).next().unwrap_or(command);
    let stem = file
        .strip_suffix(".exe")
        .or_else(|| file.strip_suffix(".EXE"))
        .unwrap_or(file);
    stem == "mcpctl"
}

/// Whether `command args` is mcpctl's launcher or bridge. One rule, whatever the binary
/// is called (`mcpctl-0.1.0.exe`, a renamed copy, a packager's name): the arguments
/// mcpctl writes mark it — `run --secret ENV=NAME… -- COMMAND…` (at least one secret,
/// then `--`) or `bridge URL … --header NAME=…{secret:SECRET}…`. A program named
/// `mcpctl` is also read in the looser forms `run` and `bridge` accept.
fn is_own_form(command: &str, args: &[String]) -> bool {
    let Some((verb, rest)) = args.split_first() else {
        return false;
    };
    if is_mcpctl(command) {
        return true;
    }
    match verb.as_str() {
        "run" => parse_run(rest).is_ok_and(|(secrets, server)| {
            !secrets.is_empty()
                && !server.is_empty()
                && rest.len() > server.len()
                && rest[rest.len() - server.len() - 1] == "--"
        }),
        "bridge" => parse_bridge(rest).is_ok_and(|b| {
            b.oauth.is_some() || b.headers.values().any(|v| !placeholders(v).is_empty())
        }),
        _ => false,
    }
}

/// The launcher's arguments for a server (`command` already wrapped for the target OS).
pub fn run_args(secrets: &[EnvSecret], command: &str, args: &[String]) -> Vec<String> {
    let mut out = vec!["run".to_owned()];
    for s in secrets {
        out.push("--secret".to_owned());
        out.push(s.arg());
    }
    out.push("--".to_owned());
    out.push(command.to_owned());
    out.extend(args.iter().cloned());
    out
}

/// The bridge's arguments for a remote server; header values keep their
/// `{secret:NAME}` placeholders.
pub fn bridge_args(url: &str, kind: RemoteKind, headers: &StringMap) -> Vec<String> {
    let mut out = vec!["bridge".to_owned(), url.to_owned()];
    if kind == RemoteKind::Sse {
        out.push("--transport".to_owned());
        out.push("sse".to_owned());
    }
    for (name, value) in headers {
        out.push("--header".to_owned());
        out.push(format!("{name}={value}"));
    }
    out
}

/// The bridge's arguments for a remote server signed in to with `mcpctl login NAME`
/// (`--oauth NAME`: the token comes from the store, renewed, never from the file).
pub fn oauth_bridge_args(
    url: &str,
    kind: RemoteKind,
    headers: &StringMap,
    name: &str,
) -> Vec<String> {
    let mut out = bridge_args(url, kind, headers);
    out.push("--oauth".to_owned());
    out.push(name.to_owned());
    out
}

/// `transport` in the form that names secrets instead of holding them, started by the
/// mcpctl binary at `program`: a stdio server behind the launcher (`secrets`, plus every
/// env value that is exactly `{secret:NAME}`), a remote server whose headers hold
/// `{secret:…}` (or get a `--secret HEADER=NAME`) behind the bridge. Unchanged when no
/// secret is named. What `add --secret` writes.
pub fn with_secrets(transport: Transport, secrets: &[EnvSecret], program: &str) -> Transport {
    match transport {
        Transport::Stdio {
            command,
            args,
            mut env,
            cwd,
        } => {
            let mut all = secrets.to_vec();
            env.retain(|var, value| {
                // The launcher sets it: a value or `${VAR}` left here would only mislead.
                if secrets.iter().any(|s| s.var == *var) {
                    return false;
                }
                let whole = value
                    .strip_prefix(OPEN)
                    .and_then(|rest| rest.strip_suffix('}'))
                    .filter(|name| is_secret_name(name));
                match whole {
                    Some(name) => {
                        all.push(EnvSecret {
                            var: var.clone(),
                            secret: name.to_owned(),
                        });
                        false
                    }
                    None => true,
                }
            });
            if all.is_empty() {
                return Transport::Stdio {
                    command,
                    args,
                    env,
                    cwd,
                };
            }
            Transport::Stdio {
                command: program.to_owned(),
                args: run_args(&all, &command, &args),
                env,
                cwd,
            }
        }
        Transport::Remote {
            url,
            kind,
            mut headers,
        } => {
            for s in secrets {
                headers.insert(s.var.clone(), format!("{OPEN}{}}}", s.secret));
            }
            if !headers.values().any(|v| !placeholders(v).is_empty()) {
                return Transport::Remote { url, kind, headers };
            }
            Transport::Stdio {
                command: program.to_owned(),
                args: bridge_args(&url, kind, &headers),
                env: StringMap::new(),
                cwd: None,
            }
        }
    }
}

/// Whether two entries are the same server: for launcher and bridge entries, the same
/// server behind them with the same secrets (in any order), wherever the mcpctl binary
/// that starts them lives (another person's checkout of a project file, a moved
/// install); any other entries, equal transports.
pub fn same_form(a: &Transport, b: &Transport) -> bool {
    match (logical(a), logical(b)) {
        (Some(a), Some(b)) => {
            fn sorted(l: &Logical) -> Vec<(&str, &str)> {
                let mut pairs: Vec<(&str, &str)> = l
                    .secrets
                    .iter()
                    .map(|s| (s.var.as_str(), s.secret.as_str()))
                    .collect();
                pairs.sort_unstable();
                pairs
            }
            a.via == b.via
                && a.transport == b.transport
                && a.oauth == b.oauth
                && sorted(&a) == sorted(&b)
        }
        (None, None) => a == b,
        _ => false,
    }
}

/// The mcpctl binary a launcher or bridge entry starts; `None` for any other entry.
pub fn program_of(transport: &Transport) -> Option<&str> {
    match transport {
        Transport::Stdio { command, .. } if logical(transport).is_some() => Some(command),
        _ => None,
    }
}

/// A launcher entry's arguments with the server's command line changed by `f` (Windows
/// wrapping applies to what the launcher starts, not to mcpctl itself); `None` for
/// anything that is not a launcher entry.
pub fn map_server(
    command: &str,
    args: &[String],
    f: impl FnOnce(&str, &[String]) -> (String, Vec<String>),
) -> Option<Vec<String>> {
    if !is_own_form(command, args) || args.first().map(String::as_str) != Some("run") {
        return None;
    }
    let (secrets, server) = parse_run(&args[1..]).ok()?;
    let (inner, rest) = server.split_first()?;
    let (inner, rest) = f(inner, rest);
    Some(run_args(&secrets, &inner, &rest))
}

/// The server behind a launcher or bridge entry, and the secrets it uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Logical {
    /// What the launcher starts (its env holds the entry's own env) or the bridge
    /// reaches (headers with their `{secret:…}` placeholders).
    pub transport: Transport,
    /// `--secret` pairs (launcher) or the header placeholders as `HEADER=NAME` (bridge).
    pub secrets: Vec<EnvSecret>,
    pub via: Via,
    /// The bridge's `--oauth NAME`: the sign-in (`mcpctl login NAME`) whose token it sends.
    pub oauth: Option<String>,
}

/// Which of mcpctl's forms an entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Via {
    Launcher,
    Bridge,
}

/// Read a launcher or bridge entry back into the server behind it; `None` for any other
/// entry (or an mcpctl command line this does not understand).
pub fn logical(transport: &Transport) -> Option<Logical> {
    let Transport::Stdio {
        command,
        args,
        env,
        cwd,
    } = transport
    else {
        return None;
    };
    if !is_own_form(command, args) {
        return None;
    }
    let (verb, rest) = args.split_first()?;
    match verb.as_str() {
        "run" => {
            let (secrets, server) = parse_run(rest).ok()?;
            let (command, args) = server.split_first()?;
            Some(Logical {
                transport: Transport::Stdio {
                    command: command.clone(),
                    args: args.to_vec(),
                    env: env.clone(),
                    cwd: cwd.clone(),
                },
                secrets,
                via: Via::Launcher,
                oauth: None,
            })
        }
        "bridge" => {
            let bridge = parse_bridge(rest).ok()?;
            let secrets = bridge
                .headers
                .iter()
                .flat_map(|(header, value)| {
                    placeholders(value).into_iter().map(|name| EnvSecret {
                        var: header.clone(),
                        secret: name,
                    })
                })
                .collect();
            Some(Logical {
                transport: Transport::Remote {
                    url: bridge.url,
                    kind: bridge.kind,
                    headers: bridge.headers,
                },
                secrets,
                via: Via::Bridge,
                oauth: bridge.oauth,
            })
        }
        _ => None,
    }
}

/// `run`'s arguments after the verb: the `--secret` pairs, then everything after `--`
/// (or from the first word that is not an option) is the server.
pub fn parse_run(args: &[String]) -> Result<(Vec<EnvSecret>, &[String]), String> {
    let mut secrets = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        if arg == "--" {
            return Ok((secrets, &args[i + 1..]));
        }
        if let Some(pair) = arg.strip_prefix("--secret=") {
            secrets.push(EnvSecret::parse(pair)?);
        } else if arg == "--secret" {
            let pair = args
                .get(i + 1)
                .ok_or_else(|| "--secret needs ENV=SECRET".to_owned())?;
            secrets.push(EnvSecret::parse(pair)?);
            i += 1;
        } else if arg.starts_with('-') {
            return Err(format!("`{arg}` is not an option of `mcpctl run`"));
        } else {
            return Ok((secrets, &args[i..]));
        }
        i += 1;
    }
    Ok((secrets, &[]))
}

/// A bridge command line, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bridge {
    pub url: String,
    pub kind: RemoteKind,
    pub headers: StringMap,
    /// `--oauth NAME`.
    pub oauth: Option<String>,
}

/// `bridge`'s arguments after the verb.
pub fn parse_bridge(args: &[String]) -> Result<Bridge, String> {
    let mut url = None;
    let mut kind = RemoteKind::Http;
    let mut headers = StringMap::new();
    let mut oauth = None;
    let mut i = 0;
    let value = |i: usize, flag: &str| {
        args.get(i + 1)
            .cloned()
            .ok_or_else(|| format!("{flag} needs a value"))
    };
    while i < args.len() {
        let arg = args[i].as_str();
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_owned())),
            _ => (arg, None),
        };
        match flag {
            "--header" | "-H" => {
                let text = match inline {
                    Some(v) => v,
                    None => {
                        i += 1;
                        value(i - 1, flag)?
                    }
                };
                let (name, v) = text
                    .split_once('=')
                    .or_else(|| text.split_once(':'))
                    .ok_or_else(|| format!("`{text}` is not NAME=VALUE"))?;
                headers.insert(name.trim().to_owned(), v.trim_start().to_owned());
            }
            "--oauth" => {
                oauth = Some(match inline {
                    Some(v) => v,
                    None => {
                        i += 1;
                        value(i - 1, flag)?
                    }
                });
            }
            "--transport" => {
                let text = match inline {
                    Some(v) => v,
                    None => {
                        i += 1;
                        value(i - 1, flag)?
                    }
                };
                kind = match text.as_str() {
                    "http" => RemoteKind::Http,
                    "sse" => RemoteKind::Sse,
                    other => return Err(format!("`{other}` is not a transport (http, sse)")),
                };
            }
            _ if arg.starts_with('-') => {
                return Err(format!("`{arg}` is not an option of `mcpctl bridge`"));
            }
            _ if url.is_none() => url = Some(arg.to_owned()),
            _ => return Err(format!("`{arg}`: `mcpctl bridge` takes one URL")),
        }
        i += 1;
    }
    Ok(Bridge {
        url: url.ok_or_else(|| "`mcpctl bridge` needs the server's URL".to_owned())?,
        kind,
        headers,
        oauth,
    })
}

const OPEN: &str = "{secret:";

/// The secret names `{secret:NAME}` placeholders in `text` refer to, in order.
pub fn placeholders(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(OPEN) {
        let after = &rest[at + OPEN.len()..];
        let Some(end) = after.find('}') else { break };
        let name = &after[..end];
        if is_secret_name(name) {
            names.push(name.to_owned());
        }
        rest = &after[end + 1..];
    }
    names
}

/// `text` with every `{secret:NAME}` replaced by the secret's value.
pub fn fill<E>(
    text: &str,
    resolve: &mut dyn FnMut(&str) -> Result<String, E>,
) -> Result<String, E> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(OPEN) {
        let after = &rest[at + OPEN.len()..];
        let Some(end) = after.find('}') else { break };
        let name = &after[..end];
        out.push_str(&rest[..at]);
        if is_secret_name(name) {
            out.push_str(&resolve(name)?);
        } else {
            out.push_str(&rest[at..at + OPEN.len() + end + 1]);
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| (*w).to_owned()).collect()
    }

    #[test]
    fn the_launcher_round_trips_to_its_server() {
        let secrets =
            vec![EnvSecret::parse("GITHUB_TOKEN=github").unwrap_or_else(|e| panic!("{e}"))];
        let args = run_args(
            &secrets,
            "npx",
            &strings(&["-y", "@modelcontextprotocol/server-github"]),
        );
        assert_eq!(
            args,
            strings(&[
                "run",
                "--secret",
                "GITHUB_TOKEN=github",
                "--",
                "npx",
                "-y",
                "@modelcontextprotocol/server-github"
            ])
        );
        let entry = Transport::Stdio {
            command: "/usr/local/bin/mcpctl".to_owned(),
            args,
            env: StringMap::new(),
            cwd: None,
        };
        let logical = logical(&entry);
        assert_eq!(
            logical.map(|l| (l.transport, l.secrets, l.via)),
            Some((
                Transport::Stdio {
                    command: "npx".to_owned(),
                    args: strings(&["-y", "@modelcontextprotocol/server-github"]),
                    env: StringMap::new(),
                    cwd: None,
                },
                secrets,
                Via::Launcher
            ))
        );
    }

    #[test]
    fn the_bridge_round_trips_to_its_url_and_placeholders() {
        let mut headers = StringMap::new();
        headers.insert(
            "Authorization".to_owned(),
            "Bearer {secret:docs}".to_owned(),
        );
        let args = bridge_args("https://docs.example/mcp", RemoteKind::Sse, &headers);
        let entry = Transport::Stdio {
            command: r"C:\Tools\mcpctl.exe".to_owned(),
            args,
            env: StringMap::new(),
            cwd: None,
        };
        let logical = logical(&entry).unwrap_or_else(|| panic!("not read back"));
        assert_eq!(
            logical.transport,
            Transport::Remote {
                url: "https://docs.example/mcp".to_owned(),
                kind: RemoteKind::Sse,
                headers,
            }
        );
        assert_eq!(logical.secrets[0].secret, "docs");
        assert_eq!(logical.via, Via::Bridge);
    }

    #[test]
    fn add_writes_the_launcher_or_the_bridge_only_when_a_secret_is_named() {
        let mut env = StringMap::new();
        env.insert("GITHUB_TOKEN".to_owned(), "{secret:github}".to_owned());
        env.insert("LOG".to_owned(), "debug".to_owned());
        let stdio = Transport::Stdio {
            command: "npx".to_owned(),
            args: strings(&["-y", "server-github"]),
            env,
            cwd: None,
        };
        let Transport::Stdio {
            command, args, env, ..
        } = with_secrets(stdio, &[], "/opt/mcpctl")
        else {
            panic!("not stdio");
        };
        assert_eq!(command, "/opt/mcpctl");
        assert_eq!(
            args,
            strings(&[
                "run",
                "--secret",
                "GITHUB_TOKEN=github",
                "--",
                "npx",
                "-y",
                "server-github"
            ])
        );
        assert_eq!(env.keys().collect::<Vec<_>>(), ["LOG"]);

        let remote = Transport::Remote {
            url: "https://docs.example/mcp".to_owned(),
            kind: RemoteKind::Http,
            headers: StringMap::new(),
        };
        let secret = EnvSecret::parse("X-Api-Key=docs").unwrap();
        let Transport::Stdio { args, .. } = with_secrets(remote.clone(), &[secret], "/opt/mcpctl")
        else {
            panic!("not the bridge");
        };
        assert_eq!(
            args,
            strings(&[
                "bridge",
                "https://docs.example/mcp",
                "--header",
                "X-Api-Key={secret:docs}"
            ])
        );
        assert_eq!(with_secrets(remote.clone(), &[], "/opt/mcpctl"), remote);
    }

    #[test]
    fn windows_wrapping_applies_to_the_server_behind_the_launcher() {
        let args = run_args(
            &[EnvSecret::parse("T=t").unwrap()],
            "npx",
            &strings(&["-y", "x"]),
        );
        let wrapped = map_server(r"C:\mcpctl.exe", &args, |c, a| {
            let mut all = vec!["/c".to_owned(), c.to_owned()];
            all.extend(a.iter().cloned());
            ("cmd".to_owned(), all)
        });
        assert_eq!(
            wrapped,
            Some(strings(&[
                "run", "--secret", "T=t", "--", "cmd", "/c", "npx", "-y", "x"
            ]))
        );
        assert_eq!(
            map_server("npx", &strings(&["-y"]), |c, a| (c.to_owned(), a.to_vec())),
            None
        );
    }

    /// Issue 37 item 4: the form is mcpctl's by its arguments, whatever the binary is
    /// called; the looser forms only with a program named mcpctl.
    #[test]
    fn the_launcher_is_known_by_its_arguments_whatever_the_binary_is_called() {
        let args = run_args(
            &[EnvSecret::parse("T=t").unwrap()],
            "npx",
            &strings(&["-y", "x"]),
        );
        for program in [r"C:\tools\mcpctl-0.1.0.exe", "/opt/renamed-copy"] {
            let entry = Transport::Stdio {
                command: program.to_owned(),
                args: args.clone(),
                env: StringMap::new(),
                cwd: None,
            };
            let found = logical(&entry).unwrap_or_else(|| panic!("{program}"));
            assert_eq!(found.via, Via::Launcher);
            assert_eq!(program_of(&entry), Some(program));
            assert!(map_server(program, &args, |c, a| (c.to_owned(), a.to_vec())).is_some());
            let bridge = Transport::Stdio {
                command: program.to_owned(),
                args: strings(&["bridge", "https://x/mcp", "--header", "K={secret:k}"]),
                env: StringMap::new(),
                cwd: None,
            };
            assert_eq!(logical(&bridge).map(|l| l.via), Some(Via::Bridge));
        }
        for (command, args) in [
            ("tool", vec!["run", "--", "x"]),
            ("tool", vec!["run", "--secret", "T=t", "x"]),
            ("tool", vec!["bridge", "https://x/mcp"]),
        ] {
            let entry = Transport::Stdio {
                command: command.to_owned(),
                args: strings(&args),
                env: StringMap::new(),
                cwd: None,
            };
            assert_eq!(logical(&entry), None, "{args:?}");
        }
    }

    #[test]
    fn other_entries_are_not_launchers() {
        for (command, args) in [
            ("npx", vec!["-y", "x"]),
            ("mcpctl-helper", vec!["run", "--", "x"]),
            ("mcpctl", vec!["list"]),
            ("mcpctl", vec!["run", "--bogus", "--", "x"]),
        ] {
            let entry = Transport::Stdio {
                command: command.to_owned(),
                args: strings(&args),
                env: StringMap::new(),
                cwd: None,
            };
            assert_eq!(logical(&entry), None, "{command} {args:?}");
        }
    }

    #[test]
    fn placeholders_are_filled_and_bad_ones_kept() {
        assert_eq!(placeholders("Bearer {secret:docs} {secret:a b}"), ["docs"]);
        let mut resolve = |name: &str| Ok::<_, String>(format!("<{name}>"));
        assert_eq!(
            fill("Bearer {secret:docs}/{secret:x y}{secret:", &mut resolve).ok(),
            Some("Bearer <docs>/{secret:x y}{secret:".to_owned())
        );
        let mut missing = |name: &str| Err(format!("{name} is not set"));
        assert!(fill("{secret:gone}", &mut missing).is_err());
    }

    #[test]
    fn env_secrets_need_both_halves() {
        assert!(EnvSecret::parse("TOKEN").is_err());
        assert!(EnvSecret::parse("=x").is_err());
        assert!(EnvSecret::parse("TOKEN=a b").is_err());
        assert_eq!(
            EnvSecret::parse("T=n").map(|s| s.arg()).ok().as_deref(),
            Some("T=n")
        );
    }
}
