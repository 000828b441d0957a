//! `agent.compact` and `agent.set`: operations on the agent's session that queue like turns.
//!
//! A compaction runs the harness's own (`Harness::compact`) with the author's focus, bounded by
//! its deadline (fixed before it is queued, as a turn's), and settles as an outcome: `answered`
//! with the summary where the harness gives one (`""` where it keeps it opaque), else `failed`,
//! `timed-out` or `cancelled`. A change of settings swaps the agent's harness for one with the
//! new model or effort (`Harness::reconfigure`, checked when it was asked) once the operations
//! before it are done: later turns resume the same session with them.

use std::sync::Arc;
use std::time::Instant;

use serde_json::{json, Value};

use super::queue::Ticket;
use super::{Agent, Outcome};
use crate::harness::attempt::until_cancelled;
use crate::harness::{OpEnd, SessionOp, Settings};
use crate::records::Event;

/// A compaction as asked.
pub struct CompactRequest {
    pub id: String,
    pub focus: String,
    pub deadline: Instant,
    pub ticket: Ticket,
}

/// Runs one compaction to its outcome.
pub async fn compact(agent: Arc<Agent>, request: CompactRequest) -> Outcome {
    let CompactRequest {
        id,
        focus,
        deadline,
        mut ticket,
    } = request;
    let started = Instant::now();
    let mut cancelled = agent.link.cancelled.clone();
    let waited = tokio::select! {
        _ = ticket.served() => None,
        _ = tokio::time::sleep_until(deadline.into()) => Some(Outcome::TimedOut(
            "the compaction's deadline passed while it waited for the agent's earlier operations".into(),
        )),
        _ = until_cancelled(&mut cancelled) => Some(Outcome::Cancelled(
            "the run was cancelled before the compaction began".into(),
        )),
    };
    let mut compacted = None;
    let outcome = match waited {
        Some(outcome) => outcome,
        None => {
            let harness = agent.harness();
            let native = agent.native.lock().await;
            let ended = harness
                .compact(
                    SessionOp {
                        agent: &agent.key,
                        fork: None,
                        id: &id,
                        session: native.id.as_deref(),
                        session_name: &agent.session_name,
                        cwd: &agent.cwd,
                        launcher: &agent.launcher,
                        env: &agent.spec.env,
                        deadline,
                        cancelled: agent.link.cancelled.clone(),
                        supervision: &agent.supervision,
                    },
                    &focus,
                )
                .await;
            drop(native);
            match ended {
                OpEnd::Done(done) => {
                    let summary = done.summary.clone().unwrap_or_default();
                    compacted = Some(done);
                    Outcome::Answered(Value::String(summary))
                }
                OpEnd::Failed(why) => Outcome::Failed(why),
                OpEnd::TimedOut => {
                    Outcome::TimedOut("the compaction's deadline passed before it was done".into())
                }
                OpEnd::Cancelled => Outcome::Cancelled("the run was cancelled".into()),
            }
        }
    };
    let compacted = compacted.unwrap_or_default();
    agent.record(&Event::AgentCompacted {
        agent: agent.key.clone(),
        compaction: id,
        focus,
        outcome: outcome.kind().to_string(),
        detail: outcome.detail().map(str::to_string),
        summary: compacted.summary,
        tokens_before: compacted.tokens_before,
        tokens: compacted.tokens,
        duration_ms: started.elapsed().as_millis() as u64,
    });
    outcome
}

/// Applies a change of settings once the agent's earlier operations are done; what the agent's
/// runtime is now (`{ model?, effort? }`, as records describe it).
pub async fn set(
    agent: Arc<Agent>,
    settings: Settings,
    mut ticket: Ticket,
) -> Result<Value, String> {
    let mut cancelled = agent.link.cancelled.clone();
    tokio::select! {
        _ = ticket.served() => {}
        _ = until_cancelled(&mut cancelled) => {
            return Err("the run was cancelled before the settings changed".into())
        }
    }
    // Checked when asked; made again now so that earlier changes in the queue are kept.
    let harness = agent
        .harness()
        .reconfigure(&settings)
        .map_err(|e| e.to_string())?;
    let runtime = harness.describe();
    agent.replace_harness(harness);
    agent.record(&Event::SettingsChanged {
        agent: agent.key.clone(),
        model: settings.model,
        effort: settings.effort,
        runtime: runtime.clone(),
    });
    // A scripted agent describes the runtime it plays under `declared`.
    let setting = |name: &str| {
        runtime
            .get(name)
            .or_else(|| runtime["declared"].get(name))
            .cloned()
    };
    Ok(json!({ "model": setting("model"), "effort": setting("effort") }))
}
