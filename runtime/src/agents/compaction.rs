//! `agent.compact` and `agent.set`: operations on the agent's session that queue like turns.
//!
//! A compaction runs the harness's own (`Harness::compact`) with the author's focus, bounded by
//! its deadline (fixed before it is queued, as a turn's), and settles as an outcome: `answered`
//! with the summary where the harness gives one (`""` where it keeps it opaque), else `failed`,
//! `timed-out` or `cancelled`, or `blocked` without starting when a hard budget was passed. A
//! change of settings swaps the agent's harness for one with the new model or effort
//! (`Harness::reconfigure`, checked when it was asked) once the operations before it are done:
//! later turns resume the same session with them. Both wait in the queue as operation.rs says.

use std::sync::Arc;
use std::time::Instant;

use serde_json::{json, Value};

use super::operation::{self, Operation, Queued, Scope, Unstarted};
use super::queue::Ticket;
use super::{Agent, Outcome};
use crate::harness::{Compacted, OpEnd, SessionOp, Settings};
use crate::records::Event;
use crate::usage::{PricedUsage, Usage};

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
        ticket,
    } = request;
    let queued = Queued::fixed(&agent, ticket, deadline, &id);
    let compaction = Compaction {
        agent: agent.clone(),
        id,
        focus,
        compacted: None,
    };
    operation::run(compaction, queued).await
}

/// A compaction in the agent's queue.
struct Compaction {
    agent: Arc<Agent>,
    id: String,
    focus: String,
    /// What the harness gave back, once it has.
    compacted: Option<Compacted>,
}

impl Operation for Compaction {
    type End = Outcome;

    fn unstarted(&mut self, why: Unstarted) -> Outcome {
        why.outcome("compaction")
    }

    async fn run(&mut self, scope: &Scope) -> Outcome {
        let agent = &self.agent;
        if let Some(detail) = agent.budget_blocked() {
            // A compaction calls the model too: past a hard budget it does not start its CLI.
            return Outcome::Blocked(detail);
        }
        let harness = agent.harness();
        let native = agent.native.lock().await;
        let in_container = |container: &str| agent.record_container(&self.id, container);
        let ended = harness
            .compact(
                SessionOp {
                    agent: &agent.key,
                    fork: None,
                    id: &self.id,
                    session: native.id.as_deref(),
                    session_name: &agent.session_name,
                    cwd: &agent.cwd,
                    launcher: &agent.launcher,
                    env: agent.env(),
                    deadline: scope.deadline,
                    cancelled: scope.cancelled.clone(),
                    supervision: &agent.supervision,
                    sandbox: agent.confinement(),
                    in_container: &in_container,
                },
                &self.focus,
            )
            .await;
        drop(native);
        match ended {
            OpEnd::Done(done) => {
                let summary = done.summary.clone().unwrap_or_default();
                self.compacted = Some(done);
                Outcome::Answered(Value::String(summary))
            }
            OpEnd::Failed(why) => Outcome::Failed(why),
            OpEnd::TimedOut => {
                Outcome::TimedOut("the compaction's deadline passed before it was done".into())
            }
            OpEnd::Cancelled => Outcome::Cancelled(scope.cancelled_why()),
        }
    }

    fn settle(&mut self, outcome: &Outcome, called: Instant) {
        let compacted = self.compacted.take().unwrap_or_default();
        self.agent.record(&Event::AgentCompacted {
            agent: self.agent.key.clone(),
            compaction: std::mem::take(&mut self.id),
            focus: std::mem::take(&mut self.focus),
            outcome: outcome.kind().to_string(),
            detail: outcome.detail().map(str::to_string),
            summary: compacted.summary,
            tokens_before: compacted.tokens_before,
            tokens: compacted.tokens,
            duration_ms: called.elapsed().as_millis() as u64,
        });
    }
}

/// Applies a change of settings once the agent's earlier operations are done, by `deadline`.
/// Resolves as agentswf's `set` does, with an outcome: `answered` (value `null`) with what the
/// agent's runtime is now (`model`, `effort`, as records describe it), or `timed-out`,
/// `cancelled` or `failed`; each with `usage` (no tokens: no model is called, the agent's
/// `execution` and `sessions`).
pub async fn set(
    agent: Arc<Agent>,
    settings: Settings,
    mut ticket: Ticket,
    deadline: Instant,
) -> Value {
    let cancelled = agent.link.cancelled.clone();
    let changed = match operation::wait(&mut ticket, Some(deadline), cancelled, &mut None).await {
        Err(why) => Err(why.outcome("setting change")),
        // Checked when asked; made again now so that earlier changes in the queue are kept.
        Ok(()) => agent
            .harness()
            .reconfigure(&settings)
            .map_err(|e| Outcome::Failed(e.to_string())),
    };
    // Its session: the agent's, once its turn in the queue came (no turn holds it then); none
    // for a change that never came to be made.
    let session = match &changed {
        Ok(_) => agent.native.lock().await.id.clone(),
        Err(_) => None,
    };
    let mut outcome = match changed {
        Err(outcome) => outcome.to_json(),
        Ok(harness) => {
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
            let mut answered = Outcome::Answered(Value::Null).to_json();
            answered["model"] = json!(setting("model"));
            answered["effort"] = json!(setting("effort"));
            answered
        }
    };
    let described = agent.harness().describe();
    let priced = PricedUsage::of(Usage::default(), described["model"].as_str());
    outcome["usage"] = agent.operation_usage(priced, session.as_deref()).to_json();
    outcome
}
