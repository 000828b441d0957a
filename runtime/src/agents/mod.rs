//! Agents: opened by key, given turns one at a time, answering through their socket.
//!
//! - `registry.rs`: a run's agents by key (`Agents::open`), and what they share with the run.
//! - `spec.rs`: an agent spec as `wf.agents.open` gives it, checked field by field.
//! - `agent/`: an open agent: its turn, its answers, its tool calls' state, who may speak for it.
//! - `problem.rs`: why an open is refused.
//! - `channel.rs`: the agent's socket router.
//! - `operation.rs`: what every operation on an agent shares: its place in the queue, its
//!   deadline, its cancel scope, the record of its end.
//! - `turn.rs`: one turn, from its queue ticket to its outcome, through the agent's harness.
//! - `cancel.rs`: cancelling one turn on the workflow's word (`wf.race`, `wf.parallel`).
//! - `queue.rs`: one operation at a time per agent, in call order.
//! - `sending.rs`: `wfa send`, a message from the agent to the workflow.
//! - `message_turn.rs`: `agent.send`, a message turn that wakes the agent.
//! - `fork.rs`: `agent.fork`, a new agent on a copy of the parent's session.
//! - `compaction.rs`: `agent.compact` and `agent.set`, which queue like turns.
//! - `prompt.rs`, `answer.rs`, `outcome.rs`: what the agent reads, how an answer is read, how a
//!   turn ends.
//!
//! How a turn runs (a process, a CLI, a test's script) is the harness's business
//! (`crate::harness`); nothing here knows which one an agent has.

mod agent;
mod answer;
pub mod cancel;
mod channel;
pub mod check_in;
pub mod compaction;
pub mod fork;
pub mod message_turn;
mod operation;
pub mod outcome;
mod problem;
pub mod prompt;
pub mod queue;
mod registry;
mod sending;
mod spec;
pub mod stop;
pub mod turn;

pub use agent::{passed_event, Agent, OperationUsage};
pub use outcome::Outcome;
pub use problem::{EnvProblem, OpenError};
pub use registry::{Agents, InFlight, RunLink};
pub use spec::{read_labels, valid_key, AgentSpec, OPEN_OPTIONS};
