//! The mcpctl binary a launcher or bridge entry starts. A client starts it, with no
//! shell, every time the server starts, so it is an absolute path that stays: never a
//! package runner's cache. `npx mcpctl`, `pnpm dlx`, `yarn dlx` and `bunx` run a copy
//! the runner clears when it likes, and going through the runner costs seconds per start
//! (issue 26). Run from such a cache, mcpctl writes the installed `mcpctl` on PATH that
//! says the same version; without one it refuses and says how to install it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::error::UserError;
use crate::platform::Platform;

/// This build's version, as `mcpctl --version` prints it after the name.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// How long an installed `mcpctl --version` may take before it counts as not answering.
const VERSION_WAIT: Duration = Duration::from_secs(5);

/// The package runner whose cache holds `path` (either separator), if any: npm's
/// `_npx/<hash>/…`, pnpm's `<cache>/pnpm/dlx/…` (older pnpm: `<tmp>/dlx-<pid>`), yarn's
/// `<tmp>/xfs-…/dlx-<pid>`, bun's `<tmp>/bunx-<uid>-<pkg>` and `~/.bun/install/cache`.
pub fn runner_cache(path: &str) -> Option<&'static str> {
    let parts: Vec<String> = path
        .split(['/', '\\'])
        .filter(|p| !p.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    let at = |i: usize, back: usize| i.checked_sub(back).map(|j| parts[j].as_str());
    for (i, part) in parts.iter().enumerate() {
        let part = part.as_str();
        if part == "_npx" {
            return Some("npx");
        }
        if part == "dlx" && matches!(at(i, 1), Some("pnpm" | "pnpm-cache" | ".pnpm-store")) {
            return Some("pnpm dlx");
        }
        if part.starts_with("dlx-") {
            return Some(if at(i, 1).is_some_and(|p| p.starts_with("xfs-")) {
                "yarn dlx"
            } else {
                "pnpm dlx"
            });
        }
        if part.starts_with("bunx-")
            || (part == "cache" && at(i, 1) == Some("install") && at(i, 2) == Some(".bun"))
        {
            return Some("bunx");
        }
    }
    None
}

/// Whether `path` is a binary cargo built in a source tree (`…/target/debug/mcpctl`,
/// `…/target/release/mcpctl`, `…/target/<triple>/<profile>/mcpctl`): `cargo clean` or
/// the next build removes or replaces it (issue 40).
pub fn source_build(path: &str) -> bool {
    let parts: Vec<&str> = path.split(['/', '\\']).filter(|p| !p.is_empty()).collect();
    let n = parts.len();
    let at = |back: usize| n.checked_sub(back).map(|i| parts[i]);
    at(3) == Some("target") || (at(4) == Some("target") && at(3).is_some_and(|t| t.contains('-')))
}

/// What to say when launcher or bridge entries start mcpctl at `program`, a source build
/// (`source_build`) nobody chose with `MCPCTL_EXE`: the entries break with `cargo clean`.
#[must_use]
pub fn source_build_warning(platform: &Platform, program: &str) -> Option<String> {
    (source_build(program) && platform.var("MCPCTL_EXE").is_none()).then(|| {
        format!(
            "the entry starts mcpctl at `{program}`, a build in a source tree: `cargo clean` or the next build removes it, and every entry that starts it stops working; install mcpctl (`cargo install --locked --path .`) and run the command again, or set MCPCTL_EXE to a path that stays"
        )
    })
}

/// The absolute path launcher and bridge entries start mcpctl by: this binary, unless it
/// runs from a package runner's cache (then the installed `mcpctl` of this version) or
/// is a build in a source tree (then the installed `mcpctl` of this version on PATH, if
/// there is one; `MCPCTL_EXE` keeps this binary).
pub fn program(platform: &Platform) -> anyhow::Result<String> {
    let exe = platform.exe().ok_or_else(|| {
        UserError::new("cannot tell where this mcpctl binary is")
            .hint("the launcher entry needs mcpctl's absolute path; run mcpctl by its path")
    })?;
    let shown = platform.os.plain_path(&exe.display().to_string());
    if source_build(&shown) && platform.var("MCPCTL_EXE").is_none() {
        let installed = installed(platform).into_iter().find(|candidate| {
            let real = std::fs::canonicalize(candidate).unwrap_or_else(|_| candidate.clone());
            !source_build(&real.display().to_string())
                && version_of(candidate).as_deref() == Some(VERSION)
        });
        return Ok(installed.map_or(shown, |p| p.display().to_string()));
    }
    let Some(runner) = runner_cache(&shown) else {
        return Ok(shown);
    };
    let mut others: Vec<String> = Vec::new();
    for candidate in installed(platform) {
        let path = candidate.display().to_string();
        match version_of(&candidate) {
            Some(v) if v == VERSION => return Ok(path),
            Some(v) => others.push(format!("`{path}` is mcpctl {v}")),
            None => others.push(format!("`{path}` did not say its version")),
        }
    }
    let found = if others.is_empty() {
        "no installed mcpctl is on PATH".to_owned()
    } else {
        format!("on PATH, {}", others.join("; "))
    };
    Err(UserError::new(format!(
        "this mcpctl runs from {runner}'s cache (`{shown}`), which {runner} clears: an entry that starts it would stop working, and starting it through {runner} costs seconds each time; {found}"
    ))
    .hint(format!(
        "install mcpctl {VERSION} (`npm install -g mcpctl@{VERSION}`, or `cargo install mcpctl --version {VERSION}`) and run the command again; nothing was written"
    ))
    .into())
}

/// Every `mcpctl` on PATH's absolute directories that is not in a runner's cache (npx
/// puts its own `node_modules/.bin` first), each once, in PATH order. A relative PATH
/// entry would find the project's own file: skipped.
fn installed(platform: &Platform) -> Vec<PathBuf> {
    let Some(path) = platform.path_var() else {
        return Vec::new();
    };
    let dirs: Vec<PathBuf> = std::env::split_paths(&path)
        .filter(|d| d.is_absolute())
        .collect();
    let Ok(path) = std::env::join_paths(dirs) else {
        return Vec::new();
    };
    let Ok(found) = which::which_in_all("mcpctl", Some(path), &platform.cwd) else {
        return Vec::new();
    };
    let mut seen: Vec<PathBuf> = Vec::new();
    let mut out = Vec::new();
    for candidate in found {
        let real = std::fs::canonicalize(&candidate).unwrap_or_else(|_| candidate.clone());
        let name = candidate.display().to_string();
        if !crate::entry::launcher::is_mcpctl(&name)
            || runner_cache(&name).is_some()
            || runner_cache(&real.display().to_string()).is_some()
            || seen.contains(&real)
        {
            continue;
        }
        seen.push(real);
        out.push(candidate);
    }
    out
}

/// The version `program --version` prints (`mcpctl 1.2.3`), `None` when it fails, says
/// something else, or does not answer in time.
fn version_of(program: &Path) -> Option<String> {
    let mut child = Command::new(program)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if started.elapsed() < VERSION_WAIT => {
                std::thread::sleep(Duration::from_millis(10));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
    let output = child.wait_with_output().ok()?;
    if !output.status.success() {
        return None;
    }
    let text = String::from_utf8(output.stdout).ok()?;
    let version = text.lines().next()?.strip_prefix("mcpctl ")?.trim();
    (!version.is_empty()).then(|| version.to_owned())
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, reason = "tests write scratch files")]
mod tests {
    use super::*;

    #[test]
    fn knows_each_runners_cache() {
        for (path, runner) in [
            (
                "/home/a/.npm/_npx/9f1c/node_modules/mcpctl-linux-x64/bin/mcpctl",
                Some("npx"),
            ),
            (
                r"C:\Users\a\AppData\Local\npm-cache\_npx\9f1c\node_modules\mcpctl-win32-x64\bin\mcpctl.exe",
                Some("npx"),
            ),
            (
                "/home/a/.cache/pnpm/dlx/ab12/node_modules/mcpctl-linux-x64/bin/mcpctl",
                Some("pnpm dlx"),
            ),
            ("/tmp/dlx-4242/node_modules/.bin/mcpctl", Some("pnpm dlx")),
            (
                "/tmp/xfs-1a2b3c/dlx-4242/node_modules/mcpctl-linux-x64/bin/mcpctl",
                Some("yarn dlx"),
            ),
            (
                "/tmp/bunx-1000-mcpctl@latest/node_modules/mcpctl-linux-x64/bin/mcpctl",
                Some("bunx"),
            ),
            (
                "/home/a/.bun/install/cache/mcpctl-linux-x64@0.3.0/bin/mcpctl",
                Some("bunx"),
            ),
            ("/home/a/.cargo/bin/mcpctl", None),
            (
                "/usr/local/lib/node_modules/mcpctl/node_modules/mcpctl-linux-x64/bin/mcpctl",
                None,
            ),
            ("/home/a/src/dlx/target/debug/mcpctl", None),
        ] {
            assert_eq!(runner_cache(path), runner, "{path}");
        }
    }

    #[test]
    fn knows_a_build_in_a_source_tree() {
        for (path, built) in [
            ("/home/a/src/mcpctl/target/debug/mcpctl", true),
            ("/home/a/src/mcpctl/target/release/mcpctl", true),
            (r"C:\src\mcpctl\target\release\mcpctl.exe", true),
            ("/src/target/x86_64-unknown-linux-musl/release/mcpctl", true),
            ("/home/a/.cargo/bin/mcpctl", false),
            ("/usr/local/bin/mcpctl", false),
            ("/opt/target/mcpctl", false),
        ] {
            assert_eq!(source_build(path), built, "{path}");
        }
    }

    /// Issue 37 item 7: Windows reports the binary as `\\?\C:\…` (canonicalize's
    /// verbatim form); entries get the plain path when it means the same file.
    #[test]
    fn the_launcher_path_is_written_without_the_verbatim_prefix() {
        use crate::platform::Os;
        let at = |exe: &str| {
            let platform = Platform::new(Os::Windows, &[], Path::new("/")).with_exe(Path::new(exe));
            program(&platform).unwrap()
        };
        assert_eq!(at(r"\\?\C:\Tools\mcpctl.exe"), r"C:\Tools\mcpctl.exe");
        assert_eq!(
            at(r"\\?\UNC\server\share\mcpctl.exe"),
            r"\\server\share\mcpctl.exe"
        );
        // Only the verbatim form can name these: kept as it is.
        let long = format!(r"\\?\C:\{}\mcpctl.exe", "d".repeat(260));
        assert_eq!(at(&long), long);
        assert_eq!(at(r"\\?\C:\odd.\mcpctl.exe"), r"\\?\C:\odd.\mcpctl.exe");
        assert_eq!(at(r"\\?\C:\nul\mcpctl.exe"), r"\\?\C:\nul\mcpctl.exe");
        assert_eq!(at("/usr/bin/mcpctl"), "/usr/bin/mcpctl");
    }

    #[cfg(unix)]
    mod on_unix {
        use super::super::*;
        use crate::platform::Os;

        /// A script named `mcpctl` in `dir` that prints `says` for `--version`.
        fn fake(dir: &Path, says: &str) -> PathBuf {
            use std::os::unix::fs::PermissionsExt;
            std::fs::create_dir_all(dir).unwrap();
            let path = dir.join("mcpctl");
            std::fs::write(&path, format!("#!/bin/sh\necho '{says}'\n")).unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
            path
        }

        fn platform(root: &Path, path: &str, exe: &Path) -> Platform {
            Platform::new(Os::Linux, &[("PATH", path)], root).with_exe(exe)
        }

        #[test]
        fn outside_a_cache_it_is_this_binary() {
            let root = tempfile::tempdir().unwrap();
            let exe = fake(&root.path().join(".cargo/bin"), "mcpctl 0.0.1");
            let got = program(&platform(root.path(), "", &exe)).unwrap();
            assert_eq!(got, exe.display().to_string());
        }

        #[test]
        fn from_npx_it_is_the_installed_binary_of_the_same_version() {
            let root = tempfile::tempdir().unwrap();
            let npx = root.path().join(".npm/_npx/9f1c/node_modules");
            let exe = fake(
                &npx.join("mcpctl-linux-x64/bin"),
                &format!("mcpctl {VERSION}"),
            );
            // npx puts its own `.bin` first on PATH: never that one.
            let shim = fake(&npx.join(".bin"), &format!("mcpctl {VERSION}"));
            let old = fake(&root.path().join("old"), "mcpctl 0.0.1");
            let good = fake(&root.path().join("usr/bin"), &format!("mcpctl {VERSION}"));
            let path = [&shim, &old, &good]
                .iter()
                .map(|p| p.parent().unwrap().display().to_string())
                .collect::<Vec<_>>()
                .join(":");
            let got = program(&platform(root.path(), &path, &exe)).unwrap();
            assert_eq!(got, good.display().to_string());
        }

        #[test]
        fn from_npx_without_an_install_it_refuses_and_says_how_to_install() {
            let root = tempfile::tempdir().unwrap();
            let exe = fake(
                &root
                    .path()
                    .join(".npm/_npx/9f1c/node_modules/mcpctl-linux-x64/bin"),
                &format!("mcpctl {VERSION}"),
            );
            let old = fake(&root.path().join("old"), "mcpctl 0.0.1");
            let path = format!("{}:relative/bin", old.parent().unwrap().display());
            let error = program(&platform(root.path(), &path, &exe)).unwrap_err();
            let text = format!("{error:#}");
            assert!(text.contains("npx's cache"), "{text}");
            assert!(text.contains("is mcpctl 0.0.1"), "{text}");
            let hint = error
                .downcast_ref::<UserError>()
                .and_then(|e| e.hint.clone())
                .unwrap_or_default();
            assert!(
                hint.contains(&format!("npm install -g mcpctl@{VERSION}")),
                "{hint}"
            );
        }
    }
}
