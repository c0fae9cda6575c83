//! What a client does with an entry written to it, known before it is written: a client
//! that expands no variables passes `${VAR}` through as text; a client that blocks some
//! variables drops them from a server's env (the table's loading model,
//! `clients::loading`). Pure: no files, no environment.

use crate::clients::Client;
use crate::entry::{ServerEntry, Transport};
use crate::vars;

/// What `client` does with this entry that its writer should know, before it is written
/// (`add`, `copy`, `apply`): `Err` when the client cannot use it at all (it passes
/// `${VAR}` through literally), else the warnings.
pub fn before_write(client: &Client, entry: &ServerEntry) -> Result<Vec<String>, String> {
    let mut notes = Vec::new();
    if client.loading.expands == Some(false) {
        let names = references(client, &entry.transport);
        if !names.is_empty() {
            return Err(format!(
                "{} does not expand variables: the server would get the text `${{{}}}` instead of its value",
                client.name, names[0]
            ));
        }
    }
    if let Some(message) = dropped_env(client, &entry.transport) {
        notes.push(message);
    }
    Ok(notes)
}

/// The entry's env names the client drops before starting the server, as a message.
#[must_use]
pub fn dropped_env(client: &Client, transport: &Transport) -> Option<String> {
    let Transport::Stdio { env, .. } = transport else {
        return None;
    };
    let blocked = client.loading.blocked(env.keys());
    if blocked.is_empty() {
        return None;
    }
    Some(format!(
        "{} drops {} from a server's env (it blocks variables that change how programs start): the server starts without {}",
        client.name,
        blocked
            .iter()
            .map(|k| format!("`{k}`"))
            .collect::<Vec<_>>()
            .join(", "),
        if blocked.len() == 1 { "it" } else { "them" }
    ))
}

/// The `${VAR}` references in an entry's values (command, args, env, cwd; URL, headers)
/// that `client` would pass through literally: all of them, but the header its dialect
/// carries as a variable name of its own (Mistral Vibe's `api_key_env`).
fn references(client: &Client, transport: &Transport) -> Vec<String> {
    let carried = match transport {
        Transport::Remote { headers, .. } if client.fields.auth_key.is_some() => {
            super::carried_header(headers).map(|(header, ..)| &headers[header])
        }
        _ => None,
    };
    let strings = transport
        .strings()
        .into_iter()
        .filter(|s| carried.is_none_or(|c| !std::ptr::eq(*s, c)));
    let mut names: Vec<String> = Vec::new();
    for s in strings {
        for r in vars::references(s) {
            if r.syntax != vars::Syntax::Input && !names.contains(&r.name) {
                names.push(r.name);
            }
        }
    }
    names
}
