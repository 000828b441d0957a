//! `wf.ask`: a question for a person, and its answer. Owns what a question is and which answers
//! it takes (`question.rs`), the run folder's `answers/` mailbox through which `awf answer`
//! reaches a run, live or not (`mailbox.rs`), the questions a run has open now (`Asks`, held by
//! the attempt's `Run`), and the questions its records say are open (`open.rs`, for `awf answer`
//! and `awf runs`).
//!
//! The flow: `wf.ask` records `asked` and waits; `awf answer` checks the value against the
//! question as `asked` recorded it and claims `answers/<key>.json` (a file written whole, made
//! only if the name is free); the waiting run sees the file (it looks every
//! `mailbox::POLL`), checks it again, records `answered` and removes the file. An answer given
//! while no awf runs stays in the folder until `awf run --continue` asks the question again.

pub mod mailbox;
pub mod open;
mod question;

use std::collections::BTreeMap;
use std::sync::Mutex;

pub use question::{key_of, Question, QuestionError};

/// The questions of one attempt: which keys were used (a question asked twice gets `key-2`),
/// and the ones waiting for an answer now.
#[derive(Default)]
pub struct Asks {
    state: Mutex<AsksState>,
}

#[derive(Default)]
struct AsksState {
    /// Base key to how many questions took it.
    used: BTreeMap<String, u32>,
    /// Key to the question, while it waits.
    open: BTreeMap<String, Question>,
}

impl Asks {
    /// The key of a new question whose base key is `base`: `base` the first time, then
    /// `base-2`, `base-3`, ... in the order they are asked (the same on every attempt that asks
    /// in the same order).
    pub fn next_key(&self, base: &str) -> String {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let n = state.used.entry(base.to_string()).or_insert(0);
        *n += 1;
        match *n {
            1 => base.to_string(),
            n => format!("{base}-{n}"),
        }
    }

    /// `question` waits for its answer.
    pub fn wait_for(&self, question: Question) {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        state.open.insert(question.key.clone(), question);
    }

    /// The question waiting under `key`, if it still waits.
    pub fn open(&self, key: &str) -> Option<Question> {
        let state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        state.open.get(key).cloned()
    }

    /// `key` waits no more (answered, timed out or given up); whether it waited.
    pub fn close(&self, key: &str) -> bool {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        state.open.remove(key).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_asked_again_gets_a_number() {
        let asks = Asks::default();
        assert_eq!(asks.next_key("ship"), "ship");
        assert_eq!(asks.next_key("notes"), "notes");
        assert_eq!(asks.next_key("ship"), "ship-2");
        assert_eq!(asks.next_key("ship"), "ship-3");
    }

    #[test]
    fn an_open_question_closes_once() {
        let asks = Asks::default();
        asks.wait_for(Question::text("q", "Why?"));
        assert!(asks.open("q").is_some());
        assert!(asks.close("q"));
        assert!(!asks.close("q"));
        assert!(asks.open("q").is_none());
    }
}
