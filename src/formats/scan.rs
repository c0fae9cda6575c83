//! Single-pass scanner for JSON and JSONC text: validates the whole text and records the
//! byte spans of the values along one key path, without building a tree of the document.
//!
//! `~/.claude.json` files reach hundreds of megabytes while the servers map is a few
//! kilobytes, so this scanner allocates nothing per value except for the (few) objects on
//! the key path, never recurses (deep nesting cannot overflow the stack), and skips plain
//! string bytes eight at a time (in a `u64`, no SIMD). It must never accept text a
//! JSON/JSONC reader would reject, and never change or copy the text it scans.

use super::{ParseError, position_of};

/// What kind of JSON value starts at a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Object,
    Array,
    String,
    Number,
    Bool,
    Null,
}

impl Kind {
    /// The value kind with its article, for messages ("`mcpServers` is an array").
    pub(super) fn described(self) -> &'static str {
        match self {
            Kind::Object => "an object",
            Kind::Array => "an array",
            Kind::String => "a string",
            Kind::Number => "a number",
            Kind::Bool => "a boolean",
            Kind::Null => "null",
        }
    }
}

/// One `"key": value` member of an object on the key path. Offsets are bytes in the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Member {
    /// Offset of the key's opening quote.
    pub(super) key_start: usize,
    /// Offset just after the key's closing quote.
    pub(super) key_end: usize,
    /// Whether the key contains a backslash escape (and must be decoded to compare).
    pub(super) key_escaped: bool,
    pub(super) value_start: usize,
    /// Offset just after the value.
    pub(super) value_end: usize,
    /// Offset of the comma following the value, if any (a trailing comma on the last member).
    pub(super) comma: Option<usize>,
}

/// The value found at `path[..depth]` for one depth.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Node {
    /// The key naming this value in its parent (`None` for the root), as (start, end, escaped).
    pub(super) key: Option<(usize, usize, bool)>,
    pub(super) kind: Kind,
    pub(super) start: usize,
    /// Offset just after the value (for objects: just after the `}`).
    pub(super) end: usize,
    /// The members, in text order, when `kind` is `Object`.
    pub(super) members: Vec<Member>,
}

/// The values along a key path: `nodes[0]` is the root value (absent for an empty or
/// comment-only text), `nodes[i]` the value at `path[..i]`. It stops at the first missing
/// key or at the first value that is not an object.
#[derive(Debug, Clone, Default)]
pub(super) struct Located {
    pub(super) nodes: Vec<Node>,
    /// From `scan_indexed` only: the members of each root member whose value is an object,
    /// as (index of the root member in `nodes[0].members`, members).
    pub(super) children: Vec<(usize, Vec<Member>)>,
}

/// Where an object's members are recorded.
#[derive(Debug, Clone, Copy)]
enum Collect {
    Node(usize),
    Child(usize),
}

fn members_mut(located: &mut Located, collect: Option<Collect>) -> Option<&mut Vec<Member>> {
    match collect? {
        Collect::Node(n) => located.nodes.get_mut(n).map(|node| &mut node.members),
        Collect::Child(c) => located.children.get_mut(c).map(|(_, members)| members),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// A value (root, after `:`).
    Value,
    /// A value or `]` (after `[` or after a comma in an array).
    ValueOrBracket,
    /// A key or `}` (after `{` or after a comma in an object).
    KeyOrBrace,
    Colon,
    /// `,` or the closing bracket of the innermost container.
    CommaOrClose,
    /// Nothing but trivia (after the root value).
    End,
}

struct Frame {
    is_object: bool,
    /// Index into `Located::nodes` when this container is on the key path.
    node: Option<usize>,
    /// For objects on the path: the node index the next value belongs to (key matched).
    pending_child: bool,
    /// Where this object's members are recorded, if anywhere.
    collect: Option<Collect>,
}

/// Validate all of `text` as JSON with comments and trailing commas, and record the values
/// along `path`; where a key is duplicated, the last occurrence (as `JSON.parse` keeps it).
/// With `stop_early` the scan ends as soon as the deepest value on the path is complete
/// (use it only on text already validated: the rest is not checked, and a later duplicate
/// key is not seen).
pub(super) fn scan(text: &str, path: &[String], stop_early: bool) -> Result<Located, ParseError> {
    scan_with(text, path, stop_early, false)
}

/// Validate all of `text` and record the root's members and the members of every object
/// directly under the root (an index that lets later look-ups scan only a small span).
pub(super) fn scan_indexed(text: &str) -> Result<Located, ParseError> {
    scan_with(text, &[], false, true)
}

fn scan_with(
    text: &str,
    path: &[String],
    stop_early: bool,
    index_children: bool,
) -> Result<Located, ParseError> {
    Scanner {
        text,
        path,
        stop_early,
        index_children,
        located: Located::default(),
        stack: Vec::new(),
        expect: Expect::Value,
        at: 0,
        last_key: None,
    }
    .run()
}

/// One scan: where it is, what it expects next, the containers open, and what it found.
struct Scanner<'t> {
    text: &'t str,
    path: &'t [String],
    stop_early: bool,
    index_children: bool,
    located: Located,
    stack: Vec<Frame>,
    expect: Expect,
    at: usize,
    /// The key just read in the innermost object: (start, end, escaped).
    last_key: Option<(usize, usize, bool)>,
}

impl Scanner<'_> {
    fn run(mut self) -> Result<Located, ParseError> {
        loop {
            self.at = skip_trivia(self.text, self.at)?;
            let Some(&byte) = self.text.as_bytes().get(self.at) else {
                return match self.expect {
                    Expect::End => Ok(self.located),
                    Expect::Value if self.stack.is_empty() => Ok(self.located),
                    _ => Err(error(self.text, self.at, "unexpected end of file")),
                };
            };
            let done = match self.expect {
                Expect::Colon => {
                    if byte != b':' {
                        return Err(error(self.text, self.at, "expected `:` after the key"));
                    }
                    self.at += 1;
                    self.expect = Expect::Value;
                    false
                }
                Expect::KeyOrBrace => match byte {
                    b'"' => {
                        self.key()?;
                        false
                    }
                    b'}' => self.close_container()?,
                    _ => {
                        return Err(error(self.text, self.at, "expected a string key or `}`"));
                    }
                },
                Expect::CommaOrClose => self.comma_or_close(byte)?,
                Expect::End => {
                    return Err(error(
                        self.text,
                        self.at,
                        "unexpected content after the top-level value",
                    ));
                }
                Expect::Value | Expect::ValueOrBracket => {
                    if byte == b']' && self.expect == Expect::ValueOrBracket {
                        self.close_container()?
                    } else {
                        self.value(byte)?
                    }
                }
            };
            if done {
                return Ok(self.located);
            }
        }
    }

    /// The `}` or `]` at `at` closes the innermost container. `true`: the scan is done
    /// (`stop_early`, and the deepest value on the path is complete).
    fn close_container(&mut self) -> Result<bool, ParseError> {
        if close(
            self.text,
            &mut self.stack,
            &mut self.located,
            self.at,
            self.stop_early,
        )? {
            return Ok(true);
        }
        self.at += 1;
        self.expect = after_value(&self.stack);
        Ok(false)
    }

    /// A key at `at`: compared with the path when its object is on it, and recorded as a
    /// member where the object's members are recorded.
    fn key(&mut self) -> Result<(), ParseError> {
        let at = self.at;
        let (end, escaped) = scan_string(self.text, at)?;
        let key = (at, end, escaped);
        self.last_key = Some(key);
        if let Some(frame) = self.stack.last_mut()
            && let Some(node) = frame.node
        {
            // `node` is at depth `node`; its child on the path is path[node].
            // A later duplicate key wins, as in `JSON.parse`: what an earlier
            // one found below this depth is dropped.
            frame.pending_child = self
                .path
                .get(node)
                .is_some_and(|want| key_equals(self.text, key, want));
            if frame.pending_child {
                self.located.nodes.truncate(node + 1);
            }
        }
        let collect = self.stack.last().and_then(|f| f.collect);
        if let Some(members) = members_mut(&mut self.located, collect) {
            members.push(Member {
                key_start: at,
                key_end: end,
                key_escaped: escaped,
                value_start: 0,
                value_end: 0,
                comma: None,
            });
        }
        self.at = end;
        self.expect = Expect::Colon;
        Ok(())
    }

    /// After a value in a container: a comma, or the container's end.
    fn comma_or_close(&mut self, byte: u8) -> Result<bool, ParseError> {
        match byte {
            b',' => {
                let Some(frame) = self.stack.last() else {
                    return Err(error(self.text, self.at, "unexpected `,`"));
                };
                if frame.is_object {
                    if let Some(member) =
                        members_mut(&mut self.located, frame.collect).and_then(|m| m.last_mut())
                    {
                        member.comma = Some(self.at);
                    }
                    self.expect = Expect::KeyOrBrace;
                } else {
                    self.expect = Expect::ValueOrBracket;
                }
                self.at += 1;
                Ok(false)
            }
            b'}' | b']' => self.close_container(),
            _ => {
                let message = match self.stack.last() {
                    Some(frame) if frame.is_object => "expected `,` or `}`",
                    _ => "expected `,` or `]`",
                };
                Err(error(self.text, self.at, message))
            }
        }
    }

    /// A value at `at`: a scalar is scanned whole, a container opened. Recorded as a node
    /// when it is on the key path. `true`: the scan is done (`stop_early`).
    fn value(&mut self, byte: u8) -> Result<bool, ParseError> {
        let (text, at) = (self.text, self.at);
        // Is this value on the key path? Root: depth 0; else the parent matched.
        let on_path = match self.stack.last() {
            None => true,
            Some(frame) => frame.is_object && frame.pending_child,
        };
        let parent_collect = self.stack.last().and_then(|f| f.collect);
        if let Some(member) =
            members_mut(&mut self.located, parent_collect).and_then(|m| m.last_mut())
        {
            member.value_start = at;
        }
        let (kind, end) = match byte {
            b'{' => (Kind::Object, None),
            b'[' => (Kind::Array, None),
            b'"' => (Kind::String, Some(scan_string(text, at)?.0)),
            b'-' | b'0'..=b'9' => (Kind::Number, Some(scan_number(text, at)?)),
            b't' => (Kind::Bool, Some(scan_literal(text, at, "true")?)),
            b'f' => (Kind::Bool, Some(scan_literal(text, at, "false")?)),
            b'n' => (Kind::Null, Some(scan_literal(text, at, "null")?)),
            _ => return Err(unexpected(text, at)),
        };
        let node = if on_path {
            self.located.nodes.push(Node {
                key: if self.stack.is_empty() {
                    None
                } else {
                    self.last_key
                },
                kind,
                start: at,
                end: end.unwrap_or(at),
                members: Vec::new(),
            });
            Some(self.located.nodes.len() - 1)
        } else {
            None
        };
        if let Some(frame) = self.stack.last_mut() {
            frame.pending_child = false;
        }
        match end {
            Some(end) => {
                if let Some(member) =
                    members_mut(&mut self.located, parent_collect).and_then(|m| m.last_mut())
                {
                    member.value_end = end;
                }
                if node.is_some() && self.stop_early {
                    return Ok(true);
                }
                self.at = end;
                self.expect = after_value(&self.stack);
            }
            None => self.open(kind == Kind::Object, node),
        }
        Ok(false)
    }

    /// The `{` or `[` at `at` opens a container. An object's members are recorded when it
    /// is on the path (`node`), or directly under the root object with `index_children`.
    fn open(&mut self, is_object: bool, node: Option<usize>) {
        let collect = match (is_object, node) {
            (false, _) => None,
            (true, Some(n)) => Some(Collect::Node(n)),
            (true, None) => {
                let under_root = self.stack.len() == 1
                    && self
                        .stack
                        .first()
                        .is_some_and(|f| f.is_object && f.node == Some(0));
                match self.located.nodes.first() {
                    Some(root) if self.index_children && under_root => {
                        let member = root.members.len().saturating_sub(1);
                        self.located.children.push((member, Vec::new()));
                        Some(Collect::Child(self.located.children.len() - 1))
                    }
                    _ => None,
                }
            }
        };
        self.stack.push(Frame {
            is_object,
            node,
            pending_child: false,
            collect,
        });
        self.at += 1;
        self.expect = if is_object {
            Expect::KeyOrBrace
        } else {
            Expect::ValueOrBracket
        };
    }
}

fn after_value(stack: &[Frame]) -> Expect {
    if stack.is_empty() {
        Expect::End
    } else {
        Expect::CommaOrClose
    }
}

/// Close the innermost container at `at` (which holds `}` or `]`). Returns true when the
/// scan may stop (`stop_early` and the closed container was on the path).
fn close(
    text: &str,
    stack: &mut Vec<Frame>,
    located: &mut Located,
    at: usize,
    stop_early: bool,
) -> Result<bool, ParseError> {
    let closing_object = text.as_bytes().get(at) == Some(&b'}');
    let Some(frame) = stack.pop() else {
        return Err(unexpected(text, at));
    };
    if frame.is_object != closing_object {
        return Err(error(
            text,
            at,
            if frame.is_object {
                "expected `,` or `}`"
            } else {
                "expected `,` or `]`"
            },
        ));
    }
    let end = at + 1;
    if let Some(node) = frame.node.and_then(|n| located.nodes.get_mut(n)) {
        node.end = end;
    }
    if let Some(member) =
        members_mut(located, stack.last().and_then(|f| f.collect)).and_then(|m| m.last_mut())
    {
        member.value_end = end;
    }
    Ok(frame.node.is_some() && stop_early)
}

/// Skip whitespace and comments from `at`; returns the offset of the next token (or the end).
pub(super) fn skip_trivia(text: &str, mut at: usize) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    while let Some(&byte) = bytes.get(at) {
        match byte {
            b' ' | b'\t' | b'\n' | b'\r' => at += 1,
            b'/' => at = comment_end(text, at)?,
            _ => break,
        }
    }
    Ok(at)
}

/// `at` holds `/`: the offset just after the comment (a line comment ends before its newline).
pub(super) fn comment_end(text: &str, at: usize) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    match bytes.get(at + 1) {
        Some(b'/') => {
            let rest = &bytes[at + 2..];
            Ok(at
                + 2
                + rest
                    .iter()
                    .position(|&b| b == b'\n' || b == b'\r')
                    .unwrap_or(rest.len()))
        }
        Some(b'*') => match text[at + 2..].find("*/") {
            Some(offset) => Ok(at + 2 + offset + 2),
            None => Err(error(text, at, "unterminated block comment")),
        },
        _ => Err(unexpected(text, at)),
    }
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The bytes of `word` that are `"`, `\\` or a control character, as their high bits. Only
/// the lowest set bit is exact (a borrow can mark a byte above a match), and it is the
/// one `skip_plain` uses.
#[inline]
fn special_bytes(word: u64) -> u64 {
    let has_zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGHS;
    let quote = has_zero(word ^ (ONES * u64::from(b'"')));
    let backslash = has_zero(word ^ (ONES * u64::from(b'\\')));
    let control = word.wrapping_sub(ONES * 0x20) & !word & HIGHS;
    quote | backslash | control
}

/// The first offset at or after `i` holding `"`, `\\` or a control character (or the end):
/// eight bytes at a time, the match's place in its word read from the lowest set bit.
#[inline]
fn skip_plain(bytes: &[u8], mut i: usize) -> usize {
    while let Some(chunk) = bytes.get(i..i + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let special = special_bytes(u64::from_le_bytes(word));
        if special != 0 {
            return i + special.trailing_zeros() as usize / 8;
        }
        i += 8;
    }
    while let Some(&byte) = bytes.get(i) {
        if byte == b'"' || byte == b'\\' || byte < 0x20 {
            break;
        }
        i += 1;
    }
    i
}

/// `at` holds `"`: returns the offset just after the closing quote and whether the string
/// contains escapes. Strings are most of a big file (the prompts in `~/.claude.json`'s
/// histories): plain bytes are skipped a word at a time (`skip_plain`).
pub(super) fn scan_string(text: &str, at: usize) -> Result<(usize, bool), ParseError> {
    let mut i = at + 1;
    let mut escaped = false;
    let bytes = text.as_bytes();
    loop {
        i = skip_plain(bytes, i);
        let Some(&byte) = bytes.get(i) else {
            return Err(error(text, at, "unterminated string"));
        };
        match byte {
            b'"' => return Ok((i + 1, escaped)),
            b'\\' => {
                escaped = true;
                match bytes.get(i + 1) {
                    Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => i += 2,
                    Some(b'u') => {
                        let hex = bytes.get(i + 2..i + 6);
                        if !hex.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) {
                            return Err(error(text, i, "invalid `\\u` escape in string"));
                        }
                        i += 6;
                    }
                    None => return Err(error(text, at, "unterminated string")),
                    Some(_) => return Err(error(text, i, "invalid escape in string")),
                }
            }
            0..=0x1f => {
                return Err(error(
                    text,
                    i,
                    if byte == b'\n' || byte == b'\r' {
                        "unterminated string (line break inside a string)"
                    } else {
                        "control character inside a string"
                    },
                ));
            }
            _ => i += 1,
        }
    }
}

pub(super) fn scan_number(text: &str, at: usize) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    let mut i = at;
    let digits = |mut i: usize| {
        while bytes.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        i
    };
    if bytes.get(i) == Some(&b'-') {
        i += 1;
    }
    match bytes.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => i = digits(i),
        _ => return Err(error(text, i, "expected a digit")),
    }
    if bytes.get(i) == Some(&b'.') {
        if !bytes.get(i + 1).is_some_and(u8::is_ascii_digit) {
            return Err(error(text, i + 1, "expected a digit after `.`"));
        }
        i = digits(i + 1);
    }
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(bytes.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !bytes.get(i).is_some_and(u8::is_ascii_digit) {
            return Err(error(text, i, "expected a digit in the exponent"));
        }
        i = digits(i);
    }
    Ok(i)
}

fn scan_literal(text: &str, at: usize, word: &str) -> Result<usize, ParseError> {
    let end = at + word.len();
    if text.as_bytes().get(at..end) == Some(word.as_bytes())
        && !text
            .as_bytes()
            .get(end)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
    {
        Ok(end)
    } else {
        Err(unexpected(text, at))
    }
}

/// Whether the key token `(start, end, escaped)` spells `want`.
pub(super) fn key_equals(text: &str, key: (usize, usize, bool), want: &str) -> bool {
    let (start, end, escaped) = key;
    if escaped {
        decode_key(text, key) == want
    } else {
        text.get(start + 1..end - 1) == Some(want)
    }
}

/// The decoded text of a string token (lone surrogate escapes fall back to the raw text).
pub(super) fn decode_key(text: &str, key: (usize, usize, bool)) -> String {
    let (start, end, escaped) = key;
    let raw = text.get(start..end).unwrap_or_default();
    if escaped && let Ok(decoded) = serde_json::from_str::<String>(raw) {
        return decoded;
    }
    raw.get(1..raw.len().saturating_sub(1))
        .unwrap_or_default()
        .to_owned()
}

fn unexpected(text: &str, at: usize) -> ParseError {
    let found = text.get(at..).and_then(|rest| rest.chars().next());
    match found {
        Some(c) if !c.is_control() => error(text, at, &format!("unexpected character `{c}`")),
        Some(c) => error(
            text,
            at,
            &format!("unexpected character U+{:04X}", u32::from(c)),
        ),
        None => error(text, at, "unexpected end of file"),
    }
}

fn error(text: &str, at: usize, message: &str) -> ParseError {
    let position = position_of(text, at);
    ParseError {
        line: position.line,
        column: position.column,
        message: message.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    proptest::proptest! {
        /// The word-at-a-time skip finds exactly the first `"`, `\\` or control byte.
        #[test]
        fn skip_plain_matches_a_byte_by_byte_search(
            bytes in proptest::collection::vec(proptest::prop_oneof![
                8 => 0x20u8..0x7f,
                1 => proptest::strategy::Just(b'"'),
                1 => proptest::strategy::Just(b'\\'),
                1 => 0u8..0x20,
                1 => 0x80u8..=0xff,
            ], 0..200),
            start in 0usize..200,
        ) {
            let start = start.min(bytes.len());
            let naive = bytes[start..]
                .iter()
                .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
                .map_or(bytes.len(), |p| start + p);
            proptest::prop_assert_eq!(super::skip_plain(&bytes, start), naive);
        }
    }

    /// Runs of backslashes of odd length escape the quote after them, of even length do
    /// not, wherever they fall in a long string.
    #[test]
    fn backslash_runs_of_odd_length_escape_the_quote_after_them() {
        for run in 1..8 {
            for at in 0..140 {
                let body = format!("{}{}\"", "a".repeat(at), "\\".repeat(run));
                let text = format!("\"{body}{}\"{}", "b\\n".repeat(30), " ".repeat(200));
                let end = if run % 2 == 1 {
                    text.trim_end().len()
                } else {
                    body.len() + 1
                };
                assert_eq!(scan_string(&text, 0), Ok((end, true)), "run {run} at {at}");
            }
        }
    }

    use super::*;

    fn path(keys: &[&str]) -> Vec<String> {
        keys.iter().map(|k| (*k).to_owned()).collect()
    }

    #[test]
    fn accepts_jsonc_and_finds_nested_value() {
        let text = "// head\n{\"a\": [1, 2,], /* x */ \"b\": {\"c\": {\"d\": 1e3,},},}\n";
        let found = scan(text, &path(&["b", "c"]), false).unwrap();
        assert_eq!(found.nodes.len(), 3);
        let node = &found.nodes[2];
        assert_eq!(&text[node.start..node.end], "{\"d\": 1e3,}");
        assert_eq!(node.members.len(), 1);
        assert_eq!(node.members[0].comma, Some(text.find("3,").unwrap() + 1));
    }

    #[test]
    fn reports_line_and_column_in_characters() {
        let err = scan("{\n  \"é\": 1\n  \"b\": 2\n}", &[], false).unwrap_err();
        assert_eq!((err.line, err.column), (3, 3));
        assert_eq!(err.message, "expected `,` or `}`");
        let err = scan("{\"a\": \"x\ny\"}", &[], false).unwrap_err();
        assert_eq!((err.line, err.column), (1, 9));
    }

    #[test]
    fn rejects_malformed_text() {
        for bad in [
            "{",
            "}",
            "[1,,2]",
            "{,}",
            "{\"a\" 1}",
            "{\"a\":}",
            "01",
            "1.",
            "-",
            "tru",
            "nul",
            "\"\\x\"",
            "\"\\u12\"",
            "{} {}",
            "/* open",
            "/ x",
            "{\"a\":1]",
            "[1}",
            "'a'",
            "{a: 1}",
            "\"abc",
            "1e",
            "[",
            "{\"a\":1,,}",
        ] {
            assert!(scan(bad, &[], false).is_err(), "{bad:?} should fail");
        }
        for good in [
            "",
            "  \n",
            "// only\n",
            "{}",
            "[]",
            "0",
            "-0.5e+3",
            "\"\\u00e9\\n\"",
            "[1,]",
            "{\"a\":1,}",
        ] {
            assert!(scan(good, &[], false).is_ok(), "{good:?} should pass");
        }
    }

    #[test]
    fn string_scanner_handles_long_strings_and_escapes() {
        let long = format!("\"{}\\\"{}\"", "x".repeat(100), "é".repeat(50));
        assert_eq!(scan_string(&long, 0).unwrap(), (long.len(), true));
        let with_tab = "\"aaaaaaaaaaaa\tb\"";
        assert!(scan_string(with_tab, 0).is_err());
    }

    #[test]
    fn escaped_keys_match_decoded() {
        let text = r#"{"m\u0063pServers": {"a": 1}}"#;
        let found = scan(text, &path(&["mcpServers"]), true).unwrap();
        assert_eq!(found.nodes.len(), 2);
    }
}
