//! Making an entry runnable here: the one place that turns a configured [`Transport`]
//! into exactly what to start or contact on this machine, and says what stands in the way.
//!
//! [`prepare`] expands `${VAR}` references (entry env first, then mcpctl's environment;
//! one that is unset blocks the launch, `unset`),
//! unwraps `cmd /c` when a Windows config is checked on another OS, resolves the command
//! on the entry's PATH (relative to its cwd), checks an interpreter's script and the
//! working directory, checks the URL scheme and expands header values. It returns a
//! [`Prepared`]: the [`Launch`] plan (or the typed reason there is none) and the static
//! [`Finding`]s, in the order they were made.
//!
//! Callers: `doctor` records the findings and judges; the handshake ([`super::probe`],
//! [`super::probe_launch`]) starts only what a `Launch` says and checks none of this
//! again; `tools`, `call` and `apply --verify` go through the same function. Starts
//! nothing, reads no process environment (everything comes in [`Host`]), never puts a
//! header value into a message or `Debug` output.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use indexmap::IndexMap;

use super::ProbeError;
use crate::entry::{self, RemoteKind, StringMap, Transport};
use crate::platform::Os;
use crate::vars;

/// Interpreters whose first file argument is a script that must exist.
const INTERPRETERS: &[&str] = &[
    "node", "nodejs", "python", "python3", "deno", "bun", "tsx", "ts-node", "ruby", "php", "java",
];

/// The machine and environment an entry is prepared for.
#[derive(Debug, Clone, Copy)]
pub struct Host<'a> {
    /// The OS the config is for (`--platform`); `cmd /c` is native only on Windows.
    pub target_os: Os,
    /// The OS mcpctl runs on (`Os::host()` outside tests).
    pub host_os: Os,
    /// mcpctl's environment: `${VAR}` values and the PATH when the entry sets none.
    pub env: &'a IndexMap<String, String>,
    /// Where a relative command or script resolves when the entry has no `cwd`.
    pub cwd: &'a Path,
    /// Whether the client needs `npx`-style shims wrapped in `cmd /c` on Windows (the
    /// table's `wrap_windows`).
    pub wrap_windows: bool,
}

impl Host<'_> {
    /// `name` in mcpctl's environment, spelled as the target OS spells names (on
    /// Windows `Path` is `PATH`).
    fn var(&self, name: &str) -> Option<&String> {
        self.target_os.var_of(self.env.get(name), self.env, name)
    }
}

/// What to start or contact, exactly: variables expanded, the program resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Launch {
    Stdio {
        /// The resolved program.
        program: PathBuf,
        /// The command as the entry names it (after unwrapping), for messages.
        command: String,
        args: Vec<String>,
        /// The entry's env, expanded; laid over mcpctl's environment at spawn.
        env: StringMap,
        cwd: Option<PathBuf>,
    },
    Remote {
        url: String,
        kind: RemoteKind,
        headers: Vec<(String, Secret)>,
    },
}

impl Launch {
    /// The values mcpctl itself hands the server that must not be printed when the
    /// server repeats them (on stderr, in its tool list, its errors, its results): every
    /// header value (and a `Bearer` token alone), the secret parts of the URL, every env
    /// value (a literal, a secret from the store, or a variable expanded into it), and
    /// the secret arguments (`--api-key VALUE`, `?api_key=` in a URL argument).
    ///
    /// Left out, so that ordinary output stays readable: values shorter than 4
    /// characters, numbers and booleans, paths, and a variable of mcpctl's own
    /// environment passed on unchanged under its own name (`PATH`), unless its name or
    /// its shape says it is a secret. `parent_env` is that environment.
    pub fn passed_secrets(&self, parent_env: &IndexMap<String, String>) -> Vec<String> {
        use crate::secrets;
        let mut out: Vec<String> = Vec::new();
        let url_parts = |url: &str, out: &mut Vec<String>| {
            for found in secrets::url_secrets(url) {
                if let Some(part) = url.get(found.at) {
                    out.push(part.to_owned());
                }
            }
        };
        match self {
            Launch::Stdio { args, env, .. } => {
                out.extend(secrets::arg_secrets(args).into_iter().map(|a| a.value));
                for arg in args.iter().filter(|a| a.contains("://")) {
                    url_parts(arg, &mut out);
                }
                for (key, value) in env {
                    let secret =
                        secrets::secret_name(key) || secrets::literal_secret(key, value).is_some();
                    let ordinary = value.parse::<f64>().is_ok()
                        || ["true", "false", "yes", "no", "on", "off"]
                            .iter()
                            .any(|word| value.eq_ignore_ascii_case(word))
                        || value.starts_with(['/', '~', '.'])
                        || value.get(1..3).is_some_and(|d| d == ":\\" || d == ":/")
                        || parent_env.get(key) == Some(value);
                    if secret || !ordinary {
                        out.push(value.clone());
                    }
                }
            }
            Launch::Remote { url, headers, .. } => {
                url_parts(url, &mut out);
                for (_, Secret(value)) in headers {
                    if let Some(token) = value
                        .strip_prefix("Bearer ")
                        .or_else(|| value.strip_prefix("bearer "))
                    {
                        out.push(token.trim().to_owned());
                    }
                    out.push(value.clone());
                }
            }
        }
        out.retain(|value| value.trim().chars().count() >= 4);
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// A header value that must never be displayed.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(pub(crate) String);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<redacted>")
    }
}

/// How much a finding matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Ok,
    Warn,
    /// The entry cannot run here as written.
    Fail,
}

/// A fix mcpctl can make for a finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fix {
    /// Rewrite the entry so `add` wraps it in `cmd /c`.
    Rewrap,
}

/// One static check's outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Which check (`variables`, `windows`, `command`, `script`, `cwd`, `url`, `headers`).
    pub check: &'static str,
    pub level: Level,
    pub message: String,
    pub fix: Option<Fix>,
}

/// The result of [`prepare`].
#[derive(Debug, Clone)]
pub struct Prepared {
    /// The plan, or the first reason the entry cannot run here.
    pub launch: Result<Launch, ProbeError>,
    /// Every static finding, failures included.
    pub findings: Vec<Finding>,
    /// What the entry starts or contacts, for reports: the logical command line or the
    /// URL as written (no env or header values).
    pub target: String,
}

/// The findings made so far, and the first one that blocks the launch.
#[derive(Default)]
struct Checks {
    findings: Vec<Finding>,
    blocked: Option<ProbeError>,
}

impl Checks {
    fn note(&mut self, check: &'static str, level: Level, message: String) {
        self.findings.push(Finding {
            check,
            level,
            message,
            fix: None,
        });
    }

    /// Record a failure; the first one becomes the reason there is no launch.
    fn block(&mut self, check: &'static str, error: ProbeError) {
        self.note(check, Level::Fail, error.to_string());
        self.blocked.get_or_insert(error);
    }
}

/// Make `transport` runnable on `host`; see the module documentation.
#[must_use]
pub fn prepare(transport: &Transport, host: &Host<'_>) -> Prepared {
    let mut checks = Checks::default();
    let target = target_of(transport);
    // The one rule for unset variables (`unset`): starting the server with the
    // reference as literal text is not what the entry means, so it is an error here.
    for unset in crate::unset::find(transport, host.target_os, &|name| host.var(name).cloned()) {
        checks.block(
            "variables",
            ProbeError::UnsetVariable {
                variable: unset.variable,
                place: unset.place,
                os: unset.os,
            },
        );
    }
    let plan = match transport {
        Transport::Stdio {
            command,
            args,
            env,
            cwd,
        } => stdio(command, args, env, cwd.as_deref(), host, &mut checks),
        Transport::Remote { url, kind, headers } => remote(url, *kind, headers, host, &mut checks),
    };
    let launch = match (checks.blocked, plan) {
        (Some(error), _) => Err(error),
        (None, Some(launch)) => Ok(launch),
        (None, None) => Err(ProbeError::Spawn {
            command: target.clone(),
            reason: "it cannot be started here".to_owned(),
        }),
    };
    Prepared {
        launch,
        findings: checks.findings,
        target,
    }
}

fn stdio(
    command: &str,
    args: &[String],
    env: &StringMap,
    cwd: Option<&str>,
    host: &Host<'_>,
    checks: &mut Checks,
) -> Option<Launch> {
    let expand = |text: &str, local: &StringMap| {
        vars::expand(text, &|name| {
            host.target_os
                .var_of(local.get(name), local, name)
                .or_else(|| host.var(name))
                .cloned()
        })
        .0
    };
    let none = StringMap::new();
    let env: StringMap = env
        .iter()
        .map(|(k, v)| (k.clone(), expand(v, &none)))
        .collect();
    let command = expand(command, &env);
    let args: Vec<String> = args.iter().map(|a| expand(a, &env)).collect();
    let cwd = cwd.map(|c| expand(c, &env));

    let (logical, logical_args, wrapped) = entry::logical(&command, &args);
    if host.target_os == Os::Windows && host.wrap_windows && entry::needs_wrap(&command, &args) {
        checks.findings.push(Finding {
            check: "windows",
            level: Level::Warn,
            message: format!("`{command}` without `cmd /c` will fail on Windows"),
            fix: Some(Fix::Rewrap),
        });
    }
    if wrapped && host.target_os != Os::Windows {
        checks.block(
            "windows",
            ProbeError::Spawn {
                command,
                reason:
                    "`cmd /c` entries only start on Windows; on this OS the client cannot run it"
                        .to_owned(),
            },
        );
        return None;
    }
    // A Windows config checked on another OS: `cmd` is not here, so start what it runs.
    let (command, args) = if wrapped && host.host_os != Os::Windows {
        checks.note(
            "windows",
            Level::Ok,
            format!("`cmd /c` runs only on Windows; started here as `{logical}` directly"),
        );
        (logical.clone(), logical_args.clone())
    } else {
        (command, args)
    };

    let base = cwd
        .as_ref()
        .map_or_else(|| host.cwd.to_path_buf(), PathBuf::from);
    let mut program = None;
    if let Some(dir) = &cwd
        && !Path::new(dir).is_dir()
    {
        checks.block("cwd", ProbeError::MissingCwd { cwd: dir.clone() });
    } else {
        let path = host
            .target_os
            .var_of(env.get("PATH"), &env, "PATH")
            .or_else(|| host.var("PATH"));
        match resolve(&command, path, &base, host.target_os) {
            Ok(found) => {
                checks.note("command", Level::Ok, format!("`{command}` found"));
                program = Some(found);
            }
            Err(error) => checks.block("command", error),
        }
    }
    if let Some(script) = script_arg(&logical, &logical_args)
        && !base.join(script).exists()
    {
        checks.block(
            "script",
            ProbeError::Spawn {
                command: logical.clone(),
                reason: format!("`{logical}` is given `{script}`, which does not exist"),
            },
        );
    }
    if checks.blocked.is_some() {
        return None;
    }
    Some(Launch::Stdio {
        program: program?,
        command,
        args,
        env,
        cwd: cwd.map(PathBuf::from),
    })
}

fn remote(
    url: &str,
    kind: RemoteKind,
    headers: &StringMap,
    host: &Host<'_>,
    checks: &mut Checks,
) -> Option<Launch> {
    let lookup = |name: &str| host.var(name).cloned();
    let url_expanded = vars::expand(url, &lookup).0;
    let mut expanded = Vec::with_capacity(headers.len());
    for (name, value) in headers {
        expanded.push((name.clone(), Secret(vars::expand(value, &lookup).0)));
    }
    if !(url_expanded.starts_with("http://") || url_expanded.starts_with("https://")) {
        checks.block(
            "url",
            ProbeError::BadUrl {
                url: url.to_owned(),
                reason: "it must start with http:// or https://".to_owned(),
            },
        );
    }
    if checks.blocked.is_some() {
        return None;
    }
    Some(Launch::Remote {
        url: url_expanded,
        kind,
        headers: expanded,
    })
}

/// [`find_program`], remembered for the run: a file with thousands of `npx` entries
/// searched the whole PATH again for each.
fn resolve(
    command: &str,
    path: Option<&String>,
    base: &Path,
    os: Os,
) -> Result<PathBuf, ProbeError> {
    type Key = (String, Option<String>, PathBuf, Os);
    static FOUND: std::sync::Mutex<Option<HashMap<Key, Result<PathBuf, ProbeError>>>> =
        std::sync::Mutex::new(None);
    let key = (command.to_owned(), path.cloned(), base.to_path_buf(), os);
    let mut found = FOUND
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    found
        .get_or_insert_with(HashMap::new)
        .entry(key)
        .or_insert_with(|| find_program(command, path, base, os))
        .clone()
}

/// Find the program the way a client would: a bare name on the PATH, a path relative to
/// the working directory. A file that exists but cannot be run is named as such.
fn find_program(
    command: &str,
    path: Option<&String>,
    base: &Path,
    os: Os,
) -> Result<PathBuf, ProbeError> {
    let not_found = || ProbeError::NotFound {
        command: command.to_owned(),
    };
    if command.is_empty() {
        return Err(not_found());
    }
    if let Ok(found) = which::which_in(command, path, base) {
        return Ok(found);
    }
    let has_separator = command.contains('/') || command.contains(std::path::MAIN_SEPARATOR);
    let candidates: Vec<PathBuf> = if has_separator {
        vec![base.join(command)]
    } else {
        path.map(|p| {
            std::env::split_paths(p)
                .map(|dir| dir.join(command))
                .collect()
        })
        .unwrap_or_default()
    };
    match candidates.into_iter().find(|candidate| candidate.is_file()) {
        Some(file) => Err(ProbeError::NotExecutable {
            path: file.display().to_string(),
            os,
        }),
        None => Err(not_found()),
    }
}

/// The script an interpreter is asked to run (`node /x/index.js` → `/x/index.js`).
fn script_arg<'a>(command: &str, args: &'a [String]) -> Option<&'a str> {
    let stem = command
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(command)
        .trim_end_matches(".exe");
    if !INTERPRETERS.contains(&stem) {
        return None;
    }
    let first = args.iter().find(|a| !a.starts_with('-'))?;
    let looks_like_file = first.contains('/')
        || first.contains('\\')
        || [".js", ".mjs", ".cjs", ".ts", ".py", ".rb", ".php", ".jar"]
            .iter()
            .any(|e| first.ends_with(e));
    looks_like_file.then_some(first.as_str())
}

/// What a server is, for reports (no env or header values).
pub fn target_of(transport: &Transport) -> String {
    match transport {
        Transport::Stdio { command, args, .. } => {
            let (c, a, _) = entry::logical(command, args);
            std::iter::once(c).chain(a).collect::<Vec<_>>().join(" ")
        }
        Transport::Remote { url, .. } => url.clone(),
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, reason = "tests write scratch files")]
mod tests {
    use super::*;

    #[test]
    fn the_values_passed_to_a_server_are_its_secrets_but_ordinary_ones() {
        let map = |pairs: &[(&str, &str)]| -> IndexMap<String, String> {
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect()
        };
        let parent = map(&[("PATH", "/usr/bin:/bin"), ("GITHUB_TOKEN", "fromMyShell99")]);
        let stdio = Launch::Stdio {
            program: PathBuf::from("/bin/srv"),
            command: "srv".to_owned(),
            args: ["--api-key", "Wq3rT8yUi2oP5aSd", "--port", "8080"]
                .map(str::to_owned)
                .to_vec(),
            env: map(&[
                ("DB", "plainDsnValue42"),
                ("GITHUB_TOKEN", "fromMyShell99"),
                ("PATH", "/usr/bin:/bin"),
                ("DATA", "/var/data"),
                ("PORT", "5432"),
                ("DEBUG", "true"),
                ("K", "abc"),
            ]),
            cwd: None,
        };
        assert_eq!(
            stdio.passed_secrets(&parent),
            ["Wq3rT8yUi2oP5aSd", "fromMyShell99", "plainDsnValue42"]
        );
        let remote = Launch::Remote {
            url: "https://alice:hunter2Passw0rdQ@example.com/mcp?api_key=QuerySecretf8Kd92LmQz71"
                .to_owned(),
            kind: RemoteKind::Http,
            headers: vec![
                (
                    "Authorization".to_owned(),
                    Secret("Bearer plainTok3n".to_owned()),
                ),
                ("X-Id".to_owned(), Secret("team-a".to_owned())),
            ],
        };
        assert_eq!(
            remote.passed_secrets(&parent),
            [
                "Bearer plainTok3n",
                "QuerySecretf8Kd92LmQz71",
                "alice:hunter2Passw0rdQ",
                "plainTok3n",
                "team-a"
            ]
        );
    }

    fn host<'a>(env: &'a IndexMap<String, String>, cwd: &'a Path) -> Host<'a> {
        Host {
            target_os: Os::Linux,
            host_os: Os::Linux,
            env,
            cwd,
            wrap_windows: true,
        }
    }

    /// A PATH of one directory holding a program `name` that the host would run: mode
    /// 0755 on Unix, `name.exe` on Windows (where the extension makes a file runnable).
    /// The tests resolve programs without assuming the host has `sh` in `/usr/bin`.
    fn bin_with(dir: &Path, name: &str) -> String {
        let bin = dir.join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let program = bin.join(name);
            std::fs::write(&program, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        #[cfg(not(unix))]
        std::fs::write(bin.join(format!("{name}.exe")), "").unwrap();
        bin.display().to_string()
    }

    /// A script the host will not run though it is on the PATH: no execute bit on Unix; no
    /// extension on Windows, which runs a file by its extension.
    const UNRUNNABLE: &str = if cfg!(unix) { "server.sh" } else { "server" };

    fn stdio(command: &str, args: &[&str], cwd: Option<&str>) -> Transport {
        Transport::Stdio {
            command: command.to_owned(),
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            env: StringMap::new(),
            cwd: cwd.map(str::to_owned),
        }
    }

    #[test]
    fn names_missing_and_unexecutable_commands() {
        let dir = tempfile::tempdir().unwrap();
        let env: IndexMap<String, String> =
            [("PATH".to_owned(), dir.path().display().to_string())].into();
        let host = host(&env, dir.path());
        let launch = |t: &Transport| prepare(t, &host).launch;
        assert!(matches!(
            launch(&stdio("no-such-mcp-server", &[], None)),
            Err(ProbeError::NotFound { .. })
        ));
        std::fs::write(dir.path().join(UNRUNNABLE), "#!/bin/sh\n").unwrap();
        assert!(matches!(
            launch(&stdio(UNRUNNABLE, &[], None)),
            Err(ProbeError::NotExecutable { .. })
        ));
        assert!(matches!(
            launch(&stdio(&format!("./{UNRUNNABLE}"), &[], None)),
            Err(ProbeError::NotExecutable { .. })
        ));
        let missing = dir.path().join("no/such/dir").display().to_string();
        assert!(matches!(
            launch(&stdio("sh", &[], Some(&missing))),
            Err(ProbeError::MissingCwd { .. })
        ));
    }

    #[test]
    fn expands_variables_and_resolves_the_program() {
        let dir = tempfile::tempdir().unwrap();
        let env: IndexMap<String, String> = [
            ("PATH".to_owned(), bin_with(dir.path(), "sh")),
            ("ROOT".to_owned(), "/srv".to_owned()),
        ]
        .into();
        let transport = Transport::Stdio {
            command: "sh".into(),
            args: vec!["${ROOT}/x".into(), "${KEY}".into()],
            env: [("KEY".to_owned(), "k-${ROOT}".to_owned())].into(),
            cwd: None,
        };
        let prepared = prepare(&transport, &host(&env, dir.path()));
        let Ok(Launch::Stdio {
            program, args, env, ..
        }) = prepared.launch
        else {
            panic!("{prepared:?}")
        };
        assert!(
            program.file_stem() == Some("sh".as_ref()) && program.is_absolute(),
            "{program:?}"
        );
        assert_eq!(args, ["/srv/x", "k-/srv"]);
        assert_eq!(env["KEY"], "k-/srv");
        // An unset one stops the launch (`unset`): the server would get it literally.
        let unset = Transport::Stdio {
            command: "sh".into(),
            args: vec!["${NOPE}".into()],
            env: StringMap::new(),
            cwd: None,
        };
        let prepared = prepare(&unset, &host(&env, dir.path()));
        assert_eq!(
            prepared.launch.unwrap_err(),
            ProbeError::UnsetVariable {
                variable: "NOPE".into(),
                place: "argument".into(),
                os: Os::Linux,
            }
        );
        assert_eq!(prepared.findings[0].check, "variables");
        assert_eq!(prepared.findings[0].level, Level::Fail);
    }

    #[test]
    fn windows_configs_are_unwrapped_off_windows_and_refused_elsewhere() {
        let dir = tempfile::tempdir().unwrap();
        let env: IndexMap<String, String> =
            [("PATH".to_owned(), bin_with(dir.path(), "sh"))].into();
        let wrapped = stdio("cmd", &["/c", "sh", "-c", "true"], None);
        let windows = Host {
            target_os: Os::Windows,
            ..host(&env, dir.path())
        };
        let prepared = prepare(&wrapped, &windows);
        assert!(
            matches!(&prepared.launch, Ok(Launch::Stdio { command, .. }) if command == "sh"),
            "{prepared:?}"
        );
        assert_eq!(prepared.target, "sh -c true");
        let prepared = prepare(&wrapped, &host(&env, dir.path()));
        assert!(prepared.launch.is_err());
        assert_eq!(prepared.findings[0].check, "windows");
        let bare = prepare(&stdio("npx", &["-y", "pkg"], None), &windows);
        assert_eq!(bare.findings[0].fix, Some(Fix::Rewrap));
    }

    /// Issue 37 item 1: a Windows environment's `Path` is its PATH, and a server's
    /// `${APIKEY}` is set by `ApiKey`; on Linux those are other variables.
    #[test]
    fn windows_names_variables_in_any_case() {
        let dir = tempfile::tempdir().unwrap();
        let env: IndexMap<String, String> = [
            ("Path".to_owned(), bin_with(dir.path(), "sh")),
            ("ApiKey".to_owned(), "k".to_owned()),
        ]
        .into();
        let windows = Host {
            target_os: Os::Windows,
            ..host(&env, dir.path())
        };
        let transport = stdio("sh", &["${APIKEY}"], None);
        let prepared = prepare(&transport, &windows);
        assert!(
            matches!(&prepared.launch, Ok(Launch::Stdio { args, .. }) if args == &["k"]),
            "{prepared:?}"
        );
        let prepared = prepare(&transport, &host(&env, dir.path()));
        assert!(prepared.launch.is_err(), "{prepared:?}");
        // The entry's own `path` is the entry's PATH whatever its spelling.
        let local = Transport::Stdio {
            command: "sh".into(),
            args: Vec::new(),
            env: [("path".to_owned(), dir.path().display().to_string())].into(),
            cwd: None,
        };
        let upper: IndexMap<String, String> =
            [("PATH".to_owned(), bin_with(dir.path(), "sh"))].into();
        let windows = Host {
            target_os: Os::Windows,
            ..host(&upper, dir.path())
        };
        assert!(matches!(
            prepare(&local, &windows).launch,
            Err(ProbeError::NotFound { .. })
        ));
    }

    /// Issue 37 item 7: `ls -l` is no advice on Windows, where a file runs by its
    /// extension.
    #[test]
    fn a_file_that_cannot_run_is_explained_the_targets_way() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("server"), "#!/bin/sh\n").unwrap();
        let env: IndexMap<String, String> =
            [("PATH".to_owned(), dir.path().display().to_string())].into();
        let windows = Host {
            target_os: Os::Windows,
            ..host(&env, dir.path())
        };
        let said = prepare(&stdio("server", &[], None), &windows)
            .launch
            .unwrap_err()
            .to_string();
        assert!(!said.contains("ls -l"), "{said}");
        assert!(said.contains(".exe"), "{said}");
        let said = prepare(&stdio("server", &[], None), &host(&env, dir.path()))
            .launch
            .unwrap_err()
            .to_string();
        assert!(said.contains("ls -l"), "{said}");
    }

    #[test]
    fn interpreters_need_their_script() {
        let dir = tempfile::tempdir().unwrap();
        let env: IndexMap<String, String> =
            [("PATH".to_owned(), bin_with(dir.path(), "sh"))].into();
        let prepared = prepare(
            &stdio("sh", &["/nonexistent/server/index.js"], None),
            &host(&env, dir.path()),
        );
        assert!(prepared.launch.is_ok(), "sh is no interpreter it knows");
        let a = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(
            script_arg("node", &a(&["/srv/x/index.js"])),
            Some("/srv/x/index.js")
        );
        assert_eq!(
            script_arg("/usr/bin/python3", &a(&["-u", "server.py"])),
            Some("server.py")
        );
        assert_eq!(script_arg("npx", &a(&["-y", "pkg"])), None);
        assert_eq!(script_arg("node", &a(&["-e", "1"])), None);
    }

    #[test]
    fn headers_expand_variables_and_stay_hidden() {
        let dir = tempfile::tempdir().unwrap();
        let env: IndexMap<String, String> = [("TOKEN".to_owned(), "s3cret".to_owned())].into();
        let transport = Transport::Remote {
            url: "https://example.com/mcp".into(),
            kind: RemoteKind::Http,
            headers: [
                ("Authorization".to_owned(), "Bearer ${TOKEN}".to_owned()),
                ("X-Key".to_owned(), "${env:TOKEN}-${TOKEN}".to_owned()),
            ]
            .into(),
        };
        let prepared = prepare(&transport, &host(&env, dir.path()));
        let Ok(Launch::Remote { headers, .. }) = &prepared.launch else {
            panic!("{prepared:?}")
        };
        assert_eq!(headers[0].1.0, "Bearer s3cret");
        assert_eq!(headers[1].1.0, "s3cret-s3cret");
        assert!(!format!("{prepared:?}").contains("s3cret"));

        let missing = Transport::Remote {
            url: "http://127.0.0.1:9/mcp".into(),
            kind: RemoteKind::Http,
            headers: [("Authorization".to_owned(), "Bearer ${NOPE}".to_owned())].into(),
        };
        assert_eq!(
            prepare(&missing, &host(&env, dir.path()))
                .launch
                .unwrap_err(),
            ProbeError::UnsetVariable {
                variable: "NOPE".into(),
                place: "header `Authorization`".into(),
                os: Os::Linux,
            }
        );
    }
}
