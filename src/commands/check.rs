//! `mcpctl check` (not built yet).

use crate::cli::CheckArgs;
use crate::commands::Context;
use crate::error::{ExitStatus, UserError};
use crate::output::Printer;

pub fn run(_args: CheckArgs, _ctx: &Context, _printer: &mut Printer) -> anyhow::Result<ExitStatus> {
    Err(UserError::new("`check` is not available in this build").into())
}
