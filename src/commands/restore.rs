//! `mcpctl restore -c ID`: put one of a client file's backups back. The current bytes
//! become a backup first, and the restore is journaled, so `undo` takes it back.

use std::path::PathBuf;

use serde::Serialize;

use crate::cli::RestoreArgs;
use crate::error::{ExitStatus, UserError};
use crate::output::{Block, Paint, Printer, Report};
use crate::session::{Context, edit, targets};

pub fn run(args: RestoreArgs, ctx: &Context, printer: &mut Printer) -> anyhow::Result<ExitStatus> {
    let RestoreArgs {
        client,
        scope,
        backup,
        dry_run,
    } = args;
    let client = targets::by_ids(ctx, std::slice::from_ref(&client))?
        .into_iter()
        .next()
        .ok_or_else(|| UserError::new("say which client to restore").hint("`-c ID`"))?;
    let location = targets::location(ctx, client, scope)?;
    let backups = ctx
        .backups
        .as_deref()
        .map(|dir| crate::fs::backups_of(dir, &location.path))
        .unwrap_or_default();
    let index = usize::try_from(backup).unwrap_or(usize::MAX) - 1;
    let Some(chosen) = backups.get(index) else {
        return Err(UserError::new(format!(
            "`{}` has {} backup{}; there is no number {backup}",
            crate::output::file(&location.path),
            backups.len(),
            if backups.len() == 1 { "" } else { "s" }
        ))
        .hint(format!("see `mcpctl backups -c {}`", client.id))
        .into());
    };
    let bytes = chosen.verified_bytes().map_err(|e| {
        UserError::new(e.to_string()).hint(format!(
            "`mcpctl backups -c {}` lists the other versions kept; `--backup N` picks one",
            client.id
        ))
    })?;
    let mut report = RestoreReport {
        client: client.id.clone(),
        path: location.path.clone(),
        backup: chosen.path.clone(),
        action: Action::WouldRestore,
        number: backup,
        time: crate::state::rfc3339(chosen.time),
        diff: None,
    };
    if dry_run {
        let current =
            crate::fs::read_bytes(&location.path).map_err(|e| UserError::new(e.to_string()))?;
        let diff = edit::unified_diff(
            &location.path.display().to_string(),
            &String::from_utf8_lossy(current.as_deref().unwrap_or_default()),
            &String::from_utf8_lossy(&bytes),
            current.is_some(),
        );
        // Both versions' env and header values, hidden as `list` hides them.
        let mut secrets = Vec::new();
        for version in [current.as_deref().unwrap_or_default(), &bytes[..]] {
            let text = String::from_utf8_lossy(version);
            secrets.extend(env_and_header_values(client, &location, &text));
        }
        report.diff = Some(crate::secrets::redact_values(&diff, &secrets));
        return printer.emit(&report);
    }
    ctx.state.lock()?;
    // Only over the version there now: a writer that comes in meanwhile is not replaced.
    let now = crate::fs::read_source(&location.path).map_err(|e| UserError::new(e.to_string()))?;
    let expect = edit::Expect::Digest(now.digest.as_deref());
    report.action = if edit::put_bytes(ctx, &location.path, &bytes, expect)? {
        Action::Restored
    } else {
        Action::Unchanged
    };
    printer.emit(&report)
}

/// The env and header values `list` would redact in `text` (one version of the file).
fn env_and_header_values(
    client: &crate::clients::Client,
    location: &crate::clients::Location,
    text: &str,
) -> Vec<String> {
    use crate::entry::{Dialect, Transport};
    let Ok(doc) = client.format.parse(text.to_owned()) else {
        return Vec::new();
    };
    let dialect = Dialect::of(client);
    doc.servers(location.at())
        .unwrap_or_default()
        .iter()
        .filter_map(|(_, raw)| dialect.read_raw(raw).ok())
        .flat_map(|entry| match entry.transport {
            Transport::Stdio { env, .. } => env.into_values().collect::<Vec<_>>(),
            Transport::Remote { headers, .. } => headers.into_values().collect(),
        })
        .filter(|value| crate::secrets::redact(value) != *value)
        .collect()
}

/// What `restore` did (`--json`: `{"client","path","backup","action"}`).
#[derive(Serialize)]
struct RestoreReport {
    client: String,
    /// The client file (absolute).
    path: PathBuf,
    /// The backup put back (absolute).
    backup: PathBuf,
    action: Action,
    /// `--backup N`.
    #[serde(skip)]
    number: u32,
    /// When the backup was taken (RFC 3339).
    #[serde(skip)]
    time: String,
    /// `--dry-run`: what the file would become.
    #[serde(skip)]
    diff: Option<String>,
}

/// What became of the file.
#[derive(Debug, Clone, Copy, Serialize)]
enum Action {
    #[serde(rename = "restored")]
    Restored,
    #[serde(rename = "unchanged")]
    Unchanged,
    /// `--dry-run`.
    #[serde(rename = "would restore")]
    WouldRestore,
}

impl Report for RestoreReport {
    fn json(&self) -> serde_json::Result<serde_json::Value> {
        serde_json::to_value(self)
    }

    fn human(&self, paint: Paint) -> Vec<Block> {
        let (shown, number) = (paint.path(&self.path), self.number);
        match self.action {
            Action::Restored => vec![
                Block::Line(format!(
                    "restored {shown} from backup {number} ({})",
                    self.time
                )),
                Block::Note(
                    "the replaced version is a backup now; `mcpctl undo` takes this back"
                        .to_owned(),
                ),
            ],
            Action::Unchanged => vec![Block::Line(format!(
                "unchanged {shown}: it already holds backup {number}"
            ))],
            Action::WouldRestore => vec![
                Block::Raw(paint.diff(self.diff.as_deref().unwrap_or_default())),
                // Also beside `--json`, as `apply --dry-run` says it.
                Block::Aside("dry run: nothing was written".to_owned()),
            ],
        }
    }

    fn status(&self) -> ExitStatus {
        ExitStatus::Success
    }
}
