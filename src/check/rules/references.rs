//! MCP5xx, references: variable references in the syntax this client expands, and VS Code
//! `${input:id}` prompts that exist. References are found by `vars::references`, the same
//! parser `add` and `doctor` use.

use crate::check::Severity;
use crate::check::lint::{Linter, collect_strings};
use crate::formats::tree::Node;
use crate::vars;
use crate::vars::VarSyntax;

use super::Rule;

pub const WRONG_VARIABLE_SYNTAX: Rule = Rule {
    code: "MCP501",
    name: "wrong-variable-syntax",
    severity: Severity::Warning,
    fixable: true,
    title: "variable reference in a syntax this client does not expand",
    explanation: "Each client has its own syntax: `${VAR}` (Claude Code, Gemini CLI, Kiro), `${env:VAR}` (Cursor, VS Code), `{env:VAR}` (OpenCode, Kilo); Codex expands nothing (list the name in `env_vars`). Another client's syntax reaches the server as literal text, so it gets `${env:TOKEN}` instead of the token. Clients whose syntax is unverified are not checked. `check --fix` respells the reference as the client expands it (except for Codex and Goose, where the name goes into `env_vars`/`env_keys`, and a `${VAR:-default}` the client cannot say).",
    example: "// Cursor\n{ \"mcpServers\": { \"github\": { \"command\": \"github-mcp-server\", \"env\": { \"GITHUB_PERSONAL_ACCESS_TOKEN\": \"${env:GITHUB_TOKEN}\" } } } }",
};

pub const UNDEFINED_INPUT: Rule = Rule {
    code: "MCP502",
    name: "undefined-input",
    severity: Severity::Error,
    fixable: false,
    title: "`${input:id}` without a matching `inputs` entry",
    explanation: "VS Code resolves `${input:id}` from the top-level `inputs` list of the same file; with no entry of that `id` the server does not start.",
    example: "{\n  \"inputs\": [{ \"type\": \"promptString\", \"id\": \"github-token\", \"description\": \"GitHub token\", \"password\": true }],\n  \"servers\": { \"github\": { \"type\": \"stdio\", \"command\": \"github-mcp-server\", \"env\": { \"GITHUB_PERSONAL_ACCESS_TOKEN\": \"${input:github-token}\" } } }\n}",
};

pub const UNSET_VARIABLE: Rule = Rule {
    code: "MCP503",
    name: "unset-variable",
    severity: Severity::Warning,
    fixable: false,
    title: "a variable an entry of a user file uses is not set here",
    explanation: "The entry uses `${VAR}` and this environment does not set it, so a client started from here gives the server the reference as literal text (or nothing). A warning here, as in `list` and `add`: the file is still right where the variable is set; `doctor`, `tools` and `call` stop on it, since they would start the server without it. Set it (`export VAR=…`; on Windows `setx VAR …`) where mcpctl and the client run, or keep a secret in mcpctl's store (`mcpctl secret set NAME`). Judged against mcpctl's own environment, so `check` applies it to the user's own files only (`--user`): a project file is committed and checked in CI, where its variables are not set, and its verdict does not depend on where `check` runs (`list` and `doctor` say which are unset here).",
    example: "{ \"mcpServers\": { \"github\": { \"command\": \"github-mcp-server\", \"env\": { \"GITHUB_PERSONAL_ACCESS_TOKEN\": \"${env:GITHUB_TOKEN}\" } } } }",
};

/// MCP503 for every entry of `doc` (the file `path`, checked as `target`) that uses a
/// variable not set in mcpctl's environment, worded by `unset`.
pub fn unset_variables(
    platform: &crate::platform::Platform,
    path: &str,
    doc: &dyn crate::formats::ConfigDoc,
    target: &crate::check::Target<'_>,
) -> Vec<crate::check::Finding> {
    let mut findings = Vec::new();
    // One entry at a time: a file of 100,000 entries is not held as values at once.
    let read = crate::check::fix::each_literal_to_adopt(doc, target, &mut |key, name, entry| {
        let unset = crate::unset::find_here(platform, &entry.transport);
        if unset.is_empty() {
            return;
        }
        let at = crate::formats::ServersAt {
            key,
            name_key: target.client.servers_name_key.as_deref(),
        };
        let position = crate::formats::entry_position(doc, at, &name);
        for unset in unset {
            findings.push(crate::check::Finding {
                path: path.to_owned(),
                line: position.map_or(1, |p| p.line),
                column: position.map_or(1, |p| p.column),
                severity: UNSET_VARIABLE.severity,
                code: UNSET_VARIABLE.code,
                message: unset.sentence(&name, None),
                server: Some(name.clone()),
                fixable: false,
            });
        }
    });
    // As before: a file whose entries cannot all be read gets none of these findings.
    if read.is_err() {
        return Vec::new();
    }
    findings
}

impl Linter<'_> {
    pub(in crate::check) fn references(&mut self, name: &str, node: &Node) {
        let Some(syntax) = self.client.fields.var_syntax else {
            return;
        };
        let mut strings = Vec::new();
        // Goose expands `${VAR}` in header values only (from `envs` and `env_keys`).
        let mut expanded = Vec::new();
        match (syntax, node.members()) {
            (VarSyntax::Goose, Some(members)) => {
                for member in members {
                    if member.key == self.client.fields.headers_key {
                        collect_strings(&member.node, &mut expanded);
                    } else {
                        collect_strings(&member.node, &mut strings);
                    }
                }
            }
            _ => collect_strings(node, &mut strings),
        }
        let in_headers = expanded.len();
        for (index, (text, offset)) in expanded.into_iter().chain(strings).enumerate() {
            for reference in vars::references(&text) {
                let variable = reference.name.as_str();
                let problem = match (reference.syntax, syntax) {
                    (vars::Syntax::Input, VarSyntax::Vscode) => {
                        if self.inputs.iter().any(|i| i == variable) {
                            None
                        } else {
                            self.report(
                                offset,
                                &UNDEFINED_INPUT,
                                format!("`${{input:{variable}}}` in server `{name}` has no `inputs` entry with `\"id\": \"{variable}\"`"),
                            );
                            continue;
                        }
                    }
                    (vars::Syntax::DollarEnv, VarSyntax::Editor | VarSyntax::Vscode)
                    | (vars::Syntax::BraceEnv, VarSyntax::Opencode)
                    | (vars::Syntax::Dollar, VarSyntax::Shell) => None,
                    (vars::Syntax::Dollar, VarSyntax::Goose)
                        if index < in_headers && reference.default.is_none() =>
                    {
                        None
                    }
                    (vars::Syntax::Dollar, VarSyntax::Editor | VarSyntax::Vscode)
                        if vars::EDITOR_VARIABLES.contains(&variable) =>
                    {
                        None
                    }
                    _ => Some(variable.to_owned()),
                };
                if let Some(variable) = problem {
                    let want = match syntax {
                        VarSyntax::Shell => format!("write `${{{variable}}}`"),
                        VarSyntax::Editor | VarSyntax::Vscode => {
                            format!("write `${{env:{variable}}}`")
                        }
                        VarSyntax::Opencode => format!("write `{{env:{variable}}}`"),
                        VarSyntax::Codex => {
                            format!("Codex expands no variables: list `{variable}` in `env_vars`")
                        }
                        VarSyntax::Goose => format!(
                            "Goose expands variables in headers only: list `{variable}` in `env_keys`"
                        ),
                    };
                    self.report(
                        offset,
                        &WRONG_VARIABLE_SYNTAX,
                        format!("`{}` in server `{name}` is not expanded by {}: the server gets it literally; {want}", written(&reference), self.name()),
                    );
                    break;
                }
            }
        }
    }
}

/// A reference as a message shows it (without a `:-default`).
fn written(reference: &vars::Reference) -> String {
    let name = &reference.name;
    match reference.syntax {
        vars::Syntax::Dollar => format!("${{{name}}}"),
        vars::Syntax::DollarEnv => format!("${{env:{name}}}"),
        vars::Syntax::Input => format!("${{input:{name}}}"),
        vars::Syntax::BraceEnv => format!("{{env:{name}}}"),
    }
}
