//! Ops of `wf.sandboxes` (js/workflow/context.ts): `wf.sandboxes.open`.

use std::rc::Rc;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::json;

use crate::js::engine::{sync_op, HostState, Json, OpDecl, OpError};
use crate::sandbox::SandboxSpec;
use crate::workflow::run::Run;

pub const OPS: &[OpDecl] = &[sync_op!(sandbox_open)];

#[derive(Deserialize)]
struct SandboxOpen(f64, Json);

/// `sandbox_open(run, spec)`: the reference `{ key, provider }` of the sandbox, open once it
/// returns (or already was, with the same spec).
fn sandbox_open(
    state: &Rc<HostState>,
    SandboxOpen(handle, Json(spec)): SandboxOpen,
) -> Result<serde_json::Value, OpError> {
    let run = state.handle::<Arc<Run>>(handle as u64).ok_or_else(|| {
        OpError::type_error("this workflow context belongs to a run that has ended")
    })?;
    let spec = SandboxSpec::from_json(&spec.unwrap_or_default(), "wf.sandboxes.open(spec)")
        .map_err(|e| OpError::type_problem(&e))?;
    let sandbox = run
        .agents
        .open_sandbox(spec)
        .map_err(|e| OpError::type_problem(&e))?;
    Ok(json!({ "key": sandbox.key, "provider": sandbox.named_provider() }))
}
