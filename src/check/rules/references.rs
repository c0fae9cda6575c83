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
    fixable: false,
    title: "variable reference in a syntax this client does not expand",
    explanation: "Each client has its own syntax: `${VAR}` (Claude Code, Gemini CLI, Kiro), `${env:VAR}` (Cursor, VS Code), `{env:VAR}` (OpenCode, Kilo); Codex expands nothing (list the name in `env_vars`). Another client's syntax reaches the server as literal text, so it gets `${env:TOKEN}` instead of the token. Clients whose syntax is unverified are not checked.",
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

impl Linter<'_> {
    pub(in crate::check) fn references(&mut self, name: &str, node: &Node) {
        let Some(syntax) = self.client.fields.var_syntax else {
            return;
        };
        let mut strings = Vec::new();
        collect_strings(node, &mut strings);
        for (text, offset) in strings {
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
                    (vars::Syntax::Dollar, VarSyntax::Editor | VarSyntax::Vscode)
                        if EDITOR_VARIABLES.contains(&variable) =>
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

/// Editor variables that are not environment references (Cursor, VS Code).
const EDITOR_VARIABLES: &[&str] = &[
    "workspaceFolder",
    "workspaceFolderBasename",
    "userHome",
    "pathSeparator",
    "cwd",
    "/",
];

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
