//! Goose: YAML `extensions` in `~/.config/goose/config.yaml`, edited entry by entry with
//! every other byte kept; its built-in extensions are shown, never touched.

use crate::env::{TestEnv, fixture};

const GOOSE: &str = crate::env::GOOSE;

fn goose_env() -> (TestEnv, String) {
    let env = TestEnv::new();
    let text = String::from_utf8(fixture("goose/config.yaml")).unwrap();
    env.write(GOOSE, text.as_bytes());
    (env, text)
}

#[test]
#[cfg(unix)] // expects npx unwrapped (Windows writes `cmd /c npx`)
fn add_then_remove_gives_back_every_byte_with_comments_builtins_and_settings() {
    let (env, text) = goose_env();
    env.run(&[
        "add",
        "github",
        "-c",
        "goose",
        "-e",
        "GITHUB_TOKEN=${GITHUB_TOKEN}",
        "--",
        "npx",
        "-y",
        "@modelcontextprotocol/server-github",
    ])
    .ok();
    env.run(&[
        "add",
        "docs",
        "-c",
        "goose",
        "-t",
        "http",
        "https://x.example/mcp",
    ])
    .ok();
    let added = env.read_str(GOOSE);
    // Goose needs `name`, `enabled` and `args` in a stdio entry and `description` in a
    // streamable_http one; the rest of the file is as it was.
    assert!(
        added.contains(
            "    uri: https://mcp.context7.com/mcp\n  github:\n    description: \"\"\n    enabled: true\n    name: github\n    timeout: 300\n    type: stdio\n    cmd: npx\n    args:\n    - -y\n    - \"@modelcontextprotocol/server-github\"\n    env_keys:\n    - GITHUB_TOKEN\n  docs:\n    description: \"\"\n    enabled: true\n    name: docs\n    timeout: 300\n    type: streamable_http\n    uri: https://x.example/mcp\n# Everything below is about the UI\n"
        ),
        "{added}"
    );
    assert!(added.starts_with(&text[..text.find("# Everything below").unwrap()]));
    let rows = env.run(&["list", "-c", "goose", "--json"]).ok().json();
    let names: Vec<&str> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["developer", "todo", "fetch", "context7", "github", "docs"]
    );
    env.run(&["remove", "github", "-c", "goose"]).ok();
    env.run(&["remove", "docs", "-c", "goose"]).ok();
    assert_eq!(env.read_str(GOOSE), text);
}

#[test]
fn builtin_and_platform_extensions_are_listed_read_only_and_never_changed() {
    let (env, text) = goose_env();
    let rows = env.run(&["list", "-c", "goose", "--json"]).ok().json();
    let developer = &rows[0];
    assert_eq!(developer["name"], "developer");
    assert_eq!(developer["builtin"], true);
    assert!(developer.get("error").is_none(), "{developer}");
    assert_eq!(rows[1]["disabled"], true, "todo is switched off");
    assert!(rows[2].get("builtin").is_none());
    let human = env.run(&["list", "-c", "goose"]).ok();
    assert!(
        human.stdout.contains("(built into the client; read-only)"),
        "{}",
        human.stdout
    );
    let add = env
        .run(&[
            "add",
            "developer",
            "-c",
            "goose",
            "--force",
            "--",
            "npx",
            "x",
        ])
        .code(2);
    assert!(
        add.stdout
            .contains("`developer` is built into Goose (`type: builtin`)"),
        "{}",
        add.stdout
    );
    let remove = env.run(&["remove", "todo", "-c", "goose"]).code(2);
    assert!(
        remove
            .stdout
            .contains("`todo` is built into Goose (`type: platform`)"),
        "{}",
        remove.stdout
    );
    assert_eq!(env.read_str(GOOSE), text);
    // check does not call them broken, and reads the secret in a header.
    let check = env
        .run(&["check", "-c", "goose", "--user", "--json"])
        .json();
    let findings = check.as_array().unwrap();
    let codes: Vec<&str> = findings
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    assert_eq!(
        codes,
        ["MCP401"],
        "only the key in context7's headers: {findings:?}"
    );
}

#[test]
fn sse_is_refused_with_the_reason() {
    let (env, text) = goose_env();
    let run = env
        .run(&[
            "add",
            "old",
            "-c",
            "goose",
            "-t",
            "sse",
            "https://x.example/sse",
        ])
        .code(2);
    assert!(
        run.stdout.contains("goose cannot use sse servers"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("Goose dropped SSE"), "{}", run.stdout);
    assert_eq!(env.read_str(GOOSE), text);
}

#[test]
fn a_file_that_does_not_parse_is_named_and_left_alone() {
    let env = TestEnv::new();
    let broken = "extensions:\n  fetch:\n    cmd: uvx\n   args: [x]\n";
    env.write(GOOSE, broken.as_bytes());
    let run = env
        .run(&["add", "github", "-c", "goose", "--", "npx", "-y", "x"])
        .code(2);
    assert!(
        run.stdout.contains(&format!(
            "{}:4:4: not valid YAML: while parsing a block mapping",
            crate::env::os_path(&format!("~/{GOOSE}"))
        )),
        "{}",
        run.stdout
    );
    assert_eq!(env.read_str(GOOSE), broken);
    let check = env.run(&["check", "-c", "goose", "--user"]);
    assert!(
        check.stdout.contains("config.yaml:4:4: error[MCP001]"),
        "{}",
        check.stdout
    );
}

#[test]
fn windows_targets_get_the_cmd_wrap_in_yaml_form() {
    let env = TestEnv::new();
    env.run(&[
        "--platform",
        "windows",
        "add",
        "mem",
        "-c",
        "goose",
        "--",
        "npx",
        "-y",
        "@modelcontextprotocol/server-memory",
    ])
    .ok();
    let text = env.read_str("AppData/Roaming/Block/goose/config/config.yaml");
    assert!(
        text.ends_with("    type: stdio\n    cmd: cmd\n    args:\n    - /c\n    - npx\n    - -y\n    - \"@modelcontextprotocol/server-memory\"\n"),
        "{text}"
    );
    let rows = env
        .run(&["--platform", "windows", "list", "-c", "goose", "--json"])
        .ok()
        .json();
    assert_eq!(crate::env::command_of(&rows[0]), "npx");
    assert_eq!(rows[0]["wrapped"], true);
}

#[test]
fn crlf_and_flow_style_files_keep_their_style() {
    let env = TestEnv::new();
    let crlf = "GOOSE_MODEL: x\r\nextensions:\r\n    fetch:\r\n        cmd: uvx\r\n        args:\r\n            - mcp-server-fetch\r\n        enabled: true\r\n        name: fetch\r\n        type: stdio\r\n";
    env.write(GOOSE, crlf.as_bytes());
    env.run(&["add", "m", "-c", "goose", "--", "uvx", "m"]).ok();
    let added = env.read_str(GOOSE);
    assert!(
        added.ends_with("        type: stdio\r\n    m:\r\n        description: \"\"\r\n        enabled: true\r\n        name: m\r\n        timeout: 300\r\n        type: stdio\r\n        cmd: uvx\r\n        args:\r\n            - m\r\n"),
        "{added:?}"
    );
    env.run(&["remove", "m", "-c", "goose"]).ok();
    assert_eq!(env.read_str(GOOSE), crlf);
    let flow =
        "extensions: {fetch: {cmd: uvx, args: [x], enabled: true, name: fetch, type: stdio}}\n";
    env.write(GOOSE, flow.as_bytes());
    env.run(&["add", "m", "-c", "goose", "--", "uvx", "m"]).ok();
    assert!(env.read_str(GOOSE).starts_with("extensions: {fetch: {cmd: uvx, args: [x], enabled: true, name: fetch, type: stdio}, \"m\": {"));
    env.run(&["remove", "m", "-c", "goose"]).ok();
    assert_eq!(env.read_str(GOOSE), flow);
}

#[test]
fn disable_flips_enabled_in_place_and_leaves_builtins_to_goose() {
    let (env, text) = goose_env();
    env.run(&["disable", "fetch", "-c", "goose"]).ok();
    let off = env.read_str(GOOSE);
    assert_eq!(
        off,
        text.replacen(
            "    enabled: true\n    env_keys: []",
            "    enabled: false\n    env_keys: []",
            1
        )
    );
    env.run(&["enable", "fetch", "-c", "goose"]).ok();
    assert_eq!(env.read_str(GOOSE), text);
    let run = env.run(&["disable", "developer", "-c", "goose"]).code(2);
    assert!(
        run.stdout.contains("`developer` is built into Goose"),
        "{}",
        run.stdout
    );
    assert_eq!(env.read_str(GOOSE), text);
}
