//! What `plan` and `apply` print (issue 40): the servers in the manifest's order, no
//! header for a file in sync, each warning once, and one patchable diff per file.
// See: issue 40

use crate::env::{TestEnv, jsonc};

const MANIFEST: &str = crate::env::MANIFEST;

/// The lines of `text` that list an item (`  + add       NAME`), as (action, name).
fn item_lines(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| {
            let mut words = l.split_whitespace().skip(1);
            Some((words.next()?.to_owned(), words.next()?.to_owned()))
        })
        .collect()
}

/// Issue 40: apply's order differed from the manifest's (the TOML reader hands tables
/// over sorted by name). Plan, apply and the files follow the order the manifest
/// declares its servers in.
#[test]
fn plan_and_apply_list_servers_in_the_manifests_order_and_write_them_so() {
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", b"{\"mcpServers\": {}}\n");
    env.write(".codex/config.toml", b"model = \"gpt-5-codex\"\n");
    env.write(
        MANIFEST,
        b"clients = [\"cursor\", \"codex\"]\n\n[servers.zeta]\nurl = \"https://zeta.example.com/mcp\"\n\n[servers.alpha]\nurl = \"https://alpha.example.com/mcp\"\n\n[servers.mid]\nurl = \"https://mid.example.com/mcp\"\n",
    );
    let declared = ["zeta", "alpha", "mid"];
    let plan = env.run(&["plan", "--json"]).ok().json();
    let names: Vec<&str> = plan
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["client"] == "cursor")
        .map(|i| i["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, declared, "{plan}");
    let text = env.run(&["plan"]).ok().stdout;
    let listed: Vec<String> = item_lines(&text).into_iter().map(|(_, n)| n).collect();
    assert_eq!(listed, [declared, declared].concat(), "{text}");
    let apply = env.run(&["apply"]).ok().stdout;
    let listed: Vec<String> = item_lines(&apply).into_iter().map(|(_, n)| n).collect();
    assert_eq!(listed, [declared, declared].concat(), "{apply}");
    let cursor = jsonc(&env.read(".cursor/mcp.json"));
    let keys: Vec<&String> = cursor["mcpServers"].as_object().unwrap().keys().collect();
    assert_eq!(keys, declared, "{cursor}");
    let codex = env.read_str(".codex/config.toml");
    let at = |name: &str| codex.find(&format!("[mcp_servers.{name}]")).unwrap();
    assert!(
        at("zeta") < at("alpha") && at("alpha") < at("mid"),
        "{codex}"
    );
}

/// Issue 40: a file with nothing to change printed its header with nothing under it
/// (its only news a note, printed on stderr), and the same warning came once per entry
/// and once per client. A file in sync prints nothing; a warning is said once, naming
/// every entry and client it is about.
#[test]
fn a_file_in_sync_prints_no_header_and_a_warning_comes_once_naming_its_entries() {
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", b"{\"mcpServers\": {}}\n");
    env.write(".codex/config.toml", b"model = \"gpt-5-codex\"\n");
    let servers = "[servers.zeta]\ncommand = \"zeta-mcp\"\nsecrets = { Z_KEY = \"shared-key\" }\n\n[servers.mid]\ncommand = \"mid-mcp\"\nsecrets = { M_KEY = \"shared-key\" }\n";
    env.write(
        MANIFEST,
        format!("clients = [\"cursor\", \"codex\"]\n\n{servers}").as_bytes(),
    );
    env.run(&["apply"]).ok();
    let run = env.run(&["plan"]).ok();
    assert_eq!(
        run.stdout, "every client file matches the manifest\n",
        "{}",
        run.stdout
    );
    let warnings: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains("shared-key"))
        .collect();
    assert_eq!(
        warnings,
        [
            "warning: `zeta`, `mid` (cursor, codex): secret `shared-key` is not set on this machine: run `mcpctl secret set shared-key` (written anyway; the server cannot start until then)"
        ],
        "{}",
        run.stderr
    );
    // One file to change, one in sync: only the first has a header.
    env.write(
        MANIFEST,
        format!(
            "clients = [\"cursor\", \"codex\"]\n\n{servers}\n[servers.docs]\nurl = \"https://docs.example.com/mcp\"\nclients = [\"codex\"]\n"
        )
        .as_bytes(),
    );
    let run = env.run(&["plan"]).ok();
    assert!(
        run.stdout.contains("config.toml (codex, user)\n"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("(cursor, user)"), "{}", run.stdout);
    assert_eq!(
        run.stderr.matches("shared-key` is not set").count(),
        1,
        "{}",
        run.stderr
    );
}
