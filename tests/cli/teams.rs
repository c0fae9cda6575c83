//! mcpctl as the engine other tools call (issue 25): `apply --exit-code` tells "nothing
//! changed" (0) from "changed" (1) from "failed" (2) for Ansible, chezmoi, home-manager and
//! devcontainers; files another tool owns (a home-manager link into the Nix store, a
//! read-only file) are refused with who owns them; a stow-style link is edited at its
//! target and stays a link through backups, restore and undo.

// Links (home-manager, stow) need a privilege on Windows: those tests are Unix-only.
#[cfg(unix)]
use std::os::unix::fs::{PermissionsExt, symlink};

use crate::env::{TestEnv, fixture};

const MANIFEST: &str = "team/mcpctl.toml";

const TEAM: &str = r#"clients = ["cursor", "codex"]

[servers.memory]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-memory"]
"#;

fn changed(run: &crate::env::Run) -> Vec<(String, bool)> {
    run.json()
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["client"].as_str().unwrap().to_owned(),
                i["changed"].as_bool().unwrap(),
            )
        })
        .collect()
}

#[test]
fn apply_exit_code_tells_changed_from_unchanged_from_failed() {
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", &fixture("cursor/mcp.json"));
    env.write(MANIFEST, TEAM.as_bytes());
    let manifest = env.path(MANIFEST);
    let manifest = manifest.to_str().unwrap();
    // A dry run says it would change and writes nothing.
    let dry = env
        .run(&[
            "apply",
            "--manifest",
            manifest,
            "--exit-code",
            "--dry-run",
            "--json",
        ])
        .code(1);
    assert_eq!(
        changed(&dry),
        [("cursor".to_owned(), true), ("codex".to_owned(), true)]
    );
    assert_eq!(env.read(".cursor/mcp.json"), fixture("cursor/mcp.json"));
    // The first apply changes both files: 1, and the JSON says so per file.
    let first = env
        .run(&["apply", "--manifest", manifest, "--exit-code", "--json"])
        .code(1);
    assert_eq!(
        changed(&first),
        [("cursor".to_owned(), true), ("codex".to_owned(), true)]
    );
    // Idempotent: the second changes nothing, 0.
    let second = env
        .run(&["apply", "--manifest", manifest, "--exit-code", "--json"])
        .code(0);
    assert_eq!(
        changed(&second),
        [("cursor".to_owned(), false), ("codex".to_owned(), false)]
    );
    // Without `--exit-code` a change is still 0: the 0/1/2 contract of every command.
    env.write(".cursor/mcp.json", &fixture("cursor/mcp.json"));
    let plain = env.run(&["apply", "--manifest", manifest]).ok();
    assert!(plain.stderr.contains("1 file written"), "{}", plain.stderr);
    // Only the file whose bytes change is `changed`.
    env.write(".cursor/mcp.json", &fixture("cursor/mcp.json"));
    let one = env
        .run(&["apply", "--manifest", manifest, "--exit-code", "--json"])
        .code(1);
    assert_eq!(
        changed(&one),
        [("cursor".to_owned(), true), ("codex".to_owned(), false)]
    );
    // A failure is 2, never 1, so `changed_when: rc == 1` never hides it.
    env.write(".cursor/mcp.json", b"{ not json");
    env.run(&["apply", "--manifest", manifest, "--exit-code"])
        .code(2);
}

/// `~/.cursor/mcp.json` as home-manager leaves it: a link into
/// `/nix/store/…-home-manager-files/`, itself a link to a read-only store file.
#[cfg(unix)]
fn home_manager_link(env: &TestEnv) -> std::path::PathBuf {
    let store = env.dir.path().join("nix/store");
    let files = store.join("0f3k-home-manager-files/.cursor");
    std::fs::create_dir_all(&files).unwrap();
    let real = store.join("9x2a-hm_mcp.json");
    std::fs::write(&real, fixture("cursor/mcp.json")).unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o444)).unwrap();
    symlink(&real, files.join("mcp.json")).unwrap();
    std::fs::create_dir_all(env.path(".cursor")).unwrap();
    symlink(files.join("mcp.json"), env.path(".cursor/mcp.json")).unwrap();
    real
}

#[test]
#[cfg(unix)]
fn a_link_into_the_nix_store_is_refused_as_home_managers() {
    let env = TestEnv::new();
    let real = home_manager_link(&env);
    env.write(".codex/config.toml", &fixture("codex/config.toml"));
    let add = env
        .run(&["add", "memory", "-c", "cursor", "--", "npx", "-y", "m"])
        .code(2);
    // `add` reports each target on stdout, the failed one with its reason.
    assert!(
        add.stdout
            .contains("is managed by home-manager: change it in your Nix configuration"),
        "{}",
        add.stdout
    );
    assert!(add.stdout.contains("home-manager switch"), "{}", add.stdout);
    // plan says so; apply stops before the first write: codex, planned too, is not
    // written either.
    env.write(MANIFEST, TEAM.as_bytes());
    let manifest = env.path(MANIFEST);
    let plan = env
        .run(&["plan", "--manifest", manifest.to_str().unwrap()])
        .ok();
    assert!(
        plan.stderr.contains("managed by home-manager")
            && plan.stderr.contains("`apply` will not write it"),
        "{}{}",
        plan.stdout,
        plan.stderr
    );
    let apply = env
        .run(&["apply", "--manifest", manifest.to_str().unwrap()])
        .code(2);
    assert!(
        apply.stderr.contains("managed by home-manager"),
        "{}",
        apply.stderr
    );
    assert_eq!(env.read(".codex/config.toml"), fixture("codex/config.toml"));
    assert_eq!(std::fs::read(&real).unwrap(), fixture("cursor/mcp.json"));
    // Reading it is fine: the servers home-manager wrote are listed.
    env.run(&["list", "-c", "cursor"]).ok();
}

#[test]
#[cfg(unix)]
fn a_read_only_link_target_is_refused_and_named() {
    let env = TestEnv::new();
    let real = env.dir.path().join("shared/mcp.json");
    std::fs::create_dir_all(real.parent().unwrap()).unwrap();
    std::fs::write(&real, fixture("cursor/mcp.json")).unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o444)).unwrap();
    std::fs::create_dir_all(env.path(".cursor")).unwrap();
    symlink(&real, env.path(".cursor/mcp.json")).unwrap();
    let add = env
        .run(&["add", "memory", "-c", "cursor", "--", "npx", "-y", "m"])
        .code(2);
    assert!(add.stdout.contains("which is read-only"), "{}", add.stdout);
    assert!(add.stdout.contains("chmod u+w"), "{}", add.stdout);
    assert_eq!(std::fs::read(&real).unwrap(), fixture("cursor/mcp.json"));
}

#[test]
#[cfg(unix)]
fn a_stow_link_is_edited_at_its_target_through_apply_undo_and_restore() {
    let env = TestEnv::new();
    // GNU stow: ~/.cursor/mcp.json -> ../dotfiles/cursor/.cursor/mcp.json (relative).
    let real = env.write(
        "dotfiles/cursor/.cursor/mcp.json",
        &fixture("cursor/mcp.json"),
    );
    std::fs::create_dir_all(env.path(".cursor")).unwrap();
    let link = env.path(".cursor/mcp.json");
    symlink("../dotfiles/cursor/.cursor/mcp.json", &link).unwrap();
    let is_link = || {
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    };
    env.write(
        MANIFEST,
        b"clients = [\"cursor\"]\n[servers.memory]\ncommand = \"npx\"\n",
    );
    let manifest = env.path(MANIFEST);
    env.run(&[
        "apply",
        "--manifest",
        manifest.to_str().unwrap(),
        "--exit-code",
    ])
    .code(1);
    assert!(is_link(), "the link is kept");
    let edited = std::fs::read_to_string(&real).unwrap();
    assert!(edited.contains("\"memory\""), "{edited}");
    env.run(&["undo"]).ok();
    assert!(is_link());
    assert_eq!(std::fs::read(&real).unwrap(), fixture("cursor/mcp.json"));
    // Applied again, then the newest backup (the original bytes) put back.
    env.run(&["apply", "--manifest", manifest.to_str().unwrap()])
        .ok();
    assert!(is_link());
    assert_eq!(std::fs::read_to_string(&real).unwrap(), edited);
    env.run(&["restore", "-c", "cursor"]).ok();
    assert!(is_link());
    assert_eq!(std::fs::read(&real).unwrap(), fixture("cursor/mcp.json"));
}

/// `programs.mcp.servers` as home-manager's module writes it (nix-community/home-manager
/// `modules/programs/mcp.nix`; its test `tests/modules/programs/mcp/mcp.json`).
#[cfg(unix)]
const HOME_MANAGER_MCP_JSON: &str = r#"{
  "mcpServers": {
    "context7": {
      "headers": {
        "CONTEXT7_API_KEY": "{env:CONTEXT7_API_KEY}"
      },
      "url": "https://mcp.context7.com/mcp"
    },
    "disabled": {
      "command": "echo",
      "disabled": true
    },
    "everything": {
      "args": [
        "-y",
        "@modelcontextprotocol/server-everything"
      ],
      "command": "npx",
      "env": {
        "DEBUG": "1"
      }
    }
  }
}
"#;

#[test]
#[cfg(unix)]
fn home_managers_mcp_json_is_listed_and_imported_and_never_written() {
    let env = TestEnv::new();
    // As home-manager deploys it: `~/.config/mcp/mcp.json` -> the Nix store.
    let store = env
        .dir
        .path()
        .join("nix/store/7ab2-home-manager-files/.config/mcp");
    std::fs::create_dir_all(&store).unwrap();
    std::fs::write(store.join("mcp.json"), HOME_MANAGER_MCP_JSON).unwrap();
    std::fs::create_dir_all(env.path(".config/mcp")).unwrap();
    symlink(store.join("mcp.json"), env.path(".config/mcp/mcp.json")).unwrap();
    std::fs::create_dir_all(env.path(".cursor")).unwrap();

    let listed = env.run(&["list", "--json"]).ok().json();
    let names: Vec<(&str, &str)> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["client"].as_str().unwrap(), r["name"].as_str().unwrap()))
        .collect();
    assert_eq!(
        names,
        [
            ("home-manager", "context7"),
            ("home-manager", "disabled"),
            ("home-manager", "everything")
        ]
    );
    assert_eq!(listed[1]["disabled"], true);
    // A variable reference is shown as written, not as a redacted secret.
    assert_eq!(
        listed[0]["headers"]["CONTEXT7_API_KEY"],
        "{env:CONTEXT7_API_KEY}"
    );

    // import: a manifest for every detected client, not for home-manager's file.
    let manifest = env.path(MANIFEST);
    let manifest = manifest.to_str().unwrap();
    env.run(&["import", "--manifest", manifest]).ok();
    let text = env.read_str(MANIFEST);
    assert!(!text.contains("clients"), "{text}");
    assert!(
        text.contains("CONTEXT7_API_KEY = \"${CONTEXT7_API_KEY}\""),
        "{text}"
    );
    assert!(text.contains("enabled = false"), "{text}");

    // apply writes the servers into Cursor's own file; home-manager's stays as it was.
    env.run(&["apply", "--manifest", manifest, "--exit-code"])
        .code(1);
    let cursor = crate::env::jsonc(&env.read(".cursor/mcp.json"));
    assert_eq!(
        cursor["mcpServers"]["context7"]["headers"]["CONTEXT7_API_KEY"],
        "${env:CONTEXT7_API_KEY}"
    );
    assert_eq!(
        std::fs::read_to_string(store.join("mcp.json")).unwrap(),
        HOME_MANAGER_MCP_JSON
    );
    env.run(&["apply", "--manifest", manifest, "--exit-code"])
        .code(0);

    // Writing commands never target it: named, it is refused; `--all` leaves it out.
    let add = env
        .run(&["add", "x", "-c", "home-manager", "--", "npx", "x"])
        .code(2);
    assert!(
        add.stderr
            .contains("is managed by home-manager: change it in your Nix configuration"),
        "{}",
        add.stderr
    );
    env.run(&["add", "x", "--all", "--", "npx", "x"]).ok();
    assert_eq!(
        std::fs::read_to_string(store.join("mcp.json")).unwrap(),
        HOME_MANAGER_MCP_JSON
    );
}
