//! Config paths that are not regular files: every command refuses them with exit 2
//! naming the path, never writes, never hangs, never reads without bound. Symlink
//! chains up to the kernel's limit are written through.

#[cfg(unix)]
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::env::{Run, TestEnv};

const CURSOR: &str = ".cursor/mcp.json";

/// Run with a deadline: a hang (a FIFO opened for reading) fails the test instead of
/// blocking it forever.
fn run_bounded(env: &TestEnv, args: &[&str]) -> Run {
    let mut child = env
        .command(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            child.kill().unwrap();
            let _ = child.wait();
            panic!("`mcpctl {}` hung", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().unwrap();
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Every command on the odd file at `~/.cursor/mcp.json` exits 2 naming it (`doctor`
/// exits 1 with a failed `config` check, as for an unparsable file).
#[track_caller]
fn refused_everywhere(env: &TestEnv, what: &str) {
    for (args, code) in [
        (
            &["add", "x", "-c", "cursor", "--", "npx", "-y", "pkg"][..],
            2,
        ),
        (&["remove", "x", "-c", "cursor"], 2),
        (&["list", "-c", "cursor"], 2),
        (&["doctor", "-c", "cursor", "--no-spawn"], 1),
        (&["check", "-c", "cursor", "--user"], 2),
    ] {
        let run = run_bounded(env, args).code(code);
        // `add`/`remove` report per target on stdout; the others fail on stderr.
        let said = format!("{}{}", run.stdout, run.stderr);
        assert!(
            // (`check` joins the row's `.cursor/mcp.json` as one piece: on Windows it
            // shows `…\home\.cursor/mcp.json`.)
            (said.contains(&crate::env::os_path(".cursor/mcp.json"))
                || said.contains(".cursor/mcp.json"))
                && said.contains(what),
            "`{}`: {said}",
            args.join(" "),
        );
    }
}

#[cfg(unix)]
fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid C path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

/// A character device mcpctl must not replace: a private copy of `/dev/null` or
/// `/dev/zero` (major 1, `minor`) when running as root, where replacing the real one
/// would be possible; the real one otherwise, which a non-root user cannot replace.
#[cfg(target_os = "linux")]
fn char_device(env: &TestEnv, minor: u32, real: &str) -> PathBuf {
    // SAFETY: getuid has no preconditions.
    if unsafe { libc::getuid() } != 0 {
        return PathBuf::from(real);
    }
    let path = env.dir.path().join(format!("dev-{minor}"));
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid C path.
    let rc = unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, minor)) };
    assert_eq!(rc, 0, "mknod: {}", std::io::Error::last_os_error());
    path
}

#[cfg(unix)]
#[test]
fn fifo_is_refused_without_hanging() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.path(".cursor")).unwrap();
    mkfifo(&env.path(CURSOR));
    refused_everywhere(&env, "FIFO");
    assert!(
        std::os::unix::fs::FileTypeExt::is_fifo(
            &std::fs::symlink_metadata(env.path(CURSOR))
                .unwrap()
                .file_type()
        ),
        "the FIFO was replaced"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn devices_behind_symlinks_are_refused_and_never_replaced() {
    use std::os::unix::fs::FileTypeExt;
    for (minor, real) in [(3, "/dev/null"), (5, "/dev/zero")] {
        let env = TestEnv::new();
        let device = char_device(&env, minor, real);
        std::fs::create_dir_all(env.path(".cursor")).unwrap();
        std::os::unix::fs::symlink(&device, env.path(CURSOR)).unwrap();
        refused_everywhere(&env, "character device");
        assert!(
            std::fs::metadata(&device)
                .unwrap()
                .file_type()
                .is_char_device(),
            "{} was replaced",
            device.display()
        );
    }
}

#[test]
fn directory_is_refused_not_listed_as_empty() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.path(CURSOR)).unwrap();
    refused_everywhere(&env, "directory");
}

#[cfg(unix)]
#[test]
fn symlink_loop_is_refused_not_listed_as_empty() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.path(".cursor")).unwrap();
    std::os::unix::fs::symlink("loop-b", env.path(CURSOR)).unwrap();
    std::os::unix::fs::symlink("mcp.json", env.path(".cursor/loop-b")).unwrap();
    refused_everywhere(&env, "symbolic links");
}

/// `~/.cursor/mcp.json` → l1 → l2 → … → l`links - 1` → real.json: `links` symlinks.
#[cfg(unix)]
fn chain(env: &TestEnv, links: usize) -> PathBuf {
    let dir = env.path(".cursor");
    std::fs::create_dir_all(&dir).unwrap();
    let real = dir.join("real.json");
    std::fs::write(&real, "{\n  \"mcpServers\": {}\n}\n").unwrap();
    let mut next = real.clone();
    for i in (1..links).rev() {
        let link = dir.join(format!("l{i}"));
        std::os::unix::fs::symlink(&next, &link).unwrap();
        next = link;
    }
    std::os::unix::fs::symlink(&next, env.path(CURSOR)).unwrap();
    real
}

#[cfg(unix)]
#[test]
fn symlink_chain_of_forty_is_written_through_forty_one_refused() {
    let env = TestEnv::new();
    let real = chain(&env, 40);
    run_bounded(
        &env,
        &["add", "x", "-c", "cursor", "--", "npx", "-y", "pkg"],
    )
    .ok();
    assert!(std::fs::read_to_string(&real).unwrap().contains("\"x\""));
    assert!(
        std::fs::symlink_metadata(env.path(CURSOR))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    run_bounded(&env, &["remove", "x", "-c", "cursor"]).ok();
    assert_eq!(
        std::fs::read_to_string(&real).unwrap(),
        "{\n  \"mcpServers\": {}\n}\n"
    );

    let env = TestEnv::new();
    let real = chain(&env, 41);
    run_bounded(
        &env,
        &["add", "x", "-c", "cursor", "--", "npx", "-y", "pkg"],
    )
    .code(2);
    assert_eq!(
        std::fs::read_to_string(&real).unwrap(),
        "{\n  \"mcpServers\": {}\n}\n"
    );
}
