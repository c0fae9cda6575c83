//! What a profile's servers cost each client it targets: the tool-definition tokens
//! `doctor` and `tools` last measured (state `tokens.json`), per planned file. A server
//! never measured makes its client's total "unknown", never a silent undercount.

use serde::Serialize;

use crate::manifest::Manifest;
use crate::manifest::plan::FilePlan;
use crate::session::Context;
use crate::state::tokens::Tokens;

/// What one profile's servers cost one client.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct ClientCost {
    pub client: String,
    /// Estimated tokens of the tool definitions; `null` when any server is unmeasured.
    pub tokens: Option<usize>,
    /// The profile's servers in this client never measured by `doctor` or `tools`.
    pub unknown: Vec<String>,
}

/// Per targeted client, what `servers` cost it (clients that get none of them are left
/// out).
pub fn costs(plans: &[FilePlan<'_>], measured: &Tokens, servers: &[String]) -> Vec<ClientCost> {
    let mut out = Vec::new();
    for plan in plans {
        let mut cost = ClientCost {
            client: plan.client.id.clone(),
            tokens: Some(0),
            unknown: Vec::new(),
        };
        let mut any = false;
        // In the profile's order (the manifest's own order is not kept by the parser).
        for name in servers {
            let Some((_, entry)) = plan.rendered.iter().find(|(n, _)| n == name) else {
                continue;
            };
            any = true;
            match measured.for_client(entry, plan.client.loading.capabilities.as_ref()) {
                Some(m) => cost.tokens = cost.tokens.map(|t| t + m.tokens),
                None => cost.unknown.push(name.clone()),
            }
        }
        if !cost.unknown.is_empty() {
            cost.tokens = None;
        }
        if any {
            out.push(cost);
        }
    }
    out
}

/// `≈ 1,234 tokens`, or why it is unknown.
pub fn cost_text(cost: &ClientCost) -> String {
    match cost.tokens {
        Some(n) => format!("≈ {} tokens", crate::output::thousands(n)),
        None => format!(
            "unknown: {} not measured yet (`mcpctl doctor -c {}` measures it)",
            cost.unknown
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", "),
            cost.client
        ),
    }
}

/// The one-line summary `plan --profile NAME` prints.
pub fn plan_line(
    manifest: &Manifest,
    plans: &[FilePlan<'_>],
    ctx: &Context,
    profile: &str,
) -> Option<String> {
    let servers = manifest.profiles.get(profile)?;
    let costs = costs(plans, &ctx.state.tokens(), servers);
    if costs.is_empty() {
        return None;
    }
    Some(format!(
        "profile {profile}: {}",
        costs
            .iter()
            .map(|c| format!("{} {}", c.client, cost_text(c)))
            .collect::<Vec<_>>()
            .join("; ")
    ))
}
