//! `mcpctl doctor` (not built yet).

use crate::cli::DoctorArgs;
use crate::commands::Context;
use crate::error::{ExitStatus, UserError};
use crate::output::Printer;

pub fn run(
    _args: DoctorArgs,
    _ctx: &Context,
    _printer: &mut Printer,
) -> anyhow::Result<ExitStatus> {
    Err(UserError::new("`doctor` is not available in this build").into())
}
