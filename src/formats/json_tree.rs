//! The lint tree of a JSON or JSONC text, from jsonc-parser's AST: comments, trailing
//! commas and duplicate keys become `Syntax` notes.

use jsonc_parser::ast;
use jsonc_parser::common::Ranged;
use jsonc_parser::{CollectOptions, CommentCollectionStrategy, ParseOptions};

use super::scan;
use super::tree::{Member, Node, Parsed, Syntax, Value, empty_root, lowercase_first};

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
pub(super) fn parse(text: &str) -> Parsed {
    let options = client_jsonc();
    // No token list: for a file of 100k entries it held millions of tokens (a third of
    // `check`'s peak memory) only to find trailing commas, which `trailing_commas` finds
    // in one pass over the text.
    let collect = CollectOptions {
        comments: CommentCollectionStrategy::Separate,
        tokens: false,
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
    syntax.extend(trailing_commas(text).into_iter().map(Syntax::TrailingComma));
    let root = match result.value {
        Some(value) => from_json(value, &mut syntax),
        None => empty_root(),
    };
    Parsed { root, syntax }
}

/// Offsets of the commas followed (after whitespace and comments) by `}` or `]`, in a text
/// that parsed: strings and comments are skipped whole.
fn trailing_commas(text: &str) -> Vec<usize> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        at = match byte {
            b'"' => scan::scan_string(text, at).map_or(bytes.len(), |(end, _)| end),
            b'/' => scan::comment_end(text, at).unwrap_or(bytes.len()),
            b',' => {
                let next = scan::skip_trivia(text, at + 1).unwrap_or(bytes.len());
                if matches!(bytes.get(next), Some(b'}' | b']')) {
                    out.push(at);
                }
                at + 1
            }
            _ => at + 1,
        };
    }
    out
}

/// The lint tree of `value`, taking the AST apart as it goes: each part of the AST is
/// freed once converted, so the whole AST and the whole tree are never held at once (at
/// 100k entries both are tens of MB).
fn from_json(value: ast::Value<'_>, syntax: &mut Vec<Syntax>) -> Node {
    let start = value.range().start;
    let value = match value {
        ast::Value::StringLit(s) => Value::String(s.value.into_owned()),
        ast::Value::NumberLit(_) => Value::Number,
        ast::Value::BooleanLit(_) => Value::Bool,
        ast::Value::NullKeyword(_) => Value::Null,
        ast::Value::Array(array) => Value::Array(
            array
                .elements
                .into_iter()
                .map(|v| from_json(v, syntax))
                .collect(),
        ),
        ast::Value::Object(object) => {
            let mut members: Vec<Member> = Vec::with_capacity(object.properties.len());
            for prop in object.properties {
                let key_start = prop.range.start;
                members.push(Member {
                    key: prop.name.into_string(),
                    key_start,
                    node: from_json(prop.value, syntax),
                });
            }
            // A set, not a scan of the members so far: a servers map of 100k entries.
            let mut keys: std::collections::HashSet<&str> =
                std::collections::HashSet::with_capacity(members.len());
            for member in &members {
                if !keys.insert(member.key.as_str()) {
                    syntax.push(Syntax::DuplicateKey(member.key_start, member.key.clone()));
                }
            }
            Value::Object(members)
        }
    };
    Node { value, start }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_reports_comments_trailing_commas_and_duplicates() {
        let text = "{\n  // note\n  \"a\": 1,\n  \"a\": [1, 2,],\n}\n";
        let parsed = parse(text);
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
    fn trailing_commas_are_found_outside_strings_and_comments() {
        let text =
            "{\"a\": \",]\", /* , } */ \"b\": [1, // ,]\n 2],\n \"c\": {\"d\": 1 , /* x */ },\n}";
        let parsed = parse(text);
        let commas: Vec<usize> = parsed
            .syntax
            .iter()
            .filter_map(|s| match s {
                Syntax::TrailingComma(at) => Some(*at),
                _ => None,
            })
            .collect();
        let expected: Vec<usize> = text
            .match_indices(" , /* x */ }")
            .map(|(i, _)| i + 1)
            .chain(text.match_indices(",\n}").map(|(i, _)| i))
            .collect();
        assert_eq!(commas, expected);
    }

    #[test]
    fn json_error_has_an_offset_and_single_quotes_are_errors() {
        let parsed = parse("{\"a\": }");
        assert!(matches!(parsed.syntax.as_slice(), [Syntax::Error(6, _)]));
        assert!(matches!(
            parse("{'a': 1}").syntax.as_slice(),
            [Syntax::Error(..)]
        ));
        assert!(parse("").syntax.is_empty());
    }
}
