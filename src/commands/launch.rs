//! `mcpctl run --secret ENV=NAME… -- COMMAND ARG…`: the launcher client entries written by
//! `add --secret` start. Resolves every secret first (any missing one stops it before the
//! server starts, with the `secret set` to run), sets each in the server's environment
//! only, and becomes the server (`exec` on unix; see `process::become_server`). It needs
//! no client table and reads no config file, so it adds little to a server's start-up
//! (BENCHMARKS.md). stdout is the server's from the first byte: mcpctl writes only to
//! stderr, which clients keep in their server logs.

use std::process::{Command, ExitCode};

use crate::cli::RunArgs;
use crate::entry::launcher::EnvSecret;
use crate::error::{ExitStatus, UserError};
use crate::output::Printer;
use crate::platform::Platform;
use crate::secret_store::Store;

pub fn run(args: RunArgs, platform: &Platform, printer: &Printer) -> ExitCode {
    match launch(args, platform) {
        Ok(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        Err(error) => {
            printer.error(&error);
            ExitStatus::Error.into()
        }
    }
}

fn launch(args: RunArgs, platform: &Platform) -> anyhow::Result<i32> {
    let RunArgs { secrets, command } = args;
    let secrets = secrets
        .iter()
        .map(|s| {
            EnvSecret::parse(s).map_err(|e| {
                UserError::new(e)
                    .hint("write --secret ENV=SECRET, e.g. --secret GITHUB_TOKEN=github")
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let Some((program, rest)) = command.split_first() else {
        return Err(UserError::new("`mcpctl run` needs the server's command after `--`").into());
    };
    let store = Store::for_platform(platform);
    let mut server = Command::new(program);
    server.args(rest);
    for secret in &secrets {
        let value = store
            .resolve(&secret.secret)
            .map_err(|e| UserError::new(format!("cannot start `{program}`: {e}")))?;
        server.env(&secret.var, value.0);
    }
    crate::handshake::process::become_server(server).map_err(|e| {
        UserError::new(format!("cannot start `{program}`: {e}"))
            .hint(
                "check that the command is installed and on the PATH the client gives its servers",
            )
            .into()
    })
}
