//! The lint tree of a TOML text, from toml_edit's spans. toml_edit rejects duplicate keys
//! itself, so those are parse errors.

use super::tree::{Member, Node, Parsed, Syntax, Value, empty_root, lowercase_first};

/// Parse TOML. toml_edit rejects duplicate keys itself, so those are parse errors.
pub(super) fn parse(text: &str) -> Parsed {
    match toml_edit::Document::parse(text) {
        Ok(doc) => Parsed::whole(from_item(doc.as_item(), 0), Vec::new()),
        Err(error) => Parsed::whole(
            empty_root(),
            vec![Syntax::Error(
                error.span().map_or(0, |s| s.start),
                lowercase_first(&super::tree::toml_message(
                    error.message(),
                    text,
                    error.span(),
                )),
            )],
        ),
    }
}

fn from_item(item: &toml_edit::Item, fallback: usize) -> Node {
    let start = item.span().map_or(fallback, |s| s.start);
    match item {
        toml_edit::Item::None => Node {
            value: Value::Null,
            start,
        },
        toml_edit::Item::Value(value) => from_toml_value(value, fallback),
        toml_edit::Item::Table(table) => {
            let start = table.span().map_or(fallback, |s| s.start);
            Node {
                value: Value::Object(
                    table
                        .iter()
                        .filter_map(|(key, _)| table.get_key_value(key))
                        .map(|(key, item)| {
                            let key_start = key.span().map_or(start, |s| s.start);
                            Member {
                                key: key.get().to_owned(),
                                key_start,
                                node: from_item(item, key_start),
                            }
                        })
                        .collect(),
                ),
                start,
            }
        }
        toml_edit::Item::ArrayOfTables(array) => {
            let start = array.span().map_or(fallback, |s| s.start);
            Node {
                value: Value::Array(
                    array
                        .iter()
                        .map(|t| from_item(&toml_edit::Item::Table(t.clone()), start))
                        .collect(),
                ),
                start,
            }
        }
    }
}

fn from_toml_value(value: &toml_edit::Value, fallback: usize) -> Node {
    let start = value.span().map_or(fallback, |s| s.start);
    let value = match value {
        toml_edit::Value::String(s) => Value::String(s.value().clone()),
        toml_edit::Value::Integer(_)
        | toml_edit::Value::Float(_)
        | toml_edit::Value::Datetime(_) => Value::Number,
        toml_edit::Value::Boolean(_) => Value::Bool,
        toml_edit::Value::Array(array) => {
            Value::Array(array.iter().map(|v| from_toml_value(v, start)).collect())
        }
        toml_edit::Value::InlineTable(table) => Value::Object(
            table
                .iter()
                .filter_map(|(key, _)| table.get_key_value(key))
                .map(|(key, v)| {
                    let key_start = key.span().map_or(start, |s| s.start);
                    Member {
                        key: key.get().to_owned(),
                        key_start,
                        node: from_item(v, key_start),
                    }
                })
                .collect(),
        ),
    };
    Node { value, start }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::tree::LineIndex;

    #[test]
    fn toml_keeps_key_positions() {
        let text = "model = \"x\"\n\n[mcp_servers.github]\ncommand = \"gh\"\nargs = [\"a\", 1]\n";
        let parsed = parse(text);
        assert!(parsed.syntax.is_empty());
        let servers = parsed.root.get("mcp_servers").unwrap();
        let github = servers.node.get("github").unwrap();
        let index = LineIndex::new(text);
        assert_eq!(
            index.position(github.node.get("command").unwrap().key_start),
            (4, 1)
        );
        assert_eq!(
            index.position(github.node.get("args").unwrap().node.start),
            (5, 8)
        );
        assert!(matches!(
            parse("[a]\nx=1\nx=2\n").syntax.as_slice(),
            [Syntax::Error(..)]
        ));
    }
}
