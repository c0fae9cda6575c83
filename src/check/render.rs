//! Findings as text: `text` (`path:line:column: severity[CODE] message`), `json`,
//! GitHub workflow commands, and SARIF 2.1.0. Each renderer returns a string or a value;
//! `output::Printer` does the printing. Renderers never re-read files or reorder findings.

use serde_json::{Value, json};

use super::{Finding, RULES, Severity};

/// One grep-able line per finding.
pub fn text_line(f: &Finding) -> String {
    format!(
        "{}:{}:{}: {}[{}] {}{}",
        f.path,
        f.line,
        f.column,
        f.severity.as_str(),
        f.code,
        f.message,
        if f.fixable { " (fixable)" } else { "" }
    )
}

/// `3 errors, 1 warning, 0 infos in 2 files`.
pub fn summary(findings: &[Finding], files: usize) -> String {
    let count = |s: Severity| findings.iter().filter(|f| f.severity == s).count();
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    format!(
        "{}, {}, {} in {}",
        plural(count(Severity::Error), "error"),
        plural(count(Severity::Warning), "warning"),
        plural(count(Severity::Info), "info"),
        plural(files, "file")
    )
}

/// A GitHub Actions workflow command (`::error file=...,line=...,col=...,title=...::msg`).
pub fn github_line(f: &Finding) -> String {
    let command = match f.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "notice",
    };
    format!(
        "::{command} file={},line={},col={},title={}::{}",
        escape_property(&f.path),
        f.line,
        f.column,
        escape_property(f.code),
        escape_data(&f.message)
    )
}

/// Message escaping per GitHub's toolkit (`%`, CR, LF).
fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Property escaping: data escaping plus `:` and `,`.
fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

fn sarif_level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// A SARIF 2.1.0 log with one rule per code (all of `RULES`, so `ruleIndex` is stable).
pub fn sarif(findings: &[Finding]) -> Value {
    let rules: Vec<Value> = RULES
        .iter()
        .map(|r| {
            json!({
                "id": r.code,
                "name": r.name,
                "shortDescription": { "text": r.title },
                "fullDescription": { "text": r.explanation },
                "help": {
                    "text": format!("{}\n\nFixed example:\n{}", r.explanation, r.example),
                    "markdown": format!("{}\n\nFixed example:\n\n```json\n{}\n```", r.explanation, r.example),
                },
                "defaultConfiguration": { "level": sarif_level(r.severity) },
                "properties": { "tags": ["mcp", r.name] },
            })
        })
        .collect();
    let results: Vec<Value> = findings
        .iter()
        .map(|f| {
            json!({
                "ruleId": f.code,
                "ruleIndex": RULES.iter().position(|r| r.code == f.code),
                "level": sarif_level(f.severity),
                "message": { "text": f.message },
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": { "uri": f.path.replace('\\', "/") },
                        "region": { "startLine": f.line, "startColumn": f.column },
                    }
                }],
            })
        })
        .collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "mcpctl",
                    "version": env!("CARGO_PKG_VERSION"),
                    "rules": rules,
                }
            },
            "results": results,
        }]
    })
}

/// `--explain CODE`.
pub fn explain(rule: &super::Rule) -> String {
    format!(
        "{} {} ({}{})\n{}\n\n{}\n\nFixed example:\n{}\n",
        rule.code,
        rule.name,
        rule.severity.as_str(),
        if rule.fixable {
            ", fixable with --fix"
        } else {
            ""
        },
        rule.title,
        rule.explanation,
        rule.example
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(message: &str) -> Finding {
        Finding {
            path: "a,b:c.json".into(),
            line: 3,
            column: 7,
            severity: Severity::Warning,
            code: "MCP206",
            message: message.into(),
            server: None,
            fixable: false,
        }
    }

    #[test]
    fn github_escapes_data_and_properties() {
        assert_eq!(
            github_line(&finding("100% sure\nnext")),
            "::warning file=a%2Cb%3Ac.json,line=3,col=7,title=MCP206::100%25 sure%0Anext"
        );
    }

    #[test]
    fn text_and_summary() {
        assert_eq!(
            text_line(&finding("m")),
            "a,b:c.json:3:7: warning[MCP206] m"
        );
        assert_eq!(
            summary(&[finding("m")], 1),
            "0 errors, 1 warning, 0 infos in 1 file"
        );
    }

    #[test]
    fn sarif_has_every_rule_and_indexes_results() {
        let log = sarif(&[finding("m")]);
        let run = &log["runs"][0];
        assert_eq!(
            run["tool"]["driver"]["rules"].as_array().unwrap().len(),
            RULES.len()
        );
        let index = run["results"][0]["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(run["tool"]["driver"]["rules"][index]["id"], "MCP206");
        assert_eq!(run["results"][0]["level"], "warning");
    }
}
