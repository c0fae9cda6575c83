//! MCP3xx, portability: the entry works on the OS and machine it is used on (`cmd /c`
//! wrapping of npm shims on Windows only, no one person's home directory in a shared file).

use crate::check::Severity;
use crate::check::lint::{Linter, collect_strings};
use crate::clients::Scope;
use crate::entry;
use crate::formats::tree::Node;
use crate::platform::Os;

use super::Rule;

pub const UNWRAPPED_WINDOWS_SHIM: Rule = Rule {
    code: "MCP301",
    name: "unwrapped-windows-shim",
    severity: Severity::Error,
    fixable: true,
    title: "`npx` (or another batch shim) without `cmd /c` fails on Windows",
    explanation: "On Windows `npx`, `npm`, `pnpm`, `yarn`, `tsx` and other npm bins are `.cmd` batch shims that clients cannot start directly (`spawn npx ENOENT`, `Connection closed`). Reported with `--platform windows` and for clients that exist only on Windows (Visual Studio); not for files checked for macOS or Linux, where the unwrapped command is right (a wrapped one fails there: see MCP302). `--fix` wraps the command in those same cases.",
    example: "{ \"mcpServers\": { \"memory\": { \"command\": \"cmd\", \"args\": [\"/c\", \"npx\", \"-y\", \"@modelcontextprotocol/server-memory@2025.8.4\"] } } }",
};

pub const CMD_WRAPPER_OFF_WINDOWS: Rule = Rule {
    code: "MCP302",
    name: "cmd-wrapper-off-windows",
    severity: Severity::Error,
    fixable: true,
    title: "`cmd /c` entry in a file used on macOS or Linux",
    explanation: "`cmd` exists only on Windows; on macOS and Linux the server fails to start. Error in user files checked for macOS/Linux (`--fix` unwraps them); a warning in project files, which teammates on either OS may share (no fix: pick the wrapping your team needs, or keep per-OS user entries).",
    example: "{ \"mcpServers\": { \"memory\": { \"command\": \"npx\", \"args\": [\"-y\", \"@modelcontextprotocol/server-memory@2025.8.4\"] } } }",
};

pub const ABSOLUTE_HOME_PATH: Rule = Rule {
    code: "MCP303",
    name: "absolute-home-path",
    severity: Severity::Warning,
    fixable: false,
    title: "absolute home-directory path in a project file",
    explanation: "`/Users/alice/...`, `/home/bob/...` or `C:\\Users\\carol\\...` in a committed file works only on its author's machine. Use a path relative to the project, a variable the client expands (`${workspaceFolder}`, `${userHome}` in VS Code and Cursor), or a command on PATH.",
    example: "{ \"servers\": { \"fs\": { \"type\": \"stdio\", \"command\": \"mcp-fs\", \"args\": [\"${workspaceFolder}/docs\"] } } }",
};

pub const CMD_METACHARACTER: Rule = Rule {
    code: "MCP304",
    name: "cmd-metacharacter",
    severity: Severity::Warning,
    fixable: false,
    title: "argument with cmd.exe metacharacters after `cmd /c`",
    explanation: "`cmd /c` re-parses its arguments: `&`, `|`, `<`, `>`, `^`, `%`, `!` and `\"` are interpreted by cmd.exe, so a URL with `&` runs a second command. Pass the value through an environment variable, or start the server with `node path/to/bin.js` instead of a shim.",
    example: "{ \"command\": \"cmd\", \"args\": [\"/c\", \"npx\", \"-y\", \"mcp-remote@0.1.29\", \"https://mcp.example.com/mcp\"], \"env\": { \"QUERY\": \"a=1&b=2\" } }",
};

pub const CMD_QUOTED_COMMAND: Rule = Rule {
    code: "MCP305",
    name: "cmd-quoted-command",
    severity: Severity::Error,
    fixable: false,
    title: "`cmd /c` with a command cmd.exe cannot parse once the client quotes it",
    explanation: "A client starts `cmd` with a list of arguments and quotes each one that has a space, so `\"args\": [\"/c\", \"C:\\\\Program Files\\\\X\\\\srv.cmd\", \"a b\"]` reaches cmd.exe as `/c \"C:\\Program Files\\X\\srv.cmd\" \"a b\"`. With more than two quotes (or with `/s`), cmd strips the first and the last and finds no such command (exit 9009). Put `call` before the command: `[\"/c\", \"call\", \"C:\\\\Program Files\\\\X\\\\srv.cmd\", \"a b\"]` (what `mcpctl add` writes). `/s /c \"\"…\"\"` works only typed at a prompt: as an argument the client quotes it again.",
    example: "{ \"mcpServers\": { \"srv\": { \"command\": \"cmd\", \"args\": [\"/c\", \"call\", \"C:\\\\Program Files\\\\X\\\\srv.cmd\", \"a b\"] } } }",
};

impl Linter<'_> {
    pub(in crate::check) fn windows(
        &mut self,
        name: &str,
        program: &str,
        at: usize,
        args: &[(String, usize)],
    ) {
        if !self.client.fields.wrap_windows {
            return;
        }
        let plain: Vec<String> = args.iter().map(|(a, _)| a.clone()).collect();
        // The file is used on Windows: `--platform windows`, or a client that exists only
        // there (Visual Studio). Elsewhere an unwrapped `npx` is right, and no finding.
        let windows = self.os == Os::Windows || self.client.windows_only();
        if entry::needs_wrap(program, &plain) {
            let wrapped = format!("`cmd /c {program} ...`");
            if windows {
                self.report_as(
                    at,
                    &UNWRAPPED_WINDOWS_SHIM,
                    Severity::Error,
                    format!("`{program}` is a batch shim on Windows and {} cannot start it (server `{name}`); write {wrapped}", self.name()),
                );
            }
        } else if entry::is_wrapped(program, &plain) {
            if !windows {
                let (severity, message) = if self.scope == Scope::Project {
                    (
                        Severity::Warning,
                        format!(
                            "`cmd /c` fails for teammates on macOS and Linux (server `{name}`); without it the command fails on Windows"
                        ),
                    )
                } else {
                    (
                        Severity::Error,
                        format!(
                            "`cmd` does not exist on {} (server `{name}`); drop the `cmd /c` wrapper",
                            self.os.as_str()
                        ),
                    )
                };
                self.report_as(at, &CMD_WRAPPER_OFF_WINDOWS, severity, message);
            }
            if entry::cmd_quoting_breaks(program, &plain) {
                let (inner, _, _) = entry::logical(program, &plain);
                self.report(
                    at,
                    &CMD_QUOTED_COMMAND,
                    format!("cmd.exe cannot find `{inner}` once {} quotes the arguments (server `{name}`: exit 9009); write `\"args\": [\"/c\", \"call\", …]`", self.name()),
                );
            }
            let slashes = plain.iter().take_while(|a| a.starts_with('/')).count();
            for (arg, offset) in args.iter().skip(slashes + 1) {
                if !entry::cmd_metachar_args(std::slice::from_ref(arg)).is_empty() {
                    self.report(
                        *offset,
                        &CMD_METACHARACTER,
                        format!("an argument of server `{name}` has characters `cmd /c` re-interprets (`&|<>^%!\"`); pass it through `env` instead"),
                    );
                }
            }
        }
    }

    pub(in crate::check) fn home_paths(&mut self, name: &str, node: &Node) {
        let mut strings = Vec::new();
        collect_strings(node, &mut strings);
        for (text, offset) in strings {
            if let Some(found) = home_path(&text) {
                self.report(
                    offset,
                    &ABSOLUTE_HOME_PATH,
                    format!("server `{name}` uses `{found}`, a home directory that exists only on its author's machine; use a project-relative path"),
                );
            }
        }
    }
}

/// `/Users/alice/...`, `/home/bob/...`, `C:\Users\carol\...` at the start of a value or
/// after `=`.
fn home_path(text: &str) -> Option<String> {
    let starts = std::iter::once(0).chain(text.match_indices('=').map(|(i, _)| i + 1));
    for start in starts {
        let rest = &text[start..];
        let unix = ["/Users/", "/home/"]
            .iter()
            .find_map(|p| rest.strip_prefix(p).map(|r| (*p, r)));
        let windows = rest
            .get(..9)
            .filter(|head| {
                let b = head.as_bytes();
                b[0].is_ascii_alphabetic()
                    && b[1] == b':'
                    && (b[2] == b'\\' || b[2] == b'/')
                    && head[3..8].eq_ignore_ascii_case("users")
                    && (b[8] == b'\\' || b[8] == b'/')
            })
            .map(|head| (head, &rest[9..]));
        if let Some((prefix, after)) = unix.or(windows) {
            let user: String = after
                .chars()
                .take_while(|c| !matches!(c, '/' | '\\'))
                .collect();
            if !user.is_empty()
                && user != "Shared"
                && !user.starts_with('$')
                && !user.starts_with('{')
            {
                return Some(format!("{prefix}{user}"));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn home_paths() {
        assert_eq!(
            home_path("/Users/alice/src/x").as_deref(),
            Some("/Users/alice")
        );
        assert_eq!(
            home_path("--root=/home/bob/x").as_deref(),
            Some("/home/bob")
        );
        assert_eq!(
            home_path("C:\\Users\\carol\\x").as_deref(),
            Some("C:\\Users\\carol")
        );
        assert_eq!(home_path("https://x/home/y"), None);
        assert_eq!(home_path("./data"), None);
    }
}
