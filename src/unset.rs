//! The one rule for a `${VAR}` an entry uses that this environment does not set, shared
//! by `doctor`, `tools`, `call` (through `handshake::prepare`), `list`, `check` and `add`:
//! one way to find them ([`find`]), one wording ([`Unset::sentence`], [`sentence`]: what
//! is unset, where, and what to do) and one severity: an error only where the command
//! must start the server (`prepare` blocks the launch: the server would get the reference
//! as literal text), a warning wherever the command can still do its job (`list`, `add`,
//! `check`'s MCP503: listing, writing or checking the entry).

use crate::entry::Transport;
use crate::platform::Os;

/// One variable an entry references that is not set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unset {
    pub variable: String,
    /// Where in the entry: "header `Authorization`", "env `API_TOKEN`", "URL",
    /// "argument", "command", "cwd".
    pub place: String,
    /// The OS whose environment it is: how to set it is said its way.
    pub os: Os,
}

/// Every unset variable `transport` references (each once, in entry order), with `lookup`
/// giving the environment's values. A stdio entry's own `env` sets variables for its
/// command, arguments and cwd, as `prepare` expands them; `${input:…}` is no variable.
/// Names are `os`'s (on Windows the entry's `ApiKey` sets `${APIKEY}`).
pub fn find(transport: &Transport, os: Os, lookup: &dyn Fn(&str) -> Option<String>) -> Vec<Unset> {
    let mut out: Vec<Unset> = Vec::new();
    let mut add = |text: &str, place: String, lookup: &dyn Fn(&str) -> Option<String>| {
        for variable in crate::vars::expand(text, lookup).1 {
            // `${workspaceFolder}` and the like are the editor's to fill, not the
            // environment's.
            if !crate::vars::EDITOR_VARIABLES.contains(&variable.as_str())
                && !out.iter().any(|u| u.variable == variable)
            {
                out.push(Unset {
                    variable,
                    place: place.clone(),
                    os,
                });
            }
        }
    };
    match transport {
        Transport::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            for (key, value) in env {
                add(value, format!("env `{key}`"), lookup);
            }
            let local = |name: &str| {
                os.var_of(env.get(name), env, name)
                    .map(|v| crate::vars::expand(v, lookup).0)
                    .or_else(|| lookup(name))
            };
            add(command, "command".to_owned(), &local);
            for arg in args {
                add(arg, "argument".to_owned(), &local);
            }
            if let Some(cwd) = cwd {
                add(cwd, "cwd".to_owned(), &local);
            }
        }
        Transport::Remote { url, headers, .. } => {
            add(url, "URL".to_owned(), lookup);
            for (name, value) in headers {
                add(value, format!("header `{name}`"), lookup);
            }
        }
    }
    out
}

/// The one wording, without the entry (a `doctor` row or a `tools` error names it).
#[must_use]
pub fn sentence(variable: &str, place: &str, os: Os) -> String {
    let place = match place {
        "argument" => "an argument".to_owned(),
        "URL" | "command" | "cwd" => format!("the {place}"),
        named => named.to_owned(),
    };
    worded(variable, &place, os, None)
}

fn worded(variable: &str, place: &str, os: Os, server: Option<&str>) -> String {
    format!(
        "{place} uses `${{{variable}}}`, which is not set in this environment; {}",
        todo(variable, os, server)
    )
}

/// What to do about it, said the way `os` sets a variable: set it, or keep a
/// secret-looking one in mcpctl's store, the whole way: storing it alone changes nothing
/// (the entry still asks the environment), so `secret adopt` then points the entry of
/// `server` (every entry using it when `None`) at the stored secret.
#[must_use]
pub fn todo(variable: &str, os: Os, server: Option<&str>) -> String {
    let set = os.set_var_command(variable);
    if crate::secrets::secret_name(variable) {
        let adopt = match server {
            Some(server) => format!("mcpctl secret adopt {server}"),
            None => "mcpctl secret adopt".to_owned(),
        };
        format!(
            "{set} where mcpctl and the client run, or keep the secret in mcpctl's store: `mcpctl secret set {variable}`, then `{adopt}` points the entry at it"
        )
    } else {
        format!("{set} where mcpctl and the client run")
    }
}

/// [`find`] with mcpctl's environment (what `doctor` hands `prepare`).
pub fn find_here(platform: &crate::platform::Platform, transport: &Transport) -> Vec<Unset> {
    find(transport, platform.os, &|name| {
        platform.lookup(name).map(str::to_owned)
    })
}

/// One line for every unset variable of `uses` (`(variable, server)` pairs, in order),
/// however many entries and clients share it: `list` runs often, and the whole sentence
/// per entry (`--json`'s `unset`, `doctor`'s row) would repeat on every run. It names each
/// variable once with the servers using it, and the `doctor` command that says what to do.
pub fn summary<'a>(uses: impl Iterator<Item = (&'a str, &'a str)>) -> Option<String> {
    let mut vars: Vec<(&str, Vec<&str>)> = Vec::new();
    for (var, server) in uses {
        match vars.iter_mut().find(|(v, _)| *v == var) {
            Some((_, names)) if names.contains(&server) => {}
            Some((_, names)) => names.push(server),
            None => vars.push((var, vec![server])),
        }
    }
    if vars.is_empty() {
        return None;
    }
    let mut servers: Vec<&str> = vars.iter().flat_map(|(_, n)| n.iter().copied()).collect();
    servers.sort_unstable();
    servers.dedup();
    let listed = vars
        .iter()
        .map(|(var, names)| format!("`${{{var}}}` ({})", names.join(", ")))
        .collect::<Vec<_>>()
        .join(", ");
    let (what, verb, them) = if vars.len() == 1 {
        ("variable", "is", "it")
    } else {
        ("variables", "are", "them")
    };
    Some(format!(
        "{} {what} the entries use {verb} not set in this environment: {listed}; `mcpctl doctor {}` says how to set {them}",
        vars.len(),
        servers.join(" "),
    ))
}

impl Unset {
    /// The sentence for this entry: `server`'s place, in `file` when known.
    #[must_use]
    pub fn sentence(&self, server: &str, file: Option<&str>) -> String {
        let file = file.map(|f| format!(" in `{f}`")).unwrap_or_default();
        worded(
            &self.variable,
            &format!("server `{server}`'s {}{file}", self.place),
            self.os,
            Some(server),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entry::RemoteKind;

    /// Issue 37 item 1: on Windows `ApiKey` sets `${APIKEY}` (and an empty one is set);
    /// on Linux it is another variable.
    #[test]
    fn windows_variables_are_set_in_any_case() {
        use crate::platform::{Os, Platform};
        let transport = Transport::Stdio {
            command: "srv".into(),
            args: vec!["${APIKEY}".into(), "${EMPTY}".into()],
            env: crate::entry::StringMap::new(),
            cwd: None,
        };
        let vars = [("ApiKey", "k"), ("Empty", "")];
        let windows = Platform::new(Os::Windows, &vars, std::path::Path::new("/"));
        assert_eq!(find_here(&windows, &transport), []);
        let linux = Platform::new(Os::Linux, &vars, std::path::Path::new("/"));
        assert_eq!(find_here(&linux, &transport).len(), 2);
        // Issue 37 item 7: how to set one is said the Windows way there.
        let token = Transport::Stdio {
            command: "srv".into(),
            args: vec!["${API_TOKEN}".into()],
            env: crate::entry::StringMap::new(),
            cwd: None,
        };
        let said = find_here(&windows, &token)[0].sentence("s", None);
        assert!(said.contains("`setx API_TOKEN …`"), "{said}");
        assert!(said.contains("`$env:API_TOKEN = \"…\"`"), "{said}");
        assert!(!said.contains("export"), "{said}");
        let said = find_here(&linux, &token)[0].sentence("s", None);
        assert!(said.contains("`export API_TOKEN=…`"), "{said}");
    }

    #[test]
    fn the_entry_env_sets_variables_for_its_arguments() {
        let transport = Transport::Stdio {
            command: "srv".into(),
            args: vec!["--root".into(), "${ROOT}".into(), "${DIR}".into()],
            env: [
                ("ROOT".to_owned(), "/r".to_owned()),
                ("K".to_owned(), "${API_TOKEN}".to_owned()),
            ]
            .into(),
            cwd: None,
        };
        let unset = find(&transport, Os::Linux, &|_| None);
        assert_eq!(
            unset,
            [
                Unset {
                    variable: "API_TOKEN".into(),
                    place: "env `K`".into(),
                    os: Os::Linux,
                },
                Unset {
                    variable: "DIR".into(),
                    place: "argument".into(),
                    os: Os::Linux,
                },
            ]
        );
        assert!(
            sentence("API_TOKEN", "env `K`", Os::Linux).contains("mcpctl secret set API_TOKEN")
        );
        assert!(!sentence("DIR", "argument", Os::Linux).contains("secret"));
        let remote = Transport::Remote {
            url: "https://x.example/${TENANT}/mcp".into(),
            kind: RemoteKind::Http,
            headers: [("Authorization".to_owned(), "Bearer ${GH_TOKEN}".to_owned())].into(),
        };
        let places: Vec<_> = find(&remote, Os::Linux, &|n| {
            (n == "TENANT").then(|| "t".to_owned())
        })
        .into_iter()
        .map(|u| u.place)
        .collect();
        assert_eq!(places, ["header `Authorization`"]);
    }
}
