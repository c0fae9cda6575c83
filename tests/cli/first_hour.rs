//! The first hour's frictions (issue 24): what a newcomer trying every command ran into.
//! Each test failed before its fix.
// See: issue 24

use serde_json::json;

use crate::env::{TestEnv, fixture, jsonc};
use crate::registry_server::RegistryServer;

fn cursor_servers(env: &TestEnv) -> serde_json::Value {
    jsonc(&env.read(".cursor/mcp.json"))["mcpServers"].clone()
}

#[test]
fn verbs_of_other_tools_point_at_mcpctls_own() {
    let env = TestEnv::new();
    let run = env.run(&["install", "memory"]).code(2);
    assert!(run.stderr.contains("mcpctl add memory"), "{}", run.stderr);
    assert!(!run.stderr.contains("'disable'"), "{}", run.stderr);
    // Claude Code's spelling: `claude mcp add NAME -- CMD`.
    let run = env
        .run(&["mcp", "add", "memory", "--", "npx", "-y", "m"])
        .code(2);
    assert!(
        run.stderr.contains("mcpctl add memory -- npx -y m"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("'copy'"), "{}", run.stderr);
    let run = env.run(&["get", "memory"]).code(2);
    assert!(run.stderr.contains("mcpctl list memory"), "{}", run.stderr);
    let run = env.run(&["mcp", "get", "memory"]).code(2);
    assert!(run.stderr.contains("mcpctl list memory"), "{}", run.stderr);
    // Nothing was written anywhere.
    assert!(!env.path(".cursor").exists());
}

#[test]
fn outdated_with_the_registry_down_does_not_claim_it_checked_everything() {
    let server = RegistryServer::start();
    let mut env = TestEnv::new();
    env.extra_env
        .push(("MCPCTL_REGISTRY".to_owned(), server.url.clone()));
    env.on_path("npx");
    server.publish(
        json!({"server": {
            "name": "io.github.acme/db",
            "version": "1.0.0",
            "packages": [{"registryType": "npm", "identifier": "@acme/db-mcp", "version": "1.0.0"}]
        }}),
        true,
        "active",
        None,
    );
    env.run(&["add", "io.github.acme/db", "-c", "cursor"]).ok();
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let down = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let run = env.run(&["outdated", "--registry", &down]).code(2);
    assert!(
        !run.stderr.contains("none has a newer version"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("0 of 1 registry-installed entr"),
        "{}",
        run.stderr
    );
}

#[test]
fn hints_under_a_failed_row_are_not_indented_29_spaces() {
    let env = TestEnv::new();
    env.run(&["add", "mem", "-c", "cursor", "--", "npx", "a"])
        .ok();
    let run = env
        .run(&["add", "mem", "-c", "cursor", "--", "npx", "b"])
        .code(2);
    assert!(
        run.stdout.contains("\n  hint: pass `--force`"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("        hint"), "{}", run.stdout);
}

#[test]
fn a_mistyped_project_directory_is_refused_not_created() {
    let env = TestEnv::new();
    let run = env
        .run(&[
            "--project",
            "no/such/projct",
            "add",
            "mem",
            "-c",
            "cursor",
            "--scope",
            "project",
            "--",
            "npx",
            "m",
        ])
        .code(2);
    let said = format!("{}{}", run.stdout, run.stderr);
    assert!(said.contains("no/such/projct` does not exist"), "{said}");
    assert!(!env.path("no").exists(), "no directory is created");
}

#[test]
fn dry_run_after_dashes_writes_nothing() {
    let env = TestEnv::new();
    let original = fixture("cursor/mcp.json");
    env.write(".cursor/mcp.json", &original);
    let run = env
        .run(&[
            "add",
            "mem",
            "-c",
            "cursor",
            "--",
            "npx",
            "-y",
            "m",
            "--dry-run",
        ])
        .ok();
    assert_eq!(env.read(".cursor/mcp.json"), original, "{}", run.stderr);
    assert!(run.stderr.contains("nothing was written"), "{}", run.stderr);
    assert!(run.stdout.contains("would add"), "{}", run.stdout);
}

#[test]
fn sse_urls_get_the_sse_transport_at_add_time() {
    let env = TestEnv::new();
    env.run(&[
        "add",
        "legacy",
        "-c",
        "claude-code",
        "--url",
        "https://mcp.example.com/sse",
    ])
    .ok();
    let claude = jsonc(&env.read(".claude.json"));
    assert_eq!(claude["mcpServers"]["legacy"]["type"], "sse");
    // `check --fix` has nothing left to infer.
    let run = env.run(&["check", "--user"]);
    assert!(!run.stdout.contains("/sse"), "{}", run.stdout);
    // An explicit transport is kept.
    env.run(&[
        "add",
        "streamed",
        "-c",
        "claude-code",
        "--url",
        "https://mcp.example.com/sse",
        "--transport",
        "http",
    ])
    .ok();
    let claude = jsonc(&env.read(".claude.json"));
    assert_eq!(claude["mcpServers"]["streamed"]["type"], "http");
}

#[test]
fn truncated_json_gets_no_shell_quoting_hint() {
    let env = TestEnv::new();
    let run = env
        .run(&[
            "add",
            "x",
            "-c",
            "cursor",
            "--from-json",
            r#"{"command":"npx","args":["-y","pkg"]"#,
        ])
        .code(2);
    assert!(!run.stderr.contains("shell ate"), "{}", run.stderr);
    assert!(run.stderr.contains("ends early"), "{}", run.stderr);
}

#[test]
fn remove_exit_code_does_not_depend_on_a_similar_name() {
    let env = TestEnv::new();
    env.run(&["add", "memory", "-c", "cursor", "--", "npx", "m"])
        .ok();
    let near = env.run(&["remove", "memroy", "-c", "cursor"]);
    let far = env.run(&["remove", "zzzzzz", "-c", "cursor"]);
    assert_eq!(near.code, far.code, "{}\n{}", near.stderr, far.stderr);
    assert_eq!(far.code, 2, "{}", far.stderr);
    assert!(
        far.stderr.contains("no server named `zzzzzz`"),
        "{}",
        far.stderr
    );
    assert!(cursor_servers(&env)["memory"].is_object());
}

#[test]
fn add_warns_when_the_command_is_not_on_path() {
    let env = TestEnv::new();
    let run = env
        .run(&["add", "x", "-c", "cursor", "--", "uvxx", "server"])
        .ok();
    assert!(
        run.stderr.contains("`uvxx` is not on PATH"),
        "{}",
        run.stderr
    );
    assert_eq!(cursor_servers(&env)["x"]["command"], "uvxx");
    env.on_path("uvx");
    let run = env
        .run(&["add", "y", "-c", "cursor", "--", "uvx", "server"])
        .ok();
    assert!(!run.stderr.contains("not on PATH"), "{}", run.stderr);
}

#[test]
fn the_npm_package_readme_says_which_formats_it_edits() {
    let readme = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("npm/mcpctl/README.md"),
    )
    .unwrap();
    assert!(readme.contains("YAML"), "{readme}");
}

#[test]
fn backups_say_which_command_replaced_them_and_name_from_json_adds() {
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", &fixture("cursor/mcp.json"));
    env.run(&[
        "add",
        "-c",
        "cursor",
        "--from-json",
        r#"{"mcpServers":{"kk":{"command":"npx","args":["k"]}}}"#,
    ])
    .ok();
    let run = env.run(&["backups"]).ok();
    assert!(run.stdout.contains("add kk"), "{}", run.stdout);
    assert!(!run.stdout.contains(" COMMAND "), "{}", run.stdout);
    assert!(run.stdout.contains("REPLACED BY"), "{}", run.stdout);
    let json = env.run(&["backups", "--json"]).ok().json();
    assert_eq!(json[0]["command"], "add kk");
}
