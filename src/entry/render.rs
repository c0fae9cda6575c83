//! Per-client rendering: a canonical entry as one client on one platform must spell it
//! (Windows `cmd /c` wrapping, the client's variable syntax, its dialect), and its
//! inverse, [`portable_entry`], which takes a client's entry back to the portable form a
//! manifest holds. `add`, `copy`, registry installs and `apply` all render through here.
//! This module never reads files or the environment: the platform is a value.

use serde_json::Value;

use crate::clients::{Client, Fields};
use crate::entry::{self, Dialect, ServerEntry, Transport};
use crate::error::UserError;
use crate::platform::Os;
use crate::vars::{self, VarSyntax};

/// An entry as `client` on the target platform must spell it: Windows wrapping, variable
/// syntax, dialect. Returns the entry as rendered (canonical), the client's raw entry, and
/// warnings. `add`, `copy` and `apply` all render through here.
pub fn render(
    os: Os,
    client: &Client,
    entry: &ServerEntry,
    no_wrap: bool,
) -> anyhow::Result<(ServerEntry, Value, Vec<String>)> {
    // What the client does with the entry (issue 21): refuse what it cannot use.
    let loading_notes = crate::entry::loading::before_write(client, entry).map_err(|why| {
        UserError::new(why).hint(
            "write the value itself, or target a client that expands variables; nothing was written",
        )
    })?;
    let entry = for_platform(entry, os, &client.fields, no_wrap);
    let (entry, mut notes, literal) = for_client_vars(entry, client);
    notes.extend(loading_notes);
    if let Transport::Stdio { command, args, .. } = &entry.transport
        && entry::is_wrapped(command, args)
    {
        let risky = entry::cmd_metachar_args(args);
        if !risky.is_empty() {
            notes.push(format!(
                "`cmd /c` re-reads {} for cmd.exe's special characters (& | < > ^ % ! \"), which can break or change the command; \
                 consider `node <path-to-the-package's-bin.js>` instead of the shim",
                risky.iter().map(|a| format!("`{a}`")).collect::<Vec<_>>().join(", ")
            ));
        }
    }
    // Codex, Goose: a reference no pass-through field carries would stay literal text.
    if let Some(refused) = literal {
        let hint = if client.fields.var_syntax == Some(VarSyntax::Goose) {
            "reference a variable of the same name (`-e X='${X}'`, passed through Goose's `env_keys`) and set it where Goose starts, or write the value itself"
        } else {
            "reference a variable of the same name (`-e X='${X}'`, passed through `env_vars`; headers through `env_http_headers`) and set it where Codex starts, or write the value itself"
        };
        return Err(UserError::new(refused).hint(hint).into());
    }
    let raw = Dialect::of(client)
        .to_raw(&entry)
        .map_err(|e| entry_error(e, client))?;
    Ok((entry, raw, notes))
}

pub(crate) fn entry_error(e: entry::EntryError, client: &Client) -> anyhow::Error {
    let hint = match &e {
        entry::EntryError::Unsupported { hint: Some(h), .. } => h.clone(),
        entry::EntryError::Unsupported { .. } => format!(
            "{} supports: {}",
            client.name,
            client
                .fields
                .transports
                .iter()
                .map(|t| t.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        _ => "fix the entry and run the command again".to_owned(),
    };
    UserError::new(e.to_string()).hint(hint).into()
}

/// Spell `${VAR}` references the way the client expands them (`${env:VAR}` for Cursor
/// and VS Code, `{env:VAR}` for OpenCode). Codex expands none; its dialect turns
/// whole-value references into pass-through fields (`env_vars`, `env_http_headers`,
/// `bearer_token_env_var`). Returns what cannot be said in the client's terms, as
/// warnings, and for Codex the references no pass-through field can carry, as the
/// message `render` refuses them with.
fn for_client_vars(
    mut entry: ServerEntry,
    client: &Client,
) -> (ServerEntry, Vec<String>, Option<String>) {
    let mut notes = Vec::new();
    let env_refs = |s: &str| {
        vars::references(s)
            .into_iter()
            .any(|r| r.syntax != vars::Syntax::Input)
    };
    let any_ref = entry.transport.strings().into_iter().any(|s| env_refs(s));
    // A client that expands nothing got past `loading::before_write` only with references
    // its dialect carries as variable names (Mistral Vibe's `api_key_env`).
    if !any_ref || client.loading.expands == Some(false) {
        return (entry, notes, None);
    }
    let Some(syntax) = client.fields.var_syntax else {
        notes.push(format!(
            "mcpctl does not know whether {} expands `${{VAR}}` references; they are written as given",
            client.name
        ));
        return (entry, notes, None);
    };
    if syntax == VarSyntax::Goose {
        each_string(&mut entry, &mut |s| *s = vars::respell(s, syntax));
        let refused = goose_literal(&entry, &env_refs);
        return (entry, notes, refused);
    }
    if syntax != VarSyntax::Codex {
        each_string(&mut entry, &mut |s| *s = vars::respell(s, syntax));
        return (entry, notes, None);
    }
    // Codex: no expansion at all. The dialect turns whole-value references to a variable
    // (of the same name, for env) into pass-through fields; anything else stays literal.
    let passes = |s: &str| vars::sole_reference(s).is_some();
    let mut literal = Vec::new();
    match &entry.transport {
        Transport::Stdio {
            command, args, env, ..
        } => {
            literal.extend(
                env.iter()
                    .filter(|(k, v)| {
                        env_refs(v) && vars::sole_reference(v).as_deref() != Some(k.as_str())
                    })
                    .map(|(k, _)| format!("env `{k}`")),
            );
            literal.extend(
                std::iter::once(command)
                    .chain(args)
                    .filter(|s| env_refs(s))
                    .map(|s| format!("`{s}`")),
            );
        }
        Transport::Remote { url, headers, .. } => {
            literal.extend(
                headers
                    .iter()
                    .filter(|(k, v)| {
                        let bearer = k.eq_ignore_ascii_case("authorization")
                            && v.strip_prefix("Bearer ").is_some_and(passes);
                        env_refs(v) && !passes(v) && !bearer
                    })
                    .map(|(k, _)| format!("header `{k}`")),
            );
            if env_refs(url) {
                literal.push("the URL".to_owned());
            }
        }
    }
    // Written, the text would stay literal (and `plan` would call it in sync).
    let refused = (!literal.is_empty()).then(|| {
        format!(
            "Codex expands no variables, and has no pass-through field for {}: it would hold the `${{...}}` text literally",
            literal.join(", ")
        )
    });
    (entry, notes, refused)
}

/// Goose expands no `${VAR}` in `envs`, `args`, `cmd` or `uri`: an env value that is a
/// reference to its own name passes through `env_keys`, a header's `${VAR}` is expanded
/// from those; anything else would reach the server as the `${...}` text. Returns the
/// message `render` refuses such an entry with.
fn goose_literal(entry: &ServerEntry, env_refs: &dyn Fn(&str) -> bool) -> Option<String> {
    let mut literal = Vec::new();
    match &entry.transport {
        Transport::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            literal.extend(
                env.iter()
                    .filter(|(k, v)| {
                        env_refs(v) && vars::sole_reference(v).as_deref() != Some(k.as_str())
                    })
                    .map(|(k, _)| format!("env `{k}`")),
            );
            literal.extend(
                std::iter::once(command)
                    .chain(args)
                    .chain(cwd)
                    .filter(|s| env_refs(s))
                    .map(|s| format!("`{s}`")),
            );
        }
        Transport::Remote { url, headers, .. } => {
            literal.extend(
                headers
                    .iter()
                    .filter(|(_, v)| vars::references(v).iter().any(|r| r.default.is_some()))
                    .map(|(k, _)| format!("header `{k}` (Goose has no `:-default`)")),
            );
            if env_refs(url) {
                literal.push("the URL".to_owned());
            }
        }
    }
    (!literal.is_empty()).then(|| {
        format!(
            "Goose expands no variables in {}: it would hold the `${{...}}` text literally",
            literal.join(", ")
        )
    })
}

/// Wrap npm-style shims as `cmd /c` for Windows targets that need it.
pub fn for_platform(entry: &ServerEntry, os: Os, fields: &Fields, no_wrap: bool) -> ServerEntry {
    let mut entry = entry.clone();
    if os == Os::Windows
        && fields.wrap_windows
        && !no_wrap
        && let Transport::Stdio { command, args, .. } = &mut entry.transport
    {
        // mcpctl's launcher is a real executable: what it starts is wrapped instead.
        if let Some(launched) = crate::entry::launcher::map_server(command, args, entry::wrap) {
            *args = launched;
        } else {
            let (c, a) = entry::wrap(command, args);
            *command = c;
            *args = a;
        }
    }
    entry
}

/// VS Code's `${input:id}` prompts exist only where `var_syntax = "vscode"`; elsewhere each
/// becomes a variable reference (see [`inputs_to_variables`]). Returns the entry and the
/// prompts translated, each with its variable. `add`, `apply` and `import` all go through
/// here.
pub fn for_client_inputs(
    entry: &ServerEntry,
    client: &Client,
) -> (ServerEntry, Vec<(String, String)>) {
    let mut entry = entry.clone();
    if client.fields.var_syntax == Some(VarSyntax::Vscode) {
        return (entry, Vec::new());
    }
    let prompts = inputs_to_variables(&mut entry);
    (entry, prompts)
}

/// Every `${input:id}` of `entry` replaced by a variable reference; the prompts replaced,
/// in order, each with its variable. A prompt that is the whole value of an env key
/// (`GITHUB_TOKEN = "${input:token}"`) becomes the variable of that name, the one the
/// server's README names and the one a client that passes variables through by name
/// (Codex's `env_vars`) can take; any other prompt becomes `vars::input_variable(id)`.
pub fn inputs_to_variables(entry: &mut ServerEntry) -> Vec<(String, String)> {
    let mut fed: Vec<(String, String)> = Vec::new();
    if let Transport::Stdio { env, .. } = &entry.transport {
        for (key, value) in env {
            if let [r] = vars::references(value).as_slice()
                && r.syntax == vars::Syntax::Input
                && r.text == value.as_str()
                && vars::is_variable_name(key)
                && !fed.iter().any(|(id, _)| *id == r.name)
            {
                fed.push((r.name.clone(), key.clone()));
            }
        }
    }
    let variable = |id: &str| {
        fed.iter()
            .find(|(i, _)| i == id)
            .map_or_else(|| vars::input_variable(id), |(_, v)| v.clone())
    };
    let mut prompts: Vec<(String, String)> = Vec::new();
    each_string(entry, &mut |s| {
        let (text, found) = vars::inputs_to_variables(s, &variable);
        *s = text;
        for id in found {
            if !prompts.iter().any(|(i, _)| *i == id) {
                let var = variable(&id);
                prompts.push((id, var));
            }
        }
    });
    prompts
}

/// Apply `f` to every string of an entry that may hold a reference.
pub(crate) fn each_string(entry: &mut ServerEntry, f: &mut dyn FnMut(&mut String)) {
    match &mut entry.transport {
        Transport::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            f(command);
            args.iter_mut().for_each(&mut *f);
            env.values_mut().for_each(&mut *f);
            cwd.iter_mut().for_each(&mut *f);
        }
        Transport::Remote { url, headers, .. } => {
            f(url);
            headers.values_mut().for_each(&mut *f);
        }
    }
}

/// Variable spellings made portable: `${env:X}` and `{env:X}` become `${X}`.
pub fn portable(text: &str) -> String {
    vars::respell(text, VarSyntax::Shell)
}

/// An entry as a client spells it, made portable (logical command, `${VAR}` references).
pub fn portable_entry(entry: &ServerEntry) -> ServerEntry {
    let mut entry = entry.clone();
    match &mut entry.transport {
        Transport::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            let (c, a, _) = entry::logical(command, args);
            *command = portable(&c);
            *args = a.iter().map(|s| portable(s)).collect();
            env.values_mut().for_each(|v| *v = portable(v));
            if let Some(cwd) = cwd {
                *cwd = portable(cwd);
            }
        }
        Transport::Remote { url, headers, .. } => {
            *url = portable(url);
            headers.values_mut().for_each(|v| *v = portable(v));
        }
    }
    entry
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clients::ClientTable;
    use crate::entry::StringMap;

    fn portable_server() -> ServerEntry {
        ServerEntry {
            transport: Transport::Stdio {
                command: "npx".to_owned(),
                args: vec!["-y".to_owned(), "@scope/server".to_owned()],
                env: StringMap::from([("TOKEN".to_owned(), "${TOKEN}".to_owned())]),
                cwd: None,
            },
            extras: serde_json::Map::new(),
        }
    }

    /// `portable_entry` inverts `render`: wrapping and variable spelling go, the portable
    /// entry comes back, for every client that can take a stdio entry, on every OS.
    #[test]
    fn portable_entry_undoes_render_for_every_client_and_os() {
        let table = ClientTable::builtin().unwrap();
        let portable = portable_server();
        let mut checked = 0;
        for client in table.all() {
            for os in [Os::Linux, Os::Macos, Os::Windows] {
                let Ok((rendered, _, _)) = render(os, client, &portable, false) else {
                    continue;
                };
                // Codex turns whole-value env references into pass-through fields in
                // its dialect, not in the canonical entry: the round trip still holds.
                assert_eq!(
                    portable_entry(&rendered),
                    portable,
                    "{} on {os:?} rendered {rendered:?}",
                    client.id
                );
                checked += 1;
            }
        }
        assert!(checked > 20, "only {checked} renders checked");
    }

    /// The rendered entry really is the client's: `cmd /c` on Windows, `${env:X}` for
    /// Cursor.
    #[test]
    fn render_wraps_for_windows_and_respells_for_cursor() {
        let table = ClientTable::builtin().unwrap();
        let cursor = table.get("cursor").unwrap();
        let (rendered, _, _) = render(Os::Windows, cursor, &portable_server(), false).unwrap();
        let Transport::Stdio {
            command, args, env, ..
        } = &rendered.transport
        else {
            panic!("not stdio: {rendered:?}");
        };
        assert_eq!(command, "cmd");
        assert_eq!(args[..2], ["/c".to_owned(), "npx".to_owned()]);
        assert_eq!(env["TOKEN"], "${env:TOKEN}");
        let (linux, _, _) = render(Os::Linux, cursor, &portable_server(), false).unwrap();
        assert!(matches!(&linux.transport, Transport::Stdio { command, .. } if command == "npx"));
    }
}
