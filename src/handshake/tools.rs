//! Tool definitions as a server lists them: the token estimate of what they add to a
//! client's context, and the arguments of a `tools/call` typed by the tool's input schema.
//!
//! Pure functions over `serde_json` values; never does I/O.

use serde_json::{Map, Value};

use super::ProbeError;
use super::jsonrpc::quote;

/// How the token estimate is made, for people and `--json`.
pub const TOKEN_METHOD: &str = "bytes of the tool definitions as compact JSON / 4";

/// A `tools/call` to make after listing.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolCall {
    /// The tool's name.
    pub tool: String,
    /// `--arg K=V` pairs, in order; typed by the schema, they override `json`.
    pub args: Vec<(String, String)>,
    /// `--args JSON`: the starting arguments object.
    pub json: Map<String, Value>,
}

/// Estimated tokens the definitions add to a client's context: [`TOKEN_METHOD`].
#[must_use]
pub fn estimate_tokens(definitions: &[Value]) -> usize {
    if definitions.is_empty() {
        return 0;
    }
    let bytes = serde_json::to_string(definitions).map_or(0, |text| text.len());
    bytes.div_ceil(4)
}

/// Each tool's own estimate ([`TOKEN_METHOD`] over its definition alone), in order.
#[must_use]
pub fn per_tool_tokens(definitions: &[Value]) -> Vec<crate::state::tokens::ToolTokens> {
    definitions
        .iter()
        .map(|d| crate::state::tokens::ToolTokens {
            name: name_of(d).to_owned(),
            tokens: estimate_tokens(std::slice::from_ref(d)),
            meta_true: d
                .get("_meta")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
                .filter(|(_, v)| **v == Value::Bool(true))
                .map(|(k, _)| k.clone())
                .collect(),
        })
        .collect()
}

/// The tool's name, or `(unnamed)`.
#[must_use]
pub fn name_of(definition: &Value) -> &str {
    definition
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or("(unnamed)")
}

/// The `arguments` object for `call`: `--args` with every `--arg` laid over it, each
/// value typed by the tool's `inputSchema`; required parameters must all be there.
pub(crate) fn arguments(call: &ToolCall, definitions: &[Value]) -> Result<Value, ProbeError> {
    let Some(tool) = definitions.iter().find(|d| name_of(d) == call.tool) else {
        let mut names: Vec<String> = definitions.iter().map(|d| quote(name_of(d))).collect();
        names.sort();
        return Err(ProbeError::UnknownTool {
            tool: quote(&call.tool),
            available: names,
        });
    };
    let schema = tool.get("inputSchema");
    let properties = schema
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object);
    let closed = schema
        .and_then(|s| s.get("additionalProperties"))
        .is_some_and(|a| *a == Value::Bool(false));
    let mut arguments = call.json.clone();
    for (key, raw) in &call.args {
        let property = properties.and_then(|p| p.get(key));
        // A key the tool does not take, near one it does: a typo, not an extra.
        if property.is_none()
            && let Some(meant) =
                properties.and_then(|p| crate::suggest::closest(key, p.keys().map(String::as_str)))
        {
            return Err(ProbeError::BadArgument {
                reason: format!(
                    "unknown argument `{}`, did you mean `{}`? (`{}` takes: {})",
                    quote(key),
                    quote(meant),
                    quote(&call.tool),
                    list(properties.map(|p| p.keys().map(|k| quote(k)).collect()))
                ),
            });
        }
        if property.is_none() && closed {
            return Err(ProbeError::BadArgument {
                reason: format!(
                    "`{}` has no parameter `{}` (it takes: {})",
                    quote(&call.tool),
                    quote(key),
                    list(properties.map(|p| p.keys().map(|k| quote(k)).collect()))
                ),
            });
        }
        arguments.insert(key.clone(), typed(key, raw, property)?);
    }
    let missing: Vec<String> = schema
        .and_then(|s| s.get("required"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter(|name| !arguments.contains_key(*name))
        .map(quote)
        .collect();
    if !missing.is_empty() {
        return Err(ProbeError::BadArgument {
            reason: format!(
                "`{}` needs {} (pass each with --arg NAME=VALUE)",
                quote(&call.tool),
                missing
                    .iter()
                    .map(|m| format!("`{m}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        });
    }
    Ok(Value::Object(arguments))
}

fn list(names: Option<Vec<String>>) -> String {
    match names {
        Some(names) if !names.is_empty() => names.join(", "),
        _ => "nothing".to_owned(),
    }
}

/// The JSON types a schema allows, first non-null first.
fn schema_types(property: &Value) -> Vec<&str> {
    let mut types: Vec<&str> = match property.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    types.sort_by_key(|t| *t == "null");
    types
}

/// `raw` as the value the schema asks for: numbers, booleans and JSON parsed, strings
/// kept as given; a parameter without a type takes JSON when it parses, else the string.
fn typed(key: &str, raw: &str, property: Option<&Value>) -> Result<Value, ProbeError> {
    let types = property.map(schema_types).unwrap_or_default();
    let bad = |what: &str| ProbeError::BadArgument {
        reason: format!("--arg {}: `{}` is not {what}", quote(key), quote(raw)),
    };
    let Some(first) = types.first() else {
        return Ok(serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.to_owned())));
    };
    if types.contains(&"string") {
        return Ok(Value::String(raw.to_owned()));
    }
    match *first {
        "integer" => raw
            .trim()
            .parse::<i64>()
            .map(Value::from)
            .map_err(|_| bad("an integer")),
        "number" => match serde_json::from_str::<Value>(raw.trim()) {
            Ok(Value::Number(n)) => Ok(Value::Number(n)),
            _ => Err(bad("a number")),
        },
        "boolean" => match raw.trim() {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            _ => Err(bad("`true` or `false`")),
        },
        "null" => match raw.trim() {
            "null" => Ok(Value::Null),
            _ => Err(bad("`null`")),
        },
        "array" => match serde_json::from_str::<Value>(raw) {
            Ok(value @ Value::Array(_)) => Ok(value),
            _ => Err(bad("a JSON array")),
        },
        "object" => match serde_json::from_str::<Value>(raw) {
            Ok(value @ Value::Object(_)) => Ok(value),
            _ => Err(bad("a JSON object")),
        },
        _ => Ok(serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.to_owned()))),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn definitions() -> Vec<Value> {
        vec![
            json!({"name": "add", "inputSchema": {"type": "object",
                "properties": {"a": {"type": "integer"}, "b": {"type": "number"},
                               "loud": {"type": "boolean"}, "tags": {"type": "array"},
                               "opts": {"type": "object"}, "note": {"type": ["string", "null"]},
                               "any": {}},
                "required": ["a"], "additionalProperties": false}}),
            json!({"name": "echo", "inputSchema": {"type": "object"}}),
        ]
    }

    fn call(tool: &str, args: &[(&str, &str)]) -> ToolCall {
        ToolCall {
            tool: tool.into(),
            args: args
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
            json: Map::new(),
        }
    }

    #[test]
    fn args_are_typed_by_the_schema() {
        let args = arguments(
            &call(
                "add",
                &[
                    ("a", "2"),
                    ("b", "1.5"),
                    ("loud", "true"),
                    ("tags", r#"["x"]"#),
                    ("opts", r#"{"k":1}"#),
                    ("note", "42"),
                    ("any", "[1]"),
                ],
            ),
            &definitions(),
        )
        .unwrap();
        assert_eq!(
            args,
            json!({"a": 2, "b": 1.5, "loud": true, "tags": ["x"], "opts": {"k": 1},
                   "note": "42", "any": [1]})
        );
        // No schema for the key: JSON when it parses, else the string.
        let args = arguments(&call("echo", &[("m", "hi"), ("n", "3")]), &definitions()).unwrap();
        assert_eq!(args, json!({"m": "hi", "n": 3}));
    }

    #[test]
    fn bad_values_unknown_and_missing_parameters_are_refused() {
        let defs = definitions();
        let error = arguments(&call("add", &[("a", "two")]), &defs).unwrap_err();
        assert!(
            error.to_string().contains("`two` is not an integer"),
            "{error}"
        );
        let error = arguments(&call("add", &[("a", "1"), ("zzz", "1")]), &defs).unwrap_err();
        assert!(error.to_string().contains("no parameter `zzz`"), "{error}");
        let error = arguments(&call("add", &[("b", "1")]), &defs).unwrap_err();
        assert!(error.to_string().contains("needs `a`"), "{error}");
        let error = arguments(&call("nope", &[]), &defs).unwrap_err();
        assert_eq!(
            error,
            ProbeError::UnknownTool {
                tool: "nope".into(),
                available: vec!["add".into(), "echo".into()]
            }
        );
    }

    #[test]
    fn args_json_is_the_base_and_arg_overrides_it() {
        let mut c = call("add", &[("a", "5")]);
        c.json = json!({"a": 1, "b": 2}).as_object().unwrap().clone();
        assert_eq!(
            arguments(&c, &definitions()).unwrap(),
            json!({"a": 5, "b": 2})
        );
    }

    #[test]
    fn tokens_are_bytes_over_four() {
        assert_eq!(estimate_tokens(&[]), 0);
        let defs = vec![json!({"name": "abcd"})]; // [{"name":"abcd"}] = 17 bytes
        assert_eq!(estimate_tokens(&defs), 5);
    }
}
