//! Integration tests for `mcpctl undo`, `backups` and `restore`.

use crate::env::{TestEnv, fixture};

const ADD: &[&str] = &[
    "add",
    "mem",
    "-c",
    "cursor,codex",
    "--",
    "npx",
    "-y",
    "server-memory",
];

#[test]
fn undo_restores_byte_identical_files_deletes_created_ones_and_redoes() {
    let env = TestEnv::new();
    let original = fixture("cursor/mcp.json");
    env.write(".cursor/mcp.json", &original);
    env.run(ADD).ok();
    let added = env.read(".cursor/mcp.json");
    let codex = env.read(".codex/config.toml");
    assert_ne!(added, original);

    let run = env.run(&["undo"]).ok();
    assert!(run.stderr.contains("undid `add mem`"), "{}", run.stderr);
    assert_eq!(env.read(".cursor/mcp.json"), original);
    assert!(
        !env.path(".codex").exists(),
        "created file and directory are gone"
    );
    assert_eq!(env.state("ledger.json")["entries"], serde_json::json!([]));

    // With nothing left to undo, a second undo says so; `redo` re-applies the command.
    let run = env.run(&["undo"]).code(2);
    assert!(run.stderr.contains("nothing to undo"), "{}", run.stderr);
    assert!(run.stderr.contains("mcpctl redo"), "{}", run.stderr);
    assert_eq!(env.read(".cursor/mcp.json"), original);
    let run = env.run(&["redo"]).ok();
    assert!(run.stderr.contains("redid `add mem`"), "{}", run.stderr);
    assert_eq!(env.read(".cursor/mcp.json"), added);
    assert_eq!(env.read(".codex/config.toml"), codex);
    assert_eq!(
        env.state("ledger.json")["entries"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
}

#[test]
fn undo_is_a_stack_and_redo_re_applies_in_turn() {
    let env = TestEnv::new();
    let original = fixture("cursor/mcp.json");
    env.write(".cursor/mcp.json", &original);
    env.run(&["add", "a", "-c", "cursor", "--", "npx", "a"])
        .ok();
    let after_a = env.read(".cursor/mcp.json");
    env.run(&["add", "b", "-c", "cursor", "--", "npx", "b"])
        .ok();
    let after_b = env.read(".cursor/mcp.json");

    // Two undos take back two commands, newest first.
    let run = env.run(&["undo"]).ok();
    assert!(run.stderr.contains("undid `add b`"), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("`mcpctl undo` again takes back `add a`"),
        "{}",
        run.stderr
    );
    assert_eq!(env.read(".cursor/mcp.json"), after_a);
    let run = env.run(&["undo"]).ok();
    assert!(run.stderr.contains("undid `add a`"), "{}", run.stderr);
    assert_eq!(env.read(".cursor/mcp.json"), original);
    assert_eq!(env.state("ledger.json")["entries"], serde_json::json!([]));

    // Redo re-applies them in turn: a first, then b.
    let run = env.run(&["redo"]).ok();
    assert!(run.stderr.contains("redid `add a`"), "{}", run.stderr);
    assert_eq!(env.read(".cursor/mcp.json"), after_a);
    // An undo between redos takes back the re-applied command.
    env.run(&["undo"]).ok();
    assert_eq!(env.read(".cursor/mcp.json"), original);
    env.run(&["redo"]).ok();
    env.run(&["redo"]).ok();
    assert_eq!(env.read(".cursor/mcp.json"), after_b);
    assert_eq!(
        env.state("ledger.json")["entries"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let run = env.run(&["redo"]).code(2);
    assert!(run.stderr.contains("nothing to redo"), "{}", run.stderr);

    // A new command empties the redo stack.
    env.run(&["undo"]).ok();
    env.run(&["add", "c", "-c", "cursor", "--", "npx", "c"])
        .ok();
    let run = env.run(&["redo"]).code(2);
    assert!(run.stderr.contains("nothing to redo"), "{}", run.stderr);
    let run = env.run(&["undo"]).ok();
    assert!(run.stderr.contains("undid `add c`"), "{}", run.stderr);
    assert_eq!(env.read(".cursor/mcp.json"), after_a);
}

#[test]
fn redo_never_clobbers_a_newer_edit() {
    let env = TestEnv::new();
    let original = fixture("cursor/mcp.json");
    env.write(".cursor/mcp.json", &original);
    env.run(&["add", "a", "-c", "cursor", "--", "npx", "a"])
        .ok();
    let after_a = env.read(".cursor/mcp.json");
    env.run(&["undo"]).ok();
    // Someone edits the file after the undo.
    let edited =
        String::from_utf8(original.clone())
            .unwrap()
            .replacen('{', "{\n  \"editor.x\": 1,", 1);
    env.write(".cursor/mcp.json", edited.as_bytes());

    let run = env.run(&["redo"]).code(2);
    assert!(
        run.stderr.contains(&crate::env::os_path(
            "cannot redo `add a`: ~/.cursor/mcp.json changed since"
        )),
        "{}",
        run.stderr
    );
    assert_eq!(env.read(".cursor/mcp.json"), edited.as_bytes());
    let run = env.run(&["redo", "--dry-run"]).code(2);
    assert!(run.stderr.contains("changed since"), "{}", run.stderr);
    env.run(&["redo", "--force"]).ok();
    assert_eq!(env.read(".cursor/mcp.json"), after_a);
}

#[test]
fn undo_refuses_when_a_file_changed_since_and_force_overrides() {
    let env = TestEnv::new();
    let original = fixture("cursor/mcp.json");
    env.write(".cursor/mcp.json", &original);
    env.run(ADD).ok();
    let codex_after = env.read(".codex/config.toml");
    let edited = String::from_utf8(env.read(".cursor/mcp.json"))
        .unwrap()
        .replace("server-memory", "server-other");
    env.write(".cursor/mcp.json", edited.as_bytes());

    let run = env.run(&["undo"]).code(2);
    assert!(
        run.stderr
            .contains(&crate::env::os_path("~/.cursor/mcp.json changed since")),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("--force"), "{}", run.stderr);
    // Nothing reverted, not even the unchanged file.
    assert_eq!(env.read(".cursor/mcp.json"), edited.as_bytes());
    assert_eq!(env.read(".codex/config.toml"), codex_after);

    env.run(&["undo", "--force"]).ok();
    assert_eq!(env.read(".cursor/mcp.json"), original);
    assert!(!env.path(".codex/config.toml").exists());
}

#[test]
fn undo_with_an_empty_journal_is_an_error() {
    let env = TestEnv::new();
    let run = env.run(&["undo"]).code(2);
    assert!(run.stderr.contains("nothing to undo"), "{}", run.stderr);
}

#[test]
fn backups_lists_versions_and_restore_puts_one_back() {
    let env = TestEnv::new();
    let original = fixture("cursor/mcp.json");
    env.write(".cursor/mcp.json", &original);
    env.run(&["add", "a", "-c", "cursor", "--", "npx", "a"])
        .ok();
    let after_a = env.read(".cursor/mcp.json");
    env.run(&["add", "b", "-c", "cursor", "--", "npx", "b"])
        .ok();
    let after_b = env.read(".cursor/mcp.json");

    let listed = env.run(&["backups", "--json", "-c", "cursor"]).ok().json();
    let items = listed.as_array().unwrap();
    assert_eq!(items.len(), 2, "{listed:#}");
    assert_eq!(items[0]["number"], 1);
    assert_eq!(items[0]["command"], "add b");
    assert_eq!(items[1]["command"], "add a");
    assert!(std::path::Path::new(items[0]["path"].as_str().unwrap()).is_absolute());
    assert_eq!(items[1]["size"], original.len());
    let text = env.run(&["backups"]).ok().stdout;
    assert!(
        text.contains("add b") && text.contains(&crate::env::os_path("~/.cursor/mcp.json")),
        "{text}"
    );

    env.run(&["restore", "-c", "cursor", "--backup", "2"]).ok();
    assert_eq!(env.read(".cursor/mcp.json"), original);
    // The replaced version became a backup, and undo takes the restore back.
    env.run(&["undo"]).ok();
    assert_eq!(env.read(".cursor/mcp.json"), after_b);
    env.run(&["restore", "-c", "cursor"]).ok();
    // Newest backup: the bytes the undo replaced.
    assert_eq!(env.read(".cursor/mcp.json"), original);
    env.run(&["restore", "-c", "cursor", "--backup", "4"]).ok();
    assert_eq!(env.read(".cursor/mcp.json"), after_a);
    let run = env
        .run(&["restore", "-c", "cursor", "--backup", "99"])
        .code(2);
    assert!(run.stderr.contains("no number 99"), "{}", run.stderr);
}

#[test]
fn restore_json_says_what_it_did_and_a_dry_run_stays_json() {
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", &fixture("cursor/mcp.json"));
    env.run(&["add", "a", "-c", "cursor", "--", "npx", "a"])
        .ok();
    let before = env.read(".cursor/mcp.json");
    // `--dry-run --json`: the same object, stdout still JSON (the diff is for people).
    let dry = env
        .run(&["restore", "-c", "cursor", "--dry-run", "--json"])
        .ok()
        .json();
    assert_eq!(dry["action"], "would restore", "{dry:#}");
    assert_eq!(env.read(".cursor/mcp.json"), before);
    let done = env.run(&["restore", "-c", "cursor", "--json"]).ok().json();
    let keys: Vec<&str> = done
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["client", "path", "backup", "action"]);
    assert_eq!(done["action"], "restored");
    assert_eq!(done["client"], "cursor");
}

/// A manifest of twelve servers for Cursor and a profile `lean` of one of them.
fn twelve_and_lean(env: &TestEnv) {
    let mut text = String::from("clients = [\"cursor\"]\n");
    for i in 1..=12 {
        text.push_str(&format!(
            "[servers.s{i:02}]\ncommand = \"npx\"\nargs = [\"-y\", \"pkg{i:02}\"]\n"
        ));
    }
    text.push_str("[profiles.lean]\nservers = [\"s01\"]\n");
    env.write(crate::env::MANIFEST, text.as_bytes());
}

#[test]
fn a_profile_switch_that_parks_eleven_entries_in_one_file_is_undone_and_so_is_its_return() {
    let env = TestEnv::new();
    let original = fixture("cursor/mcp.json");
    env.write(".cursor/mcp.json", &original);
    twelve_and_lean(&env);
    env.run(&["apply"]).ok();
    let all = env.read(".cursor/mcp.json");
    env.run(&["apply", "--profile", "lean"]).ok();
    let lean = env.read(".cursor/mcp.json");
    let disabled = env.dir.path().join("state/disabled.json");
    let parked = std::fs::read(&disabled).unwrap();
    assert_ne!(lean, all);
    env.run(&["apply"]).ok();
    assert_eq!(env.read(".cursor/mcp.json"), all);

    // One backup per file per command: eleven entry writes are one version kept.
    let listed = env.run(&["backups", "--json", "-c", "cursor"]).ok().json();
    assert_eq!(listed.as_array().unwrap().len(), 3, "{listed:#}");

    let run = env.run(&["undo"]).ok();
    assert!(run.stderr.contains("undid `apply`"), "{}", run.stderr);
    assert_eq!(env.read(".cursor/mcp.json"), lean);
    assert_eq!(std::fs::read(&disabled).unwrap(), parked);
    let run = env.run(&["undo"]).ok();
    assert!(run.stderr.contains("undid `apply`"), "{}", run.stderr);
    assert_eq!(env.read(".cursor/mcp.json"), all);
    env.run(&["undo"]).ok();
    assert_eq!(env.read(".cursor/mcp.json"), original);
}

#[test]
fn every_command_the_journal_remembers_can_be_undone_and_the_first_version_stays() {
    let env = TestEnv::new();
    let original = fixture("cursor/mcp.json");
    env.write(".cursor/mcp.json", &original);
    // 100 commands on one file, each leaving another version: more than the ten
    // versions kept per file.
    for i in 0..100 {
        let name = format!("s{i}");
        env.run(&["add", &name, "-c", "cursor", "--", "npx", &name])
            .ok();
    }
    let listed = env.run(&["backups", "--json", "-c", "cursor"]).ok().json();
    let first = listed
        .as_array()
        .unwrap()
        .iter()
        .any(|b| std::fs::read(b["backup"].as_str().unwrap()).unwrap() == original);
    assert!(
        first,
        "the version before mcpctl's first write is still listed"
    );
    // The twenty newest commands are all still undoable (each needs its own backup).
    for _ in 0..20 {
        env.run(&["undo"]).ok();
    }
}
