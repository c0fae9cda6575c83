//! The fault-injection suite (issue 19): each writing command is killed (SIGKILL, through
//! the debug build's `MCPCTL_FAULT=kill@N` hook, see `src/fault.rs`) at every durable step
//! in turn — every fsync, swap, lock and record — and after each kill no entry is lost
//! (each is in its file or parked), every file still parses, the next run recovers (no
//! intent of a dead command is left, the journal knows what changed), and `undo` after it
//! loses nothing either.

use crate::durability::{faulty, names, parked};
use crate::env::{TestEnv, jsonc};

const CURSOR: &str = ".cursor/mcp.json";
const CLAUDE: &str = ".claude.json";
const GEMINI: &str = ".gemini/settings.json";
const ORIGINAL: &str = "{\n  // hand-made\n  \"mcpServers\": {\n    \"keep\": {\"command\": \"uvx\", \"args\": [\"keep-server\"]}\n  },\n  \"theme\": \"dark\"\n}\n";

/// Intents left in the state directory (of commands that died and were not recovered).
fn intents(env: &TestEnv) -> Vec<String> {
    std::fs::read_dir(env.dir.path().join("state/intents"))
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// `name` is in the cursor file or parked.
fn kept(env: &TestEnv, file: &str, name: &str) -> bool {
    names(&env.read(file)).contains(&name.to_owned()) || parked(env, name)
}

/// Kill `args` at step 1, 2, ... until a run gets to its end; after each kill, `check`
/// (what must hold at every instant) before and after the next run recovers, and after
/// an `undo`. Returns how many steps the command has.
fn sweep(setup: &dyn Fn() -> TestEnv, args: &[&str], check: &dyn Fn(&TestEnv, &str)) -> usize {
    for step in 1..200 {
        let env = setup();
        let run = faulty(&env, &format!("kill@{step}"), args);
        if run.code != -1 {
            assert_eq!(run.code, 0, "step {step}: {}{}", run.stdout, run.stderr);
            check(&env, &format!("{args:?} ran to its end"));
            return step - 1;
        }
        check(&env, &format!("{args:?} killed at step {step}"));
        let next = env.run(&["list", "--json"]);
        assert_eq!(next.code, 0, "step {step}: {}", next.stderr);
        assert_eq!(
            intents(&env),
            Vec::<String>::new(),
            "step {step}: not recovered"
        );
        check(
            &env,
            &format!("{args:?} killed at step {step}, then recovered"),
        );
        let undo = env.run(&["undo"]);
        assert!(
            undo.code == 0
                || undo.stderr.contains("cannot undo")
                || undo.stderr.contains("nothing to undo"),
            "step {step}: {}",
            undo.stderr
        );
        check(
            &env,
            &format!("{args:?} killed at step {step}, then undone"),
        );
    }
    panic!("{args:?} never ran to its end");
}

fn parses(env: &TestEnv, file: &str, when: &str) {
    let bytes = env.read(file);
    assert!(!bytes.is_empty(), "{when}: {file} is empty");
    let _ = jsonc(&bytes);
}

fn cursor_env() -> TestEnv {
    let env = TestEnv::new();
    env.write(CURSOR, ORIGINAL.as_bytes());
    env
}

#[test]
fn kill_at_every_step_of_add_loses_nothing() {
    let steps = sweep(
        &cursor_env,
        &["add", "a", "-c", "cursor", "--", "npx", "a"],
        &|env, when| {
            parses(env, CURSOR, when);
            assert!(kept(env, CURSOR, "keep"), "{when}: keep is gone");
            assert_eq!(jsonc(&env.read(CURSOR))["theme"], "dark", "{when}");
        },
    );
    assert!(steps >= 8, "{steps} steps");
}

#[test]
fn kill_at_every_step_of_disable_and_enable_loses_nothing() {
    let check = |env: &TestEnv, when: &str| {
        parses(env, CURSOR, when);
        assert!(
            kept(env, CURSOR, "keep"),
            "{when}: keep is neither in the file nor parked"
        );
    };
    sweep(&cursor_env, &["disable", "keep", "-c", "cursor"], &check);
    let disabled = || {
        let env = cursor_env();
        env.run(&["disable", "keep", "-c", "cursor"]).ok();
        env
    };
    sweep(&disabled, &["enable", "keep", "-c", "cursor"], &check);
}

const THREE: &str = r#"clients = ["cursor", "claude-code", "gemini-cli"]

[servers.memory]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-memory"]
"#;

#[test]
fn kill_at_every_step_of_apply_to_three_files_loses_nothing() {
    let setup = || {
        let env = cursor_env();
        env.write(
            CLAUDE,
            b"{\"theme\": \"dark\", \"mcpServers\": {\"mine\": {\"command\": \"m\"}}}\n",
        );
        env.write(GEMINI, b"{\"mcpServers\": {\"g\": {\"command\": \"g\"}}}\n");
        env.write(crate::env::MANIFEST, THREE.as_bytes());
        env
    };
    let steps = sweep(&setup, &["apply"], &|env, when| {
        for (file, name) in [(CURSOR, "keep"), (CLAUDE, "mine"), (GEMINI, "g")] {
            parses(env, file, when);
            assert!(kept(env, file, name), "{when}: {name} is gone from {file}");
        }
    });
    assert!(steps >= 3 * 5, "{steps} steps");
}

const PROFILES: &str = r#"clients = ["cursor"]

[servers.a]
command = "npx"
args = ["a"]

[servers.b]
command = "npx"
args = ["b"]

[profiles.one]
servers = ["a"]

[profiles.two]
servers = ["b"]
"#;

#[test]
fn kill_at_every_step_of_a_profile_switch_loses_nothing() {
    let setup = || {
        let env = cursor_env();
        env.write(crate::env::MANIFEST, PROFILES.as_bytes());
        env.run(&["apply", "--profile", "one"]).ok();
        env.run(&["apply", "--profile", "two"]).ok();
        assert!(parked(&env, "a"));
        env
    };
    // Back to `one`: `a` is spliced back, `b` is parked.
    sweep(&setup, &["apply", "--profile", "one"], &|env, when| {
        parses(env, CURSOR, when);
        // An `undo` after a kill that came before any write takes back the command
        // before (`apply --profile two`, which added `b`).
        let names: &[&str] = if when.ends_with("undone") {
            &["keep", "a"]
        } else {
            &["keep", "a", "b"]
        };
        for name in names {
            assert!(
                kept(env, CURSOR, name),
                "{when}: {name} is neither in the file nor parked"
            );
        }
    });
}
