//! The view on a terminal: a block of rows redrawn in place, one per agent — a spinner while it
//! works, what it is doing and for how long, its tool calls and tokens so far — with lines
//! (`wf.log`, and in verbose mode what agents print) scrolling above it. indicatif draws it.

use std::sync::Mutex;
use std::time::Duration;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::board::{AgentRow, Doing};
use super::doing_text;

pub(super) struct TtyScreen {
    block: MultiProgress,
    rows: Mutex<Vec<Row>>,
    color: bool,
}

struct Row {
    bar: ProgressBar,
    /// What it was doing when last drawn: a new thing restarts the clock.
    doing: Doing,
}

impl TtyScreen {
    pub(super) fn new(color: bool) -> TtyScreen {
        TtyScreen {
            block: MultiProgress::with_draw_target(ProgressDrawTarget::stderr_with_hz(10)),
            rows: Mutex::new(Vec::new()),
            color,
        }
    }

    pub(super) fn row(&self, index: usize, row: &AgentRow) {
        let mut rows = self.rows.lock().unwrap_or_else(|e| e.into_inner());
        while rows.len() <= index {
            let bar = self.block.add(ProgressBar::new_spinner());
            rows.push(Row {
                bar,
                doing: Doing::Closed,
            });
        }
        let shown = &mut rows[index];
        if shown.doing != row.doing {
            shown.bar.reset_elapsed();
            shown.bar.set_style(self.style(row));
            if row.is_busy() {
                shown.bar.enable_steady_tick(Duration::from_millis(100));
            } else {
                shown.bar.disable_steady_tick();
            }
            shown.doing = row.doing.clone();
        }
        shown.bar.set_prefix(row.key.clone());
        shown.bar.set_message(message(row));
    }

    pub(super) fn line(&self, line: &str) {
        let _ = self.block.println(line);
    }

    pub(super) fn clear(&self) {
        let rows = self.rows.lock().unwrap_or_else(|e| e.into_inner());
        for row in rows.iter() {
            row.bar.finish_and_clear();
        }
        let _ = self.block.clear();
    }

    fn style(&self, row: &AgentRow) -> ProgressStyle {
        let (mark, clock) = if row.is_busy() {
            ("{spinner}", " {elapsed}")
        } else {
            match &row.doing {
                Doing::Settled(how) if how.starts_with("answered") => ("✓", ""),
                Doing::Settled(_) => ("✗", ""),
                _ => ("·", ""),
            }
        };
        let template = if self.color {
            format!("{{prefix:.bold}} {mark} {{msg}}{clock}")
                .replace("{spinner}", "{spinner:.cyan}")
        } else {
            format!("{{prefix}} {mark} {{msg}}{clock}")
        };
        ProgressStyle::with_template(&template).unwrap_or_else(|_| ProgressStyle::default_spinner())
    }
}

/// `working on t1 · 3 calls · 1,234 tokens`.
fn message(row: &AgentRow) -> String {
    let mut text = doing_text(row);
    let calls = row.calls.ok + row.calls.refused + row.calls.failed;
    if calls > 0 {
        text += &format!(" · {calls} call{}", if calls == 1 { "" } else { "s" });
    }
    let tokens = row.tokens();
    if tokens > 0 {
        text += &format!(" · {} tokens", crate::usage::thousands(tokens));
    }
    text
}
