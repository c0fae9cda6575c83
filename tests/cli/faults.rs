//! The fault-injection suite (issue 19): each writing command is killed (SIGKILL, through
//! the debug build's `MCPCTL_FAULT=kill@N` hook, see `src/fault.rs`) at every durable step
//! in turn — every fsync, swap, lock and record — and after each kill no entry is lost
//! (each is in its file or parked), every file still parses, the next run recovers (no
//! intent of a dead command is left, the journal knows what changed), and `undo` after it
//! loses nothing either.

use crate::durability::{faulty, names, parked};
use crate::env::{MANIFEST, TestEnv, jsonc};

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

/// The bytes of the files a scenario touches (`None`: no such file), home-relative, and
/// `state/...` for mcpctl's own.
type Snapshot = Vec<Option<Vec<u8>>>;

fn snapshot(env: &TestEnv, files: &[&str]) -> Snapshot {
    files
        .iter()
        .map(|f| match f.strip_prefix("state/") {
            Some(rest) => std::fs::read(env.dir.path().join("state").join(rest))
                .ok()
                .map(|bytes| portable(env, &bytes)),
            None => std::fs::read(env.path(f)).ok(),
        })
        .collect()
}

/// One of mcpctl's own JSON files as it would read in any test's directory, at any time:
/// the directory and every `time` replaced. The directory is replaced inside the JSON
/// strings (on Windows their backslashes are escaped in the bytes), in both spellings
/// mcpctl keeps: as given, and the verbatim `\\?\` form `canonicalize` answers there.
fn portable(env: &TestEnv, bytes: &[u8]) -> Vec<u8> {
    fn untimed(value: &mut serde_json::Value, dirs: &[String]) {
        match value {
            serde_json::Value::Object(map) => {
                for (key, value) in map.iter_mut() {
                    if key == "time" {
                        *value = serde_json::Value::Null;
                    } else {
                        untimed(value, dirs);
                    }
                }
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(|v| untimed(v, dirs)),
            serde_json::Value::String(text) => {
                for dir in dirs {
                    *text = text.replace(dir, "<dir>");
                }
            }
            _ => {}
        }
    }
    let dir = env.dir.path().to_string_lossy().into_owned();
    let mut dirs = vec![format!(r"\\?\{dir}"), dir];
    if let Ok(real) = std::fs::canonicalize(env.dir.path()) {
        dirs.insert(0, real.to_string_lossy().into_owned());
    }
    let text = String::from_utf8_lossy(bytes);
    let Ok(mut value) = serde_json::from_str::<serde_json::Value>(&text) else {
        return text.replace(&dirs[dirs.len() - 1], "<dir>").into_bytes();
    };
    untimed(&mut value, &dirs);
    value.to_string().into_bytes()
}

/// Which of `known` (named states, each one some command made) `now` is.
fn which(known: &[(String, Snapshot)], now: &Snapshot) -> Option<String> {
    known
        .iter()
        .find(|(_, s)| s == now)
        .map(|(name, _)| name.clone())
}

/// Kill `args` at every durable step in turn (after `setup`, which records the states
/// its commands made); after each kill and the next run's recovery, `undo` (and, in a
/// fresh copy of the same kill, `redo`) must reach a state some command made — never a
/// mix — and further `undo`s and `redo`s must too. A step may refuse ("nothing to redo"
/// after an interrupted command: what it wrote is undone, not redone), writing nothing;
/// with `strict` (an `undo` or `redo` was killed) only where the files are as some
/// command left them already. Returns how many steps `args` has.
fn sweep_states(
    setup: &dyn Fn() -> (TestEnv, Vec<(String, Snapshot)>),
    files: &[&str],
    args: &[&str],
    strict: bool,
) -> usize {
    // What the command makes when it runs to its end is a state some command made too.
    let (env, mut known) = setup();
    env.run(args).ok();
    known.push((format!("{args:?} done"), snapshot(&env, files)));
    for step in 1..200 {
        for then in ["undo", "redo"] {
            let (env, _) = setup();
            let run = faulty(&env, &format!("kill@{step}"), args);
            if run.code != -1 {
                assert_eq!(run.code, 0, "step {step}: {}{}", run.stdout, run.stderr);
                return step - 1;
            }
            let recovered = env.run(&["list", "--json"]);
            assert_eq!(recovered.code, 0, "step {step}: {}", recovered.stderr);
            assert_eq!(intents(&env), Vec::<String>::new(), "step {step}");
            // Then `then`, and more steps both ways: each ends in a known state.
            for (i, verb) in [then, "undo", "undo", "redo", "redo", "redo"]
                .into_iter()
                .enumerate()
            {
                let was = snapshot(&env, files);
                let run = env.run(&[verb]);
                let now = snapshot(&env, files);
                let refused = run.stderr.contains(&format!("nothing to {verb}"));
                // After a kill of an `undo` or `redo`, a refusal is only right where the
                // files are as some command left them already.
                let settled = which(&known, &was).is_some();
                assert!(
                    run.code == 0 || (refused && (settled || !strict)),
                    "{args:?} killed at step {step}, then `{then}`, step {i} `{verb}`: {}",
                    run.stderr
                );
                if run.code != 0 {
                    assert!(now == was, "step {step}: a refused `{verb}` wrote");
                    continue;
                }
                let show = |s: &Snapshot| {
                    s.iter()
                        .map(|b| {
                            b.as_deref()
                                .map_or("<none>".into(), String::from_utf8_lossy)
                        })
                        .collect::<Vec<_>>()
                        .join("\n---\n")
                };
                assert!(
                    which(&known, &now).is_some(),
                    "{args:?} killed at step {step}, then `{then}`, step {i} `{verb}` left a state no command made:\n{}\n{}\n\nthe states some command made with these first files:\n{}",
                    run.stderr,
                    show(&now),
                    known
                        .iter()
                        .filter(|(_, s)| s.first() == now.first())
                        .map(|(name, s)| format!("{name}:\n{}", show(s)))
                        .collect::<Vec<_>>()
                        .join("\n\n")
                );
            }
        }
    }
    panic!("{args:?} never ran to its end");
}

const CODEX: &str = ".codex/config.toml";
/// What the undo/redo sweeps look at.
const UNDONE: &[&str] = &[CURSOR, CLAUDE, CODEX];

/// Three commands' states: the original files, `add w` (one file), `add x` (three: one
/// modified, one created, one more modified).
fn two_commands() -> (TestEnv, Vec<(String, Snapshot)>) {
    let env = cursor_env();
    env.write(CLAUDE, b"{\"theme\": \"dark\", \"mcpServers\": {}}\n");
    let mut known = vec![("original".to_owned(), snapshot(&env, UNDONE))];
    env.run(&["add", "w", "-c", "cursor", "--", "npx", "w"])
        .ok();
    known.push(("add w".to_owned(), snapshot(&env, UNDONE)));
    env.run(&[
        "add",
        "x",
        "-c",
        "cursor,codex,claude-code",
        "--",
        "npx",
        "x",
    ])
    .ok();
    known.push(("add x".to_owned(), snapshot(&env, UNDONE)));
    (env, known)
}

#[test]
fn kill_at_every_step_of_undo_reaches_a_state_some_command_made() {
    let steps = sweep_states(&two_commands, UNDONE, &["undo"], true);
    assert!(steps >= 3 * 4, "{steps} steps");
}

#[test]
fn kill_at_every_step_of_redo_reaches_a_state_some_command_made() {
    let setup = || {
        let (env, known) = two_commands();
        env.run(&["undo"]).ok();
        (env, known)
    };
    let steps = sweep_states(&setup, UNDONE, &["redo"], true);
    assert!(steps >= 3 * 4, "{steps} steps");
}

#[test]
fn kill_at_every_step_of_restore_reaches_a_state_some_command_made() {
    sweep_states(
        &two_commands,
        UNDONE,
        &["restore", "-c", "cursor", "--backup", "2"],
        false,
    );
}

#[test]
fn kill_at_every_step_of_a_profile_switch_then_undo_reaches_a_state_some_command_made() {
    const FILES: &[&str] = &[CURSOR, "state/disabled.json"];
    let setup = || {
        let env = cursor_env();
        env.write(crate::env::MANIFEST, PROFILES.as_bytes());
        let mut known = vec![("original".to_owned(), snapshot(&env, FILES))];
        env.run(&["apply", "--profile", "one"]).ok();
        known.push(("one".to_owned(), snapshot(&env, FILES)));
        env.run(&["apply", "--profile", "two"]).ok();
        known.push(("two".to_owned(), snapshot(&env, FILES)));
        (env, known)
    };
    sweep_states(&setup, FILES, &["apply", "--profile", "one"], false);
}

/// Issue 39 G5: a profile switch writes the same files more than once; killed after the
/// intent of a later write and before that write, the files are as the switch left them
/// one write earlier. `undo` takes the switch back instead of calling them changed.
#[test]
fn a_profile_switch_killed_between_two_writes_of_one_file_is_undone() {
    let env = cursor_env();
    env.write(crate::env::MANIFEST, PROFILES.as_bytes());
    env.run(&["apply", "--profile", "one"]).ok();
    env.run(&["apply", "--profile", "two"]).ok();
    let two = (env.read(CURSOR), snapshot(&env, &["state/disabled.json"]));
    // The second write of disabled.json: its intent is durable, the file not written.
    let run = faulty(
        &env,
        "kill@synced:disabled.json#2",
        &["apply", "--profile", "one"],
    );
    assert_eq!(run.code, -1, "{}", run.stderr);
    let run = env.run(&["undo"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        (env.read(CURSOR), snapshot(&env, &["state/disabled.json"])),
        two
    );
}

/// Whether mcpctl's ledger holds a record of `name`.
fn recorded(env: &TestEnv, name: &str) -> bool {
    let Ok(bytes) = std::fs::read(env.dir.path().join("state/ledger.json")) else {
        return false;
    };
    let ledger: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    ledger["entries"]
        .as_array()
        .is_some_and(|e| e.iter().any(|r| r["name"] == name))
}

/// Issue 39 G13: killed after the swap (the file holds the new entry) and before the
/// ledger record, the entry was recorded nowhere: it read as hand-made from then on. The
/// intent names the entry, so recovery records it (and `undo` forgets it again).
#[test]
fn an_add_killed_after_its_swap_still_owns_the_entry() {
    let env = cursor_env();
    let run = faulty(
        &env,
        "kill@swapped:mcp.json",
        &["add", "a", "-c", "cursor", "--", "npx", "a"],
    );
    assert_eq!(run.code, -1, "{}", run.stderr);
    assert!(names(&env.read(CURSOR)).contains(&"a".to_owned()));
    env.run(&["list"]).ok();
    assert!(recorded(&env, "a"), "the entry is recorded nowhere");
    let run = env.run(&["undo"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(names(&env.read(CURSOR)), ["keep"]);
    assert!(!recorded(&env, "a"), "undo left the record");
}

/// G13 for `apply`: killed after the first file's swap, the entries it wrote are the
/// manifest's, so an `apply` of a manifest without them takes them out again.
#[test]
fn an_apply_killed_after_a_swap_still_owns_its_entries() {
    let env = cursor_env();
    env.write(MANIFEST, THREE.as_bytes());
    let run = faulty(&env, "kill@swapped:mcp.json", &["apply"]);
    assert_eq!(run.code, -1, "{}", run.stderr);
    assert!(names(&env.read(CURSOR)).contains(&"memory".to_owned()));
    env.write(
        MANIFEST,
        b"clients = [\"cursor\", \"claude-code\", \"gemini-cli\"]\n\n[servers]\n",
    );
    let run = env.run(&["apply"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(names(&env.read(CURSOR)), ["keep"], "{}", run.stdout);
}

/// G13 across whole commands: after a kill at any step and the next run's recovery, an
/// entry the command left in its file is recorded in the ledger.
#[test]
fn kill_at_every_step_leaves_no_entry_recorded_nowhere() {
    let check = |name: &'static str| {
        move |env: &TestEnv, when: &str| {
            if when.ends_with("recovered") && names(&env.read(CURSOR)).contains(&name.to_owned()) {
                assert!(recorded(env, name), "{when}: `{name}` is recorded nowhere");
            }
        }
    };
    sweep(
        &cursor_env,
        &["add", "a", "-c", "cursor", "--", "npx", "a"],
        &check("a"),
    );
    let setup = || {
        let env = cursor_env();
        env.write(MANIFEST, THREE.as_bytes());
        env
    };
    sweep(&setup, &["apply"], &check("memory"));
}
