//! `RunObserver`: something that watches a run as it happens (the live view of `awf run`):
//! every event as it is recorded, and the lines agents write on stderr, which the records keep
//! only as files. The records call it after each append, on whichever thread appended, so an
//! observer must be quick and must not call back into the run.

use serde_json::Value;

pub trait RunObserver: Send + Sync {
    /// An event, as recorded (its line in events.jsonl, parsed).
    fn recorded(&self, event: &Value);
    /// A line an agent's process wrote on stderr.
    fn agent_stderr(&self, agent: &str, turn: &str, line: &str);
}
