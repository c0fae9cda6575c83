//! The lint tree of a YAML text, from the strict parse's spans. Comments are ordinary in
//! YAML and not noted; duplicate keys are (Goose's reader refuses a file with one).

use super::tree::{Member, Node, Parsed, Syntax, Value, empty_root, lowercase_first};
use super::yaml_parse::{self, YDoc, YKind, YNode};

pub(super) fn parse(text: &str) -> Parsed {
    match yaml_parse::parse(text) {
        Ok(doc) => {
            let mut syntax = Vec::new();
            let root = match &doc.root {
                Some(node) => from_node(&doc, node, &mut syntax, 0),
                None => empty_root(),
            };
            Parsed::whole(root, syntax)
        }
        Err(error) => Parsed::whole(
            empty_root(),
            vec![Syntax::Error(error.offset, lowercase_first(&error.message))],
        ),
    }
}

fn from_node(doc: &YDoc, node: &YNode, syntax: &mut Vec<Syntax>, depth: usize) -> Node {
    let start = node.start;
    let value = match &node.kind {
        YKind::Scalar { .. } => match doc.value(node, 0) {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(_) => Value::Bool,
            serde_json::Value::Number(_) => Value::Number,
            serde_json::Value::String(s) => Value::String(s),
            _ => Value::Null,
        },
        YKind::Seq { items, .. } => Value::Array(
            items
                .iter()
                .map(|n| from_node(doc, n, syntax, depth + 1))
                .collect(),
        ),
        YKind::Map { entries, .. } => {
            let mut members: Vec<Member> = Vec::new();
            for entry in entries {
                let key = entry.key_text();
                if members.iter().any(|m| m.key == key) {
                    syntax.push(Syntax::DuplicateKey(entry.key.start, key.clone()));
                }
                members.push(Member {
                    key,
                    key_start: entry.key.start,
                    node: from_node(doc, &entry.value, syntax, depth + 1),
                });
            }
            Value::Object(members)
        }
        YKind::Alias(_) => {
            let target = doc.resolve(node);
            if depth < 64 && !std::ptr::eq(target, node) {
                let mut resolved = from_node(doc, target, &mut Vec::new(), depth + 1);
                resolved.start = start;
                return resolved;
            }
            Value::Null
        }
    };
    Node { value, start }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::tree::LineIndex;

    #[test]
    fn keys_have_positions_and_duplicates_are_noted() {
        let text =
            "# goose\nextensions:\n  github:\n    cmd: npx\n    args: [-y, x]\n    cmd: uvx\n";
        let parsed = parse(text);
        let index = LineIndex::new(text);
        let github = parsed
            .root
            .get("extensions")
            .and_then(|m| m.node.get("github"))
            .unwrap();
        assert_eq!(index.position(github.key_start), (3, 3));
        assert_eq!(github.node.get("cmd").unwrap().node.as_str(), Some("uvx"));
        assert!(matches!(parsed.syntax.as_slice(), [Syntax::DuplicateKey(_, k)] if k == "cmd"));
        let broken = parse("extensions:\n  a: b: c\n");
        match broken.syntax.as_slice() {
            [Syntax::Error(offset, _)] => {
                assert_eq!(index_of(*offset, "extensions:\n  a: b: c\n"), (2, 7))
            }
            other => panic!("{other:?}"),
        }
    }

    fn index_of(offset: usize, text: &str) -> (usize, usize) {
        LineIndex::new(text).position(offset)
    }
}
