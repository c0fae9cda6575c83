//! `mcpctl plan`: what `apply` would do with the manifest, file by file, without writing
//! (the engine is `manifest::plan`, the report `manifest::report`).

use crate::cli::PlanArgs;
use crate::error::ExitStatus;
use crate::manifest::cost::plan_line;
use crate::manifest::plan::{load, plan_all};
use crate::manifest::report::PlanReport;
use crate::output::Printer;
use crate::session::Context;

pub fn run(args: PlanArgs, ctx: &Context, printer: &mut Printer) -> anyhow::Result<ExitStatus> {
    let PlanArgs {
        manifest: manifest_args,
        check,
        format,
    } = args;
    let manifest = load(ctx, &manifest_args)?;
    printer.note(&crate::manifest::describe(
        &manifest.path,
        manifest_args.manifest.is_some(),
        &ctx.project,
    ));
    if let Err(refusal) = crate::manifest::plan::trust_gate(ctx, &manifest, &manifest_args, "apply")
    {
        printer.warn(&format!("apply would refuse this: {refusal}"));
    }
    let plans = plan_all(ctx, &manifest, manifest_args.profile.as_deref(), false)?;
    let (here, notes) = crate::manifest::plan::plan_here(ctx, &manifest, &manifest_args)?;
    let mut report = PlanReport::new(ctx, &manifest, &plans, format, check);
    report.add_here(&here, notes);
    report.profile_line = manifest_args
        .profile
        .as_deref()
        .and_then(|p| plan_line(&manifest, &plans, ctx, p));
    let clients = crate::manifest::budget::planned_clients(&plans);
    report.budget = crate::manifest::budget::trims(ctx, &manifest, &clients, false)?;
    printer.emit(&report)
}
