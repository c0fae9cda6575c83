//! Profiles and `enabled = false` in the manifest (design §9, §10): naming a profile,
//! the tokens each profile's tool definitions cost per client, plan's `enable`/`disable`
//! drift, and `apply --profile` switching the manifest's servers.

use serde_json::{Value, json};

use crate::doctor::fixture;
use crate::env::TestEnv;

const MANIFEST: &str = crate::env::MANIFEST;

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
#[ignore = "needs cargo build -p fixture-server"]
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
#[ignore = "needs cargo build -p fixture-server"]
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
#[ignore = "needs cargo build -p fixture-server"]
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

const VSCODE: &str = crate::env::VSCODE;
const CODEX: &str = ".codex/config.toml";
const CURSOR: &str = ".cursor/mcp.json";

/// Three servers for VS Code (JSONC with comments, parked), Codex (TOML, `enabled`) and
/// Cursor (parked), with hand-made entries in every file.
const SWITCHED: &str = r#"clients = ["vscode", "codex", "cursor"]

[servers.memory]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-memory"]

[servers.docs]
url = "https://docs.example.com/mcp"

[servers.fetch]
command = "uvx"
args = ["mcp-server-fetch"]
enabled = false

[profiles.writing]
servers = ["docs"]

[profiles.coding]
servers = ["memory", "fetch"]
"#;

fn switched_env() -> TestEnv {
    let env = TestEnv::new();
    env.write(VSCODE, &crate::env::fixture("vscode/mcp.json"));
    env.write(CODEX, &crate::env::fixture("codex/config.toml"));
    env.write(CURSOR, &crate::env::fixture("cursor/mcp.json"));
    manifest(&env, SWITCHED);
    env
}

/// `plan --json [args]` as (client, name, action) triples, sorted.
fn actions(env: &TestEnv, args: &[&str]) -> Vec<(String, String, String)> {
    let mut all = vec!["plan", "--json"];
    all.extend(args);
    let plan = env.run(&all).ok().json();
    let mut out: Vec<_> = plan
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["client"].as_str().unwrap().to_owned(),
                i["name"].as_str().unwrap().to_owned(),
                i["action"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    out.sort();
    out
}

fn triples(rows: &[(&str, &str, &str)]) -> Vec<(String, String, String)> {
    let mut out: Vec<_> = rows
        .iter()
        .map(|(c, n, a)| ((*c).to_owned(), (*n).to_owned(), (*a).to_owned()))
        .collect();
    out.sort();
    out
}

fn files(env: &TestEnv) -> [Vec<u8>; 3] {
    [env.read(VSCODE), env.read(CODEX), env.read(CURSOR)]
}

#[test]
fn enabled_false_is_applied_switched_off_and_not_drift() {
    let env = switched_env();
    env.run(&["apply"]).ok();
    // fetch is `enabled = false` in Codex; VS Code and Cursor have no switch, and off is
    // simply not written there (nothing to park); every hand-made entry is as it was.
    let first = files(&env);
    let vscode = env.read_str(VSCODE);
    assert!(!vscode.contains("mcp-server-fetch"), "{vscode}");
    assert!(vscode.contains("// local playwright") && vscode.contains("\"memory\""));
    let codex = env.read_str(CODEX);
    assert!(
        codex.contains("args = [\"mcp-server-fetch\"]\nenabled = false\n"),
        "{codex}"
    );
    assert!(codex.contains("CONTEXT7_API_KEY = \"ctx7-secret-value\""));
    assert!(!env.read_str(CURSOR).contains("mcp-server-fetch"));
    let synced = triples(&[
        ("vscode", "memory", "ok"),
        ("vscode", "docs", "ok"),
        ("vscode", "fetch", "ok"),
        ("codex", "memory", "ok"),
        ("codex", "docs", "ok"),
        ("codex", "fetch", "ok"),
        ("cursor", "memory", "ok"),
        ("cursor", "docs", "ok"),
        ("cursor", "fetch", "ok"),
    ]);
    assert_eq!(actions(&env, &[]), synced);
    env.run(&["plan", "--check"]).ok();

    // Switched on by hand (or by `enable`): drift `disable`; apply switches it off again.
    let on = codex.replace(
        "args = [\"mcp-server-fetch\"]\nenabled = false\n",
        "args = [\"mcp-server-fetch\"]\n",
    );
    env.write(CODEX, on.as_bytes());
    let plan = actions(&env, &[]);
    assert!(
        plan.contains(&triple("codex", "fetch", "disable")),
        "{plan:?}"
    );
    let run = env.run(&["plan", "--check"]).code(1);
    assert!(run.stdout.contains("disable"), "{}", run.stdout);
    env.run(&["apply"]).ok();
    assert_eq!(env.read_str(CODEX), codex);
    assert_eq!(actions(&env, &[]), synced);

    // The manifest switches it on: `enable` where it is off, `add` where it was never
    // written; then in sync.
    manifest(&env, &SWITCHED.replace("enabled = false\n", ""));
    let plan = actions(&env, &[]);
    assert!(
        plan.contains(&triple("codex", "fetch", "enable")),
        "{plan:?}"
    );
    assert!(plan.contains(&triple("vscode", "fetch", "add")), "{plan:?}");
    assert!(plan.contains(&triple("cursor", "fetch", "add")), "{plan:?}");
    env.run(&["apply"]).ok();
    assert!(env.read_str(CURSOR).contains("mcp-server-fetch"));
    assert!(!env.read_str(CODEX).contains("enabled = false"));
    assert_eq!(actions(&env, &[]), synced);
    // And off again: parked where there is no switch; every file as after the first apply.
    manifest(&env, SWITCHED);
    let plan = actions(&env, &[]);
    for client in ["vscode", "codex", "cursor"] {
        assert!(
            plan.contains(&triple(client, "fetch", "disable")),
            "{plan:?}"
        );
    }
    env.run(&["apply"]).ok();
    assert_eq!(files(&env), first);
    assert_eq!(actions(&env, &[]), synced);
}

fn triple(client: &str, name: &str, action: &str) -> (String, String, String) {
    (client.to_owned(), name.to_owned(), action.to_owned())
}

#[test]
fn apply_profile_switches_the_manifests_servers_and_back_is_byte_identity() {
    let env = switched_env();
    env.run(&["apply", "--profile", "coding"]).ok();
    let coding = files(&env);
    let vscode = env.read_str(VSCODE);
    assert!(vscode.contains("mcp-server-fetch") && vscode.contains("server-memory"));
    assert!(
        !vscode.contains("docs.example.com"),
        "docs is off, never written: {vscode}"
    );
    assert!(vscode.contains("/* pinned: see #1234 */") && vscode.contains("\"github\""));

    // A parked server still counts for its profile, in every client.
    let report = env.run(&["profiles", "--json"]).ok().json();
    let clients: Vec<&str> = profile(&report, "writing")["clients"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["client"].as_str().unwrap())
        .collect();
    assert_eq!(clients, ["vscode", "codex", "cursor"]);
    // plan --profile shows what apply --profile does.
    let plan = actions(&env, &["--profile", "writing"]);
    assert_eq!(
        plan,
        triples(&[
            ("vscode", "memory", "disable"),
            ("vscode", "docs", "add"),
            ("vscode", "fetch", "disable"),
            ("codex", "memory", "disable"),
            ("codex", "docs", "enable"),
            ("codex", "fetch", "disable"),
            ("cursor", "memory", "disable"),
            ("cursor", "docs", "add"),
            ("cursor", "fetch", "disable"),
        ])
    );
    // Its text shows what each switch changes.
    let text = env.run(&["plan", "--profile", "writing"]).ok().stdout;
    assert!(
        text.contains("  v disable   memory  (not in profile `writing`)")
            && text.contains("-enabled = false\n")
            && text.contains("+enabled = false\n")
            && text.contains("+\t\t\"docs\": {"),
        "{text}"
    );
    let journal = env.journal().len();
    env.run(&["apply", "--profile", "writing"]).ok();
    assert_eq!(
        env.journal().len(),
        journal + 1,
        "one journal record per apply"
    );
    let writing = files(&env);
    let codex = env.read_str(CODEX);
    assert!(codex.contains("[mcp_servers.docs]"), "{codex}");
    assert_eq!(codex.matches("enabled = false").count(), 2, "{codex}");
    let cursor = env.read_str(CURSOR);
    assert!(cursor.contains("docs.example.com") && !cursor.contains("server-memory"));
    assert!(cursor.contains("\"postgres\"") && cursor.contains("\"linear\""));
    assert_eq!(
        actions(&env, &["--profile", "writing"])
            .iter()
            .filter(|t| t.2 != "ok")
            .count(),
        0
    );

    // Back: byte for byte what the first switch wrote, in every file.
    env.run(&["apply", "--profile", "coding"]).ok();
    assert_eq!(files(&env), coding);
    // And undo takes the last switch back whole.
    env.run(&["undo"]).ok();
    assert_eq!(files(&env), writing);
}

#[test]
fn the_manifests_profile_is_what_a_plain_apply_uses() {
    let env = switched_env();
    manifest(&env, &format!("profile = \"writing\"\n{SWITCHED}"));
    env.run(&["apply"]).ok();
    let cursor = env.read_str(CURSOR);
    assert!(cursor.contains("docs.example.com") && !cursor.contains("server-memory"));
    // --profile wins over the manifest's.
    let plan = actions(&env, &["--profile", "coding"]);
    assert!(
        plan.contains(&triple("cursor", "memory", "add"))
            && plan.contains(&triple("codex", "memory", "enable"))
            && plan.contains(&triple("cursor", "docs", "disable")),
        "{plan:?}"
    );
}

#[test]
fn apply_profile_stops_before_any_switch_on_a_conflict() {
    let env = switched_env();
    env.run(&["apply", "--profile", "coding"]).ok();
    let before = files(&env);
    let store = env.dir.path().join("state/disabled.json");
    let parked = std::fs::read(&store).unwrap();
    // A hand-made `docs` with other content in Codex: not mcpctl's to change.
    let codex = env.read_str(CODEX).replace(
        "https://docs.example.com/mcp",
        "https://other.example.com/mcp",
    );
    env.write(CODEX, codex.as_bytes());
    let before = [before[0].clone(), codex.into_bytes(), before[2].clone()];
    let run = env.run(&["apply", "--profile", "writing"]).code(2);
    assert!(
        run.stderr.contains("stopped before writing anything"),
        "{}",
        run.stderr
    );
    assert_eq!(files(&env), before);
    assert_eq!(std::fs::read(&store).unwrap(), parked);
}

#[cfg(unix)] // a symlink into /proc (the write fails, even for root)
#[test]
fn a_failed_write_puts_back_every_switch_already_made() {
    let env = switched_env();
    let two = SWITCHED.replace("\"vscode\", \"codex\", \"cursor\"", "\"vscode\", \"codex\"");
    manifest(&env, &two);
    env.run(&["apply", "--profile", "coding"]).ok();
    let before = [env.read(VSCODE), env.read(CODEX)];
    let store = env.dir.path().join("state/disabled.json");
    let parked = std::fs::read(&store).unwrap();
    // Cursor's file is a link into a directory nobody can create: read as missing, and
    // its write fails after VS Code's and Codex's switches were made.
    std::fs::remove_file(env.path(CURSOR)).unwrap();
    std::os::unix::fs::symlink("/proc/mcpctl-no-such-dir/mcp.json", env.path(CURSOR)).unwrap();
    manifest(&env, SWITCHED);
    let run = env.run(&["apply", "--profile", "writing"]).code(2);
    assert!(run.stderr.contains("apply failed"), "{}", run.stderr);
    assert_eq!([env.read(VSCODE), env.read(CODEX)], before);
    assert_eq!(std::fs::read(&store).unwrap(), parked);
}

#[test]
#[cfg(unix)] // Claude Code's projects keyed by Unix paths
fn a_project_manifest_switches_claude_codes_project_servers_by_its_per_project_list() {
    let env = TestEnv::new();
    let project = env.path("app");
    let p = project.display().to_string();
    env.write(
        ".claude.json",
        &crate::env::fixture("claude-code/claude.json"),
    );
    env.write(
        "app/mcpctl.toml",
        br#"clients = ["claude-code"]
scope = "project"

[servers.memory]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-memory"]

[servers.docs]
url = "https://docs.example.com/mcp"

[profiles.a]
servers = ["memory"]

[profiles.b]
servers = ["docs"]
"#,
    );
    let run = |args: &[&str]| {
        let mut all = vec!["--project", p.as_str()];
        all.extend(args);
        env.run(&all)
    };
    run(&["apply", "--profile", "a"]).ok();
    let a = [env.read(".claude.json"), env.read("app/.mcp.json")];
    assert_eq!(switched_off(&a[0], &p), ["docs"]);
    let shared = crate::env::jsonc(&a[1]);
    assert!(
        shared["mcpServers"]["docs"].is_object(),
        "the entry stays: {shared}"
    );
    run(&["apply", "--profile", "b"]).ok();
    assert_eq!(switched_off(&env.read(".claude.json"), &p), ["memory"]);
    run(&["plan", "--profile", "b", "--check"]).ok();
    run(&["apply", "--profile", "a"]).ok();
    assert_eq!([env.read(".claude.json"), env.read("app/.mcp.json")], a);
}

/// The names a project's record in `~/.claude.json` switches off (whichever of Claude
/// Code's two lists the switch uses).
#[cfg(unix)] // only Unix-only tests use it
fn switched_off(claude_json: &[u8], project: &str) -> Vec<String> {
    let user = crate::env::jsonc(claude_json);
    ["disabledMcpServers", "disabledMcpjsonServers"]
        .iter()
        .filter_map(|k| user["projects"][project][*k].as_array())
        .flatten()
        .map(|n| n.as_str().unwrap().to_owned())
        .collect()
}

#[test]
#[cfg(unix)] // entries spell npx unwrapped, which Windows wants as `cmd /c npx`
fn import_keeps_servers_that_are_off_or_parked_switched_off() {
    let env = TestEnv::new();
    env.write(
        ".codeium/windsurf/mcp_config.json",
        b"{\n  \"mcpServers\": {\n    \"memory\": {\"command\": \"npx\", \"args\": [\"-y\", \"m\"], \"disabled\": true},\n    \"mixed\": {\"command\": \"uvx\", \"args\": [\"x\"]}\n  }\n}\n",
    );
    env.write(
        CODEX,
        b"[mcp_servers.memory]\ncommand = \"npx\"\nargs = [\"-y\", \"m\"]\nenabled = false\n\n[mcp_servers.mixed]\ncommand = \"uvx\"\nargs = [\"x\"]\nenabled = false\n",
    );
    env.write(
        CURSOR,
        b"{\"mcpServers\": {\"gone\": {\"command\": \"node\", \"args\": [\"g.js\"]}}}\n",
    );
    env.run(&["disable", "gone", "-c", "cursor"]).ok();
    let before = [
        env.read(".codeium/windsurf/mcp_config.json"),
        env.read(CODEX),
        env.read(CURSOR),
    ];
    let run = env
        .run(&[
            "import",
            "-c",
            "windsurf,codex,cursor",
            "--manifest",
            MANIFEST,
        ])
        .ok();
    assert!(
        run.stderr
            .contains("`mixed` is off in codex but on in windsurf"),
        "{}",
        run.stderr
    );
    let text = env.read_str(MANIFEST);
    let table = |name: &str| {
        let start = text.find(&format!("[servers.{name}]")).unwrap();
        let end = text[start + 1..]
            .find("\n[")
            .map_or(text.len(), |e| start + 1 + e);
        text[start..end].to_owned()
    };
    assert!(table("memory").contains("enabled = false"), "{text}");
    assert!(table("gone").contains("enabled = false"), "{text}");
    assert!(!table("mixed").contains("enabled"), "{text}");
    // Nothing to do but the one visible switch: `mixed` goes on in codex.
    let plan = actions(&env, &[]);
    let pending: Vec<_> = plan.iter().filter(|t| t.2 != "ok").collect();
    assert_eq!(pending, [&triple("codex", "mixed", "enable")], "{plan:?}");
    assert_eq!(
        [
            env.read(".codeium/windsurf/mcp_config.json"),
            env.read(CODEX),
            env.read(CURSOR)
        ],
        before
    );
}

#[test]
fn a_parked_server_dropped_from_the_manifest_is_removed_from_the_parked_record() {
    let env = switched_env();
    env.run(&["apply", "--profile", "writing"]).ok();
    env.run(&["apply", "--profile", "coding"]).ok();
    // docs is parked in VS Code and Cursor, `enabled = false` in Codex.
    let parked = |env: &TestEnv| {
        env.state("disabled.json")["parked"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["entry"]["name"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(parked(&env), ["docs", "docs"]);
    manifest(
        &env,
        &SWITCHED
            .replace(
                "[servers.docs]\nurl = \"https://docs.example.com/mcp\"\n\n",
                "",
            )
            .replace("servers = [\"docs\"]", "servers = []"),
    );
    let plan = actions(&env, &["--profile", "coding"]);
    for client in ["vscode", "codex", "cursor"] {
        assert!(plan.contains(&triple(client, "docs", "remove")), "{plan:?}");
    }
    env.run(&["apply", "--profile", "coding"]).ok();
    assert!(parked(&env).is_empty());
    assert!(!env.read_str(CODEX).contains("docs.example.com"));
    let ledger = env.state("ledger.json");
    assert!(
        !ledger.to_string().contains("\"docs\""),
        "records of docs are forgotten: {ledger}"
    );
    assert!(
        actions(&env, &["--profile", "coding"])
            .iter()
            .all(|t| t.2 == "ok")
    );
}

/// A client table row for a YAML file with no switch of its own (entries are parked).
#[cfg(unix)] // only Unix-only tests use it
const YAML_ROW: &str = "[[client]]\nid = \"yaml-agent\"\nname = \"YAML Agent\"\nformat = \"yaml\"\nservers_key = [\"mcp_servers\"]\ndialect = \"standard\"\npaths.linux = \"{home}/.yaml-agent/config.yaml\"\nfields = { cwd_key = \"\" }\nsource = \"local\"\n";
#[cfg(unix)] // only Unix-only tests use it
const YAML_AGENT: &str = ".yaml-agent/config.yaml";

/// Five servers in a known order, in every file as the manifest spells them; profile
/// `all` is the files as they are.
#[cfg(unix)] // only Unix-only tests use it
const CYCLED: &str = r#"clients = ["cursor", "vscode", "codex", "yaml-agent"]

[servers.alpha]
command = "alpha-mcp"

[servers.bravo]
command = "bravo-mcp"
args = ["--fast"]

[servers.charlie]
command = "charlie-mcp"

[servers.delta]
command = "delta-mcp"
args = ["--slow"]

[servers.echo]
command = "echo-mcp"

[profiles.all]
servers = ["alpha", "bravo", "charlie", "delta", "echo"]

[profiles.ends]
servers = ["alpha", "echo"]

[profiles.odd]
servers = ["bravo", "delta"]
"#;

#[cfg(unix)] // only Unix-only tests use it
fn cycled_env() -> (TestEnv, String) {
    let env = TestEnv::new();
    env.write(
        CURSOR,
        b"{\r\n  \"theme\": \"dark\",\r\n  \"mcpServers\": {\r\n    \"alpha\": {\r\n      \"command\": \"alpha-mcp\"\r\n    },\r\n    \"bravo\": { \"command\": \"bravo-mcp\", \"args\": [\"--fast\"] },\r\n    \"charlie\": {\r\n      \"command\": \"charlie-mcp\"\r\n    },\r\n    \"delta\": { \"command\": \"delta-mcp\", \"args\": [\"--slow\"] },\r\n    \"echo\": {\r\n      \"command\": \"echo-mcp\"\r\n    }\r\n  },\r\n  \"telemetry\": false\r\n}\r\n",
    );
    env.write(
        VSCODE,
        b"{\n\t// my servers, in my order\n\t\"servers\": {\n\t\t// first\n\t\t\"alpha\": {\"type\": \"stdio\", \"command\": \"alpha-mcp\"},\n\t\t/* second */\n\t\t\"bravo\": {\"type\": \"stdio\", \"command\": \"bravo-mcp\", \"args\": [\"--fast\"]},\n\t\t\"charlie\": {\"type\": \"stdio\", \"command\": \"charlie-mcp\"}, // third\n\t\t\"delta\": {\"type\": \"stdio\", \"command\": \"delta-mcp\", \"args\": [\"--slow\"]},\n\t\t\"echo\": {\"type\": \"stdio\", \"command\": \"echo-mcp\"},\n\t},\n\t\"chat.mcp.autostart\": \"never\"\n}\n",
    );
    env.write(
        CODEX,
        b"model = \"o3\" # the model\n\n# servers, in my order\n[mcp_servers.alpha]\ncommand = \"alpha-mcp\"\n\n[mcp_servers.bravo]\ncommand = \"bravo-mcp\"\nargs = [\"--fast\"]\n\n[mcp_servers.charlie]\ncommand = \"charlie-mcp\"\n\n[mcp_servers.delta]\ncommand = \"delta-mcp\"\nargs = [\"--slow\"]\n\n[mcp_servers.echo]\ncommand = \"echo-mcp\"\n\n[history]\npersistence = \"none\"\n",
    );
    env.write(
        YAML_AGENT,
        b"# my agent\nmodel: big\nmcp_servers:\n  alpha:\n    command: alpha-mcp\n  # bravo is fast\n  bravo:\n    command: bravo-mcp\n    args: [\"--fast\"]\n  charlie:\n    command: charlie-mcp\n  delta:\n    command: delta-mcp\n    args:\n      - --slow\n  echo:\n    command: echo-mcp\ntheme: dark\n",
    );
    let table = env.write("extra.toml", YAML_ROW.as_bytes());
    manifest(&env, CYCLED);
    (env, table.display().to_string())
}

#[cfg(unix)] // only Unix-only tests use it
fn cycled_files(env: &TestEnv) -> [Vec<u8>; 4] {
    [
        env.read(CURSOR),
        env.read(VSCODE),
        env.read(CODEX),
        env.read(YAML_AGENT),
    ]
}

/// Show the four files as text, for a failed comparison.
#[cfg(unix)] // only Unix-only tests use it
fn shown(files: &[Vec<u8>; 4]) -> String {
    files
        .iter()
        .map(|f| String::from_utf8_lossy(f).into_owned())
        .collect::<Vec<_>>()
        .join("\n-----\n")
}

#[test]
#[cfg(unix)] // its own client row has only a Linux path
fn cycling_three_profiles_and_back_gives_every_file_its_bytes_and_order_back() {
    let (env, table) = cycled_env();
    let run = |args: &[&str]| {
        let mut all = vec!["--clients", table.as_str()];
        all.extend_from_slice(args);
        env.run(&all).ok()
    };
    let original = cycled_files(&env);
    // `all` is what the files hold: nothing to write.
    run(&["apply", "--profile", "all"]);
    assert_eq!(
        cycled_files(&env),
        original,
        "{}",
        shown(&cycled_files(&env))
    );
    for cycle in [["ends", "odd", "all"], ["odd", "ends", "all"]] {
        for profile in cycle {
            run(&["apply", "--profile", profile]);
        }
        let now = cycled_files(&env);
        assert!(
            now == original,
            "after {cycle:?}:\n{}\n=====\nwas:\n{}",
            shown(&now),
            shown(&original)
        );
    }
    // One server off and on again, in each client: the original bytes.
    for client in ["cursor", "vscode", "codex", "yaml-agent"] {
        run(&["disable", "charlie", "-c", client]);
        run(&["enable", "charlie", "-c", client]);
        assert_eq!(cycled_files(&env), original, "{client}");
    }
    // Two neighbours off, and on in the other order.
    for client in ["cursor", "vscode", "yaml-agent"] {
        run(&["disable", "bravo", "-c", client]);
        run(&["disable", "charlie", "-c", client]);
        run(&["enable", "bravo", "-c", client]);
        run(&["enable", "charlie", "-c", client]);
        let now = cycled_files(&env);
        assert!(now == original, "{client}:\n{}", shown(&now));
    }
}

/// Issue 39 G6: an apply that failed and put back every file it wrote leaves nothing to
/// undo: `undo` takes back the command before it, not that no-op.
#[cfg(unix)]
#[test]
fn a_failed_apply_that_put_everything_back_is_not_what_undo_takes_back() {
    let env = switched_env();
    let original = [env.read(VSCODE), env.read(CODEX)];
    let two = SWITCHED.replace("\"vscode\", \"codex\", \"cursor\"", "\"vscode\", \"codex\"");
    manifest(&env, &two);
    env.run(&["apply", "--profile", "coding"]).ok();
    let journal = env.journal().len();
    std::fs::remove_file(env.path(CURSOR)).unwrap();
    std::os::unix::fs::symlink("/proc/mcpctl-no-such-dir/mcp.json", env.path(CURSOR)).unwrap();
    manifest(&env, SWITCHED);
    env.run(&["apply", "--profile", "writing"]).code(2);
    assert_eq!(env.journal().len(), journal, "{:#?}", env.journal());
    let run = env.run(&["undo"]).ok();
    assert!(run.stderr.contains("undid `apply`"), "{}", run.stderr);
    assert_eq!([env.read(VSCODE), env.read(CODEX)], original);
}

/// `doctor -c codex` measures as Codex (its declared capabilities), and tokens.json keeps
/// that measurement apart from one made with mcpctl's own: `profiles` counts it for Codex
/// (the client's own measurement first, else mcpctl's) rather than calling it unknown.
#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn profiles_count_what_doctor_measured_as_the_client() {
    let env = TestEnv::new();
    manifest(&env, &measurable("\"codex\""));
    env.run(&["apply"]).ok();
    let doctor = env.run(&["doctor", "-c", "codex", "--json"]).json();
    let tokens = crate::doctor::result(&doctor, "old")["tokens"]
        .as_u64()
        .unwrap();
    let report = env.run(&["profiles", "--json"]).ok().json();
    assert_eq!(
        profile(&report, "both")["clients"],
        json!([{"client": "codex", "tokens": 2 * tokens, "unknown": []}]),
        "{report}"
    );
}
