//! Every error about a file starts `PATH:LINE:COLUMN:` where there is a position, and
//! names the file where there is not; `--json` error objects carry the same text.

use crate::env::TestEnv;

/// `list`, `add` (text and `--json`), `remove` and `clients --json` on `file` holding
/// `text` all say `expected` after the file's path.
fn all_say(file: &str, client: &str, text: &str, expected: &str) {
    let env = TestEnv::new();
    env.write(file, text.as_bytes());
    let shown = format!("{}{expected}", crate::env::os_path(&format!("~/{file}")));
    let absolute = format!("{}{expected}", env.path(file).display());
    let list = env.run(&["list", "-c", client]).code(2);
    assert!(
        list.stderr.contains(&format!("error: {shown}")),
        "{text:?}: {}",
        list.stderr
    );
    let add = env
        .run(&["add", "zz", "-c", client, "--", "npx", "pkg"])
        .code(2);
    assert!(
        add.stdout
            .contains(&format!("failed       {client:<16} {shown}")),
        "{text:?}: {}",
        add.stdout
    );
    let remove = env.run(&["remove", "x", "-c", client]).code(2);
    assert!(
        remove.stdout.contains(&shown),
        "{text:?}: {}",
        remove.stdout
    );
    let add = env
        .run(&["add", "zz", "-c", client, "--json", "--", "npx", "pkg"])
        .code(2)
        .json();
    let error = add[0]["error"].as_str().unwrap();
    assert!(error.starts_with(&absolute), "{text:?}: {error}");
    let clients = env.run(&["clients", "--json"]).ok().json();
    let row = clients
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == client)
        .unwrap();
    let error = row["error"].as_str().unwrap();
    assert!(error.starts_with(&absolute), "{text:?}: {error}");
    let doctor = env
        .run(&["doctor", "-c", client, "--no-spawn", "--json"])
        .json();
    // As JSON spells it (a Windows path's `\` doubled).
    let in_json = serde_json::Value::from(absolute.as_str()).to_string();
    assert!(
        doctor.to_string().contains(in_json.trim_matches('"')),
        "{text:?}: {doctor}"
    );
    // The file is never written.
    assert_eq!(env.read_str(file), text);
}

#[test]
fn a_servers_key_of_the_wrong_type_is_located() {
    all_say(
        ".cursor/mcp.json",
        "cursor",
        "{\n  \"mcpServers\": null\n}\n",
        ":2:3: `mcpServers` is null, expected an object",
    );
    all_say(
        ".cursor/mcp.json",
        "cursor",
        "{\"a\": 1, \"mcpServers\": [\"x\"]}",
        ":1:10: `mcpServers` is an array, expected an object",
    );
    all_say(
        ".codex/config.toml",
        "codex",
        "model = \"o3\"\nmcp_servers = 3\n",
        ":2:1: `mcp_servers` is a number, expected an object",
    );
    all_say(
        ".claude.json",
        "claude-code",
        "{\"mcpServers\": \"none\"}",
        ":1:2: `mcpServers` is a string, expected an object",
    );
}

#[test]
fn parse_errors_are_located_in_json_jsonc_and_toml() {
    all_say(
        ".cursor/mcp.json",
        "cursor",
        "{\"mcpServers\": {\n  \"x\": }\n}",
        ":2:8: not valid JSON: ",
    );
    all_say(
        crate::env::ZED,
        "zed",
        "// Zed\n{\n  \"context_servers\": {,\n}\n",
        ":3:23: not valid JSONC: ",
    );
    all_say(
        ".codex/config.toml",
        "codex",
        "[mcp_servers.x]\ncommand = \n",
        ":2:11: not valid TOML: ",
    );
}

#[test]
fn an_entry_of_the_wrong_type_is_located() {
    let env = TestEnv::new();
    env.write(
        ".cursor/mcp.json",
        b"{\n  \"mcpServers\": {\n    \"ok\": {\"command\": \"npx\"},\n    \"bad\": 1\n  }\n}\n",
    );
    let path = env.path(".cursor/mcp.json");
    let expected = format!(
        "{}:4:5: invalid Cursor entry `bad`: entry is a number, expected an object",
        path.display()
    );
    let list = env.run(&["list", "-c", "cursor", "--json"]).ok().json();
    let bad = list
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "bad")
        .unwrap();
    assert_eq!(bad["error"].as_str(), Some(expected.as_str()));
    let text = env.run(&["list", "-c", "cursor"]).ok();
    assert!(
        text.stdout.contains(&crate::env::os_path(
            "~/.cursor/mcp.json:4:5: invalid Cursor entry `bad`"
        )),
        "{}",
        text.stdout
    );
    let doctor = env
        .run(&["doctor", "bad", "-c", "cursor", "--no-spawn", "--json"])
        .json();
    assert_eq!(
        doctor["results"][0]["checks"][0]["message"].as_str(),
        Some(expected.as_str()),
        "{doctor}"
    );
}

#[test]
fn errors_without_a_position_name_the_file() {
    let env = TestEnv::new();
    // Not UTF-8: named, no position.
    env.write(".cursor/mcp.json", b"{\"mcpServers\": {\"x\": \"\xff\"}}");
    let add = env
        .run(&["add", "zz", "-c", "cursor", "--json", "--", "npx"])
        .code(2)
        .json();
    let error = add[0]["error"].as_str().unwrap();
    assert!(
        error.contains(&env.path(".cursor/mcp.json").display().to_string()),
        "{error}"
    );
    // A directory where the file belongs.
    let env = TestEnv::new();
    std::fs::create_dir_all(env.path(".cursor/mcp.json")).unwrap();
    let list = env.run(&["list", "-c", "cursor"]).code(2);
    let path = env.path(".cursor/mcp.json").display().to_string();
    assert!(list.stderr.contains(&path), "{}", list.stderr);
}

/// Issue 39 F24: a file where mcpctl's lock folder should be (ENOTDIR/EEXIST) was blamed
/// on "another mcpctl is writing this file"; the hint now says what is in the way.
#[test]
fn a_file_in_the_way_of_the_state_directory_is_named_not_another_mcpctl() {
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", b"{}\n");
    let state = env.dir.path().join("state");
    std::fs::create_dir_all(&state).unwrap();
    std::fs::write(state.join("locks"), b"").unwrap();
    let run = env.run(&["add", "x", "-c", "cursor", "--", "npx", "x"]);
    assert_eq!(run.code, 2, "{run:?}");
    let said = format!("{}{}", run.stdout, run.stderr);
    assert!(!said.contains("another mcpctl"), "{said}");
    assert!(said.contains("a file stands where"), "{said}");
    assert_eq!(env.read(".cursor/mcp.json"), b"{}\n");
}
