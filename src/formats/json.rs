//! JSON and JSONC documents (`JsonDoc`): read tolerantly, edit one server entry by splicing
//! bytes into the original text.
//!
//! The whole text is validated once by the single-pass scanner in `scan.rs`; each edit
//! re-scans only up to the servers map, computes a few byte splices inside that map (or its
//! deepest existing parent) and applies them to the text. It never builds a tree of the
//! whole document (files reach hundreds of megabytes), never re-serialises anything outside
//! the entry being changed, and never introduces comments or trailing commas.

use serde_json::{Map, Value};

mod list;

use super::scan::{self, Kind, Located, Member, Node};
use super::{
    BLANK_KEPT, ConfigDoc, Edit, MapState, ParseError, Position, RawEntry, ServersAt, ShapeError,
    position_of, squeezed,
};

pub(super) struct JsonDoc {
    /// The file's text; edits splice it in place.
    text: String,
    /// The root's members and those of the objects directly under it, from the validating
    /// scan in `parse`, so that look-ups scan only the small span they need. Each edit
    /// shifts its offsets by the splice's length and re-scans only the object whose members
    /// it changed (see `follow`), so a command scans the whole text once, not per look-up.
    index: Option<Located>,
    /// The text's layout, detected at the first edit and kept for the edits after it
    /// (new entries of one document are all written alike; a plan adds hundreds).
    style: Option<Style>,
}

impl JsonDoc {
    pub(super) fn parse(text: impl Into<String>) -> Result<Self, ParseError> {
        let text: String = text.into();
        let index = scan::scan_indexed(&text)?;
        Ok(Self {
            text,
            index: Some(index),
            style: None,
        })
    }

    /// The values along `key` (see `scan::Located`), from the index when there is one.
    fn find(&self, key: &[String]) -> Result<Located, ParseError> {
        let text = &self.text;
        let indexed = self.index.as_ref().and_then(|index| {
            let root = index.nodes.first()?;
            (root.kind == Kind::Object).then_some((index, root))
        });
        let (Some((index, root)), Some(first)) = (indexed, key.first()) else {
            return scan::scan(text, key, false);
        };
        let mut nodes = vec![root.clone()];
        // The last of duplicated keys is the one clients read (`JSON.parse`).
        let Some((position, member)) = root
            .members
            .iter()
            .enumerate()
            .rfind(|(_, m)| scan::key_equals(text, member_key(m), first))
        else {
            return Ok(Located {
                nodes,
                ..Located::default()
            });
        };
        let children = index.children.iter().find(|(of, _)| *of == position);
        match (key.get(1), children) {
            (Some(second), Some((_, children))) => {
                nodes.push(Node {
                    key: Some(member_key(member)),
                    kind: Kind::Object,
                    start: member.value_start,
                    end: member.value_end,
                    members: children.clone(),
                });
                if let Some(child) = children
                    .iter()
                    .rfind(|m| scan::key_equals(text, member_key(m), second))
                {
                    nodes.extend(scan_member(text, child, &key[2..])?);
                }
            }
            _ => nodes.extend(scan_member(text, member, &key[1..])?),
        }
        Ok(Located {
            nodes,
            ..Located::default()
        })
    }

    /// Find the values along `key`, checking that every one of them is an object.
    fn locate(&self, key: &[String]) -> Result<Located, ShapeError> {
        let located = self.find(key).map_err(|err| ShapeError::Unrepresentable {
            name: dotted(key),
            message: format!("internal error: the edited document no longer parses: {err}"),
        })?;
        for (depth, node) in located.nodes.iter().enumerate() {
            if node.kind != Kind::Object {
                return Err(ShapeError::NotAnObject {
                    key: if depth == 0 {
                        "(root)".to_owned()
                    } else {
                        dotted(&key[..depth])
                    },
                    found: node.kind.described(),
                    position: Some(position_of(
                        &self.text,
                        node.key.map_or(node.start, |(start, _, _)| start),
                    )),
                });
            }
        }
        Ok(located)
    }

    /// Remove the last occurrence of `name` in the map at `key`; also says whether an
    /// earlier occurrence is left.
    fn remove_last(&mut self, key: &[String], name: &str) -> Result<(Edit, bool), ShapeError> {
        let located = self.locate(key)?;
        let Some(map) = located.nodes.get(key.len()) else {
            return Ok((Edit::Unchanged, false));
        };
        let matching = |m: &&Member| scan::key_equals(&self.text, member_key(m), name);
        let Some(index) = map.members.iter().rposition(|m| matching(&m)) else {
            return Ok((Edit::Unchanged, false));
        };
        let more = map.members[..index].iter().any(|m| matching(&m));
        let splices = remove_member(&self.text, map, index);
        let growth: isize = splices
            .iter()
            .map(|s| s.insert.len() as isize - s.remove as isize)
            .sum();
        let (only, start, end) = (map.members.len() == 1, map.start, map.end);
        self.apply(splices);
        if only {
            // The map is now empty: if only whitespace is left inside, write `{}`.
            let open = start + 1;
            let close = (end as isize + growth - 1) as usize;
            if self
                .text
                .get(open..close)
                .is_some_and(|inside| inside.trim().is_empty())
            {
                self.apply(vec![Splice::delete(open, close)]);
            }
        }
        Ok((Edit::Removed, more))
    }

    /// Apply `splices` (offsets in the current text) to the text, in place.
    fn apply(&mut self, mut splices: Vec<Splice>) {
        // Stable: splices at the same offset apply in the order they were pushed; applying
        // them last-first keeps earlier offsets valid.
        splices.sort_by_key(|splice| splice.at);
        let mut stale = Stale::default();
        for splice in splices.iter().rev() {
            self.text
                .replace_range(splice.at..splice.at + splice.remove, &splice.insert);
            if let Some(index) = &mut self.index {
                follow(index, splice, &mut stale);
            }
        }
        if self.index.is_some() && stale != Stale::default() {
            self.index = reindex(self.index.take(), &self.text, &stale);
        }
    }
}

/// What of the index an edit's splices left to re-scan.
#[derive(Debug, Default, PartialEq, Eq)]
struct Stale {
    /// The root's members changed: the whole text is re-indexed.
    root: bool,
    /// The root members (by position) whose object's members changed.
    members: Vec<usize>,
}

/// Move the index's offsets past `splice` (just applied to the text) by its growth, and
/// note in `stale` what it can no longer vouch for. Offsets hold exactly when the splice
/// lies strictly inside one value the index records: inside a root member's value that
/// is not an object, or inside the value of one of an object's members.
fn follow(index: &mut Located, splice: &Splice, stale: &mut Stale) {
    let (at, end) = (splice.at, splice.at + splice.remove);
    let growth = splice.insert.len() as isize - splice.remove as isize;
    let shift = |offset: &mut usize| {
        if *offset >= end {
            *offset = (*offset as isize + growth) as usize;
        }
    };
    let inside = |m: &Member| m.value_start < at && end < m.value_end;
    let Some(root) = index.nodes.first_mut() else {
        stale.root = true;
        return;
    };
    let owner = root.members.iter().position(inside);
    if owner.is_none() {
        stale.root = true;
    }
    shift(&mut root.end);
    root.members
        .iter_mut()
        .for_each(|m| shift_member(m, &shift));
    for (of, members) in &mut index.children {
        if Some(*of) == owner && !members.iter().any(inside) && !stale.members.contains(of) {
            stale.members.push(*of);
        }
        members.iter_mut().for_each(|m| shift_member(m, &shift));
    }
}

fn shift_member(member: &mut Member, shift: &impl Fn(&mut usize)) {
    shift(&mut member.key_start);
    shift(&mut member.key_end);
    shift(&mut member.value_start);
    shift(&mut member.value_end);
    if let Some(comma) = &mut member.comma {
        shift(comma);
    }
}

/// The index after `follow` found parts of it `stale`: the objects whose members changed
/// are scanned again (only their own text), or the whole text when the root's did.
fn reindex(index: Option<Located>, text: &str, stale: &Stale) -> Option<Located> {
    let rescan = |mut index: Located| -> Option<Located> {
        for &of in &stale.members {
            let member = *index.nodes.first()?.members.get(of)?;
            let object = scan_member(text, &member, &[]).ok()?.into_iter().next()?;
            let (_, members) = index.children.iter_mut().find(|(at, _)| *at == of)?;
            (object.kind == Kind::Object).then_some(())?;
            *members = object.members;
        }
        Some(index)
    };
    index
        .filter(|_| !stale.root)
        .and_then(rescan)
        .or_else(|| scan::scan_indexed(text).ok())
}

/// Replace `remove` bytes at `at` with `insert`.
#[derive(Debug, Clone)]
struct Splice {
    at: usize,
    remove: usize,
    insert: String,
}

impl Splice {
    fn insert(at: usize, insert: String) -> Self {
        Self {
            at,
            remove: 0,
            insert,
        }
    }
    fn delete(from: usize, to: usize) -> Self {
        Self {
            at: from,
            remove: to - from,
            insert: String::new(),
        }
    }
}

/// The map-shaped primitives; JSON holds no list-shaped servers.
impl JsonDoc {
    fn map_servers(&self, key: &[String]) -> Result<Vec<(String, RawEntry)>, ShapeError> {
        let located = self.locate(key)?;
        let Some(map) = located.nodes.get(key.len()) else {
            return Ok(Vec::new());
        };
        // A duplicated name is listed once, where it first appears, with the value of its
        // last occurrence (what `JSON.parse` gives the client).
        let mut entries: Vec<(String, RawEntry)> = Vec::with_capacity(map.members.len());
        let mut seen: std::collections::HashMap<String, usize> =
            std::collections::HashMap::with_capacity(map.members.len());
        for member in &map.members {
            let name = scan::decode_key(&self.text, member_key(member));
            let value = parse_value(&self.text[member.value_start..member.value_end]).map_err(
                |message| ShapeError::Unrepresentable {
                    name: name.clone(),
                    message,
                },
            )?;
            match seen.get(&name) {
                Some(&at) => entries[at].1 = value,
                None => {
                    seen.insert(name.clone(), entries.len());
                    entries.push((name, value));
                }
            }
        }
        Ok(entries)
    }

    fn map_upsert(
        &mut self,
        key: &[String],
        name: &str,
        entry: &RawEntry,
    ) -> Result<Edit, ShapeError> {
        let located = self.locate(key)?;
        // The last member of that name (what `JSON.parse` keeps).
        let existing = located.nodes.get(key.len()).and_then(|map| {
            map.members
                .iter()
                .rfind(|m| scan::key_equals(&self.text, member_key(m), name))
                .copied()
        });
        let style = self
            .style
            .get_or_insert_with(|| Style::detect(&self.text))
            .clone();
        match self.upsert_splices(&located, &style, existing, key, name, entry)? {
            Some((edit, splices)) => {
                self.apply(splices);
                Ok(edit)
            }
            None => Ok(Edit::Unchanged),
        }
    }

    /// What `map_upsert` changes, as splices of the text; `None` when the entry is there
    /// already, equal.
    fn upsert_splices(
        &self,
        located: &Located,
        style: &Style,
        existing: Option<Member>,
        key: &[String],
        name: &str,
        entry: &RawEntry,
    ) -> Result<Option<(Edit, Vec<Splice>)>, ShapeError> {
        let Some(deepest) = located.nodes.last() else {
            // Empty (or comment-only) document: the whole root is new.
            let root = nest(key, Some(name), entry);
            let rendered = render(&root, Some(&style.unit()), "", &style.newline)?;
            let mut text = self.text.clone();
            if text.trim().is_empty() {
                text.clear();
            } else if !text.ends_with('\n') {
                text.push_str(&style.newline);
            }
            text.push_str(&rendered);
            text.push_str(&style.newline);
            let whole = Splice {
                at: 0,
                remove: self.text.len(),
                insert: text,
            };
            return Ok(Some((Edit::Added, vec![whole])));
        };
        if located.nodes.len() == key.len() + 1 {
            let map = deepest;
            if let Some(member) = existing {
                let old = parse_value(&self.text[member.value_start..member.value_end]).ok();
                if old.as_ref() == Some(entry) {
                    return Ok(None);
                }
                let indent = line_indent(&self.text, member.key_start).to_owned();
                let old_text = &self.text[member.value_start..member.value_end];
                let rendered = match one_line_list(old_text, entry)
                    .or_else(|| one_line_object(old_text, entry))
                {
                    Some(line) => line,
                    None => render(entry, style.indent.as_deref(), &indent, &style.newline)?,
                };
                let splice = Splice {
                    at: member.value_start,
                    remove: member.value_end - member.value_start,
                    insert: rendered,
                };
                return Ok(Some((Edit::Updated, vec![splice])));
            }
            let splices = insert_member(&self.text, map, Some(name), entry, style)?;
            return Ok(Some((Edit::Added, splices)));
        }
        // The map (or one of its parents) is missing: add the first missing key to the
        // deepest existing object, with the rest of the path nested inside it.
        let depth = located.nodes.len() - 1;
        let value = nest(&key[depth + 1..], Some(name), entry);
        let splices = insert_member(&self.text, deepest, Some(&key[depth]), &value, style)?;
        Ok(Some((Edit::Added, splices)))
    }

    /// The splices that append `adds` to the map at `key` in one go, giving the bytes that
    /// `map_upsert` of each, one after another, gives: each new member on its own lines
    /// after the last one. `None` when that is not the shape (no member to follow, members
    /// sharing lines, a name already there or twice in `adds`): then they go one by one.
    fn appended_all(
        &mut self,
        key: &[String],
        adds: &[(&str, &RawEntry)],
    ) -> Result<Option<Vec<Splice>>, ShapeError> {
        let located = self.locate(key)?;
        let Some(last) = located
            .nodes
            .get(key.len())
            .and_then(|map| map.members.last())
        else {
            return Ok(None);
        };
        let style = self
            .style
            .get_or_insert_with(|| Style::detect(&self.text))
            .clone();
        let (Some(unit), Some(tail)) = (style.indent.as_deref(), standalone(&self.text, last))
        else {
            return Ok(None);
        };
        let mut names: std::collections::HashSet<String> = located.nodes[key.len()]
            .members
            .iter()
            .map(|member| scan::decode_key(&self.text, member_key(member)))
            .collect();
        if !adds
            .iter()
            .all(|(name, _)| names.insert((*name).to_owned()))
        {
            return Ok(None);
        }
        let (newline, indent) = (&style.newline, line_indent(&self.text, last.key_start));
        let mut members = String::new();
        for (name, entry) in adds {
            let quoted =
                serde_json::to_string(name).map_err(|err| ShapeError::Unrepresentable {
                    name: (*name).to_owned(),
                    message: err.to_string(),
                })?;
            if !members.is_empty() && last.comma.is_none() {
                members.push(',');
            }
            let value = render(entry, Some(unit), indent, newline)?;
            members.push_str(&format!("{newline}{indent}{quoted}: {value}"));
            if last.comma.is_some() {
                members.push(',');
            }
        }
        let mut splices = Vec::new();
        if last.comma.is_none() {
            splices.push(Splice::insert(last.value_end, ",".to_owned()));
        }
        splices.push(Splice::insert(tail, members));
        Ok(Some(splices))
    }

    /// Removes every occurrence of a duplicated name: after `remove`, the client must not
    /// see the server (removing only the last would bring an earlier one back).
    fn map_remove(&mut self, key: &[String], name: &str) -> Result<Edit, ShapeError> {
        let (edit, mut more) = self.remove_last(key, name)?;
        while more {
            more = self.remove_last(key, name)?.1;
        }
        Ok(edit)
    }
}

impl ConfigDoc for JsonDoc {
    fn servers(&self, at: ServersAt<'_>) -> Result<Vec<(String, RawEntry)>, ShapeError> {
        match at.name_key {
            None => self.map_servers(at.key),
            Some(name_key) => self.list_servers(at.key, name_key),
        }
    }

    fn names(&self, at: ServersAt<'_>) -> Result<Vec<String>, ShapeError> {
        if at.name_key.is_some() {
            return Ok(self
                .servers(at)?
                .into_iter()
                .map(|(name, _)| name)
                .collect());
        }
        let located = self.locate(at.key)?;
        let Some(map) = located.nodes.get(at.key.len()) else {
            return Ok(Vec::new());
        };
        let mut names: Vec<String> = Vec::with_capacity(map.members.len());
        for member in &map.members {
            let name = scan::decode_key(&self.text, member_key(member));
            if !names.contains(&name) {
                names.push(name);
            }
        }
        Ok(names)
    }

    fn upsert(
        &mut self,
        at: ServersAt<'_>,
        name: &str,
        entry: &RawEntry,
    ) -> Result<Edit, ShapeError> {
        match at.name_key {
            None => self.map_upsert(at.key, name, entry),
            Some(name_key) => self.list_upsert(at.key, name_key, name, entry),
        }
    }

    fn add_all(&mut self, at: ServersAt<'_>, adds: &[(&str, &RawEntry)]) -> Result<(), ShapeError> {
        let mut rest = adds;
        if at.name_key.is_none() && rest.len() > 1 {
            // No member to append after yet (an empty or missing map): the first entry
            // makes one, and the rest follow it in one splice.
            for _ in 0..2 {
                if let Some(splices) = self.appended_all(at.key, rest)? {
                    self.apply(splices);
                    return Ok(());
                }
                self.map_upsert(at.key, rest[0].0, rest[0].1)?;
                rest = &rest[1..];
                if rest.len() < 2 {
                    break;
                }
            }
        }
        for (name, entry) in rest {
            self.upsert(at, name, entry)?;
        }
        Ok(())
    }

    fn remove(&mut self, at: ServersAt<'_>, name: &str) -> Result<Edit, ShapeError> {
        match at.name_key {
            None => self.map_remove(at.key, name),
            Some(name_key) => self.list_remove(at.key, name_key, name),
        }
    }

    fn map_state(&self, key: &[String]) -> Result<MapState, ShapeError> {
        let located = self.locate(key)?;
        let Some(deepest) = located.nodes.last() else {
            return Ok(MapState {
                depth: 0,
                inside: None,
                blank: (self.text.len() <= BLANK_KEPT).then(|| String::from(&*self.text)),
            });
        };
        Ok(MapState {
            depth: located.nodes.len() - 1,
            inside: deepest
                .members
                .is_empty()
                .then(|| self.text[deepest.start + 1..deepest.end - 1].to_owned()),
            blank: None,
        })
    }

    fn prune(&mut self, key: &[String], before: &MapState) -> Result<(), ShapeError> {
        let located = self.locate(key)?;
        match located.nodes.get(key.len()) {
            Some(map) if map.members.is_empty() => {}
            _ => return Ok(()),
        }
        // The outermost key the add created that holds only the path down to the map.
        for depth in before.depth..key.len() {
            let value = &located.nodes[depth + 1];
            let only_path = nest(&key[depth + 1..], None, &Value::Null).to_string();
            if squeezed(&self.text[value.start..value.end]) != squeezed(&only_path) {
                continue;
            }
            let parent = &located.nodes[depth];
            if let Some(index) = parent
                .members
                .iter()
                .rposition(|m| scan::key_equals(&self.text, member_key(m), &key[depth]))
            {
                let splices = remove_member(&self.text, parent, index);
                self.apply(splices);
            }
            break;
        }
        if let Some(inside) = &before.inside {
            let located = self.locate(&key[..before.depth.min(key.len())])?;
            if let Some(object) = located.nodes.get(before.depth)
                && object.members.is_empty()
            {
                let (open, close) = (object.start + 1, object.end - 1);
                if squeezed(&self.text[open..close]) == squeezed(inside) {
                    self.apply(vec![Splice {
                        at: open,
                        remove: close - open,
                        insert: inside.clone(),
                    }]);
                }
            }
        }
        if let Some(blank) = &before.blank
            && squeezed(&self.text) == format!("{}{{}}", squeezed(blank))
        {
            self.text.clone_from(blank);
            self.index = None;
            self.style = None;
        }
        Ok(())
    }

    fn is_blank(&self) -> bool {
        // Only `{}` or nothing, whitespace aside.
        let mut left = self.text.bytes().filter(|b| !b.is_ascii_whitespace());
        matches!(
            (left.next(), left.next(), left.next()),
            (None, _, _) | (Some(b'{'), Some(b'}'), None)
        )
    }

    fn replace_text(&mut self, text: String) -> Result<(), ParseError> {
        *self = JsonDoc::parse(text)?;
        Ok(())
    }

    fn render(&self) -> std::borrow::Cow<'_, str> {
        std::borrow::Cow::Borrowed(&self.text)
    }

    fn entry_positions(&self, at: ServersAt<'_>) -> (Option<Position>, Vec<(String, Position)>) {
        let Ok(located) = self.find(at.key) else {
            return (None, Vec::new());
        };
        let lines = super::Lines::new(&self.text);
        // What `position(at.key)` gives: the key of the value at the end of the path.
        let map_at = (!at.key.is_empty() && located.nodes.len() == at.key.len() + 1)
            .then(|| located.nodes.last().and_then(|n| n.key))
            .flatten()
            .map(|(start, _, _)| lines.position(start));
        let Some(map) = located
            .nodes
            .get(at.key.len())
            .filter(|_| at.name_key.is_none())
        else {
            return (map_at, Vec::new());
        };
        let mut positions: Vec<(String, Position)> = Vec::with_capacity(map.members.len());
        let mut seen: std::collections::HashMap<String, usize> =
            std::collections::HashMap::with_capacity(map.members.len());
        for member in &map.members {
            let name = scan::decode_key(&self.text, member_key(member));
            let position = lines.position(member.key_start);
            // A duplicated name is where its last occurrence is (the one clients read).
            match seen.get(&name) {
                Some(&i) => positions[i].1 = position,
                None => {
                    seen.insert(name.clone(), positions.len());
                    positions.push((name, position));
                }
            }
        }
        (map_at, positions)
    }

    fn position(&self, path: &[String]) -> Option<Position> {
        let located = self.find(path).ok()?;
        if path.is_empty() || located.nodes.len() != path.len() + 1 {
            return None;
        }
        let (start, _, _) = located.nodes.last()?.key?;
        Some(position_of(&self.text, start))
    }
}

/// Scan one member's value for `path`, with offsets in the whole text.
fn scan_member(text: &str, member: &Member, path: &[String]) -> Result<Vec<Node>, ParseError> {
    let base = member.value_start;
    let mut nodes = scan::scan(&text[base..member.value_end], path, false)?.nodes;
    for node in &mut nodes {
        node.start += base;
        node.end += base;
        node.key = node
            .key
            .map(|(start, end, escaped)| (start + base, end + base, escaped));
        for m in &mut node.members {
            m.key_start += base;
            m.key_end += base;
            m.value_start += base;
            m.value_end += base;
            m.comma = m.comma.map(|c| c + base);
        }
    }
    if let Some(first) = nodes.first_mut() {
        first.key = Some(member_key(member));
    }
    Ok(nodes)
}

fn member_key(member: &Member) -> (usize, usize, bool) {
    (member.key_start, member.key_end, member.key_escaped)
}

fn dotted(key: &[String]) -> String {
    key.join(".")
}

/// `{path[0]: {path[1]: … {name: entry}}}` (`{path[0]: … {}}` without a name).
fn nest(path: &[String], name: Option<&str>, entry: &Value) -> Value {
    let mut value = Map::new();
    if let Some(name) = name {
        value.insert(name.to_owned(), entry.clone());
    }
    let mut value = Value::Object(value);
    for key in path.iter().rev() {
        let mut outer = Map::new();
        outer.insert(key.clone(), value);
        value = Value::Object(outer);
    }
    value
}

/// Parse one value's text (which may hold comments and trailing commas). A lone UTF-16
/// surrogate escape (`"\udc00"`), which `JSON.parse` accepts but a Rust string cannot
/// hold, reads as U+FFFD: the entry is shown, and its bytes are never rewritten.
pub(super) fn parse_value(text: &str) -> Result<Value, String> {
    let parse = |text: &str| {
        jsonc_parser::parse_to_serde_value::<Value>(text, &Default::default())
            .map_err(|e| e.to_string())
    };
    parse(text).or_else(|error| {
        let patched = without_lone_surrogates(text);
        let patched = patched.as_deref().unwrap_or(text);
        let shallow = cut_deeper_than(patched, MAX_ENTRY_DEPTH);
        parse(shallow.as_deref().unwrap_or(patched)).map_err(|_| error)
    })
}

/// Nesting kept when reading an entry; deeper containers read as `null` (the parser
/// refuses more than 512 levels, and no server setting is nested this deep).
const MAX_ENTRY_DEPTH: usize = 128;

/// `text` (valid JSONC) with each container nested deeper than `max` replaced by `null`;
/// `None` when there is none.
fn cut_deeper_than(text: &str, max: usize) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = String::new();
    let mut copied = 0;
    let mut depth = 0usize;
    let mut cut_from: Option<usize> = None;
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        match byte {
            b'"' => {
                at += 1;
                while let Some(&b) = bytes.get(at) {
                    at += if b == b'\\' { 2 } else { 1 };
                    if b == b'"' {
                        break;
                    }
                }
                continue;
            }
            b'/' if bytes.get(at + 1) == Some(&b'/') => {
                at = text[at..].find('\n').map_or(bytes.len(), |n| at + n);
                continue;
            }
            b'/' if bytes.get(at + 1) == Some(&b'*') => {
                at = text[at + 2..]
                    .find("*/")
                    .map_or(bytes.len(), |n| at + 2 + n + 2);
                continue;
            }
            b'[' | b'{' => {
                depth += 1;
                if depth > max && cut_from.is_none() {
                    cut_from = Some(at);
                }
            }
            b']' | b'}' => {
                if depth == max + 1
                    && let Some(from) = cut_from.take()
                {
                    out.push_str(&text[copied..from]);
                    out.push_str("null");
                    copied = at + 1;
                }
                depth = depth.saturating_sub(1);
            }
            _ => {}
        }
        at += 1;
    }
    if copied == 0 {
        return None;
    }
    out.push_str(&text[copied.min(text.len())..]);
    Some(out)
}

/// `text` with every `\uXXXX` escape of an unpaired surrogate replaced by `\ufffd`;
/// `None` when there is none.
fn without_lone_surrogates(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let unit = |at: usize| -> Option<u16> {
        let hex = text.get(at + 2..at + 6)?;
        (bytes.get(at) == Some(&b'\\') && bytes.get(at + 1) == Some(&b'u'))
            .then(|| u16::from_str_radix(hex, 16).ok())
            .flatten()
    };
    let mut out = String::new();
    let mut copied = 0;
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] != b'\\' {
            at += 1;
            continue;
        }
        match unit(at) {
            // A valid pair.
            Some(0xD800..=0xDBFF)
                if unit(at + 6).is_some_and(|low| (0xDC00..=0xDFFF).contains(&low)) =>
            {
                at += 12;
            }
            Some(0xD800..=0xDFFF) => {
                out.push_str(&text[copied..at]);
                out.push_str("\\ufffd");
                at += 6;
                copied = at;
            }
            // Any other escape: skip the backslash and the escaped character.
            _ => at += 2,
        }
    }
    if copied == 0 {
        return None;
    }
    out.push_str(&text[copied..]);
    Some(out)
}

/// A file's layout conventions, detected from its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Style {
    /// One indentation level (`"  "`, `"    "`, `"\t"`); `None` for a single-line
    /// (minified) file, whose new entries are written compactly.
    pub(super) indent: Option<String>,
    /// `"\r\n"` or `"\n"`.
    pub(super) newline: String,
}

impl Style {
    pub(super) fn detect(text: &str) -> Self {
        Self {
            indent: detect_indent(text),
            newline: detect_line_ending(text).to_owned(),
        }
    }

    fn unit(&self) -> String {
        self.indent.clone().unwrap_or_else(|| "  ".to_owned())
    }
}

/// The line ending of a text: `"\r\n"` when its first line break is CRLF, else `"\n"`.
pub(crate) fn detect_line_ending(text: &str) -> &'static str {
    match text.find('\n') {
        Some(i) if i > 0 && text.as_bytes()[i - 1] == b'\r' => "\r\n",
        _ => "\n",
    }
}

/// The indentation unit of a text: the most common increase of leading whitespace from one
/// line to the next among the first lines (a tab if that increase starts with a tab).
/// `None` when the content sits on one line (minified); `"  "` when nothing is indented.
pub(crate) fn detect_indent(text: &str) -> Option<String> {
    let trimmed = text.trim();
    if !trimmed.is_empty() && !trimmed.contains('\n') && trimmed.len() > 2 {
        return None;
    }
    let mut counts: Vec<(String, usize)> = Vec::new();
    let mut previous = 0usize;
    for line in text.lines().take(2000) {
        let content = line.trim_start_matches([' ', '\t']);
        if content.trim().is_empty() || content.starts_with('*') {
            continue;
        }
        let lead = &line[..line.len() - content.len()];
        if lead.len() > previous {
            let unit = if lead.starts_with('\t') {
                "\t".to_owned()
            } else {
                " ".repeat(lead.len() - previous)
            };
            match counts.iter_mut().find(|(u, _)| *u == unit) {
                Some((_, n)) => *n += 1,
                None => counts.push((unit, 1)),
            }
        }
        previous = lead.len();
    }
    // Most frequent; ties go to the unit seen first.
    let mut best: Option<(String, usize)> = None;
    for (unit, n) in counts {
        if best.as_ref().is_none_or(|(_, m)| n > *m) {
            best = Some((unit, n));
        }
    }
    Some(best.map_or_else(|| "  ".to_owned(), |(unit, _)| unit))
}

/// Render `value` like `JSON.stringify(value, null, indent)` with every line after the
/// first prefixed by `base` (the indentation of the line the value starts on).
fn render(
    value: &Value,
    indent: Option<&str>,
    base: &str,
    newline: &str,
) -> Result<String, ShapeError> {
    let unrepresentable = |err: serde_json::Error| ShapeError::Unrepresentable {
        name: String::new(),
        message: err.to_string(),
    };
    let Some(indent) = indent else {
        return serde_json::to_string(value).map_err(unrepresentable);
    };
    let mut buffer = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(indent.as_bytes());
    let mut serializer = serde_json::Serializer::with_formatter(&mut buffer, formatter);
    serde::Serialize::serialize(value, &mut serializer).map_err(unrepresentable)?;
    let pretty = String::from_utf8_lossy(&buffer);
    // JSON strings never contain raw line breaks, so every `\n` is layout.
    Ok(pretty.replace('\n', &format!("{newline}{base}")))
}

/// A list of plain values (a tool list, a list of names) replacing one written on one
/// line stays on one line, spaced as the old one was: `["a", "b"]` or `["a","b"]`. So a
/// list changed and changed back reads as it did.
fn one_line_list(old: &str, new: &Value) -> Option<String> {
    let items = new.as_array()?;
    if old.contains('\n')
        || !old.starts_with('[')
        || items.iter().any(|v| v.is_array() || v.is_object())
    {
        return None;
    }
    // A list of one says nothing about spacing: people write `["a", "b"]`.
    let separator = if old.contains(',') && !old.contains(", ") {
        ","
    } else {
        ", "
    };
    let items: Vec<String> = items
        .iter()
        .map(serde_json::to_string)
        .collect::<Result<_, _>>()
        .ok()?;
    Some(format!("[{}]", items.join(separator)))
}

/// An entry written on one line (`{ "url": "…" }`) replaced by another stays on one
/// line, spaced as the old one was (`{ "a": 1 }` or `{"a":1}`): `check --fix` renaming a
/// key must not reflow a one-line entry into eight (issue 40).
fn one_line_object(old: &str, new: &Value) -> Option<String> {
    if old.contains('\n') || !old.starts_with('{') || !new.is_object() {
        return None;
    }
    let spaced = old.contains(": ");
    let padded = old.starts_with("{ ");
    fn line(value: &Value, spaced: bool, padded: bool) -> Option<String> {
        let (colon, comma) = if spaced { (": ", ", ") } else { (":", ",") };
        Some(match value {
            Value::Object(map) if !map.is_empty() => {
                let members: Vec<String> = map
                    .iter()
                    .map(|(k, v)| {
                        Some(format!(
                            "{}{colon}{}",
                            serde_json::to_string(k).ok()?,
                            line(v, spaced, padded)?
                        ))
                    })
                    .collect::<Option<_>>()?;
                let pad = if padded { " " } else { "" };
                format!("{{{pad}{}{pad}}}", members.join(comma))
            }
            Value::Array(items) => {
                let items: Vec<String> = items
                    .iter()
                    .map(|v| line(v, spaced, padded))
                    .collect::<Option<_>>()?;
                format!("[{}]", items.join(comma))
            }
            other => serde_json::to_string(other).ok()?,
        })
    }
    line(new, spaced, padded)
}

/// The spaces and tabs at the start of the line holding `at`.
fn line_indent(text: &str, at: usize) -> &str {
    let start = line_start(text, at);
    let rest = &text[start..];
    &rest[..rest.len() - rest.trim_start_matches([' ', '\t']).len()]
}

fn line_start(text: &str, at: usize) -> usize {
    text[..at].rfind('\n').map_or(0, |i| i + 1)
}

/// From `at`, skip spaces, tabs and comments that end on this line; the offset of the line
/// break (or end of text) if nothing else follows on the line.
fn line_tail_end(text: &str, mut at: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    loop {
        match bytes.get(at) {
            None => return Some(at),
            Some(b' ' | b'\t') => at += 1,
            Some(b'\n' | b'\r') => return Some(at),
            Some(b'/') => {
                let end = scan::comment_end(text, at).ok()?;
                if text[at..end].contains('\n') {
                    return None;
                }
                at = end;
            }
            Some(_) => return None,
        }
    }
}

/// Whether a member stands on its own line(s): only indentation before its key, and only
/// comments after its value (and comma) on the line where it ends.
fn standalone(text: &str, member: &Member) -> Option<usize> {
    let start = line_start(text, member.key_start);
    if !text[start..member.key_start]
        .trim_start_matches([' ', '\t'])
        .is_empty()
    {
        return None;
    }
    line_tail_end(text, member.comma.map_or(member.value_end, |c| c + 1))
}

/// The offset of the line break just before the line holding `at` (`\r\n` counts whole).
fn break_before_line(text: &str, at: usize) -> usize {
    let start = line_start(text, at);
    if start >= 2 && text.as_bytes()[start - 2] == b'\r' {
        start - 2
    } else {
        start.saturating_sub(1)
    }
}

/// Splices adding `"name": value` as the last member of `object` (`value` as the last
/// item of a list when `name` is `None`).
fn insert_member(
    text: &str,
    object: &Node,
    name: Option<&str>,
    value: &Value,
    style: &Style,
) -> Result<Vec<Splice>, ShapeError> {
    let newline = style.newline.as_str();
    let indent = style.indent.as_deref();
    let (colon, comma) = if indent.is_some() {
        (": ", ", ")
    } else {
        (":", ",")
    };
    // `"name": ` for a member; nothing for an item of a list (`list.rs`).
    let key = match name {
        Some(name) => {
            let quoted =
                serde_json::to_string(name).map_err(|err| ShapeError::Unrepresentable {
                    name: name.to_owned(),
                    message: err.to_string(),
                })?;
            format!("{quoted}{colon}")
        }
        None => String::new(),
    };
    let open = object.start;
    let close = object.end - 1;
    if let Some(last) = object.members.last() {
        if indent.is_some()
            && let Some(tail) = standalone(text, last)
        {
            let member_indent = line_indent(text, last.key_start);
            let mut member = format!(
                "{newline}{member_indent}{key}{}",
                render(value, indent, member_indent, newline)?
            );
            let mut splices = Vec::new();
            if last.comma.is_some() {
                member.push(',');
            } else {
                splices.push(Splice::insert(last.value_end, ",".to_owned()));
            }
            splices.push(Splice::insert(tail, member));
            return Ok(splices);
        }
        // Members share lines: continue the line after the last value.
        let base = line_indent(text, last.key_start);
        let member = format!("{comma}{key}{}", render(value, indent, base, newline)?);
        return Ok(vec![Splice::insert(last.value_end, member)]);
    }
    let object_indent = line_indent(text, open);
    let inside = &text[open + 1..close];
    let Some(unit) = indent else {
        let member = format!("{key}{}", render(value, None, "", newline)?);
        return Ok(vec![Splice::insert(close, member)]);
    };
    let member_indent = format!("{object_indent}{unit}");
    let member = format!(
        "{member_indent}{key}{}",
        render(value, indent, &member_indent, newline)?
    );
    if inside.trim().is_empty() {
        // `{}`: replace the inside with the member on its own lines.
        return Ok(vec![Splice {
            at: open + 1,
            remove: close - open - 1,
            insert: format!("{newline}{member}{newline}{object_indent}"),
        }]);
    }
    // Only comments inside: add the member on the line after the last comment.
    let mut at = open + 1;
    let mut last_comment_end = None;
    while at < close {
        match text.as_bytes().get(at) {
            Some(b'/') => {
                let end = scan::comment_end(text, at).unwrap_or(close);
                last_comment_end = Some(end);
                at = end;
            }
            _ => at += 1,
        }
    }
    if let Some(tail) = last_comment_end.and_then(|end| line_tail_end(text, end))
        && tail < close
    {
        return Ok(vec![Splice::insert(tail, format!("{newline}{member}"))]);
    }
    Ok(vec![Splice::insert(
        close,
        format!("{newline}{member}{newline}{object_indent}"),
    )])
}

/// Splices removing member `index` of `object`: exactly the inverse of `insert_member` for
/// the last member, and tidy (no blank line, no dangling comma) for the others.
fn remove_member(text: &str, object: &Node, index: usize) -> Vec<Splice> {
    let members = &object.members;
    let member = &members[index];
    let after = member.comma.map_or(member.value_end, |c| c + 1);
    let previous = index.checked_sub(1).and_then(|i| members.get(i));
    let next = members.get(index + 1);
    if let Some(tail) = standalone(text, member) {
        let mut splices = vec![Splice::delete(
            break_before_line(text, member.key_start),
            tail,
        )];
        if next.is_none()
            && member.comma.is_none()
            && let Some(comma) = previous.and_then(|p| p.comma)
        {
            splices.push(Splice::delete(comma, comma + 1));
        }
        return splices;
    }
    match (previous, next) {
        (_, Some(next)) => vec![Splice::delete(member.key_start, next.key_start)],
        (Some(previous), None) => vec![Splice::delete(previous.value_end, member.value_end)],
        (None, None) => vec![Splice::delete(member.key_start, after)],
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, reason = "tests write scratch files")]
mod tests {
    use super::*;
    use serde_json::json;

    fn k(keys: &[&str]) -> Vec<String> {
        keys.iter().map(|key| (*key).to_owned()).collect()
    }

    fn entry() -> Value {
        json!({"command": "npx", "args": ["-y", "pkg"], "env": {}})
    }

    /// Add `name` under `key`, check the expected text, then remove it and check identity.
    fn add_remove(text: &str, key: &[&str], name: &str, expected: &str) {
        let mut doc = JsonDoc::parse(text).unwrap();
        assert_eq!(
            doc.map_upsert(&k(key), name, &entry()).unwrap(),
            Edit::Added
        );
        assert_eq!(doc.render(), expected, "after add");
        let servers = doc.map_servers(&k(key)).unwrap();
        assert!(servers.iter().any(|(n, v)| n == name && *v == entry()));
        JsonDoc::parse(doc.render()).unwrap();
        assert_eq!(doc.map_remove(&k(key), name).unwrap(), Edit::Removed);
        assert_eq!(doc.render(), text, "after remove");
    }

    #[test]
    fn add_after_last_entry_then_remove_restores_bytes() {
        let text = "{\n  \"a\": 1,\n  \"mcpServers\": {\n    \"x\": {\n      \"command\": \"y\"\n    }\n  },\n  \"z\": 1.0\n}\n";
        let expected = "{\n  \"a\": 1,\n  \"mcpServers\": {\n    \"x\": {\n      \"command\": \"y\"\n    },\n    \"new\": {\n      \"command\": \"npx\",\n      \"args\": [\n        \"-y\",\n        \"pkg\"\n      ],\n      \"env\": {}\n    }\n  },\n  \"z\": 1.0\n}\n";
        add_remove(text, &["mcpServers"], "new", expected);
    }

    #[test]
    fn add_to_empty_map_then_remove_restores_braces() {
        let text = "{\n    \"mcpServers\": {},\n    \"n\": 1e3\n}";
        let expected = "{\n    \"mcpServers\": {\n        \"s\": {\n            \"command\": \"npx\",\n            \"args\": [\n                \"-y\",\n                \"pkg\"\n            ],\n            \"env\": {}\n        }\n    },\n    \"n\": 1e3\n}";
        add_remove(text, &["mcpServers"], "s", expected);
    }

    #[test]
    fn last_member_of_parent_and_tabs_and_crlf() {
        let text =
            "{\r\n\t\"other\": true,\r\n\t\"mcpServers\": {\r\n\t\t\"x\": {}\r\n\t}\r\n}\r\n";
        let expected = "{\r\n\t\"other\": true,\r\n\t\"mcpServers\": {\r\n\t\t\"x\": {},\r\n\t\t\"s\": {\r\n\t\t\t\"command\": \"npx\",\r\n\t\t\t\"args\": [\r\n\t\t\t\t\"-y\",\r\n\t\t\t\t\"pkg\"\r\n\t\t\t],\r\n\t\t\t\"env\": {}\r\n\t\t}\r\n\t}\r\n}\r\n";
        add_remove(text, &["mcpServers"], "s", expected);
    }

    #[test]
    fn comments_inside_map_and_trailing_commas_survive() {
        let text = "// settings\n{\n  /* servers */\n  \"servers\": {\n    // first\n    \"a\": {\"type\": \"stdio\"}, // inline note\n    /* between */\n    \"b\": {\"url\": \"u\",}, // after b\n    // end\n  },\n}\n";
        let expected = "// settings\n{\n  /* servers */\n  \"servers\": {\n    // first\n    \"a\": {\"type\": \"stdio\"}, // inline note\n    /* between */\n    \"b\": {\"url\": \"u\",}, // after b\n    \"new\": {\n      \"command\": \"npx\",\n      \"args\": [\n        \"-y\",\n        \"pkg\"\n      ],\n      \"env\": {}\n    },\n    // end\n  },\n}\n";
        add_remove(text, &["servers"], "new", expected);
    }

    #[test]
    fn comment_after_last_value_stays_with_it() {
        let text = "{\"mcpServers\": {\n  \"a\": 1 // keep\n}}";
        let expected = "{\"mcpServers\": {\n  \"a\": 1, // keep\n  \"n\": {\n    \"command\": \"npx\",\n    \"args\": [\n      \"-y\",\n      \"pkg\"\n    ],\n    \"env\": {}\n  }\n}}";
        add_remove(text, &["mcpServers"], "n", expected);
    }

    #[test]
    fn map_with_only_comments() {
        let text = "{\n  \"mcp\": {\n    // none yet\n  }\n}\n";
        let expected = "{\n  \"mcp\": {\n    // none yet\n    \"n\": {\n      \"command\": \"npx\",\n      \"args\": [\n        \"-y\",\n        \"pkg\"\n      ],\n      \"env\": {}\n    }\n  }\n}\n";
        add_remove(text, &["mcp"], "n", expected);
    }

    #[test]
    fn single_line_and_minified_maps() {
        add_remove(
            "{\"mcpServers\":{\"a\":{\"command\":\"b\"}}}",
            &["mcpServers"],
            "n",
            "{\"mcpServers\":{\"a\":{\"command\":\"b\"},\"n\":{\"command\":\"npx\",\"args\":[\"-y\",\"pkg\"],\"env\":{}}}}",
        );
        add_remove(
            "{\"mcpServers\":{}}",
            &["mcpServers"],
            "n",
            "{\"mcpServers\":{\"n\":{\"command\":\"npx\",\"args\":[\"-y\",\"pkg\"],\"env\":{}}}}",
        );
        // A one-line map inside a pretty file.
        let text = "{\n  \"mcpServers\": {\"a\": 1, \"b\": 2,},\n  \"x\": 0\n}";
        let mut doc = JsonDoc::parse(text).unwrap();
        doc.map_upsert(&k(&["mcpServers"]), "n", &json!(3)).unwrap();
        assert_eq!(
            doc.render(),
            "{\n  \"mcpServers\": {\"a\": 1, \"b\": 2, \"n\": 3,},\n  \"x\": 0\n}"
        );
        doc.map_remove(&k(&["mcpServers"]), "n").unwrap();
        assert_eq!(doc.render(), text);
    }

    #[test]
    fn nested_key_path_with_dots_and_slashes() {
        let text = "{\n  \"projects\": {\n    \"/home/u/app\": {\n      \"allowedTools\": [],\n      \"mcpServers\": {}\n    },\n    \"/home/u/other\": {\n      \"mcpServers\": {\"z\": {}}\n    }\n  },\n  \"amp.mcpServers\": {}\n}";
        let mut doc = JsonDoc::parse(text).unwrap();
        doc.map_upsert(
            &k(&["projects", "/home/u/app", "mcpServers"]),
            "a",
            &json!({}),
        )
        .unwrap();
        doc.map_upsert(&k(&["amp.mcpServers"]), "b", &json!({"url": "u"}))
            .unwrap();
        assert_eq!(
            doc.render(),
            "{\n  \"projects\": {\n    \"/home/u/app\": {\n      \"allowedTools\": [],\n      \"mcpServers\": {\n        \"a\": {}\n      }\n    },\n    \"/home/u/other\": {\n      \"mcpServers\": {\"z\": {}}\n    }\n  },\n  \"amp.mcpServers\": {\n    \"b\": {\n      \"url\": \"u\"\n    }\n  }\n}"
        );
        assert!(doc.map_servers(&k(&["amp"])).unwrap().is_empty());
        assert_eq!(
            doc.map_servers(&k(&["projects", "/home/u/other", "mcpServers"]))
                .unwrap()
                .len(),
            1
        );
        doc.map_remove(&k(&["amp.mcpServers"]), "b").unwrap();
        doc.map_remove(&k(&["projects", "/home/u/app", "mcpServers"]), "a")
            .unwrap();
        assert_eq!(doc.render(), text);
    }

    #[test]
    fn missing_key_and_parents_are_created_last_in_the_file_style() {
        let text = "{\n    \"a\": 1\n}\n";
        let mut doc = JsonDoc::parse(text).unwrap();
        assert!(
            doc.map_servers(&k(&["projects", "/p", "mcpServers"]))
                .unwrap()
                .is_empty()
        );
        doc.map_upsert(
            &k(&["projects", "/p", "mcpServers"]),
            "s",
            &json!({"command": "x"}),
        )
        .unwrap();
        assert_eq!(
            doc.render(),
            "{\n    \"a\": 1,\n    \"projects\": {\n        \"/p\": {\n            \"mcpServers\": {\n                \"s\": {\n                    \"command\": \"x\"\n                }\n            }\n        }\n    }\n}\n"
        );
        let mut doc = JsonDoc::parse("{}").unwrap();
        doc.map_upsert(&k(&["mcpServers"]), "s", &json!({"command": "x"}))
            .unwrap();
        assert_eq!(
            doc.render(),
            "{\n  \"mcpServers\": {\n    \"s\": {\n      \"command\": \"x\"\n    }\n  }\n}"
        );
    }

    #[test]
    fn empty_and_whitespace_documents() {
        for text in ["", "  \n", "\r\n"] {
            let mut doc = JsonDoc::parse(text).unwrap();
            assert!(doc.map_servers(&k(&["mcpServers"])).unwrap().is_empty());
            assert_eq!(
                doc.map_remove(&k(&["mcpServers"]), "s").unwrap(),
                Edit::Unchanged
            );
            doc.map_upsert(&k(&["mcpServers"]), "s", &json!({"command": "x"}))
                .unwrap();
            let nl = if text.contains('\r') { "\r\n" } else { "\n" };
            let expected =
                "{\n  \"mcpServers\": {\n    \"s\": {\n      \"command\": \"x\"\n    }\n  }\n}\n"
                    .replace('\n', nl);
            assert_eq!(doc.render(), expected);
        }
    }

    #[test]
    fn equal_entry_is_unchanged_and_different_entry_replaces_only_its_value() {
        let text = "{\n  \"mcpServers\": {\n    \"s\": { \"args\": [\"a\"], /* c */ \"command\": \"x\" }, // note\n    \"t\": {}\n  }\n}";
        let mut doc = JsonDoc::parse(text).unwrap();
        let same = json!({"command": "x", "args": ["a"]});
        assert_eq!(
            doc.map_upsert(&k(&["mcpServers"]), "s", &same).unwrap(),
            Edit::Unchanged
        );
        assert_eq!(doc.render(), text);
        let changed = json!({"command": "y"});
        assert_eq!(
            doc.map_upsert(&k(&["mcpServers"]), "s", &changed).unwrap(),
            Edit::Updated
        );
        assert_eq!(
            doc.render(),
            // Written on one line, it stays on one line (issue 40).
            "{\n  \"mcpServers\": {\n    \"s\": { \"command\": \"y\" }, // note\n    \"t\": {}\n  }\n}"
        );
    }

    #[test]
    fn a_one_line_list_stays_on_one_line() {
        let text =
            "{\n  \"s\": {\n    \"x\": {\"command\": \"a\", \"disabledTools\": [\"t\"]}\n  }\n}\n";
        let mut doc = JsonDoc::parse(text).unwrap();
        let at = k(&["s", "x"]);
        doc.upsert(
            ServersAt::map(&at),
            "disabledTools",
            &serde_json::json!(["t", "u"]),
        )
        .unwrap();
        assert!(
            doc.render().contains("\"disabledTools\": [\"t\", \"u\"]}"),
            "{}",
            doc.render()
        );
        doc.upsert(
            ServersAt::map(&at),
            "disabledTools",
            &serde_json::json!(["t"]),
        )
        .unwrap();
        assert_eq!(doc.render(), text);
    }

    #[test]
    fn remove_first_middle_and_only_entries() {
        let text = "{\n  \"m\": {\n    \"a\": 1,\n    \"b\": 2, // two\n    \"c\": 3\n  }\n}";
        let mut doc = JsonDoc::parse(text).unwrap();
        doc.map_remove(&k(&["m"]), "b").unwrap();
        assert_eq!(
            doc.render(),
            "{\n  \"m\": {\n    \"a\": 1,\n    \"c\": 3\n  }\n}"
        );
        doc.map_remove(&k(&["m"]), "a").unwrap();
        assert_eq!(doc.render(), "{\n  \"m\": {\n    \"c\": 3\n  }\n}");
        doc.map_remove(&k(&["m"]), "c").unwrap();
        assert_eq!(doc.render(), "{\n  \"m\": {}\n}");
        assert_eq!(doc.map_remove(&k(&["m"]), "c").unwrap(), Edit::Unchanged);
        let mut doc = JsonDoc::parse("{\"m\": {\"a\": 1, \"b\": 2}}").unwrap();
        doc.map_remove(&k(&["m"]), "a").unwrap();
        assert_eq!(doc.render(), "{\"m\": {\"b\": 2}}");
    }

    #[test]
    fn wrong_types_on_the_path_are_shape_errors() {
        let cases = [
            (
                "{\"mcpServers\": []}",
                &["mcpServers"][..],
                "mcpServers",
                "an array",
            ),
            (
                "{\"mcpServers\": \"x\"}",
                &["mcpServers"][..],
                "mcpServers",
                "a string",
            ),
            ("[1]", &["mcpServers"][..], "(root)", "an array"),
            (
                "{\"projects\": {\"/p\": 3}}",
                &["projects", "/p", "mcpServers"][..],
                "projects./p",
                "a number",
            ),
            (
                "{\"mcpServers\": null}",
                &["mcpServers"][..],
                "mcpServers",
                "null",
            ),
        ];
        for (text, key, dotted, kind) in cases {
            let mut doc = JsonDoc::parse(text).unwrap();
            let check = |err: ShapeError| match err {
                ShapeError::NotAnObject {
                    key,
                    found,
                    position,
                } => {
                    assert_eq!((key.as_str(), found), (dotted, kind));
                    assert!(position.is_some());
                }
                other => panic!("unexpected {other:?}"),
            };
            check(doc.map_servers(&k(key)).unwrap_err());
            check(doc.map_upsert(&k(key), "s", &entry()).unwrap_err());
            check(doc.map_remove(&k(key), "s").unwrap_err());
            assert_eq!(doc.render(), text);
        }
    }

    #[test]
    fn parse_errors_have_line_and_column() {
        let err = super::super::Format::Jsonc
            .parse("{\n  \"a\": 1,\n  \"b\" 2\n}")
            .err()
            .unwrap();
        assert_eq!((err.line, err.column), (3, 7));
        assert!(err.message.contains("`:`"));
    }

    #[test]
    fn position_of_nested_keys() {
        let text = "{\n  \"mcpServers\": {\n    \"github\": {\n      \"url\": \"u\"\n    }\n  }\n}";
        let doc = JsonDoc::parse(text).unwrap();
        assert_eq!(
            doc.position(&k(&["mcpServers", "github", "url"])),
            Some(Position { line: 4, column: 7 })
        );
        assert_eq!(
            doc.position(&k(&["mcpServers"])),
            Some(Position { line: 2, column: 3 })
        );
        assert_eq!(doc.position(&k(&["mcpServers", "nope"])), None);
        assert_eq!(doc.position(&[]), None);
    }

    #[test]
    fn names_needing_escapes_round_trip() {
        let text = "{\n  \"mcpServers\": {\n    \"a\": {}\n  }\n}\n";
        for name in [
            "quo\"te",
            "back\\slash",
            "dot.ted",
            "ünï 😀",
            "tab\there",
            "",
        ] {
            let mut doc = JsonDoc::parse(text).unwrap();
            doc.map_upsert(&k(&["mcpServers"]), name, &entry()).unwrap();
            let names: Vec<String> = doc
                .map_servers(&k(&["mcpServers"]))
                .unwrap()
                .into_iter()
                .map(|(n, _)| n)
                .collect();
            assert_eq!(names, vec!["a".to_owned(), name.to_owned()]);
            assert_eq!(
                doc.map_upsert(&k(&["mcpServers"]), name, &entry()).unwrap(),
                Edit::Unchanged
            );
            doc.map_remove(&k(&["mcpServers"]), name).unwrap();
            assert_eq!(doc.render(), text);
        }
    }

    #[test]
    fn detectors() {
        assert_eq!(detect_line_ending("{\r\n}"), "\r\n");
        assert_eq!(detect_line_ending("{}"), "\n");
        assert_eq!(detect_indent("{\n\t\"a\": 1\n}").as_deref(), Some("\t"));
        assert_eq!(
            detect_indent("{\n    \"a\": {\n        \"b\": 1\n    }\n}").as_deref(),
            Some("    ")
        );
        assert_eq!(detect_indent("{\"a\":1}"), None);
        assert_eq!(detect_indent("").as_deref(), Some("  "));
    }

    #[test]
    fn big_document_add_remove_identity() {
        let text = big_document(5_000_000);
        assert!(text.len() > 5_000_000);
        let key = k(&["projects", "/home/u/project-77", "mcpServers"]);
        let mut doc = JsonDoc::parse(&text).unwrap();
        assert_eq!(doc.map_servers(&key).unwrap().len(), 1);
        doc.map_upsert(&key, "new", &entry()).unwrap();
        assert_eq!(doc.map_servers(&key).unwrap().len(), 2);
        let mut doc = JsonDoc::parse(doc.render()).unwrap();
        doc.map_remove(&key, "new").unwrap();
        assert!(doc.render() == text);
        let root = k(&["mcpServers"]);
        doc.map_upsert(&root, "new", &entry()).unwrap();
        doc.map_remove(&root, "new").unwrap();
        assert!(doc.render() == text);
    }

    /// Timing probe, not a test: `cargo test --release --lib big_file_timings -- --ignored --nocapture`.
    #[test]
    #[ignore = "timing probe for a 17 MB file; run by hand"]
    fn big_file_timings() {
        use std::time::Instant;
        let text = big_document(17_000_000);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("claude.json");
        std::fs::write(&path, &text).unwrap();
        let start = Instant::now();
        std::fs::copy(&path, dir.path().join("a")).unwrap();
        std::fs::copy(&path, dir.path().join("b")).unwrap();
        let copy_twice = start.elapsed();
        let key = k(&["projects", "/home/u/project-1", "mcpServers"]);
        let root_key = k(&["mcpServers"]);
        for key in [key, root_key] {
            let start = Instant::now();
            let source = std::fs::read_to_string(&path).unwrap();
            let read = start.elapsed();
            let mut doc = JsonDoc::parse(&source).unwrap();
            let parsed = start.elapsed();
            doc.map_upsert(&key, "new", &entry()).unwrap();
            let upserted = start.elapsed();
            let rendered = doc.render();
            let rendered_at = start.elapsed();
            std::fs::write(dir.path().join("out"), rendered.as_bytes()).unwrap();
            eprintln!(
                "read {read:?} parse {parsed:?} upsert {upserted:?} render {rendered_at:?} write {:?}",
                start.elapsed()
            );
            let source = std::fs::read_to_string(dir.path().join("out")).unwrap();
            let mut doc = JsonDoc::parse(&source).unwrap();
            doc.map_remove(&key, "new").unwrap();
            let rendered = doc.render();
            std::fs::write(dir.path().join("out"), rendered.as_bytes()).unwrap();
            let add_remove = start.elapsed();
            assert!(rendered == text);
            let start = Instant::now();
            JsonDoc::parse(&text).unwrap();
            let validate = start.elapsed();
            eprintln!(
                "{} bytes, key {:?}: add+remove with file I/O {:?}; copying the file twice {:?}; one validating scan {:?}",
                text.len(),
                key,
                add_remove,
                copy_twice,
                validate
            );
        }
    }

    pub(crate) fn big_document(size: usize) -> String {
        let mut text = String::from("{\n  \"numStartups\": 412,\n  \"projects\": {\n");
        let mut i = 0;
        while text.len() < size {
            if i > 0 {
                text.push_str(",\n");
            }
            let long = "lorem \\\"ipsum\\\" dolor sit amet, é ".repeat(40 + i % 50);
            text.push_str(&format!(
                "    \"/home/u/project-{i}\": {{\n      \"allowedTools\": [],\n      \"history\": [\n        {{\n          \"display\": \"{long}\",\n          \"pastedContents\": {{}}\n        }}\n      ],\n      \"mcpServers\": {{\n        \"s{i}\": {{\n          \"command\": \"x\"\n        }}\n      }},\n      \"lastCost\": 0.5e1\n    }}"
            ));
            i += 1;
        }
        text.push_str("\n  },\n  \"mcpServers\": {\n    \"g\": {\n      \"type\": \"http\",\n      \"url\": \"https://x\"\n    }\n  },\n  \"userID\": \"abc\"\n}\n");
        text
    }

    /// Adding, updating and removing entries in turn in one document writes each where
    /// it belongs.
    #[test]
    fn edits_in_one_map_write_each_in_place() {
        let key = k(&["mcpServers"]);
        let text = "{\n  // mine\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"} // note\n  },\n  \"after\": [1]\n}\n";
        let mut doc = JsonDoc::parse(text).unwrap();
        for i in 0..20 {
            let name = format!("s{i}");
            assert_eq!(
                doc.map_upsert(&key, &name, &json!({"command": "y", "args": [i]}))
                    .unwrap(),
                Edit::Added
            );
        }
        assert_eq!(
            doc.map_upsert(&key, "a", &json!({"url": "u"})).unwrap(),
            Edit::Updated
        );
        assert_eq!(doc.map_remove(&key, "s3").unwrap(), Edit::Removed);
        let rendered = doc.render();
        assert!(
            rendered.contains("\"a\": {\"url\": \"u\"}, // note\n    \"s0\""),
            "{rendered}"
        );
        assert!(rendered.ends_with("    \"s19\": {\n      \"command\": \"y\",\n      \"args\": [\n        19\n      ]\n    }\n  },\n  \"after\": [1]\n}\n"), "{rendered}");
    }

    mod generated {
        use super::*;
        use proptest::prelude::*;

        type GeneratedEntry = (String, &'static str, bool);

        #[derive(Debug, Clone)]
        struct Layout {
            unit: &'static str,
            newline: &'static str,
            others: Vec<(String, &'static str)>,
            /// Where the map goes among the other members, and its entries (name, value,
            /// comment line before it).
            servers: Option<(usize, Vec<GeneratedEntry>)>,
            trailing_comma: bool,
            empty_map_comment: bool,
            head_comment: bool,
            final_newline: bool,
        }

        fn name() -> impl Strategy<Value = String> {
            "[a-z\"\\\\. é😀/]{0,6}"
        }

        fn layout() -> impl Strategy<Value = Layout> {
            let scalar = prop::sample::select(vec![
                "1.0",
                "1e3",
                "-0",
                "\"s\"",
                "true",
                "null",
                "[]",
                "[1, 2]",
                "{}",
                "{\"k\": [true]}",
            ]);
            let entry = prop::sample::select(vec![
                "{}",
                "{\"command\": \"x\"}",
                "{\"url\": \"u\", \"headers\": {\"A\": \"b\"}}",
            ]);
            (
                prop::sample::select(vec!["  ", "    ", "\t"]),
                prop::sample::select(vec!["\n", "\r\n"]),
                prop::collection::vec(("[a-z]{1,8}", scalar), 0..4),
                prop::option::of((
                    0usize..5,
                    prop::collection::vec((name(), entry, any::<bool>()), 0..4),
                )),
                any::<bool>(),
                any::<bool>(),
                any::<bool>(),
                any::<bool>(),
            )
                .prop_map(
                    |(
                        unit,
                        newline,
                        others,
                        servers,
                        trailing_comma,
                        empty_map_comment,
                        head_comment,
                        final_newline,
                    )| Layout {
                        unit,
                        newline,
                        others,
                        servers,
                        trailing_comma,
                        empty_map_comment,
                        head_comment,
                        final_newline,
                    },
                )
        }

        fn render_layout(layout: &Layout) -> String {
            let (u, nl) = (layout.unit, layout.newline);
            let mut members: Vec<String> = layout
                .others
                .iter()
                .enumerate()
                .map(|(i, (key, value))| format!("{u}\"{key}{i}\": {value}"))
                .collect();
            if let Some((at, entries)) = &layout.servers {
                let mut seen = Vec::new();
                let mut lines = Vec::new();
                for (name, value, comment) in entries {
                    if seen.contains(name) {
                        continue;
                    }
                    seen.push(name.clone());
                    if *comment {
                        lines.push(format!("{u}{u}// about {}", seen.len()));
                    }
                    let key = serde_json::to_string(name).unwrap();
                    lines.push(format!("{u}{u}{key}: {value}"));
                }
                let count = lines
                    .iter()
                    .filter(|l| !l.trim_start().starts_with("//"))
                    .count();
                let mut seen_members = 0;
                for line in &mut lines {
                    if line.trim_start().starts_with("//") {
                        continue;
                    }
                    seen_members += 1;
                    if seen_members < count || layout.trailing_comma {
                        line.push(',');
                    }
                }
                let map = if lines.is_empty() {
                    if layout.empty_map_comment {
                        format!("{{{nl}{u}{u}// none{nl}{u}}}")
                    } else {
                        "{}".to_owned()
                    }
                } else {
                    format!("{{{nl}{}{nl}{u}}}", lines.join(nl))
                };
                let at = (*at).min(members.len());
                members.insert(at, format!("{u}\"mcpServers\": {map}"));
            }
            let head = if layout.head_comment {
                format!("// config{nl}")
            } else {
                String::new()
            };
            let body = if members.is_empty() {
                "{}".to_owned()
            } else {
                format!("{{{nl}{}{nl}}}", members.join(&format!(",{nl}")))
            };
            let end = if layout.final_newline { nl } else { "" };
            format!("{head}{body}{end}")
        }

        /// The index-assisted look-up finds the same deepest value (ancestors are more
        /// complete than in an early-stopping scan).
        fn check_find(doc: &JsonDoc, text: &str, path: &[String]) -> Result<(), TestCaseError> {
            let indexed = doc.find(path).unwrap().nodes;
            let scanned = scan::scan(text, path, true).unwrap().nodes;
            prop_assert_eq!(indexed.len(), scanned.len());
            prop_assert_eq!(indexed.last(), scanned.last());
            let keys = |nodes: &[Node]| nodes.iter().map(|n| n.key).collect::<Vec<_>>();
            prop_assert_eq!(keys(&indexed), keys(&scanned));
            Ok(())
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(512))]
            #[test]
            fn add_then_remove_is_identity(layout in layout(), new_name in name()) {
                let text = render_layout(&layout);
                let key = k(&["mcpServers"]);
                let mut doc = JsonDoc::parse(&text).unwrap();
                let before = doc.map_servers(&key).unwrap();
                // The index-assisted look-up agrees with a plain scan.
                for path in [key.clone(), k(&["mcpServers", &new_name]), k(&["mcpServers", &new_name, "x"]), k(&["k0"])] {
                    check_find(&doc, &text, &path)?;
                }
                for (name, _) in &before {
                    let path = k(&["mcpServers", name, "url"]);
                    check_find(&doc, &text, &path)?;
                }
                prop_assume!(!before.iter().any(|(n, _)| *n == new_name));
                let state = doc.map_state(&key).unwrap();
                prop_assert_eq!(doc.map_upsert(&key, &new_name, &entry()).unwrap(), Edit::Added);
                let added = doc.render();
                let reparsed = JsonDoc::parse(&*added).unwrap();
                let after = reparsed.map_servers(&key).unwrap();
                prop_assert_eq!(after.len(), before.len() + 1);
                prop_assert_eq!(after.last().unwrap(), &(new_name.clone(), entry()));
                prop_assert_eq!(&after[..before.len()], &before[..]);
                let strict: Value = jsonc_parser::parse_to_serde_value(&added, &Default::default()).unwrap();
                prop_assert!(strict.is_object());
                if layout.newline == "\n" || !text.contains('\n') {
                    prop_assert!(!added.contains('\r'));
                } else {
                    prop_assert!(!added.replace("\r\n", "").contains('\n'));
                }
                let mut doc = reparsed;
                prop_assert_eq!(doc.map_upsert(&key, &new_name, &entry()).unwrap(), Edit::Unchanged);
                prop_assert_eq!(doc.map_remove(&key, &new_name).unwrap(), Edit::Removed);
                prop_assert_eq!(doc.is_blank(), matches!(squeezed(&doc.render()).as_str(), "" | "{}"));
                if layout.servers.is_some() {
                    prop_assert_eq!(doc.render(), text.as_str());
                } else {
                    prop_assert!(doc.map_servers(&key).unwrap().is_empty());
                }
                // What the add created (the key, an empty map's spelling) goes too.
                doc.prune(&key, &state).unwrap();
                prop_assert_eq!(doc.render(), text);
            }

            /// A run of edits in one document writes what the same edits give one by one
            /// on freshly parsed text.
            #[test]
            fn a_run_of_edits_gives_what_fresh_documents_give(
                layout in layout(),
                ops in prop::collection::vec((prop::sample::select(vec!["a", "b", "c", "d"]), 0usize..4), 1..10),
            ) {
                let text = render_layout(&layout);
                let key = k(&["mcpServers"]);
                let mut run = JsonDoc::parse(&text).unwrap();
                let mut fresh_text = text.clone();
                let entries = [json!({"command": "x"}), json!({"url": "u", "headers": {"A": "b"}}), json!({"command": "y", "args": ["1", "2"], "env": {"K": "v"}})];
                for (name, op) in ops {
                    let mut fresh = JsonDoc::parse(&fresh_text).unwrap();
                    let (a, b) = match entries.get(op) {
                        Some(entry) => (run.map_upsert(&key, name, entry), fresh.map_upsert(&key, name, entry)),
                        None => (run.map_remove(&key, name), fresh.map_remove(&key, name)),
                    };
                    prop_assert_eq!(a.unwrap(), b.unwrap());
                    prop_assert_eq!(run.render(), fresh.render());
                    fresh_text = fresh.render().into_owned();
                }
            }

            /// A batch (`add_all`, what a plan writes) gives the bytes of one `upsert`
            /// after another, and the index a fresh scan gives.
            #[test]
            fn add_all_is_one_upsert_after_another(
                layout in layout(),
                names in prop::collection::vec(prop::sample::select(vec!["a", "b", "c", "d", "e"]), 0..6),
                nested in any::<bool>(),
            ) {
                let text = render_layout(&layout);
                let key = if nested { k(&["projects", "/p", "mcpServers"]) } else { k(&["mcpServers"]) };
                let at = ServersAt::map(&key);
                let entries: Vec<(&str, Value)> = names.iter().enumerate()
                    .map(|(i, name)| (*name, json!({"command": format!("c{i}"), "args": ["-y"]})))
                    .collect();
                let adds: Vec<(&str, &Value)> = entries.iter().map(|(n, e)| (*n, e)).collect();
                let mut one_by_one = JsonDoc::parse(&text).unwrap();
                for (name, entry) in &adds {
                    one_by_one.upsert(at, name, entry).unwrap();
                }
                let mut batch = JsonDoc::parse(&text).unwrap();
                batch.add_all(at, &adds).unwrap();
                prop_assert_eq!(batch.render(), one_by_one.render());
                let fresh = scan::scan_indexed(&batch.text).unwrap();
                let index = batch.index.as_ref().unwrap();
                prop_assert_eq!(&index.nodes, &fresh.nodes);
                prop_assert_eq!(&index.children, &fresh.children);
            }

            /// After each edit of a run, the index `apply` kept up to date is the one a
            /// fresh scan of the edited text gives.
            #[test]
            fn an_edited_index_is_what_a_fresh_scan_gives(
                layout in layout(),
                ops in prop::collection::vec((prop::sample::select(vec!["a", "b", "c"]), 0usize..4, any::<bool>()), 1..10),
            ) {
                let text = render_layout(&layout);
                let keys = [k(&["mcpServers"]), k(&["projects", "/p", "mcpServers"])];
                let mut doc = JsonDoc::parse(&text).unwrap();
                let entries = [json!({"command": "x"}), json!({"url": "u", "headers": {"A": "b"}}), json!({"command": "y", "args": ["1", "2"], "env": {"K": "v"}})];
                for (name, op, nested) in ops {
                    let key = &keys[usize::from(nested)];
                    match entries.get(op) {
                        Some(entry) => doc.map_upsert(key, name, entry).map(drop).unwrap(),
                        None => doc.map_remove(key, name).map(drop).unwrap(),
                    }
                    let fresh = scan::scan_indexed(&doc.text).unwrap();
                    let index = doc.index.as_ref().unwrap();
                    prop_assert_eq!(&index.nodes, &fresh.nodes);
                    prop_assert_eq!(&index.children, &fresh.children);
                }
            }

            #[test]
            fn scanner_never_panics(text in "[{}\\[\\]\",:/*a-z0-9 \\n\\\\.eE+-]{0,40}") {
                if let Ok(mut doc) = JsonDoc::parse(&text) {
                    let key = k(&["a"]);
                    let _ = doc.map_servers(&key);
                    let _ = doc.position(&key);
                    if doc.map_upsert(&key, "n", &entry()).is_ok() {
                        prop_assert!(JsonDoc::parse(doc.render()).is_ok(), "{:?} -> {:?}", text, doc.render());
                    }
                }
            }
        }
    }
}
