//! Issue 25: a policy file `mcpctl export` writes is one the vendor's own CLI enforces.
//! Neither Claude Code (2.1.332 reads `/etc/claude-code/managed-settings.json`; the
//! directory function has no override) nor Codex (0.171.0 reads
//! `/etc/codex/requirements.toml`) can be pointed elsewhere, so the client runs in a mount
//! namespace where `/etc` is an overlay holding the exported file (`unshare -rm`, no root
//! needed where user namespaces are allowed). The tests are
//! `#[ignore = "needs .ci/clients.sh"]`; run, they fail when the client CLI is missing or
//! no such namespace can be made.

use std::path::{Path, PathBuf};

use crate::client_cli;
use crate::env::{Run, TestEnv};

const MANIFEST: &str = r#"clients = ["claude-code", "codex", "copilot-cli"]

[servers.playwright]
command = "npx"
args = ["-y", "@playwright/mcp@1.2.0"]

[servers.docs]
url = "https://docs.example.com/mcp"

[servers.fetch]
command = "uvx"
args = ["mcp-server-fetch==1.0.0"]
"#;

/// The client CLI `.ci/clients.sh` installed; fails the test when it is not.
fn cli(bin: &str) -> PathBuf {
    client_cli::installed(bin, bin)
}

/// The overlay mount that puts `env`'s `etc/` over the system's `/etc`.
fn overlay(env: &TestEnv) -> String {
    let up = env.path("overlay/up");
    let work = env.path("overlay/work");
    std::fs::create_dir_all(&up).unwrap();
    std::fs::create_dir_all(&work).unwrap();
    format!(
        "mount -t overlay overlay -o lowerdir=/etc,upperdir={},workdir={} /etc",
        up.display(),
        work.display()
    )
}

/// Run `program args` where `/etc/<dir>/<name>` is `file`; fails the test when this
/// machine cannot make such a root (no user namespaces or overlayfs in them).
fn with_system_file(env: &TestEnv, file: &Path, at: &str, program: &Path, args: &[&str]) -> Run {
    let probe = env
        .client_command(Path::new("unshare"))
        .args(["-rm", "sh", "-c", &format!("{} && true", overlay(env))])
        .output();
    if !probe.is_ok_and(|o| o.status.success()) {
        crate::peer::missing(&format!(
            "an overlay on /etc in a user namespace (unshare -rm), to show {} {at}",
            program.display()
        ));
    }
    let dir = Path::new(at).parent().unwrap().display().to_string();
    let script = format!(
        "{} && mkdir -p {dir} && cp {} {at} && exec timeout -k 5 90 \"$@\"",
        overlay(env),
        file.display()
    );
    let mut cmd = env.client_command(Path::new("unshare"));
    cmd.args(["-rm", "sh", "-c", &script, "sh"])
        .arg(program)
        .args(args);
    let out = client_cli::quiet(&mut cmd).output().unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn show(run: &Run) -> String {
    format!("exit {}\n{}\n{}", run.code, run.stdout, run.stderr)
}

/// `mcpctl export --format FORMAT` of [`MANIFEST`], written to `name` in the temp dir.
fn export(env: &TestEnv, format: &str, name: &str) -> PathBuf {
    let manifest = env.write("team.toml", MANIFEST.as_bytes());
    let run = env
        .run(&[
            "export",
            "--format",
            format,
            "--manifest",
            manifest.to_str().unwrap(),
        ])
        .ok();
    env.write(name, run.stdout.as_bytes())
}

#[test]
#[ignore = "needs .ci/clients.sh"]
fn claude_code_enforces_the_exported_managed_settings() {
    let claude = cli("claude");
    let env = TestEnv::new();
    env.write(".claude.json", b"{\"numStartups\": 1}\n");
    let file = export(&env, "claude-managed", "managed-settings.json");
    let at = "/etc/claude-code/managed-settings.json";
    let add = |args: &[&str]| with_system_file(&env, &file, at, &claude, args);
    let refused = add(&["mcp", "add", "other", "--", "uvx", "other-mcp"]);
    assert_ne!(refused.code, 0, "{}", show(&refused));
    assert!(
        format!("{}{}", refused.stdout, refused.stderr)
            .contains("not allowed by enterprise policy"),
        "{}",
        show(&refused)
    );
    let remote = add(&[
        "mcp",
        "add",
        "-t",
        "http",
        "evil",
        "https://evil.example.org/mcp",
    ]);
    assert_ne!(remote.code, 0, "{}", show(&remote));
    for args in [
        &[
            "mcp",
            "add",
            "playwright",
            "--",
            "npx",
            "-y",
            "@playwright/mcp@1.2.0",
        ][..],
        &[
            "mcp",
            "add",
            "-t",
            "http",
            "docs",
            "https://docs.example.com/mcp",
        ][..],
    ] {
        let run = add(args);
        assert_eq!(run.code, 0, "{args:?}: {}", show(&run));
    }
    // mcpctl judges the same file the same way.
    std::fs::create_dir_all(env.sysroot().join("etc/claude-code")).unwrap();
    std::fs::copy(
        &file,
        env.sysroot().join("etc/claude-code/managed-settings.json"),
    )
    .unwrap();
    env.run(&[
        "add",
        "other",
        "-c",
        "claude-code",
        "--",
        "uvx",
        "other-mcp",
    ])
    .code(2);
    env.run(&[
        "add",
        "pw",
        "-c",
        "claude-code",
        "--",
        "npx",
        "-y",
        "@playwright/mcp@1.2.0",
    ])
    .ok();
}

#[test]
#[ignore = "needs .ci/clients.sh"]
fn codex_disables_what_the_exported_requirements_do_not_list() {
    let codex = cli("codex");
    let env = TestEnv::new();
    env.write(
        ".codex/config.toml",
        b"[mcp_servers.docs]\nurl = \"https://docs.example.com/mcp\"\n\n[mcp_servers.playwright]\ncommand = \"npx\"\nargs = [\"-y\", \"@playwright/mcp@1.2.0\"]\n\n[mcp_servers.other]\ncommand = \"uvx\"\nargs = [\"other-mcp\"]\n\n[mcp_servers.fetch]\ncommand = \"uvx\"\nargs = [\"mcp-server-fetch==2.0.0\"]\n",
    );
    let file = export(&env, "codex-requirements", "requirements.toml");
    let run = with_system_file(
        &env,
        &file,
        "/etc/codex/requirements.toml",
        &codex,
        &["mcp", "list", "--json"],
    );
    assert_eq!(run.code, 0, "{}", show(&run));
    let servers: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let enabled = |name: &str| {
        servers
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap_or_else(|| panic!("{name}: {servers}"))["enabled"]
            .clone()
    };
    assert_eq!(enabled("docs"), true);
    assert_eq!(enabled("playwright"), true);
    assert_eq!(enabled("other"), false, "{servers}");
    // Listed, but another version than the manifest pins: the arguments are compared too.
    assert_eq!(enabled("fetch"), false, "{servers}");
    // mcpctl reads the same file as Codex does.
    std::fs::create_dir_all(env.sysroot().join("etc/codex")).unwrap();
    std::fs::copy(&file, env.sysroot().join("etc/codex/requirements.toml")).unwrap();
    let rows = env.run(&["list", "-c", "codex", "--json"]).ok().json();
    let mut blocked: Vec<&str> = rows
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r.get("policy").is_some())
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    blocked.sort_unstable();
    assert_eq!(blocked, ["fetch", "other"]);
}
