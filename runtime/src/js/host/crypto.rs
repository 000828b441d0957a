//! The random-bytes op behind js/host/crypto.ts (`crypto.getRandomValues`, `crypto.randomUUID`),
//! from the operating system's CSPRNG.

use std::rc::Rc;

use crate::js::engine::{sync_op, HostState, OpDecl, OpError};

pub const OPS: &[OpDecl] = &[sync_op!(random_bytes)];

/// Most bytes one call gives (Web Crypto's quota for getRandomValues; JS checks it first).
const MAX_RANDOM_BYTES: usize = 65536;

/// `random_bytes(count)` -> that many bytes from the system's CSPRNG.
fn random_bytes(_: &Rc<HostState>, count: f64) -> Result<Vec<u8>, OpError> {
    let count = (count.max(0.0) as usize).min(MAX_RANDOM_BYTES);
    let mut bytes = vec![0u8; count];
    getrandom::fill(&mut bytes)
        .map_err(|e| OpError::internal(format!("no random bytes from the system: {e}")))?;
    Ok(bytes)
}
