//! The read-only view `check` lints: a small value tree with byte offsets for every key
//! and value, plus the syntax notes only the raw text shows (parse errors, comments and
//! trailing commas, duplicate keys). Each format builds it in its own module
//! (`json_tree`, `toml_tree`) and `Format::tree` picks one; `check` never names a format.
//!
//! It keeps duplicate keys (a map would hide them) and never edits or re-renders text;
//! edits go through `formats::ConfigDoc`.

/// A value and where it starts (byte offset into the text).
#[derive(Debug, Clone)]
pub struct Node {
    pub value: Value,
    pub start: usize,
}

#[derive(Debug, Clone)]
pub enum Value {
    Null,
    Bool,
    Number,
    String(String),
    Array(Vec<Node>),
    Object(Vec<Member>),
}

#[derive(Debug, Clone)]
pub struct Member {
    pub key: String,
    pub key_start: usize,
    pub node: Node,
}

impl Node {
    pub fn members(&self) -> Option<&[Member]> {
        match &self.value {
            Value::Object(members) => Some(members),
            _ => None,
        }
    }

    /// The last member named `key` (what most parsers keep on duplicates).
    pub fn get(&self, key: &str) -> Option<&Member> {
        self.members()?.iter().rev().find(|m| m.key == key)
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// "a string", "an array", ... for messages.
    pub fn kind(&self) -> &'static str {
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
pub enum Syntax {
    /// The text does not parse (offset, message).
    Error(usize, String),
    Comment(usize),
    TrailingComma(usize),
    DuplicateKey(usize, String),
}

/// A parsed document: the root (an empty object for an empty file) and syntax notes.
#[derive(Debug)]
pub struct Parsed {
    pub root: Node,
    pub syntax: Vec<Syntax>,
}

impl Parsed {
    pub(super) fn whole(root: Node, syntax: Vec<Syntax>) -> Self {
        Self { root, syntax }
    }
}

pub(super) fn empty_root() -> Node {
    Node {
        value: Value::Object(Vec::new()),
        start: 0,
    }
}

/// toml_edit's "duplicate key" names no key: the key is the text its span covers
/// (`duplicate key `command``), so the person knows which line of two to look at.
pub(super) fn toml_message(
    message: &str,
    text: &str,
    span: Option<std::ops::Range<usize>>,
) -> String {
    let message = message.trim();
    let key = span
        .and_then(|span| text.get(span))
        .map(str::trim)
        .filter(|key| !key.is_empty() && !key.contains('\n'));
    match key {
        Some(key) if message.eq_ignore_ascii_case("duplicate key") => {
            format!("{message} `{key}`")
        }
        _ => message.to_owned(),
    }
}

pub(super) fn lowercase_first(message: &str) -> String {
    let mut chars = message.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Byte offset → 1-based line and column (characters), built once per file.
#[derive(Debug)]
pub struct LineIndex<'a> {
    text: &'a str,
    starts: Vec<usize>,
    /// The last answer (offset, line, column): findings come in text order, and on a long
    /// (minified) line counting characters from its start each time is quadratic.
    last: std::cell::Cell<(usize, usize, usize)>,
}

impl<'a> LineIndex<'a> {
    pub fn new(text: &'a str) -> Self {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Self {
            text,
            starts,
            last: std::cell::Cell::new((0, 0, 0)),
        }
    }

    pub fn position(&self, offset: usize) -> (usize, usize) {
        let offset = self.text.floor_char_boundary(offset.min(self.text.len()));
        let line = self.starts.partition_point(|&s| s <= offset);
        let line_start = self.starts[line.saturating_sub(1)];
        let (last_offset, last_line, last_column) = self.last.get();
        let column = if last_line == line && last_offset >= line_start && last_offset <= offset {
            last_column + self.text[last_offset..offset].chars().count()
        } else {
            self.text[line_start..offset].chars().count() + 1
        };
        self.last.set((offset, line, column));
        (line, column)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_index_counts_characters() {
        let index = LineIndex::new("ab\né x\n");
        assert_eq!(index.position(0), (1, 1));
        assert_eq!(index.position(3), (2, 1));
        assert_eq!(index.position(6), (2, 3));
    }
}
