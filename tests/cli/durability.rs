//! The transaction layer's promises (issue 19): no lost update, also across crashes and a
//! full state disk; only what mcpctl can prove it wrote is written back. One test per
//! numbered case of the issue, each run first against the code before the fix.
//! See: issue 19.

#[cfg(target_os = "linux")]
use std::path::Path;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use crate::env::{TestEnv, jsonc};

const CURSOR: &str = ".cursor/mcp.json";
const CLAUDE: &str = ".claude.json";
const ORIGINAL: &str = "{\n  \"note\": \"hand-made\",\n  \"mcpServers\": {\n    \"keep\": {\"command\": \"uvx\", \"args\": [\"keep-server\"]}\n  },\n  \"theme\": \"dark\"\n}\n";

/// `env.command(args)` with a fault armed (see `src/fault.rs`).
pub fn faulty(env: &TestEnv, fault: &str, args: &[&str]) -> crate::env::Run {
    let mut command = env.command(args);
    command.env("MCPCTL_FAULT", fault);
    run_of(command)
}

/// [`crate::env::Run`] of `command`, a kill as code -1: a signal on Unix (no exit code);
/// on Windows the fault hook's `abort()`, which ends the process with
/// `STATUS_STACK_BUFFER_OVERRUN` (0xC0000409).
pub fn run_of(mut command: std::process::Command) -> crate::env::Run {
    let out = crate::env::output_of(&mut command);
    let code = match out.status.code() {
        Some(code) if !(cfg!(windows) && code as u32 == 0xC000_0409) => code,
        _ => -1,
    };
    crate::env::Run {
        code,
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The names in a JSON(C) file's `mcpServers`.
pub fn names(bytes: &[u8]) -> Vec<String> {
    let doc = jsonc(bytes);
    doc["mcpServers"]
        .as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default()
}

/// Whether `name` is parked for `file` in mcpctl's state directory.
pub fn parked(env: &TestEnv, name: &str) -> bool {
    let Ok(bytes) = std::fs::read(env.dir.path().join("state/disabled.json")) else {
        return false;
    };
    let store: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    store["parked"]
        .as_array()
        .is_some_and(|p| p.iter().any(|p| p["entry"]["name"] == name))
}

/// Case 1: another program truncates `~/.claude.json` and writes it back in place. `add`
/// reading in that gap sees 0 bytes of a file that had content a moment ago: that is a
/// file being written, not an empty config.
#[cfg(unix)]
#[test]
fn in_place_writer_mid_write_is_waited_for_not_read_as_empty() {
    use std::io::Write;
    let env = TestEnv::new();
    let path = env.write(
        CLAUDE,
        ORIGINAL
            .replace("\"note\": \"hand-made\",\n  ", "")
            .as_bytes(),
    );
    env.run(&["add", "a", "-c", "claude-code", "--", "npx", "a"])
        .ok();
    let content = env.read(CLAUDE);
    // The other program's `fs.writeFileSync`: open with O_TRUNC ... write.
    let mut writer = std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(&path)
        .unwrap();
    let child = env
        .command(&["add", "b", "-c", "claude-code", "--", "npx", "b"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(400));
    writer.write_all(&content).unwrap();
    writer.sync_all().unwrap();
    drop(writer);
    let out = child.wait_with_output().unwrap();
    let now = jsonc(&env.read(CLAUDE));
    assert_eq!(
        now["theme"],
        "dark",
        "the other settings are gone: {now}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let servers = names(&env.read(CLAUDE));
    assert!(
        servers.contains(&"keep".to_owned()) && servers.contains(&"a".to_owned()),
        "{servers:?}"
    );
    if out.status.success() {
        assert!(servers.contains(&"b".to_owned()), "{servers:?}");
    }
}

/// Issue 39 G1: the same for a file mcpctl never wrote, whose writer takes longer than a
/// glance (400 ms) to write it back. Before, mcpctl waited 40 ms for such a file, read it
/// as empty and replaced `~/.claude.json` with only its own entry (rc 0): every other
/// setting gone, the writer's bytes landing in the displaced inode.
#[cfg(unix)]
#[test]
fn in_place_writer_of_a_file_mcpctl_never_wrote_is_waited_for() {
    use std::io::Write;
    let env = TestEnv::new();
    let path = env.write(CLAUDE, ORIGINAL.as_bytes());
    let mut writer = std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(&path)
        .unwrap();
    let child = env
        .command(&["add", "b", "-c", "claude-code", "--", "npx", "b"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(400));
    writer.write_all(ORIGINAL.as_bytes()).unwrap();
    writer.sync_all().unwrap();
    drop(writer);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let now = jsonc(&env.read(CLAUDE));
    assert_eq!(
        now["theme"], "dark",
        "the other settings are gone: {now}\n{stderr}"
    );
    let servers = names(&env.read(CLAUDE));
    assert!(
        servers.contains(&"keep".to_owned()),
        "{servers:?}\n{stderr}"
    );
    assert!(out.status.success(), "{stderr}");
    assert!(servers.contains(&"b".to_owned()), "{servers:?}");
    assert!(
        env.read(CLAUDE)
            .starts_with(b"{\n  \"note\": \"hand-made\""),
        "{now}"
    );
}

/// Issue 39 G1: a config file of 0 bytes that nobody is writing is reported, not replaced
/// by a document holding only mcpctl's entry; `--force` writes it.
#[test]
fn an_empty_config_file_is_reported_and_force_writes_it() {
    let env = TestEnv::new();
    env.write(CURSOR, b"");
    let run = env.run(&["add", "a", "-c", "cursor", "--", "npx", "a"]);
    assert_eq!(run.code, 2, "{run:?}");
    let said = format!("{}{}", run.stdout, run.stderr);
    assert!(said.contains("is empty (0 bytes)"), "{said}");
    assert!(said.contains("again with `--force`"), "{said}");
    assert!(env.read(CURSOR).is_empty(), "the empty file was written");
    env.run(&["add", "a", "-c", "cursor", "--force", "--", "npx", "a"])
        .ok();
    assert_eq!(names(&env.read(CURSOR)), ["a"]);
}

/// Issue 39 G1/G12: a file another program holds open for writing and that stays empty is
/// reported as being written (by `list` too, not as a file without servers), and no
/// command writes it.
#[cfg(target_os = "linux")]
#[test]
fn a_file_held_open_empty_by_a_writer_is_reported_as_being_written() {
    let env = TestEnv::new();
    let path = env.write(
        CURSOR,
        b"{\"mcpServers\": {\"keep\": {\"command\": \"uvx\"}}}\n",
    );
    let writer = std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(&path)
        .unwrap();
    let list = env.run(&["list", "-c", "cursor"]);
    assert!(
        list.stdout.contains("being written") || list.stderr.contains("being written"),
        "{list:?}"
    );
    let add = env.run(&["add", "a", "-c", "cursor", "--force", "--", "npx", "a"]);
    assert_eq!(add.code, 2, "{add:?}");
    let said = format!("{}{}", add.stdout, add.stderr);
    assert!(said.contains("being written by another program"), "{said}");
    assert!(said.contains("let the other program finish"), "{said}");
    assert!(add.stderr.contains("waiting for"), "{}", add.stderr);
    drop(writer);
    assert!(env.read(CURSOR).is_empty());
}

/// `args` started with a `pause@…` fault armed, once it waits at that step: the child and
/// the gate file that lets it go on (see `src/fault.rs`).
fn paused(env: &TestEnv, args: &[&str], fault: &str) -> (std::process::Child, PathBuf) {
    let gate = env.dir.path().join("gate");
    let child = env
        .command(args)
        .env("MCPCTL_FAULT", fault)
        .env("MCPCTL_FAULT_GATE", &gate)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let waiting = env.dir.path().join("gate.waiting");
    for _ in 0..4000 {
        if waiting.exists() {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(
        waiting.exists(),
        "`{}` never reached `{fault}`",
        args.join(" ")
    );
    (child, gate)
}

/// A tmpfs of `size` mounted over `dir` (root only; `None` elsewhere: the test is skipped).
#[cfg(target_os = "linux")]
pub struct Mount(PathBuf);

#[cfg(target_os = "linux")]
impl Mount {
    pub fn tmpfs(dir: &Path, size: &str) -> Option<Mount> {
        std::fs::create_dir_all(dir).unwrap();
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        ok.then(|| Mount(dir.to_path_buf()))
    }

    /// Fill the file system to the last byte.
    pub fn fill(&self) {
        use std::io::Write;
        let mut file = std::fs::File::create(self.0.join("filler")).unwrap();
        let block = vec![0u8; 4096];
        while file.write_all(&block).is_ok() {}
        let _ = file.sync_all();
    }

    pub fn unfill(&self) {
        let _ = std::fs::remove_file(self.0.join("filler"));
    }
}

#[cfg(target_os = "linux")]
impl Drop for Mount {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(&self.0)
            .status();
    }
}

/// Every file under `dir`, recursively, with its size.
#[cfg(target_os = "linux")]
fn files_under(dir: &Path) -> Vec<(PathBuf, u64)> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let meta = entry.metadata().unwrap();
        if meta.is_dir() {
            out.extend(files_under(&entry.path()));
        } else {
            out.push((entry.path(), meta.len()));
        }
    }
    out
}

/// Case 2: the state file system is full. `disable` must not cut an entry it cannot park,
/// a write must not go ahead without its backup, and no empty "backup" is left behind.
#[cfg(target_os = "linux")]
#[test]
fn full_state_disk_refuses_the_command_and_changes_nothing() {
    let env = TestEnv::new();
    env.write(CURSOR, ORIGINAL.as_bytes());
    let Some(mount) = Mount::tmpfs(&env.dir.path().join("state"), "256k") else {
        return;
    };
    // The locks and directories exist (a first command ran), then the disk fills up.
    env.run(&["add", "first", "-c", "cursor", "--", "npx", "first"])
        .ok();
    let before = env.read(CURSOR);
    mount.fill();
    let run = env.run(&["disable", "keep", "-c", "cursor"]).code(2);
    assert_eq!(
        env.read(CURSOR),
        before,
        "disable changed the file: {run:?}",
        run = run.stdout
    );
    let run = env
        .run(&["add", "a", "-c", "cursor", "--", "npx", "a"])
        .code(2);
    assert_eq!(env.read(CURSOR), before, "add wrote without a backup");
    let said = format!("{}{}", run.stdout, run.stderr);
    assert!(said.contains("state directory"), "{said}");
    let backups = env.dir.path().join("state/backups");
    let empty: Vec<_> = files_under(&backups)
        .into_iter()
        .filter(|(_, size)| *size == 0)
        .collect();
    assert!(empty.is_empty(), "empty backups: {empty:?}");
    mount.unfill();
    // With room again, everything works and nothing was lost.
    env.run(&["disable", "keep", "-c", "cursor"]).ok();
    env.run(&["enable", "keep", "-c", "cursor"]).ok();
    assert_eq!(env.read(CURSOR), before);
    drop(mount);
}

/// Case 2, restore: a backup whose bytes are not the ones mcpctl kept (here: emptied, as a
/// failed copy leaves it) is never written over the config.
#[test]
fn restore_refuses_a_backup_it_cannot_verify() {
    let env = TestEnv::new();
    env.write(CURSOR, ORIGINAL.as_bytes());
    env.run(&["add", "a", "-c", "cursor", "--", "npx", "a"])
        .ok();
    let listed = env.run(&["backups", "-c", "cursor", "--json"]).ok().json();
    let backup = listed[0]["backup"].as_str().unwrap().to_owned();
    std::fs::write(&backup, b"").unwrap();
    let now = env.read(CURSOR);
    let run = env.run(&["restore", "-c", "cursor"]).code(2);
    assert_eq!(env.read(CURSOR), now, "{}", run.stdout);
    assert!(run.stderr.contains("backup"), "{}", run.stderr);
}

/// Case 3: `kill -9` during `disable` (here: right after the cut reached the file). The
/// entry is in the file or parked, never neither, and `enable` brings it back.
#[test]
fn kill_during_disable_never_loses_the_entry() {
    let env = TestEnv::new();
    env.write(CURSOR, ORIGINAL.as_bytes());
    faulty(
        &env,
        "kill@swapped:mcp.json",
        &["disable", "keep", "-c", "cursor"],
    );
    let in_file = names(&env.read(CURSOR)).contains(&"keep".to_owned());
    assert!(in_file || parked(&env, "keep"), "the entry is gone");
    env.run(&["enable", "keep", "-c", "cursor"]).ok();
    assert!(names(&env.read(CURSOR)).contains(&"keep".to_owned()));
}

const THREE: &str = r#"clients = ["cursor", "claude-code", "gemini-cli"]

[servers.memory]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-memory"]
"#;

/// Case 4: `apply` writes three files, the last write fails, and while it puts the first
/// ones back another mcpctl adds an entry to one of them. That entry survives, and
/// `apply` says which file it could not put back.
#[test]
fn apply_rollback_never_erases_a_concurrent_add() {
    let env = TestEnv::new();
    env.write(CURSOR, ORIGINAL.as_bytes());
    env.write(CLAUDE, b"{\"theme\": \"dark\"}\n");
    env.write(".gemini/settings.json", b"{}\n");
    env.write(crate::env::MANIFEST, THREE.as_bytes());
    let gate = env.dir.path().join("gate");
    let mut command = env.command(&["apply"]);
    command
        .env(
            "MCPCTL_FAULT",
            "fail@synced:settings.json,pause@lock:mcp.json#2",
        )
        .env("MCPCTL_FAULT_GATE", &gate)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = command.spawn().unwrap();
    let waiting = env.dir.path().join("gate.waiting");
    for _ in 0..2000 {
        if waiting.exists() {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(waiting.exists(), "apply never reached its rollback");
    // The concurrent add writes the file (and prints "added"); its ledger record waits
    // for the state lock `apply` holds.
    let adder = env
        .command(&["add", "concurrent", "-c", "cursor", "--", "npx", "c"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    for _ in 0..2000 {
        if names(&env.read(CURSOR)).contains(&"concurrent".to_owned()) {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    std::fs::write(&gate, b"go").unwrap();
    let out = child.wait_with_output().unwrap();
    let added = adder.wait_with_output().unwrap();
    assert!(
        added.status.success(),
        "{}",
        String::from_utf8_lossy(&added.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let servers = names(&env.read(CURSOR));
    assert!(
        servers.contains(&"concurrent".to_owned()),
        "the concurrent add was erased: {servers:?}\n{stderr}"
    );
    assert!(
        stderr.contains(&crate::env::os_path(".cursor/mcp.json")),
        "{stderr}"
    );
}

/// A command whose intent file exists but is not locked yet is alive, not dead: a
/// concurrent command's recovery must not take its intent for a dead one's and delete it
/// (the first command then failed "cannot write journal/…: No such file or directory"
/// after its client file had changed, and its record was gone).
#[test]
fn a_starting_command_is_not_recovered_as_dead_by_a_concurrent_one() {
    let env = TestEnv::new();
    env.write(CURSOR, ORIGINAL.as_bytes());
    env.write(CLAUDE, b"{\"theme\": \"dark\"}\n");
    let (first, gate) = paused(
        &env,
        &["add", "first", "-c", "cursor", "--", "npx", "first"],
        "pause@intent-created*",
    );
    env.run(&["add", "second", "-c", "claude-code", "--", "npx", "second"])
        .ok();
    std::fs::write(&gate, b"go").unwrap();
    let out = first.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(names(&env.read(CURSOR)).contains(&"first".to_owned()));
    // Both commands are in the journal: two undos take back both.
    env.run(&["undo"]).ok();
    env.run(&["undo"]).ok();
    assert_eq!(env.read(CURSOR), ORIGINAL.as_bytes());
}

/// Case 5: a crash after the client file was written and before the journal record. The
/// next `undo` takes back that interrupted command, not the one before it.
#[test]
fn crash_before_the_journal_record_is_undone_not_the_command_before() {
    let env = TestEnv::new();
    env.write(CURSOR, ORIGINAL.as_bytes());
    env.run(&["add", "a", "-c", "cursor", "--", "npx", "a"])
        .ok();
    let after_a = env.read(CURSOR);
    faulty(
        &env,
        "kill@lock:lock",
        &["add", "b", "-c", "cursor", "--", "npx", "b"],
    );
    assert!(names(&env.read(CURSOR)).contains(&"b".to_owned()));
    let run = env.run(&["undo"]).ok();
    assert_eq!(env.read(CURSOR), after_a, "{}", run.stdout);
}

/// Case 6: `enable` put the entry back in its file, then dropping the parked record failed.
/// The row does not say "failed" for a file that changed; it says what happened and what
/// did not.
#[test]
fn a_later_failure_does_not_call_a_written_file_failed() {
    let env = TestEnv::new();
    env.write(CURSOR, ORIGINAL.as_bytes());
    env.run(&["disable", "keep", "-c", "cursor"]).ok();
    let run = faulty(
        &env,
        "fail@synced:disabled.json",
        &["enable", "keep", "-c", "cursor", "--json"],
    )
    .code(2);
    assert!(names(&env.read(CURSOR)).contains(&"keep".to_owned()));
    let rows = run.json();
    assert_eq!(rows[0]["action"], "enabled", "{rows}");
    assert!(
        rows[0]["error"]
            .as_str()
            .unwrap_or("")
            .contains("disabled.json"),
        "{rows}"
    );
    // The next `enable` finds it in the file and drops the parked copy.
    env.run(&["enable", "keep", "-c", "cursor"]).ok();
    assert!(!parked(&env, "keep"));
}

/// Case 7: a backup of a 0644 file in a 0700 directory is not readable by others.
#[cfg(unix)]
#[test]
fn backups_are_no_wider_than_the_directory_allows() {
    use std::os::unix::fs::PermissionsExt;
    let env = TestEnv::new();
    let path = env.write(CURSOR, ORIGINAL.as_bytes());
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    std::fs::set_permissions(
        path.parent().unwrap(),
        std::fs::Permissions::from_mode(0o700),
    )
    .unwrap();
    env.run(&["add", "a", "-c", "cursor", "--", "npx", "a"])
        .ok();
    let listed = env.run(&["backups", "-c", "cursor", "--json"]).ok().json();
    let backup = listed[0]["backup"].as_str().unwrap().to_owned();
    let mode = std::fs::metadata(&backup).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode & 0o077, 0, "backup mode {mode:o}");
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o644, "the config keeps its own mode");
}

/// Case 7: run as root on a user's file, the file and its backup stay the user's.
#[cfg(unix)]
#[test]
fn root_keeps_the_owner_of_a_users_file_and_its_backup() {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return;
    }
    let env = TestEnv::new();
    let path = env.write(CURSOR, ORIGINAL.as_bytes());
    std::os::unix::fs::chown(&path, Some(4242), Some(4243)).unwrap();
    env.run(&["add", "a", "-c", "cursor", "--", "npx", "a"])
        .ok();
    let meta = std::fs::metadata(&path).unwrap();
    assert_eq!((meta.uid(), meta.gid()), (4242, 4243), "the config");
    let listed = env.run(&["backups", "-c", "cursor", "--json"]).ok().json();
    let backup = listed[0]["backup"].as_str().unwrap().to_owned();
    let meta = std::fs::metadata(&backup).unwrap();
    assert_eq!((meta.uid(), meta.gid()), (4242, 4243), "the backup");
}

/// Case 7: a config behind a relative symlink (GNU stow) is backed up and restored
/// through the link, and the link stays a link.
#[cfg(unix)]
#[test]
fn stow_style_relative_symlink_is_backed_up_and_restored() {
    let env = TestEnv::new();
    let real = env.write("dotfiles/cursor/.cursor/mcp.json", ORIGINAL.as_bytes());
    std::fs::create_dir_all(env.path(".cursor")).unwrap();
    std::os::unix::fs::symlink("../dotfiles/cursor/.cursor/mcp.json", env.path(CURSOR)).unwrap();
    env.run(&["add", "a", "-c", "cursor", "--", "npx", "a"])
        .ok();
    let listed = env.run(&["backups", "-c", "cursor", "--json"]).ok().json();
    assert_eq!(listed.as_array().map(Vec::len), Some(1), "{listed}");
    env.run(&["restore", "-c", "cursor"]).ok();
    assert_eq!(std::fs::read(&real).unwrap(), ORIGINAL.as_bytes());
    assert!(
        std::fs::symlink_metadata(env.path(CURSOR))
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

/// Case 1 for a big file: another program rewrites `~/.claude.json` in place (`O_TRUNC`,
/// then write) over and over while mcpctl edits it. No run may end by a signal (a memory
/// map of a file cut short would raise `SIGBUS`; mcpctl reads into a buffer), none may
/// write from a half-written read, and the other program's settings survive every run.
#[cfg(target_os = "linux")]
#[test]
fn in_place_writer_of_a_big_file_never_ends_mcpctl_by_a_signal() {
    use std::io::Write;
    use std::os::unix::process::ExitStatusExt;
    use std::sync::atomic::{AtomicBool, Ordering};
    let env = TestEnv::new();
    let history: String = (0..50_000)
        .map(|i| format!("    {{\"display\": \"change #{i} — ünïcödé\"}},\n"))
        .collect();
    let content = format!(
        "{{\n  \"theme\": \"dark\",\n  \"history\": [\n{history}    {{}}\n  ],\n  \"mcpServers\": {{}}\n}}\n"
    );
    assert!(content.len() > 2 << 20, "{} bytes", content.len());
    let path = env.write(CLAUDE, content.as_bytes());
    let stop = AtomicBool::new(false);
    /// Stops the writer also when an assertion fails (the scope waits for it).
    struct Stop<'a>(&'a AtomicBool);
    impl Drop for Stop<'_> {
        fn drop(&mut self) {
            self.0.store(true, Ordering::Relaxed);
        }
    }
    std::thread::scope(|scope| {
        let _stop = Stop(&stop);
        scope.spawn(|| {
            while !stop.load(Ordering::Relaxed) {
                let mut writer = std::fs::OpenOptions::new()
                    .write(true)
                    .truncate(true)
                    .open(&path)
                    .unwrap();
                std::thread::sleep(Duration::from_millis(2));
                writer.write_all(content.as_bytes()).unwrap();
                drop(writer);
                std::thread::sleep(Duration::from_millis(3));
            }
        });
        for i in 0..12 {
            let name = format!("s{i}");
            let out = env
                .command(&["add", &name, "-c", "claude-code", "--", "npx", "x"])
                .output()
                .unwrap();
            assert_eq!(
                out.status.signal(),
                None,
                "run {i} ended by a signal: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    });
    let now = jsonc(&env.read(CLAUDE));
    assert_eq!(now["theme"], "dark");
    assert_eq!(now["history"].as_array().map(Vec::len), Some(50_001));
}

/// The file cut short after mcpctl read it (a writer's `O_TRUNC`, then a shorter file
/// written back) and before mcpctl writes: the write finds another version there, so
/// the file is read again and edited as it is now — nothing written from the old read.
/// (It paused at the read of a memory map when there was one; the first step after the
/// read now.)
#[cfg(target_os = "linux")]
#[test]
fn a_big_file_cut_short_while_parsed_is_read_again() {
    let env = TestEnv::new();
    let pad = "x".repeat(3 << 20);
    let path = env.write(
        CLAUDE,
        format!("{{\"theme\": \"dark\", \"pad\": \"{pad}\", \"mcpServers\": {{}}}}\n").as_bytes(),
    );
    let (child, gate) = paused(
        &env,
        &["add", "a", "-c", "claude-code", "--", "npx", "a"],
        "pause@intent-created*",
    );
    std::fs::write(&path, b"{\"theme\": \"light\", \"mcpServers\": {}}\n").unwrap();
    std::fs::write(&gate, b"go").unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let now = jsonc(&env.read(CLAUDE));
    assert_eq!(now["theme"], "light", "{now}");
    assert!(names(&env.read(CLAUDE)).contains(&"a".to_owned()));
}

/// A config path of any length the OS takes is written, backed up, listed, undone and
/// restored: a backup's name is bounded however long the path (209 characters failed
/// with "free space" advice; issue 37 item 5).
#[test]
fn a_long_config_path_is_backed_up_undone_and_restored() {
    const CODEX: &str = "# mine\nmodel = \"o3\"\n";
    for length in [209, 1000] {
        let mut env = TestEnv::new();
        let mut dir = env.home();
        let mut segment = 0;
        while dir.as_os_str().len() < length {
            let room = length - dir.as_os_str().len() - 1;
            let part = format!("{segment}{}", "d".repeat(200))
                .chars()
                .take(room.clamp(1, 200))
                .collect::<String>();
            dir.push(part);
            segment += 1;
        }
        assert_eq!(dir.as_os_str().len(), length);
        std::fs::create_dir_all(&dir).unwrap();
        let config = dir.join("config.toml");
        std::fs::write(&config, CODEX).unwrap();
        env.extra_env
            .push(("CODEX_HOME".to_owned(), dir.to_str().unwrap().to_owned()));
        let run = env.run(&["add", "x", "-c", "codex", "--", "node", "x.js"]);
        assert_eq!(run.code, 0, "{length}: {}", run.stderr);
        let with_x = std::fs::read_to_string(&config).unwrap();
        assert!(with_x.contains("[mcp_servers.x]"), "{with_x}");
        let listed = env.run(&["backups", "-c", "codex", "--json"]).ok().json();
        assert_eq!(
            listed.as_array().map(Vec::len),
            Some(1),
            "{length}: {listed}"
        );
        let name = std::path::Path::new(listed[0]["backup"].as_str().unwrap())
            .file_name()
            .unwrap()
            .len();
        assert!(name <= 200, "{length}: a backup name of {name} bytes");
        env.run(&["undo"]).ok();
        assert_eq!(std::fs::read_to_string(&config).unwrap(), CODEX);
        env.run(&["restore", "-c", "codex"]).ok();
        assert_eq!(std::fs::read_to_string(&config).unwrap(), with_x);
    }
}

/// Issue 39 G14: two overlapping commands, the one started first writing last. The
/// journal is in the order the commands finished, so `undo` takes back the one that
/// wrote last (whose files are as it left them), then the other; no `--force`, and no
/// entry lost.
#[test]
fn overlapping_commands_are_undone_in_the_order_they_finished() {
    let env = TestEnv::new();
    env.write(CURSOR, ORIGINAL.as_bytes());
    env.write(CLAUDE, b"{\"theme\": \"dark\"}\n");
    let (first, gate) = paused(
        &env,
        &["add", "a", "-c", "cursor,claude-code", "--", "npx", "a"],
        "pause@swapped:mcp.json",
    );
    // Started second, finished first: `b` into the file `a` is still to be written to.
    env.run(&["add", "b", "-c", "claude-code", "--", "npx", "b"])
        .ok();
    std::fs::write(&gate, b"go").unwrap();
    let out = first.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(names(&env.read(CLAUDE)), ["b", "a"]);
    let run = env.run(&["undo"]).ok();
    assert!(run.stderr.contains("undid `add a`"), "{}", run.stderr);
    assert_eq!(names(&env.read(CLAUDE)), ["b"]);
    assert_eq!(names(&env.read(CURSOR)), ["keep"]);
    let run = env.run(&["undo"]).ok();
    assert!(run.stderr.contains("undid `add b`"), "{}", run.stderr);
    assert_eq!(env.read(CLAUDE), b"{\"theme\": \"dark\"}\n");
}

/// Issue 39 G14: where `undo` must refuse because another command mcpctl remembers wrote
/// the file since (here one that died after writing it, recorded by when it began), it
/// never suggests a `--force` that would lose that command's entry.
#[test]
fn undo_never_suggests_a_force_that_loses_another_commands_entry() {
    let env = TestEnv::new();
    env.write(CURSOR, ORIGINAL.as_bytes());
    env.write(CLAUDE, b"{\"theme\": \"dark\"}\n");
    let (first, gate) = paused(
        &env,
        &["add", "a", "-c", "cursor,claude-code", "--", "npx", "a"],
        "pause@swapped:mcp.json,kill@swapped:.claude.json",
    );
    env.run(&["add", "b", "-c", "claude-code", "--", "npx", "b"])
        .ok();
    std::fs::write(&gate, b"go").unwrap();
    let out = first.wait_with_output().unwrap();
    // Killed: by a signal on Unix (no code); on Windows by the hook's abort (0xC0000409).
    let killed = out
        .status
        .code()
        .is_none_or(|code| cfg!(windows) && code as u32 == 0xC000_0409);
    assert!(killed, "killed: {:?}", out.status);
    assert_eq!(names(&env.read(CLAUDE)), ["b", "a"]);
    // `add b` committed last, but the file is as the dead `add a` left it.
    let run = env.run(&["undo"]).code(2);
    assert!(run.stderr.contains("cannot undo `add b`"), "{}", run.stderr);
    assert!(!run.stderr.contains("--force"), "{}", run.stderr);
    assert!(
        run.stderr.contains("`add a (interrupted)` wrote it since"),
        "{}",
        run.stderr
    );
    assert_eq!(names(&env.read(CLAUDE)), ["b", "a"]);
}
