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

/// `command.output()`, started again when the start itself failed for a reason of the
/// test machine rather than of the program: Wine under load now and then fails a
/// CreateProcess with ERROR_INTERNAL_ERROR (1359), which real Windows does not; a binary a
/// test just copied is busy (ETXTBSY) while another test's fork still holds the copy's
/// write handle. Both pass: try again.
pub fn output_of(command: &mut Command) -> Output {
    let mut output = command.output();
    for _ in 0..20 {
        match &output {
            Err(e)
                if (cfg!(windows) && e.raw_os_error() == Some(1359))
                    || e.kind() == std::io::ErrorKind::ExecutableFileBusy =>
            {
                std::thread::sleep(std::time::Duration::from_millis(50));
                output = command.output();
            }
            _ => break,
        }
    }
    output.unwrap()
}

impl Run {
    /// Run `command` to the end and keep its exit code and output.
    pub fn of(mut command: Command) -> Run {
        let Output {
            status,
            stdout,
            stderr,
        } = output_of(&mut command);
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

    /// Trust the home folder (where every command runs) in Gemini CLI, whose folder trust
    /// otherwise keeps every server out there.
    pub fn trust_in_gemini(&self) {
        let home = self.home().display().to_string();
        self.write(
            ".gemini/trustedFolders.json",
            serde_json::json!({ home: "TRUST_FOLDER" })
                .to_string()
                .as_bytes(),
        );
    }

    pub fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    /// The root system paths resolve under (`MCPCTL_SYSROOT`): `/etc/...` is `sysroot/etc/...`.
    pub fn sysroot(&self) -> PathBuf {
        self.dir.path().join("sysroot")
    }

    /// `rel` (`/`-separated) under HOME, with the host's separators (as mcpctl prints it).
    pub fn path(&self, rel: &str) -> PathBuf {
        rel.split('/')
            .filter(|part| !part.is_empty())
            .fold(self.home(), |path, part| path.join(part))
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
            .envs(windows_basics())
            .env("HOME", &home)
            .env("USERPROFILE", &home)
            .env("APPDATA", home.join("AppData/Roaming"))
            .env("LOCALAPPDATA", home.join("AppData/Local"))
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .env("MCPCTL_STATE_DIR", self.dir.path().join("state"))
            // System paths (Claude Code's managed-mcp.json) resolve inside the temp dir.
            .env("MCPCTL_SYSROOT", self.sysroot())
            .env("ProgramFiles", self.sysroot().join("Program Files"))
            .env("PATH", search_path(&[bin]))
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
        let inherited = std::env::var_os("PATH").unwrap_or_default();
        let mut cmd = Command::new(program);
        cmd.env_clear()
            .envs(windows_basics())
            .env("HOME", &home)
            .env("USERPROFILE", &home)
            .env("APPDATA", home.join("AppData/Roaming"))
            .env("LOCALAPPDATA", home.join("AppData/Local"))
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .env(
                "PATH",
                search_path(
                    &std::iter::once(bin)
                        .chain(std::env::split_paths(&inherited))
                        .collect::<Vec<_>>(),
                ),
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

    /// Make a fake executable named `name` on PATH (for detection): a `sh` script, on
    /// Windows a `NAME.cmd` (found through `PATHEXT`, as npm's shims are).
    pub fn on_path(&self, name: &str) {
        let bin = self.dir.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        #[cfg(windows)]
        std::fs::write(bin.join(format!("{name}.cmd")), "@exit /b 0\r\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let path = bin.join(name);
            std::fs::write(&path, "#!/bin/sh\nexit 0\n").unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }
}

/// A search path: `dirs`, then the system's programs (`/usr/bin`, `/bin`; on Windows
/// `%SystemRoot%\System32` and `%SystemRoot%`), joined as the host joins them.
pub fn search_path(dirs: &[PathBuf]) -> std::ffi::OsString {
    let system: Vec<PathBuf> = if cfg!(windows) {
        let root =
            PathBuf::from(std::env::var_os("SystemRoot").unwrap_or_else(|| r"C:\windows".into()));
        vec![root.join("System32"), root]
    } else {
        vec![PathBuf::from("/usr/bin"), PathBuf::from("/bin")]
    };
    std::env::join_paths(dirs.iter().cloned().chain(system)).unwrap()
}

/// What every Windows process has, kept through `env_clear` (none elsewhere): the system
/// folder (sockets and `cmd.exe` need it), `cmd.exe` itself and the extensions a command
/// is found by.
pub fn windows_basics() -> Vec<(&'static str, std::ffi::OsString)> {
    if !cfg!(windows) {
        return Vec::new();
    }
    ["SystemRoot", "windir", "ComSpec", "PATHEXT"]
        .into_iter()
        .filter_map(|name| Some((name, std::env::var_os(name)?)))
        .collect()
}

/// `rel` (`/`-separated) with the host's separators: how mcpctl shows `~/rel` here.
pub fn os_path(rel: &str) -> String {
    if cfg!(windows) {
        rel.replace('/', "\\")
    } else {
        rel.to_owned()
    }
}

/// The per-user settings folder under HOME that VS Code and mcpctl's own manifest use:
/// `.config` (XDG) on Linux, `%APPDATA%` on Windows.
pub const CONFIG_HOME: &str = if cfg!(windows) {
    "AppData/Roaming"
} else {
    ".config"
};

/// VS Code's user `mcp.json` under HOME on this OS.
pub const VSCODE: &str = if cfg!(windows) {
    "AppData/Roaming/Code/User/mcp.json"
} else {
    ".config/Code/User/mcp.json"
};

/// VS Code's user `settings.json` under HOME on this OS.
pub const VSCODE_SETTINGS: &str = if cfg!(windows) {
    "AppData/Roaming/Code/User/settings.json"
} else {
    ".config/Code/User/settings.json"
};

/// Zed's user `settings.json` under HOME on this OS.
pub const ZED: &str = if cfg!(windows) {
    "AppData/Roaming/Zed/settings.json"
} else {
    ".config/zed/settings.json"
};

/// Goose's `config.yaml` under HOME on this OS.
pub const GOOSE: &str = if cfg!(windows) {
    "AppData/Roaming/Block/goose/config/config.yaml"
} else {
    ".config/goose/config.yaml"
};

/// An entry's command with Windows' `cmd /c` wrapper taken off: mcpctl writes `npx` (a
/// batch shim there) as `cmd /c npx …` on Windows, so `"npx"` holds on every OS.
pub fn command_of(entry: &serde_json::Value) -> serde_json::Value {
    let (command, args) = (&entry["command"], &entry["args"]);
    if cfg!(windows) && command == "cmd" && args[0] == "/c" {
        args[1].clone()
    } else {
        command.clone()
    }
}

/// An entry's arguments with Windows' `cmd /c COMMAND` taken off (see [`command_of`]).
pub fn args_of(entry: &serde_json::Value) -> serde_json::Value {
    let (command, args) = (&entry["command"], &entry["args"]);
    match args.as_array() {
        Some(list) if cfg!(windows) && command == "cmd" && args[0] == "/c" => {
            serde_json::Value::Array(list[2..].to_vec())
        }
        _ => args.clone(),
    }
}

/// mcpctl's own user manifest under HOME on this OS.
pub const MANIFEST: &str = if cfg!(windows) {
    "AppData/Roaming/mcpctl/mcpctl.toml"
} else {
    ".config/mcpctl/mcpctl.toml"
};

/// How Claude Code keys a project directory in `~/.claude.json`: the path as given, with
/// every `\\` made `/` on Windows.
pub fn claude_key(project: &str) -> String {
    if cfg!(windows) {
        project.replace('\\', "/")
    } else {
        project.to_owned()
    }
}

/// Parse JSON or JSONC text (comments, trailing commas) for assertions.
pub fn jsonc(text: &[u8]) -> serde_json::Value {
    let text = String::from_utf8(text.to_vec()).unwrap();
    let text = text.trim_start_matches('\u{feff}');
    jsonc_parser::parse_to_serde_value::<serde_json::Value>(text, &Default::default()).unwrap()
}
