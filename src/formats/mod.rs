//! Everything that knows a file format, behind one enum: `Format` has one method per job
//! (`parse` for the lossless editable document, `tree` for the lint view, `as_str`,
//! `strict`), and nothing outside this module matches on a format. A new format is one enum
//! arm plus its modules here (YAML: `yaml.rs` for `ConfigDoc`, `yaml_tree.rs` for the lint
//! tree, `yaml_parse.rs` shared by both) and the `format` value in the client table.
//!
//! A document is parsed from the file's text (BOM already removed by `fs::read_source`),
//! edited one server entry at a time, and rendered back. Everything outside the entry
//! being changed must render byte-for-byte as it was read: comments (also inside the
//! servers map), indentation, key order, number spelling, CRLF, final newline. This
//! module never touches the file system and never prints.

mod json;
pub(crate) mod json_tree;
mod scan;
mod toml;
mod toml_tree;
pub mod tree;
mod yaml;
mod yaml_parse;
mod yaml_tree;

use serde_json::Value;

/// One server entry as the file spells it, converted to a JSON value (TOML tables become
/// objects). Key order is the file's order.
pub type RawEntry = Value;

/// The file formats a client table row can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// JSON read by a strict parser in the client: mcpctl reads comments tolerantly but
    /// never writes any.
    Json,
    /// JSON with comments and trailing commas (VS Code, Zed, Gemini, OpenCode, ...).
    Jsonc,
    /// TOML (Codex).
    Toml,
    /// YAML (Goose): read by a strict YAML 1.2 parser, edited entry by entry as text.
    Yaml,
}

impl Format {
    /// Parse `text` (without BOM) into an editable document.
    ///
    /// An empty or whitespace-only text is an empty document, not an error.
    pub fn parse(self, text: impl Into<String>) -> Result<Box<dyn ConfigDoc>, ParseError> {
        let text = text.into();
        match self {
            Format::Json | Format::Jsonc => Ok(Box::new(json::JsonDoc::parse(text)?)),
            Format::Toml => Ok(Box::new(toml::TomlDoc::parse(text)?)),
            Format::Yaml => Ok(Box::new(yaml::YamlDoc::parse(text)?)),
        }
    }

    /// The read-only tree `check` lints, with byte offsets and syntax notes. Never fails:
    /// a text that does not parse is one `Syntax::Error` note.
    pub fn tree(self, text: &str) -> tree::Parsed {
        match self {
            Format::Json | Format::Jsonc => json_tree::parse(text),
            Format::Toml => toml_tree::parse(text),
            Format::Yaml => yaml_tree::parse(text),
        }
    }

    /// [`Format::tree`] for the lint walk, keeping only the key paths it `reads` (`*`: any
    /// key) and the objects on the way to them; the notes are those of the whole text.
    /// Only JSON leaves parts out: a 17 MB `~/.claude.json` is mostly prompt history.
    pub fn lint_tree(self, text: &str, reads: &[Vec<String>]) -> tree::Parsed {
        match self {
            Format::Json | Format::Jsonc => json_tree::parse_reading(text, Some(reads)),
            Format::Toml | Format::Yaml => self.tree(text),
        }
    }

    /// The client reads the file with a strict parser: a comment or trailing comma the
    /// format's own tolerant reader accepts makes the whole file invalid to the client.
    pub fn strict(self) -> bool {
        match self {
            Format::Json => true,
            Format::Jsonc | Format::Toml | Format::Yaml => false,
        }
    }

    /// The format's name in messages (`not valid JSONC`).
    pub fn display_name(self) -> &'static str {
        match self {
            Format::Json => "JSON",
            Format::Jsonc => "JSONC",
            Format::Toml => "TOML",
            Format::Yaml => "YAML",
        }
    }

    /// The format's documents can hold list-shaped servers (`ServersAt::list`). YAML
    /// reads them (Continue's `mcpServers: [- name: x]`) but does not write them yet.
    pub fn holds_lists(self) -> bool {
        match self {
            Format::Toml => true,
            Format::Json | Format::Jsonc | Format::Yaml => false,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::Jsonc => "jsonc",
            Format::Toml => "toml",
            Format::Yaml => "yaml",
        }
    }
}

/// Interchangeable spellings of one file name: `opencode.jsonc` is read where
/// `opencode.json` is configured and the other way round. The other spelling of `name`,
/// if it has one.
pub fn extension_twin(name: &str) -> Option<String> {
    name.strip_suffix(".jsonc")
        .map(|s| format!("{s}.json"))
        .or_else(|| name.strip_suffix(".json").map(|s| format!("{s}.jsonc")))
}

/// `name` with interchangeable extensions made one (`x.jsonc` → `x.json`), for comparing
/// paths.
pub fn canonical_name(name: &str) -> String {
    name.strip_suffix(".jsonc")
        .map_or_else(|| name.to_owned(), |s| format!("{s}.json"))
}

/// What an edit did to the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edit {
    Added,
    Updated,
    Removed,
    /// Nothing changed: the entry was already identical, or absent on remove.
    Unchanged,
}

/// 1-based line and column (column counts characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Position {
    pub line: usize,
    pub column: usize,
}

/// The text is not valid for its format. The caller adds the file's path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {message}")]
pub struct ParseError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// The document parses, but a value on the way to the servers map (or the map itself, or an
/// entry) has the wrong type, so mcpctl will not edit it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShapeError {
    /// `key` (a dotted display of the key path) holds `found` where an object/table belongs.
    #[error("`{key}` is {found}, expected an object")]
    NotAnObject {
        key: String,
        found: &'static str,
        position: Option<Position>,
    },
    /// `key` holds `found` where a list of servers belongs (`ServersAt::list`).
    #[error("`{key}` is {found}, expected a list")]
    NotAList {
        key: String,
        found: &'static str,
        position: Option<Position>,
    },
    /// The entry cannot be written in this format (e.g. a JSON `null` in TOML).
    #[error("cannot write entry `{name}`: {message}")]
    Unrepresentable { name: String, message: String },
    /// The format has no list-shaped servers (`ServersAt::list`).
    #[error("{format} files cannot hold servers as a list")]
    ListUnsupported { format: &'static str },
}

/// Where a document keeps its servers: the key path to the container and how an entry is
/// named in it. Commands get it from `clients::Location::at` and never look at the shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServersAt<'a> {
    /// Literal keys from the root to the container: `["mcpServers"]`, `["amp.mcpServers"]`
    /// (one key containing a dot), `["projects", "/home/me/app", "mcpServers"]`.
    pub key: &'a [String],
    /// `None`: the container is a map from name to entry (`{"mcpServers": {"a": {...}}}`,
    /// `[mcp_servers.a]`). `Some(k)`: it is a list whose items carry their name under
    /// key `k` (Mistral Vibe's `[[mcp_servers]]` with `name = "a"`, Continue's YAML
    /// `mcpServers: [- name: a]`). Entries handed to and returned by `ConfigDoc` never
    /// contain the name key: the document adds it (first) and strips it.
    pub name_key: Option<&'a str>,
}

impl<'a> ServersAt<'a> {
    /// A map from name to entry at `key`.
    pub fn map(key: &'a [String]) -> Self {
        ServersAt {
            key,
            name_key: None,
        }
    }

    /// A list at `key` whose items carry their name under `name_key`.
    pub fn list(key: &'a [String], name_key: &'a str) -> Self {
        ServersAt {
            key,
            name_key: Some(name_key),
        }
    }
}

/// What a document held where an entry was about to be added: the part of the key path
/// that existed and how its deepest object was written when it was empty. Kept in the
/// ledger with the entry, so that removing the last entry mcpctl added there takes away
/// exactly what the add created (`ConfigDoc::prune`) and gives back the original bytes.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MapState {
    /// How many keys of the path existed (the path's length: the servers map existed).
    pub depth: usize,
    /// The text between the braces of the deepest existing object, when it had no members
    /// (`{ }`, `{\n  }`, `{ /* none */ }`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inside: Option<String>,
    /// The whole text, when the document had no root object (empty, blank or comments).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blank: Option<String>,
}

impl MapState {
    /// The add created nothing around its entry: the map existed and had members.
    pub fn created_nothing(&self, key: &[String]) -> bool {
        self.depth >= key.len() && self.inside.is_none() && self.blank.is_none()
    }
}

/// A blank document's text is kept in `MapState::blank` up to this size.
const BLANK_KEPT: usize = 4096;

/// `text` without ASCII whitespace: two spellings of one structure compare equal.
fn squeezed(text: &str) -> String {
    text.chars().filter(|c| !c.is_ascii_whitespace()).collect()
}

impl ShapeError {
    /// Where in the file the wrong value is, when known.
    pub fn position(&self) -> Option<Position> {
        match self {
            ShapeError::NotAnObject { position, .. } | ShapeError::NotAList { position, .. } => {
                *position
            }
            ShapeError::Unrepresentable { .. } | ShapeError::ListUnsupported { .. } => None,
        }
    }
}

/// An editable configuration document.
///
/// Servers sit in a map or in a list (`ServersAt`); every method takes the container's
/// address, so callers never branch on the shape. A format that cannot hold list-shaped
/// servers answers `ShapeError::ListUnsupported` (the client table refuses such a row).
pub trait ConfigDoc {
    /// Entries at `at`, in file order. A missing key (or missing parent) is an empty
    /// list, not an error. A value of the wrong type on the path is a `ShapeError`. In a
    /// list, items that are not tables/objects or carry no string name are skipped (they
    /// are never edited either).
    fn servers(&self, at: ServersAt<'_>) -> Result<Vec<(String, RawEntry)>, ShapeError>;

    /// The names `servers` returns, in the same order, without reading the values (a
    /// `~/.claude.json`'s `projects` hold each project's prompt history: `check` needs only
    /// their names).
    fn names(&self, at: ServersAt<'_>) -> Result<Vec<String>, ShapeError> {
        Ok(self
            .servers(at)?
            .into_iter()
            .map(|(name, _)| name)
            .collect())
    }

    /// Insert or replace the entry `name` at `at`, creating the container (and its
    /// parents) when missing. In a map, `entry` may also be a plain value (a switch such
    /// as `"disabled": true` or a tool list, with `at.key` ending at the entry). New
    /// entries follow the file's own indentation and line
    /// endings and go after the last existing entry. Bytes outside that entry do not
    /// change. Returns `Unchanged` (and edits nothing) when the entry is already equal.
    fn upsert(
        &mut self,
        at: ServersAt<'_>,
        name: &str,
        entry: &RawEntry,
    ) -> Result<Edit, ShapeError>;

    /// `upsert` of each entry of `adds`, in order, at `at`: the text is the one those
    /// calls one after another make. A document that checks the whole file again after
    /// each edit (YAML) writes and checks a batch of new entries once: a plan adds every
    /// server of its manifest, and a check per entry made it quadratic in the servers.
    fn add_all(&mut self, at: ServersAt<'_>, adds: &[(&str, &RawEntry)]) -> Result<(), ShapeError> {
        for (name, entry) in adds {
            self.upsert(at, name, entry)?;
        }
        Ok(())
    }

    /// Remove the entry `name`; `Edit::Unchanged` when it was absent. Removing an entry
    /// that `upsert` added restores the original bytes exactly (also when `upsert`
    /// created the container).
    fn remove(&mut self, at: ServersAt<'_>, name: &str) -> Result<Edit, ShapeError>;

    /// How the servers map at `key` (and the path to it) is written now: call before the
    /// `upsert` that adds an entry, keep it, and hand it to `prune` after removing it.
    /// The default records nothing (then `prune` never removes anything): a format that
    /// does not implement both keeps what an add created.
    fn map_state(&self, key: &[String]) -> Result<MapState, ShapeError> {
        Ok(MapState {
            depth: key.len(),
            inside: None,
            blank: None,
        })
    }

    /// After an entry was removed: if the servers map at `key` is now empty, remove what
    /// the add that `before` was taken for created (the keys from `before.depth` on, only
    /// while they hold nothing else) and give the deepest object that existed its
    /// original spelling back (only when it differs in whitespace alone). Never removes a
    /// key that holds anything but the path down to the empty map.
    fn prune(&mut self, _key: &[String], _before: &MapState) -> Result<(), ShapeError> {
        Ok(())
    }

    /// Nothing is left: no setting, no comment (a file mcpctl created may then go).
    fn is_blank(&self) -> bool {
        self.render().trim().is_empty()
    }

    /// Replace the whole text (a parked entry spliced back at its byte offset); the text
    /// must parse, else the document is left as it was.
    fn replace_text(&mut self, text: String) -> Result<(), ParseError>;

    /// The whole text (without BOM). Equal to the parsed text when nothing was edited.
    /// Borrowed where the document keeps its text (JSON files reach hundreds of MB).
    fn render(&self) -> std::borrow::Cow<'_, str>;

    /// Where the key at `path` (object keys from the root) is written, if it exists.
    /// Used to give `line:column` for findings about an entry or one of its fields.
    fn position(&self, path: &[String]) -> Option<Position>;

    /// Where the servers container at `at` is written (`position(at.key)`), and every
    /// entry in it, in file order: its key in a map, its name in a list (a duplicated
    /// name: where clients read it). One pass over the text for all entries.
    fn entry_positions(&self, at: ServersAt<'_>) -> (Option<Position>, Vec<(String, Position)>) {
        let map = self.position(at.key);
        let Ok(entries) = self.servers(at) else {
            return (map, Vec::new());
        };
        if at.name_key.is_some() {
            return (map, Vec::new());
        }
        let entries = entries
            .into_iter()
            .filter_map(|(name, _)| {
                let mut path = at.key.to_vec();
                path.push(name.clone());
                self.position(&path).map(|p| (name, p))
            })
            .collect();
        (map, entries)
    }
}

/// Where the entry `name` at `at` is written: its place in
/// [`ConfigDoc::entry_positions`].
pub fn entry_position(doc: &dyn ConfigDoc, at: ServersAt<'_>, name: &str) -> Option<Position> {
    doc.entry_positions(at)
        .1
        .into_iter()
        .find_map(|(n, position)| (n == name).then_some(position))
}

/// The line starts of a text, to turn many byte offsets into positions without counting
/// lines from the start for each (what [`position_of`] does for one offset).
pub struct Lines<'t> {
    text: &'t str,
    /// Byte offset of the start of each line after the first.
    starts: Vec<usize>,
}

impl<'t> Lines<'t> {
    pub fn new(text: &'t str) -> Self {
        let starts = text
            .bytes()
            .enumerate()
            .filter(|&(_, b)| b == b'\n')
            .map(|(i, _)| i + 1)
            .collect();
        Self { text, starts }
    }

    /// The same as `position_of(text, offset)`.
    pub fn position(&self, offset: usize) -> Position {
        let offset = self.text.floor_char_boundary(offset.min(self.text.len()));
        let line = self.starts.partition_point(|&start| start <= offset);
        let line_start = if line == 0 { 0 } else { self.starts[line - 1] };
        Position {
            line: line + 1,
            column: self.text[line_start..offset].chars().count() + 1,
        }
    }
}

/// 1-based line/column of a byte offset in `text`.
pub fn position_of(text: &str, offset: usize) -> Position {
    let offset = offset.min(text.len());
    let before = &text[..text.floor_char_boundary(offset)];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    Position {
        line,
        column: before[line_start..].chars().count() + 1,
    }
}

/// A JSON value's kind, for messages.
pub fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `value` with every object's keys in sorted order: what it prints compactly is its
/// canonical text (a digest of it does not depend on the order a file gave the keys).
#[must_use]
pub fn sorted_keys(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), sorted_keys(&map[k])))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted_keys).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_give_what_position_of_gives_for_every_offset() {
        let text = "{\r\n  \"é\": 1,\n\n\t\"日本\": [\n    2]\n}";
        let lines = Lines::new(text);
        for offset in 0..=text.len() + 2 {
            assert_eq!(
                lines.position(offset),
                position_of(text, offset),
                "{offset}"
            );
        }
    }

    /// `entry_positions` (one pass) agrees with `entry_position` asked once per name, in
    /// every format, duplicates and list-shaped servers included.
    #[test]
    fn entry_positions_agree_with_entry_position_per_name() {
        let key = vec!["mcpServers".to_owned()];
        let vibe = vec!["mcp_servers".to_owned()];
        let cases: [(Format, &str, ServersAt<'_>); 5] = [
            (
                Format::Jsonc,
                "{\n  // c\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"},\n    \"b\": {},\n    \"a\": {\"url\": \"u\"}\n  }\n}\n",
                ServersAt::map(&key),
            ),
            (
                Format::Json,
                "{\"mcpServers\": {\"a\": 1, \"\\u0062\": {}}}",
                ServersAt::map(&key),
            ),
            (
                Format::Toml,
                "model = \"o\"\n\n[mcpServers.a]\ncommand = \"x\"\n\n[mcpServers.b]\nurl = \"u\"\n",
                ServersAt::map(&key),
            ),
            (
                Format::Toml,
                "[[mcp_servers]]\nname = \"a\"\n\n[[mcp_servers]]\nname = \"b\"\n\n[[mcp_servers]]\nname = \"a\"\n",
                ServersAt::list(&vibe, "name"),
            ),
            (
                Format::Yaml,
                "mcpServers:\n  a:\n    command: x\n  b:\n    url: u\n",
                ServersAt::map(&key),
            ),
        ];
        for (format, text, at) in cases {
            let doc = format.parse(text).unwrap();
            let (map, all) = doc.entry_positions(at);
            assert_eq!(map, doc.position(at.key), "{text}");
            let mut names: Vec<String> = Vec::new();
            for (name, _) in doc.servers(at).unwrap() {
                if !names.contains(&name) {
                    names.push(name);
                }
            }
            // `names` lists what `servers` lists, without reading the values.
            let listed: Vec<String> = doc
                .servers(at)
                .unwrap()
                .into_iter()
                .map(|(n, _)| n)
                .collect();
            assert_eq!(doc.names(at).unwrap(), listed, "{text}");
            assert_eq!(
                all.iter().map(|(n, _)| n).collect::<Vec<_>>(),
                names.iter().collect::<Vec<_>>(),
                "{text}"
            );
            for (name, position) in &all {
                assert_eq!(
                    Some(*position),
                    entry_position(doc.as_ref(), at, name),
                    "{name} in {text}"
                );
            }
        }
    }
}
