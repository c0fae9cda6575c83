//! Integration tests for `mcpctl remove`.

use crate::env::{TestEnv, fixture, jsonc};

#[test]
fn remove_missing_entry_is_an_error_and_writes_nothing() {
    let env = TestEnv::new();
    let original = fixture("cursor/mcp.json");
    env.write(".cursor/mcp.json", &original);
    let run = env
        .run(&["--json", "remove", "nope", "-c", "cursor,codex"])
        .code(2);
    assert!(
        run.stderr
            .contains("no server named `nope` in cursor, codex"),
        "{}",
        run.stderr
    );
    assert_eq!(env.read(".cursor/mcp.json"), original);
    assert!(!env.path(".codex/config.toml").exists());
}

#[test]
fn remove_existing_entry_keeps_the_rest() {
    let env = TestEnv::new();
    env.write(".codex/config.toml", &fixture("codex/config.toml"));
    env.run(&["remove", "context7", "-c", "codex"]).ok();
    let text = env.read_str(".codex/config.toml");
    assert!(!text.contains("context7"), "{text}");
    assert!(
        text.contains("[projects.\"/home/alice/code/shop\"]") && text.contains("[profiles.fast]"),
        "{text}"
    );
    assert!(
        text.starts_with("# Codex configuration\nmodel = \"gpt-5-codex\""),
        "{text}"
    );
}

#[test]
fn remove_all_dry_run_shows_diff_per_file() {
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", &fixture("cursor/mcp.json"));
    env.write(
        ".codeium/windsurf/mcp_config.json",
        &fixture("windsurf/mcp_config.json"),
    );
    let run = env.run(&["remove", "postgres", "--all", "--dry-run"]).ok();
    assert!(
        run.stdout.contains("-        \"postgres\": {"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("would remove"), "{}", run.stdout);
    assert_eq!(
        crate::env::command_of(&jsonc(&env.read(".cursor/mcp.json"))["mcpServers"]["postgres"]),
        "npx"
    );
}

#[test]
fn remove_without_target_names_only_clients_that_have_the_server() {
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", &fixture("cursor/mcp.json"));
    env.write(
        ".codeium/windsurf/mcp_config.json",
        &fixture("windsurf/mcp_config.json"),
    );
    env.write(
        ".gemini/settings.json",
        br#"{"mcpServers":{"postgres":{"command":"npx"}}}"#,
    );
    let run = env.run(&["remove", "postgres"]).code(2);
    assert!(
        run.stderr
            .contains("candidates detected here: cursor, gemini-cli"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("windsurf"), "{}", run.stderr);
}
