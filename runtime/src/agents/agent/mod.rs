//! An open agent: what it was opened with, its harness, its socket, whether it is closing, what
//! its turns used; and the state its socket reads, under one lock, which the rest of this folder
//! works on:
//!
//! - `open_turn.rs`: which turn is open, which are over, whether its answer was accepted; answers
//!   and `wfa waiting` are decided there.
//! - `caller.rs`: its tool calls (tools/calls.rs, under the same lock); a tool call goes to
//!   tools/dispatch.rs, for which the agent is a `Caller`.
//! - `authority.rs`: which connecting processes may speak for it.
//! - `budget.rs`: its spend against its own budget and the run's.

mod authority;
mod budget;
pub use budget::passed_event;
mod caller;
mod open_turn;

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::Value;
use tokio::sync::Notify;

use super::cancel::TurnCancels;
use super::problem::OpenError;
use super::queue::TurnQueue;
use super::registry::{InFlight, RunLink};
use super::spec::AgentSpec;
use crate::channel::refusal::Code;
use crate::channel::server::AgentSocket;
use crate::channel::wire::Response;
use crate::harness::environment::AgentEnv;
use crate::harness::home::AgentHome;
use crate::harness::keeper::Supervision;
use crate::harness::{Harness, NativeSession, Usage};
use crate::records::Event;
use crate::sandbox::{AgentBox, Sandbox};
use crate::schema::Schema;
use crate::tools::calls::{ToolCalls, TurnEnd};
use crate::tools::ToolSet;
use crate::usage::PricedUsage;

/// What an operation used, as `outcome.usage` shows it: the priced usage, the agent's settings
/// it ran with (`execution`) and, as agentswf's `usage.sessions`, the native sessions it ran in
/// (`[{ harness, id }]`).
pub struct OperationUsage {
    pub priced: PricedUsage,
    pub execution: Value,
    pub sessions: Value,
}

impl OperationUsage {
    pub fn to_json(&self) -> Value {
        let mut json = serde_json::to_value(&self.priced).unwrap_or_default();
        json["execution"] = self.execution.clone();
        json["sessions"] = self.sessions.clone();
        json
    }
}

/// An open agent.
pub struct Agent {
    pub key: String,
    /// Fixed at open: a reopen must give the same names, descriptions and schemas.
    pub tools: ToolSet,
    pub(super) spec: AgentSpec,
    /// Replaced by `agent.set` (the same session with other settings).
    harness: Mutex<Arc<dyn Harness>>,
    pub cwd: PathBuf,
    pub launcher: PathBuf,
    /// `AWF_SESSION`: stable across the agent's turns.
    pub session_name: String,
    pub(super) link: Arc<RunLink>,
    pub queue: Arc<TurnQueue>,
    /// The agent's native session; a turn holds it while it runs (turns run one at a time).
    pub(super) native: tokio::sync::Mutex<NativeSession>,
    /// How the run's agent processes are tracked; each attempt's process is started through it.
    pub supervision: Arc<Supervision>,
    /// Its turns that the workflow may cancel (`wf.race`, `wf.parallel`).
    pub cancels: TurnCancels,
    state: Mutex<AgentState>,
    socket: Mutex<Option<AgentSocket>>,
    /// Where its processes run, when it was opened with a sandbox.
    sandbox: Option<AgentBox>,
    /// Its own CLI home, when it has one (a sandboxed CLI agent; a fork shares its parent's).
    home: Option<Arc<AgentHome>>,
    /// What its processes are given: the spec's `env`, then its home's variables (which win).
    env: AgentEnv,
    /// Its own budget and its spend against it (budget.rs).
    budget: crate::budget::Guard,
}

#[derive(Default)]
struct AgentState {
    turns_taken: u32,
    open: Option<OpenTurn>,
    over: HashSet<String>,
    /// `close()` was called: no new operation is accepted.
    closing: bool,
    closed: bool,
    /// `wf.agents.stop` stopped it, with this reason (if any): its key cannot be reopened.
    stopped: Option<Option<String>>,
    calls: ToolCalls,
    /// Holds the run's end while a tool call of this agent runs, so its record is written.
    call_in_flight: Option<InFlight>,
    /// What the agent's turns used so far.
    usage: Usage,
    /// The root of the agent's process tree (its keeper's pid) while a process runs.
    process_root: Option<i32>,
}

/// The turn an agent works on.
struct OpenTurn {
    id: String,
    schema: Option<Schema>,
    deadline: Instant,
    accepted: Option<Value>,
    answered: Arc<Notify>,
    /// Wakes a running tool call when the turn ends, saying how it ended.
    over: Arc<TurnEnd>,
    /// A message turn (`agent.send`): tools work, and no answer is owed or taken.
    message: bool,
}

impl Agent {
    pub(super) fn new(
        spec: AgentSpec,
        harness: Arc<dyn Harness>,
        cwd: PathBuf,
        launcher: PathBuf,
        session_name: String,
        link: Arc<RunLink>,
        supervision: Arc<Supervision>,
    ) -> Agent {
        Agent {
            budget: Agent::budget_guard(&link, &spec.key, spec.budget),
            key: spec.key.clone(),
            tools: spec.tools.clone().unwrap_or_default(),
            env: spec.env.clone(),
            spec,
            harness: Mutex::new(harness),
            cwd,
            launcher,
            session_name,
            link,
            queue: Arc::new(TurnQueue::default()),
            native: tokio::sync::Mutex::default(),
            supervision,
            cancels: TurnCancels::default(),
            state: Mutex::new(AgentState::default()),
            socket: Mutex::new(None),
            sandbox: None,
            home: None,
        }
    }

    /// The agent, its CLI reading and writing `home` (its variables set on every process).
    pub(super) fn with_home(mut self, home: Option<Arc<AgentHome>>) -> Agent {
        if let Some(home) = &home {
            self.env.vars.extend(home.env());
        }
        Agent { home, ..self }
    }

    /// Its own CLI home, when it has one.
    pub fn home(&self) -> Option<&Arc<AgentHome>> {
        self.home.as_ref()
    }

    /// The environment its processes are given (harness/environment.rs settles the rest).
    pub fn env(&self) -> &AgentEnv {
        &self.env
    }

    /// The agent, its processes run in `sandbox`.
    pub(super) fn with_sandbox(self, sandbox: Option<AgentBox>) -> Agent {
        Agent { sandbox, ..self }
    }

    /// Lets its sandbox's provider remove what it keeps of the agent (its containers).
    pub fn release_sandbox(&self) {
        if let Some(boxed) = &self.sandbox {
            boxed.release();
        }
    }

    /// The sandbox its processes run in, for the harness (`None`: unconfined).
    pub fn confinement(&self) -> Option<&dyn crate::harness::confinement::Confinement> {
        self.sandbox.as_ref().map(|b| b as _)
    }

    /// The sandbox it runs in, shared with its forks.
    pub fn sandbox(&self) -> Option<Arc<Sandbox>> {
        self.sandbox.as_ref().map(|b| b.sandbox.clone())
    }

    pub fn link(&self) -> &Arc<RunLink> {
        &self.link
    }

    /// The agent's harness, with the settings its later turns run with.
    pub fn harness(&self) -> Arc<dyn Harness> {
        self.harness
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Its settings now, as agentswf's `execution` shows them: `{ harness, model?, effort?,
    /// placement, alias?, metered? }` (after any `agent.set`).
    pub fn execution(&self) -> Value {
        let described = self.harness().describe();
        // A stand-in (awf test) says which CLI it plays as `harness`; a real one is its `kind`.
        let harness = described
            .get("harness")
            .or_else(|| described.get("kind"))
            .cloned()
            .unwrap_or(Value::Null);
        let mut execution = serde_json::Map::new();
        execution.insert("harness".into(), harness);
        for key in ["model", "effort"] {
            if let Some(value) = described.get(key) {
                execution.insert(key.into(), value.clone());
            }
        }
        execution.extend(crate::harness::registry::chosen_execution(
            &self.spec.runtime,
            &self.link.overrides,
        ));
        Value::Object(execution)
    }

    /// Records that the process of operation `id` (a turn, a fork or a compaction) was started
    /// in `container`.
    pub fn record_container(&self, id: &str, container: &str) {
        self.record(&Event::AgentContainer {
            agent: self.key.clone(),
            turn: id.to_string(),
            container: container.to_string(),
        });
    }

    /// What an operation used, `priced`, as the agent ran it now: its settings, and `session`,
    /// the native session it ran in (none before the agent's CLI has given its session an id).
    pub fn operation_usage(&self, priced: PricedUsage, session: Option<&str>) -> OperationUsage {
        let execution = self.execution();
        let sessions = match session {
            Some(id) => serde_json::json!([{ "harness": execution["harness"], "id": id }]),
            None => serde_json::json!([]),
        };
        OperationUsage {
            priced,
            execution,
            sessions,
        }
    }

    pub(super) fn replace_harness(&self, harness: Arc<dyn Harness>) {
        *self.harness.lock().unwrap_or_else(|e| e.into_inner()) = harness;
    }

    /// How many turns the agent has begun.
    pub fn turns_taken(&self) -> u32 {
        self.state().turns_taken
    }

    fn state(&self) -> std::sync::MutexGuard<'_, AgentState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn record(&self, event: &Event) {
        if let Err(e) = self.link.records.append(event) {
            tracing::warn!(agent = %self.key, "cannot append to the run's events: {e}");
        }
    }

    /// A reopen under this key must give the same spec (tools: the same names, descriptions and
    /// schemas; handlers may change).
    pub(super) fn check_reopen(&self, spec: &AgentSpec) -> Result<(), OpenError> {
        for ((field, old), (_, new)) in self.spec.identity().iter().zip(spec.identity()) {
            if *old != new {
                return Err(OpenError::Reopened {
                    key: spec.key.clone(),
                    field,
                    then: compact(old),
                    now: compact(&new),
                });
            }
        }
        if let Some(tools) = &spec.tools {
            self.tools
                .check_same(tools)
                .map_err(|source| OpenError::Tools {
                    key: spec.key.clone(),
                    source,
                })?;
        }
        if let Some(reason) = &self.state().stopped {
            return Err(OpenError::Stopped {
                key: spec.key.clone(),
                reason: super::stop::stopped_because(reason),
            });
        }
        if self.is_closed() {
            return Err(OpenError::Closed(spec.key.clone()));
        }
        Ok(())
    }

    pub(super) fn listen(&self, socket: AgentSocket) {
        *self.socket.lock().unwrap_or_else(|e| e.into_inner()) = Some(socket);
    }

    /// The agent's socket, while it listens.
    pub fn socket_path(&self) -> Option<PathBuf> {
        let socket = self.socket.lock().unwrap_or_else(|e| e.into_inner());
        socket.as_ref().map(|s| s.path().to_path_buf())
    }

    pub(super) fn stop_listening(&self) {
        self.socket.lock().unwrap_or_else(|e| e.into_inner()).take();
    }

    pub fn is_closed(&self) -> bool {
        let state = self.state();
        state.closing || state.closed
    }

    /// Marks the agent stopped (`wf.agents.stop`); `false` if it was already.
    pub(super) fn begin_stop(&self, reason: Option<String>) -> bool {
        let mut state = self.state();
        if state.stopped.is_some() {
            return false;
        }
        state.stopped = Some(reason);
        true
    }

    /// Refuses new operations from now on; queued ones still run. `false` if already closing.
    pub fn begin_close(&self) -> bool {
        !std::mem::replace(&mut self.state().closing, true)
    }

    /// The last step of `close()`, once the operations queued before it are done.
    pub fn finish_close(&self) {
        self.state().closed = true;
        self.stop_listening();
        self.release_sandbox();
        self.record(&Event::AgentClosed {
            agent: self.key.clone(),
        });
    }

    /// What the agent's turns used so far.
    pub fn usage(&self) -> Usage {
        self.state().usage
    }

    pub(super) fn add_usage(&self, usage: &Usage) {
        self.state().usage.add(usage);
    }

    /// The spec's standing instructions, which go with the agent's first turn (`n` 1) only.
    pub(super) fn instructions_for_turn(&self, n: u32) -> Option<&str> {
        (n == 1)
            .then_some(self.spec.instructions.as_deref())
            .flatten()
    }

    /// Whether the agent was opened with `messages: true`.
    pub fn sends_messages(&self) -> bool {
        self.spec.messages
    }
}

pub(super) fn refused(
    code: Code,
    message: &str,
    details: Vec<String>,
    hint: Option<&str>,
) -> Response {
    Response::Refused {
        code,
        message: message.to_string(),
        details,
        hint: hint.map(str::to_string),
    }
}

fn compact(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 60 {
        format!("{}…", text.chars().take(60).collect::<String>())
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn long_values_are_shortened_in_messages() {
        assert_eq!(compact(&json!("short")), "\"short\"");
        let long = compact(&json!("x".repeat(100)));
        assert_eq!(long.chars().count(), 61);
        assert!(long.ends_with('…'));
    }
}
