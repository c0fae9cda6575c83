//! The README and the book under docs/ (issue 24): the generated parts are not stale, every
//! relative link and `#anchor` resolves (as GitHub and mdBook read them), every page is in
//! docs/SUMMARY.md, and every `mcpctl` example in a ```sh block works as printed.
//!
//! Generated regions are rewritten, instead of failing, with `MCPCTL_UPDATE_README=1`:
//! `MCPCTL_UPDATE_README=1 cargo test --test cli docs` (every test with `docs` in its
//! name: these, and the client and rule tables' in clients.rs and check.rs).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[cfg(unix)]
use crate::env::TestEnv;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn updating() -> bool {
    std::env::var_os("MCPCTL_UPDATE_README").is_some()
}

/// The text between `start` and `end` in the file at `rel` must be `content`; with
/// `MCPCTL_UPDATE_README` set it is rewritten instead. `refresh` names the test to run.
pub fn generated_region(rel: &str, start: &str, end: &str, content: &str, refresh: &str) {
    let path = root().join(rel);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{rel}: {e}"));
    let from = text
        .find(start)
        .unwrap_or_else(|| panic!("{rel} lacks the marker {start:?}"))
        + start.len();
    let to = from
        + text[from..]
            .find(end)
            .unwrap_or_else(|| panic!("{rel} lacks the marker {end:?}"));
    if text[from..to] == *content {
        return;
    }
    if updating() {
        std::fs::write(&path, format!("{}{content}{}", &text[..from], &text[to..])).unwrap();
    } else {
        panic!(
            "{rel} is stale (generated between {start:?} and {end:?}): run `MCPCTL_UPDATE_README=1 cargo test --test cli {refresh}` and commit {rel}"
        );
    }
}

/// README.md, BENCHMARKS.md and every page of the book, as paths relative to the root.
fn markdown_files() -> Vec<String> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    let mut pages = Vec::new();
    walk(&root().join("docs"), &mut pages);
    let mut files: Vec<String> = pages
        .iter()
        .map(|p| {
            p.strip_prefix(root())
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/")
        })
        .collect();
    files.sort();
    files.insert(0, "BENCHMARKS.md".into());
    files.insert(0, "README.md".into());
    files
}

// ---------------------------------------------------------------------------------------
// The command reference: one page per subcommand, its `--help` generated from clap.

/// Every subcommand but clap's own `help` and hidden plumbing (`__complete`), in
/// `--help` order.
#[cfg(unix)] // only Unix-only tests use it
fn subcommands() -> Vec<(String, String)> {
    use clap::CommandFactory;
    mcpctl::api::cli::Cli::command()
        .get_subcommands()
        .filter(|c| !c.is_hide_set())
        .map(|c| {
            let about = c.get_about().map(|a| a.to_string()).unwrap_or_default();
            (c.get_name().to_owned(), about)
        })
        .collect()
}

#[cfg(unix)] // only Unix-only tests use it
fn help_of(command: &str) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mcpctl"))
        .args([command, "--help"])
        .env_clear()
        .env("NO_COLOR", "1")
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "mcpctl {command} --help");
    String::from_utf8(out.stdout).unwrap()
}

#[cfg(unix)] // only Unix-only tests use it
const HELP_START: &str = "<!-- help:start: generated from `mcpctl COMMAND --help` (src/cli.rs); `MCPCTL_UPDATE_README=1 cargo test --test cli docs` rewrites it -->\n";
#[cfg(unix)] // only Unix-only tests use it
const HELP_END: &str = "<!-- help:end -->";

#[test]
#[cfg(unix)] // the pages are generated from the Linux binary's --help
fn command_reference_is_generated_from_clap() {
    let commands = subcommands();
    let mut index = String::from("| command | what it does |\n|---|---|\n");
    let mut summary = String::new();
    for (name, about) in &commands {
        index.push_str(&format!("| [`{name}`](commands/{name}.md) | {about} |\n"));
        summary.push_str(&format!("  - [{name}](reference/commands/{name}.md)\n"));
        let rel = format!("docs/reference/commands/{name}.md");
        let start = HELP_START.replace("COMMAND", name);
        let generated = format!("```text\n{}```\n", help_of(name));
        let path = root().join(&rel);
        if !path.exists() {
            assert!(
                updating(),
                "{rel} is missing: run `MCPCTL_UPDATE_README=1 cargo test --test cli docs` and commit it (then add a line on when to use it below the generated help)"
            );
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(
                &path,
                format!("# `mcpctl {name}`\n\n{about}.\n\n{start}{HELP_END}\n"),
            )
            .unwrap();
        }
        generated_region(&rel, &start, HELP_END, &generated, "docs");
    }
    generated_region(
        "docs/reference/commands.md",
        "<!-- commands:start -->\n",
        "<!-- commands:end -->",
        &index,
        "docs",
    );
    // SUMMARY.md's list under the Commands page: the lines indented below it.
    let summary_path = root().join("docs/SUMMARY.md");
    let text = std::fs::read_to_string(&summary_path).unwrap();
    let head = "- [Commands](reference/commands.md)\n";
    let from = text.find(head).expect("SUMMARY.md lists the Commands page") + head.len();
    let len: usize = text[from..]
        .split_inclusive('\n')
        .take_while(|l| l.starts_with("  "))
        .map(str::len)
        .sum();
    if text[from..from + len] != summary {
        assert!(
            updating(),
            "docs/SUMMARY.md's command list is stale: run `MCPCTL_UPDATE_README=1 cargo test --test cli docs` and commit it"
        );
        std::fs::write(
            &summary_path,
            format!("{}{summary}{}", &text[..from], &text[from + len..]),
        )
        .unwrap();
    }
    // No page for a command that is gone.
    for entry in std::fs::read_dir(root().join("docs/reference/commands")).unwrap() {
        let file = entry.unwrap().file_name().to_string_lossy().into_owned();
        let name = file.trim_end_matches(".md");
        assert!(
            commands.iter().any(|(c, _)| c == name),
            "docs/reference/commands/{file}: no such command; delete it"
        );
    }
}

// ---------------------------------------------------------------------------------------
// Links.

/// The text of a Markdown file outside fenced code blocks, inline code removed, line by
/// line (a removed line stays as an empty one, so line numbers hold).
fn prose(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fence: Option<&str> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if let Some(f) = fence {
            if trimmed.starts_with(f) {
                fence = None;
            }
            out.push(String::new());
            continue;
        }
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fence = Some(&trimmed[..3]);
            out.push(String::new());
            continue;
        }
        // Drop inline code spans (`...` or ``...``).
        let mut kept = String::new();
        let mut rest = line;
        while let Some(open) = rest.find('`') {
            kept.push_str(&rest[..open]);
            let ticks = rest[open..].chars().take_while(|&c| c == '`').count();
            let after = &rest[open + ticks..];
            match after.find(&"`".repeat(ticks)) {
                Some(close) => rest = &after[close + ticks..],
                None => {
                    rest = after;
                    break;
                }
            }
        }
        kept.push_str(rest);
        out.push(kept);
    }
    out
}

/// The anchor GitHub (and mdBook) gives a heading: lower case, punctuation dropped,
/// spaces as hyphens; a repeated heading gets `-1`, `-2`, ...
fn anchors(text: &str) -> Vec<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = Vec::new();
    let mut fence = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fence = !fence;
            continue;
        }
        if fence {
            continue;
        }
        for (tag, quote) in [("id=\"", '"'), ("name=\"", '"')] {
            if let Some(at) = line.find(tag).filter(|_| line.contains("<a ")) {
                let rest = &line[at + tag.len()..];
                if let Some(end) = rest.find(quote) {
                    out.push(rest[..end].to_owned());
                }
            }
        }
        let Some(heading) = line.strip_prefix('#') else {
            continue;
        };
        let heading = heading.trim_start_matches('#');
        if !heading.starts_with(' ') {
            continue;
        }
        // Link text stays, the destination goes: `[text](url)` -> `text`.
        let mut plain = String::new();
        let mut rest = heading.trim();
        while let Some(open) = rest.find("](") {
            plain.push_str(&rest[..open]);
            rest = rest[open..].split_once(')').map_or("", |(_, r)| r);
        }
        plain.push_str(rest);
        let slug: String = plain
            .to_lowercase()
            .chars()
            .filter_map(|c| match c {
                ' ' => Some('-'),
                c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                _ => None,
            })
            .collect();
        let n = seen.entry(slug.clone()).or_insert(0);
        out.push(if *n == 0 {
            slug.clone()
        } else {
            format!("{slug}-{n}")
        });
        *n += 1;
    }
    out
}

/// Every link destination in the prose: `[text](dest)`, `![alt](dest)` and `[label]: dest`,
/// with its line number.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, line) in prose(text).iter().enumerate() {
        let mut rest = line.as_str();
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            let dest: String = rest
                .chars()
                .take_while(|&c| c != ')' && !c.is_whitespace())
                .collect();
            out.push((i + 1, dest.trim_matches(['<', '>']).to_owned()));
        }
        let t = line.trim_start();
        if t.starts_with('[')
            && let Some((label, dest)) = t.split_once("]: ")
            && !label.contains('(')
        {
            out.push((
                i + 1,
                dest.split_whitespace().next().unwrap_or("").to_owned(),
            ));
        }
    }
    out
}

#[test]
fn every_relative_link_and_anchor_resolves() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for file in markdown_files() {
        let text = std::fs::read_to_string(root().join(&file)).unwrap();
        let dir = Path::new(&file).parent().unwrap_or(Path::new(""));
        for (line, dest) in links(&text) {
            if dest.is_empty() || dest.contains("://") || dest.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (path, anchor) = match dest.split_once('#') {
                Some((p, a)) => (p, Some(a)),
                None => (dest.as_str(), None),
            };
            let target = if path.is_empty() {
                PathBuf::from(&file)
            } else {
                dir.join(path)
            };
            // Resolve `..` by hand: the target must stay inside the repository.
            let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
            let mut escapes = false;
            for part in target.components() {
                match part {
                    std::path::Component::ParentDir => escapes |= parts.pop().is_none(),
                    std::path::Component::CurDir => {}
                    other => parts.push(other.as_os_str()),
                }
            }
            let resolved: PathBuf = parts.iter().collect();
            let full = root().join(&resolved);
            if escapes || !full.exists() {
                broken.push(format!("{file}:{line}: `{dest}`: no such file"));
                continue;
            }
            if let Some(anchor) = anchor
                && full.extension().is_some_and(|e| e == "md")
            {
                let target_text = std::fs::read_to_string(&full).unwrap();
                if !anchors(&target_text).iter().any(|a| a == anchor) {
                    broken.push(format!(
                        "{file}:{line}: `{dest}`: no heading with anchor #{anchor} in {}",
                        resolved.display()
                    ));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
    assert!(checked > 50, "only {checked} links checked");
}

#[test]
fn every_page_of_the_book_is_in_the_summary() {
    let summary = std::fs::read_to_string(root().join("docs/SUMMARY.md")).unwrap();
    let listed: Vec<String> = links(&summary).into_iter().map(|(_, d)| d).collect();
    for file in markdown_files() {
        let Some(page) = file.strip_prefix("docs/") else {
            continue;
        };
        if page == "SUMMARY.md" {
            continue;
        }
        assert!(
            listed.iter().any(|l| l == page),
            "docs/{page} is not in docs/SUMMARY.md, so the book does not have it"
        );
    }
}

#[test]
fn link_check_sees_anchors_as_github_does() {
    let page = "# `mcpctl check` — lint\n## Use in CI\n## Use in CI\n```sh\n# not a heading\n```\n";
    assert_eq!(
        anchors(page),
        ["mcpctl-check--lint", "use-in-ci", "use-in-ci-1"]
    );
    let text = "see [a](x.md#y) and `[b](not-a-link)`\n```\n[c](in-code)\n```\n[d]: ref.md\n";
    assert_eq!(
        links(text),
        [(1, "x.md#y".to_owned()), (5, "ref.md".to_owned())]
    );
}

// ---------------------------------------------------------------------------------------
// Examples.

/// Subcommands whose examples reach beyond a temp HOME: `doctor`, `tools` and `call`
/// start the servers (npx from the network; their own tests use local servers), the
/// registry commands ask the MCP Registry (tests/cli/registry.rs runs them against a
/// local one).
#[cfg(unix)]
const NOT_RUN_HERE: &[&str] = &["doctor", "tools", "call", "search", "outdated", "update"];

/// One page's ```sh blocks, in order: each block's set-up commands
/// (`<!-- example-setup: SHELL -->` lines before it), whether it is marked
/// `<!-- examples: not run ... -->`, and its lines.
#[cfg(unix)]
fn sh_blocks(text: &str) -> Vec<(Vec<String>, bool, Vec<String>)> {
    let mut blocks = Vec::new();
    let mut setup = Vec::new();
    let mut skip = false;
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let t = line.trim();
        if let Some(cmd) = t
            .strip_prefix("<!-- example-setup:")
            .and_then(|r| r.strip_suffix("-->"))
        {
            setup.push(cmd.trim().to_owned());
        } else if t.starts_with("<!-- examples: not run") {
            skip = true;
        } else if t == "```sh" {
            let body: Vec<String> = lines
                .by_ref()
                .take_while(|l| !l.trim_start().starts_with("```"))
                .map(str::to_owned)
                .collect();
            blocks.push((std::mem::take(&mut setup), skip, body));
            skip = false;
        } else if t.starts_with("```") {
            // Another fenced block: skip to its end, it has no examples.
            for l in lines.by_ref() {
                if l.trim_start().starts_with("```") {
                    break;
                }
            }
        }
    }
    blocks
}

/// A machine with a few clients, and the project files the `check` examples name.
#[cfg(unix)]
fn example_machine() -> TestEnv {
    let env = TestEnv::new();
    for dir in [
        ".cursor",
        ".codex",
        ".config/Code/User",
        ".gemini",
        ".local/share/bash-completion/completions",
        ".local/share/man/man1",
    ] {
        std::fs::create_dir_all(env.path(dir)).unwrap();
    }
    env.write(
        ".mcp.json",
        br#"{"mcpServers": {"t": {"type": "stdio", "command": "node", "args": ["t.js"]}}}"#,
    );
    env.write(
        ".vscode/mcp.json",
        br#"{"servers": {"t": {"type": "stdio", "command": "node", "args": ["t.js"]}}}"#,
    );
    let bin = env.dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_mcpctl"), bin.join("mcpctl")).unwrap();
    env
}

#[cfg(unix)]
fn sh(env: &TestEnv, command: &str) -> std::process::Output {
    env.client_command(Path::new("sh"))
        .args(["-c", command])
        .output()
        .unwrap()
}

// Done when: every example in the README and the book works as printed on Linux.
#[cfg(unix)]
#[test]
fn every_example_in_the_readme_and_the_book_works_as_printed() {
    let mut ran = 0;
    let mut failed = Vec::new();
    for file in markdown_files() {
        if file.starts_with("docs/dev/") || file == "BENCHMARKS.md" {
            continue; // the peer log and the benchmarks quote other programs' sessions
        }
        let text = std::fs::read_to_string(root().join(&file)).unwrap();
        let blocks = sh_blocks(&text);
        if blocks.is_empty() {
            continue;
        }
        // One machine per page: a page's examples follow on from each other.
        let env = example_machine();
        for (setup, skip, lines) in blocks {
            for command in &setup {
                let out = sh(&env, command);
                assert!(
                    out.status.success(),
                    "{file}: example set-up failed: {command}\n{}",
                    String::from_utf8_lossy(&out.stderr)
                );
            }
            for line in lines.iter().filter(|l| l.starts_with("mcpctl ")) {
                let command = line.split("  #").next().unwrap().trim();
                let words: Vec<&str> = command.split_whitespace().collect();
                let verb = words
                    .iter()
                    .skip(1)
                    .find(|w| !w.starts_with('-') && !["macos", "windows", "linux"].contains(w))
                    .copied()
                    .unwrap_or("");
                if skip
                    || NOT_RUN_HERE.contains(&verb)
                    || (verb == "add" && words.get(2).is_some_and(|w| w.contains('/')))
                {
                    eprintln!("{file}: example not run here: {command}");
                    continue;
                }
                let out = sh(&env, command);
                if out.status.code() != Some(0) {
                    failed.push(format!(
                        "{file}: {command}\nexit {:?}\nstdout:\n{}\nstderr:\n{}",
                        out.status.code(),
                        String::from_utf8_lossy(&out.stdout),
                        String::from_utf8_lossy(&out.stderr)
                    ));
                }
                ran += 1;
            }
        }
    }
    assert!(
        failed.is_empty(),
        "examples failed:\n\n{}",
        failed.join("\n\n")
    );
    assert!(ran >= 30, "only {ran} examples ran");
}

/// docs/guarantees.md names, per guarantee, the tests that hold mcpctl to it, and
/// docs/dev/first-hour.md per friction of issue 24: in each table row, a `file.rs` is
/// followed by the `test_names` in it, and each must be a `fn` there.
#[test]
fn guarantees_page_names_tests_that_exist() {
    assert!(tests_named_by("docs/guarantees.md") >= 30);
    assert!(tests_named_by("docs/dev/first-hour.md") >= 31);
}

/// How many tests the table rows of `page` name; panics on a name its file lacks.
fn tests_named_by(page_path: &str) -> usize {
    let page = std::fs::read_to_string(root().join(page_path)).unwrap();
    let mut named = 0;
    for row in page.lines().filter(|l| l.starts_with("| **")) {
        let mut file: Option<String> = None;
        for token in row.split('`').skip(1).step_by(2) {
            if token.ends_with(".rs") {
                let text = std::fs::read_to_string(root().join(token))
                    .unwrap_or_else(|e| panic!("docs/guarantees.md names {token}: {e}"));
                file = Some(text);
                continue;
            }
            let is_name = token
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
            if let (Some(text), true) = (&file, is_name) {
                assert!(
                    text.contains(&format!("fn {token}(")),
                    "{page_path} names the test `{token}`, which its file does not have"
                );
                named += 1;
            }
        }
    }
    named
}

/// Issue 40: the README's sample session was typed by hand and went stale (no CHECKED
/// column). It is the real binary's output on a machine with Cursor (one server), VS Code
/// and Codex; `MCPCTL_UPDATE_README=1` rewrites it.
#[test]
#[cfg(unix)] // the sample shows Linux paths
fn readme_sample_session_is_the_binarys_output() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.path(".codex")).unwrap();
    std::fs::create_dir_all(env.path(crate::env::VSCODE).parent().unwrap()).unwrap();
    env.write(
        ".cursor/mcp.json",
        b"{\n  \"mcpServers\": {\n    \"a\": { \"command\": \"npx\", \"args\": [\"x\"] }\n  }\n}\n",
    );
    env.on_path("npx");
    let mut text = String::from("```text\n");
    for line in ["mcpctl clients", &readme_first_add(), "mcpctl list"] {
        let args: Vec<&str> = line.split_whitespace().skip(1).collect();
        let run = env.run(&args).ok();
        text.push_str(&format!("$ {line}\n{}", run.stdout));
    }
    text.push_str("```\n");
    generated_region(
        "README.md",
        "<!-- sample session: generated by readme_sample_session_is_the_binarys_output -->\n",
        "<!-- sample session end -->",
        &text,
        "readme_sample_session_is_the_binarys_output",
    );
}

/// The `mcpctl add` line of the README's first session (its comment cut off), as a
/// newcomer pastes it.
pub(crate) fn readme_first_add() -> String {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let session = readme
        .split("## A first session\n\n```sh\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("the README has a first session");
    session
        .lines()
        .find(|l| l.starts_with("mcpctl add "))
        .map(|l| l.split(" #").next().unwrap().trim().to_owned())
        .expect("the first session adds a server")
}

/// Issue 40: the README's doctor sample was typed by hand and went stale (its 401 row
/// said "log in through your client" where doctor now names `mcpctl login`). It is the
/// real binary's output against real servers: server-memory in Cursor, a Python server
/// whose module is missing in Claude Code, and a remote server answering 401 in Codex.
/// Rows are printed as each server finishes and timings vary, so the comparison takes
/// the rows in any order and the milliseconds as any number; `MCPCTL_UPDATE_README=1`
/// rewrites the sample with the numbers of that run.
#[test]
#[ignore = "needs .ci/peers.sh and cargo build -p fixture-server"]
#[cfg(unix)] // the sample shows a Unix machine's clients
fn readme_doctor_sample_is_the_binarys_output() {
    use crate::doctor::{KillOnDrop, fixture, free_port, wait_listening};
    let memory = root()
        .join(".cache/peers/npm/node_modules/@modelcontextprotocol/server-memory/dist/index.js");
    if !memory.is_file() {
        crate::peer::missing("server-memory is not installed (run .ci/peers.sh)");
    }
    let port = free_port();
    let _github = KillOnDrop(
        std::process::Command::new(fixture())
            .arg(format!("http-401-bare={port}"))
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap(),
    );
    wait_listening(port);
    let env = TestEnv::new();
    env.write(
        ".cursor/mcp.json",
        serde_json::json!({"mcpServers": {"memory": {"command": "node", "args": [memory]}}})
            .to_string()
            .as_bytes(),
    );
    env.write(
        ".claude.json",
        br#"{"mcpServers": {"sqlite": {"command": "python3", "args": ["-c", "import mcp_server_sqlite"]}}}"#,
    );
    env.write(
        ".codex/config.toml",
        format!("[mcp_servers.github]\nurl = \"http://127.0.0.1:{port}/mcp\"\n").as_bytes(),
    );
    let run = env.run(&["doctor"]).code(1);
    // What doctor says it starts (on stderr, wrapped to the test's width: one line here).
    let from = run
        .stderr
        .find("checking ")
        .expect("doctor says what it starts");
    let to = from
        + run.stderr[from..]
            .find("config files")
            .expect("its whole sentence");
    let checking = run.stderr[from..to + "config files".len()].replace('\n', " ");
    let content = format!("```text\n$ mcpctl doctor\n{checking}\n{}```\n", run.stdout);
    let start = "<!-- doctor sample: generated by readme_doctor_sample_is_the_binarys_output -->\n";
    let end = "<!-- doctor sample end -->";
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let from = readme
        .find(start)
        .expect("the README marks its doctor sample")
        + start.len();
    let to = from
        + readme[from..]
            .find(end)
            .expect("the doctor sample's end marker");
    // The same rows in any order, the same text with any milliseconds.
    let shape = |text: &str| -> Vec<String> {
        let masked: String = text
            .split(" ms")
            .map(|part| part.trim_end_matches(|c: char| c.is_ascii_digit()))
            .collect::<Vec<_>>()
            .join("N ms");
        let mut blocks: Vec<String> = Vec::new();
        for line in masked.lines() {
            match blocks.last_mut() {
                Some(last) if line.starts_with(' ') => {
                    last.push('\n');
                    last.push_str(line);
                }
                _ => blocks.push(line.to_owned()),
            }
        }
        blocks.sort();
        blocks
    };
    if shape(&readme[from..to]) == shape(&content) {
        return;
    }
    if updating() {
        let text = format!("{}{content}{}", &readme[..from], &readme[to..]);
        std::fs::write(root().join("README.md"), text).unwrap();
    } else {
        panic!(
            "README.md's doctor sample is stale: run `MCPCTL_UPDATE_README=1 cargo test --test cli readme_doctor_sample -- --include-ignored` and commit README.md\nnow:\n{content}"
        );
    }
}

/// Issue 40: the README's doctor sample showed 3 rows and counted "1 failed, 1 warning, 2
/// ok". Its summary line counts the rows it shows.
#[test]
fn readme_doctor_sample_counts_the_rows_it_shows() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let block = readme
        .split("```text\n$ mcpctl doctor\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("the README has a doctor sample");
    let rows = |mark: char| block.lines().filter(|l| l.starts_with(mark)).count();
    let (ok, warn, fail) = (rows('✔'), rows('⚠'), rows('✘'));
    let plural = if warn == 1 { "" } else { "s" };
    let summary = format!("{fail} failed, {warn} warning{plural}, {ok} ok");
    assert!(
        block.lines().any(|l| l == summary),
        "the sample's rows say `{summary}`:\n{block}"
    );
}

/// The `href`s and `id`s of an HTML page, entities decoded (`&amp;` in a query).
#[cfg(unix)] // for the built book's test, Unix only
fn hrefs_and_ids(html: &str) -> (Vec<String>, std::collections::HashSet<String>) {
    let values = |attribute: &str| -> Vec<String> {
        html.match_indices(attribute)
            .filter(|(at, _)| {
                html[..*at]
                    .chars()
                    .next_back()
                    .is_some_and(char::is_whitespace)
            })
            .filter_map(|(at, _)| {
                let rest = &html[at + attribute.len()..];
                let end = rest.find('"')?;
                Some(
                    rest[..end]
                        .replace("&amp;", "&")
                        .replace("&quot;", "\"")
                        .replace("&#39;", "'"),
                )
            })
            .collect()
    };
    (values("href=\""), values("id=\"").into_iter().collect())
}

/// `%XX` escapes decoded (mdBook writes them for spaces and non-ASCII in paths).
#[cfg(unix)] // for the built book's test, Unix only
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(byte) = text
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(byte);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Issue 40: the built book had 7 broken links (pages linking `../BENCHMARKS.md`,
/// `../clients.toml` and `SUMMARY.md`, which exist beside the Markdown but not in the
/// HTML) and shipped `book.toml`; the docs tests checked the Markdown only. This builds
/// the book with the mdBook `.ci/mdbook.sh` installs and checks every relative `href` of
/// the HTML: its file exists in the book, and its `#anchor` is an `id` there.
#[test]
#[cfg(unix)] // the mdBook install is a Unix venv
#[ignore = "needs .ci/mdbook.sh"]
fn the_built_book_has_no_broken_link_and_ships_only_the_book() {
    let mdbook = root()
        .join(".cache")
        .join("mdbook")
        .join("bin")
        .join("mdbook");
    if !mdbook.is_file() {
        crate::peer::missing("mdBook (run `bash .ci/mdbook.sh`)");
    }
    let out = tempfile::tempdir().unwrap();
    let built = std::process::Command::new(&mdbook)
        .arg("build")
        .arg(root())
        .arg("--dest-dir")
        .arg(out.path())
        .output()
        .unwrap();
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let book = out.path();
    assert!(book.join("index.html").is_file());
    let mut pages: Vec<PathBuf> = Vec::new();
    let mut stack = vec![book.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            // Only the book: pages and mdBook's own assets, never a source file.
            assert!(
                !name.ends_with(".toml") && !name.ends_with(".md") && !name.ends_with(".rs"),
                "the book ships {}",
                path.strip_prefix(book).unwrap().display()
            );
            if name.ends_with(".html") {
                pages.push(path);
            }
        }
    }
    let mut ids: BTreeMap<PathBuf, std::collections::HashSet<String>> = BTreeMap::new();
    let mut links: Vec<(PathBuf, String)> = Vec::new();
    for page in &pages {
        let html = std::fs::read_to_string(page).unwrap();
        let (hrefs, page_ids) = hrefs_and_ids(&html);
        ids.insert(page.clone(), page_ids);
        // print.html repeats every page (its links are the pages'); 404.html is served
        // from wherever a missing page was asked for.
        let name = page.file_name().unwrap().to_string_lossy();
        if name == "print.html" || name == "404.html" {
            continue;
        }
        links.extend(hrefs.into_iter().map(|h| (page.clone(), h)));
    }
    let mut broken = Vec::new();
    for (page, href) in &links {
        if href.contains("://") || href.starts_with("mailto:") || href.starts_with("//") {
            continue;
        }
        let (path, anchor) = match href.split_once('#') {
            Some((path, anchor)) => (path, Some(anchor)),
            None => (href.as_str(), None),
        };
        let path = percent_decoded(path.split('?').next().unwrap_or_default());
        let mut target = if path.is_empty() {
            page.clone()
        } else {
            let mut t = page.parent().unwrap().to_path_buf();
            for part in path.split('/') {
                match part {
                    "" | "." => {}
                    ".." => {
                        t.pop();
                    }
                    part => t.push(part),
                }
            }
            t
        };
        if target.is_dir() {
            target.push("index.html");
        }
        let shown = format!("{} → {href}", page.strip_prefix(book).unwrap().display());
        if !target.starts_with(book) || !target.is_file() {
            broken.push(format!("{shown}: no such file in the book"));
            continue;
        }
        if let (Some(anchor), Some(page_ids)) = (anchor, ids.get(&target))
            && !anchor.is_empty()
            && !page_ids.contains(&percent_decoded(anchor))
        {
            broken.push(format!("{shown}: no such anchor"));
        }
    }
    assert!(
        broken.is_empty(),
        "{} broken:\n{}",
        broken.len(),
        broken.join("\n")
    );
}
