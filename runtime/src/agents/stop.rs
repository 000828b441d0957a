//! `wf.agents.stop(key, reason?)`: the workflow ends an agent for good. Its running and queued
//! turns end `cancelled` with the reason as their detail (cancel.rs: a running turn's process
//! group is stopped as for Ctrl-C), the agent closes once they have, and its key cannot be
//! opened again in this run (`OpenError::Stopped`). `false` when there is nothing to stop: the
//! key was never opened, failed to open, or was stopped before.

use super::Agents;
use crate::records::Event;

/// Stops the agent under `key`; whether there was one to stop.
pub async fn stop(agents: &Agents, key: &str, reason: Option<String>) -> bool {
    let Some(agent) = agents.get(key) else {
        return false;
    };
    if !agent.begin_stop(reason.clone()) {
        return false;
    }
    agent.record(&Event::AgentStopped {
        agent: agent.key.clone(),
        reason: reason.clone(),
    });
    let why = match &reason {
        Some(reason) => format!("wf.agents.stop: {reason}"),
        None => "wf.agents.stop".to_string(),
    };
    let mut ticket = agent.queue.ticket();
    let first = agent.begin_close();
    agent.cancels.cancel_every(&why);
    ticket.served().await;
    if first {
        agent.finish_close();
        agents.end_worktree(&agent.key);
    }
    true
}

/// The words of `wf.agents.stop`'s reason in a refusal to reopen the key.
pub fn stopped_because(reason: &Option<String>) -> String {
    match reason {
        Some(reason) => format!(" ({reason})"),
        None => String::new(),
    }
}
