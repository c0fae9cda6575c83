//! Issue 20, item 5: traps a new user walks into around secrets and the registry.

use crate::env::{TestEnv, jsonc};
use crate::registry_server::RegistryServer;

/// `MCPCTL_REGISTRY` exported (as the README suggests) is no registry flag typed: plain
/// adds keep working.
#[test]
fn an_exported_registry_leaves_plain_adds_alone() {
    let mut env = TestEnv::new();
    env.extra_env.push((
        "MCPCTL_REGISTRY".to_owned(),
        "https://registry.example.com".to_owned(),
    ));
    env.run(&["add", "one", "-c", "cursor", "--", "node", "server.js"])
        .ok();
    env.run(&[
        "add",
        "two",
        "-c",
        "cursor",
        "--url",
        "https://mcp.example.com/mcp",
    ])
    .ok();
    env.run(&[
        "add",
        "three",
        "-c",
        "cursor",
        "--from-json",
        r#"{"command":"uvx","args":["x"]}"#,
    ])
    .ok();
    let servers = &jsonc(&env.read(".cursor/mcp.json"))["mcpServers"];
    assert!(
        servers["one"].is_object() && servers["two"].is_object() && servers["three"].is_object()
    );
    // Typed, it still means the registry.
    let run = env
        .run(&[
            "add",
            "four",
            "-c",
            "cursor",
            "--registry",
            "https://r.example.com",
            "--",
            "x",
        ])
        .code(2);
    assert!(run.stderr.contains("--registry"), "{}", run.stderr);
}

/// A literal token given for a registry server's header is never written, and mcpctl
/// does not claim "secrets are not written" while writing one.
#[test]
fn a_literal_bearer_token_for_a_registry_install_is_not_written() {
    let server = RegistryServer::start();
    let mut env = TestEnv::new();
    env.extra_env
        .push(("MCPCTL_REGISTRY".to_owned(), server.url.clone()));
    server.publish_sample("airtable.remote-header.item.json");
    server.publish_sample("linear.two-remotes.item.json");
    server.publish_sample("firecrawl.npm-and-remote.item.json");
    for name in ["com.airtable/mcp", "app.linear/linear", "dev.firecrawl/mcp"] {
        for header in [
            "Authorization=Bearer sk-proj-LiteralToken0123456789abcdef",
            "Authorization: Bearer sk-proj-LiteralToken0123456789abcdef",
        ] {
            let run = env.run(&[
                "add",
                name,
                "-c",
                "cursor",
                "--remote",
                "--no-input",
                "--header",
                header,
            ]);
            let written = std::fs::read_to_string(env.path(".cursor/mcp.json")).unwrap_or_default();
            assert!(
                !written.contains("LiteralToken"),
                "{name} {header}: wrote the token:\n{written}"
            );
            if run.code == 0 {
                assert!(written.contains("${env:"), "{name}: {written}");
            } else {
                assert!(
                    !run.stderr.contains("secrets are not written"),
                    "{name}: {}",
                    run.stderr
                );
            }
        }
    }
}

/// Codex expands no `${VAR}`: a reference to a variable of the same name becomes its
/// pass-through field; any other reference is refused instead of written literally.
#[test]
fn codex_gets_its_pass_through_field_or_a_refusal() {
    let env = TestEnv::new();
    env.write(".codex/config.toml", b"model = \"gpt-5\"\n");
    env.run(&[
        "add",
        "same",
        "-c",
        "codex",
        "-e",
        "TOKEN=${TOKEN}",
        "--",
        "srv",
    ])
    .ok();
    let toml = env.read_str(".codex/config.toml");
    assert!(toml.contains("env_vars = [\"TOKEN\"]"), "{toml}");
    let run = env
        .run(&["add", "other", "-c", "codex", "-e", "X=${Y}", "--", "srv"])
        .code(2);
    let toml = env.read_str(".codex/config.toml");
    assert!(
        !toml.contains("${Y}") && !toml.contains("[mcp_servers.other]"),
        "{toml}"
    );
    assert!(
        format!("{}{}", run.stdout, run.stderr).contains("env_vars"),
        "{}{}",
        run.stdout,
        run.stderr
    );
    // And `plan --check` does not call such an entry in sync.
    let manifest = env.write(
        "m.toml",
        b"clients = [\"codex\"]\n[servers.other]\ncommand = \"srv\"\nenv = { X = \"${Y}\" }\n",
    );
    let run = env.run(&["plan", "--check", "--manifest", manifest.to_str().unwrap()]);
    assert_ne!(run.code, 0, "{}{}", run.stdout, run.stderr);
}
