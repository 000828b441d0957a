//! The view when stderr is not a terminal: one plain line per change of what an agent does
//! (`reviewer t1: calling tool add_finding`), and each `wf.log` line as it is. No escape codes,
//! and no text cut short: a file keeps all of a shell command or a turn's ending.

use std::io::Write;
use std::sync::Mutex;

use super::board::AgentRow;
use super::{doing_text, Room};

#[derive(Default)]
pub(super) struct PlainScreen {
    /// What each row said last, so a change of only its counts prints nothing.
    said: Mutex<Vec<String>>,
}

impl PlainScreen {
    pub(super) fn row(&self, index: usize, row: &AgentRow) {
        let text = doing_text(row, Room::Line);
        let mut said = self.said.lock().unwrap_or_else(|e| e.into_inner());
        if said.len() <= index {
            said.resize(index + 1, String::new());
        }
        if said[index] == text {
            return;
        }
        said[index] = text.clone();
        let label = row.label();
        let line = match row.turn.as_deref() {
            Some(_) => format!("{label}: {text}"),
            None if row.runtime.is_empty() => format!("{label}: {text}"),
            None => format!("{label} ({}): {text}", row.runtime),
        };
        self.line(&line);
    }

    pub(super) fn line(&self, line: &str) {
        let _ = writeln!(std::io::stderr().lock(), "{line}");
    }
}
