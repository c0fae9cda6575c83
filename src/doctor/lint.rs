//! The rows doctor knows without starting anything beyond the static checks: `check`'s
//! rules over the small config files, and the entries `mcpctl disable` parked.

use std::path::Path;

use crate::check::{self, Finding, Severity, Target};
use crate::clients::{Client, Scope};
use crate::doctor::probe::{DoctorResult, Status};
use crate::fs;
use crate::session::Context;
use crate::session::inventory::Found;

/// Files larger than this are not linted by doctor (run `mcpctl check --user` for them).
const LINT_MAX_BYTES: u64 = 4 << 20;

/// Entries `mcpctl disable` parked (cut out of their file): skipped, with the way back.
pub(super) fn parked_results(
    ctx: &Context,
    clients: &[&Client],
    name: Option<&str>,
) -> Vec<DoctorResult> {
    let Ok(store) = crate::toggle::store::load(ctx) else {
        return Vec::new();
    };
    store
        .parked
        .iter()
        .filter(|p| clients.iter().any(|c| c.id == p.client))
        .filter(|p| name.is_none_or(|n| n == p.entry.name))
        .map(|p| {
            let message = format!(
                "parked by `mcpctl disable` (not in the file, so not started); `mcpctl enable {} -c {}` puts it back",
                p.entry.name, p.client
            );
            let mut result = DoctorResult::empty(
                &p.client,
                p.scope,
                p.entry.name.clone(),
                p.path.clone(),
            );
            result.record("enabled", Status::Skipped, message);
            result
        })
        .collect()
}

/// `check`'s rules over each user/project file (small ones: the lint tree holds the whole
/// file); each finding with the index in `found` of an entry of its file (for its client
/// and path, not copied per finding).
pub(super) fn lint_files(ctx: &Context, found: &[Found<'_>]) -> Vec<(usize, Finding)> {
    let mut seen: Vec<(&str, &Path)> = Vec::new();
    let mut out = Vec::new();
    for (index, f) in found.iter().enumerate() {
        let key = (f.client.id.as_str(), f.path.as_path());
        if f.origin.is_some()
            || !matches!(f.scope, Scope::User | Scope::Project)
            || seen.contains(&key)
        {
            continue;
        }
        seen.push(key);
        if std::fs::metadata(&f.path).map_or(true, |m| m.len() > LINT_MAX_BYTES) {
            continue;
        }
        let Ok(source) = fs::read_source(&f.path) else {
            continue;
        };
        let target = Target {
            client: f.client,
            scope: f.scope,
            os: ctx.platform.os,
            // Its own `policy` check says what a policy blocks.
            policy: &[],
        };
        // A finding's row names the file by its own label: the findings need no path of
        // their own (one per finding, for every entry of a big file).
        for finding in check::check_text("", &source.text, source.bom, &target) {
            out.push((index, finding));
        }
    }
    out
}

/// Attach the lint findings about this entry: errors fail it (the client ignores or
/// rejects what is written), warnings warn; notes are left to `mcpctl check`.
pub(super) fn add_lint_findings(result: &mut DoctorResult, findings: &[&Finding]) {
    if result.status == Status::Skipped {
        return;
    }
    // The same finding at several places (a trailing comma on six lines) is one line
    // with every place, `line:column` as `check` says it.
    let mut said: Vec<(Status, &str, &str, Vec<String>)> = Vec::new();
    for finding in findings {
        let status = match finding.severity {
            Severity::Error => Status::Fail,
            Severity::Warning => Status::Warn,
            Severity::Info => continue,
        };
        let at = format!("{}:{}", finding.line, finding.column);
        match said.iter_mut().find(|(s, code, message, _)| {
            *s == status && *code == finding.code && *message == finding.message
        }) {
            Some((_, _, _, places)) => {
                if !places.contains(&at) {
                    places.push(at);
                }
            }
            None => said.push((status, finding.code, &finding.message, vec![at])),
        }
    }
    for (status, code, message, places) in said {
        let lines = if places.len() == 1 { "line" } else { "lines" };
        result.record(
            "config",
            status,
            format!("{message} (check {code}, {lines} {})", places.join(", ")),
        );
    }
}
