//! `TestEnv`: a temporary HOME (and APPDATA, LOCALAPPDATA, XDG_CONFIG_HOME inside it),
//! a clean environment, and helpers to run the binary and compare files as bytes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub struct TestEnv {
    pub dir: tempfile::TempDir,
    pub extra_env: Vec<(String, String)>,
}

#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// Run `command` to the end and keep its exit code and output.
    pub fn of(mut command: Command) -> Run {
        let Output {
            status,
            stdout,
            stderr,
        } = command.output().unwrap();
        Run {
            code: status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&stdout).into_owned(),
            stderr: String::from_utf8_lossy(&stderr).into_owned(),
        }
    }

    #[track_caller]
    pub fn ok(self) -> Run {
        assert_eq!(
            self.code, 0,
            "stdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        self
    }

    #[track_caller]
    pub fn code(self, code: i32) -> Run {
        assert_eq!(
            self.code, code,
            "stdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        self
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", self.stdout))
    }
}

pub fn fixture(rel: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(rel),
    )
    .unwrap()
}

impl TestEnv {
    pub fn new() -> TestEnv {
        TestEnv {
            dir: tempfile::tempdir().unwrap(),
            extra_env: Vec::new(),
        }
    }

    pub fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    /// The root system paths resolve under (`MCPCTL_SYSROOT`): `/etc/...` is `sysroot/etc/...`.
    pub fn sysroot(&self) -> PathBuf {
        self.dir.path().join("sysroot")
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.home().join(rel)
    }

    pub fn write(&self, rel: &str, bytes: &[u8]) -> PathBuf {
        let path = self.path(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, bytes).unwrap();
        path
    }

    pub fn read(&self, rel: &str) -> Vec<u8> {
        std::fs::read(self.path(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
    }

    pub fn read_str(&self, rel: &str) -> String {
        String::from_utf8(self.read(rel)).unwrap()
    }

    pub fn command(&self, args: &[&str]) -> Command {
        self.command_of(Path::new(env!("CARGO_BIN_EXE_mcpctl")), args)
    }

    /// [`TestEnv::command`] running the mcpctl binary at `program` (a renamed copy).
    pub fn command_of(&self, program: &Path, args: &[&str]) -> Command {
        let home = self.home();
        std::fs::create_dir_all(&home).unwrap();
        let bin = self.dir.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let mut cmd = Command::new(program);
        cmd.args(args)
            .env_clear()
            .env("HOME", &home)
            .env("USERPROFILE", &home)
            .env("APPDATA", home.join("AppData/Roaming"))
            .env("LOCALAPPDATA", home.join("AppData/Local"))
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .env("MCPCTL_STATE_DIR", self.dir.path().join("state"))
            // System paths (Claude Code's managed-mcp.json) resolve inside the temp dir.
            .env("MCPCTL_SYSROOT", self.sysroot())
            .env("ProgramFiles", self.sysroot().join("Program Files"))
            .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
            // Row ages (`clients`: stale after 90 days) as of the day the table was checked,
            // so outputs do not change with the calendar.
            .env("MCPCTL_TODAY", "2026-12-01")
            .env("NO_COLOR", "1")
            .env("COLUMNS", "100")
            // The tests' `--platform windows` writes go to a temporary HOME; the refusal
            // on a real one has its own test (`first_hour`).
            .env("MCPCTL_FORCE_PLATFORM", "1")
            .current_dir(&home)
            .stdin(Stdio::null());
        for (k, v) in &self.extra_env {
            cmd.env(k, v);
        }
        cmd
    }

    pub fn run(&self, args: &[&str]) -> Run {
        Run::of(self.command(args))
    }

    /// [`TestEnv::run`] with the working directory (the project) at `rel` under HOME.
    pub fn run_in(&self, rel: &str, args: &[&str]) -> Run {
        let dir = self.path(rel);
        std::fs::create_dir_all(&dir).unwrap();
        let mut command = self.command(args);
        command.current_dir(dir);
        Run::of(command)
    }

    /// A `Command` for another program (a client's own CLI) with this environment: the same
    /// HOME, USERPROFILE, APPDATA, LOCALAPPDATA, XDG_CONFIG_HOME, extra variables and working
    /// directory as [`TestEnv::command`], and a PATH that also has the caller's PATH (node).
    pub fn client_command(&self, program: &Path) -> Command {
        let home = self.home();
        std::fs::create_dir_all(&home).unwrap();
        let bin = self.dir.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let inherited = std::env::var("PATH").unwrap_or_default();
        let mut cmd = Command::new(program);
        cmd.env_clear()
            .env("HOME", &home)
            .env("USERPROFILE", &home)
            .env("APPDATA", home.join("AppData/Roaming"))
            .env("LOCALAPPDATA", home.join("AppData/Local"))
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .env(
                "PATH",
                format!("{}:{inherited}:/usr/bin:/bin", bin.display()),
            )
            .env("NO_COLOR", "1")
            .env("COLUMNS", "100")
            .current_dir(&home)
            .stdin(Stdio::null());
        for (k, v) in &self.extra_env {
            cmd.env(k, v);
        }
        cmd
    }

    /// Make a fake executable named `name` on PATH (for detection).
    pub fn on_path(&self, name: &str) {
        let path = self.dir.path().join("bin").join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "#!/bin/sh\nexit 0\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }
}

/// Parse JSON or JSONC text (comments, trailing commas) for assertions.
pub fn jsonc(text: &[u8]) -> serde_json::Value {
    let text = String::from_utf8(text.to_vec()).unwrap();
    let text = text.trim_start_matches('\u{feff}');
    jsonc_parser::parse_to_serde_value::<serde_json::Value>(text, &Default::default()).unwrap()
}
