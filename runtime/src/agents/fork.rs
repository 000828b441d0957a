//! `agent.fork`: a new agent on a copy of its parent's native session, made the harness's own
//! way (`Harness::fork`), after the parent's earlier operations (it takes a place in the
//! parent's queue). The fork keeps the parent's runtime settings, cwd and environment; it has
//! the parent's tools unless its spec gives its own (`tools: {}` gives none); its
//! `instructions` come with its first turn. What the caller may ask is checked before queueing
//! (js/ops/workflow/fork.rs); what only the parent's queue can tell (it never had a turn after
//! all, the harness failed) rejects here. It waits in the queue as operation.rs says; its
//! bound counts from its start.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::operation::{self, Deadline, Operation, Queued, Scope, Unstarted};
use super::queue::Ticket;
use super::spec::AgentSpec;
use super::{Agent, Agents};
use crate::harness::{OpEnd, SessionOp};
use crate::records::Event;
use crate::tools::ToolSet;

/// How long a fork may take: it makes no model call (reference: agentswf.md §1.4).
const FORK_BOUND: Duration = Duration::from_secs(60);

/// A fork as asked, with its place in the parent's queue.
pub struct ForkRequest {
    pub key: String,
    pub instructions: Option<String>,
    /// `None`: the parent's tools.
    pub tools: Option<ToolSet>,
    /// The fork's own `labels` (a fork does not inherit its parent's).
    pub labels: Option<serde_json::Value>,
    pub ticket: Ticket,
}

/// Forks `parent` once its earlier operations are done; the new agent, or why not.
pub async fn fork(
    agents: &Agents,
    parent: Arc<Agent>,
    request: ForkRequest,
) -> Result<Arc<Agent>, String> {
    let ForkRequest {
        key,
        instructions,
        tools,
        labels,
        ticket,
    } = request;
    // Its id is given when it starts, so the workflow cannot cancel it on its own.
    let queued = Queued {
        ticket,
        deadline: Deadline::FromStart {
            bound: FORK_BOUND,
            latest: parent.link.deadline,
        },
        run_cancelled: parent.link.cancelled.clone(),
        cancels: None,
    };
    let fork = Fork {
        agents,
        parent: parent.clone(),
        key,
        instructions,
        tools,
        labels,
        forked: None,
    };
    operation::run(fork, queued).await
}

/// A fork in its parent's queue.
struct Fork<'a> {
    agents: &'a Agents,
    parent: Arc<Agent>,
    key: String,
    instructions: Option<String>,
    tools: Option<ToolSet>,
    labels: Option<serde_json::Value>,
    /// The fork, once made, and its record.
    forked: Option<(Arc<Agent>, Event)>,
}

impl Operation for Fork<'_> {
    type End = Result<Arc<Agent>, String>;

    fn unstarted(&mut self, why: Unstarted) -> Self::End {
        Err(why.outcome("fork").detail().unwrap_or_default().to_string())
    }

    async fn run(&mut self, scope: &Scope) -> Self::End {
        let parent = &self.parent;
        if parent.turns_taken() == 0 {
            return Err(format!(
                "agent \"{}\" never had a turn, so it has no session to fork",
                parent.key
            ));
        }
        let harness = parent.harness();
        let native = parent.native.lock().await;
        let id = format!("f{}", &self.agents.next_turn_id()[1..]);
        let in_container = |container: &str| parent.record_container(&id, container);
        let ended = harness
            .fork(SessionOp {
                agent: &parent.key,
                fork: Some(&self.key),
                id: &id,
                session: native.id.as_deref(),
                session_name: &parent.session_name,
                cwd: &parent.cwd,
                launcher: &parent.launcher,
                env: parent.env(),
                deadline: scope.deadline,
                cancelled: scope.cancelled.clone(),
                supervision: &parent.supervision,
                sandbox: parent.confinement(),
                in_container: &in_container,
            })
            .await;
        let parent_session = native.id.clone();
        drop(native);
        let forked = match ended {
            OpEnd::Done(forked) => forked,
            OpEnd::Failed(why) => {
                return Err(format!(
                    "{} could not fork agent \"{}\": {why}",
                    harness.name(),
                    parent.key
                ))
            }
            OpEnd::TimedOut => {
                return Err(format!(
                    "{} did not fork agent \"{}\" within {} s",
                    harness.name(),
                    parent.key,
                    scope
                        .deadline
                        .saturating_duration_since(scope.started)
                        .as_secs()
                ))
            }
            OpEnd::Cancelled => return Err("the run was cancelled while the fork was made".into()),
        };
        let spec = AgentSpec {
            key: self.key.clone(),
            runtime: parent.spec.runtime.clone(),
            instructions: self.instructions.take(),
            cwd: parent.spec.cwd.clone(),
            // A fork works in its parent's cwd: in its worktree, when the parent has one.
            workspace: None,
            env: parent.spec.env.clone(),
            tools: Some(self.tools.take().unwrap_or_else(|| parent.tools.clone())),
            messages: parent.spec.messages,
            sandbox: parent.spec.sandbox.clone(),
            labels: self.labels.take(),
            // Its parent's skills: they are in the CLI home it shares with its parent.
            skills: parent.spec.skills.clone(),
            // Its parent's figure, counted for the fork alone.
            budget: parent.spec.budget,
        };
        let agent = self
            .agents
            .open_fork(
                spec,
                parent.cwd.clone(),
                forked.harness,
                parent.sandbox(),
                parent.home().cloned(),
                self.agents.skills_of(&parent.key),
            )
            .map_err(|e| e.to_string())?;
        if let Some(session) = &forked.session {
            agent.native.lock().await.id = Some(session.clone());
        }
        let record = Event::AgentForked {
            agent: agent.key.clone(),
            from: parent.key.clone(),
            fork: id,
            harness: harness.name().to_string(),
            session: parent_session,
            fork_session: forked.session,
            from_session_name: parent.session_name.clone(),
            session_name: agent.session_name.clone(),
            duration_ms: scope.started.elapsed().as_millis() as u64,
        };
        self.forked = Some((agent.clone(), record));
        Ok(agent)
    }

    /// Only a fork made is recorded; one refused rejects the caller's promise with why.
    fn settle(&mut self, _end: &Self::End, _called: Instant) {
        if let Some((agent, record)) = self.forked.take() {
            agent.record(&record);
        }
    }
}
