//! awf's engine: everything but argument parsing.
//!
//! One folder per concern; each opens with a doc comment saying what it owns.
//! - `js`: the JS engine door (QuickJS-NG via rquickjs); the only place that names rquickjs.
//! - `schema`: JSON Schema compile/check, error lines, teaching agents how to answer or call.
//! - `workflow`: a run's data: its attempt, records' start, stages and exit codes.
//! - `run`: the run driver: starts the JS host, drives an attempt under its deadline, ends it.
//! - `usage`: tokens and money agents used, one shape for every runtime.
//! - `duration`: durations as authors write them (`"20m"`) and as awf shows them.
//! - `agents`: agents, their turn queues, prompts and outcomes.
//! - `ask`: `wf.ask`'s questions for a person, the answers they take, the run folder's
//!   answers mailbox `awf answer` writes to.
//! - `budget`: how much an agent or a run may spend, and the spend counted against it.
//! - `cancel`: the run's cancellation as every waiting part sees it.
//! - `tools`: workflow tools: registry checks at open, dispatch of one call.
//! - `channel`: the per-agent Unix socket, the wire protocol, launchers.
//! - `harness`: how each agent runtime runs a turn: `command`, `scripted`, the agent CLIs.
//! - `os`: what awf asks of Linux: /proc, cgroup v2, the open-file limit.
//! - `records`: the run folder, events.jsonl, output.json, `awf logs`.
//! - `progress`: what `awf run` shows while a run works (the live view) and when it ends.
//! - `sandbox`: agent sandboxes (bubblewrap), their network grants and proxy.
//! - `skills`: the exact skills an agent gets: resolved, checked, copied with their digest.
//! - `testing`: `awf test`.
//! - `worktree`: a git worktree per agent (`workspace: { worktree }`), kept or removed as asked.
//! - `upcall`: the seam through which the concerns call into workflow code (tool handlers,
//!   messages, a test's scripts), which the engine implements.
//! - `git`: running the git CLI (for `worktree` and `skills`).
//! - `error`, `hint`: the library's `Error`, and the `Hint` trait the CLI prints hints by.

pub mod agents;
pub mod ask;
pub mod budget;
pub mod cancel;
pub mod channel;
pub mod duration;
pub mod env;
pub mod error;
mod git;
pub mod harness;
pub mod hint;
pub mod js;
pub mod limits;
pub mod messages;
pub mod os;
pub mod paths;
pub mod progress;
pub mod records;
pub mod run;
pub mod sandbox;
pub mod schema;
pub mod skills;
pub mod testing;
pub mod tools;
pub mod upcall;
pub mod usage;
pub mod workflow;
pub mod worktree;

pub use error::Error;
pub use hint::Hint;
