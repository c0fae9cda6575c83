//! add then remove gives back the original bytes in the cases the first version missed.

use crate::env::TestEnv;

const CODEX: &str = ".codex/config.toml";

#[test]
fn toml_headers_of_other_entries_keep_their_spelling_and_no_final_newline_is_added() {
    let env = TestEnv::new();
    let text = "model = \"o3\"\n\n[ mcp_servers . \"a\" ]\ncommand = \"x\"\n\n[mcp_servers.b]\ncommand = \"y\"";
    env.write(CODEX, text.as_bytes());
    env.run(&["add", "c", "-c", "codex", "--", "npx", "-y", "pkg"])
        .ok();
    let added = env.read_str(CODEX);
    assert!(added.contains("[ mcp_servers . \"a\" ]\n"), "{added}");
    assert!(added.contains("\n[mcp_servers.b]\n"), "{added}");
    env.run(&["remove", "c", "-c", "codex"]).ok();
    assert_eq!(env.read_str(CODEX), text);
}

/// Add `zz` to `client` (extra flags in `flags`), remove it, and return the file's text.
fn add_remove(env: &TestEnv, client: &str, flags: &[&str]) {
    let mut add = vec!["add", "zz", "-c", client];
    add.extend(flags);
    add.extend(["--", "npx", "-y", "pkg"]);
    env.run(&add).ok();
    let mut remove = vec!["remove", "zz", "-c", client];
    remove.extend(flags);
    env.run(&remove).ok();
}

#[test]
fn a_servers_key_the_add_created_goes_with_the_entry() {
    let cases: &[(&str, &str, &[&str], &str)] = &[
        ("cursor", ".cursor/mcp.json", &[], "{}"),
        ("cursor", ".cursor/mcp.json", &[], "{ }\n"),
        (
            "cursor",
            ".cursor/mcp.json",
            &[],
            "{\n  \"theme\": \"dark\"\n}\n",
        ),
        (
            "zed",
            crate::env::ZED,
            &[],
            "// Zed settings\n{\n  \"theme\": \"One Dark\", // mine\n}\n",
        ),
        (
            "claude-code",
            ".claude.json",
            &["--scope", "local"],
            "{\n  \"numStartups\": 3,\n  \"projects\": {}\n}\n",
        ),
        (
            "claude-code",
            ".claude.json",
            &["--scope", "local"],
            "{\n  \"numStartups\": 3\n}\n",
        ),
        (
            "claude-code",
            ".claude.json",
            &["--scope", "local"],
            "{\n  \"projects\": {\n    \"/elsewhere\": {\n      \"allowedTools\": []\n    }\n  }\n}\n",
        ),
        (CODEX_ID, CODEX, &[], "model = \"o3\"\n"),
        (
            CODEX_ID,
            CODEX,
            &[],
            "model = \"o3\"\n\n[profiles.x]\nmodel = \"o4\"",
        ),
    ];
    for (client, file, flags, text) in cases {
        let env = TestEnv::new();
        env.write(file, text.as_bytes());
        add_remove(&env, client, flags);
        assert_eq!(env.read_str(file), *text, "{client}");
    }
}

const CODEX_ID: &str = "codex";

#[test]
fn an_empty_map_gets_its_own_spelling_back() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "cursor",
            ".cursor/mcp.json",
            "{\n  \"mcpServers\": {\n    }\n}\n",
        ),
        (
            "cursor",
            ".cursor/mcp.json",
            "{\n  \"mcpServers\": { }\n}\n",
        ),
        ("cursor", ".cursor/mcp.json", "{\"mcpServers\":{ }}"),
        (
            "zed",
            crate::env::ZED,
            "{\n  \"context_servers\": { /* none */ },\n}\n",
        ),
        (
            "zed",
            crate::env::ZED,
            "{\n  \"context_servers\": {\n    // none yet\n  }\n}\n",
        ),
        (CODEX_ID, CODEX, "model = \"o3\"\nmcp_servers = { }\n"),
        (CODEX_ID, CODEX, "model = \"o3\"\n\n[mcp_servers]\n"),
    ];
    for (client, file, text) in cases {
        let env = TestEnv::new();
        env.write(file, text.as_bytes());
        add_remove(&env, client, &[]);
        assert_eq!(env.read_str(file), *text, "{client}");
    }
}

/// Add `zz` to `id`: a local server, or a remote one where the client takes only those.
fn add_any(env: &TestEnv, id: &str) {
    let local = env.run(&["add", "zz", "-c", id, "--", "npx", "-y", "pkg"]);
    if local.code != 0 {
        env.run(&["add", "zz", "-c", id, "--url", "https://example.com/mcp"])
            .ok();
    }
}

/// Every directory and file under `root`.
fn tree(root: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path.clone());
            }
            out.push(path);
        }
    }
    out.sort();
    out
}

#[test]
fn add_then_remove_on_a_client_without_a_file_leaves_nothing_behind() {
    let env = TestEnv::new();
    let clients = env.run(&["clients", "--json"]).ok().json();
    let mut tried = 0;
    for client in clients.as_array().unwrap() {
        let id = client["id"].as_str().unwrap();
        // YAML (Goose) keeps what an add created: not implemented for that format yet.
        // A file another tool writes (home-manager's) is never a target.
        if client["path"].is_null() || client["format"] == "yaml" || !client["owned_by"].is_null() {
            continue;
        }
        let before = tree(&env.home());
        add_any(&env, id);
        assert!(
            tree(&env.home()).len() > before.len(),
            "{id}: add wrote nothing"
        );
        let removed = env.run(&["remove", "zz", "-c", id, "--json"]).ok().json();
        assert_eq!(removed[0]["deleted"], true, "{id}: {removed}");
        assert_eq!(tree(&env.home()), before, "{id}");
        tried += 1;
    }
    assert!(tried > 20, "{tried}");
    // Windsurf is not "detected" forever after one add/remove.
    let clients = env.run(&["clients", "--json"]).ok().json();
    assert!(
        clients
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["detected"] == false),
        "{clients}"
    );
}

#[test]
fn add_then_remove_on_each_client_with_other_settings_is_identity() {
    let env = TestEnv::new();
    let clients = env.run(&["clients", "--json"]).ok().json();
    for client in clients.as_array().unwrap() {
        let (Some(id), Some(path)) = (client["id"].as_str(), client["path"].as_str()) else {
            continue;
        };
        if client["format"] == "yaml" || !client["owned_by"].is_null() {
            continue;
        }
        let text = match client["format"].as_str().unwrap() {
            "toml" => "# mine\nmodel = \"o3\"\n",
            // No trailing comma: Gemini CLI and Qwen Code reject it (and `add` refuses the
            // file); the zed case above keeps one.
            "jsonc" => "{\n  // mine\n  \"editor.fontSize\": 14\n}\n",
            _ => "{\n  \"theme\": \"dark\"\n}\n",
        };
        let path = std::path::Path::new(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
        add_any(&env, id);
        assert_ne!(std::fs::read_to_string(path).unwrap(), text, "{id}");
        let removed = env.run(&["remove", "zz", "-c", id, "--json"]).ok().json();
        assert!(removed[0].get("deleted").is_none(), "{id}: {removed}");
        assert_eq!(std::fs::read_to_string(path).unwrap(), text, "{id}");
    }
}

#[test]
fn what_the_add_created_goes_only_with_the_last_entry_mcpctl_added_there() {
    let text = "{\n  \"theme\": \"dark\"\n}\n";
    for order in [["a", "b"], ["b", "a"]] {
        let env = TestEnv::new();
        env.write(".cursor/mcp.json", text.as_bytes());
        env.run(&["add", "a", "-c", "cursor", "--", "npx", "a"])
            .ok();
        env.run(&["add", "b", "-c", "cursor", "--", "npx", "b"])
            .ok();
        env.run(&["remove", order[0], "-c", "cursor"]).ok();
        assert!(env.read_str(".cursor/mcp.json").contains("mcpServers"));
        env.run(&["remove", order[1], "-c", "cursor"]).ok();
        assert_eq!(env.read_str(".cursor/mcp.json"), text, "{order:?}");
    }
    // Two projects of Claude Code: `projects` goes with the last of them.
    let env = TestEnv::new();
    let text = "{\n  \"numStartups\": 1\n}\n";
    env.write(".claude.json", text.as_bytes());
    let add = |dir: &str| {
        let mut cmd = env.command(&[
            "add",
            "x",
            "-c",
            "claude-code",
            "--scope",
            "local",
            "--",
            "npx",
        ]);
        std::fs::create_dir_all(env.path(dir)).unwrap();
        assert!(
            cmd.current_dir(env.path(dir))
                .output()
                .unwrap()
                .status
                .success()
        );
    };
    let remove = |dir: &str| {
        let mut cmd = env.command(&["remove", "x", "-c", "claude-code", "--scope", "local"]);
        assert!(
            cmd.current_dir(env.path(dir))
                .output()
                .unwrap()
                .status
                .success()
        );
    };
    add("p1");
    add("p2");
    remove("p1");
    assert!(env.read_str(".claude.json").contains("p2"));
    remove("p2");
    assert_eq!(env.read_str(".claude.json"), text);
}

#[test]
fn what_someone_else_made_stays() {
    // A file mcpctl created, in which the user then wrote a setting: the file stays.
    let env = TestEnv::new();
    env.run(&["add", "zz", "-c", "windsurf", "--", "npx"]).ok();
    let file = ".codeium/windsurf/mcp_config.json";
    let text = env
        .read_str(file)
        .replacen("{\n", "{\n  \"mine\": true,\n", 1);
    env.write(file, text.as_bytes());
    let removed = env
        .run(&["remove", "zz", "-c", "windsurf", "--json"])
        .ok()
        .json();
    assert!(removed[0].get("deleted").is_none(), "{removed}");
    assert_eq!(env.read_str(file), "{\n  \"mine\": true\n}\n");

    // A servers map the user wrote (empty) before mcpctl's add, or an entry someone added
    // beside mcpctl's: the map stays.
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", b"{\n  \"mcpServers\": {}\n}\n");
    add_remove(&env, "cursor", &[]);
    assert_eq!(
        env.read_str(".cursor/mcp.json"),
        "{\n  \"mcpServers\": {}\n}\n"
    );
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", b"{}\n");
    env.run(&["add", "zz", "-c", "cursor", "--", "npx"]).ok();
    let text = env
        .read_str(".cursor/mcp.json")
        .replace("\"zz\"", "\"mine\": {\"command\": \"uvx\"},\n    \"zz\"");
    env.write(".cursor/mcp.json", text.as_bytes());
    env.run(&["remove", "zz", "-c", "cursor"]).ok();
    assert!(env.read_str(".cursor/mcp.json").contains("\"mine\""));

    // An empty file the user made is not mcpctl's to delete (writing it at all takes
    // `--force`: a 0-byte file may be another program's save half-way, issue 39 G1).
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", b"");
    env.run(&[
        "add", "zz", "-c", "cursor", "--force", "--", "npx", "-y", "pkg",
    ])
    .ok();
    env.run(&["remove", "zz", "-c", "cursor"]).ok();
    assert_eq!(env.read_str(".cursor/mcp.json"), "");
}
