//! A small value tree with byte offsets for every key and value, built from JSON/JSONC
//! (jsonc-parser's AST) or TOML (toml_edit's spans), plus the syntax findings that only
//! the raw text shows: parse errors, comments and trailing commas, duplicate keys.
//!
//! It keeps duplicate keys (a map would hide them) and never edits or re-renders text;
//! edits go through `formats::ConfigDoc`.

use jsonc_parser::ast;
use jsonc_parser::common::Ranged;
use jsonc_parser::tokens::Token;
use jsonc_parser::{CollectOptions, CommentCollectionStrategy, ParseOptions};

/// A value and where it starts (byte offset into the text).
#[derive(Debug, Clone)]
pub(crate) struct Node {
    pub(crate) value: Value,
    pub(crate) start: usize,
}

#[derive(Debug, Clone)]
pub(crate) enum Value {
    Null,
    Bool,
    Number,
    String(String),
    Array(Vec<Node>),
    Object(Vec<Member>),
}

#[derive(Debug, Clone)]
pub(crate) struct Member {
    pub(crate) key: String,
    pub(crate) key_start: usize,
    pub(crate) node: Node,
}

impl Node {
    pub(crate) fn members(&self) -> Option<&[Member]> {
        match &self.value {
            Value::Object(members) => Some(members),
            _ => None,
        }
    }

    /// The last member named `key` (what most parsers keep on duplicates).
    pub(crate) fn get(&self, key: &str) -> Option<&Member> {
        self.members()?.iter().rev().find(|m| m.key == key)
    }

    pub(crate) fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// "a string", "an array", ... for messages.
    pub(crate) fn kind(&self) -> &'static str {
        match self.value {
            Value::Null => "null",
            Value::Bool => "a boolean",
            Value::Number => "a number",
            Value::String(_) => "a string",
            Value::Array(_) => "a list",
            Value::Object(_) => "an object",
        }
    }
}

/// A problem the text itself has, before any rule looks at values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Syntax {
    /// The text does not parse (offset, message).
    Error(usize, String),
    Comment(usize),
    TrailingComma(usize),
    DuplicateKey(usize, String),
}

/// A parsed document: the root (an empty object for an empty file) and syntax notes.
#[derive(Debug)]
pub(crate) struct Parsed {
    pub(crate) root: Node,
    pub(crate) syntax: Vec<Syntax>,
}

fn empty_root() -> Node {
    Node {
        value: Value::Object(Vec::new()),
        start: 0,
    }
}

/// What the clients' JSONC readers accept: comments and trailing commas, nothing looser.
pub(crate) fn client_jsonc() -> ParseOptions {
    ParseOptions {
        allow_comments: true,
        allow_loose_object_property_names: false,
        allow_trailing_commas: true,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    }
}

/// Parse JSON or JSONC. Comments and trailing commas are accepted and reported as
/// `Syntax` notes; anything else non-standard (single quotes, hex, unquoted keys) is a
/// parse error, as it is for every client.
pub(crate) fn parse_json(text: &str) -> Parsed {
    let options = client_jsonc();
    let collect = CollectOptions {
        comments: CommentCollectionStrategy::Separate,
        tokens: true,
    };
    let result = match jsonc_parser::parse_to_ast(text, &collect, &options) {
        Ok(result) => result,
        Err(error) => {
            return Parsed {
                root: empty_root(),
                syntax: vec![Syntax::Error(
                    error.range().start,
                    lowercase_first(&error.kind().to_string()),
                )],
            };
        }
    };
    let mut syntax = Vec::new();
    if let Some(comments) = &result.comments {
        let mut starts: Vec<usize> = comments
            .values()
            .flat_map(|list| list.iter().map(|c| c.range().start))
            .collect();
        starts.sort_unstable();
        starts.dedup();
        syntax.extend(starts.into_iter().map(Syntax::Comment));
    }
    if let Some(tokens) = &result.tokens {
        for pair in tokens.windows(2) {
            if matches!(pair[0].token, Token::Comma)
                && matches!(pair[1].token, Token::CloseBrace | Token::CloseBracket)
            {
                syntax.push(Syntax::TrailingComma(pair[0].range.start));
            }
        }
    }
    let root = match &result.value {
        Some(value) => from_json(value, &mut syntax),
        None => empty_root(),
    };
    Parsed { root, syntax }
}

fn from_json(value: &ast::Value<'_>, syntax: &mut Vec<Syntax>) -> Node {
    let start = value.range().start;
    let value = match value {
        ast::Value::StringLit(s) => Value::String(s.value.to_string()),
        ast::Value::NumberLit(_) => Value::Number,
        ast::Value::BooleanLit(_) => Value::Bool,
        ast::Value::NullKeyword(_) => Value::Null,
        ast::Value::Array(array) => Value::Array(
            array
                .elements
                .iter()
                .map(|v| from_json(v, syntax))
                .collect(),
        ),
        ast::Value::Object(object) => {
            let mut members: Vec<Member> = Vec::with_capacity(object.properties.len());
            for prop in &object.properties {
                let key = prop.name.as_str().to_owned();
                let key_start = prop.range.start;
                if members.iter().any(|m| m.key == key) {
                    syntax.push(Syntax::DuplicateKey(key_start, key.clone()));
                }
                members.push(Member {
                    key,
                    key_start,
                    node: from_json(&prop.value, syntax),
                });
            }
            Value::Object(members)
        }
    };
    Node { value, start }
}

/// Parse TOML. toml_edit rejects duplicate keys itself, so those are parse errors.
pub(crate) fn parse_toml(text: &str) -> Parsed {
    match toml_edit::Document::parse(text) {
        Ok(doc) => Parsed {
            root: from_item(doc.as_item(), 0),
            syntax: Vec::new(),
        },
        Err(error) => Parsed {
            root: empty_root(),
            syntax: vec![Syntax::Error(
                error.span().map_or(0, |s| s.start),
                lowercase_first(error.message().trim()),
            )],
        },
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

fn lowercase_first(message: &str) -> String {
    let mut chars = message.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Byte offset → 1-based line and column (characters), built once per file.
#[derive(Debug)]
pub(crate) struct LineIndex<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Self { text, starts }
    }

    pub(crate) fn position(&self, offset: usize) -> (usize, usize) {
        let offset = self.text.floor_char_boundary(offset.min(self.text.len()));
        let line = self.starts.partition_point(|&s| s <= offset);
        let line_start = self.starts[line.saturating_sub(1)];
        (line, self.text[line_start..offset].chars().count() + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_reports_comments_trailing_commas_and_duplicates() {
        let text = "{\n  // note\n  \"a\": 1,\n  \"a\": [1, 2,],\n}\n";
        let parsed = parse_json(text);
        assert_eq!(
            parsed.syntax,
            vec![
                Syntax::Comment(4),
                Syntax::TrailingComma(34),
                Syntax::TrailingComma(36),
                Syntax::DuplicateKey(24, "a".into()),
            ]
        );
        assert_eq!(parsed.root.members().map(<[_]>::len), Some(2));
    }

    #[test]
    fn json_error_has_an_offset_and_single_quotes_are_errors() {
        let parsed = parse_json("{\"a\": }");
        assert!(matches!(parsed.syntax.as_slice(), [Syntax::Error(6, _)]));
        assert!(matches!(
            parse_json("{'a': 1}").syntax.as_slice(),
            [Syntax::Error(..)]
        ));
        assert!(parse_json("").syntax.is_empty());
    }

    #[test]
    fn toml_keeps_key_positions() {
        let text = "model = \"x\"\n\n[mcp_servers.github]\ncommand = \"gh\"\nargs = [\"a\", 1]\n";
        let parsed = parse_toml(text);
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
            parse_toml("[a]\nx=1\nx=2\n").syntax.as_slice(),
            [Syntax::Error(..)]
        ));
    }

    #[test]
    fn line_index_counts_characters() {
        let index = LineIndex::new("ab\né x\n");
        assert_eq!(index.position(0), (1, 1));
        assert_eq!(index.position(3), (2, 1));
        assert_eq!(index.position(6), (2, 3));
    }
}
