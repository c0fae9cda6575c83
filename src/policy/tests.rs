//! Table tests: each vendor's rules against local and remote servers.

use std::path::Path;

use super::export::document;
use super::*;
use crate::entry::{RemoteKind, ServerEntry, StringMap};

fn stdio(line: &[&str]) -> ServerEntry {
    ServerEntry {
        transport: Transport::Stdio {
            command: line[0].to_owned(),
            args: line[1..].iter().map(|s| (*s).to_owned()).collect(),
            env: StringMap::default(),
            cwd: None,
        },
        extras: Default::default(),
    }
}

fn remote(url: &str) -> ServerEntry {
    ServerEntry {
        transport: Transport::Remote {
            url: url.to_owned(),
            kind: RemoteKind::Http,
            headers: StringMap::default(),
        },
        extras: Default::default(),
    }
}

/// The verdict of `text` (a `kind` file) on each case: `None` = loads.
fn judge(kind: PolicyKind, text: &str, cases: &[(&str, ServerEntry, Option<Verdict>)]) {
    let policy = Policy::parse(kind, Path::new("/etc/p"), text)
        .unwrap()
        .unwrap();
    for (name, entry, want) in cases {
        let got = policy.judge(&Subject::of(name, entry));
        assert_eq!(got.as_ref().map(|b| b.verdict), *want, "{name}: {got:?}");
    }
}

#[test]
fn claude_deny_wins_and_commands_match_exactly() {
    let text = r#"{
      "allowedMcpServers": [
        { "serverName": "github" },
        { "serverCommand": ["npx", "-y", "@playwright/mcp@1.2.0"] },
        { "serverUrl": "https://*.example.com/*" }
      ],
      "deniedMcpServers": [
        { "serverName": "evil" },
        { "serverCommand": ["npx", "-y", "@modelcontextprotocol/server-filesystem", "/"] },
        { "serverUrl": "https://bad.example.com/mcp" }
      ]
    }"#;
    use Verdict::*;
    judge(
        PolicyKind::ClaudeManaged,
        text,
        &[
            ("pw", stdio(&["npx", "-y", "@playwright/mcp@1.2.0"]), None),
            // The list has serverCommand entries: a local server's name no longer counts.
            (
                "github",
                stdio(&["npx", "-y", "@modelcontextprotocol/server-github"]),
                Some(NotAllowed),
            ),
            (
                "pw",
                stdio(&["npx", "@playwright/mcp@1.2.0"]),
                Some(NotAllowed),
            ),
            (
                "pw",
                stdio(&["npx", "-y", "@playwright/mcp@1.2.0", "--headless"]),
                Some(NotAllowed),
            ),
            (
                "evil",
                stdio(&["npx", "-y", "@playwright/mcp@1.2.0"]),
                Some(Denied),
            ),
            (
                "fs",
                stdio(&["npx", "-y", "@modelcontextprotocol/server-filesystem", "/"]),
                Some(Denied),
            ),
            ("docs", remote("https://docs.example.com/mcp"), None),
            ("docs", remote("https://example.org/mcp"), Some(NotAllowed)),
            // A deny URL without a query also blocks it with one, and with a slash added.
            (
                "bad",
                remote("https://bad.example.com/mcp?x=1"),
                Some(Denied),
            ),
            ("bad", remote("https://bad.example.com/mcp/"), Some(Denied)),
        ],
    );
}

#[test]
fn claude_falls_back_to_names_and_an_empty_allow_list_allows_nothing() {
    use Verdict::*;
    judge(
        PolicyKind::ClaudeManaged,
        r#"{"allowedMcpServers": [{"serverName": "github"}]}"#,
        &[
            ("github", stdio(&["npx", "-y", "x"]), None),
            ("github", remote("https://api.github.com/mcp"), None),
            ("other", stdio(&["npx", "-y", "x"]), Some(NotAllowed)),
        ],
    );
    judge(
        PolicyKind::ClaudeManaged,
        r#"{"allowedMcpServers": []}"#,
        &[("github", stdio(&["npx"]), Some(NotAllowed))],
    );
    judge(
        PolicyKind::ClaudeManaged,
        r#"{"deniedMcpServers": [{"serverName": "x"}]}"#,
        &[
            ("y", stdio(&["npx"]), None),
            ("x", stdio(&["npx"]), Some(Denied)),
        ],
    );
}

#[test]
fn copilot_allows_a_match_of_any_kind() {
    use Verdict::*;
    let text = r#"{
      "allowedMcpServers": [
        { "serverUrl": "https://api.githubcopilot.com/*" },
        { "serverCommand": ["npx", "@playwright/mcp@latest"] },
        { "serverName": "notes" }
      ],
      "deniedMcpServers": [
        { "serverCommand": ["npx", "-y", "@modelcontextprotocol/server-filesystem", "/"] }
      ]
    }"#;
    judge(
        PolicyKind::CopilotManaged,
        text,
        &[
            ("gh", remote("https://api.githubcopilot.com/mcp/"), None),
            ("pw", stdio(&["npx", "@playwright/mcp@latest"]), None),
            // Unlike Claude Code, a name entry admits a local server beside command entries.
            ("notes", stdio(&["uvx", "notes-mcp"]), None),
            ("other", stdio(&["uvx", "other"]), Some(NotAllowed)),
            (
                "fs",
                stdio(&["npx", "-y", "@modelcontextprotocol/server-filesystem", "/"]),
                Some(Denied),
            ),
        ],
    );
}

#[test]
fn codex_lists_names_with_their_identity() {
    use Verdict::*;
    let text = r#"
[mcp_servers.docs.identity]
command = "codex-mcp"

[mcp_servers.remote.identity]
url = "https://example.com/mcp"

[mcp_servers.pinned.identity]
command = { executable = "npx", args = [{ match = "exact", value = "-y" }, { match = "prefix", value = "@acme/" }] }
"#;
    judge(
        PolicyKind::CodexRequirements,
        text,
        &[
            ("docs", stdio(&["codex-mcp", "--any", "args"]), None),
            ("docs", stdio(&["other-mcp"]), Some(NotAllowed)),
            ("remote", remote("https://example.com/mcp"), None),
            (
                "remote",
                remote("https://example.com/mcp/"),
                Some(NotAllowed),
            ),
            ("remote", stdio(&["codex-mcp"]), Some(NotAllowed)),
            ("unlisted", stdio(&["codex-mcp"]), Some(NotAllowed)),
            ("pinned", stdio(&["npx", "-y", "@acme/tool"]), None),
            (
                "pinned",
                stdio(&["npx", "-y", "@evil/tool"]),
                Some(NotAllowed),
            ),
        ],
    );
}

#[test]
fn files_without_mcp_rules_judge_nothing_and_bad_entries_are_errors() {
    let p = Path::new("/etc/p");
    assert_eq!(
        Policy::parse(PolicyKind::ClaudeManaged, p, r#"{"model": "x"}"#),
        Ok(None)
    );
    assert_eq!(
        Policy::parse(
            PolicyKind::CodexRequirements,
            p,
            "allowed_sandbox_modes = [\"read-only\"]\n"
        ),
        Ok(None)
    );
    let err = Policy::parse(
        PolicyKind::ClaudeManaged,
        p,
        r#"{"deniedMcpServers": [{"serverName": "a", "serverUrl": "b"}]}"#,
    )
    .unwrap_err();
    assert!(err.contains("`deniedMcpServers` entry 1"), "{err}");
    assert!(Policy::parse(PolicyKind::CodexRequirements, p, "[mcp_servers.x]\n").is_err());
}

#[test]
fn an_exported_policy_allows_exactly_the_manifest() {
    let servers = vec![
        (
            "pw".to_owned(),
            stdio(&["npx", "-y", "@playwright/mcp@1.2.0"]),
        ),
        ("docs".to_owned(), remote("https://docs.example.com/mcp")),
    ];
    for kind in [
        PolicyKind::ClaudeManaged,
        PolicyKind::CopilotManaged,
        PolicyKind::CodexRequirements,
    ] {
        let (text, notes) = document(kind, &servers);
        assert!(notes.is_empty());
        assert_eq!(document(kind, &servers).0, text, "deterministic");
        let policy = Policy::parse(kind, Path::new("/p"), &text)
            .unwrap()
            .unwrap();
        for (name, entry) in &servers {
            assert_eq!(
                policy.judge(&Subject::of(name, entry)),
                None,
                "{kind:?} {name}\n{text}"
            );
        }
        let other = stdio(&["npx", "-y", "@evil/mcp"]);
        assert!(
            policy.judge(&Subject::of("evil", &other)).is_some(),
            "{kind:?}\n{text}"
        );
    }
    let (claude, _) = document(PolicyKind::ClaudeManaged, &servers);
    assert_eq!(
        claude,
        r#"{
  "allowManagedMcpServersOnly": true,
  "allowedMcpServers": [
    {
      "serverUrl": "https://docs.example.com/mcp"
    },
    {
      "serverCommand": [
        "npx",
        "-y",
        "@playwright/mcp@1.2.0"
      ]
    }
  ]
}
"#
    );
    let (codex, _) = document(PolicyKind::CodexRequirements, &servers);
    assert_eq!(
        codex,
        r#"[mcp_servers.docs.identity]
url = "https://docs.example.com/mcp"

[mcp_servers.pw.identity.command]
executable = "npx"
args = [{ match = "exact", value = "-y" }, { match = "exact", value = "@playwright/mcp@1.2.0" }]
"#
    );
}
