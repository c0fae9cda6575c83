//! Remote handshake (Streamable HTTP and legacy HTTP+SSE).

use std::time::Instant;

use super::{Phase, ProbeError, ProbeOptions, Report};
use crate::entry::{RemoteKind, StringMap};

pub(crate) fn probe(
    _url: &str,
    _kind: RemoteKind,
    _headers: &StringMap,
    _options: &ProbeOptions,
    _deadline: Instant,
    _report: &mut Report,
) -> Result<(), ProbeError> {
    Err(ProbeError::Transport {
        reason: "remote servers are not probed yet".to_owned(),
        phase: Phase::Initialize,
    })
}
