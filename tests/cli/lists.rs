//! List-shaped servers: Mistral Vibe keeps them as `[[mcp_servers]]` items named by their
//! `name` key. Every command goes through the same `ConfigDoc` seam as map-shaped files.

use crate::env::{TestEnv, fixture};

const VIBE: &str = ".vibe/config.toml";
const MEMORY: &[&str] = &["--", "npx", "-y", "@modelcontextprotocol/server-memory@1"];

fn add_mem(env: &TestEnv) {
    let mut args = vec!["add", "mem", "-c", "mistral-vibe", "--env", "TOKEN=abc"];
    args.extend_from_slice(MEMORY);
    env.run(&args).ok();
}

#[test]
fn vibe_add_then_remove_is_identity_on_every_layout() {
    let docs = String::from_utf8(fixture("mistral-vibe/config.toml")).unwrap();
    let layouts = [
        docs.clone(),
        docs.replace('\n', "\r\n"),
        docs.trim_end().to_owned(),
        // No array yet: the first `[[mcp_servers]]` is created and removed again.
        "# Vibe\nactive_model = \"devstral-2\"\n".to_owned(),
        "active_model = \"devstral-2\"".to_owned(),
        "[tools.bash]\r\npermission = \"ask\"\r\n".to_owned(),
    ];
    for original in layouts {
        let env = TestEnv::new();
        env.write(VIBE, original.as_bytes());
        add_mem(&env);
        let added = env.read_str(VIBE);
        assert!(
            added.contains("[[mcp_servers]]\nname = \"mem\"")
                || added.contains("[[mcp_servers]]\r\nname = \"mem\""),
            "{added}"
        );
        assert!(added.contains("transport = \"stdio\""), "{added}");
        assert!(added.contains("env = { TOKEN = \"abc\" }"), "{added}");
        // Everything that was there is still there, in order.
        for line in original.lines() {
            assert!(added.contains(line), "lost {line:?} in {added}");
        }
        env.run(&["remove", "mem", "-c", "mistral-vibe"]).ok();
        assert_eq!(env.read_str(VIBE), original, "add→remove is not identity");
    }
}

#[test]
fn vibe_list_reads_items_by_name_and_remove_leaves_the_others() {
    let env = TestEnv::new();
    let docs = String::from_utf8(fixture("mistral-vibe/config.toml")).unwrap();
    env.write(VIBE, docs.as_bytes());
    let run = env.run(&["list", "--json", "-c", "mistral-vibe"]).ok();
    let rows = run.json();
    let names: Vec<&str> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["my_http_server", "fetch_server", "remote"],
        "{rows}"
    );
    let fetch = &rows[1];
    assert_eq!(crate::env::command_of(fetch), "uvx");
    assert_eq!(fetch["transport"], "stdio", "{fetch}");
    assert_eq!(rows[2]["transport"], "http", "{}", rows[2]);

    env.run(&["remove", "fetch_server", "-c", "mistral-vibe"])
        .ok();
    let out = env.read_str(VIBE);
    // The item goes with the comment right above its header; every other byte stays.
    let expected = docs.replace(
        "# A local server\n[[mcp_servers]]\nname = \"fetch_server\"\ntransport = \"stdio\"\ncommand = \"uvx\"\nargs = [\"mcp-server-fetch\"]\nstartup_timeout_sec = 20 # slow first start\ndisabled_tools = [\"fetch_raw\"]\n\n",
        "",
    );
    assert_eq!(out, expected);
}

#[test]
fn vibe_remote_entries_use_its_transport_key_and_refuse_sse() {
    let env = TestEnv::new();
    env.run(&[
        "add",
        "docs",
        "-c",
        "mistral-vibe",
        "--url",
        "https://docs.example.com/mcp",
        "-H",
        "X-Key=k",
    ])
    .ok();
    let out = env.read_str(VIBE);
    assert!(
        out.contains("[[mcp_servers]]\nname = \"docs\"\ntransport = \"http\"\nurl = \"https://docs.example.com/mcp\"\nauth = { type = \"static\", headers = { X-Key = \"k\" } }\n"),
        "{out}"
    );
    // A header that is one variable is Vibe's `api_key_env`, the one variable it resolves.
    env.run(&[
        "add",
        "keyed",
        "-c",
        "mistral-vibe",
        "--url",
        "https://keyed.example.com/mcp",
        "-H",
        "X-Key=${DOCS_KEY}",
    ])
    .ok();
    let out = env.read_str(VIBE);
    assert!(
        out.contains("auth = { type = \"static\", api_key_env = \"DOCS_KEY\", api_key_header = \"X-Key\", api_key_format = \"{token}\" }"),
        "{out}"
    );
    // Anywhere else Vibe passes `${VAR}` through literally (issue 21): refused, nothing
    // written.
    let run = env
        .run(&[
            "add",
            "inurl",
            "-c",
            "mistral-vibe",
            "--url",
            "https://docs.example.com/mcp?key=${DOCS_KEY}",
        ])
        .code(2);
    assert!(
        format!("{}{}", run.stdout, run.stderr).contains("does not expand variables"),
        "{}",
        run.stdout
    );
    assert_eq!(env.read_str(VIBE), out);
    let run = env
        .run(&[
            "add",
            "old",
            "-c",
            "mistral-vibe",
            "--url",
            "https://old.example.com/sse",
            "--transport",
            "sse",
        ])
        .code(2);
    let said = format!("{}{}", run.stdout, run.stderr);
    assert!(said.contains("Mistral Vibe speaks HTTP"), "{said}");
    assert_eq!(env.read_str(VIBE), out);
}

#[test]
fn vibe_docs_file_checks_clean_and_a_map_is_flagged() {
    let env = TestEnv::new();
    env.write(VIBE, &fixture("mistral-vibe/config.toml"));
    let path = env.path(VIBE);
    let run = env
        .run(&[
            "check",
            "--platform",
            "linux",
            "--format",
            "json",
            "-c",
            "mistral-vibe",
            path.to_str().unwrap(),
        ])
        .ok();
    // The docs' own example keeps a literal bearer token: that is the only finding (no
    // unknown keys, no transport or shape complaints).
    let codes: Vec<String> = run
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(codes, ["MCP401"], "{}", run.stdout);

    // Codex's spelling in Vibe's file: Vibe reads no servers from it.
    env.write(VIBE, b"[mcp_servers.mem]\ncommand = \"npx\"\n");
    let run = env.run(&[
        "check",
        "--platform",
        "linux",
        "--format",
        "json",
        "-c",
        "mistral-vibe",
        path.to_str().unwrap(),
    ]);
    assert!(
        run.stdout.contains("expected a list of servers"),
        "{}",
        run.stdout
    );
    // add refuses to touch it.
    let mut args = vec!["add", "x", "-c", "mistral-vibe"];
    args.extend_from_slice(MEMORY);
    let refused = env.run(&args);
    assert_ne!(refused.code, 0);
    assert_eq!(env.read_str(VIBE), "[mcp_servers.mem]\ncommand = \"npx\"\n");
}
