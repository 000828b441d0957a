//! `RunObserver`: something that watches a run as it happens (the live view of `awf run`):
//! every event as it is recorded, and the lines agents write on stderr, which the records keep
//! only as files. The records call it after each append, on whichever thread appended, so an
//! observer must be quick and must not call back into the run.
//!
//! An observer gets the typed `Event`, not its line in events.jsonl read back: a renamed event
//! or field is a compile error in the observer, not a blank in the live view.

use super::Event;

pub trait RunObserver: Send + Sync {
    /// An event, as it is appended (whether or not the events file's cap let its line in), in
    /// the order of the lines in events.jsonl.
    fn recorded(&self, event: &Event);
    /// A line an agent's process wrote on stderr.
    fn agent_stderr(&self, agent: &str, turn: &str, line: &str);
}
