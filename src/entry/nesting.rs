//! Entry shapes that keep some modelled fields one level down, as the client itself
//! writes them. Both are raw-to-raw steps around the flat reading and writing in
//! `entry.rs`: [`lift`] before reading, [`lower`] after writing.
//!
//! - `fields.nest_key` (Cline CLI 3: `transport`): the transport's fields sit in an
//!   object of their own, `{"transport": {"type": "stdio", "command": …}, "disabled": …}`.
//!   `cline mcp add` writes this shape; Cline still reads the flat one too.
//! - `fields.auth_key` (Mistral Vibe: `auth`): a remote entry's headers sit in a static
//!   auth table, `[mcp_servers.auth] type = "static"` with `[mcp_servers.auth.headers]`,
//!   and `api_key_env = "VAR"` sends `api_key_header: api_key_format` with `{token}` = the
//!   variable's value (defaults `Authorization` and `Bearer {token}`). Vibe also reads
//!   those keys at the top of the entry (its legacy shape) but refuses a mix of both. A
//!   variable is the only way Vibe resolves anything, so a header that is one `${VAR}`
//!   reference is written as `api_key_env`.

use serde_json::{Map, Value};

use crate::clients::Fields;
use crate::entry::{EntryError, StringMap};

/// Vibe's static-auth keys besides `headers`, as it spells them.
const API_KEY_ENV: &str = "api_key_env";
const API_KEY_HEADER: &str = "api_key_header";
const API_KEY_FORMAT: &str = "api_key_format";
const DEFAULT_HEADER: &str = "Authorization";
const DEFAULT_FORMAT: &str = "Bearer {token}";
const STATIC: &str = "static";

/// The entry as the flat reader expects it, or `None` when it is flat already.
pub(crate) fn lift(
    map: &Map<String, Value>,
    f: &Fields,
) -> Result<Option<Map<String, Value>>, EntryError> {
    let mut lifted = None;
    if let Some(nest) = f.nest_key.as_deref()
        && let Some(Value::Object(inner)) = map.get(nest)
    {
        // The nested fields win, as in Cline (its nested schema is tried first).
        let mut out = inner.clone();
        for (k, v) in map {
            if k != nest && !out.contains_key(k) {
                out.insert(k.clone(), v.clone());
            }
        }
        lifted = Some(out);
    }
    if let Some(auth) = f.auth_key.as_deref() {
        let base = lifted.as_ref().unwrap_or(map);
        if let Some(out) = lift_auth(base, auth, &f.headers_key)? {
            lifted = Some(out);
        }
    }
    Ok(lifted)
}

fn lift_auth(
    map: &Map<String, Value>,
    auth_key: &str,
    headers_key: &str,
) -> Result<Option<Map<String, Value>>, EntryError> {
    let legacy: Vec<&str> = [headers_key, API_KEY_ENV, API_KEY_HEADER, API_KEY_FORMAT]
        .into_iter()
        .filter(|k| map.contains_key(*k))
        .collect();
    let table = match map.get(auth_key) {
        Some(Value::Object(table)) => {
            if !legacy.is_empty() {
                return Err(EntryError::Mixed {
                    outer: legacy
                        .iter()
                        .map(|k| format!("`{k}`"))
                        .collect::<Vec<_>>()
                        .join(", "),
                    table: auth_key.to_owned(),
                });
            }
            match table.get("type") {
                None => table.clone(),
                Some(Value::String(t)) if t == STATIC => table.clone(),
                // OAuth (or a kind mcpctl does not know): kept as it is.
                Some(_) => return Ok(None),
            }
        }
        Some(_) => return Ok(None),
        None if legacy.iter().any(|k| *k != headers_key) => legacy
            .iter()
            .map(|k| ((*k).to_owned(), map[*k].clone()))
            .map(|(k, v)| {
                if k == headers_key {
                    ("headers".to_owned(), v)
                } else {
                    (k, v)
                }
            })
            .collect(),
        // Only top-level `headers`: the flat reader reads them.
        None => return Ok(None),
    };
    let mut headers = match table.get("headers") {
        None => Map::new(),
        Some(Value::Object(h)) => h.clone(),
        Some(other) => {
            return Err(EntryError::WrongType {
                field: format!("{auth_key}.headers"),
                found: crate::formats::kind_of(other),
                expected: "an object of strings",
            });
        }
    };
    if let Some(Value::String(var)) = table.get(API_KEY_ENV)
        && !var.is_empty()
    {
        let header = table
            .get(API_KEY_HEADER)
            .and_then(Value::as_str)
            .unwrap_or(DEFAULT_HEADER);
        let format = table
            .get(API_KEY_FORMAT)
            .and_then(Value::as_str)
            .unwrap_or(DEFAULT_FORMAT);
        if !headers.keys().any(|h| h.eq_ignore_ascii_case(header)) {
            headers.insert(
                header.to_owned(),
                Value::String(format.replace("{token}", &format!("${{{var}}}"))),
            );
        }
    }
    let mut out = Map::new();
    for (k, v) in map {
        if k == auth_key {
            if !headers.is_empty() {
                out.insert(headers_key.to_owned(), Value::Object(headers.clone()));
            }
        } else if !legacy.contains(&k.as_str()) {
            out.insert(k.clone(), v.clone());
        }
    }
    if !map.contains_key(auth_key) && !headers.is_empty() {
        out.insert(headers_key.to_owned(), Value::Object(headers));
    }
    Ok(Some(out))
}

/// The header Vibe's `api_key_env` carries among `headers`: the first whose value is one
/// `${VAR}` reference with literal text around it (`Bearer ${TOKEN}`), as (header name,
/// variable, format with `{token}`).
pub fn carried_header(headers: &StringMap) -> Option<(&str, String, String)> {
    headers.iter().find_map(|(name, value)| {
        let refs = crate::vars::references(value);
        let [one] = refs.as_slice() else { return None };
        if one.syntax == crate::vars::Syntax::Input {
            return None;
        }
        let spelled = format!("${{{}}}", one.name);
        let format = value.replacen(&spelled, "{token}", 1);
        (format.matches('{').count() == 1
            && format.matches('}').count() == 1
            && value.contains(&spelled))
        .then(|| (name.as_str(), one.name.clone(), format))
    })
}

/// The flat entry `out` in the client's nested shape. `transport_keys` are the keys the
/// flat writer used for the transport's fields.
pub(crate) fn lower(
    out: Map<String, Value>,
    f: &Fields,
    transport_keys: &[&str],
) -> Map<String, Value> {
    let out = match f.auth_key.as_deref() {
        Some(auth) => lower_auth(out, auth, &f.headers_key),
        None => out,
    };
    let Some(nest) = f.nest_key.as_deref() else {
        return out;
    };
    let (inner, rest): (Map<String, Value>, Map<String, Value>) = out
        .into_iter()
        .partition(|(k, _)| transport_keys.contains(&k.as_str()));
    let mut nested = Map::new();
    nested.insert(nest.to_owned(), Value::Object(inner));
    nested.extend(rest);
    nested
}

fn lower_auth(out: Map<String, Value>, auth_key: &str, headers_key: &str) -> Map<String, Value> {
    let mut result = Map::new();
    for (k, v) in out {
        if k != headers_key {
            result.insert(k, v);
            continue;
        }
        let Value::Object(raw) = v else {
            result.insert(k, v);
            continue;
        };
        let headers: StringMap = raw
            .iter()
            .map(|(h, v)| {
                (
                    h.clone(),
                    v.as_str().map_or_else(|| v.to_string(), str::to_owned),
                )
            })
            .collect();
        let mut table = Map::new();
        table.insert("type".to_owned(), Value::String(STATIC.to_owned()));
        let carried = carried_header(&headers).map(|(h, var, format)| (h.to_owned(), var, format));
        if let Some((header, var, format)) = &carried {
            table.insert(API_KEY_ENV.to_owned(), Value::String(var.clone()));
            if header != DEFAULT_HEADER {
                table.insert(API_KEY_HEADER.to_owned(), Value::String(header.clone()));
            }
            if format != DEFAULT_FORMAT {
                table.insert(API_KEY_FORMAT.to_owned(), Value::String(format.clone()));
            }
        }
        let literal: Map<String, Value> = raw
            .into_iter()
            .filter(|(h, _)| carried.as_ref().is_none_or(|(c, _, _)| c != h))
            .collect();
        if !literal.is_empty() {
            table.insert("headers".to_owned(), Value::Object(literal));
        }
        result.insert(auth_key.to_owned(), Value::Object(table));
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clients::ClientTable;
    use crate::entry::{Dialect, RemoteKind, Transport};
    use serde_json::json;

    fn dialect(id: &str) -> (ClientTable, String) {
        (ClientTable::builtin().unwrap(), id.to_owned())
    }

    #[test]
    fn cline_cli_reads_and_writes_the_nested_transport_its_own_add_writes() {
        let (table, id) = dialect("cline-cli");
        let d = Dialect::of(table.get(&id).unwrap());
        // What `cline mcp add --yes` 3.0.65 writes.
        let stdio = json!({"transport": {"type": "stdio", "command": "node", "args": ["/srv/m.js"], "env": {"K": "v"}}, "disabled": true});
        let entry = d.read_raw(&stdio).unwrap();
        assert!(matches!(&entry.transport, Transport::Stdio { command, .. } if command == "node"));
        assert_eq!(d.to_raw(&entry).unwrap(), stdio);
        let remote = json!({"transport": {"type": "streamableHttp", "url": "https://x/mcp", "headers": {"A": "b"}}});
        let entry = d.read_raw(&remote).unwrap();
        assert!(matches!(
            &entry.transport,
            Transport::Remote {
                kind: RemoteKind::Http,
                ..
            }
        ));
        assert_eq!(d.to_raw(&entry).unwrap(), remote);
        // The flat shape of Cline 2 and the extension still reads.
        let flat = d
            .read_raw(&json!({"type": "sse", "url": "https://x/sse"}))
            .unwrap();
        assert!(matches!(
            flat.transport,
            Transport::Remote {
                kind: RemoteKind::Sse,
                ..
            }
        ));
    }

    #[test]
    fn vibe_headers_and_api_key_env_under_auth_read_as_headers_and_write_back() {
        let (table, id) = dialect("mistral-vibe");
        let d = Dialect::of(table.get(&id).unwrap());
        // What `vibe mcp add --header X-Api-Key=k --api-key-env WEB_KEY` 3.0.2 writes.
        let raw = json!({"url": "https://x/mcp", "transport": "http",
                         "auth": {"type": "static", "api_key_env": "WEB_KEY", "headers": {"X-Api-Key": "k"}}});
        let entry = d.read_raw(&raw).unwrap();
        let Transport::Remote { headers, .. } = &entry.transport else {
            unreachable!()
        };
        assert_eq!(headers["X-Api-Key"], "k");
        assert_eq!(headers["Authorization"], "Bearer ${WEB_KEY}");
        assert!(entry.extras.is_empty(), "{:?}", entry.extras);
        assert_eq!(
            d.to_raw(&entry).unwrap(),
            json!({"transport": "http", "url": "https://x/mcp",
                   "auth": {"type": "static", "api_key_env": "WEB_KEY", "headers": {"X-Api-Key": "k"}}})
        );
        // A key in another header, another format; the legacy top-level keys.
        let legacy = json!({"url": "https://x/mcp", "transport": "http", "api_key_env": "K", "api_key_header": "X-Key", "api_key_format": "{token}"});
        let entry = d.read_raw(&legacy).unwrap();
        let Transport::Remote { headers, .. } = &entry.transport else {
            unreachable!()
        };
        assert_eq!(headers["X-Key"], "${K}");
        assert_eq!(
            d.to_raw(&entry).unwrap()["auth"],
            json!({"type": "static", "api_key_env": "K", "api_key_header": "X-Key", "api_key_format": "{token}"})
        );
        // Vibe refuses a mix; OAuth stays as it is.
        assert!(matches!(
            d.read_raw(&json!({"url": "https://x", "transport": "http", "headers": {"A": "b"}, "auth": {"type": "static"}})),
            Err(EntryError::Mixed { .. })
        ));
        let oauth = json!({"url": "https://x", "transport": "http", "auth": {"type": "oauth", "scopes": []}});
        assert_eq!(d.to_raw(&d.read_raw(&oauth).unwrap()).unwrap(), oauth);
    }
}
