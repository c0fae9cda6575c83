//! What `plan` and `apply` print (issue 40): the servers in the manifest's order, no
//! header for a file in sync, each warning once, and one patchable diff per file.
// See: issue 40

use crate::env::{TestEnv, jsonc};

const MANIFEST: &str = crate::env::MANIFEST;

/// The lines of `text` that list an item (`  + add       NAME`), as (action, name).
fn item_lines(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| {
            let mut words = l.split_whitespace().skip(1);
            Some((words.next()?.to_owned(), words.next()?.to_owned()))
        })
        .collect()
}

/// Issue 40: apply's order differed from the manifest's (the TOML reader hands tables
/// over sorted by name). Plan, apply and the files follow the order the manifest
/// declares its servers in.
#[test]
fn plan_and_apply_list_servers_in_the_manifests_order_and_write_them_so() {
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", b"{\"mcpServers\": {}}\n");
    env.write(".codex/config.toml", b"model = \"gpt-5-codex\"\n");
    env.write(
        MANIFEST,
        b"clients = [\"cursor\", \"codex\"]\n\n[servers.zeta]\nurl = \"https://zeta.example.com/mcp\"\n\n[servers.alpha]\nurl = \"https://alpha.example.com/mcp\"\n\n[servers.mid]\nurl = \"https://mid.example.com/mcp\"\n",
    );
    let declared = ["zeta", "alpha", "mid"];
    let plan = env.run(&["plan", "--json"]).ok().json();
    let names: Vec<&str> = plan
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["client"] == "cursor")
        .map(|i| i["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, declared, "{plan}");
    let text = env.run(&["plan"]).ok().stdout;
    let listed: Vec<String> = item_lines(&text).into_iter().map(|(_, n)| n).collect();
    assert_eq!(listed, [declared, declared].concat(), "{text}");
    let apply = env.run(&["apply"]).ok().stdout;
    let listed: Vec<String> = item_lines(&apply).into_iter().map(|(_, n)| n).collect();
    assert_eq!(listed, [declared, declared].concat(), "{apply}");
    let cursor = jsonc(&env.read(".cursor/mcp.json"));
    let keys: Vec<&String> = cursor["mcpServers"].as_object().unwrap().keys().collect();
    assert_eq!(keys, declared, "{cursor}");
    let codex = env.read_str(".codex/config.toml");
    let at = |name: &str| codex.find(&format!("[mcp_servers.{name}]")).unwrap();
    assert!(
        at("zeta") < at("alpha") && at("alpha") < at("mid"),
        "{codex}"
    );
}

/// Issue 40: a file with nothing to change printed its header with nothing under it
/// (its only news a note, printed on stderr), and the same warning came once per entry
/// and once per client. A file in sync prints nothing; a warning is said once, naming
/// every entry and client it is about.
#[test]
fn a_file_in_sync_prints_no_header_and_a_warning_comes_once_naming_its_entries() {
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", b"{\"mcpServers\": {}}\n");
    env.write(".codex/config.toml", b"model = \"gpt-5-codex\"\n");
    let servers = "[servers.zeta]\ncommand = \"zeta-mcp\"\nsecrets = { Z_KEY = \"shared-key\" }\n\n[servers.mid]\ncommand = \"mid-mcp\"\nsecrets = { M_KEY = \"shared-key\" }\n";
    env.write(
        MANIFEST,
        format!("clients = [\"cursor\", \"codex\"]\n\n{servers}").as_bytes(),
    );
    env.run(&["apply"]).ok();
    let run = env.run(&["plan"]).ok();
    assert_eq!(
        run.stdout, "every client file matches the manifest\n",
        "{}",
        run.stdout
    );
    let warnings: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains("shared-key"))
        .collect();
    assert_eq!(
        warnings,
        [
            "warning: `zeta`, `mid` (cursor, codex): secret `shared-key` is not set on this machine: run `mcpctl secret set shared-key` (written anyway; the server cannot start until then)"
        ],
        "{}",
        run.stderr
    );
    // One file to change, one in sync: only the first has a header.
    env.write(
        MANIFEST,
        format!(
            "clients = [\"cursor\", \"codex\"]\n\n{servers}\n[servers.docs]\nurl = \"https://docs.example.com/mcp\"\nclients = [\"codex\"]\n"
        )
        .as_bytes(),
    );
    let run = env.run(&["plan"]).ok();
    assert!(
        run.stdout.contains("config.toml (codex, user)\n"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("(cursor, user)"), "{}", run.stdout);
    assert_eq!(
        run.stderr.matches("shared-key` is not set").count(),
        1,
        "{}",
        run.stderr
    );
}

/// `from`, every file and directory under it, copied to `to`.
#[cfg(unix)]
fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// `patch -pN` run in `dir` on `diff`: its output, and whether it succeeded.
#[cfg(unix)]
fn patch(dir: &std::path::Path, strip: &str, diff: &str) -> (bool, String) {
    use std::io::Write;
    let mut child = std::process::Command::new("patch")
        .args([strip, "--batch", "--no-backup-if-mismatch"])
        .current_dir(dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(diff.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

#[cfg(unix)]
const VSCODE_WITH_COMMENTS: &str = "{\n\t// my servers\n\t\"servers\": {\n\t\t/* pinned */\n\t\t\"playwright\": {\n\t\t\t\"type\": \"stdio\",\n\t\t\t\"command\": \"npx\",\n\t\t\t\"args\": [\"@playwright/mcp@latest\"]\n\t\t}\n\t}\n}\n";

/// Issue 40: plan and apply printed one `---/+++` pair per step against separate
/// baselines (the file's edits, then each switch against the file as it was), so the
/// output was no patch of anything. Each file is now one unified diff, from its bytes now
/// to the bytes `apply` leaves (updates, removals, additions and switches together),
/// named `~/PATH` (`patch -p2` in the home directory): applied with the real `patch` to a
/// copy of HOME it gives, byte for byte, what `apply` writes, in JSON with comments,
/// TOML and YAML.
#[test]
#[cfg(unix)] // runs `patch`; the entries spell npx unwrapped
fn a_plans_diff_is_one_patch_per_file_that_gives_what_apply_writes() {
    let env = TestEnv::new();
    env.write(crate::env::VSCODE, VSCODE_WITH_COMMENTS.as_bytes());
    env.write(
        ".codex/config.toml",
        b"# Codex configuration\nmodel = \"gpt-5-codex\"\n\n# Documentation lookup\n[mcp_servers.context7]\ncommand = \"npx\"\nargs = [\"-y\", \"@upstash/context7-mcp\"]\n",
    );
    env.write(
        crate::env::GOOSE,
        b"# Goose settings\nGOOSE_PROVIDER: openai\nextensions:\n  developer:\n    bundled: true\n    display_name: Developer\n    enabled: true\n    name: developer\n    timeout: 300\n    type: builtin\nGOOSE_MODE: smart_approve\n",
    );
    env.write(
        MANIFEST,
        b"clients = [\"vscode\", \"codex\", \"goose\"]\n\n[servers.zeta]\ncommand = \"npx\"\nargs = [\"-y\", \"zeta-mcp\"]\n\n[servers.alpha]\nurl = \"https://alpha.example.com/mcp\"\n\n[servers.mid]\ncommand = \"uvx\"\nargs = [\"mid-mcp\"]\n",
    );
    env.run(&["apply"]).ok();
    // An update, a switch off, an addition, an addition switched off, a removal.
    env.write(
        MANIFEST,
        b"clients = [\"vscode\", \"codex\", \"goose\"]\n\n[servers.zeta]\ncommand = \"npx\"\nargs = [\"-y\", \"zeta-mcp@2\"]\n\n[servers.alpha]\nurl = \"https://alpha.example.com/mcp\"\nenabled = false\n\n[servers.new]\ncommand = \"uvx\"\nargs = [\"new-mcp\"]\n\n[servers.quiet]\ncommand = \"uvx\"\nargs = [\"quiet-mcp\"]\nenabled = false\n",
    );
    let plan = env.run(&["plan"]).ok().stdout;
    let files = [crate::env::VSCODE, ".codex/config.toml", crate::env::GOOSE];
    for file in files {
        let header = format!("--- a/~/{file}\n+++ b/~/{file}\n@@");
        assert_eq!(plan.matches(&header).count(), 1, "{file}:\n{plan}");
    }
    assert_eq!(plan.matches("\n--- ").count(), files.len(), "{plan}");
    let copy = env.home().with_file_name("patched");
    copy_dir(&env.home(), &copy);
    let (ok, said) = patch(&copy, "-p2", &plan);
    assert!(ok, "{said}\n{plan}");
    env.run(&["apply"]).ok();
    for file in files {
        let patched = std::fs::read_to_string(copy.join(file)).unwrap();
        assert_eq!(patched, env.read_str(file), "{file}:\n{plan}");
    }
}

/// Issue 40 (the other half): a diff that shows a file with a literal secret redacts it,
/// and a patch of `<redacted>` would write `<redacted>` into the file. Such a diff says
/// it is not a patch and has no `---/+++` headers, so `patch` refuses it; the other files
/// of the same plan stay patches.
#[test]
fn a_diff_that_redacts_a_secret_says_it_is_not_a_patch() {
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", b"{\"mcpServers\": {}}\n");
    env.write(
        ".codex/config.toml",
        &crate::env::fixture("codex/config.toml"),
    );
    env.write(
        MANIFEST,
        b"clients = [\"cursor\", \"codex\"]\n\n[servers.docs]\nurl = \"https://docs.example.com/mcp\"\n",
    );
    let plan = env.run(&["plan"]).ok().stdout;
    assert!(!plan.contains("ctx7-secret-value"), "{plan}");
    assert!(plan.contains("CONTEXT7_API_KEY = \"<redacted>\""), "{plan}");
    assert!(
        plan.contains("(codex, user)\n  + add       docs\n(secrets redacted: this diff is to read, not a patch; `apply` writes the real values)\n@@ "),
        "{plan}"
    );
    assert!(!plan.contains("--- a/~/.codex/config.toml"), "{plan}");
    assert!(
        plan.contains("--- a/~/.cursor/mcp.json\n+++ b/~/.cursor/mcp.json\n"),
        "{plan}"
    );
    #[cfg(unix)]
    {
        let copy = env.home().with_file_name("patched");
        copy_dir(&env.home(), &copy);
        let (_, said) = patch(&copy, "-p2", &plan);
        let codex = std::fs::read_to_string(copy.join(".codex/config.toml")).unwrap();
        assert!(!codex.contains("<redacted>"), "{said}\n{codex}");
        assert_eq!(
            codex.as_bytes(),
            crate::env::fixture("codex/config.toml"),
            "{said}"
        );
        env.run(&["apply"]).ok();
        assert_eq!(
            std::fs::read(copy.join(".cursor/mcp.json")).unwrap(),
            env.read(".cursor/mcp.json"),
            "{said}"
        );
    }
}

/// Issue 40: a project's plan names its files relative to the project, as `check --fix`
/// does (`--- a/.cursor/mcp.json`), so `patch -p1` (or `git apply`) in the project
/// applies it.
#[test]
fn a_project_plans_diff_names_files_as_check_does_and_applies_in_the_project() {
    let env = TestEnv::new();
    env.write("proj/.cursor/mcp.json", b"{\n  \"mcpServers\": {}\n}\n");
    env.write(
        "proj/mcpctl.toml",
        b"clients = [\"cursor\"]\nscope = \"project\"\n\n[servers.docs]\nurl = \"https://docs.example.com/mcp\"\n",
    );
    let plan = env.run_in("proj", &["plan"]).ok().stdout;
    assert!(
        plan.contains("\n--- a/.cursor/mcp.json\n+++ b/.cursor/mcp.json\n@@ "),
        "{plan}"
    );
    #[cfg(unix)]
    {
        let copy = env.home().with_file_name("patched");
        copy_dir(&env.path("proj"), &copy);
        let (ok, said) = patch(&copy, "-p1", &plan);
        assert!(ok, "{said}\n{plan}");
        env.run_in("proj", &["apply"]).ok();
        assert_eq!(
            std::fs::read(copy.join(".cursor/mcp.json")).unwrap(),
            env.read("proj/.cursor/mcp.json"),
            "{plan}"
        );
    }
}
