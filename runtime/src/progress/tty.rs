//! The view on a terminal: a block redrawn in place — a header line with the run's time and
//! totals (agents working and done, tool calls, tokens), then a row per agent: a spinner while it
//! works, what it is doing, how long its turn has run, its tool calls and tokens so far — with
//! lines (`wf.log`, and in verbose mode what agents print) scrolling above it. indicatif draws it.

use std::sync::Mutex;
use std::time::Duration;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::board::{AgentRow, Board, Doing};
use super::{doing_text, Room};
use crate::usage::thousands;

pub(super) struct TtyScreen {
    block: MultiProgress,
    /// The run's line; its clock starts with the view, which starts with the run.
    header: ProgressBar,
    rows: Mutex<Vec<Row>>,
    color: bool,
}

struct Row {
    bar: ProgressBar,
    /// What it was doing when last drawn: a new kind of thing restyles the row.
    doing: Doing,
    /// The turns it had started when last drawn: a new turn restarts the clock, nothing else.
    turns: u32,
}

impl TtyScreen {
    pub(super) fn new(color: bool) -> TtyScreen {
        let header = ProgressBar::new_spinner();
        let template = if color {
            "{prefix:.bold} · {elapsed} · {msg}"
        } else {
            "{prefix} · {elapsed} · {msg}"
        };
        header.set_style(
            ProgressStyle::with_template(template)
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        TtyScreen {
            block: MultiProgress::with_draw_target(ProgressDrawTarget::stderr_with_hz(10)),
            header,
            rows: Mutex::new(Vec::new()),
            color,
        }
    }

    pub(super) fn row(&self, index: usize, row: &AgentRow) {
        let mut rows = self.rows.lock().unwrap_or_else(|e| e.into_inner());
        if rows.is_empty() {
            // The header joins the block with the first agent: a run without agents has none.
            let header = self.block.add(self.header.clone());
            header.enable_steady_tick(Duration::from_millis(100));
        }
        while rows.len() <= index {
            let bar = self.block.add(ProgressBar::new_spinner());
            rows.push(Row {
                bar,
                doing: Doing::Closed,
                turns: 0,
            });
        }
        let shown = &mut rows[index];
        if shown.turns != row.turns {
            shown.bar.reset_elapsed();
            shown.turns = row.turns;
        }
        if shown.doing != row.doing {
            shown.bar.set_style(self.style(row));
            if row.is_busy() {
                shown.bar.enable_steady_tick(Duration::from_millis(100));
            } else {
                shown.bar.disable_steady_tick();
            }
            shown.doing = row.doing.clone();
        }
        shown.bar.set_prefix(row.label());
        shown.bar.set_message(message(row));
    }

    /// `run dead-code · 12s · 3 agents: 2 working, 1 done · 5 calls · 1,234 tokens`.
    pub(super) fn header(&self, board: &Board) {
        let workflow = board.workflow.as_deref().unwrap_or_default();
        self.header
            .set_prefix(format!("run {workflow}").trim_end().to_string());
        let totals = board.totals();
        self.header.set_message(format!(
            "{} agent{}: {} working, {} done · {} call{} · {} tokens",
            totals.agents,
            plural(totals.agents as u64),
            totals.working,
            totals.done,
            totals.calls,
            plural(totals.calls),
            thousands(totals.tokens)
        ));
    }

    pub(super) fn line(&self, line: &str) {
        let _ = self.block.println(line);
    }

    pub(super) fn clear(&self) {
        let rows = self.rows.lock().unwrap_or_else(|e| e.into_inner());
        for row in rows.iter() {
            row.bar.finish_and_clear();
        }
        self.header.finish_and_clear();
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
    let mut text = doing_text(row, Room::Row);
    let calls = row.calls.ok + row.calls.refused + row.calls.failed;
    if calls > 0 {
        text += &format!(" · {calls} call{}", plural(u64::from(calls)));
    }
    let tokens = row.tokens();
    if tokens > 0 {
        text += &format!(" · {} tokens", thousands(tokens));
    }
    text
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
