//! The operating system mcpctl resolves paths for, and the environment, read once.
//!
//! `Platform` is a plain value: `--platform windows` on Linux builds a Windows `Platform`
//! so every Windows and macOS rule is tested here. Paths, the client table, `check` and
//! the entry rules read the environment and the OS only through it. The exception is
//! starting a server for real: `handshake::process` uses the host's process API
//! (`cfg(unix)` / `cfg(windows)`), since a process can only be started on the machine
//! mcpctl runs on. This module never touches config files.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Environment variables mcpctl itself reads (clap reads `MCPCTL_*` flags separately).
const HOME_VARS: &[&str] = &["HOME", "USERPROFILE"];

/// A target operating system.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Os {
    Linux,
    Macos,
    Windows,
}

impl Os {
    /// The OS mcpctl was built for (the only `cfg!` on the target OS in the crate).
    pub fn host() -> Os {
        if cfg!(windows) {
            Os::Windows
        } else if cfg!(target_os = "macos") {
            Os::Macos
        } else {
            Os::Linux
        }
    }

    /// Whether `a` and `b` name the same environment variable on this OS: Windows
    /// compares names without regard to case (it spells the search path `Path`), the
    /// others byte for byte (`Path` is not `PATH` there).
    pub fn same_var(self, a: &str, b: &str) -> bool {
        a == b
            || (self == Os::Windows
                && (a.eq_ignore_ascii_case(b) || a.to_lowercase() == b.to_lowercase()))
    }

    /// `name`'s value in an environment as this OS looks it up: `exact` is the entry
    /// spelled exactly so (a map's `get`, the fast path); on Windows the first entry of
    /// `vars` spelled in another case counts too.
    pub fn var_of<'a>(
        self,
        exact: Option<&'a String>,
        vars: impl IntoIterator<Item = (&'a String, &'a String)>,
        name: &str,
    ) -> Option<&'a String> {
        if exact.is_some() || self != Os::Windows {
            return exact;
        }
        vars.into_iter()
            .find(|(key, _)| self.same_var(key, name))
            .map(|(_, value)| value)
    }

    /// How a person sets `var` for the programs they start next, as a command to show:
    /// `export VAR=…` in a POSIX shell; on Windows `setx VAR …` (programs started after
    /// it) or `$env:VAR = "…"` (this PowerShell window).
    pub fn set_var_command(self, var: &str) -> String {
        match self {
            Os::Windows => format!("`setx {var} …` (or `$env:{var} = \"…\"` in this PowerShell)"),
            Os::Linux | Os::Macos => format!("`export {var}=…`"),
        }
    }

    /// `path` as a person types it on this OS: Windows' verbatim form (`\\?\C:\…`,
    /// `\\?\UNC\server\share\…`, what `canonicalize` answers) without its prefix when the
    /// plain path names the same file (shorter than `MAX_PATH`, no component Win32
    /// would change: a trailing dot or space, a device name, `.` or `..`); any other
    /// path as it is.
    pub fn plain_path(self, path: &str) -> String {
        if self != Os::Windows {
            return path.to_owned();
        }
        let plain = if let Some(rest) = path.strip_prefix(r"\\?\UNC\") {
            format!(r"\\{rest}")
        } else if let Some(rest) = path.strip_prefix(r"\\?\")
            && rest.as_bytes().get(1) == Some(&b':')
            && rest.as_bytes().first().is_some_and(u8::is_ascii_alphabetic)
        {
            rest.to_owned()
        } else {
            return path.to_owned();
        };
        const DEVICES: &[&str] = &["CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"];
        let changed_by_win32 = |part: &str| {
            let stem = part.split('.').next().unwrap_or(part).trim_end();
            part == "."
                || part == ".."
                || part.ends_with(['.', ' '])
                || part.contains('/')
                || DEVICES.iter().any(|d| stem.eq_ignore_ascii_case(d))
                || (stem.len() == 4
                    && stem.get(..3).is_some_and(|p| {
                        p.eq_ignore_ascii_case("COM") || p.eq_ignore_ascii_case("LPT")
                    })
                    && stem.as_bytes().get(3).is_some_and(u8::is_ascii_digit))
        };
        let parts = plain.trim_start_matches('\\').split('\\').skip(1);
        if plain.chars().count() >= 260 || parts.filter(|p| !p.is_empty()).any(changed_by_win32) {
            return path.to_owned();
        }
        plain
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Os::Linux => "linux",
            Os::Macos => "macos",
            Os::Windows => "windows",
        }
    }
}

/// A template could not be expanded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TemplateError {
    #[error("unknown variable `{{{name}}}` in path template `{template}`")]
    UnknownVariable { name: String, template: String },
    #[error("unbalanced braces in path template `{template}`")]
    Unbalanced { template: String },
    #[error("no home directory: set HOME (or USERPROFILE on Windows)")]
    NoHome,
}

/// The OS and the environment snapshot paths are resolved with.
#[derive(Debug, Clone)]
pub struct Platform {
    pub os: Os,
    vars: BTreeMap<String, String>,
    /// The current directory (project scope default), read once.
    pub cwd: PathBuf,
    /// This mcpctl binary, as the OS reports it (`MCPCTL_EXE` names another: a test, or
    /// a packager whose stable path is a symlink); what launcher entries start.
    exe: Option<PathBuf>,
}

impl Platform {
    /// Snapshot the process environment; the only reader of `std::env` in the crate.
    pub fn from_env(os: Option<Os>) -> Platform {
        let vars: BTreeMap<String, String> = std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .collect();
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        let os = os.unwrap_or_else(Os::host);
        // The override is taken as written (a stable symlink stays one); the OS's answer
        // is resolved to the real file.
        let exe = match os
            .var_of(vars.get("MCPCTL_EXE"), &vars, "MCPCTL_EXE")
            .filter(|v| !v.is_empty())
        {
            Some(path) => Some(cwd.join(path)),
            None => std::env::current_exe()
                .ok()
                .map(|p| std::fs::canonicalize(&p).unwrap_or(p)),
        };
        Platform { os, vars, cwd, exe }
    }

    /// A platform from explicit values (tests).
    pub fn new(os: Os, vars: &[(&str, &str)], cwd: &Path) -> Platform {
        Platform {
            os,
            vars: vars
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
            cwd: cwd.to_path_buf(),
            exe: None,
        }
    }

    /// This platform with mcpctl's own binary at `exe` (tests).
    pub fn with_exe(mut self, exe: &Path) -> Platform {
        self.exe = Some(exe.to_path_buf());
        self
    }

    /// This mcpctl binary's path as reported at start (`None` when the OS could not say).
    pub fn exe(&self) -> Option<&Path> {
        self.exe.as_deref()
    }

    /// A variable's value, `None` when unset or empty. Names are the OS's: on Windows
    /// `Path` answers for `PATH`.
    pub fn var(&self, name: &str) -> Option<&str> {
        self.lookup(name).filter(|v| !v.is_empty())
    }

    /// A variable's value, empty when set so (the OS's names, as [`Platform::var`]).
    pub fn lookup(&self, name: &str) -> Option<&str> {
        self.os
            .var_of(self.vars.get(name), &self.vars, name)
            .map(String::as_str)
    }

    /// The whole environment snapshot (handed to servers `doctor` starts); look names up
    /// with [`Platform::var`] or [`Os::var_of`], which know Windows' rule.
    pub fn vars(&self) -> &BTreeMap<String, String> {
        &self.vars
    }

    /// The command that opens a URL in the person's browser, the URL to be appended:
    /// `$BROWSER` when set (as `git`, `gh` and Python's `webbrowser` honour it), else the
    /// OS's opener.
    pub fn opener(&self) -> Vec<String> {
        if let Some(browser) = self.var("BROWSER") {
            return vec![browser.to_owned()];
        }
        let words: &[&str] = match self.os {
            Os::Macos => &["open"],
            Os::Windows => &["rundll32", "url.dll,FileProtocolHandler"],
            Os::Linux => &["xdg-open"],
        };
        words.iter().map(|w| (*w).to_owned()).collect()
    }

    /// `PATH` for executable lookups.
    pub fn path_var(&self) -> Option<OsString> {
        self.var("PATH").map(OsString::from)
    }

    /// The user's home directory as the target OS finds it.
    pub fn home(&self) -> Result<PathBuf, TemplateError> {
        let order: &[&str] = match self.os {
            Os::Windows => &["USERPROFILE", "HOME"],
            _ => &HOME_VARS[..1],
        };
        order
            .iter()
            .find_map(|name| self.var(name))
            .map(PathBuf::from)
            .ok_or(TemplateError::NoHome)
    }

    fn variable(&self, name: &str, template: &str) -> Result<String, TemplateError> {
        let home =
            || -> Result<String, TemplateError> { Ok(self.home()?.to_string_lossy().into_owned()) };
        Ok(match name {
            "home" => home()?,
            "appdata" => match self.var("APPDATA") {
                Some(v) => v.to_owned(),
                None => format!("{}/AppData/Roaming", home()?),
            },
            "localappdata" => match self.var("LOCALAPPDATA") {
                Some(v) => v.to_owned(),
                None => format!("{}/AppData/Local", home()?),
            },
            "xdg_config" => match self.var("XDG_CONFIG_HOME") {
                Some(v) if self.os == Os::Linux => v.to_owned(),
                _ => format!("{}/.config", home()?),
            },
            _ => {
                if let Some(rest) = name.strip_prefix("env:") {
                    let (var, fallback) = rest.split_once('|').unwrap_or((rest, ""));
                    return match self.var(var) {
                        Some(v) => Ok(v.to_owned()),
                        None => self.expand_str(fallback),
                    };
                }
                return Err(TemplateError::UnknownVariable {
                    name: name.to_owned(),
                    template: template.to_owned(),
                });
            }
        })
    }

    /// Expand `{var}` references (nesting allowed inside `{env:NAME|fallback}`) to a string
    /// with `/` separators.
    pub fn expand_str(&self, template: &str) -> Result<String, TemplateError> {
        let mut out = String::new();
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            out.push_str(&rest[..open]);
            let after = &rest[open + 1..];
            let close = matching_brace(after).ok_or_else(|| TemplateError::Unbalanced {
                template: template.to_owned(),
            })?;
            out.push_str(&self.variable(&after[..close], template)?);
            rest = &after[close + 1..];
        }
        if rest.contains('}') {
            return Err(TemplateError::Unbalanced {
                template: template.to_owned(),
            });
        }
        out.push_str(rest);
        Ok(out)
    }

    /// Expand a template to a path joined with the host separator.
    pub fn expand(&self, template: &str) -> Result<PathBuf, TemplateError> {
        Ok(to_path(&self.expand_str(template)?))
    }

    /// Resolve a list of candidate templates: the first that exists wins (a `*` segment
    /// matches an existing directory entry); else the first without `*`.
    pub fn resolve_candidates(
        &self,
        templates: &[String],
    ) -> Result<Option<PathBuf>, TemplateError> {
        let mut fallback = None;
        for template in templates {
            let expanded = self.expand_str(template)?;
            if expanded.contains('*') {
                if let Some(found) = glob_first(&expanded) {
                    return Ok(Some(found));
                }
                continue;
            }
            let path = to_path(&expanded);
            if path.exists() {
                return Ok(Some(path));
            }
            fallback.get_or_insert(path);
        }
        Ok(fallback)
    }

    /// Whether any of these templates names an existing path (`*` segments allowed).
    pub fn any_exists(&self, templates: &[String]) -> bool {
        templates.iter().any(|t| match self.expand_str(t) {
            Ok(p) if p.contains('*') => glob_first(&p).is_some(),
            Ok(p) => to_path(&p).exists(),
            Err(_) => false,
        })
    }

    /// Whether `command` is an executable on PATH.
    pub fn on_path(&self, command: &str) -> bool {
        let Some(path) = self.path_var() else {
            return false;
        };
        which::which_in(command, Some(path), &self.cwd).is_ok()
    }
}

/// `base` joined with a `/`-separated relative path (a row's `.cursor/mcp.json`), one
/// component at a time, so the result has the host's separators throughout (on Windows
/// `…\proj\.cursor\mcp.json`, never `…\proj\.cursor/mcp.json`).
pub fn join_relative(base: &Path, rel: &str) -> PathBuf {
    rel.split('/')
        .filter(|part| !part.is_empty())
        .fold(base.to_path_buf(), |path, part| path.join(part))
}

fn matching_brace(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => return Some(i),
            '}' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// `a/b\c` → a host path. Windows-style values (from `%APPDATA%`) keep their separators
/// on a Windows host; on others only `/` separates.
fn to_path(expanded: &str) -> PathBuf {
    let mut path = PathBuf::new();
    if expanded.starts_with('/') {
        path.push("/");
    }
    for part in expanded.split('/').filter(|p| !p.is_empty()) {
        path.push(part);
    }
    path
}

/// The first existing path matching a pattern whose `*` wildcards stand in single segments.
fn glob_first(pattern: &str) -> Option<PathBuf> {
    let mut candidates = vec![if pattern.starts_with('/') {
        PathBuf::from("/")
    } else {
        PathBuf::new()
    }];
    let segments: Vec<&str> = pattern.split('/').filter(|p| !p.is_empty()).collect();
    for (i, segment) in segments.iter().enumerate() {
        let last = i + 1 == segments.len();
        let mut next = Vec::new();
        for base in &candidates {
            if let Some((prefix, suffix)) = segment.split_once('*') {
                let Ok(entries) = std::fs::read_dir(if base.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    base
                }) else {
                    continue;
                };
                let mut names: Vec<String> = entries
                    .filter_map(|e| e.ok()?.file_name().into_string().ok())
                    .filter(|n| {
                        n.len() >= prefix.len() + suffix.len()
                            && n.starts_with(prefix)
                            && n.ends_with(suffix)
                    })
                    .collect();
                names.sort();
                next.extend(names.into_iter().map(|n| base.join(n)));
            } else {
                let joined = base.join(segment);
                // Past the wildcard the rest of the path need not exist yet (a new file
                // in an existing package folder), but intermediate globs must match.
                if last || joined.exists() || !segments[i..].iter().any(|s| s.contains('*')) {
                    next.push(joined);
                }
            }
        }
        candidates = next;
        if candidates.is_empty() {
            return None;
        }
    }
    candidates.into_iter().next()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn windows(home: &Path) -> Platform {
        let h = home.to_str().unwrap();
        Platform::new(
            Os::Windows,
            &[("USERPROFILE", h), ("HOME", "/nonexistent")],
            home,
        )
    }

    #[test]
    fn windows_defaults_appdata_under_userprofile() {
        let p = windows(Path::new("/users/alice"));
        assert_eq!(
            p.expand("{appdata}/Code/User/mcp.json").unwrap(),
            PathBuf::from("/users/alice/AppData/Roaming/Code/User/mcp.json")
        );
        assert_eq!(
            p.expand("{localappdata}/x").unwrap(),
            PathBuf::from("/users/alice/AppData/Local/x")
        );
    }

    /// Issue 37 item 1: real Windows spells the search path `Path` (and any variable in
    /// any case); Linux's `Path` is not its `PATH`.
    #[test]
    fn windows_variable_names_ignore_case_and_linux_names_do_not() {
        let vars = [
            ("Path", "/w/bin"),
            ("UserProfile", "/users/al"),
            ("AppData", "/users/al/R"),
            ("localappdata", "/users/al/L"),
            ("Empty", ""),
        ];
        let p = Platform::new(Os::Windows, &vars, Path::new("/"));
        assert_eq!(p.var("PATH"), Some("/w/bin"));
        assert_eq!(p.path_var(), Some(OsString::from("/w/bin")));
        assert_eq!(p.var("Pathext"), None);
        assert_eq!(p.var("EMPTY"), None);
        assert_eq!(p.lookup("EMPTY"), Some(""));
        assert_eq!(p.home().unwrap(), PathBuf::from("/users/al"));
        assert_eq!(
            p.expand_str("{appdata}|{localappdata}").unwrap(),
            "/users/al/R|/users/al/L"
        );
        assert_eq!(p.expand_str("{env:APPDATA|x}").unwrap(), "/users/al/R");
        let p = Platform::new(Os::Linux, &vars, Path::new("/"));
        assert_eq!(p.var("PATH"), None);
        assert_eq!(p.var("Path"), Some("/w/bin"));
        assert_eq!(p.lookup("EMPTY"), None);
    }

    #[test]
    fn env_override_with_nested_fallback() {
        let p = Platform::new(Os::Linux, &[("HOME", "/h")], Path::new("/"));
        assert_eq!(
            p.expand_str("{env:CODEX_HOME|{home}/.codex}/config.toml")
                .unwrap(),
            "/h/.codex/config.toml"
        );
        let p = Platform::new(
            Os::Linux,
            &[("HOME", "/h"), ("CODEX_HOME", "/c")],
            Path::new("/"),
        );
        assert_eq!(
            p.expand_str("{env:CODEX_HOME|{home}/.codex}/config.toml")
                .unwrap(),
            "/c/config.toml"
        );
    }

    #[test]
    fn xdg_config_only_on_linux() {
        let vars = [("HOME", "/h"), ("XDG_CONFIG_HOME", "/x")];
        assert_eq!(
            Platform::new(Os::Linux, &vars, Path::new("/"))
                .expand_str("{xdg_config}")
                .unwrap(),
            "/x"
        );
        assert_eq!(
            Platform::new(Os::Macos, &vars, Path::new("/"))
                .expand_str("{xdg_config}")
                .unwrap(),
            "/h/.config"
        );
    }

    #[test]
    fn unknown_variable_and_unbalanced_are_errors() {
        let p = Platform::new(Os::Linux, &[("HOME", "/h")], Path::new("/"));
        assert!(matches!(
            p.expand_str("{nope}/x"),
            Err(TemplateError::UnknownVariable { .. })
        ));
        assert!(matches!(
            p.expand_str("{home/x"),
            Err(TemplateError::Unbalanced { .. })
        ));
        assert!(matches!(
            p.expand_str("home}/x"),
            Err(TemplateError::Unbalanced { .. })
        ));
    }

    #[test]
    fn msix_candidate_wins_when_its_package_folder_exists() {
        let dir = tempfile::tempdir().unwrap();
        let p = windows(dir.path());
        let candidates = vec![
            "{localappdata}/Packages/Claude_*/LocalCache/Roaming/Claude/claude_desktop_config.json"
                .to_owned(),
            "{appdata}/Claude/claude_desktop_config.json".to_owned(),
        ];
        assert_eq!(
            p.resolve_candidates(&candidates).unwrap().unwrap(),
            dir.path()
                .join("AppData/Roaming/Claude/claude_desktop_config.json")
        );
        std::fs::create_dir_all(
            dir.path()
                .join("AppData/Local/Packages/Claude_pzs8sxrjxfjjc"),
        )
        .unwrap();
        assert_eq!(
            p.resolve_candidates(&candidates).unwrap().unwrap(),
            dir.path()
                .join("AppData/Local/Packages/Claude_pzs8sxrjxfjjc/LocalCache/Roaming/Claude/claude_desktop_config.json")
        );
    }
}
