//! The command provider: a secret kept in the user's own password manager, resolved by
//! running the command they gave (`pass show github`, `op read op://dev/github/token`,
//! `bw get password github`, `vault kv get -field=token secret/github`). mcpctl keeps the
//! command, never its output. The command runs through the host's shell (`sh -c`, or
//! `cmd /C` on Windows) with stdin closed (under the launcher, stdin is the MCP
//! connection and must not be read) and its output captured; one final newline is taken
//! off what it prints.

use std::process::{Command, Stdio};

use super::{SecretError, Value};
use crate::platform::Os;

/// The shell command line that runs `command` on `host`.
pub fn shell(host: Os, command: &str) -> Command {
    let mut shell = if host == Os::Windows {
        let mut c = Command::new("cmd");
        c.arg("/C");
        c
    } else {
        let mut c = Command::new("sh");
        c.arg("-c");
        c
    };
    shell.arg(command);
    shell
}

/// Run the provider of secret `name` and take its output as the value.
pub fn run(host: Os, name: &str, command: &str) -> Result<Value, SecretError> {
    let failed = |reason: String| SecretError::Provider {
        name: name.to_owned(),
        command: command.to_owned(),
        reason,
    };
    let output = shell(host, command)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| failed(format!("could not start: {e}")))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let last = stderr.lines().rev().find(|l| !l.trim().is_empty());
        let status = output.status.code().map_or_else(
            || "was killed by a signal".to_owned(),
            |c| format!("exited with {c}"),
        );
        return Err(failed(match last {
            Some(line) => format!("{status}: {}", line.trim()),
            None => status,
        }));
    }
    let mut text = String::from_utf8(output.stdout)
        .map_err(|_| failed("printed something that is not UTF-8".to_owned()))?;
    if text.ends_with('\n') {
        text.pop();
        if text.ends_with('\r') {
            text.pop();
        }
    }
    if text.is_empty() {
        return Err(failed("printed nothing".to_owned()));
    }
    // Several lines: a password manager's whole record (`pass show` prints the password,
    // then other fields). Taking one of them silently could start a server with the
    // wrong one; the user says which.
    let lines = text.lines().count();
    if lines > 1 {
        return Err(failed(format!(
            "printed {lines} lines, and a secret is one line; make the command print only the secret, e.g. end it with `| head -n 1` when it is the first line (as `pass show` prints it): `mcpctl secret set {name} --command '{command} | head -n 1'`"
        )));
    }
    Ok(Value(text))
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn takes_the_output_without_its_last_newline() {
        let value = run(Os::Linux, "x", "printf 'tok en\\n'").ok();
        assert_eq!(value, Some(Value("tok en".to_owned())));
    }

    #[test]
    fn a_failing_command_says_how_it_failed() {
        let error = run(Os::Linux, "gh", "echo 'not signed in' >&2; exit 3")
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            error.as_deref(),
            Some(
                "the command for secret `gh` (`echo 'not signed in' >&2; exit 3`) exited with 3: not signed in"
            )
        );
        let empty = run(Os::Linux, "gh", "true").err().map(|e| e.to_string());
        assert!(empty.is_some_and(|e| e.ends_with("printed nothing")));
    }

    #[test]
    fn several_lines_are_refused_naming_how_to_pick_one() {
        let error = run(Os::Linux, "gh", "printf 'tok\\nlogin: me\\nurl: x\\n'")
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(error.contains("printed 3 lines"), "{error}");
        assert!(error.contains("| head -n 1"), "{error}");
        assert!(!error.contains("tok\n"), "{error}");
    }
}
