//! The lint tree of a JSON or JSONC text: comments, trailing commas and duplicate keys
//! become `Syntax` notes. [`Builder`] makes it straight from the text; what it is not sure
//! of goes to jsonc-parser, whose AST is converted as before (and words every error).

use std::borrow::Cow;
use std::collections::HashSet;

use jsonc_parser::ast;
use jsonc_parser::common::Ranged;
use jsonc_parser::{CollectOptions, CommentCollectionStrategy, ParseOptions};

use super::scan;
use super::tree::{Member, Node, Parsed, Syntax, Value, empty_root, lowercase_first};

/// What the clients' JSONC readers accept: comments and trailing commas, nothing looser.
pub(crate) fn client_jsonc() -> ParseOptions {
    ParseOptions {
        allow_comments: true,
        allow_loose_object_property_names: false,
        allow_trailing_commas: true,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    }
}

/// Parse JSON or JSONC. Comments and trailing commas are accepted and reported as
/// `Syntax` notes; anything else non-standard (single quotes, hex, unquoted keys) is a
/// parse error, as it is for every client.
pub(super) fn parse(text: &str) -> Parsed {
    parse_reading(text, None)
}

/// [`parse`], keeping in the tree only the key paths in `reads` (`*`: any key) and the
/// objects on the way to them (`None`: everything). The rest is validated and noted as
/// before, so the notes are those of the whole text. When jsonc-parser decides, the tree
/// is whole.
pub(super) fn parse_reading(text: &str, reads: Option<&[Vec<String>]>) -> Parsed {
    match Builder::new(text, reads).document() {
        Ok(parsed) => parsed,
        Err(Unsure) => parse_jsonc(text),
    }
}

/// The tree from jsonc-parser's AST: for a text [`Builder`] declines (an error, or what
/// it leaves to jsonc-parser to judge).
fn parse_jsonc(text: &str) -> Parsed {
    let options = client_jsonc();
    // No token list: for a file of 100k entries it held millions of tokens (a third of
    // `check`'s peak memory) only to find trailing commas, which `trailing_commas` finds
    // in one pass over the text.
    let collect = CollectOptions {
        comments: CommentCollectionStrategy::Separate,
        tokens: false,
    };
    let result = match jsonc_parser::parse_to_ast(text, &collect, &options) {
        Ok(result) => result,
        Err(error) => {
            return Parsed::whole(
                empty_root(),
                vec![Syntax::Error(
                    error.range().start,
                    lowercase_first(&error.kind().to_string()),
                )],
            );
        }
    };
    let mut syntax = Vec::new();
    if let Some(comments) = &result.comments {
        let mut starts: Vec<usize> = comments
            .values()
            .flat_map(|list| list.iter().map(|c| c.range().start))
            .collect();
        starts.sort_unstable();
        starts.dedup();
        syntax.extend(starts.into_iter().map(Syntax::Comment));
    }
    syntax.extend(trailing_commas(text).into_iter().map(Syntax::TrailingComma));
    let root = match result.value {
        Some(value) => from_json(value, &mut syntax),
        None => empty_root(),
    };
    Parsed::whole(root, syntax)
}

/// The builder gave up: jsonc-parser decides (the text may still be valid JSONC).
#[derive(Debug)]
struct Unsure;

/// Containers deeper than this go to jsonc-parser, which refuses more than 512 levels
/// (it counts an object and each of its properties as one each): well under its limit,
/// and the recursion stays shallow.
const MAX_DEPTH: usize = 128;

/// Objects up to this many members are searched for a duplicate key one by one, larger
/// ones through a set.
const SMALL_OBJECT: usize = 16;

/// At most this many read paths are followed (a bit each in `Want::Toward`); with more,
/// the tree is whole.
const MAX_READS: usize = 64;

/// Whether a value goes into the tree.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Want {
    /// Built whole.
    All,
    /// Built, `depth` keys down on the way to the read paths `alive` (bit `i`:
    /// `reads[i]`): each member is judged by its key.
    Toward { depth: usize, alive: u64 },
    /// Validated and noted, not built.
    Nothing,
}

/// The lint tree straight from the text, in one pass that allocates only what the tree
/// keeps (a `String` per key and string value, a `Vec` per container): converting
/// jsonc-parser's AST cost twice that, and at 100,000 entries held 116 MB at once.
///
/// It accepts a subset of what jsonc-parser accepts with [`client_jsonc`], and gives the
/// same tree and notes for it: RFC 8259 JSON plus `//` and `/* */` comments and trailing
/// commas in objects and arrays. Everything else is [`Unsure`] and goes to jsonc-parser:
/// every error (so messages are its own), and what jsonc-parser takes but this does not
/// (a raw control character in a string, a lone surrogate escape, whitespace other than
/// the four of JSON, nesting deeper than [`MAX_DEPTH`]).
struct Builder<'t> {
    text: &'t str,
    bytes: &'t [u8],
    at: usize,
    comments: Vec<usize>,
    commas: Vec<usize>,
    /// In the order jsonc-parser's conversion gives them: an object's own after those of
    /// the objects inside it, each object's in text order.
    duplicates: Vec<Syntax>,
    /// The keys of the objects being read, innermost last (duplicate-key search).
    keys: Vec<Cow<'t, str>>,
    /// The key paths kept (`None`: everything).
    reads: Option<&'t [Vec<String>]>,
}

impl<'t> Builder<'t> {
    fn new(text: &'t str, reads: Option<&'t [Vec<String>]>) -> Self {
        Builder {
            text,
            bytes: text.as_bytes(),
            at: 0,
            comments: Vec::new(),
            commas: Vec::new(),
            duplicates: Vec::new(),
            keys: Vec::new(),
            reads: reads.filter(|reads| reads.len() <= MAX_READS),
        }
    }

    /// Whether the member `key` of an object that is `want` goes into the tree.
    fn member(&self, want: Want, key: &str) -> Want {
        let Want::Toward { depth, alive } = want else {
            return want;
        };
        let mut next = 0;
        for (i, read) in self.reads.unwrap_or_default().iter().enumerate() {
            if alive & (1 << i) != 0 && read.get(depth).is_some_and(|k| k == key || k == "*") {
                if read.len() == depth + 1 {
                    return Want::All;
                }
                next |= 1 << i;
            }
        }
        if next == 0 {
            Want::Nothing
        } else {
            Want::Toward {
                depth: depth + 1,
                alive: next,
            }
        }
    }

    fn document(mut self) -> Result<Parsed, Unsure> {
        self.trivia()?;
        let root = if self.at < self.bytes.len() {
            let want = match self.reads {
                None => Want::All,
                Some(_) => Want::Toward {
                    depth: 0,
                    alive: u64::MAX,
                },
            };
            let root = self.value(0, want)?;
            self.trivia()?;
            if self.at < self.bytes.len() {
                return Err(Unsure);
            }
            root.unwrap_or_else(empty_root)
        } else {
            empty_root()
        };
        let mut syntax =
            Vec::with_capacity(self.comments.len() + self.commas.len() + self.duplicates.len());
        syntax.extend(self.comments.into_iter().map(Syntax::Comment));
        syntax.extend(self.commas.into_iter().map(Syntax::TrailingComma));
        syntax.append(&mut self.duplicates);
        Ok(Parsed { root, syntax })
    }

    /// Skip whitespace and comments.
    fn trivia(&mut self) -> Result<(), Unsure> {
        loop {
            match self.bytes.get(self.at) {
                Some(b' ' | b'\t' | b'\n' | b'\r') => self.at += 1,
                Some(b'/') => {
                    let start = self.at;
                    self.at = scan::comment_end(self.text, start).map_err(|_| Unsure)?;
                    self.comments.push(start);
                }
                _ => return Ok(()),
            }
        }
    }

    /// The value at `self.at` (not trivia); `None` when it is not wanted.
    fn value(&mut self, depth: usize, want: Want) -> Result<Option<Node>, Unsure> {
        let start = self.at;
        let value = match self.bytes.get(start) {
            Some(b'{') => return self.object(depth, want),
            Some(b'[') => return self.array(depth, want),
            Some(b'"') => {
                let text = self.string()?;
                if want == Want::Nothing {
                    return Ok(None);
                }
                Value::String(text.into_owned())
            }
            Some(b'-' | b'0'..=b'9') => {
                self.at = scan::scan_number(self.text, start).map_err(|_| Unsure)?;
                Value::Number
            }
            Some(b't') => self.literal("true", Value::Bool)?,
            Some(b'f') => self.literal("false", Value::Bool)?,
            Some(b'n') => self.literal("null", Value::Null)?,
            _ => return Err(Unsure),
        };
        Ok((want != Want::Nothing).then_some(Node { value, start }))
    }

    fn literal(&mut self, word: &str, value: Value) -> Result<Value, Unsure> {
        let end = self.at + word.len();
        if self.bytes.get(self.at..end) != Some(word.as_bytes()) {
            return Err(Unsure);
        }
        self.at = end;
        Ok(value)
    }

    /// The string at `self.at`, decoded.
    fn string(&mut self) -> Result<Cow<'t, str>, Unsure> {
        let start = self.at;
        let (end, escaped) = scan::scan_string(self.text, start).map_err(|_| Unsure)?;
        self.at = end;
        if escaped {
            // serde_json decodes escapes as jsonc-parser does, and refuses a lone
            // surrogate (which jsonc-parser words as its own error): `Unsure`.
            serde_json::from_str::<String>(&self.text[start..end])
                .map(Cow::Owned)
                .map_err(|_| Unsure)
        } else {
            Ok(Cow::Borrowed(&self.text[start + 1..end - 1]))
        }
    }

    /// `,` then `close`, or `close`: whether the container goes on (after a comma).
    fn separator(&mut self, close: u8) -> Result<bool, Unsure> {
        self.trivia()?;
        match self.bytes.get(self.at) {
            Some(b',') => {
                let comma = self.at;
                self.at += 1;
                self.trivia()?;
                if self.bytes.get(self.at) == Some(&close) {
                    self.commas.push(comma);
                    self.at += 1;
                    return Ok(false);
                }
                Ok(true)
            }
            Some(&byte) if byte == close => {
                self.at += 1;
                Ok(false)
            }
            _ => Err(Unsure),
        }
    }

    fn array(&mut self, depth: usize, want: Want) -> Result<Option<Node>, Unsure> {
        if depth >= MAX_DEPTH {
            return Err(Unsure);
        }
        let start = self.at;
        // No read path goes through a list: its items are kept whole or not at all.
        let inner = if want == Want::All {
            Want::All
        } else {
            Want::Nothing
        };
        self.at += 1;
        let mut items = Vec::new();
        self.trivia()?;
        if self.bytes.get(self.at) == Some(&b']') {
            self.at += 1;
        } else {
            loop {
                items.extend(self.value(depth + 1, inner)?);
                if !self.separator(b']')? {
                    break;
                }
            }
        }
        Ok((want != Want::Nothing).then_some(Node {
            value: Value::Array(items),
            start,
        }))
    }

    fn object(&mut self, depth: usize, want: Want) -> Result<Option<Node>, Unsure> {
        if depth >= MAX_DEPTH {
            return Err(Unsure);
        }
        let start = self.at;
        self.at += 1;
        let mut members = Vec::new();
        let base = self.keys.len();
        let mut large: Option<HashSet<Cow<'t, str>>> = None;
        let mut duplicates = Vec::new();
        self.trivia()?;
        if self.bytes.get(self.at) == Some(&b'}') {
            self.at += 1;
        } else {
            loop {
                if self.bytes.get(self.at) != Some(&b'"') {
                    return Err(Unsure);
                }
                let key_start = self.at;
                let key = self.string()?;
                self.trivia()?;
                if self.bytes.get(self.at) != Some(&b':') {
                    return Err(Unsure);
                }
                self.at += 1;
                self.trivia()?;
                let node = self.value(depth + 1, self.member(want, &key))?;
                // A duplicate of a key read before, as a set of the keys would find it.
                let seen = match &mut large {
                    Some(set) => !set.insert(key.clone()),
                    None => {
                        let seen = self.keys[base..].contains(&key);
                        self.keys.push(key.clone());
                        if self.keys.len() - base > SMALL_OBJECT {
                            large = Some(self.keys.drain(base..).collect());
                        }
                        seen
                    }
                };
                if seen {
                    duplicates.push(Syntax::DuplicateKey(key_start, key.clone().into_owned()));
                }
                if let Some(node) = node {
                    members.push(Member {
                        key: key.into_owned(),
                        key_start,
                        node,
                    });
                }
                if !self.separator(b'}')? {
                    break;
                }
            }
        }
        self.keys.truncate(base);
        self.duplicates.append(&mut duplicates);
        Ok((want != Want::Nothing).then_some(Node {
            value: Value::Object(members),
            start,
        }))
    }
}

/// Offsets of the commas followed (after whitespace and comments) by `}` or `]`, in a text
/// that parsed: strings and comments are skipped whole.
fn trailing_commas(text: &str) -> Vec<usize> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        at = match byte {
            b'"' => scan::scan_string(text, at).map_or(bytes.len(), |(end, _)| end),
            b'/' => scan::comment_end(text, at).unwrap_or(bytes.len()),
            b',' => {
                let next = scan::skip_trivia(text, at + 1).unwrap_or(bytes.len());
                if matches!(bytes.get(next), Some(b'}' | b']')) {
                    out.push(at);
                }
                at + 1
            }
            _ => at + 1,
        };
    }
    out
}

/// The lint tree of `value`, taking the AST apart as it goes: each part of the AST is
/// freed once converted, so the whole AST and the whole tree are never held at once (at
/// 100k entries both are tens of MB).
fn from_json(value: ast::Value<'_>, syntax: &mut Vec<Syntax>) -> Node {
    let start = value.range().start;
    let value = match value {
        ast::Value::StringLit(s) => Value::String(s.value.into_owned()),
        ast::Value::NumberLit(_) => Value::Number,
        ast::Value::BooleanLit(_) => Value::Bool,
        ast::Value::NullKeyword(_) => Value::Null,
        ast::Value::Array(array) => Value::Array(
            array
                .elements
                .into_iter()
                .map(|v| from_json(v, syntax))
                .collect(),
        ),
        ast::Value::Object(object) => {
            let mut members: Vec<Member> = Vec::with_capacity(object.properties.len());
            for prop in object.properties {
                let key_start = prop.range.start;
                members.push(Member {
                    key: prop.name.into_string(),
                    key_start,
                    node: from_json(prop.value, syntax),
                });
            }
            // A set, not a scan of the members so far: a servers map of 100k entries.
            let mut keys: std::collections::HashSet<&str> =
                std::collections::HashSet::with_capacity(members.len());
            for member in &members {
                if !keys.insert(member.key.as_str()) {
                    syntax.push(Syntax::DuplicateKey(member.key_start, member.key.clone()));
                }
            }
            Value::Object(members)
        }
    };
    Node { value, start }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The tree and notes as one comparable text.
    fn shown(parsed: &Parsed) -> String {
        format!("{:?}\n{:?}", parsed.root, parsed.syntax)
    }

    /// `parse` gives what jsonc-parser's conversion gives; `Some(accepted by the builder)`.
    fn same_as_jsonc(text: &str) -> Result<bool, TestCaseError> {
        let ours = Builder::new(text, None).document();
        let accepted = ours.is_ok();
        let jsonc = parse_jsonc(text);
        if let Ok(ours) = ours {
            prop_assert!(
                !jsonc.syntax.iter().any(|s| matches!(s, Syntax::Error(..))),
                "builder accepted what jsonc-parser refuses: {:?} ({:?})",
                text,
                jsonc.syntax
            );
            prop_assert_eq!(shown(&ours), shown(&jsonc), "{:?}", text);
        }
        prop_assert_eq!(shown(&parse(text)), shown(&jsonc), "{:?}", text);
        Ok(accepted)
    }

    /// The tree of what `reads` names is the whole tree with the rest left out (when the
    /// builder takes the text; jsonc-parser's tree is always whole), with the same notes.
    fn same_read(text: &str, reads: &[Vec<String>]) -> Result<(), TestCaseError> {
        fn pruned(node: &Node, paths: &[&[String]]) -> Node {
            if paths.iter().any(|p| p.is_empty()) {
                return node.clone();
            }
            let value = match &node.value {
                Value::Object(members) => Value::Object(
                    members
                        .iter()
                        .filter_map(|m| {
                            let below: Vec<&[String]> = paths
                                .iter()
                                .filter(|p| p[0] == m.key || p[0] == "*")
                                .map(|p| &p[1..])
                                .collect();
                            (!below.is_empty()).then(|| Member {
                                node: pruned(&m.node, &below),
                                ..m.clone()
                            })
                        })
                        .collect(),
                ),
                Value::Array(_) => Value::Array(Vec::new()),
                other => other.clone(),
            };
            Node {
                value,
                start: node.start,
            }
        }
        let whole = parse(text);
        prop_assert_eq!(&parse_reading(text, Some(reads)).syntax, &whole.syntax);
        if let Ok(read) = Builder::new(text, Some(reads)).document() {
            let paths: Vec<&[String]> = reads.iter().map(Vec::as_slice).collect();
            prop_assert_eq!(
                format!("{:?}", read.root),
                format!("{:?}", pruned(&whole.root, &paths)),
                "{:?}",
                text
            );
        }
        Ok(())
    }

    fn paths(paths: &[&[&str]]) -> Vec<Vec<String>> {
        paths
            .iter()
            .map(|p| p.iter().map(|k| (*k).to_owned()).collect())
            .collect()
    }

    #[test]
    fn a_claude_json_keeps_its_servers_and_leaves_the_history_out() {
        let text = r#"{
  "numStartups": 3,
  "mcpServers": { "a": { "command": "npx", "args": ["-y", "a"] } },
  "projects": {
    "/home/dev/x": {
      "history": [{ "display": "a prompt", "pastedContents": {} }, "another"],
      "mcpServers": { "b": { "url": "https://b.example.com/mcp" } },
      "allowedTools": ["Edit"]
    }
  }
}"#;
        let reads = paths(&[&["mcpServers"], &["projects", "*", "mcpServers"]]);
        let parsed = parse_reading(text, Some(&reads));
        let keys = |node: &Node| -> Vec<String> {
            node.members()
                .unwrap()
                .iter()
                .map(|m| m.key.clone())
                .collect()
        };
        assert_eq!(keys(&parsed.root), ["mcpServers", "projects"]);
        assert_eq!(keys(&parsed.root.get("mcpServers").unwrap().node), ["a"]);
        let project = &parsed.root.get("projects").unwrap().node.members().unwrap()[0];
        assert_eq!(keys(&project.node), ["mcpServers"]);
        assert_eq!(keys(&project.node.get("mcpServers").unwrap().node), ["b"]);
        same_read(text, &reads).unwrap();
    }

    #[test]
    fn builder_agrees_with_jsonc_parser_on_edge_cases() {
        let accepted = [
            "",
            "  \n",
            "// only a comment",
            "/* a */ {} // b",
            "{}",
            "[]",
            "[1,]",
            "{\"a\": 1,}",
            "{\"a\": [1, 2, /* c */ ], }",
            "{\"a\":true,\"b\":false,\"c\":null,\"d\":-0.5e+10,\"e\":0E1}",
            "{\"\\u0061\": 1, \"a\": 2}",
            "\"\\ud83d\\ude00 \\n\\t\\/\\\\ \\u00e9\"",
            "{\"a\":1//x\r,\"b\":2}",
            "{\"a\": {\"a\": 1, \"a\": 2}, \"a\": 3}",
            "1 /* end */",
            "true//",
        ];
        for text in accepted {
            assert!(same_as_jsonc(text).unwrap(), "builder refused {text:?}");
        }
        // Refused by the builder: jsonc-parser decides, with its own words.
        let declined = [
            "{\"a\": \"tab\there\"}",
            "{\"a\": \"\\ud800\"}",
            "{\"a\": \"\\udc00\"}",
            "{\"a\": \"\\ud800\\u0041\"}",
            "\u{a0}{}",
            "{\"a\"\u{b}: 1}",
            "[,]",
            "{,}",
            "[1,,]",
            "01",
            "1.",
            ".5",
            "-",
            "+1",
            "0x10",
            "\"\\'\"",
            "'a'",
            "{a: 1}",
            "[1 2]",
            "{\"a\": 1 \"b\": 2}",
            "{} {}",
            "{},",
            "truex",
            "[nul]",
            "/* open",
            "/ x",
            "{\"a\": 1",
            "\"open",
            "NaN",
            "[Infinity]",
        ];
        for text in declined {
            assert!(!same_as_jsonc(text).unwrap(), "builder accepted {text:?}");
        }
        // Nesting past the builder's depth, and past jsonc-parser's.
        for depth in [MAX_DEPTH - 1, MAX_DEPTH, 300, 600] {
            let text = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
            assert_eq!(same_as_jsonc(&text).unwrap(), depth <= MAX_DEPTH, "{depth}");
            let text = format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth));
            assert_eq!(same_as_jsonc(&text).unwrap(), depth <= MAX_DEPTH, "{depth}");
        }
    }

    #[test]
    fn a_large_object_finds_duplicates_through_a_set() {
        let mut text = String::from("{");
        for i in 0..100 {
            text.push_str(&format!("\"k{}\": {{\"x\": 1, \"x\": 2}},", i % 40));
        }
        text.push('}');
        assert!(same_as_jsonc(&text).unwrap());
    }

    /// Generated JSONC: values of every kind, keys from a small set (duplicates), escapes,
    /// and trivia (spaces, line breaks, both comments) and trailing commas anywhere.
    fn jsonc() -> impl Strategy<Value = String> {
        let trivia = prop::sample::select(vec![
            "",
            "",
            "",
            " ",
            "\n  ",
            "\r\n",
            "\t",
            "// c\n",
            "/* c */",
            " /* x\n y */ ",
            "//\r",
        ]);
        let string = prop::sample::select(vec![
            "a",
            "mcpServers",
            "b",
            "\\u0061",
            "x y",
            "\\\"",
            "\\\\n",
            "\\u00e9\\n",
            "é",
            "\\ud83d\\ude00",
            "${A}",
            "",
        ]);
        let leaf = prop_oneof![
            string.clone().prop_map(|s| format!("\"{s}\"")),
            prop::sample::select(vec![
                "0", "-1", "1.5", "2e10", "-0.0E-3", "true", "false", "null"
            ])
            .prop_map(str::to_owned),
        ];
        let trivia2 = trivia.clone();
        leaf.prop_recursive(5, 64, 6, move |inner| {
            let t = trivia2.clone();
            let item =
                (t.clone(), inner.clone(), t.clone()).prop_map(|(a, v, b)| format!("{a}{v}{b}"));
            let member = (
                t.clone(),
                string.clone(),
                t.clone(),
                t.clone(),
                inner,
                t.clone(),
            )
                .prop_map(|(a, k, b, c, v, d)| format!("{a}\"{k}\"{b}:{c}{v}{d}"));
            let comma = prop::bool::ANY;
            prop_oneof![
                (prop::collection::vec(item, 0..5), comma, t.clone()).prop_map(
                    |(items, trailing, t)| {
                        let tail = if trailing && !items.is_empty() {
                            ","
                        } else {
                            ""
                        };
                        format!("[{}{tail}{t}]", items.join(","))
                    }
                ),
                (prop::collection::vec(member, 0..5), comma, t).prop_map(
                    |(members, trailing, t)| {
                        let tail = if trailing && !members.is_empty() {
                            ","
                        } else {
                            ""
                        };
                        format!("{{{}{tail}{t}}}", members.join(","))
                    }
                ),
            ]
        })
        .prop_flat_map(move |value| (trivia.clone(), Just(value), trivia.clone()))
        .prop_map(|(a, v, b)| format!("{a}{v}{b}"))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// On generated JSONC the builder accepts, and gives jsonc-parser's tree and notes.
        #[test]
        fn builder_tree_is_jsonc_parsers_tree(text in jsonc()) {
            prop_assert!(same_as_jsonc(&text)?, "builder refused {:?}", text);
        }

        /// Keeping only some key paths (`*`: any key) leaves the rest of the tree out and
        /// the notes as they are.
        #[test]
        fn a_tree_of_what_is_read_is_the_whole_tree_pruned(text in jsonc(), reads in prop::sample::select(vec![
            vec![], vec![&["mcpServers"][..]], vec![&["a", "*", "mcpServers"][..]],
            vec![&["a"][..], &["b", "a"][..]], vec![&["*", "*"][..], &["mcpServers", "b", "a"][..]],
        ])) {
            same_read(&text, &paths(&reads))?;
        }

        /// With a byte changed, inserted or cut, whatever the builder accepts jsonc-parser
        /// accepts with the same tree, and `parse` gives jsonc-parser's answer either way.
        #[test]
        fn builder_never_accepts_more_than_jsonc_parser(
            text in jsonc(),
            at in any::<prop::sample::Index>(),
            edit in prop::sample::select(vec!['{', '}', '[', ']', ',', ':', '"', '\\', '/', '*', '\n', '\t', 'u', 'e', '0', '-', '.', ' ', '\u{a0}', '\u{1}']),
            how in 0..3u8,
        ) {
            let mut chars: Vec<char> = text.chars().collect();
            let i = if chars.is_empty() { 0 } else { at.index(chars.len()) };
            match how {
                0 if !chars.is_empty() => chars[i] = edit,
                1 => chars.insert(i, edit),
                _ if !chars.is_empty() => { chars.remove(i); }
                _ => chars.push(edit),
            }
            let text: String = chars.into_iter().collect();
            same_as_jsonc(&text)?;
        }
    }

    #[test]
    fn json_reports_comments_trailing_commas_and_duplicates() {
        let text = "{\n  // note\n  \"a\": 1,\n  \"a\": [1, 2,],\n}\n";
        let parsed = parse(text);
        assert_eq!(
            parsed.syntax,
            vec![
                Syntax::Comment(4),
                Syntax::TrailingComma(34),
                Syntax::TrailingComma(36),
                Syntax::DuplicateKey(24, "a".into()),
            ]
        );
        assert_eq!(parsed.root.members().map(<[_]>::len), Some(2));
    }

    #[test]
    fn trailing_commas_are_found_outside_strings_and_comments() {
        let text =
            "{\"a\": \",]\", /* , } */ \"b\": [1, // ,]\n 2],\n \"c\": {\"d\": 1 , /* x */ },\n}";
        let parsed = parse(text);
        let commas: Vec<usize> = parsed
            .syntax
            .iter()
            .filter_map(|s| match s {
                Syntax::TrailingComma(at) => Some(*at),
                _ => None,
            })
            .collect();
        let expected: Vec<usize> = text
            .match_indices(" , /* x */ }")
            .map(|(i, _)| i + 1)
            .chain(text.match_indices(",\n}").map(|(i, _)| i))
            .collect();
        assert_eq!(commas, expected);
    }

    #[test]
    fn json_error_has_an_offset_and_single_quotes_are_errors() {
        let parsed = parse("{\"a\": }");
        assert!(matches!(parsed.syntax.as_slice(), [Syntax::Error(6, _)]));
        assert!(matches!(
            parse("{'a': 1}").syntax.as_slice(),
            [Syntax::Error(..)]
        ));
        assert!(parse("").syntax.is_empty());
    }
}
