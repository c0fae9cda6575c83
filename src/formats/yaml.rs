//! YAML documents (`YamlDoc`, Goose's `config.yaml`): entries of a servers mapping
//! (`extensions: {name: {...}}`) edited as text at the byte spans a strict parse found.
//!
//! An edit replaces, inserts or cuts whole lines of one entry (or, in a flow mapping
//! `{...}`, one `key: value` pair), so every byte outside the entry stays as it was:
//! comments, other entries, anchors, quoting, indentation, CRLF. New entries follow the
//! file's indentation step and its sequence style (`args:` then `- x` at the key's
//! column, as Goose writes, or indented). Strings are written plain when the core schema
//! reads them back as the same string, else double-quoted.
//!
//! After every edit the new text is parsed again and compared, as values, with the old
//! document plus the intended change; when they differ the edit is refused and the
//! document keeps its text. This module never touches the file system and never prints.

use std::borrow::Cow;

use serde_json::{Map, Value as Json};

use super::json::detect_line_ending;
use super::yaml_parse::{self, YDoc, YEntry, YKind, YNode};
use super::{ConfigDoc, Edit, ParseError, Position, RawEntry, ServersAt, ShapeError, position_of};

pub(super) struct YamlDoc {
    text: String,
    tree: YDoc,
}

/// Where the servers mapping is, for an edit.
enum Place<'a> {
    /// The mapping exists.
    Map(&'a YNode),
    /// `key[..depth]` exists and is a mapping (`None`: the document is empty); the rest
    /// of the path is missing.
    Missing {
        parent: Option<&'a YNode>,
        depth: usize,
    },
    /// `key[..=depth]` is written with an empty or null value (`extensions:`); `holder`
    /// is the entry whose value it is.
    Null { holder: &'a YEntry, depth: usize },
}

/// How the file lays out block collections.
struct Layout {
    nl: &'static str,
    /// Spaces per nesting level.
    step: usize,
    /// `- item` at the parent key's column (Goose/serde style) rather than indented.
    indentless: bool,
}

impl YamlDoc {
    pub(super) fn parse(text: impl Into<String>) -> Result<Self, ParseError> {
        let text: String = text.into();
        let tree = yaml_parse::parse(&text).map_err(|e| {
            let at = position_of(&text, e.offset);
            ParseError {
                line: at.line,
                column: at.column,
                message: e.message,
            }
        })?;
        Ok(YamlDoc { text, tree })
    }

    /// The node at `key` for an edit.
    fn place(&self, key: &[String]) -> Result<Place<'_>, ShapeError> {
        let Some(mut node) = self.tree.root.as_ref() else {
            return Ok(Place::Missing {
                parent: None,
                depth: 0,
            });
        };
        let mut holder: Option<&YEntry> = None;
        for depth in 0..=key.len() {
            match &node.kind {
                YKind::Map { entries, .. } => {
                    let Some(segment) = key.get(depth) else {
                        return Ok(Place::Map(node));
                    };
                    match entries.iter().rev().find(|e| e.key_text() == *segment) {
                        Some(entry) => {
                            holder = Some(entry);
                            node = &entry.value;
                        }
                        None => {
                            return Ok(Place::Missing {
                                parent: Some(node),
                                depth,
                            });
                        }
                    }
                }
                YKind::Scalar { .. } if self.is_null(node) => {
                    if let (Some(holder), Some(depth)) = (holder, depth.checked_sub(1)) {
                        return Ok(Place::Null { holder, depth });
                    }
                    return Ok(Place::Missing {
                        parent: None,
                        depth: 0,
                    });
                }
                _ => return Err(self.not_a_map(&key[..depth], node)),
            }
        }
        Ok(Place::Map(node))
    }

    fn is_null(&self, node: &YNode) -> bool {
        self.tree.value(node, 0).is_null()
    }

    fn not_a_map(&self, key: &[String], node: &YNode) -> ShapeError {
        let found = match &self.tree.resolve(node).kind {
            YKind::Map { .. } => "an alias of a mapping",
            YKind::Seq { .. } => "a list",
            YKind::Alias(_) => "an alias",
            YKind::Scalar { .. } => match self.tree.value(node, 0) {
                Json::Bool(_) => "a boolean",
                Json::Number(_) => "a number",
                _ => "a string",
            },
        };
        ShapeError::NotAnObject {
            key: if key.is_empty() {
                "(root)".to_owned()
            } else {
                key.join(".")
            },
            found,
            position: self.position(key),
        }
    }

    fn layout(&self) -> Layout {
        let mut layout = Layout {
            nl: detect_line_ending(&self.text),
            step: 2,
            indentless: true,
        };
        let mut step = None;
        let mut indentless = None;
        if let Some(root) = &self.tree.root {
            self.scan_layout(root, &mut step, &mut indentless);
        }
        layout.step = step.unwrap_or(2);
        layout.indentless = indentless.unwrap_or(true);
        layout
    }

    /// The first nested block mapping gives the step; the first block list under a key
    /// gives the sequence style.
    fn scan_layout(&self, node: &YNode, step: &mut Option<usize>, indentless: &mut Option<bool>) {
        let YKind::Map {
            entries,
            flow: false,
        } = &node.kind
        else {
            return;
        };
        for entry in entries {
            let key_col = column(&self.text, entry.key.start);
            match &entry.value.kind {
                YKind::Map {
                    entries: inner,
                    flow: false,
                } if step.is_none() => {
                    if let Some(first) = inner.first() {
                        let col = column(&self.text, first.key.start);
                        if col > key_col {
                            *step = Some(col - key_col);
                        }
                    }
                }
                YKind::Seq { items, flow: false } if indentless.is_none() => {
                    if let Some(first) = items.first()
                        && let Some(dash) = self.text[..first.start].rfind('-')
                    {
                        *indentless = Some(column(&self.text, dash) == key_col);
                    }
                }
                _ => {}
            }
            if step.is_some() && indentless.is_some() {
                return;
            }
            self.scan_layout(&entry.value, step, indentless);
        }
    }

    /// Replace the text, after checking that it parses to `expected`.
    fn commit(&mut self, text: String, expected: &Json, name: &str) -> Result<(), ShapeError> {
        let refused = |why: String| ShapeError::Unrepresentable {
            name: name.to_owned(),
            message: format!(
                "{why}; mcpctl left the file unchanged (edit this entry by hand, and please report the file's layout)"
            ),
        };
        let tree = yaml_parse::parse(&text)
            .map_err(|e| refused(format!("the edited YAML would not parse ({})", e.message)))?;
        if !same_document(&tree.to_json(), expected) {
            return Err(refused(
                "the edited YAML would not read back as the intended change".to_owned(),
            ));
        }
        self.text = text;
        self.tree = tree;
        Ok(())
    }

    /// The text with `range` replaced by `with`.
    fn spliced(&self, range: std::ops::Range<usize>, with: &str) -> String {
        let mut text = String::with_capacity(self.text.len() + with.len());
        text.push_str(&self.text[..range.start]);
        text.push_str(with);
        text.push_str(&self.text[range.end..]);
        text
    }

    /// The lines an entry of a block mapping occupies: from the start of its key's line to
    /// the end of the line its value ends on. `None` when the key does not start its line
    /// (`? key`, `- key: v`): mcpctl does not edit such layouts.
    fn entry_lines(&self, entry: &YEntry) -> Option<std::ops::Range<usize>> {
        let start = line_start(&self.text, entry.key.start);
        if !self.text[start..entry.key.start].bytes().all(|b| b == b' ') {
            return None;
        }
        Some(start..line_end(&self.text, entry.key.start, entry.value.end))
    }

    /// The layout for an entry of the block mapping `entries`: the file's, with the entry's
    /// fields nested as its siblings nest theirs.
    fn entry_layout(&self, entries: &[YEntry], layout: &Layout) -> Layout {
        let sibling_step = entries.iter().find_map(|e| match &e.value.kind {
            YKind::Map {
                entries: inner,
                flow: false,
            } => inner.first().and_then(|first| {
                column(&self.text, first.key.start).checked_sub(column(&self.text, e.key.start))
            }),
            _ => None,
        });
        Layout {
            nl: layout.nl,
            step: sibling_step.filter(|s| *s > 0).unwrap_or(layout.step),
            indentless: layout.indentless,
        }
    }

    /// Where a new entry of the block mapping `map` goes: its indent (the first entry's)
    /// and the end of the last entry's lines. `None` for an empty mapping or one whose
    /// first key does not start its line.
    fn append_point(&self, map: &YNode, entries: &[YEntry]) -> Option<(usize, usize)> {
        let (first, last) = (entries.first()?, entries.last()?);
        let first_lines = self.entry_lines(first)?;
        let indent = first.key.start - first_lines.start;
        Some((indent, line_end(&self.text, map.start, last.value.end)))
    }

    /// The text with every entry of `adds` appended to the block mapping at `key`, as
    /// `upsert_block` appends one: `None` where that is not the case to batch (a flow
    /// mapping, a missing or empty one, a name already there or given twice), which
    /// `add_all` leaves to one `upsert` after another.
    fn appended_all(&self, key: &[String], adds: &[(&str, &RawEntry)]) -> Option<String> {
        let layout = self.layout();
        let Ok(Place::Map(map)) = self.place(key) else {
            return None;
        };
        let YKind::Map {
            entries,
            flow: false,
        } = &map.kind
        else {
            return None;
        };
        let mut names = std::collections::HashSet::new();
        if !adds.iter().all(|(name, _)| names.insert(*name))
            || entries
                .iter()
                .any(|e| names.contains(e.key_text().as_str()))
        {
            return None;
        }
        let layout = self.entry_layout(entries, &layout);
        let (indent, at) = self.append_point(map, entries)?;
        let rendered: Vec<String> = adds
            .iter()
            .map(|(name, entry)| render_pair(name, entry, indent, &layout).join(layout.nl))
            .collect();
        Some(self.inserted_lines(at, &rendered.join(layout.nl), &layout))
    }

    fn upsert_block(
        &self,
        map: &YNode,
        entries: &[YEntry],
        name: &str,
        entry: &RawEntry,
        layout: &Layout,
    ) -> Result<(String, Edit), ShapeError> {
        let unsupported = || unsupported_layout(name);
        let layout = &self.entry_layout(entries, layout);
        if let Some(old) = entries.iter().rev().find(|e| e.key_text() == name) {
            let lines = self.entry_lines(old).ok_or_else(unsupported)?;
            let indent = old.key.start - lines.start;
            let mut with = render_pair(name, entry, indent, layout).join(layout.nl);
            if self.text[..lines.end].ends_with('\n') {
                with.push_str(layout.nl);
            }
            return Ok((self.spliced(lines, &with), Edit::Updated));
        }
        let (indent, at) = self.append_point(map, entries).ok_or_else(unsupported)?;
        let rendered = render_pair(name, entry, indent, layout).join(layout.nl);
        Ok((self.inserted_lines(at, &rendered, layout), Edit::Added))
    }

    /// Insert whole lines at `at` (a line end, or the end of a text without final newline).
    fn inserted_lines(&self, at: usize, lines: &str, layout: &Layout) -> String {
        if at == self.text.len() && !self.text.is_empty() && !self.text.ends_with('\n') {
            self.spliced(at..at, &format!("{}{lines}", layout.nl))
        } else {
            self.spliced(at..at, &format!("{lines}{}", layout.nl))
        }
    }

    fn remove_last(&self, key: &[String], name: &str) -> Result<Option<String>, ShapeError> {
        let place = self.place(key)?;
        let Place::Map(map) = place else {
            return Ok(None);
        };
        let YKind::Map { entries, flow } = &map.kind else {
            return Ok(None);
        };
        let Some(index) = entries.iter().rposition(|e| e.key_text() == name) else {
            return Ok(None);
        };
        let entry = &entries[index];
        if *flow {
            let range = if index > 0 {
                entries[index - 1].value.end..entry.value.end
            } else if let Some(next) = entries.get(1) {
                entry.key.start..next.key.start
            } else {
                entry.key.start..entry.value.end
            };
            return Ok(Some(self.spliced(range, "")));
        }
        let mut lines = self
            .entry_lines(entry)
            .ok_or_else(|| unsupported_layout(name))?;
        if lines.end == self.text.len() && !self.text.ends_with('\n') && lines.start > 0 {
            // The entry was the last line of a file without final newline: take the line
            // break before it, as `upsert` added it.
            lines.start -= if self.text[..lines.start].ends_with("\r\n") {
                2
            } else {
                1
            };
        }
        if entries.len() > 1 {
            return Ok(Some(self.spliced(lines, "")));
        }
        // The mapping's only entry: leave `key: {}` so the key still holds a mapping.
        let mut text = self.spliced(lines, "");
        if key.is_empty() {
            return Ok(Some(text));
        }
        let holder = self.holder(key).ok_or_else(|| unsupported_layout(name))?;
        let colon =
            colon_after(&self.text, holder.key.end).ok_or_else(|| unsupported_layout(name))?;
        text.insert_str(colon + 1, " {}");
        Ok(Some(text))
    }

    /// The entry holding the value at `key` (non-empty).
    fn holder(&self, key: &[String]) -> Option<&YEntry> {
        let mut node = self.tree.root.as_ref()?;
        let mut found = None;
        for segment in key {
            let YKind::Map { entries, .. } = &node.kind else {
                return None;
            };
            let entry = entries.iter().rev().find(|e| e.key_text() == *segment)?;
            found = Some(entry);
            node = &entry.value;
        }
        found
    }
}

fn unsupported_layout(name: &str) -> ShapeError {
    ShapeError::Unrepresentable {
        name: name.to_owned(),
        message: "the servers mapping is written in a layout mcpctl does not edit (an explicit `? key` or a mapping inside a list); edit it by hand".to_owned(),
    }
}

/// Documents compare as values; an empty document and an empty mapping are the same.
fn same_document(a: &Json, b: &Json) -> bool {
    let empty = |v: &Json| v.is_null() || v.as_object().is_some_and(Map::is_empty);
    a == b || (empty(a) && empty(b))
}

/// `json` with the entry `name` under `key` set (`Some`) or removed (`None`), creating
/// mappings on the way.
fn with_entry(mut json: Json, key: &[String], name: &str, entry: Option<&RawEntry>) -> Json {
    let mut node = &mut json;
    for segment in key {
        if !node.is_object() {
            if entry.is_none() {
                return json;
            }
            *node = Json::Object(Map::new());
        }
        let Json::Object(map) = node else {
            return json;
        };
        node = map.entry(segment.clone()).or_insert(Json::Null);
    }
    if !node.is_object() {
        if entry.is_none() {
            return json;
        }
        *node = Json::Object(Map::new());
    }
    if let Json::Object(map) = node {
        match entry {
            Some(entry) => {
                map.insert(name.to_owned(), entry.clone());
            }
            None => {
                map.shift_remove(name);
            }
        }
    }
    json
}

fn line_start(text: &str, at: usize) -> usize {
    text[..at].rfind('\n').map_or(0, |i| i + 1)
}

/// The end of the line (after its line break, or the end of the text) on which the
/// content ending at `end` ends; trailing blank lines a block scalar swallowed are not
/// part of it.
fn line_end(text: &str, floor: usize, end: usize) -> usize {
    let mut last = end.min(text.len());
    while last > floor && text.as_bytes()[last - 1].is_ascii_whitespace() {
        last -= 1;
    }
    text[last..].find('\n').map_or(text.len(), |i| last + i + 1)
}

/// The column (bytes from the line start) of `at`.
fn column(text: &str, at: usize) -> usize {
    at - line_start(text, at)
}

/// The `:` after a block mapping key ending at `key_end`.
fn colon_after(text: &str, key_end: usize) -> Option<usize> {
    let rest = &text[key_end..];
    let skipped = rest.len() - rest.trim_start_matches([' ', '\t']).len();
    (rest[skipped..].starts_with(':')).then_some(key_end + skipped)
}

/// A string as a YAML scalar: plain when that reads back as the same string, else
/// double-quoted (JSON string syntax is valid YAML).
fn string_text(s: &str) -> String {
    let mut chars = s.chars();
    let first_ok = match chars.next() {
        None => false,
        Some(c) if c.is_ascii_alphabetic() || c == '/' || c == '_' => true,
        Some('-') => s.len() > 1 && !s.starts_with("---"),
        _ => false,
    };
    let plain = first_ok
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_./-@+=~%:".contains(c))
        && !s.ends_with(':')
        && !matches!(
            s.to_ascii_lowercase().as_str(),
            "yes" | "no" | "on" | "off" | "y" | "n"
        )
        && yaml_parse::scalar(s, true, None) == Json::String(s.to_owned());
    if plain {
        s.to_owned()
    } else {
        Json::String(s.to_owned()).to_string()
    }
}

/// A value on one line: scalars, or JSON flow syntax for collections.
fn inline(value: &Json) -> String {
    match value {
        Json::String(s) => string_text(s),
        other => other.to_string(),
    }
}

/// `key: value` as block lines at `indent`.
fn render_pair(key: &str, value: &Json, indent: usize, layout: &Layout) -> Vec<String> {
    let pad = " ".repeat(indent);
    let head = format!("{pad}{}:", string_text(key));
    match value {
        Json::Object(map) if !map.is_empty() => std::iter::once(head)
            .chain(
                map.iter()
                    .flat_map(|(k, v)| render_pair(k, v, indent + layout.step, layout)),
            )
            .collect(),
        Json::Array(items) if !items.is_empty() => {
            let dash = " ".repeat(if layout.indentless {
                indent
            } else {
                indent + layout.step
            });
            std::iter::once(head)
                .chain(items.iter().map(|item| format!("{dash}- {}", inline(item))))
                .collect()
        }
        other => vec![format!("{head} {}", inline(other))],
    }
}

/// `key: {...}` for a flow mapping.
fn render_flow_pair(key: &str, value: &Json) -> String {
    format!("{}: {}", Json::String(key.to_owned()), value)
}

/// The missing keys `rest` then `name: entry`, nested as one value in JSON flow syntax.
fn nested(rest: &[String], name: &str, entry: &RawEntry) -> Json {
    let mut value = Json::Object(Map::from_iter([(name.to_owned(), entry.clone())]));
    for segment in rest.iter().rev() {
        value = Json::Object(Map::from_iter([(segment.clone(), value)]));
    }
    value
}

const NO_LIST_EDITS: ShapeError = ShapeError::ListUnsupported { format: "YAML" };

impl ConfigDoc for YamlDoc {
    /// A map at `at.key`, or (with `at.name_key`) a list whose items carry their name
    /// under that key; list items without a string name are skipped.
    fn servers(&self, at: ServersAt<'_>) -> Result<Vec<(String, RawEntry)>, ShapeError> {
        let key = at.key;
        // Read through the values, so aliases and flow style read like anything else.
        let json = self.tree.to_json();
        let mut node = &json;
        for (depth, segment) in key.iter().enumerate() {
            match node {
                Json::Null => return Ok(Vec::new()),
                Json::Object(map) => match map.get(segment) {
                    Some(next) => node = next,
                    None => return Ok(Vec::new()),
                },
                _ => {
                    return Err(ShapeError::NotAnObject {
                        key: if depth == 0 {
                            "(root)".to_owned()
                        } else {
                            key[..depth].join(".")
                        },
                        found: super::kind_of(node),
                        position: self.position(&key[..depth]),
                    });
                }
            }
        }
        match (node, at.name_key) {
            (Json::Null, _) => Ok(Vec::new()),
            (Json::Object(map), None) => {
                Ok(map.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            }
            (Json::Array(items), Some(name_key)) => Ok(items
                .iter()
                .filter_map(|item| {
                    let mut fields = item.as_object()?.clone();
                    let Json::String(name) = fields.shift_remove(name_key)? else {
                        return None;
                    };
                    Some((name, Json::Object(fields)))
                })
                .collect()),
            (other, _) => Err(ShapeError::NotAnObject {
                key: if key.is_empty() {
                    "(root)".to_owned()
                } else {
                    key.join(".")
                },
                found: super::kind_of(other),
                position: self.position(key),
            }),
        }
    }

    fn upsert(
        &mut self,
        at: ServersAt<'_>,
        name: &str,
        entry: &RawEntry,
    ) -> Result<Edit, ShapeError> {
        if at.name_key.is_some() {
            return Err(NO_LIST_EDITS);
        }
        let key = at.key;
        let layout = self.layout();
        let (text, edit) = match self.place(key)? {
            Place::Map(map) => {
                let YKind::Map { entries, flow } = &map.kind else {
                    return Err(unsupported_layout(name));
                };
                if let Some(old) = entries.iter().rev().find(|e| e.key_text() == name)
                    && self.tree.value(&old.value, 0) == *entry
                {
                    return Ok(Edit::Unchanged);
                }
                if *flow {
                    match entries.iter().rev().find(|e| e.key_text() == name) {
                        Some(old) => (
                            self.spliced(
                                old.key.start..old.value.end,
                                &render_flow_pair(name, entry),
                            ),
                            Edit::Updated,
                        ),
                        None => match entries.last() {
                            Some(last) => (
                                self.spliced(
                                    last.value.end..last.value.end,
                                    &format!(", {}", render_flow_pair(name, entry)),
                                ),
                                Edit::Added,
                            ),
                            None => (
                                self.spliced(
                                    map.start + 1..map.start + 1,
                                    &render_flow_pair(name, entry),
                                ),
                                Edit::Added,
                            ),
                        },
                    }
                } else {
                    self.upsert_block(map, entries, name, entry, &layout)?
                }
            }
            Place::Missing { parent: None, .. } => {
                let value = nested(&key[1..], name, entry);
                let lines = match key.first() {
                    Some(first) => render_pair(first, &value, 0, &layout),
                    None => render_pair(name, entry, 0, &layout),
                };
                let at = self.text.len();
                (
                    self.inserted_lines(at, &lines.join(layout.nl), &layout),
                    Edit::Added,
                )
            }
            Place::Missing {
                parent: Some(parent),
                depth,
            } => {
                let YKind::Map { entries, flow } = &parent.kind else {
                    return Err(unsupported_layout(name));
                };
                let value = nested(&key[depth + 1..], name, entry);
                let head = &key[depth];
                match (flow, entries.last()) {
                    (true, Some(last)) => (
                        self.spliced(
                            last.value.end..last.value.end,
                            &format!(", {}", render_flow_pair(head, &value)),
                        ),
                        Edit::Added,
                    ),
                    (true, None) => (
                        self.spliced(
                            parent.start + 1..parent.start + 1,
                            &render_flow_pair(head, &value),
                        ),
                        Edit::Added,
                    ),
                    (false, Some(last)) => {
                        let first = entries.first().unwrap_or(last);
                        let lines = self
                            .entry_lines(first)
                            .ok_or_else(|| unsupported_layout(name))?;
                        let indent = first.key.start - lines.start;
                        let at = line_end(&self.text, parent.start, last.value.end);
                        let rendered = render_pair(head, &value, indent, &layout).join(layout.nl);
                        (self.inserted_lines(at, &rendered, &layout), Edit::Added)
                    }
                    (false, None) => return Err(unsupported_layout(name)),
                }
            }
            Place::Null { holder, depth } => {
                let lines = self
                    .entry_lines(holder)
                    .ok_or_else(|| unsupported_layout(name))?;
                let indent = holder.key.start - lines.start + layout.step;
                let colon = colon_after(&self.text, holder.key.end)
                    .ok_or_else(|| unsupported_layout(name))?;
                let value = nested(&key[depth + 1..], name, entry);
                let Json::Object(members) = &value else {
                    return Err(unsupported_layout(name));
                };
                let rendered: Vec<String> = members
                    .iter()
                    .flat_map(|(k, v)| render_pair(k, v, indent, &layout))
                    .collect();
                let end = holder.value.end.max(colon + 1);
                (
                    self.spliced(
                        colon + 1..end,
                        &format!("{}{}", layout.nl, rendered.join(layout.nl)),
                    ),
                    Edit::Added,
                )
            }
        };
        let expected = with_entry(self.tree.to_json(), key, name, Some(entry));
        self.commit(text, &expected, name)?;
        Ok(edit)
    }

    /// New entries appended to a block mapping are written and checked once, as a
    /// batch: parsed again and compared with the document plus all of them. Anything
    /// else, or a batch that does not check, goes one `upsert` at a time (which names the
    /// entry that cannot be written, and leaves the ones before it written).
    fn add_all(&mut self, at: ServersAt<'_>, adds: &[(&str, &RawEntry)]) -> Result<(), ShapeError> {
        if adds.len() < 2 || at.name_key.is_some() {
            for (name, entry) in adds {
                self.upsert(at, name, entry)?;
            }
            return Ok(());
        }
        let mut rest = adds;
        let mut text = self.appended_all(at.key, rest);
        if text.is_none() {
            // No mapping to append to yet (a new file, say): the first entry makes it.
            self.upsert(at, rest[0].0, rest[0].1)?;
            rest = &rest[1..];
            text = if rest.len() > 1 {
                self.appended_all(at.key, rest)
            } else {
                None
            };
        }
        if let Some(text) = text {
            let mut expected = self.tree.to_json();
            for (name, entry) in rest {
                expected = with_entry(expected, at.key, name, Some(entry));
            }
            if self.commit(text, &expected, rest[0].0).is_ok() {
                return Ok(());
            }
        }
        for (name, entry) in rest {
            self.upsert(at, name, entry)?;
        }
        Ok(())
    }

    /// Removes every occurrence of a duplicated name, as JSON documents do.
    fn remove(&mut self, at: ServersAt<'_>, name: &str) -> Result<Edit, ShapeError> {
        if at.name_key.is_some() {
            return Err(NO_LIST_EDITS);
        }
        let key = at.key;
        let expected = with_entry(self.tree.to_json(), key, name, None);
        let original = (self.text.clone(), self.tree.clone());
        let mut edit = Edit::Unchanged;
        let mut rounds = 0;
        while let Some(text) = self.remove_last(key, name)? {
            rounds += 1;
            let parsed = yaml_parse::parse(&text);
            match parsed {
                Ok(tree) if rounds <= 1000 => {
                    self.text = text;
                    self.tree = tree;
                    edit = Edit::Removed;
                }
                _ => {
                    (self.text, self.tree) = original;
                    return Err(ShapeError::Unrepresentable {
                        name: name.to_owned(),
                        message: "removing it would leave YAML that does not parse; mcpctl left the file unchanged (remove it by hand)".to_owned(),
                    });
                }
            }
        }
        if edit == Edit::Removed && !same_document(&self.tree.to_json(), &expected) {
            (self.text, self.tree) = original;
            return Err(ShapeError::Unrepresentable {
                name: name.to_owned(),
                message: "the YAML without it would not read back as the same document minus this entry; mcpctl left the file unchanged (remove it by hand)".to_owned(),
            });
        }
        Ok(edit)
    }

    fn replace_text(&mut self, text: String) -> Result<(), ParseError> {
        *self = YamlDoc::parse(text)?;
        Ok(())
    }

    fn render(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.text)
    }

    fn position(&self, path: &[String]) -> Option<Position> {
        let mut node = self.tree.root.as_ref()?;
        let mut at = None;
        for segment in path {
            let YKind::Map { entries, .. } = &node.kind else {
                return None;
            };
            let entry = entries.iter().rev().find(|e| e.key_text() == *segment)?;
            at = Some(entry.key.start);
            node = &entry.value;
        }
        at.map(|offset| position_of(&self.text, offset))
    }
}

#[cfg(test)]
mod tests;
