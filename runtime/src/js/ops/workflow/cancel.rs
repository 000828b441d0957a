//! Ops of js/workflow/scope.ts: cancelling one turn of an agent (`wf.race`, `wf.select`,
//! `wf.parallel`); runtime/src/agents/cancel.rs does it.

use std::rc::Rc;

use serde::Deserialize;

use crate::js::engine::{sync_op, HostState, OpDecl, OpError};

use super::context::run_of;

pub const OPS: &[OpDecl] = &[sync_op!(agent_cancel)];

/// What a scope sends when it cancels a turn it started.
#[derive(Deserialize)]
struct AgentCancel {
    run: f64,
    agent: String,
    token: String,
    reason: String,
}

/// `agent_cancel({ run, agent, token, reason })`: whether a turn with that token was still
/// queued or running (it ends `cancelled`, with `reason` as its detail).
fn agent_cancel(state: &Rc<HostState>, args: AgentCancel) -> Result<bool, OpError> {
    let run = run_of(state, args.run)?;
    Ok(match run.agents.get(&args.agent) {
        Some(agent) => agent.cancels.cancel(&args.token, &args.reason),
        None => false,
    })
}
