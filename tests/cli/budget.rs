//! `mcpctl budget` (issue 41): what each client's servers cost its context, per tool,
//! through each entry's tool filter and each client's deferral rule, measured from real
//! servers (server-memory from `.ci/peers.sh`, the fixture server); and `--max N`, the
//! smallest cut through the client's own tool filter or switch, kept tools honoured,
//! idempotent, and taken back byte for byte by one `undo`.

use serde_json::{Value, json};

use crate::doctor::fixture;
use crate::env::TestEnv;

const CODEX: &str = ".codex/config.toml";
const GEMINI: &str = ".gemini/settings.json";
const CURSOR: &str = ".cursor/mcp.json";
const CLAUDE: &str = ".claude.json";

/// The real memory server's script (9 tools); fails the test when it is not installed.
fn memory_script() -> String {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(".cache")
        .join("peers")
        .join("npm")
        .join("node_modules")
        .join("@modelcontextprotocol")
        .join("server-memory")
        .join("dist")
        .join("index.js");
    if !script.is_file() {
        crate::peer::missing("server-memory is not installed (run .ci/peers.sh)");
    }
    script.display().to_string()
}

/// TOML string of a path (backslashes escaped).
fn toml_str(s: &str) -> String {
    toml_edit::value(s).to_string().trim().to_owned()
}

fn codex_config(extra_memory: &str) -> String {
    format!(
        "[mcp_servers.memory]\ncommand = \"node\"\nargs = [{}]\n{extra_memory}\n[mcp_servers.fixture]\ncommand = {}\n",
        toml_str(&memory_script()),
        toml_str(fixture())
    )
}

fn json_servers(memory: Value, fixture_extra: Value) -> Value {
    let mut fx = json!({"command": fixture()});
    if let (Some(fx), Some(extra)) = (fx.as_object_mut(), fixture_extra.as_object()) {
        fx.extend(extra.clone());
    }
    let mut mem = json!({"command": "node", "args": [memory_script()]});
    if let (Some(mem), Some(extra)) = (mem.as_object_mut(), memory.as_object()) {
        mem.extend(extra.clone());
    }
    json!({"mcpServers": {"memory": mem, "fixture": fx}})
}

fn write_json(env: &TestEnv, rel: &str, value: &Value) {
    env.write(rel, serde_json::to_string_pretty(value).unwrap().as_bytes());
}

fn client<'a>(report: &'a Value, id: &str) -> &'a Value {
    report["clients"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["client"] == id)
        .unwrap_or_else(|| panic!("no client {id} in {report}"))
}

fn server<'a>(client: &'a Value, name: &str) -> &'a Value {
    client["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no server {name} in {client}"))
}

/// What `budget` counts for `id`, run in the folder `dir` (a project, or elsewhere).
fn tokens_in(env: &TestEnv, dir: &str, id: &str) -> u64 {
    let report = env.run_in(dir, &["budget", "-c", id, "--json"]).ok().json();
    n(&client(&report, id)["tokens"])
}

fn n(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a number: {v}"))
}

fn tools_of(server: &Value) -> Vec<(String, u64)> {
    server["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["name"].as_str().unwrap().to_owned(), n(&t["tokens"])))
        .collect()
}

#[test]
#[ignore = "needs .ci/peers.sh and cargo build -p fixture-server"]
fn budget_counts_each_tool_as_each_client_receives_it() {
    let env = TestEnv::new();
    env.write(
        CODEX,
        codex_config("disabled_tools = [\"read_graph\"]\n").as_bytes(),
    );
    write_json(
        &env,
        CLAUDE,
        &json_servers(json!({"type": "stdio"}), json!({"alwaysLoad": true})),
    );
    // Nothing measured yet: unknown, never a silent undercount.
    let report = env
        .run(&["budget", "-c", "codex,claude-code", "--json"])
        .ok()
        .json();
    assert_eq!(client(&report, "codex")["tokens"], Value::Null, "{report}");
    assert_eq!(
        client(&report, "codex")["unknown"],
        json!(["fixture", "memory"])
    );

    let report = env
        .run(&["budget", "--measure", "-c", "codex,claude-code", "--json"])
        .ok()
        .json();
    let codex = client(&report, "codex");
    let memory = server(codex, "memory");
    let tools = tools_of(memory);
    // The entry's disabled_tools keeps read_graph from Codex: 8 of the server's 9.
    assert_eq!(tools.len(), 8, "{memory}");
    assert_eq!(memory["filtered"], json!(["read_graph"]));
    assert!(!tools.iter().any(|(t, _)| t == "read_graph"));
    let memory_tokens = n(&memory["tokens"]);
    assert_eq!(memory_tokens, tools.iter().map(|(_, t)| t).sum::<u64>());
    assert!(memory_tokens < n(&memory["full"]), "{memory}");
    let fixture_tokens = n(&server(codex, "fixture")["tokens"]);
    assert_eq!(n(&codex["tokens"]), memory_tokens + fixture_tokens);
    // Costliest first: servers and tools.
    assert_eq!(codex["servers"][0]["name"], "memory");
    let costliest: Vec<u64> = codex["costliest"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| n(&c["tokens"]))
        .collect();
    assert_eq!(costliest.len(), 5);
    assert!(costliest.windows(2).all(|w| w[0] >= w[1]), "{costliest:?}");

    // Claude Code defers MCP tools behind tool search: a deferred tool costs its listed
    // name; `alwaysLoad: true` loads the fixture's in full. The rule and its source show.
    let claude = client(&report, "claude-code");
    assert_eq!(claude["deferral"]["active"], true, "{claude}");
    assert!(
        claude["deferral"]["source"]
            .as_str()
            .unwrap()
            .contains("claude 2.1.332"),
        "{claude}"
    );
    let deferred = server(claude, "memory");
    assert_eq!(deferred["deferred"], true);
    for (tool, tokens) in tools_of(deferred) {
        let listed = format!("mcp__memory__{tool}");
        assert_eq!(tokens as usize, listed.len().div_ceil(4), "{tool}");
    }
    let loaded = server(claude, "fixture");
    assert_eq!(loaded["deferred"], false);
    assert_eq!(n(&loaded["tokens"]), fixture_tokens);

    // ENABLE_TOOL_SEARCH=false: every definition in full.
    let mut off = env.command(&["budget", "-c", "claude-code", "--json"]);
    off.env("ENABLE_TOOL_SEARCH", "false");
    let report = crate::env::Run::of(off).ok().json();
    let claude = client(&report, "claude-code");
    assert_eq!(claude["deferral"]["active"], false, "{claude}");
    assert_eq!(
        n(&server(claude, "memory")["tokens"]),
        n(&server(claude, "memory")["full"])
    );

    // The human table: sorted by cost, the costliest tools named.
    let text = env.run(&["budget", "-c", "codex"]).ok().stdout;
    assert!(text.contains("codex ≈ "), "{text}");
    assert!(text.contains("1 filtered out"), "{text}");
    assert!(text.contains("costliest: memory/"), "{text}");
}

/// The tool names a cut denies, in order.
fn denied(report: &Value, id: &str) -> Vec<String> {
    report["cuts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["client"] == id)
        .unwrap_or_else(|| panic!("no cut for {id} in {report}"))["changes"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["tools"].as_array().cloned().unwrap_or_default())
        .map(|t| t["tool"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
#[ignore = "needs .ci/peers.sh and cargo build -p fixture-server"]
fn a_cut_denies_the_costliest_tools_through_codex_and_gemini_filters() {
    let env = TestEnv::new();
    env.write(CODEX, codex_config("").as_bytes());
    write_json(&env, GEMINI, &json_servers(json!({}), json!({})));
    // Gemini CLI starts no server in a folder it does not trust: trust the project (HOME).
    let home = env.home().display().to_string();
    write_json(
        &env,
        ".gemini/trustedFolders.json",
        &json!({ home: "TRUST_FOLDER" }),
    );
    let report = env
        .run(&["budget", "--measure", "-c", "codex,gemini", "--json"])
        .ok()
        .json();
    let codex = client(&report, "codex");
    let total = n(&codex["tokens"]);
    let mut memory = tools_of(server(codex, "memory"));
    memory.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    // Keep the costliest tool; the cut must take the next ones, costliest first.
    let kept = memory[0].0.clone();
    let max = total - memory[1].1 - memory[2].1 + 1;
    let keep = format!("memory/{kept}");
    let max_arg = max.to_string();
    let before = (env.read(CODEX), env.read(GEMINI));
    let args = [
        "budget",
        "--max",
        &max_arg,
        "-c",
        "codex,gemini",
        "--keep",
        &keep,
    ];

    let shown = env.run(&[&args[..], &["--json"]].concat()).ok().json();
    let want = vec![memory[1].0.clone(), memory[2].0.clone()];
    assert_eq!(denied(&shown, "codex"), want, "{shown}");
    assert_eq!(denied(&shown, "gemini-cli"), want, "{shown}");
    assert_eq!((env.read(CODEX), env.read(GEMINI)), before, "a plan wrote");
    let text = env.run(&args).ok().stdout;
    assert!(
        text.contains(&format!("deny `{}` (", memory[1].0))
            && text.contains("— memory has 9 tools, 1 kept"),
        "{text}"
    );
    assert!(text.contains("+disabled_tools = ["), "{text}");
    assert!(text.contains("\"excludeTools\""), "{text}");

    env.run(&[&args[..], &["--apply"]].concat()).ok();
    let codex_file = env.read_str(CODEX);
    assert!(
        codex_file.contains(&format!(
            "disabled_tools = [\"{}\", \"{}\"]",
            memory[1].0, memory[2].0
        )),
        "{codex_file}"
    );
    let gemini = crate::env::jsonc(&env.read(GEMINI));
    assert_eq!(gemini["mcpServers"]["memory"]["excludeTools"], json!(want));
    let after = env
        .run(&["budget", "-c", "codex,gemini", "--json"])
        .ok()
        .json();
    for id in ["codex", "gemini-cli"] {
        let c = client(&after, id);
        assert!(n(&c["tokens"]) <= max, "{c}");
        assert!(
            tools_of(server(c, "memory"))
                .iter()
                .any(|(t, _)| *t == kept),
            "{c}"
        );
    }

    // The same cut again changes nothing.
    let applied = (env.read(CODEX), env.read(GEMINI));
    let again = env
        .run(&[&args[..], &["--apply", "--json"]].concat())
        .ok()
        .json();
    assert_eq!(denied(&again, "codex"), Vec::<String>::new(), "{again}");
    assert_eq!((env.read(CODEX), env.read(GEMINI)), applied);

    // One undo takes the whole cut back, byte for byte.
    env.run(&["undo"]).ok();
    assert_eq!((env.read(CODEX), env.read(GEMINI)), before);
}

#[test]
#[ignore = "needs .ci/peers.sh and cargo build -p fixture-server"]
fn a_client_without_a_filter_gets_whole_servers_switched_off() {
    let env = TestEnv::new();
    write_json(&env, CURSOR, &json_servers(json!({}), json!({})));
    let report = env
        .run(&["budget", "--measure", "-c", "cursor", "--json"])
        .ok()
        .json();
    let cursor = client(&report, "cursor");
    let fixture_tokens = n(&server(cursor, "fixture")["tokens"]);
    let max = (fixture_tokens + 1).to_string();
    let before = env.read(CURSOR);

    // memory kept: nothing else can get it under, and it says so (exit 1), writing nothing.
    let run = env
        .run(&[
            "budget", "--max", &max, "-c", "cursor", "--keep", "memory", "--apply",
        ])
        .code(1);
    assert!(run.stdout.contains("cannot get under"), "{}", run.stdout);
    assert_eq!(env.read(CURSOR), before);

    let run = env
        .run(&["budget", "--max", &max, "-c", "cursor", "--apply"])
        .ok();
    assert!(
        run.stdout.contains("switch off `memory` (")
            && run
                .stdout
                .contains("the client has no per-server tool filter"),
        "{}",
        run.stdout
    );
    let file = crate::env::jsonc(&env.read(CURSOR));
    assert!(file["mcpServers"].get("memory").is_none(), "{file}");
    assert!(file["mcpServers"].get("fixture").is_some(), "{file}");
    let after = env.run(&["budget", "-c", "cursor", "--json"]).ok().json();
    assert_eq!(n(&client(&after, "cursor")["tokens"]), fixture_tokens);
    let again = env
        .run(&["budget", "--max", &max, "-c", "cursor", "--apply"])
        .ok();
    assert!(again.stdout.contains("nothing to cut"), "{}", again.stdout);

    env.run(&["undo"]).ok();
    assert_eq!(env.read(CURSOR), before);
}

/// The manifest's servers for codex: the memory server and the fixture, with `budget`.
fn budget_manifest(budget: &str) -> String {
    format!(
        "clients = [\"codex\"]\n\n[servers.memory]\ncommand = \"node\"\nargs = [{}]\n\n[servers.fixture]\ncommand = {}\n{budget}",
        toml_str(&memory_script()),
        toml_str(fixture())
    )
}

/// A user's manifest trims the user's files wherever `apply` runs: run inside a project
/// Codex trusts, its budget wrote the cut into that repository's `.codex/config.toml`
/// (a file the team commits), so what the user's clients load depended on the folder
/// `apply` ran in and the next `apply` elsewhere cut again. Only a manifest whose servers
/// go to project files (`scope = "project"`) trims in the project.
#[test]
#[ignore = "needs .ci/peers.sh and cargo build -p fixture-server"]
fn a_user_manifest_budget_trims_the_user_file_even_inside_a_trusted_project() {
    let env = TestEnv::new();
    let manifest = crate::env::MANIFEST;
    env.write(manifest, budget_manifest("").as_bytes());
    env.run(&["apply"]).ok();
    let proj = env.path("proj").display().to_string();
    let trusted = format!(
        "{}\n[projects.{proj:?}]\ntrust_level = \"trusted\"\n",
        env.read_str(CODEX)
    );
    env.write(CODEX, trusted.as_bytes());
    env.write("proj/.codex/config.toml", b"# the team's\nmodel = \"o5\"\n");
    let project_before = env.read("proj/.codex/config.toml");
    let report = env
        .run_in("proj", &["budget", "--measure", "-c", "codex", "--json"])
        .ok()
        .json();
    let codex = client(&report, "codex");
    let total = n(&codex["tokens"]);
    let mut memory = tools_of(server(codex, "memory"));
    memory.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let max = total - memory[0].1 + 1;
    env.write(
        manifest,
        budget_manifest(&format!("\n[budget]\ncodex = {max}\n")).as_bytes(),
    );
    env.run_in("proj", &["apply"]).ok();
    assert_eq!(
        env.read("proj/.codex/config.toml"),
        project_before,
        "a user manifest wrote the project's file"
    );
    let file = env.read_str(CODEX);
    assert!(
        file.contains(&format!("disabled_tools = [\"{}\"]", memory[0].0)),
        "{file}"
    );
    // In sync from anywhere: the same cut counts in the project and outside it.
    env.run_in("proj", &["plan", "--check"]).ok();
    env.run_in("other", &["plan", "--check"]).ok();
}

#[test]
#[ignore = "needs .ci/peers.sh and cargo build -p fixture-server"]
fn a_manifest_budget_fails_plan_check_and_apply_trims_it() {
    let env = TestEnv::new();
    let manifest = crate::env::MANIFEST;
    env.write(manifest, budget_manifest("").as_bytes());
    env.run(&["apply"]).ok();
    let report = env
        .run(&["budget", "--measure", "-c", "codex", "--json"])
        .ok()
        .json();
    let codex = client(&report, "codex");
    let total = n(&codex["tokens"]);
    let mut memory = tools_of(server(codex, "memory"));
    memory.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let max = total - memory[1].1 + 1;
    env.write(
        manifest,
        budget_manifest(&format!(
            "\n[budget]\ndefault = 100000\nkeep = [\"memory/{}\"]\ncodex = {max}\n",
            memory[0].0
        ))
        .as_bytes(),
    );
    let before = env.read(CODEX);

    // Over its budget as the files are: plan --check fails, naming the cut apply makes.
    let check = env.run(&["plan", "--check"]).code(1);
    assert!(
        check.stdout.contains(&format!(
            "budget codex: {} tokens, over",
            crate_thousands(total)
        )) && check.stdout.contains(&format!("deny `{}` (", memory[1].0)),
        "{}",
        check.stdout
    );
    assert_eq!(env.read(CODEX), before, "plan wrote");

    env.run(&["apply"]).ok();
    let file = env.read_str(CODEX);
    assert!(
        file.contains(&format!("disabled_tools = [\"{}\"]", memory[1].0)),
        "{file}"
    );
    let check = env.run(&["plan", "--check"]).ok();
    assert!(check.stdout.contains("within"), "{}", check.stdout);
    // Applying again changes nothing.
    env.run(&["apply"]).ok();
    assert_eq!(env.read_str(CODEX), file);

    env.run(&["undo"]).ok();
    assert_eq!(env.read(CODEX), before);

    // A budget naming an unknown client is the manifest's error, at its line.
    env.write(
        manifest,
        budget_manifest("\n[budget]\ncodx = 5\n").as_bytes(),
    );
    let run = env.run(&["plan"]).code(2);
    assert!(
        run.stderr
            .contains("mcpctl.toml:11:1: unknown client `codx`"),
        "{}",
        run.stderr
    );
}

fn crate_thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// CI: no state, nothing started, no network: `plan --check` counts from the committed
/// `mcpctl.lock` beside the manifest and fails on a client over its budget.
#[test]
#[ignore = "needs .ci/peers.sh and cargo build -p fixture-server"]
fn plan_check_counts_from_the_lock_without_starting_anything() {
    let env = TestEnv::new();
    let manifest = crate::env::MANIFEST;
    env.write(manifest, budget_manifest("").as_bytes());
    env.run(&["apply"]).ok();
    env.run(&["lock"]).ok();
    let lock_path = env.path(manifest).with_file_name("mcpctl.lock");
    assert!(lock_path.is_file(), "no lock beside the manifest");
    let measured = env.run(&["budget", "-c", "codex", "--json"]).ok().json();
    let total = n(&client(&measured, "codex")["tokens"]);
    // A fresh checkout: no state at all (nothing measured here).
    let state = env.home().parent().unwrap().join("state");
    std::fs::remove_dir_all(&state).unwrap();
    env.write(
        manifest,
        budget_manifest(&format!("\n[budget]\ncodex = {}\n", total - 1)).as_bytes(),
    );
    let check = env.run(&["plan", "--check"]).code(1);
    assert!(
        check.stdout.contains(&format!(
            "budget codex: {} tokens, over {} by 1",
            crate_thousands(total),
            crate_thousands(total - 1)
        )),
        "{}",
        check.stdout
    );
    // The lock's numbers, not a measurement: the row says where they came from.
    let report = env.run(&["budget", "-c", "codex", "--json"]).ok().json();
    let memory = server(client(&report, "codex"), "memory");
    assert_eq!(memory["measured"], "mcpctl.lock", "{memory}");
    env.write(
        manifest,
        budget_manifest(&format!("\n[budget]\ncodex = {total}\n")).as_bytes(),
    );
    env.run(&["plan", "--check"]).ok();
}

/// Claude Code has no tool filter but a per-project switch: the cut switches a server off
/// in the project `budget` runs in (`disabledMcpServers` under the project's entry), the
/// user's entry stays, other projects still load it, and one undo gives the bytes back.
#[test]
#[ignore = "needs .ci/peers.sh and cargo build -p fixture-server"]
fn claude_code_servers_are_switched_off_in_this_project_only() {
    let mut env = TestEnv::new();
    // Tool search off: every definition counts in full.
    env.extra_env
        .push(("ENABLE_TOOL_SEARCH".into(), "false".into()));
    write_json(
        &env,
        CLAUDE,
        &json_servers(json!({"type": "stdio"}), json!({"type": "stdio"})),
    );
    let report = env
        .run_in(
            "proj",
            &["budget", "--measure", "-c", "claude-code", "--json"],
        )
        .ok()
        .json();
    let claude = client(&report, "claude-code");
    let fixture_tokens = n(&server(claude, "fixture")["tokens"]);
    let total = n(&claude["tokens"]);
    let max = (fixture_tokens + 1).to_string();
    let before = env.read(CLAUDE);
    let args = ["budget", "--max", &max, "-c", "claude-code", "--apply"];
    let run = env.run_in("proj", &args).ok();
    assert!(
        run.stdout.contains("switch off `memory` (")
            && run
                .stdout
                .contains("in this project only (disabledMcpServers"),
        "{}",
        run.stdout
    );
    let file = crate::env::jsonc(&env.read(CLAUDE));
    assert!(file["mcpServers"].get("memory").is_some(), "{file}");
    let project = crate::env::claude_key(&env.path("proj").display().to_string());
    assert_eq!(
        file["projects"][&project]["disabledMcpServers"],
        json!(["memory"]),
        "{file}"
    );
    assert_eq!(tokens_in(&env, "proj", "claude-code"), fixture_tokens);
    assert_eq!(tokens_in(&env, "other", "claude-code"), total);
    let again = env.run_in("proj", &args).ok();
    assert!(again.stdout.contains("nothing to cut"), "{}", again.stdout);
    env.run_in("proj", &["undo"]).ok();
    assert_eq!(env.read(CLAUDE), before);
}

/// server-everything from `.ci/peers.sh`; fails the test when it is not installed.
fn everything_entry() -> Value {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(".cache")
        .join("peers")
        .join("npm")
        .join("node_modules")
        .join("@modelcontextprotocol")
        .join("server-everything")
        .join("dist")
        .join("index.js");
    if !script.is_file() {
        crate::peer::missing("server-everything is not installed (run .ci/peers.sh)");
    }
    json!({"command": "node", "args": [script.display().to_string(), "stdio"]})
}

/// Issue 41 "as that client would receive them": server-everything lists 16 tools to
/// Claude Code (roots, form and URL elicitation) and 15 to mcpctl's own declaration.
/// `tokens.json` keeps a measurement per capability profile, so `budget` counts Claude
/// Code's own 16; a measurement made with mcpctl's capabilities (`tools` without `--as`)
/// is used only as a fallback, said per client (Cursor's row records none), and
/// `--measure` measures the server again as Claude Code.
#[test]
#[ignore = "needs .ci/peers.sh"]
fn budget_counts_the_tools_each_client_is_listed_with_its_own_capabilities() {
    let env = TestEnv::new();
    let mut everything = everything_entry();
    write_json(
        &env,
        CURSOR,
        &json!({"mcpServers": {"everything": everything}}),
    );
    everything["type"] = json!("stdio");
    // Loaded in full, so the count is the definitions, not the deferred names.
    everything["alwaysLoad"] = json!(true);
    write_json(
        &env,
        CLAUDE,
        &json!({"mcpServers": {"everything": everything}}),
    );
    // Measured with mcpctl's own capabilities: 15 tools.
    env.run(&["tools", "everything", "-c", "cursor", "--json"])
        .ok();
    let report = env
        .run(&["budget", "-c", "claude-code,cursor", "--json"])
        .ok()
        .json();
    for id in ["claude-code", "cursor"] {
        let c = client(&report, id);
        let everything = server(c, "everything");
        assert_eq!(tools_of(everything).len(), 15, "{id}: {everything}");
        assert_eq!(everything["measured_as"], "mcpctl", "{id}: {everything}");
    }
    let fallback = client(&report, "claude-code")["fallback"].as_str().unwrap();
    assert!(
        fallback.contains("not Claude Code's") && fallback.contains("--measure -c claude-code"),
        "{fallback}"
    );
    let fallback = client(&report, "cursor")["fallback"].as_str().unwrap();
    assert!(fallback.contains("records no capabilities"), "{fallback}");

    // Measured as Claude Code: 16, kept apart from mcpctl's 15.
    let report = env
        .run(&["budget", "--measure", "-c", "claude-code,cursor", "--json"])
        .ok()
        .json();
    let claude = client(&report, "claude-code");
    let everything = server(claude, "everything");
    let tools = tools_of(everything);
    assert_eq!(tools.len(), 16, "{everything}");
    assert!(tools.iter().any(|(t, _)| t == "trigger-url-elicitation"));
    assert_eq!(everything["measured_as"], "client", "{everything}");
    assert_eq!(claude["fallback"], Value::Null, "{claude}");
    let cursor = server(client(&report, "cursor"), "everything");
    assert_eq!(tools_of(cursor).len(), 15, "{cursor}");
    assert!(n(&everything["tokens"]) > n(&cursor["tokens"]));
    // The human table says it too.
    let human = env.run(&["budget", "-c", "cursor"]).ok();
    assert!(
        human.stdout.contains("records no capabilities"),
        "{}",
        human.stdout
    );
}

/// Issue 41, Claude Code's tool search per tool: a tool the server lists with `_meta:
/// {"anthropic/alwaysLoad": true}` loads in full while the entry leaves `alwaysLoad`
/// unset (read in the claude 2.1.332 binary); the others stay deferred, listed by name;
/// the entry's `alwaysLoad: false` defers that tool too.
#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn a_tool_that_asks_to_always_load_is_counted_in_full_by_claude_code() {
    let env = TestEnv::new();
    let entry = json!({"type": "stdio", "command": fixture(), "args": ["always-load"]});
    write_json(&env, CLAUDE, &json!({"mcpServers": {"fx": entry}}));
    let report = env
        .run(&["budget", "--measure", "-c", "claude-code", "--json"])
        .ok()
        .json();
    let fx = server(client(&report, "claude-code"), "fx");
    let tool = |name: &str| {
        fx["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("no {name} in {fx}"))
            .clone()
    };
    let hello = tool("hello");
    assert_eq!(hello["tokens"], hello["definition"], "{fx}");
    assert_eq!(hello["deferred"], false, "{fx}");
    let pid = tool("pid");
    assert_eq!(pid["deferred"], true, "{fx}");
    // Deferred: only `mcp__fx__pid` (12 bytes) is listed.
    assert_eq!(n(&pid["tokens"]), 3, "{fx}");
    assert_eq!(fx["deferred"], true, "{fx}");
    assert_eq!(
        n(&fx["tokens"]),
        n(&hello["definition"]) + n(&pid["tokens"]),
        "{fx}"
    );
    let human = env.run(&["budget", "-c", "claude-code"]).ok();
    assert!(human.stdout.contains("1 of 2 deferred"), "{}", human.stdout);

    // The entry's own `alwaysLoad: false` wins: every tool deferred.
    let mut entry = entry;
    entry["alwaysLoad"] = json!(false);
    write_json(&env, CLAUDE, &json!({"mcpServers": {"fx": entry}}));
    let report = env
        .run(&["budget", "-c", "claude-code", "--json"])
        .ok()
        .json();
    let fx = server(client(&report, "claude-code"), "fx");
    assert!(
        fx["tools"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["deferred"] == true),
        "{fx}"
    );
}

/// Issue 41: a server the manifest's budget switched off (parked: Cursor has no tool filter
/// and no switch) stays off — the next `plan` does not want it back ("1 to enable"), `plan
/// --check` passes and `apply` again writes nothing; `plan --json` carries each budgeted
/// client's line.
#[test]
#[ignore = "needs .ci/peers.sh and cargo build -p fixture-server"]
fn a_server_the_manifest_budget_switched_off_stays_off_in_the_next_plan() {
    let env = TestEnv::new();
    let manifest = crate::env::MANIFEST;
    let servers = budget_manifest("").replace("clients = [\"codex\"]", "clients = [\"cursor\"]");
    env.write(manifest, servers.as_bytes());
    env.run(&["apply"]).ok();
    let report = env
        .run(&["budget", "--measure", "-c", "cursor", "--json"])
        .ok()
        .json();
    let max = n(&server(client(&report, "cursor"), "fixture")["tokens"]) + 1;
    env.write(
        manifest,
        format!("{servers}\n[budget]\ncursor = {max}\n").as_bytes(),
    );
    let plan = env.run(&["plan", "--json"]).ok().json();
    let line = plan
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["action"] == "budget")
        .unwrap_or_else(|| panic!("no budget line in {plan:#}"));
    assert_eq!(line["client"], "cursor", "{line}");
    assert_eq!(line["over"], true, "{line}");
    assert!(
        line["lines"][0]
            .as_str()
            .is_some_and(|l| l.starts_with("budget cursor: ")),
        "{line}"
    );
    env.run(&["apply"]).ok();
    let file = env.read(CURSOR);
    assert!(!env.read_str(CURSOR).contains("memory"), "not parked");
    let plan = env.run(&["plan", "--check"]).ok();
    assert!(
        !plan.stdout.contains("to enable") && plan.stdout.contains("within"),
        "{}",
        plan.stdout
    );
    let plan = env.run(&["plan", "--json"]).ok().json();
    assert!(
        plan.as_array()
            .unwrap()
            .iter()
            .all(|i| i["action"] == "ok" || i["action"] == "budget"),
        "{plan:#}"
    );
    env.run(&["apply"]).ok();
    assert_eq!(env.read(CURSOR), file, "apply again changed the file");
    // A budget it fits in brings it back.
    env.write(
        manifest,
        format!(
            "{servers}
[budget]
cursor = 100000
"
        )
        .as_bytes(),
    );
    let plan = env.run(&["plan", "--json"]).ok().json();
    assert!(
        plan.as_array()
            .unwrap()
            .iter()
            .any(|i| i["name"] == "memory" && i["action"] == "enable"),
        "{plan:#}"
    );
}

/// Issue 41: the servers a manifest wants on that the budget switched off are weighed
/// together, not one at a time. Both parked (Cursor has no tool filter and no switch), the
/// memory server and the fixture each fit the budget alone but not together: the plan
/// keeps the costlier (memory) off and brings the fixture back, and `apply` then writes
/// just that — no cut needed after it, the next plan in sync. (One at a time, each fit
/// beside nothing: the plan wanted both back and `apply` switched memory off again.)
#[test]
#[ignore = "needs .ci/peers.sh and cargo build -p fixture-server"]
fn servers_held_off_by_the_budget_are_weighed_together() {
    let env = TestEnv::new();
    let manifest = crate::env::MANIFEST;
    let servers = budget_manifest("").replace("clients = [\"codex\"]", "clients = [\"cursor\"]");
    env.write(manifest, servers.as_bytes());
    env.run(&["apply"]).ok();
    let report = env
        .run(&["budget", "--measure", "-c", "cursor", "--json"])
        .ok()
        .json();
    let cursor = client(&report, "cursor");
    let memory = n(&server(cursor, "memory")["tokens"]);
    let fixture_tokens = n(&server(cursor, "fixture")["tokens"]);
    assert!(memory > fixture_tokens, "{cursor}");
    for name in ["memory", "fixture"] {
        env.run(&["disable", name, "-c", "cursor"]).ok();
    }
    assert!(!env.read_str(CURSOR).contains("memory"), "not parked");
    let max = memory + fixture_tokens - 1;
    env.write(
        manifest,
        format!("{servers}\n[budget]\ncursor = {max}\n").as_bytes(),
    );
    let plan = env.run(&["plan", "--json"]).ok().json();
    let item = |name: &str| {
        plan.as_array()
            .unwrap()
            .iter()
            .find(|i| i["name"] == name)
            .unwrap_or_else(|| panic!("no {name} in {plan:#}"))
            .clone()
    };
    assert_eq!(item("fixture")["action"], "enable", "{plan:#}");
    let held = item("memory");
    assert_eq!(held["action"], "ok", "{plan:#}");
    let expected = format!(
        "kept off by the budget: its {} tokens would bring cursor to {}, over {}",
        crate_thousands(memory),
        crate_thousands(memory + fixture_tokens),
        crate_thousands(max)
    );
    assert!(
        held["reason"]
            .as_str()
            .is_some_and(|r| r.contains(&expected)),
        "{held}"
    );
    // `apply` switches the fixture on and needs no cut after it.
    let run = env.run(&["apply"]).ok();
    assert!(!run.stdout.contains("switch off"), "{}", run.stdout);
    let file = crate::env::jsonc(&env.read(CURSOR));
    assert!(file["mcpServers"].get("fixture").is_some(), "{file}");
    assert!(file["mcpServers"].get("memory").is_none(), "{file}");
    let check = env.run(&["plan", "--check"]).ok();
    assert!(check.stdout.contains("within"), "{}", check.stdout);
}

/// Issue 41, "in the project scope where the client supports one": Codex reads a trusted
/// project's `.codex/config.toml` and merges `[mcp_servers.NAME]` into the user's entry
/// key by key (checked with codex-cli 0.171.0: the project's `disabled_tools` replaces the
/// user's, `peers::codex_reads_a_budget_cut_only_in_the_trusted_project`). So in a trusted
/// project the cut writes the deny-list there alone — what the user denied already and
/// the new tools, never a copy of the user's entry or its secrets — and the user's file
/// is untouched; other projects still count every tool; the same cut again changes
/// nothing; one undo gives both files back byte for byte. In a project Codex does not
/// trust, the cut goes to the user's file and the line says why.
#[test]
#[ignore = "needs .ci/peers.sh and cargo build -p fixture-server"]
fn codex_tools_are_denied_in_a_trusted_project_only() {
    let env = TestEnv::new();
    let proj = env.path("proj").display().to_string();
    let user = format!(
        "{}\n[projects.{proj:?}]\ntrust_level = \"trusted\"\n",
        codex_config("disabled_tools = [\"read_graph\"]\nenv = { MEMORY_TOKEN = \"s3cr3t\" }\n")
    );
    env.write(CODEX, user.as_bytes());
    env.write("proj/.codex/config.toml", b"# the team's\nmodel = \"o5\"\n");
    let project_before = env.read("proj/.codex/config.toml");
    let report = env
        .run_in("proj", &["budget", "--measure", "-c", "codex", "--json"])
        .ok()
        .json();
    let codex = client(&report, "codex");
    let total = n(&codex["tokens"]);
    let mut memory = tools_of(server(codex, "memory"));
    assert!(!memory.iter().any(|(t, _)| t == "read_graph"), "{codex}");
    memory.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let max = (total - memory[0].1 + 1).to_string();
    let args = ["budget", "--max", &max, "-c", "codex", "--apply"];
    let run = env.run_in("proj", &args).ok();
    assert!(
        run.stdout.contains(&format!("deny `{}` (", memory[0].0))
            && run.stdout.contains("in this project only"),
        "{}",
        run.stdout
    );
    assert_eq!(env.read_str(CODEX), user, "the user's file changed");
    assert_eq!(
        env.read_str("proj/.codex/config.toml"),
        format!(
            "# the team's\nmodel = \"o5\"\n\n[mcp_servers.memory]\ndisabled_tools = [\"read_graph\", \"{}\"]\n",
            memory[0].0
        )
    );
    // The project's entry is an override of the user's, not a broken server of its own:
    // `check` passes, doctor says no scope wins.
    env.run_in("proj", &["check"]).ok();
    let doctor = env.run_in("proj", &["doctor", "-c", "codex"]).ok();
    assert!(
        !doctor.stdout.contains("defined in 2 scopes"),
        "{}",
        doctor.stdout
    );
    assert_eq!(tokens_in(&env, "proj", "codex"), total - memory[0].1);
    assert_eq!(tokens_in(&env, "other", "codex"), total);
    let again = env.run_in("proj", &args).ok();
    assert!(again.stdout.contains("nothing to cut"), "{}", again.stdout);
    env.run_in("proj", &["undo"]).ok();
    assert_eq!(env.read("proj/.codex/config.toml"), project_before);
    assert_eq!(env.read_str(CODEX), user);
    // `--scope user`: the user's file, for every project.
    env.run_in("proj", &[&args[..], &["--scope", "user"]].concat())
        .ok();
    assert_eq!(env.read("proj/.codex/config.toml"), project_before);
    assert!(
        env.read_str(CODEX).contains(&format!(
            "disabled_tools = [\"read_graph\", \"{}\"]",
            memory[0].0
        )),
        "{}",
        env.read_str(CODEX)
    );
    env.run_in("proj", &["undo"]).ok();
    assert_eq!(env.read_str(CODEX), user);

    // Not trusted: the user's file, and the line says why; `--scope project` refuses.
    let untrusted = user.replace("trust_level = \"trusted\"", "trust_level = \"untrusted\"");
    env.write(CODEX, untrusted.as_bytes());
    let refused = env
        .run_in("proj", &[&args[..], &["--scope", "project"]].concat())
        .code(1);
    assert!(
        refused
            .stdout
            .contains("cannot cut in this project only (--scope project): Codex reads"),
        "{}",
        refused.stdout
    );
    assert_eq!(env.read_str(CODEX), untrusted);
    // Two tools denied: where they go, and why not here, is said once, not per line.
    let two = (total - memory[0].1 - memory[1].1 + 1).to_string();
    let dry = env
        .run_in("proj", &["budget", "--max", &two, "-c", "codex"])
        .ok();
    assert!(
        dry.stdout.matches("deny `").count() >= 2
            && dry.stdout.matches("only in a trusted folder").count() == 1,
        "{}",
        dry.stdout
    );
    let run = env.run_in("proj", &args).ok();
    assert!(
        run.stdout.contains("in the user's file: Codex reads")
            && run.stdout.contains("only in a trusted folder"),
        "{}",
        run.stdout
    );
    assert_eq!(env.read("proj/.codex/config.toml"), project_before);
    assert!(
        env.read_str(CODEX).contains(&format!(
            "disabled_tools = [\"read_graph\", \"{}\"]",
            memory[0].0
        )),
        "{}",
        env.read_str(CODEX)
    );
}

/// Issue 41: OpenCode has no tool filter but merges a project's entry key by key into the
/// user's with no trust step, so `"enabled": false` in the project's `opencode.json` is a
/// switch-off in this project only (OpenCode's own `mcp list` reads it:
/// `here::each_clients_own_list_shows_slack_off_here_and_on_elsewhere`). The cut uses it: the user's file
/// is untouched, another project still counts the server, and one undo removes the file
/// the cut created.
#[test]
#[ignore = "needs .ci/peers.sh and cargo build -p fixture-server"]
fn opencode_servers_are_switched_off_in_this_project_only() {
    let env = TestEnv::new();
    const OPENCODE: &str = ".config/opencode/opencode.json";
    let servers = json!({"mcp": {
        "memory": {"type": "local", "command": ["node", memory_script()]},
        "fixture": {"type": "local", "command": [fixture()]},
    }});
    write_json(&env, OPENCODE, &servers);
    let user = env.read(OPENCODE);
    let report = env
        .run_in("proj", &["budget", "--measure", "-c", "opencode", "--json"])
        .ok()
        .json();
    let opencode = client(&report, "opencode");
    let total = n(&opencode["tokens"]);
    let fixture_tokens = n(&server(opencode, "fixture")["tokens"]);
    let max = (fixture_tokens + 1).to_string();
    let args = ["budget", "--max", &max, "-c", "opencode", "--apply"];
    let run = env.run_in("proj", &args).ok();
    assert!(
        run.stdout.contains("switch off `memory` (")
            && run.stdout.contains("in this project only (enabled"),
        "{}",
        run.stdout
    );
    assert_eq!(env.read(OPENCODE), user, "the user's file changed");
    let project = crate::env::jsonc(&env.read("proj/opencode.json"));
    assert_eq!(project, json!({"mcp": {"memory": {"enabled": false}}}));
    assert_eq!(tokens_in(&env, "proj", "opencode"), fixture_tokens);
    assert_eq!(tokens_in(&env, "other", "opencode"), total);
    let again = env.run_in("proj", &args).ok();
    assert!(again.stdout.contains("nothing to cut"), "{}", again.stdout);
    env.run_in("proj", &["undo"]).ok();
    assert!(!env.path("proj/opencode.json").exists());
    assert_eq!(env.read(OPENCODE), user);
}
