//! What doctor adds up over the rows: the summary, each client's token total, and the
//! verdict per client of an entry several clients share.

use std::collections::HashMap;

use serde::Serialize;

use crate::doctor::probe::{DoctorResult, Status};
use crate::handshake::{self, Launch, ProbeOptions};
use crate::output::Printer;
use crate::session::Context;
use crate::session::inventory::Found;

#[derive(Debug, Default, Serialize)]
pub(crate) struct Summary {
    pub(crate) ok: usize,
    pub(crate) warn: usize,
    pub(crate) fail: usize,
    pub(crate) skipped: usize,
}

impl Summary {
    pub(crate) fn count(&mut self, status: Status) {
        match status {
            Status::Ok => self.ok += 1,
            Status::Warn => self.warn += 1,
            Status::Fail => self.fail += 1,
            Status::Skipped => self.skipped += 1,
        }
    }
}

/// What one client's tool definitions cost, over the servers that answered.
#[derive(Debug, Serialize)]
pub(crate) struct ClientTokens {
    pub(crate) client: String,
    pub(crate) tokens: usize,
    /// Servers counted (an entry identical to one already counted, or shadowed by the
    /// same name in another scope, is counted once).
    pub(crate) servers: usize,
}

/// One entry's verdict in each client that has it (`doctor` starts a server once per
/// distinct environment however many clients list it, and judges it per client).
#[derive(Debug, Serialize)]
pub(crate) struct Shared {
    pub(crate) name: String,
    pub(crate) clients: Vec<ClientVerdict>,
}

#[derive(Debug, Serialize)]
pub(crate) struct ClientVerdict {
    pub(crate) client: String,
    pub(crate) status: Status,
    /// Why not ok, in short (the result's `error` has all of it).
    pub(crate) reason: Option<String>,
}

/// Keep what was measured for `profiles` (a cache: failing to save it is only a warning).
pub(super) fn remember_tokens(
    ctx: &Context,
    printer: &Printer,
    found: &[Found<'_>],
    results: &[DoctorResult],
    probed: &[(usize, Launch, ProbeOptions)],
) {
    let measured: Vec<_> = probed
        .iter()
        .filter_map(|(index, _, options)| {
            let result = &results[*index];
            let entry = found[*index].entry().as_ref().ok()?;
            result.tools?;
            Some(crate::state::tokens::Measurement {
                entry,
                declared: options.capabilities.as_ref(),
                tokens: result.tokens?,
                per_tool: result.tool_tokens.clone(),
            })
        })
        .collect();
    if let Err(e) = ctx.state.remember_tokens(&measured) {
        printer.warn(&format!("could not remember the token estimates: {e}"));
    }
}

/// Per client, the sum of the token estimates of the servers that answered; an entry
/// started the same way as one counted, or with the same name (another scope), adds
/// nothing.
pub(super) fn client_tokens(
    results: &[DoctorResult],
    probed: &[(usize, Launch, ProbeOptions)],
) -> Vec<ClientTokens> {
    let mut totals: Vec<ClientTokens> = Vec::new();
    let mut counted: Vec<(&str, &str, &Launch)> = Vec::new();
    for (index, launch, _) in probed {
        let result = &results[*index];
        // A server the client cannot use (it fails there) costs that client nothing.
        let (Some(tokens), false) = (result.tokens, result.status == Status::Fail) else {
            continue;
        };
        let client = result.client.as_str();
        let duplicate = counted
            .iter()
            .any(|(c, n, l)| *c == client && (*n == result.name || *l == launch));
        if duplicate {
            continue;
        }
        counted.push((client, &result.name, launch));
        match totals.iter_mut().find(|t| t.client == client) {
            Some(total) => {
                total.tokens += tokens;
                total.servers += 1;
            }
            None => totals.push(ClientTokens {
                client: client.to_owned(),
                tokens,
                servers: 1,
            }),
        }
    }
    totals
}

/// How many distinct handshakes the probes make (identical plan, limit, environment,
/// capabilities), and for each entry (name and target) more than one client has, the
/// verdict per client.
pub(super) fn shared_verdicts(
    results: &[DoctorResult],
    probed: &[(usize, Launch, ProbeOptions)],
) -> (usize, Vec<Shared>) {
    let mut firsts: Vec<usize> = Vec::new();
    for (i, (_, launch, options)) in probed.iter().enumerate() {
        let seen = firsts.iter().any(|&f| {
            let (_, l, o) = &probed[f];
            handshake::same_probe((l, o), (launch, options))
        });
        if !seen {
            firsts.push(i);
        }
    }
    // The same entry in several clients, whichever handshakes served it.
    let mut entries: Vec<Vec<&DoctorResult>> = Vec::new();
    let mut slot: HashMap<(&str, &str), usize> = HashMap::new();
    for (index, _, _) in probed {
        let r = &results[*index];
        match slot.get(&(r.name.as_str(), r.target.as_str())) {
            Some(&at) => entries[at].push(r),
            None => {
                slot.insert((&r.name, &r.target), entries.len());
                entries.push(vec![r]);
            }
        }
    }
    let shared = entries
        .iter()
        .filter_map(|rows| {
            let first = rows.first()?;
            if rows.iter().all(|r| r.client == first.client) {
                return None;
            }
            Some(Shared {
                name: first.name.clone(),
                clients: rows
                    .iter()
                    .map(|r| ClientVerdict {
                        client: r.client.clone(),
                        status: r.status,
                        reason: r
                            .error
                            .as_deref()
                            .map(|e| e.split(':').next().unwrap_or(e).trim().to_owned()),
                    })
                    .collect(),
            })
        })
        .collect();
    (firsts.len(), shared)
}
