//! awf's engine: everything but argument parsing.
//!
//! One folder per concern; each opens with a doc comment saying what it owns.
//! - `js`: the JS engine door (QuickJS-NG via rquickjs); the only place that names rquickjs.
//! - `schema`: JSON Schema compile/check, error lines, teaching agents how to answer or call.
//! - `workflow`: a run's lifecycle, deadlines and exit codes.
//! - `usage`: tokens and money agents used, one shape for every runtime.
//! - `duration`: durations as authors write them (`"20m"`) and as awf shows them.
//! - `agents`: agents, their turn queues, prompts and outcomes.
//! - `tools`: workflow tools: registry checks at open, dispatch of one call.
//! - `channel`: the per-agent Unix socket, the wire protocol, launchers.
//! - `harness`: how each agent runtime runs a turn: `command`, `scripted`, the agent CLIs.
//! - `os`: what awf asks of Linux: /proc, cgroup v2, the open-file limit.
//! - `records`: the run folder, events.jsonl, output.json, `awf logs`.
//! - `testing`: `awf test`.

pub mod agents;
pub mod channel;
pub mod duration;
pub mod env;
pub mod harness;
pub mod js;
pub mod limits;
pub mod os;
pub mod paths;
pub mod records;
pub mod schema;
pub mod testing;
pub mod tools;
pub mod usage;
pub mod workflow;
