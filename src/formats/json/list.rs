//! List-shaped entries in JSON (`ServersAt::list`): items of an array that carry their
//! name under a key, such as VS Code's top-level `"inputs": [{"id": "token", ...}]`.
//! Edits splice one item in or out, as the map primitives do for members: the other
//! items, their comments and the array's layout stay as written.

use serde_json::{Map, Value};

use super::scan::{self, Kind, Member, Node};
use super::{
    Edit, JsonDoc, RawEntry, ShapeError, Splice, Style, insert_member, line_indent, member_key,
    parse_value, position_of, remove_member, render,
};
use crate::formats::ParseError;

/// The offset just after the value starting at `at` (the text was validated when parsed).
fn value_end(text: &str, at: usize) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    match bytes.get(at) {
        Some(b'"') => Ok(scan::scan_string(text, at)?.0),
        Some(b'{' | b'[') => {
            let mut depth = 0usize;
            let mut i = at;
            while let Some(&byte) = bytes.get(i) {
                match byte {
                    b'"' => {
                        i = scan::scan_string(text, i)?.0;
                        continue;
                    }
                    b'/' => {
                        i = scan::comment_end(text, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Ok(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            Ok(i)
        }
        _ => Ok(at
            + bytes[at..]
                .iter()
                .position(|b| b",]} \t\r\n/".contains(b))
                .unwrap_or(bytes.len() - at)),
    }
}

/// The items of the array at `start..end` as members without keys (`key_start` is the
/// value's start), so the member splices add and remove them.
fn items(text: &str, start: usize, end: usize) -> Result<Vec<Member>, ParseError> {
    let mut out = Vec::new();
    let mut at = start + 1;
    loop {
        at = scan::skip_trivia(text, at)?;
        if at + 1 >= end || text.as_bytes()[at] == b']' {
            return Ok(out);
        }
        let value_end = value_end(text, at)?;
        let after = scan::skip_trivia(text, value_end)?;
        let comma = (text.as_bytes().get(after) == Some(&b',')).then_some(after);
        out.push(Member {
            key_start: at,
            key_end: at,
            key_escaped: false,
            value_start: at,
            value_end,
            comma,
        });
        at = comma.map_or(after, |c| c + 1);
    }
}

/// An item's name under `name_key`, and the item without it.
fn named(item: Value, name_key: &str) -> Option<(String, RawEntry)> {
    let Value::Object(mut map) = item else {
        return None;
    };
    let Some(Value::String(name)) = map.remove(name_key) else {
        return None;
    };
    Some((name, Value::Object(map)))
}

impl JsonDoc {
    /// The array at `key` with its items, `None` when the key (or a parent) is missing.
    fn list_node(&self, key: &[String]) -> Result<Option<Node>, ShapeError> {
        let Some((last, parent)) = key.split_last() else {
            return Err(ShapeError::NotAList {
                key: "(root)".to_owned(),
                found: "the document",
                position: None,
            });
        };
        let located = self.locate(parent)?;
        let Some(map) = located.nodes.get(parent.len()) else {
            return Ok(None);
        };
        let Some(member) = map
            .members
            .iter()
            .rfind(|m| scan::key_equals(&self.text, member_key(m), last))
        else {
            return Ok(None);
        };
        let (start, end) = (member.value_start, member.value_end);
        if self.text.as_bytes().get(start) != Some(&b'[') {
            let found = parse_value(&self.text[start..end]).map_or("a value", |v| match v {
                Value::Object(_) => "an object",
                Value::String(_) => "a string",
                Value::Number(_) => "a number",
                Value::Bool(_) => "a boolean",
                _ => "null",
            });
            return Err(ShapeError::NotAList {
                key: key.join("."),
                found,
                position: Some(position_of(&self.text, member.key_start)),
            });
        }
        let members = items(&self.text, start, end).map_err(|e| ShapeError::Unrepresentable {
            name: key.join("."),
            message: format!("internal error: the list no longer parses: {e}"),
        })?;
        Ok(Some(Node {
            key: Some(member_key(member)),
            kind: Kind::Array,
            start,
            end,
            members,
        }))
    }

    pub(super) fn list_servers(
        &self,
        key: &[String],
        name_key: &str,
    ) -> Result<Vec<(String, RawEntry)>, ShapeError> {
        let Some(node) = self.list_node(key)? else {
            return Ok(Vec::new());
        };
        Ok(node
            .members
            .iter()
            .filter_map(|m| parse_value(&self.text[m.value_start..m.value_end]).ok())
            .filter_map(|item| named(item, name_key))
            .collect())
    }

    pub(super) fn list_upsert(
        &mut self,
        key: &[String],
        name_key: &str,
        name: &str,
        entry: &RawEntry,
    ) -> Result<Edit, ShapeError> {
        let mut item = Map::new();
        item.insert(name_key.to_owned(), Value::String(name.to_owned()));
        if let Value::Object(fields) = entry {
            item.extend(fields.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        let item = Value::Object(item);
        let Some(node) = self.list_node(key)? else {
            // No list yet: it is a new member of its parent, holding the one item.
            let (last, parent) = key.split_last().unwrap_or((&key[0], &[]));
            return self.map_upsert(parent, last, &Value::Array(vec![item]));
        };
        let style = Style::detect(&self.text);
        let found = node.members.iter().rfind(|m| {
            parse_value(&self.text[m.value_start..m.value_end])
                .ok()
                .and_then(|v| named(v, name_key))
                .is_some_and(|(n, _)| n == name)
        });
        let splices = match found {
            Some(member) => {
                if parse_value(&self.text[member.value_start..member.value_end]).ok()
                    == Some(item.clone())
                {
                    return Ok(Edit::Unchanged);
                }
                let indent = line_indent(&self.text, member.value_start).to_owned();
                vec![Splice {
                    at: member.value_start,
                    remove: member.value_end - member.value_start,
                    insert: render(&item, style.indent.as_deref(), &indent, &style.newline)?,
                }]
            }
            None => {
                let splices = insert_member(&self.text, &node, None, &item, &style)?;
                self.apply(splices);
                return Ok(Edit::Added);
            }
        };
        self.apply(splices);
        Ok(Edit::Updated)
    }

    pub(super) fn list_remove(
        &mut self,
        key: &[String],
        name_key: &str,
        name: &str,
    ) -> Result<Edit, ShapeError> {
        let Some(node) = self.list_node(key)? else {
            return Ok(Edit::Unchanged);
        };
        let Some(index) = node.members.iter().position(|m| {
            parse_value(&self.text[m.value_start..m.value_end])
                .ok()
                .and_then(|v| named(v, name_key))
                .is_some_and(|(n, _)| n == name)
        }) else {
            return Ok(Edit::Unchanged);
        };
        let splices = remove_member(&self.text, &node, index);
        let growth: isize = splices
            .iter()
            .map(|s| s.insert.len() as isize - s.remove as isize)
            .sum();
        self.apply(splices);
        if node.members.len() == 1 {
            // The list is now empty: if only whitespace is left inside, write `[]`.
            let open = node.start + 1;
            let close = (node.end as isize + growth - 1) as usize;
            if self
                .text
                .get(open..close)
                .is_some_and(|inside| inside.trim().is_empty())
            {
                self.apply(vec![Splice::delete(open, close)]);
            }
        }
        Ok(Edit::Removed)
    }
}

#[cfg(test)]
mod tests {
    use super::super::JsonDoc;
    use crate::formats::{ConfigDoc, Edit, ServersAt};
    use serde_json::json;

    fn inputs() -> Vec<String> {
        vec!["inputs".to_owned()]
    }

    #[test]
    fn an_item_goes_in_after_the_others_and_out_again_byte_for_byte() {
        let text = "{\n  \"inputs\": [\n    // the PAT for GitHub\n    {\n      \"id\": \"gh\",\n      \"type\": \"promptString\"\n    }\n  ],\n  \"servers\": {}\n}\n";
        let mut doc = JsonDoc::parse(text).unwrap();
        let key = inputs();
        let at = ServersAt::list(&key, "id");
        let edit = doc
            .upsert(at, "db", &json!({"type": "promptString", "password": true}))
            .unwrap();
        assert_eq!(edit, Edit::Added);
        let rendered = doc.render().into_owned();
        assert!(rendered.contains("// the PAT for GitHub"), "{rendered}");
        assert!(
            rendered.contains("    },\n    {\n      \"id\": \"db\",\n      \"type\": \"promptString\",\n      \"password\": true\n    }\n  ],"),
            "{rendered}"
        );
        let names: Vec<String> = doc
            .servers(at)
            .unwrap()
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        assert_eq!(names, ["gh", "db"]);
        assert_eq!(doc.remove(at, "db").unwrap(), Edit::Removed);
        assert_eq!(doc.render(), text);
    }

    #[test]
    fn a_missing_list_is_created_and_a_last_item_removed_leaves_brackets() {
        let text = "{\n  \"servers\": {}\n}\n";
        let mut doc = JsonDoc::parse(text).unwrap();
        let key = inputs();
        let at = ServersAt::list(&key, "id");
        doc.upsert(at, "gh", &json!({"type": "promptString"}))
            .unwrap();
        let rendered = doc.render().into_owned();
        assert!(
            rendered.contains("\"inputs\": [\n    {\n      \"id\": \"gh\""),
            "{rendered}"
        );
        assert_eq!(
            doc.upsert(at, "gh", &json!({"type": "promptString"}))
                .unwrap(),
            Edit::Unchanged
        );
        let text = "{\"inputs\": [{\"id\": \"gh\"}], \"servers\": {}}";
        let mut doc = JsonDoc::parse(text).unwrap();
        assert_eq!(doc.remove(at, "gh").unwrap(), Edit::Removed);
        assert_eq!(doc.render(), "{\"inputs\": [], \"servers\": {}}");
    }
}
