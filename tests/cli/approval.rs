//! Issue 20, item 7: doctor (and tools, call) start a project server only where the
//! client itself would. Qwen Code holds every project server "pending approval" (until
//! `qwen mcp approve NAME`), even in a trusted folder; Gemini CLI loads project servers
//! only in a trusted folder.

use serde_json::json;

use crate::doctor::{fixture, result};
use crate::env::TestEnv;

fn project_servers(env: &TestEnv, rel: &str) {
    env.write(
        rel,
        serde_json::to_string_pretty(
            &json!({"mcpServers": {"repo": {"command": fixture(), "args": []}}}),
        )
        .unwrap()
        .as_bytes(),
    );
}

fn trust_folder(env: &TestEnv, file: &str) {
    let dir = env.path("repo");
    env.write(
        file,
        serde_json::to_string(&json!({ dir.display().to_string(): "TRUST_FOLDER" }))
            .unwrap()
            .as_bytes(),
    );
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn qwen_code_project_servers_wait_for_approval_even_in_a_trusted_folder() {
    let env = TestEnv::new();
    project_servers(&env, "repo/.qwen/settings.json");
    trust_folder(&env, ".qwen/trustedFolders.json");
    let run = env.run_in(
        "repo",
        &["--json", "doctor", "-c", "qwen-code", "--timeout", "20"],
    );
    let report = run.json();
    let repo = result(&report, "repo");
    assert_eq!(repo["status"], "skipped", "{repo}");
    assert!(repo.to_string().contains("qwen mcp approve"), "{repo}");
    let run = env.run_in(
        "repo",
        &["tools", "repo", "-c", "qwen-code", "--timeout", "20"],
    );
    assert_ne!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(format!("{}{}", run.stdout, run.stderr).contains("qwen mcp approve"));
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn gemini_cli_project_servers_start_only_in_a_trusted_folder() {
    let env = TestEnv::new();
    project_servers(&env, "repo/.gemini/settings.json");
    let run = env.run_in(
        "repo",
        &["--json", "doctor", "-c", "gemini-cli", "--timeout", "20"],
    );
    assert_eq!(result(&run.json(), "repo")["status"], "skipped");
    trust_folder(&env, ".gemini/trustedFolders.json");
    let run = env.run_in(
        "repo",
        &["--json", "doctor", "-c", "gemini-cli", "--timeout", "20"],
    );
    let report = run.json();
    assert_eq!(result(&report, "repo")["status"], "ok", "{report}");
}
