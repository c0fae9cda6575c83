use proptest::prelude::*;
use serde_json::json;

use super::*;

fn k(keys: &[&str]) -> Vec<String> {
    keys.iter().map(|s| (*s).to_owned()).collect()
}

fn ext() -> Vec<String> {
    k(&["extensions"])
}

fn stdio() -> Json {
    json!({
        "name": "github", "enabled": true, "type": "stdio", "description": "",
        "cmd": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
        "envs": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}, "timeout": 300
    })
}

/// A config.yaml as Goose writes it, with a user's comments added.
const GOOSE: &str = "\
# my goose settings
GOOSE_PROVIDER: openai
GOOSE_MODEL: gpt-4o   # the fast one
extensions:
  developer:
    bundled: true
    display_name: Developer
    enabled: true
    name: developer
    timeout: 300
    type: builtin
  todo:
    available_tools: []
    bundled: true
    description: Enable a todo list
    enabled: true
    name: todo
    type: platform
  fetch:
    args:
    - mcp-server-fetch
    cmd: uvx   # pinned elsewhere
    enabled: false
    envs: {}
    name: fetch
    type: stdio
# keep this last
GOOSE_MODE: smart_approve
";

/// Add, check the text and that the entry reads back, remove, check identity.
fn add_remove(text: &str, key: &[String], entry: &Json, expected: Option<&str>) -> String {
    let mut doc = YamlDoc::parse(text).unwrap();
    assert_eq!(
        doc.upsert(ServersAt::map(key), "github", entry).unwrap(),
        Edit::Added
    );
    let added = doc.render().into_owned();
    if let Some(expected) = expected {
        assert_eq!(added, expected);
    }
    let again = YamlDoc::parse(added.clone()).unwrap();
    assert!(
        again
            .servers(ServersAt::map(key))
            .unwrap()
            .iter()
            .any(|(n, v)| n == "github" && v == entry),
        "{added}"
    );
    assert_eq!(
        doc.remove(ServersAt::map(key), "github").unwrap(),
        Edit::Removed
    );
    assert_eq!(doc.render(), text, "after remove");
    added
}

#[test]
fn goose_config_add_remove_is_identity_and_keeps_everything_else() {
    let added = add_remove(GOOSE, &ext(), &stdio(), None);
    assert!(
        added.contains(
            "    name: fetch\n    type: stdio\n  github:\n    name: github\n    enabled: true\n    type: stdio\n    description: \"\"\n    cmd: npx\n    args:\n    - -y\n    - \"@modelcontextprotocol/server-github\"\n    envs:\n      GITHUB_TOKEN: \"${GITHUB_TOKEN}\"\n    timeout: 300\n# keep this last\n"
        ),
        "{added}"
    );
    let doc = YamlDoc::parse(added).unwrap();
    let names: Vec<String> = doc
        .servers(ServersAt::map(&ext()))
        .unwrap()
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert_eq!(names, ["developer", "todo", "fetch", "github"]);
}

#[test]
fn crlf_four_spaces_and_indented_lists_are_followed() {
    let text = "extensions:\r\n    fetch:\r\n        args:\r\n            - x\r\n        cmd: uvx\r\nother: 1\r\n";
    let added = add_remove(
        text,
        &ext(),
        &json!({"cmd": "npx", "args": ["a"], "envs": {}}),
        None,
    );
    assert!(
        added.contains("        cmd: uvx\r\n    github:\r\n        cmd: npx\r\n        args:\r\n            - a\r\n        envs: {}\r\nother: 1\r\n"),
        "{added:?}"
    );
}

#[test]
fn flow_mappings_take_a_flow_pair() {
    add_remove(
        "extensions: {}\nx: 1\n",
        &ext(),
        &stdio(),
        Some(&format!("extensions: {{\"github\": {}}}\nx: 1\n", stdio())),
    );
    add_remove(
        "extensions: {a: {cmd: x, args: []}}  # inline\n",
        &ext(),
        &json!({"cmd": "y", "args": []}),
        Some(
            "extensions: {a: {cmd: x, args: []}, \"github\": {\"cmd\":\"y\",\"args\":[]}}  # inline\n",
        ),
    );
    add_remove(
        "extensions: {a: 1, b: 2}\n",
        &ext(),
        &json!({"cmd": "y"}),
        None,
    );
}

#[test]
fn no_final_newline_and_odd_indentation() {
    add_remove(
        "extensions:\n   a:\n       cmd: x\n       args: []",
        &ext(),
        &json!({"cmd": "y", "args": ["1"]}),
        Some(
            "extensions:\n   a:\n       cmd: x\n       args: []\n   github:\n       cmd: \"y\"\n       args:\n       - \"1\"",
        ),
    );
}

#[test]
fn missing_empty_and_null_containers_are_created() {
    let entry = json!({"cmd": "npx", "args": []});
    for (text, expected) in [
        ("", "extensions:\n  github:\n    cmd: npx\n    args: []\n"),
        (
            "# only a comment",
            "# only a comment\nextensions:\n  github:\n    cmd: npx\n    args: []",
        ),
        (
            "GOOSE_MODEL: x\n",
            "GOOSE_MODEL: x\nextensions:\n  github:\n    cmd: npx\n    args: []\n",
        ),
        (
            "extensions:\nGOOSE_MODEL: x\n",
            "extensions:\n  github:\n    cmd: npx\n    args: []\nGOOSE_MODEL: x\n",
        ),
        (
            "extensions: ~ # none yet\n",
            "extensions:\n  github:\n    cmd: npx\n    args: [] # none yet\n",
        ),
    ] {
        let mut doc = YamlDoc::parse(text).unwrap();
        assert_eq!(
            doc.upsert(ServersAt::map(&ext()), "github", &entry)
                .unwrap(),
            Edit::Added
        );
        assert_eq!(doc.render(), expected, "{text:?}");
        // Removing the only entry leaves an empty mapping.
        doc.remove(ServersAt::map(&ext()), "github").unwrap();
        assert_eq!(doc.servers(ServersAt::map(&ext())).unwrap(), vec![]);
        assert!(
            doc.render().contains("extensions: {}") || text.is_empty() || text.starts_with('#'),
            "{}",
            doc.render()
        );
    }
}

#[test]
fn update_rewrites_only_that_entry_and_equal_is_unchanged() {
    let mut doc = YamlDoc::parse(GOOSE).unwrap();
    let fetch = doc
        .servers(ServersAt::map(&ext()))
        .unwrap()
        .into_iter()
        .find(|(n, _)| n == "fetch")
        .unwrap()
        .1;
    assert_eq!(
        doc.upsert(ServersAt::map(&ext()), "fetch", &fetch).unwrap(),
        Edit::Unchanged
    );
    assert_eq!(doc.render(), GOOSE);
    let mut changed = fetch.clone();
    changed["enabled"] = json!(true);
    assert_eq!(
        doc.upsert(ServersAt::map(&ext()), "fetch", &changed)
            .unwrap(),
        Edit::Updated
    );
    let text = doc.render().into_owned();
    assert!(
        text.contains(
            "  fetch:\n    args:\n    - mcp-server-fetch\n    cmd: uvx\n    enabled: true\n"
        ),
        "{text}"
    );
    assert!(text.starts_with(&GOOSE[..GOOSE.find("  fetch:").unwrap()]));
    assert!(text.ends_with("# keep this last\nGOOSE_MODE: smart_approve\n"));
}

#[test]
fn strings_that_would_read_as_something_else_are_quoted() {
    let tricky = [
        "300",
        "true",
        "True",
        "yes",
        "~",
        "null",
        "",
        " lead",
        "a: b",
        "#x",
        "x #y",
        "@x",
        "-",
        "---",
        "1.5",
        "0x1f",
        ".inf",
        "*a",
        "&a",
        "!t",
        "%p",
        "[x]",
        "{x}",
        "'q'",
        "\"dq\"",
        "é ü",
        "tab\there",
        "line\nbreak",
        "C:\\Program Files\\x",
        "https://x.example/mcp?a=1&b=2",
        "-y",
        "/c",
        "key:",
    ];
    let entry = json!({"cmd": "cmd", "args": tricky.to_vec(), "envs": {"K": "a: b", "300": "no"}});
    let mut doc = YamlDoc::parse(GOOSE).unwrap();
    doc.upsert(ServersAt::map(&ext()), "odd", &entry).unwrap();
    let back = YamlDoc::parse(doc.render().into_owned()).unwrap();
    let got = back
        .servers(ServersAt::map(&ext()))
        .unwrap()
        .into_iter()
        .find(|(n, _)| n == "odd")
        .unwrap()
        .1;
    assert_eq!(got, entry);
    assert!(
        doc.render().contains("    - -y\n    - /c\n"),
        "{}",
        doc.render()
    );
}

#[test]
fn windows_wrap_in_yaml_form() {
    let entry = json!({"cmd": "cmd", "args": ["/c", "npx", "-y", "@scope/pkg"]});
    let mut doc = YamlDoc::parse("extensions:\n  a:\n    cmd: x\n").unwrap();
    doc.upsert(ServersAt::map(&ext()), "w", &entry).unwrap();
    assert_eq!(
        doc.render(),
        "extensions:\n  a:\n    cmd: x\n  w:\n    cmd: cmd\n    args:\n    - /c\n    - npx\n    - -y\n    - \"@scope/pkg\"\n"
    );
}

#[test]
fn unparseable_text_and_wrong_shapes_are_refused() {
    let err = YamlDoc::parse("extensions:\n  a: b: c\n").err().unwrap();
    assert_eq!((err.line, err.column), (2, 7));
    assert!(YamlDoc::parse("a: 1\n---\nb: 2\n").is_err());
    let mut doc = YamlDoc::parse("extensions: [a, b]\n").unwrap();
    assert!(matches!(
        doc.servers(ServersAt::map(&ext())),
        Err(ShapeError::NotAnObject {
            found: "an array",
            ..
        })
    ));
    assert!(doc.upsert(ServersAt::map(&ext()), "x", &json!({})).is_err());
    assert_eq!(doc.render(), "extensions: [a, b]\n");
    // A mapping inside a list item: no line of its own to edit.
    let mut doc = YamlDoc::parse("? extensions\n: a: {cmd: x}\n").unwrap();
    assert!(
        doc.upsert(ServersAt::map(&ext()), "b", &json!({"cmd": "y"}))
            .is_err()
    );
}

#[test]
fn duplicates_are_all_removed_and_aliases_read() {
    let text = "extensions:\n  a: &base {cmd: x, args: []}\n  b: *base\n  a: {cmd: y, args: []}\n  c: {cmd: z}\n";
    let mut doc = YamlDoc::parse(text).unwrap();
    let servers = doc.servers(ServersAt::map(&ext())).unwrap();
    assert_eq!(servers.len(), 3);
    assert_eq!(servers[1].1, json!({"cmd": "x", "args": []}));
    // Removing `a` would orphan the alias in `b`: refused, text kept.
    assert!(doc.remove(ServersAt::map(&ext()), "a").is_err());
    assert_eq!(doc.render(), text);
    let mut doc =
        YamlDoc::parse("extensions:\n  a: {cmd: x}\n  b: {cmd: z}\n  a: {cmd: y}\n").unwrap();
    assert_eq!(
        doc.remove(ServersAt::map(&ext()), "a").unwrap(),
        Edit::Removed
    );
    assert_eq!(doc.render(), "extensions:\n  b: {cmd: z}\n");
}

#[test]
fn positions_point_at_keys() {
    let doc = YamlDoc::parse(GOOSE).unwrap();
    assert_eq!(
        doc.position(&k(&["extensions", "fetch", "cmd"])),
        Some(Position {
            line: 22,
            column: 5
        })
    );
}

fn arb_string() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z][a-z0-9_-]{0,8}",
        "[-@/:.~ #'\"a-zA-Z0-9!&*%{}\\[\\],?|>]{0,12}",
        Just("300".to_owned()),
        Just("true".to_owned()),
        Just(String::new()),
        "\\PC{0,6}",
    ]
}

fn arb_entry() -> impl Strategy<Value = Json> {
    (
        arb_string(),
        proptest::collection::vec(arb_string(), 0..4),
        proptest::collection::btree_map("[A-Z_]{1,6}", arb_string(), 0..3),
        any::<bool>(),
    )
        .prop_map(|(cmd, args, envs, enabled)| {
            let mut cmd = cmd;
            if cmd.is_empty() {
                cmd.push('x');
            }
            json!({"type": "stdio", "cmd": cmd, "args": args, "envs": envs, "enabled": enabled, "timeout": 300})
        })
}

const BASES: &[&str] = &[
    GOOSE,
    "extensions:\r\n  a:\r\n    cmd: x\r\n    args:\r\n    - y\r\n",
    "# c\nextensions:\n    a:\n        cmd: x\n        args:\n            - y\n# tail\n",
    "extensions: {a: {cmd: x}}\n",
    "extensions: {}\n",
    "x: 1\nextensions:\n  a: {cmd: x}",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn add_then_remove_is_identity(base in 0..BASES.len(), name in "[a-z][a-z0-9_ -]{0,10}", entry in arb_entry()) {
        let text = BASES[base];
        let mut doc = YamlDoc::parse(text).unwrap();
        prop_assume!(name != "a" && name != "developer" && name != "todo" && name != "fetch");
        prop_assert_eq!(doc.upsert(ServersAt::map(&ext()), &name, &entry).unwrap(), Edit::Added);
        let back = YamlDoc::parse(doc.render().into_owned()).unwrap();
        let servers = back.servers(ServersAt::map(&ext())).unwrap();
        prop_assert!(servers.iter().any(|(n, v)| *n == name && *v == entry));
        prop_assert_eq!(doc.remove(ServersAt::map(&ext()), &name).unwrap(), Edit::Removed);
        prop_assert_eq!(doc.render(), text);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// A batch of new entries (`add_all`, what a plan writes) gives the bytes that one
    /// `upsert` after another gives, in every layout the bases have, in a new file, and
    /// in one whose last line has no newline; and reads back as those entries.
    #[test]
    fn add_all_is_one_upsert_after_another(
        base in 0..BASES.len() + 2,
        names in prop::collection::btree_set("[b-z][a-z0-9_-]{0,8}", 1..6),
        entries in prop::collection::vec(arb_entry(), 6),
    ) {
        let text = match base {
            b if b < BASES.len() => BASES[b],
            b if b == BASES.len() => "",
            _ => "extensions:\n  a:\n    cmd: x",
        };
        let names: Vec<String> = names
            .into_iter()
            .filter(|n| !["developer", "todo", "fetch"].contains(&n.as_str()))
            .collect();
        let adds: Vec<(String, Json)> = names.into_iter().zip(entries).collect();
        let key = ext();
        let at = ServersAt::map(&key);
        let mut one_by_one = YamlDoc::parse(text).unwrap();
        for (name, entry) in &adds {
            prop_assert_eq!(one_by_one.upsert(at, name, entry).unwrap(), Edit::Added);
        }
        let mut batch = YamlDoc::parse(text).unwrap();
        let borrowed: Vec<(&str, &Json)> = adds.iter().map(|(n, e)| (n.as_str(), e)).collect();
            batch.add_all(at, &borrowed).unwrap();
        prop_assert_eq!(batch.render(), one_by_one.render());
        let back = YamlDoc::parse(batch.render().into_owned()).unwrap();
        let servers = back.servers(at).unwrap();
        for (name, entry) in &adds {
            prop_assert!(servers.iter().any(|(n, v)| n == name && v == entry), "{}", name);
        }
    }
}

#[test]
fn list_shaped_servers_read_by_their_name_key_and_are_not_written() {
    // Continue's config.yaml.
    let text = "name: My Config\nversion: 0.0.1\nschema: v1\nmcpServers:\n  - name: SQLite\n    command: npx\n    args: [-y, mcp-sqlite, /db.sqlite]\n  - uses: anthropic/memory-mcp\n  - name: docs\n    type: streamable-http\n    url: https://x.example/mcp\n";
    let mut doc = YamlDoc::parse(text).unwrap();
    let key = k(&["mcpServers"]);
    let servers = doc.servers(ServersAt::list(&key, "name")).unwrap();
    assert_eq!(
        servers,
        vec![
            (
                "SQLite".to_owned(),
                json!({"command": "npx", "args": ["-y", "mcp-sqlite", "/db.sqlite"]})
            ),
            (
                "docs".to_owned(),
                json!({"type": "streamable-http", "url": "https://x.example/mcp"})
            ),
        ]
    );
    assert!(matches!(
        doc.upsert(ServersAt::list(&key, "name"), "x", &json!({})),
        Err(ShapeError::ListUnsupported { .. })
    ));
    assert_eq!(doc.render(), text);
}
