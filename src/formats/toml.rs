//! TOML documents (`TomlDoc`, Codex's `config.toml`): entries are `[mcp_servers.NAME]`
//! tables edited through `toml_edit`, which keeps comments, order and spelling.
//!
//! New entries are non-inline tables under an implicit parent (no bare `[mcp_servers]`
//! header), with nested objects as sub-tables; updates keep the existing entry's style
//! (inline table or sub-table, comments on unchanged keys). This module never writes a
//! value TOML cannot hold (JSON `null`, integers beyond i64) and never renders an unedited
//! document differently from the text it was parsed from.

use serde_json::{Map, Number, Value as Json};
use toml_edit::{Array, DocumentMut, InlineTable, Item, Table, Value};

use super::json::detect_line_ending;
use super::{
    BLANK_KEPT, ConfigDoc, Edit, MapState, ParseError, Position, RawEntry, ShapeError, position_of,
    squeezed,
};

pub(super) struct TomlDoc {
    /// The text as read; rendered as is until the first edit.
    text: String,
    doc: DocumentMut,
    edited: bool,
}

impl TomlDoc {
    pub(super) fn parse(text: impl Into<String>) -> Result<Self, ParseError> {
        let text: String = text.into();
        let doc = text.parse::<DocumentMut>().map_err(|err| {
            let position = position_of(&text, err.span().map_or(0, |span| span.start));
            ParseError {
                line: position.line,
                column: position.column,
                message: err.message().trim().to_owned(),
            }
        })?;
        Ok(Self {
            text,
            doc,
            edited: false,
        })
    }

    /// The servers container at `key`, creating missing tables (implicit) when `create`.
    fn container(&mut self, key: &[String], create: bool) -> Result<Option<&mut Item>, ShapeError> {
        let mut item = self.doc.as_item_mut();
        for (depth, segment) in key.iter().enumerate() {
            let table: &mut dyn toml_edit::TableLike = match item {
                Item::Table(table) => {
                    if create && table.get(segment).is_none() {
                        let mut new = Table::new();
                        new.set_implicit(true);
                        table.insert(segment, Item::Table(new));
                    }
                    table
                }
                Item::Value(Value::InlineTable(table)) => {
                    if create && table.get(segment).is_none() {
                        table.insert(segment, Value::InlineTable(InlineTable::new()));
                    }
                    table
                }
                other => return Err(not_a_table(&key[..depth], other, None)),
            };
            let Some(next) = table.get_mut(segment) else {
                return Ok(None);
            };
            item = next;
        }
        match item {
            Item::Table(_) | Item::Value(Value::InlineTable(_)) => Ok(Some(item)),
            other => Err(not_a_table(key, other, None)),
        }
    }

    /// Set a plain value (a switch, a tool list) under `key`, keeping the old value's
    /// spacing and comments when there is one.
    fn upsert_value(
        &mut self,
        key: &[String],
        name: &str,
        value: &Json,
    ) -> Result<Edit, ShapeError> {
        let new = json_to_value(name, value)?;
        let Some(container) = self.container(key, true)? else {
            return Ok(Edit::Unchanged);
        };
        let Some(map) = container.as_table_like_mut() else {
            return Ok(Edit::Unchanged);
        };
        let edit = match map.get_mut(name) {
            Some(existing) if item_to_json(existing) == *value => Edit::Unchanged,
            Some(Item::Value(existing)) => {
                replace_value(existing, new);
                Edit::Updated
            }
            Some(other) => {
                *other = Item::Value(new);
                Edit::Updated
            }
            None => {
                map.insert(name, Item::Value(new));
                Edit::Added
            }
        };
        if edit != Edit::Unchanged {
            self.edited = true;
        }
        Ok(edit)
    }

    /// Check the shape of the path without creating anything, with positions for errors.
    fn check_shape(&self, key: &[String]) -> Result<(), ShapeError> {
        let mut item = self.doc.as_item();
        for depth in 0..=key.len() {
            let table: &dyn toml_edit::TableLike = match item {
                Item::Table(table) => table,
                Item::Value(Value::InlineTable(table)) => table,
                other => {
                    return Err(not_a_table(
                        &key[..depth],
                        other,
                        self.position(&key[..depth]),
                    ));
                }
            };
            let Some(segment) = key.get(depth) else {
                return Ok(());
            };
            let Some(next) = table.get(segment) else {
                return Ok(());
            };
            item = next;
        }
        Ok(())
    }
}

fn not_a_table(key: &[String], item: &Item, position: Option<Position>) -> ShapeError {
    ShapeError::NotAnObject {
        key: if key.is_empty() {
            "(root)".to_owned()
        } else {
            key.join(".")
        },
        found: describe(item),
        position,
    }
}

fn describe(item: &Item) -> &'static str {
    match item {
        Item::None => "nothing",
        Item::Table(_) => "a table",
        Item::ArrayOfTables(_) => "an array of tables",
        Item::Value(value) => match value {
            Value::String(_) => "a string",
            Value::Integer(_) | Value::Float(_) => "a number",
            Value::Boolean(_) => "a boolean",
            Value::Datetime(_) => "a datetime",
            Value::Array(_) => "an array",
            Value::InlineTable(_) => "an inline table",
        },
    }
}

impl ConfigDoc for TomlDoc {
    fn servers(&self, key: &[String]) -> Result<Vec<(String, RawEntry)>, ShapeError> {
        self.check_shape(key)?;
        let mut item = self.doc.as_item();
        for segment in key {
            match item.get(segment.as_str()) {
                Some(next) => item = next,
                None => return Ok(Vec::new()),
            }
        }
        let Some(table) = item.as_table_like() else {
            return Ok(Vec::new());
        };
        Ok(table
            .iter()
            .map(|(name, item)| (name.to_owned(), item_to_json(item)))
            .collect())
    }

    fn upsert(&mut self, key: &[String], name: &str, entry: &RawEntry) -> Result<Edit, ShapeError> {
        self.check_shape(key)?;
        let Json::Object(fields) = entry else {
            return self.upsert_value(key, name, entry);
        };
        // Build first, so an unrepresentable entry leaves the document untouched.
        let new_table = json_to_table(name, fields)?;
        let new_inline = json_to_value(name, entry)?;
        let Some(container) = self.container(key, true)? else {
            return Ok(Edit::Unchanged);
        };
        let edit = match container {
            Item::Table(map) => match map.get_mut(name) {
                Some(existing) if item_to_json(existing) == *entry => Edit::Unchanged,
                Some(Item::Table(existing)) => {
                    update_table(name, existing, fields)?;
                    Edit::Updated
                }
                Some(Item::Value(existing)) => {
                    replace_value(existing, new_inline);
                    Edit::Updated
                }
                Some(other) => {
                    *other = Item::Table(new_table);
                    Edit::Updated
                }
                None => {
                    map.insert(name, Item::Table(new_table));
                    Edit::Added
                }
            },
            Item::Value(Value::InlineTable(map)) => match map.get_mut(name) {
                Some(existing) if value_to_json(existing) == *entry => Edit::Unchanged,
                Some(existing) => {
                    replace_value(existing, new_inline);
                    Edit::Updated
                }
                None => {
                    map.insert(name, new_inline);
                    Edit::Added
                }
            },
            _ => Edit::Unchanged,
        };
        if edit != Edit::Unchanged {
            self.edited = true;
        }
        Ok(edit)
    }

    fn remove(&mut self, key: &[String], name: &str) -> Result<Edit, ShapeError> {
        self.check_shape(key)?;
        let Some(container) = self.container(key, false)? else {
            return Ok(Edit::Unchanged);
        };
        let removed = match container.as_table_like_mut() {
            Some(map) => map.remove(name).is_some(),
            None => false,
        };
        if !removed {
            return Ok(Edit::Unchanged);
        }
        self.edited = true;
        Ok(Edit::Removed)
    }

    fn map_state(&self, key: &[String]) -> Result<MapState, ShapeError> {
        self.check_shape(key)?;
        let mut item = self.doc.as_item();
        let mut depth = 0;
        for segment in key {
            match item.get(segment.as_str()) {
                Some(next) => {
                    item = next;
                    depth += 1;
                }
                None => break,
            }
        }
        // Tables are written as headers (nothing to keep) except inline ones: `{ }`.
        let inside = match item {
            Item::Value(Value::InlineTable(table)) if table.is_empty() => {
                Some(table.trailing().as_str().unwrap_or_default().to_owned())
            }
            _ => None,
        };
        let blank = (depth == 0 && self.text.trim().is_empty() && self.text.len() <= BLANK_KEPT)
            .then(|| self.text.clone());
        Ok(MapState {
            depth,
            inside,
            blank,
        })
    }

    fn prune(&mut self, key: &[String], before: &MapState) -> Result<(), ShapeError> {
        self.check_shape(key)?;
        let Some(inside) = &before.inside else {
            // Implicit tables the add created render as nothing once empty.
            if let Some(blank) = &before.blank
                && self.doc.as_table().is_empty()
            {
                self.text = blank.clone();
                self.doc = DocumentMut::new();
                self.edited = false;
            }
            return Ok(());
        };
        if before.depth != key.len() {
            return Ok(());
        }
        if let Some(Item::Value(Value::InlineTable(table))) = self.container(key, false)?
            && table.is_empty()
            && squeezed(table.trailing().as_str().unwrap_or_default()) == squeezed(inside)
        {
            table.set_trailing(inside.as_str());
            self.edited = true;
        }
        Ok(())
    }

    fn is_blank(&self) -> bool {
        self.render().trim().is_empty()
    }

    fn replace_text(&mut self, text: String) -> Result<(), ParseError> {
        *self = TomlDoc::parse(text)?;
        Ok(())
    }

    fn render(&self) -> std::borrow::Cow<'_, str> {
        if !self.edited {
            return std::borrow::Cow::Borrowed(&self.text);
        }
        let mut rendered = keep_headers(&self.text, self.doc.to_string());
        // No final newline added to a file that had none (add then remove is identity).
        if !self.text.is_empty() && !self.text.ends_with('\n') && rendered.ends_with('\n') {
            rendered.pop();
        }
        // toml_edit writes `\n` for new lines; a consistently CRLF file stays CRLF.
        let crlf = detect_line_ending(&self.text) == "\r\n"
            && !self.text.replace("\r\n", "").contains('\n');
        std::borrow::Cow::Owned(if crlf {
            rendered.replace("\r\n", "\n").replace('\n', "\r\n")
        } else {
            rendered
        })
    }

    fn position(&self, path: &[String]) -> Option<Position> {
        let text = self.render();
        let parsed = toml_edit::Document::parse(&*text).ok()?;
        let mut table: &dyn toml_edit::TableLike = parsed.as_table();
        let mut span = None;
        for segment in path {
            let (key, item) = table.get_key_value(segment)?;
            span = key.span();
            if let Some(next) = item.as_table_like() {
                table = next;
            }
        }
        span.map(|span| position_of(&text, span.start))
    }
}

/// Replace a value, keeping the comments and spacing around the old one.
fn replace_value(old: &mut Value, mut new: Value) {
    *new.decor_mut() = old.decor().clone();
    *old = new;
}

/// Update a `[table]` entry in place: unchanged keys keep their comments, sub-tables stay
/// sub-tables and inline tables stay inline.
fn update_table(
    name: &str,
    table: &mut Table,
    fields: &Map<String, Json>,
) -> Result<(), ShapeError> {
    let stale: Vec<String> = table
        .iter()
        .map(|(key, _)| key.to_owned())
        .filter(|key| !fields.contains_key(key))
        .collect();
    for key in stale {
        table.remove(&key);
    }
    for (key, value) in fields {
        match (table.get_mut(key), value) {
            (Some(existing), _) if item_to_json(existing) == *value => {}
            (Some(Item::Table(sub)), Json::Object(sub_fields)) => {
                update_table(name, sub, sub_fields)?
            }
            (Some(Item::Value(existing)), _) => {
                replace_value(existing, json_to_value(name, value)?)
            }
            (_, Json::Object(sub_fields)) => {
                table.insert(key, Item::Table(json_to_table(name, sub_fields)?));
            }
            (_, _) => {
                table.insert(key, Item::Value(json_to_value(name, value)?));
            }
        }
    }
    Ok(())
}

/// A new `[mcp_servers.NAME]` table: nested objects become sub-tables.
fn json_to_table(name: &str, fields: &Map<String, Json>) -> Result<Table, ShapeError> {
    let mut table = Table::new();
    for (key, value) in fields {
        let item = match value {
            Json::Object(sub) => Item::Table(json_to_table(name, sub)?),
            other => Item::Value(json_to_value(name, other)?),
        };
        table.insert(key, item);
    }
    Ok(table)
}

fn json_to_value(name: &str, value: &Json) -> Result<Value, ShapeError> {
    let unrepresentable = |message: &str| ShapeError::Unrepresentable {
        name: name.to_owned(),
        message: message.to_owned(),
    };
    Ok(match value {
        Json::Null => return Err(unrepresentable("TOML has no null value")),
        Json::Bool(b) => Value::from(*b),
        Json::Number(number) => {
            if let Some(i) = number.as_i64() {
                Value::from(i)
            } else if number.is_u64() {
                return Err(unrepresentable("integer is too large for TOML"));
            } else {
                Value::from(number.as_f64().unwrap_or(f64::NAN))
            }
        }
        Json::String(s) => Value::from(s.as_str()),
        Json::Array(values) => {
            let mut array = Array::new();
            for value in values {
                array.push(json_to_value(name, value)?);
            }
            Value::Array(array)
        }
        Json::Object(fields) => {
            let mut table = InlineTable::new();
            for (key, value) in fields {
                table.insert(key, json_to_value(name, value)?);
            }
            Value::InlineTable(table)
        }
    })
}

fn item_to_json(item: &Item) -> Json {
    match item {
        Item::None => Json::Null,
        Item::Value(value) => value_to_json(value),
        Item::Table(table) => Json::Object(
            table
                .iter()
                .map(|(key, item)| (key.to_owned(), item_to_json(item)))
                .collect(),
        ),
        Item::ArrayOfTables(tables) => Json::Array(
            tables
                .iter()
                .map(|table| item_to_json(&Item::Table(table.clone())))
                .collect(),
        ),
    }
}

fn value_to_json(value: &Value) -> Json {
    match value {
        Value::String(s) => Json::String(s.value().clone()),
        Value::Integer(i) => Json::Number((*i.value()).into()),
        Value::Float(f) => Number::from_f64(*f.value()).map_or(Json::Null, Json::Number),
        Value::Boolean(b) => Json::Bool(*b.value()),
        Value::Datetime(d) => Json::String(d.value().to_string()),
        Value::Array(array) => Json::Array(array.iter().map(value_to_json).collect()),
        Value::InlineTable(table) => Json::Object(
            table
                .iter()
                .map(|(key, value)| (key.to_owned(), value_to_json(value)))
                .collect(),
        ),
    }
}

/// The table headers of `rendered` spelled as in `original` where the table was already
/// there: toml_edit keeps one spelling per key, so `[ servers . "a" ]` next to
/// `[servers.b]` would come out re-spaced after any edit. Checked by parsing: if the
/// result does not read back as the same document, `rendered` is returned unchanged.
fn keep_headers(original: &str, rendered: String) -> String {
    let header_path = |line: &str| -> Option<Vec<String>> {
        let trimmed = line.trim();
        let inner = trimmed
            .strip_prefix("[[")
            .and_then(|l| l.strip_suffix("]]"))
            .or_else(|| trimmed.strip_prefix('[').and_then(|l| l.strip_suffix(']')))?;
        let keys = toml_edit::Key::parse(inner).ok()?;
        Some(keys.iter().map(|k| k.get().to_owned()).collect())
    };
    let spelled: std::collections::HashMap<Vec<String>, &str> = original
        .lines()
        .filter_map(|line| Some((header_path(line)?, line.trim_end_matches('\r'))))
        .collect();
    if spelled.is_empty() {
        return rendered;
    }
    let mut out = String::with_capacity(rendered.len());
    let mut changed = false;
    for line in rendered.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        match header_path(body).and_then(|path| spelled.get(&path)) {
            Some(original_line) if *original_line != body => {
                out.push_str(original_line);
                out.push_str(&line[body.len()..]);
                changed = true;
            }
            _ => out.push_str(line),
        }
    }
    let same = |a: &str, b: &str| match (
        a.parse::<toml_edit::DocumentMut>(),
        b.parse::<toml_edit::DocumentMut>(),
    ) {
        (Ok(a), Ok(b)) => item_to_json(a.as_item()) == item_to_json(b.as_item()),
        _ => false,
    };
    if changed && same(&out, &rendered) {
        out
    } else {
        rendered
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn k(keys: &[&str]) -> Vec<String> {
        keys.iter().map(|key| (*key).to_owned()).collect()
    }

    fn servers_key() -> Vec<String> {
        k(&["mcp_servers"])
    }

    fn entry() -> Json {
        json!({"command": "npx", "args": ["-y", "pkg"], "env": {"TOKEN": "t"}, "startup_timeout_sec": 20, "ratio": 1.5, "enabled": true})
    }

    const CODEX: &str = "# Codex settings\nmodel = \"o3\" # default\napproval_policy = \"never\"\n\n[projects.\"/x\"]\ntrust_level = \"trusted\"\n\n# servers below\n[mcp_servers.docs]\ncommand = \"docs-server\" # local\nargs = [\"--port\", \"1\"]\n\n[mcp_servers.docs.env]\nA = \"1\"\n\n[profiles.x]\nmodel = \"gpt\"\n";

    #[test]
    fn add_then_remove_restores_codex_config() {
        let mut doc = TomlDoc::parse(CODEX).unwrap();
        assert_eq!(
            doc.upsert(&servers_key(), "new", &entry()).unwrap(),
            Edit::Added
        );
        let added = doc.render();
        assert!(added.contains("[mcp_servers.new]\ncommand = \"npx\"\nargs = [\"-y\", \"pkg\"]\nstartup_timeout_sec = 20\nratio = 1.5\nenabled = true\n"), "{added}");
        assert!(
            added.contains("[mcp_servers.new.env]\nTOKEN = \"t\"\n"),
            "{added}"
        );
        assert!(!added.contains("[mcp_servers]\n"));
        // Grouped after the existing entry, before `[profiles.x]`.
        assert!(added.find("[mcp_servers.new]").unwrap() < added.find("[profiles.x]").unwrap());
        assert!(added.starts_with(&CODEX[..CODEX.find("[profiles.x]").unwrap()]));
        let mut doc = TomlDoc::parse(&*added).unwrap();
        let servers = doc.servers(&servers_key()).unwrap();
        assert_eq!(servers.len(), 2);
        assert_eq!(servers[1], ("new".to_owned(), entry()));
        assert_eq!(
            doc.upsert(&servers_key(), "new", &entry()).unwrap(),
            Edit::Unchanged
        );
        assert_eq!(doc.remove(&servers_key(), "new").unwrap(), Edit::Removed);
        assert_eq!(doc.render(), CODEX);
    }

    #[test]
    fn crlf_file_stays_crlf() {
        let text = CODEX.replace('\n', "\r\n");
        let mut doc = TomlDoc::parse(&text).unwrap();
        doc.upsert(&servers_key(), "new", &entry()).unwrap();
        let added = doc.render();
        assert!(!added.replace("\r\n", "").contains('\n'));
        let mut doc = TomlDoc::parse(&*added).unwrap();
        doc.remove(&servers_key(), "new").unwrap();
        assert_eq!(doc.render(), text);
    }

    #[test]
    fn empty_document_gets_an_implicit_parent() {
        for text in ["", "\n  \n"] {
            let mut doc = TomlDoc::parse(text).unwrap();
            assert!(doc.servers(&servers_key()).unwrap().is_empty());
            doc.upsert(
                &servers_key(),
                "my.server",
                &json!({"command": "x", "env": {"A": "b"}}),
            )
            .unwrap();
            let out = doc.render();
            assert!(
                out.contains("[mcp_servers.\"my.server\"]\ncommand = \"x\"\n"),
                "{out:?}"
            );
            assert!(
                out.contains("[mcp_servers.\"my.server\".env]\nA = \"b\"\n"),
                "{out:?}"
            );
            assert!(!out.contains("[mcp_servers]"));
        }
        let mut doc = TomlDoc::parse("model = \"o3\"\n").unwrap();
        doc.upsert(&servers_key(), "a b", &json!({"url": "u"}))
            .unwrap();
        assert_eq!(
            doc.render(),
            "model = \"o3\"\n\n[mcp_servers.\"a b\"]\nurl = \"u\"\n"
        );
    }

    #[test]
    fn update_keeps_style_and_comments_of_unchanged_keys() {
        let text = "[mcp_servers.a]\n# the command\ncommand = \"x\" # why\nenv = { A = \"1\" }\nargs = []\n\n[other]\nk = 1\n";
        let mut doc = TomlDoc::parse(text).unwrap();
        let changed = json!({"command": "x", "env": {"A": "2"}, "url": "u"});
        assert_eq!(
            doc.upsert(&servers_key(), "a", &changed).unwrap(),
            Edit::Updated
        );
        assert_eq!(
            doc.render(),
            "[mcp_servers.a]\n# the command\ncommand = \"x\" # why\nenv = { A = \"2\" }\nurl = \"u\"\n\n[other]\nk = 1\n"
        );
        // An inline entry under an explicit [mcp_servers] stays inline.
        let text = "[mcp_servers]\na = { command = \"x\" } # note\n";
        let mut doc = TomlDoc::parse(text).unwrap();
        doc.upsert(&servers_key(), "a", &json!({"command": "y"}))
            .unwrap();
        assert_eq!(
            doc.render(),
            "[mcp_servers]\na = { command = \"y\" } # note\n"
        );
        doc.upsert(&servers_key(), "b", &json!({"command": "z"}))
            .unwrap();
        doc.remove(&servers_key(), "b").unwrap();
        assert_eq!(
            doc.render(),
            "[mcp_servers]\na = { command = \"y\" } # note\n"
        );
    }

    #[test]
    fn null_and_huge_integers_are_unrepresentable() {
        let mut doc = TomlDoc::parse(CODEX).unwrap();
        for bad in [
            json!({"command": null}),
            json!({"n": u64::MAX}),
            json!({"a": [1, null]}),
        ] {
            assert!(matches!(
                doc.upsert(&servers_key(), "x", &bad),
                Err(ShapeError::Unrepresentable { .. })
            ));
        }
        assert_eq!(doc.render(), CODEX);
    }

    #[test]
    fn wrong_shapes_and_parse_errors() {
        let mut doc = TomlDoc::parse("mcp_servers = \"x\"\n").unwrap();
        match doc.upsert(&servers_key(), "a", &json!({})).unwrap_err() {
            ShapeError::NotAnObject {
                key,
                found,
                position,
            } => {
                assert_eq!((key.as_str(), found), ("mcp_servers", "a string"));
                assert_eq!(position, Some(Position { line: 1, column: 1 }));
            }
            other => panic!("{other:?}"),
        }
        assert!(doc.servers(&servers_key()).is_err());
        assert!(doc.remove(&servers_key(), "a").is_err());
        let err = super::super::Format::Toml
            .parse("a = 1\nb = = 2\n")
            .err()
            .unwrap();
        assert_eq!((err.line, err.column), (2, 5));
        assert!(!err.message.is_empty());
    }

    #[test]
    fn integers_stay_integers_and_position_finds_keys() {
        let text = "[mcp_servers.github]\nurl = \"u\"\ntimeout = 3\nratio = 2.0\n";
        let doc = TomlDoc::parse(text).unwrap();
        let servers = doc.servers(&servers_key()).unwrap();
        assert_eq!(
            servers[0].1,
            json!({"url": "u", "timeout": 3, "ratio": 2.0})
        );
        assert!(servers[0].1["timeout"].is_i64());
        assert_eq!(
            doc.position(&k(&["mcp_servers", "github", "url"])),
            Some(Position { line: 2, column: 1 })
        );
        assert_eq!(
            doc.position(&k(&["mcp_servers", "github"])),
            Some(Position {
                line: 1,
                column: 14
            })
        );
        assert_eq!(doc.position(&k(&["mcp_servers", "nope"])), None);
    }

    #[test]
    fn remove_takes_sub_tables_and_absent_is_unchanged() {
        let mut doc = TomlDoc::parse(CODEX).unwrap();
        assert_eq!(
            doc.remove(&servers_key(), "missing").unwrap(),
            Edit::Unchanged
        );
        assert_eq!(
            doc.remove(&k(&["nothing", "here"]), "missing").unwrap(),
            Edit::Unchanged
        );
        assert_eq!(doc.render(), CODEX);
        assert_eq!(doc.remove(&servers_key(), "docs").unwrap(), Edit::Removed);
        let out = doc.render();
        assert!(!out.contains("docs"), "{out}");
        assert!(out.contains("[profiles.x]\nmodel = \"gpt\"\n"));
    }
}
