//! TOML documents (`TomlDoc`, Codex's `config.toml`): entries are `[mcp_servers.NAME]`
//! tables edited through `toml_edit`, which keeps comments, order and spelling.
//!
//! New entries are non-inline tables under an implicit parent (no bare `[mcp_servers]`
//! header), with nested objects as sub-tables; updates keep the existing entry's style
//! (inline table or sub-table, comments on unchanged keys). This module never writes a
//! value TOML cannot hold (JSON `null`, integers beyond i64) and never renders an unedited
//! document differently from the text it was parsed from.

use serde_json::{Map, Number, Value as Json};
use toml_edit::{Array, ArrayOfTables, DocumentMut, InlineTable, Item, Table, Value};

use super::json::detect_line_ending;
use super::{
    BLANK_KEPT, ConfigDoc, Edit, MapState, ParseError, Position, RawEntry, ServersAt, ShapeError,
    position_of, squeezed,
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
                message: super::tree::toml_message(err.message(), &text, err.span()),
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

/// Map-shaped servers: `[mcp_servers.NAME]` tables (or inline tables).
impl TomlDoc {
    fn map_servers(&self, key: &[String]) -> Result<Vec<(String, RawEntry)>, ShapeError> {
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

    fn map_upsert(
        &mut self,
        key: &[String],
        name: &str,
        entry: &RawEntry,
    ) -> Result<Edit, ShapeError> {
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

    fn map_remove(&mut self, key: &[String], name: &str) -> Result<Edit, ShapeError> {
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
}

impl ConfigDoc for TomlDoc {
    fn servers(&self, at: ServersAt<'_>) -> Result<Vec<(String, RawEntry)>, ShapeError> {
        match at.name_key {
            None => self.map_servers(at.key),
            Some(name_key) => self.list_servers(at.key, name_key),
        }
    }

    fn upsert(
        &mut self,
        at: ServersAt<'_>,
        name: &str,
        entry: &RawEntry,
    ) -> Result<Edit, ShapeError> {
        match at.name_key {
            None => self.map_upsert(at.key, name, entry),
            Some(name_key) => self.list_upsert(at.key, name_key, name, entry, false),
        }
    }

    /// In a list-shaped file (Mistral Vibe's `[[mcp_servers]]`), the names already there
    /// are read once for the batch: each `upsert` looks for its name among all items,
    /// which made a plan quadratic in the servers.
    fn add_all(&mut self, at: ServersAt<'_>, adds: &[(&str, &RawEntry)]) -> Result<(), ShapeError> {
        let Some(name_key) = at.name_key else {
            for (name, entry) in adds {
                self.map_upsert(at.key, name, entry)?;
            }
            return Ok(());
        };
        let mut present: std::collections::HashSet<String> = self
            .list_servers(at.key, name_key)?
            .into_iter()
            .map(|(name, _)| name)
            .collect();
        for (name, entry) in adds {
            let absent = !present.contains(*name);
            self.list_upsert(at.key, name_key, name, entry, absent)?;
            present.insert((*name).to_owned());
        }
        Ok(())
    }

    fn remove(&mut self, at: ServersAt<'_>, name: &str) -> Result<Edit, ShapeError> {
        match at.name_key {
            None => self.map_remove(at.key, name),
            Some(name_key) => self.list_remove(at.key, name_key, name),
        }
    }

    fn entry_positions(&self, at: ServersAt<'_>) -> (Option<Position>, Vec<(String, Position)>) {
        // One parse with spans (the edited document keeps none) for every entry.
        let text = self.render();
        let Ok(parsed) = toml_edit::Document::parse(&*text) else {
            return (None, Vec::new());
        };
        let lines = super::Lines::new(&text);
        // As `position(at.key)`: the span of the last key found along the path.
        let mut item = parsed.as_item();
        let mut span = None;
        let mut missing = false;
        for segment in at.key {
            let Some((key, next)) = item.as_table_like().and_then(|t| t.get_key_value(segment))
            else {
                missing = true;
                break;
            };
            span = key.span();
            item = next;
        }
        let map_at = if missing {
            None
        } else {
            span.map(|s| lines.position(s.start))
        };
        if missing {
            return (map_at, Vec::new());
        }
        let spans: Vec<(String, Option<std::ops::Range<usize>>)> = match (at.name_key, item) {
            (None, item) => match item.as_table_like() {
                Some(table) => table
                    .iter()
                    .map(|(name, _)| {
                        let span = table.get_key_value(name).and_then(|(key, _)| key.span());
                        (name.to_owned(), span)
                    })
                    .collect(),
                None => Vec::new(),
            },
            (Some(name_key), Item::ArrayOfTables(tables)) => tables
                .iter()
                .filter_map(|t| {
                    let name = t.get(name_key).and_then(Item::as_str)?;
                    Some((name.to_owned(), t.key(name_key).and_then(|k| k.span())))
                })
                .collect(),
            (Some(name_key), Item::Value(Value::Array(items))) => items
                .iter()
                .filter_map(Value::as_inline_table)
                .filter_map(|t| {
                    let name = t.get(name_key).and_then(Value::as_str)?;
                    Some((name.to_owned(), t.key(name_key).and_then(|k| k.span())))
                })
                .collect(),
            _ => Vec::new(),
        };
        // In a list, a repeated name is where it first appears.
        let mut seen = std::collections::HashSet::new();
        let entries = spans
            .into_iter()
            .filter(|(name, _)| seen.insert(name.clone()))
            .filter_map(|(name, span)| Some((name, lines.position(span?.start))))
            .collect();
        (map_at, entries)
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

/// List-shaped servers: `[[mcp_servers]]` tables (or an inline array of inline tables)
/// whose `name_key` holds the entry's name (Mistral Vibe).
impl TomlDoc {
    /// The list at `key`: `None` when it (or a parent) is missing.
    fn list(&self, key: &[String]) -> Result<Option<&Item>, ShapeError> {
        let Some((last, parent)) = key.split_last() else {
            return Err(self.not_a_list(key, self.doc.as_item()));
        };
        self.check_shape(parent)?;
        let mut item = self.doc.as_item();
        for segment in parent {
            match item.get(segment.as_str()) {
                Some(next) => item = next,
                None => return Ok(None),
            }
        }
        match item.get(last.as_str()) {
            None => Ok(None),
            Some(list @ (Item::ArrayOfTables(_) | Item::Value(Value::Array(_)))) => Ok(Some(list)),
            Some(other) => Err(self.not_a_list(key, other)),
        }
    }

    fn not_a_list(&self, key: &[String], item: &Item) -> ShapeError {
        ShapeError::NotAList {
            key: if key.is_empty() {
                "(root)".to_owned()
            } else {
                key.join(".")
            },
            found: describe(item),
            position: self.position(key),
        }
    }

    fn list_servers(
        &self,
        key: &[String],
        name_key: &str,
    ) -> Result<Vec<(String, RawEntry)>, ShapeError> {
        let items = match self.list(key)? {
            Some(Item::ArrayOfTables(tables)) => tables.iter().map(table_to_json).collect(),
            Some(Item::Value(Value::Array(values))) => values.iter().map(value_to_json).collect(),
            _ => Vec::new(),
        };
        Ok(items
            .into_iter()
            .filter_map(|item| split_name(item, name_key))
            .collect())
    }

    /// `absent`: the caller knows no item is named `name` (`add_all`), so the list is not
    /// searched for it.
    fn list_upsert(
        &mut self,
        key: &[String],
        name_key: &str,
        name: &str,
        entry: &RawEntry,
        absent: bool,
    ) -> Result<Edit, ShapeError> {
        let Json::Object(fields) = entry else {
            return Err(ShapeError::Unrepresentable {
                name: name.to_owned(),
                message: "an entry must be an object".to_owned(),
            });
        };
        if fields.contains_key(name_key) {
            return Err(ShapeError::Unrepresentable {
                name: name.to_owned(),
                message: format!("`{name_key}` holds the entry's name in this file"),
            });
        }
        let mut named = Map::with_capacity(fields.len() + 1);
        named.insert(name_key.to_owned(), Json::String(name.to_owned()));
        named.extend(fields.iter().map(|(k, v)| (k.clone(), v.clone())));
        // Nested objects stay inline (`env = { A = "1" }`): a `[mcp_servers.env]` header
        // would be valid but easy to misread under `[[mcp_servers]]`.
        let mut new_table = Table::new();
        for (key, value) in &named {
            new_table.insert(key, Item::Value(json_to_value(name, value)?));
        }
        let new_inline = json_to_value(name, &Json::Object(named.clone()))?;
        let exists = self.list(key)?.is_some();
        let Some((last, parent_key)) = key.split_last() else {
            return Ok(Edit::Unchanged);
        };
        if !exists {
            let Some(parent) = self.container(parent_key, true)? else {
                return Ok(Edit::Unchanged);
            };
            match parent {
                Item::Table(table) => {
                    let mut tables = ArrayOfTables::new();
                    tables.push(new_table);
                    table.insert(last, Item::ArrayOfTables(tables));
                }
                Item::Value(Value::InlineTable(table)) => {
                    let mut values = Array::new();
                    values.push(new_inline);
                    table.insert(last, Value::Array(values));
                }
                _ => return Ok(Edit::Unchanged),
            }
            self.edited = true;
            return Ok(Edit::Added);
        }
        let Some(parent) = self.container(parent_key, false)? else {
            return Ok(Edit::Unchanged);
        };
        let Some(list) = parent
            .as_table_like_mut()
            .and_then(|table| table.get_mut(last))
        else {
            return Ok(Edit::Unchanged);
        };
        let wanted = Json::Object(named.clone());
        let edit = match list {
            Item::ArrayOfTables(tables) => {
                let found = (!absent)
                    .then(|| tables.iter().position(|t| table_named(t, name_key, name)))
                    .flatten();
                match found {
                    Some(i) => match tables.get_mut(i) {
                        Some(table) if table_to_json(table) == wanted => Edit::Unchanged,
                        Some(table) => {
                            update_table(name, table, &named)?;
                            Edit::Updated
                        }
                        None => Edit::Unchanged,
                    },
                    None => {
                        tables.push(new_table);
                        Edit::Added
                    }
                }
            }
            Item::Value(Value::Array(values)) => {
                let found = (!absent)
                    .then(|| values.iter().position(|v| value_named(v, name_key, name)))
                    .flatten();
                match found {
                    Some(i) => match values.get_mut(i) {
                        Some(value) if value_to_json(value) == wanted => Edit::Unchanged,
                        Some(value) => {
                            replace_value(value, new_inline);
                            Edit::Updated
                        }
                        None => Edit::Unchanged,
                    },
                    None => {
                        values.push(new_inline);
                        Edit::Added
                    }
                }
            }
            _ => Edit::Unchanged,
        };
        if edit != Edit::Unchanged {
            self.edited = true;
        }
        Ok(edit)
    }

    /// Removes every item named `name` (the client must not see the server afterwards).
    /// An array of tables left empty goes away with its key, so removing what `upsert`
    /// created restores the file.
    fn list_remove(
        &mut self,
        key: &[String],
        name_key: &str,
        name: &str,
    ) -> Result<Edit, ShapeError> {
        if self.list(key)?.is_none() {
            return Ok(Edit::Unchanged);
        }
        let Some((last, parent_key)) = key.split_last() else {
            return Ok(Edit::Unchanged);
        };
        let Some(parent) = self
            .container(parent_key, false)?
            .and_then(|item| item.as_table_like_mut())
        else {
            return Ok(Edit::Unchanged);
        };
        let (removed, now_empty) = match parent.get_mut(last) {
            Some(Item::ArrayOfTables(tables)) => {
                let before = tables.len();
                tables.retain(|t| !table_named(t, name_key, name));
                (tables.len() != before, tables.is_empty())
            }
            Some(Item::Value(Value::Array(values))) => {
                let before = values.len();
                values.retain(|v| !value_named(v, name_key, name));
                (values.len() != before, false)
            }
            _ => (false, false),
        };
        if !removed {
            return Ok(Edit::Unchanged);
        }
        if now_empty {
            parent.remove(last);
        }
        self.edited = true;
        Ok(Edit::Removed)
    }
}

/// Whether a table of an array of tables is the item named `name` (`split_name` of its
/// JSON says so), read off its name key alone: converting every item to JSON to find
/// one made a plan into a list-shaped file quadratic in the servers.
fn table_named(table: &Table, name_key: &str, name: &str) -> bool {
    table.get(name_key).and_then(Item::as_str) == Some(name)
}

/// `table_named` for an item of an inline array (`mcp_servers = [{ name = "a" }]`).
fn value_named(value: &Value, name_key: &str, name: &str) -> bool {
    value
        .as_inline_table()
        .and_then(|t| t.get(name_key))
        .and_then(Value::as_str)
        == Some(name)
}

/// A list item as (name, entry without the name key); `None` when it is not a table or
/// has no string name.
fn split_name(item: Json, name_key: &str) -> Option<(String, RawEntry)> {
    let Json::Object(mut fields) = item else {
        return None;
    };
    let Some(Json::String(name)) = fields.remove(name_key) else {
        return None;
    };
    Some((name, Json::Object(fields)))
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
        Item::Table(table) => table_to_json(table),
        Item::ArrayOfTables(tables) => Json::Array(tables.iter().map(table_to_json).collect()),
    }
}

fn table_to_json(table: &Table) -> Json {
    Json::Object(
        table
            .iter()
            .map(|(key, item)| (key.to_owned(), item_to_json(item)))
            .collect(),
    )
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

    /// The name test read off the name key agrees with `split_name` of the item's JSON,
    /// for items of every shape a list-shaped file can hold.
    #[test]
    fn a_list_item_is_named_as_its_json_says() {
        let text = "[[mcp_servers]]\nname = \"a\"\ncommand = \"x\"\n\n[[mcp_servers]]\nname = 7\n\n[[mcp_servers]]\ncommand = \"nameless\"\n\n[[mcp_servers]]\nname = \"b\"\nname2 = \"a\"\n\n[other]\nlist = [{ name = \"a\" }, { name = 1 }, \"a\", 3, { nam = \"a\" }, { name = \"b\" }]\n";
        let doc: toml_edit::DocumentMut = text.parse().unwrap();
        let tables = doc["mcp_servers"].as_array_of_tables().unwrap();
        let values = doc["other"]["list"].as_array().unwrap();
        for name in ["a", "b", "7", "", "nameless"] {
            let by_json = |json: Json| split_name(json, "name").is_some_and(|(n, _)| n == name);
            for table in tables.iter() {
                assert_eq!(
                    table_named(table, "name", name),
                    by_json(table_to_json(table))
                );
            }
            for value in values.iter() {
                assert_eq!(
                    value_named(value, "name", name),
                    by_json(value_to_json(value))
                );
            }
        }
    }

    fn entry() -> Json {
        json!({"command": "npx", "args": ["-y", "pkg"], "env": {"TOKEN": "t"}, "startup_timeout_sec": 20, "ratio": 1.5, "enabled": true})
    }

    const CODEX: &str = "# Codex settings\nmodel = \"o3\" # default\napproval_policy = \"never\"\n\n[projects.\"/x\"]\ntrust_level = \"trusted\"\n\n# servers below\n[mcp_servers.docs]\ncommand = \"docs-server\" # local\nargs = [\"--port\", \"1\"]\n\n[mcp_servers.docs.env]\nA = \"1\"\n\n[profiles.x]\nmodel = \"gpt\"\n";

    #[test]
    fn add_then_remove_restores_codex_config() {
        let mut doc = TomlDoc::parse(CODEX).unwrap();
        assert_eq!(
            doc.map_upsert(&servers_key(), "new", &entry()).unwrap(),
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
        let servers = doc.map_servers(&servers_key()).unwrap();
        assert_eq!(servers.len(), 2);
        assert_eq!(servers[1], ("new".to_owned(), entry()));
        assert_eq!(
            doc.map_upsert(&servers_key(), "new", &entry()).unwrap(),
            Edit::Unchanged
        );
        assert_eq!(
            doc.map_remove(&servers_key(), "new").unwrap(),
            Edit::Removed
        );
        assert_eq!(doc.render(), CODEX);
    }

    #[test]
    fn crlf_file_stays_crlf() {
        let text = CODEX.replace('\n', "\r\n");
        let mut doc = TomlDoc::parse(&text).unwrap();
        doc.map_upsert(&servers_key(), "new", &entry()).unwrap();
        let added = doc.render();
        assert!(!added.replace("\r\n", "").contains('\n'));
        let mut doc = TomlDoc::parse(&*added).unwrap();
        doc.map_remove(&servers_key(), "new").unwrap();
        assert_eq!(doc.render(), text);
    }

    #[test]
    fn empty_document_gets_an_implicit_parent() {
        for text in ["", "\n  \n"] {
            let mut doc = TomlDoc::parse(text).unwrap();
            assert!(doc.map_servers(&servers_key()).unwrap().is_empty());
            doc.map_upsert(
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
        doc.map_upsert(&servers_key(), "a b", &json!({"url": "u"}))
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
            doc.map_upsert(&servers_key(), "a", &changed).unwrap(),
            Edit::Updated
        );
        assert_eq!(
            doc.render(),
            "[mcp_servers.a]\n# the command\ncommand = \"x\" # why\nenv = { A = \"2\" }\nurl = \"u\"\n\n[other]\nk = 1\n"
        );
        // An inline entry under an explicit [mcp_servers] stays inline.
        let text = "[mcp_servers]\na = { command = \"x\" } # note\n";
        let mut doc = TomlDoc::parse(text).unwrap();
        doc.map_upsert(&servers_key(), "a", &json!({"command": "y"}))
            .unwrap();
        assert_eq!(
            doc.render(),
            "[mcp_servers]\na = { command = \"y\" } # note\n"
        );
        doc.map_upsert(&servers_key(), "b", &json!({"command": "z"}))
            .unwrap();
        doc.map_remove(&servers_key(), "b").unwrap();
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
                doc.map_upsert(&servers_key(), "x", &bad),
                Err(ShapeError::Unrepresentable { .. })
            ));
        }
        assert_eq!(doc.render(), CODEX);
    }

    #[test]
    fn wrong_shapes_and_parse_errors() {
        let mut doc = TomlDoc::parse("mcp_servers = \"x\"\n").unwrap();
        match doc.map_upsert(&servers_key(), "a", &json!({})).unwrap_err() {
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
        assert!(doc.map_servers(&servers_key()).is_err());
        assert!(doc.map_remove(&servers_key(), "a").is_err());
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
        let servers = doc.map_servers(&servers_key()).unwrap();
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
            doc.map_remove(&servers_key(), "missing").unwrap(),
            Edit::Unchanged
        );
        assert_eq!(
            doc.map_remove(&k(&["nothing", "here"]), "missing").unwrap(),
            Edit::Unchanged
        );
        assert_eq!(doc.render(), CODEX);
        assert_eq!(
            doc.map_remove(&servers_key(), "docs").unwrap(),
            Edit::Removed
        );
        let out = doc.render();
        assert!(!out.contains("docs"), "{out}");
        assert!(out.contains("[profiles.x]\nmodel = \"gpt\"\n"));
    }

    fn vibe() -> ServersAt<'static> {
        static KEY: std::sync::LazyLock<Vec<String>> =
            std::sync::LazyLock::new(|| vec!["mcp_servers".to_owned()]);
        ServersAt::list(&KEY, "name")
    }

    const VIBE: &str = "# Vibe settings\nactive_model = \"devstral\"\n\n# docs server\n[[mcp_servers]]\nname = \"docs\" # the docs\ntransport = \"stdio\"\ncommand = \"docs-server\"\nargs = [\"--port\", \"1\"]\n\n[[mcp_servers]]\nname = \"remote\"\ntransport = \"http\"\nurl = \"https://x/mcp\"\nheaders = { Authorization = \"Bearer t\" }\n\n[tools.bash]\npermission = \"ask\"\n";

    /// A batch (`add_all`, what a plan writes) gives the bytes of one `upsert` after
    /// another: into a list-shaped file with items there (one of them updated), an inline
    /// array, a file without the list, and a map-shaped one.
    #[test]
    fn add_all_is_one_upsert_after_another() {
        let adds = vec![
            (
                "new1".to_owned(),
                json!({"transport": "stdio", "command": "a", "env": {"K": "v"}}),
            ),
            (
                "docs".to_owned(),
                json!({"transport": "stdio", "command": "docs-server", "args": ["--port", "2"]}),
            ),
            (
                "new2".to_owned(),
                json!({"transport": "http", "url": "https://y/mcp"}),
            ),
            (
                "new1".to_owned(),
                json!({"transport": "stdio", "command": "b"}),
            ),
        ];
        let inline = "mcp_servers = [{ name = \"docs\", command = \"d\" }]\n";
        let map_key = servers_key();
        for (text, at) in [
            (VIBE, vibe()),
            (inline, vibe()),
            ("active_model = \"x\"\n", vibe()),
            (
                "[mcp_servers.docs]\ncommand = \"d\"\n",
                ServersAt::map(&map_key),
            ),
        ] {
            let mut one_by_one = TomlDoc::parse(text).unwrap();
            for (name, entry) in &adds {
                one_by_one.upsert(at, name, entry).unwrap();
            }
            let mut batch = TomlDoc::parse(text).unwrap();
            let borrowed: Vec<(&str, &Json)> = adds.iter().map(|(n, e)| (n.as_str(), e)).collect();
            batch.add_all(at, &borrowed).unwrap();
            assert_eq!(batch.render(), one_by_one.render(), "{text}");
        }
    }

    #[test]
    fn list_servers_are_named_by_their_key() {
        let doc = TomlDoc::parse(VIBE).unwrap();
        let servers = doc.servers(vibe()).unwrap();
        assert_eq!(
            servers,
            vec![
                (
                    "docs".to_owned(),
                    json!({"transport": "stdio", "command": "docs-server", "args": ["--port", "1"]})
                ),
                (
                    "remote".to_owned(),
                    json!({"transport": "http", "url": "https://x/mcp", "headers": {"Authorization": "Bearer t"}})
                ),
            ]
        );
        assert_eq!(
            crate::formats::entry_position(&doc, vibe(), "remote"),
            Some(Position {
                line: 12,
                column: 1
            })
        );
        // Items without a string name are not servers mcpctl can address.
        let doc = TomlDoc::parse("[[mcp_servers]]\ncommand = \"x\"\n[[mcp_servers]]\nname = 3\n")
            .unwrap();
        assert!(doc.servers(vibe()).unwrap().is_empty());
    }

    #[test]
    fn list_add_then_remove_restores_the_file() {
        let text_variants = [
            VIBE.to_owned(),
            VIBE.replace('\n', "\r\n"),
            VIBE.trim_end().to_owned(),
            "active_model = \"devstral\"\n".to_owned(),
            "active_model = \"devstral\"".to_owned(),
            String::new(),
            "# only a comment\n".to_owned(),
            "[tools.bash]\r\npermission = \"ask\"\r\n".to_owned(),
        ];
        for text in text_variants {
            let mut doc = TomlDoc::parse(&text).unwrap();
            let before = doc.servers(vibe()).unwrap();
            assert_eq!(doc.upsert(vibe(), "new", &entry()).unwrap(), Edit::Added);
            let added = doc.render().into_owned();
            if text.contains("\r\n") {
                assert!(!added.replace("\r\n", "").contains('\n'), "{added:?}");
            }
            assert!(added.contains("[[mcp_servers]]"), "{added}");
            assert!(added.contains("name = \"new\""), "{added}");
            let mut doc = TomlDoc::parse(&added).unwrap();
            let after = doc.servers(vibe()).unwrap();
            assert_eq!(&after[..before.len()], &before[..]);
            assert_eq!(after.last().unwrap(), &("new".to_owned(), entry()));
            assert_eq!(
                doc.upsert(vibe(), "new", &entry()).unwrap(),
                Edit::Unchanged
            );
            assert_eq!(doc.remove(vibe(), "new").unwrap(), Edit::Removed);
            assert_eq!(doc.render(), text, "from {added:?}");
        }
    }

    #[test]
    fn list_add_goes_after_the_last_item_and_keeps_the_rest() {
        let mut doc = TomlDoc::parse(VIBE).unwrap();
        doc.upsert(
            vibe(),
            "new",
            &json!({"transport": "stdio", "command": "x"}),
        )
        .unwrap();
        let out = doc.render();
        let new = out.find("name = \"new\"").unwrap();
        assert!(out.find("name = \"remote\"").unwrap() < new, "{out}");
        assert!(new < out.find("[tools.bash]").unwrap(), "{out}");
        assert!(
            out.starts_with(&VIBE[..VIBE.find("[tools.bash]").unwrap()]),
            "{out}"
        );
        assert!(out.contains("name = \"docs\" # the docs\n"));
    }

    #[test]
    fn list_update_keeps_name_comments_and_other_items() {
        let mut doc = TomlDoc::parse(VIBE).unwrap();
        let changed =
            json!({"transport": "stdio", "command": "docs-server", "args": ["--port", "2"]});
        assert_eq!(doc.upsert(vibe(), "docs", &changed).unwrap(), Edit::Updated);
        assert_eq!(
            doc.render(),
            VIBE.replace("\"--port\", \"1\"", "\"--port\", \"2\"")
        );
        assert_eq!(doc.remove(vibe(), "docs").unwrap(), Edit::Removed);
        let out = doc.render();
        assert!(!out.contains("docs"), "{out}");
        assert!(
            out.contains("[[mcp_servers]]\nname = \"remote\"\n"),
            "{out}"
        );
        assert_eq!(doc.remove(vibe(), "docs").unwrap(), Edit::Unchanged);
        // The name key belongs to the document, not to the entry.
        assert!(matches!(
            doc.upsert(vibe(), "x", &json!({"name": "y", "command": "c"})),
            Err(ShapeError::Unrepresentable { .. })
        ));
    }

    #[test]
    fn inline_list_is_edited_inline() {
        let text = "mcp_servers = [{ name = \"a\", command = \"x\" }] # servers\n";
        let mut doc = TomlDoc::parse(text).unwrap();
        assert_eq!(doc.servers(vibe()).unwrap().len(), 1);
        doc.upsert(vibe(), "b", &json!({"command": "y"})).unwrap();
        let out = doc.render().into_owned();
        assert!(out.contains("{ name = \"b\", command = \"y\" }"), "{out}");
        let mut doc = TomlDoc::parse(&out).unwrap();
        doc.remove(vibe(), "b").unwrap();
        assert_eq!(
            TomlDoc::parse(&*doc.render())
                .unwrap()
                .servers(vibe())
                .unwrap(),
            vec![("a".to_owned(), json!({"command": "x"}))]
        );
    }

    #[test]
    fn list_wrong_shapes() {
        let mut doc = TomlDoc::parse("[mcp_servers.a]\ncommand = \"x\"\n").unwrap();
        for err in [
            doc.servers(vibe()).unwrap_err(),
            doc.upsert(vibe(), "b", &json!({})).unwrap_err(),
            doc.remove(vibe(), "a").unwrap_err(),
        ] {
            match err {
                ShapeError::NotAList { key, found, .. } => {
                    assert_eq!((key.as_str(), found), ("mcp_servers", "a table"));
                }
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(doc.render(), "[mcp_servers.a]\ncommand = \"x\"\n");
    }

    mod list_props {
        use super::*;
        use proptest::prelude::*;

        fn item() -> impl Strategy<Value = (String, bool, bool)> {
            ("[a-z]{1,6}", any::<bool>(), any::<bool>())
        }

        /// A Vibe-like file: settings, commented `[[mcp_servers]]` items (some inline
        /// tables in between as a second spelling is not mixed in one array), other tables.
        fn file() -> impl Strategy<Value = String> {
            (
                proptest::collection::vec(item(), 0..5),
                any::<bool>(),
                any::<bool>(),
                any::<bool>(),
            )
                .prop_map(|(items, crlf, trailing_table, final_newline)| {
                    let mut text = String::from("# vibe\nactive_model = \"m\"\n");
                    let mut seen = Vec::new();
                    for (name, comment, blank) in items {
                        if seen.contains(&name) {
                            continue;
                        }
                        if blank {
                            text.push('\n');
                        }
                        if comment {
                            text.push_str(&format!("# about {name}\n"));
                        }
                        text.push_str(&format!(
                            "[[mcp_servers]]\nname = \"{name}\"\ncommand = \"{name}-server\" # why\ndisabled_tools = [\"t\"]\n"
                        ));
                        seen.push(name);
                    }
                    if trailing_table {
                        text.push_str("\n[tools.bash]\npermission = \"ask\"\n");
                    }
                    if !final_newline {
                        text.pop();
                    }
                    if crlf { text.replace('\n', "\r\n") } else { text }
                })
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(256))]
            #[test]
            fn add_then_remove_is_identity(text in file(), new_name in "[a-z]{1,7}") {
                let mut doc = TomlDoc::parse(&text).unwrap();
                let before = doc.servers(vibe()).unwrap();
                prop_assume!(!before.iter().any(|(n, _)| *n == new_name));
                prop_assert_eq!(doc.upsert(vibe(), &new_name, &entry()).unwrap(), Edit::Added);
                let added = doc.render().into_owned();
                let mut doc = TomlDoc::parse(&added).unwrap();
                let after = doc.servers(vibe()).unwrap();
                prop_assert_eq!(&after[..before.len()], &before[..]);
                prop_assert_eq!(after.last().unwrap(), &(new_name.clone(), entry()));
                // Other items and comments are untouched.
                for line in text.lines().filter(|l| l.contains('#')) {
                    prop_assert!(added.contains(line), "lost {:?} in {:?}", line, added);
                }
                prop_assert_eq!(doc.remove(vibe(), &new_name).unwrap(), Edit::Removed);
                prop_assert_eq!(doc.render(), text.as_str());
                // Removing an existing item leaves the others byte-identical.
                if let Some((first, _)) = before.first() {
                    let mut doc = TomlDoc::parse(&text).unwrap();
                    doc.remove(vibe(), first).unwrap();
                    let out = doc.render();
                    for (name, _) in &before[1..] {
                        let line = format!("command = \"{name}-server\" # why");
                        prop_assert!(out.contains(&line));
                    }
                }
            }
        }
    }
}
