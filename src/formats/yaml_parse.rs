//! A strict YAML parse into a small tree with byte spans, shared by the editable document
//! (`yaml.rs`) and the lint tree (`yaml_tree.rs`).
//!
//! The parser is `saphyr-parser`, a YAML 1.2 event parser that refuses what the clients'
//! own readers refuse (`a: b: c`, a plain scalar starting with `@`, a key indented less
//! than its siblings). Scalars resolve with the core schema (`true`, `~`, `300`, `1.5`
//! are not strings; quoted scalars always are), as Goose's serde reader does.

use std::collections::HashMap;

use saphyr_parser::{Event, Parser, ScalarStyle, Span};
use serde_json::{Map, Number, Value as Json};

/// A node and where it is written: `start..end` are byte offsets into the text.
#[derive(Debug, Clone)]
pub(super) struct YNode {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) kind: YKind,
}

#[derive(Debug, Clone)]
pub(super) enum YKind {
    Scalar {
        value: String,
        /// Plain (unquoted, not a block scalar): resolved by the core schema.
        plain: bool,
        /// `!!str`, `!!int`, ... (`handle` + `suffix`).
        tag: Option<String>,
    },
    Seq {
        items: Vec<YNode>,
        flow: bool,
    },
    Map {
        entries: Vec<YEntry>,
        flow: bool,
    },
    /// `*name`: the id of the anchored node.
    Alias(usize),
}

#[derive(Debug, Clone)]
pub(super) struct YEntry {
    pub(super) key: YNode,
    pub(super) value: YNode,
}

impl YEntry {
    /// The key as a string (non-scalar keys as their JSON text).
    pub(super) fn key_text(&self) -> String {
        match &self.key.kind {
            YKind::Scalar { value, .. } => value.clone(),
            _ => String::new(),
        }
    }
}

/// A parsed text: the root node (`None` for an empty or comment-only text) and the
/// anchored nodes aliases refer to.
#[derive(Debug, Clone)]
pub(super) struct YDoc {
    pub(super) root: Option<YNode>,
    anchors: HashMap<usize, YNode>,
    /// Aliases expanded so far by `value`: bounds "billion laughs" documents.
    expanded: std::cell::Cell<usize>,
}

/// Aliases `value` expands before it answers `null` for the rest.
const MAX_ALIAS_EXPANSIONS: usize = 10_000;

/// The text is not YAML mcpctl can read: byte offset and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct YError {
    pub(super) offset: usize,
    pub(super) message: String,
}

/// Character index → byte offset (the parser counts characters).
struct Offsets {
    bytes: Option<Vec<usize>>,
    len: usize,
}

impl Offsets {
    fn new(text: &str) -> Self {
        Offsets {
            bytes: (!text.is_ascii()).then(|| {
                text.char_indices()
                    .map(|(i, _)| i)
                    .chain(std::iter::once(text.len()))
                    .collect()
            }),
            len: text.len(),
        }
    }

    fn byte(&self, char_index: usize) -> usize {
        match &self.bytes {
            None => char_index.min(self.len),
            Some(bytes) => bytes.get(char_index).copied().unwrap_or(self.len),
        }
    }
}

/// Collections being built.
enum Open {
    Seq {
        start: usize,
        flow: bool,
        anchor: usize,
        items: Vec<YNode>,
    },
    Map {
        start: usize,
        flow: bool,
        anchor: usize,
        entries: Vec<YEntry>,
        key: Option<YNode>,
    },
}

pub(super) fn parse(text: &str) -> Result<YDoc, YError> {
    let offsets = Offsets::new(text);
    let mut parser = Parser::new_from_str(text);
    let mut stack: Vec<Open> = Vec::new();
    let mut anchors = HashMap::new();
    let mut root = None;
    let mut documents = 0;
    let error = |offset: usize, message: String| YError { offset, message };
    loop {
        let (event, span): (Event<'_>, Span) = match parser.next_event() {
            None => break,
            Some(Err(e)) => {
                return Err(error(offsets.byte(e.marker().index()), e.info().to_owned()));
            }
            Some(Ok(pair)) => pair,
        };
        let start = offsets.byte(span.start.index());
        let end = offsets.byte(span.end.index());
        let done: Option<(YNode, usize)> = match event {
            Event::StreamEnd => break,
            Event::DocumentStart(_) => {
                documents += 1;
                if documents > 1 {
                    return Err(error(
                        start,
                        "more than one YAML document in the file; mcpctl reads only files with one"
                            .to_owned(),
                    ));
                }
                None
            }
            Event::Nothing | Event::StreamStart | Event::DocumentEnd => None,
            Event::Alias(id) => Some((
                YNode {
                    start,
                    end,
                    kind: YKind::Alias(id),
                },
                0,
            )),
            Event::Scalar(value, style, anchor, tag) => Some((
                YNode {
                    start,
                    end,
                    kind: YKind::Scalar {
                        value: value.into_owned(),
                        plain: style == ScalarStyle::Plain,
                        tag: tag.map(|t| format!("{}{}", t.handle, t.suffix)),
                    },
                },
                anchor,
            )),
            Event::SequenceStart(anchor, _) => {
                stack.push(Open::Seq {
                    start,
                    // A block collection starts with an empty span; a flow one at `[`.
                    flow: end > start,
                    anchor,
                    items: Vec::new(),
                });
                None
            }
            Event::MappingStart(anchor, _) => {
                stack.push(Open::Map {
                    start,
                    flow: end > start,
                    anchor,
                    entries: Vec::new(),
                    key: None,
                });
                None
            }
            Event::SequenceEnd => match stack.pop() {
                Some(Open::Seq {
                    start: s,
                    flow,
                    anchor,
                    items,
                }) => {
                    let last = if flow {
                        end
                    } else {
                        items.last().map_or(s, |n| n.end)
                    };
                    Some((
                        YNode {
                            start: s,
                            end: last,
                            kind: YKind::Seq { items, flow },
                        },
                        anchor,
                    ))
                }
                _ => return Err(error(start, "unbalanced sequence".to_owned())),
            },
            Event::MappingEnd => match stack.pop() {
                Some(Open::Map {
                    start: s,
                    flow,
                    anchor,
                    entries,
                    ..
                }) => {
                    let last = if flow {
                        end
                    } else {
                        entries.last().map_or(s, |e| e.value.end)
                    };
                    Some((
                        YNode {
                            start: s,
                            end: last,
                            kind: YKind::Map { entries, flow },
                        },
                        anchor,
                    ))
                }
                _ => return Err(error(start, "unbalanced mapping".to_owned())),
            },
        };
        let Some((node, anchor)) = done else {
            continue;
        };
        if anchor != 0 {
            anchors.insert(anchor, node.clone());
        }
        match stack.last_mut() {
            None => root = Some(node),
            Some(Open::Seq { items, .. }) => items.push(node),
            Some(Open::Map { entries, key, .. }) => match key.take() {
                None => *key = Some(node),
                Some(k) => entries.push(YEntry {
                    key: k,
                    value: node,
                }),
            },
        }
    }
    Ok(YDoc {
        root,
        anchors,
        expanded: std::cell::Cell::new(0),
    })
}

impl YDoc {
    /// The whole document as JSON (an empty document is `null`).
    pub(super) fn to_json(&self) -> Json {
        self.root.as_ref().map_or(Json::Null, |n| self.value(n, 0))
    }

    /// A node's value as JSON: aliases resolved, scalars by the core schema, duplicate keys
    /// keep the last value (what the clients' readers that accept them do).
    pub(super) fn value(&self, node: &YNode, depth: usize) -> Json {
        match &node.kind {
            YKind::Scalar { value, plain, tag } => scalar(value, *plain, tag.as_deref()),
            YKind::Seq { items, .. } => {
                Json::Array(items.iter().map(|n| self.value(n, depth + 1)).collect())
            }
            YKind::Map { entries, .. } => {
                let mut map = Map::new();
                for entry in entries {
                    let key = match &entry.key.kind {
                        YKind::Scalar { value, .. } => value.clone(),
                        _ => self.value(&entry.key, depth + 1).to_string(),
                    };
                    map.insert(key, self.value(&entry.value, depth + 1));
                }
                Json::Object(map)
            }
            YKind::Alias(id) => {
                self.expanded.set(self.expanded.get() + 1);
                match self.anchors.get(id) {
                    Some(target) if depth < 64 && self.expanded.get() <= MAX_ALIAS_EXPANSIONS => {
                        self.value(target, depth + 1)
                    }
                    _ => Json::Null,
                }
            }
        }
    }

    /// The node an alias points to, or the node itself.
    pub(super) fn resolve<'a>(&'a self, node: &'a YNode) -> &'a YNode {
        match node.kind {
            YKind::Alias(id) => self.anchors.get(&id).unwrap_or(node),
            _ => node,
        }
    }
}

/// A scalar's value by the YAML 1.2 core schema.
pub(super) fn scalar(value: &str, plain: bool, tag: Option<&str>) -> Json {
    let tag = tag.map(|t| {
        t.strip_prefix("tag:yaml.org,2002:")
            .map_or(t, |s| s)
            .trim_start_matches('!')
    });
    match tag {
        Some("str") => return Json::String(value.to_owned()),
        Some("null") => return Json::Null,
        _ => {}
    }
    if !plain && tag.is_none() {
        return Json::String(value.to_owned());
    }
    match value {
        "" | "~" | "null" | "Null" | "NULL" => return Json::Null,
        "true" | "True" | "TRUE" => return Json::Bool(true),
        "false" | "False" | "FALSE" => return Json::Bool(false),
        _ => {}
    }
    if let Some(number) = number(value) {
        return number;
    }
    Json::String(value.to_owned())
}

fn number(value: &str) -> Option<Json> {
    let unsigned = value.strip_prefix(['+', '-']).unwrap_or(value);
    let negative = value.starts_with('-');
    let radix = |digits: &str, radix: u32| {
        i64::from_str_radix(digits, radix)
            .ok()
            .map(|n| Json::from(if negative { -n } else { n }))
    };
    if let Some(hex) = unsigned.strip_prefix("0x") {
        return radix(hex, 16);
    }
    if let Some(octal) = unsigned.strip_prefix("0o") {
        return radix(octal, 8);
    }
    if !unsigned.is_empty() && unsigned.bytes().all(|b| b.is_ascii_digit()) {
        return value.parse::<i64>().ok().map(Json::from).or_else(|| {
            value
                .parse::<f64>()
                .ok()
                .and_then(Number::from_f64)
                .map(Json::Number)
        });
    }
    match unsigned {
        ".inf" | ".Inf" | ".INF" | ".nan" | ".NaN" | ".NAN" => {
            // Not representable in JSON: keep the spelling, it compares equal to itself.
            return Some(Json::String(value.to_owned()));
        }
        _ => {}
    }
    let float_like = unsigned
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'))
        && unsigned.bytes().any(|b| b.is_ascii_digit())
        && (unsigned.starts_with(|c: char| c.is_ascii_digit()) || unsigned.starts_with('.'));
    if float_like {
        return value
            .parse::<f64>()
            .ok()
            .and_then(Number::from_f64)
            .map(Json::Number);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn core_schema_scalars_and_spans() {
        let text = "a: 300\nb: '300'\nc: ~\nd:\ne: true\nf: \"x\\ty\"\ng: 1.5\nh: !!str 7\ni: [1, x]\né: ü\n";
        let doc = parse(text).unwrap();
        assert_eq!(
            doc.to_json(),
            json!({"a": 300, "b": "300", "c": null, "d": null, "e": true, "f": "x\ty", "g": 1.5, "h": "7", "i": [1, "x"], "é": "ü"})
        );
        let Some(YNode {
            kind: YKind::Map { entries, flow },
            ..
        }) = &doc.root
        else {
            panic!("root")
        };
        assert!(!flow);
        let last = entries.last().unwrap();
        assert_eq!(&text[last.key.start..last.key.end], "é");
        assert_eq!(&text[last.value.start..last.value.end], "ü");
        let list = &entries[8].value;
        assert_eq!(&text[list.start..list.end], "[1, x]");
    }

    #[test]
    fn strict_where_client_readers_are_strict() {
        for bad in [
            "a: b: c\n",
            "a:\n  b: 1\n c: 2\n",
            "key: @bad\n",
            "a: [1\n",
            "a: 1\n---\nb: 2\n",
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
        assert!(parse("").unwrap().root.is_none());
        assert!(parse("# only a comment\n").unwrap().root.is_none());
    }

    #[test]
    fn aliases_resolve_and_nesting_is_bounded() {
        let doc = parse("a: &x {k: v}\nb: *x\n").unwrap();
        assert_eq!(doc.to_json(), json!({"a": {"k": "v"}, "b": {"k": "v"}}));
    }
}
