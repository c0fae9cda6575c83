//! JSON-RPC 2.0 framing for the handshake: builds the few messages mcpctl sends and sorts
//! what a server sends into responses, server requests, notifications and junk.
//!
//! Pure functions over strings and `serde_json` values; never does I/O.

use serde_json::{Value, json};

/// Longest stretch of a bad line quoted back in a report, in characters.
pub(crate) const QUOTE_CHARS: usize = 200;

/// A JSON-RPC error object from a server; `message` is already quoted (bounded, escaped).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RpcError {
    pub(crate) code: i64,
    pub(crate) message: String,
    pub(crate) data: Option<Value>,
}

/// One message (or non-message) read from a server.
#[derive(Debug, PartialEq)]
pub(crate) enum Incoming {
    /// A response: `Ok(result)` or `Err(error)`.
    Response {
        id: Value,
        outcome: Result<Value, RpcError>,
    },
    /// A request from the server (`ping`, `roots/list`, `sampling/createMessage`, ...).
    Request { id: Value, method: String },
    /// A notification (`notifications/message`, `notifications/tools/list_changed`, ...).
    Notification,
    /// Not JSON, or JSON that is not a JSON-RPC message; carries the quoted line.
    Invalid(String),
}

pub(crate) fn parse(line: &str) -> Incoming {
    let Ok(Value::Object(message)) = serde_json::from_str::<Value>(line) else {
        return Incoming::Invalid(quote(line));
    };
    let id = message.get("id").cloned();
    let method = message.get("method").and_then(Value::as_str);
    match (id, method) {
        (Some(id), Some(method)) => Incoming::Request {
            id,
            method: method.to_owned(),
        },
        (None, Some(_)) => Incoming::Notification,
        (Some(id), None) => {
            if let Some(result) = message.get("result") {
                Incoming::Response {
                    id,
                    outcome: Ok(result.clone()),
                }
            } else if let Some(error) = message.get("error") {
                Incoming::Response {
                    id,
                    outcome: Err(rpc_error(error)),
                }
            } else {
                Incoming::Invalid(quote(line))
            }
        }
        (None, None) => Incoming::Invalid(quote(line)),
    }
}

/// The error object of a response, read leniently (a missing code is 0).
pub(crate) fn rpc_error(error: &Value) -> RpcError {
    RpcError {
        code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
        message: quote(
            error
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("(no message)"),
        ),
        data: error.get("data").cloned(),
    }
}

pub(crate) fn request(id: u64, method: &str, params: &Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

pub(crate) fn notification(method: &str) -> String {
    json!({"jsonrpc": "2.0", "method": method}).to_string()
}

/// The capabilities mcpctl declares, as a real client does, so a server shows the tools
/// it shows clients: `roots` (there are none to share) and `elicitation` (always
/// declined; nobody is there to answer).
pub(crate) fn client_capabilities() -> Value {
    json!({"roots": {"listChanged": false}, "elicitation": {}})
}

/// What mcpctl answers a server's `method`, as a client that has nothing to share and
/// nobody to ask: `ping` an empty result (the spec requires a prompt answer, even
/// mid-handshake), `roots/list` an empty list, `elicitation/create` a decline; `None`
/// for anything else. The same answers go back in either era: as replies to requests
/// (handshake era) or as `inputResponses` (modern era).
pub(crate) fn answer_to_server(method: &str) -> Option<Value> {
    match method {
        "ping" => Some(json!({})),
        "roots/list" => Some(json!({"roots": []})),
        "elicitation/create" => Some(json!({"action": "decline"})),
        _ => None,
    }
}

/// The reply to a server's request ([`answer_to_server`]); anything mcpctl does not
/// answer is "method not found".
pub(crate) fn reply_to_server(id: &Value, method: &str) -> String {
    match answer_to_server(method) {
        Some(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string(),
        None => json!({"jsonrpc": "2.0", "id": id, "error": {
            "code": -32601,
            "message": format!("mcpctl does not handle `{method}`"),
        }})
        .to_string(),
    }
}

/// `text` cut to [`QUOTE_CHARS`] characters, control characters escaped.
pub(crate) fn quote(text: &str) -> String {
    let mut quoted: String = text
        .chars()
        .take(QUOTE_CHARS)
        .flat_map(char::escape_default)
        .collect();
    if text.chars().nth(QUOTE_CHARS).is_some() {
        quoted.push('…');
    }
    quoted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_messages() {
        assert_eq!(
            parse(r#"{"jsonrpc":"2.0","id":1,"result":{"a":1}}"#),
            Incoming::Response {
                id: json!(1),
                outcome: Ok(json!({"a":1}))
            }
        );
        assert_eq!(
            parse(r#"{"jsonrpc":"2.0","id":"x","error":{"code":-32602,"message":"bad"}}"#),
            Incoming::Response {
                id: json!("x"),
                outcome: Err(RpcError {
                    code: -32602,
                    message: "bad".into(),
                    data: None
                })
            }
        );
        assert_eq!(
            parse(r#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#),
            Incoming::Request {
                id: json!("p"),
                method: "ping".into()
            }
        );
        assert_eq!(
            parse(r#"{"jsonrpc":"2.0","method":"notifications/message","params":{}}"#),
            Incoming::Notification
        );
        assert_eq!(
            parse("Server started on stdio"),
            Incoming::Invalid("Server started on stdio".into())
        );
        assert_eq!(parse("42"), Incoming::Invalid("42".into()));
    }

    #[test]
    fn answers_ping_and_refuses_the_rest() {
        let ping: Value = serde_json::from_str(&reply_to_server(&json!(7), "ping")).unwrap();
        assert_eq!(ping, json!({"jsonrpc":"2.0","id":7,"result":{}}));
        let roots: Value =
            serde_json::from_str(&reply_to_server(&json!("r"), "roots/list")).unwrap();
        assert_eq!(roots["result"], json!({"roots": []}));
        let asked: Value =
            serde_json::from_str(&reply_to_server(&json!(2), "elicitation/create")).unwrap();
        assert_eq!(asked["result"]["action"], "decline");
        let other: Value =
            serde_json::from_str(&reply_to_server(&json!("s"), "sampling/createMessage")).unwrap();
        assert_eq!(other["error"]["code"], -32601);
    }

    #[test]
    fn quotes_are_bounded_and_escaped() {
        let long = "x".repeat(1000);
        assert_eq!(quote(&long).chars().count(), QUOTE_CHARS + 1);
        assert_eq!(quote("a\tb\u{1b}"), "a\\tb\\u{1b}");
    }
}
