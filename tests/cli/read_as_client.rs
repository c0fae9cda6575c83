//! mcpctl reads what the client reads: the last of duplicated keys (`JSON.parse`), every
//! project file the client looks for, and a valid file whatever an unrelated entry holds.

use serde_json::json;

use crate::env::TestEnv;

const CURSOR: &str = ".cursor/mcp.json";

/// What a JavaScript client sees: `JSON.parse` keeps the last of duplicated keys.
fn as_client_sees(text: &[u8]) -> serde_json::Value {
    // serde_json (preserve_order) also keeps the last value of a duplicated key.
    serde_json::from_slice(text).unwrap()
}

#[test]
fn duplicated_entry_name_reads_updates_and_removes_the_last_occurrence() {
    let env = TestEnv::new();
    let text = "{\n  \"mcpServers\": {\n    \"x\": { \"command\": \"shadowed\" },\n    \"y\": { \"command\": \"y\" },\n    \"x\": { \"command\": \"seen\" }\n  }\n}\n";
    env.write(CURSOR, text.as_bytes());
    let listed = env.run(&["list", "-c", "cursor", "--json"]).ok().json();
    let names: Vec<_> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].clone())
        .collect();
    assert_eq!(names, [json!("x"), json!("y")]);
    assert_eq!(listed[0]["command"], "seen");

    // --force replaces the entry the client sees; the shadowed copy keeps its bytes.
    env.run(&["add", "x", "-c", "cursor", "--force", "--", "new-cmd"])
        .ok();
    let after = env.read_str(CURSOR);
    assert!(
        after.contains("\"x\": { \"command\": \"shadowed\" }"),
        "{after}"
    );
    assert_eq!(
        as_client_sees(after.as_bytes())["mcpServers"]["x"]["command"],
        "new-cmd"
    );

    // remove leaves the client without `x` (not with the shadowed copy back).
    env.run(&["remove", "x", "-c", "cursor"]).ok();
    let after = env.read(CURSOR);
    assert_eq!(
        as_client_sees(&after)["mcpServers"],
        json!({"y": {"command": "y"}})
    );
}

#[test]
fn duplicated_servers_key_adds_into_the_last_map() {
    let env = TestEnv::new();
    let text = "{\n  \"mcpServers\": { \"old\": { \"command\": \"old\" } },\n  \"theme\": \"dark\",\n  \"mcpServers\": { \"b\": { \"command\": \"b\" } }\n}\n";
    env.write(CURSOR, text.as_bytes());
    let listed = env.run(&["list", "-c", "cursor", "--json"]).ok().json();
    assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");
    assert_eq!(listed[0]["name"], "b");
    env.run(&["add", "c", "-c", "cursor", "--", "npx", "-y", "pkg"])
        .ok();
    let seen = as_client_sees(&env.read(CURSOR));
    assert!(seen["mcpServers"]["c"].is_object(), "{seen}");
    env.run(&["remove", "c", "-c", "cursor"]).ok();
    assert_eq!(env.read_str(CURSOR), text);
    // check still says the file has a duplicate key.
    let run = env.run(&["check", "-c", "cursor", "--user"]);
    assert!(
        run.stdout.contains("MCP004"),
        "{}{}",
        run.stdout,
        run.stderr
    );
}

#[test]
fn an_unrelated_entry_with_a_lone_surrogate_or_deep_nesting_does_not_refuse_the_file() {
    let env = TestEnv::new();
    let deep = format!("{}{}", "[".repeat(600), "]".repeat(600));
    let text = format!(
        "{{\"mcpServers\": {{\"a\": {{\"command\": \"x\", \"args\": [\"\\udc00\"]}}, \"b\": {{\"command\": \"y\", \"env\": {{\"D\": {deep}}}}}, \"c\": {{\"command\": \"z\"}}}}, \"other\": {{\"k\": \"\\ud800\", \"deep\": {deep}}}}}"
    );
    env.write(CURSOR, text.as_bytes());
    let run = env.run(&["list", "-c", "cursor", "--json"]);
    let listed = run.json();
    let names: Vec<_> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        names.contains(&"c".to_owned()),
        "{}{}",
        run.stdout,
        run.stderr
    );
    env.run(&["add", "d", "-c", "cursor", "--", "npx", "-y", "pkg"])
        .ok();
    env.run(&["remove", "d", "-c", "cursor"]).ok();
    assert_eq!(env.read_str(CURSOR), text);
}
