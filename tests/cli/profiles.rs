//! Profiles and `enabled = false` in the manifest (design §9, §10): naming a profile,
//! the tokens each profile's tool definitions cost per client, plan's `enable`/`disable`
//! drift, and `apply --profile` switching the manifest's servers.

use serde_json::{Value, json};

use crate::doctor::fixture;
use crate::env::TestEnv;

const MANIFEST: &str = ".config/mcpctl/mcpctl.toml";

fn manifest(env: &TestEnv, text: &str) {
    env.write(MANIFEST, text.as_bytes());
}

/// A manifest whose servers are the fixture server (measurable) and one never started.
fn measurable(clients: &str) -> String {
    let bin = fixture();
    format!(
        r#"clients = [{clients}]

[servers.old]
command = "{bin}"

[servers.new]
command = "{bin}"
args = ["modern"]

[servers.never]
command = "npx"
args = ["-y", "@example/never-started"]

[profiles.both]
servers = ["old", "new"]

[profiles.frontend]
servers = ["old", "never"]
"#
    )
}

fn profile<'a>(report: &'a Value, name: &str) -> &'a Value {
    report
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("no profile {name} in {report}"))
}

#[test]
fn a_mistyped_profile_is_exit_2_with_the_closest_name() {
    let env = TestEnv::new();
    manifest(&env, &measurable("\"cursor\""));
    for verb in ["plan", "apply", "profiles"] {
        let run = env.run(&[verb, "--profile", "fronted"]).code(2);
        assert!(
            run.stderr.contains("no `[profiles.fronted]`")
                && run.stderr.contains("did you mean `frontend`?"),
            "{verb}: {}",
            run.stderr
        );
    }
    let run = env.run(&["plan", "--profile", "zzz"]).code(2);
    assert!(
        run.stderr.contains("profiles: both, frontend"),
        "{}",
        run.stderr
    );
    assert!(!env.path(".cursor/mcp.json").exists());
}

#[test]
fn a_profile_naming_an_unknown_server_suggests_the_closest() {
    let env = TestEnv::new();
    manifest(
        &env,
        "[servers.github]\ncommand = \"x\"\n[profiles.p]\nservers = [\"githb\"]\n",
    );
    let run = env.run(&["plan"]).code(2);
    assert!(
        run.stderr.contains("mcpctl.toml:4:")
            && run.stderr.contains("profile `p` names `githb`")
            && run.stderr.contains("did you mean `github`?"),
        "{}",
        run.stderr
    );
}

#[test]
fn profiles_show_measured_tokens_per_client_and_unknown_otherwise() {
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", b"{}\n");
    manifest(&env, &measurable("\"cursor\", \"codex\""));
    let report = env.run(&["profiles", "--json"]).ok().json();
    let both = profile(&report, "both");
    assert_eq!(both["servers"], json!(["old", "new"]));
    assert_eq!(
        both["clients"],
        json!([
            {"client": "cursor", "tokens": null, "unknown": ["old", "new"]},
            {"client": "codex", "tokens": null, "unknown": ["old", "new"]},
        ])
    );
    let text = env.run(&["profiles"]).ok().stdout;
    assert!(text.contains("unknown"), "{text}");

    // doctor measures what cursor has; the same servers in codex cost the same.
    env.run(&["apply"]).ok();
    let doctor = env.run(&["doctor", "-c", "cursor", "--json"]).json();
    let tokens = crate::doctor::result(&doctor, "old")["tokens"]
        .as_u64()
        .unwrap();
    assert!(tokens > 10, "{doctor}");
    let report = env.run(&["profiles", "--json"]).ok().json();
    assert_eq!(
        profile(&report, "both")["clients"],
        json!([
            {"client": "cursor", "tokens": 2 * tokens, "unknown": []},
            {"client": "codex", "tokens": 2 * tokens, "unknown": []},
        ])
    );
    assert_eq!(
        profile(&report, "frontend")["clients"][0],
        json!({"client": "cursor", "tokens": null, "unknown": ["never"]})
    );
    let text = env.run(&["profiles"]).ok().stdout;
    assert!(
        text.contains(&format!("cursor  ≈ {} tokens", 2 * tokens)),
        "{text}"
    );
    assert!(text.contains("unknown: `never` not measured yet"), "{text}");
    // plan --profile says the same for the profile it plans.
    let plan = env.run(&["plan", "--profile", "both"]).ok();
    assert!(
        plan.stdout
            .contains(&format!("profile both: cursor ≈ {} tokens", 2 * tokens)),
        "{}",
        plan.stdout
    );
}

#[test]
fn tools_remembers_the_tokens_too() {
    let env = TestEnv::new();
    manifest(&env, &measurable("\"cursor\""));
    env.run(&["apply"]).ok();
    let tools = env
        .run(&["tools", "new", "-c", "cursor", "--json"])
        .ok()
        .json();
    let tokens = tools["tokens"].as_u64().unwrap();
    let cache = env.state("tokens.json");
    let entries = cache["servers"].as_object().unwrap();
    assert_eq!(entries.len(), 1, "{cache}");
    let (key, measured) = entries.iter().next().unwrap();
    assert!(key.starts_with("sha256:"), "{key}");
    assert_eq!(measured["tokens"], tokens);
    assert_eq!(measured["tools"], 2);
    let report = env.run(&["profiles", "--json"]).ok().json();
    assert_eq!(
        profile(&report, "both")["clients"][0],
        json!({"client": "cursor", "tokens": null, "unknown": ["old"]})
    );
}
