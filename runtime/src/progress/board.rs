//! The state of a run as its events tell it, agent by agent: what each is doing now (working on
//! a turn, checking in, calling a tool, running a shell command, done), since when, what it has
//! used and done so far, and the last line its process wrote on stderr (kept with a turn that
//! ends without an answer, as part of why). The live view draws from it, with the run's totals
//! (`totals`); the closing summary is read from it. Pure: it only folds event lines
//! (`events.jsonl`'s, parsed) and stderr lines, so it is tested without a run.

use std::time::Instant;

use serde_json::Value;

use crate::usage::{Tokens, Usage};

/// What one event changed, for a view to show.
#[derive(Clone, Debug, PartialEq)]
pub enum Change {
    /// Nothing a view shows.
    None,
    /// An agent's row is new or changed.
    Row(usize),
    /// A line to print above the rows (a `wf.log` line).
    Line(String),
    /// The run ended.
    Ended,
}

/// What an agent is doing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Doing {
    /// Open, with no turn now.
    Idle,
    Working,
    CheckingIn,
    CallingTool(String),
    /// A shell command its harness reported (not a tool call).
    Shell(String),
    /// Its last turn ended so (`answered`, `failed: ...`).
    Settled(String),
    Closed,
}

/// Tool calls by how they ended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Calls {
    pub ok: u32,
    pub refused: u32,
    pub failed: u32,
}

/// A tool call that failed, for the summary: the handler's error and where it was thrown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolFailure {
    pub tool: String,
    pub code: String,
    pub error: String,
    /// `file:line:col` of the throw, when the handler threw.
    pub at: Option<String>,
}

/// A turn that ended without an answer, for the summary: how, why, and what its agent's
/// process said last on stderr.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnFailure {
    pub turn: String,
    pub outcome: String,
    pub detail: String,
    pub last_stderr: Option<String>,
}

/// One agent's row.
#[derive(Clone, Debug)]
pub struct AgentRow {
    pub key: String,
    /// `codex fake-model`, `command ./agent.sh`.
    pub runtime: String,
    pub doing: Doing,
    /// When `doing` began.
    pub since: Instant,
    /// The turn it works on, or worked on last.
    pub turn: Option<String>,
    pub turns: u32,
    /// How each settled turn ended, in order.
    pub outcomes: Vec<String>,
    pub calls: Calls,
    pub failures: Vec<ToolFailure>,
    /// Its turns that ended without an answer.
    pub turn_failures: Vec<TurnFailure>,
    /// The last line its process wrote on stderr in the turn under way (or the last one).
    pub last_stderr: Option<String>,
    /// What its settled turns used.
    pub usage: Usage,
    /// What the turn under way reported so far (per request, or its run's total).
    pub live: Tokens,
}

impl AgentRow {
    /// Tokens so far: settled turns and the one under way.
    pub fn tokens(&self) -> u64 {
        let t = &self.usage.tokens;
        t.input_tokens + t.output_tokens + self.live.input_tokens + self.live.output_tokens
    }

    pub fn is_busy(&self) -> bool {
        matches!(
            self.doing,
            Doing::Working | Doing::CheckingIn | Doing::CallingTool(_) | Doing::Shell(_)
        )
    }
}

/// The run, as its events told it so far.
#[derive(Debug, Default)]
pub struct Board {
    pub agents: Vec<AgentRow>,
    pub run_id: Option<String>,
    pub workflow: Option<String>,
    pub outcome: Option<String>,
}

impl Board {
    /// Folds one event in; says what changed.
    pub fn apply(&mut self, event: &Value) -> Change {
        let text = |name: &str| event.get(name).and_then(Value::as_str).unwrap_or("");
        let kind = text("event");
        match kind {
            "run-started" => {
                self.run_id = Some(text("runId").to_string());
                self.workflow = Some(text("workflow").to_string());
                Change::None
            }
            "run-ended" => {
                self.outcome = Some(text("outcome").to_string());
                Change::Ended
            }
            "log" => Change::Line(log_line(text("message"), event.get("fields"))),
            "stage-started" => Change::Line(match event.get("because").and_then(Value::as_str) {
                Some(because) => format!("stage {} runs again: {because}", text("stage")),
                None => format!("stage {}", text("stage")),
            }),
            "stage-ended" => Change::Line(format!(
                "stage {} {}{}",
                text("stage"),
                text("outcome"),
                event
                    .get("reason")
                    .and_then(Value::as_str)
                    .map(|r| format!(": {r}"))
                    .unwrap_or_default()
            )),
            "stage-reused" => Change::Line(format!(
                "stage {} reused (finished in attempt {})",
                text("stage"),
                event
                    .get("fromAttempt")
                    .and_then(Value::as_u64)
                    .unwrap_or(1)
            )),
            "agent-opened" => {
                self.agents.push(AgentRow {
                    key: text("agent").to_string(),
                    runtime: runtime(event.get("runtime")),
                    doing: Doing::Idle,
                    since: Instant::now(),
                    turn: None,
                    turns: 0,
                    outcomes: Vec::new(),
                    calls: Calls::default(),
                    failures: Vec::new(),
                    turn_failures: Vec::new(),
                    last_stderr: None,
                    usage: Usage::default(),
                    live: Tokens::default(),
                });
                Change::Row(self.agents.len() - 1)
            }
            _ => self.apply_to_agent(kind, event),
        }
    }

    fn apply_to_agent(&mut self, kind: &str, event: &Value) -> Change {
        let text = |name: &str| event.get(name).and_then(Value::as_str).unwrap_or("");
        let Some(index) = self.agents.iter().position(|a| a.key == text("agent")) else {
            return Change::None;
        };
        let row = &mut self.agents[index];
        let doing = match kind {
            "turn-started" => {
                row.turns += 1;
                row.turn = Some(text("turn").to_string());
                row.live = Tokens::default();
                row.last_stderr = None;
                Doing::Working
            }
            "check-in" => Doing::CheckingIn,
            "tool-called" => Doing::CallingTool(text("tool").to_string()),
            "tool-settled" => {
                if text("outcome") == "result" {
                    row.calls.ok += 1;
                } else {
                    row.calls.failed += 1;
                    row.failures.push(ToolFailure {
                        tool: text("tool").to_string(),
                        code: text("outcome").to_string(),
                        error: text("error").to_string(),
                        at: event
                            .get("thrownAt")
                            .and_then(Value::as_str)
                            .map(str::to_string),
                    });
                }
                Doing::Working
            }
            "tool-refused" => {
                row.calls.refused += 1;
                return Change::Row(index);
            }
            "shell-started" => Doing::Shell(text("command").to_string()),
            "shell-finished" if matches!(row.doing, Doing::Shell(_)) => Doing::Working,
            "usage-reported" => {
                if let Some(tokens) = tokens(event) {
                    match text("basis") {
                        "request" => {
                            row.live.input_tokens += tokens.input_tokens;
                            row.live.output_tokens += tokens.output_tokens;
                        }
                        _ => row.live = tokens,
                    }
                }
                return Change::Row(index);
            }
            "turn-settled" => {
                let outcome = text("outcome").to_string();
                row.outcomes.push(outcome.clone());
                if let Some(used) = event.get("usage").and_then(usage) {
                    row.usage.add(&used);
                }
                row.live = Tokens::default();
                if outcome != "answered" {
                    row.turn_failures.push(TurnFailure {
                        turn: text("turn").to_string(),
                        outcome: outcome.clone(),
                        detail: text("detail").to_string(),
                        last_stderr: row.last_stderr.clone(),
                    });
                }
                match event.get("detail").and_then(Value::as_str) {
                    Some(detail) if !detail.is_empty() => {
                        Doing::Settled(format!("{outcome}: {detail}"))
                    }
                    _ => Doing::Settled(outcome),
                }
            }
            "agent-closed" => Doing::Closed,
            _ => return Change::None,
        };
        if row.doing != doing {
            row.doing = doing;
            row.since = Instant::now();
        }
        Change::Row(index)
    }
}

impl Board {
    /// Keeps the last non-blank line an agent's process wrote on stderr.
    pub fn stderr_line(&mut self, agent: &str, line: &str) {
        if line.trim().is_empty() {
            return;
        }
        if let Some(row) = self.agents.iter_mut().find(|a| a.key == agent) {
            row.last_stderr = Some(line.trim_end().to_string());
        }
    }

    /// The run at a glance: agents working and done, tool calls, tokens.
    pub fn totals(&self) -> Totals {
        let mut totals = Totals {
            agents: self.agents.len(),
            ..Totals::default()
        };
        for row in &self.agents {
            if row.is_busy() {
                totals.working += 1;
            } else if row.turns > 0 || row.doing == Doing::Closed {
                totals.done += 1;
            }
            totals.calls += u64::from(row.calls.ok + row.calls.refused + row.calls.failed);
            totals.tokens += row.tokens();
        }
        totals
    }
}

/// The counts of the live view's header.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    pub agents: usize,
    /// Agents in a turn now.
    pub working: usize,
    /// Agents with no turn now that have had one, or are closed.
    pub done: usize,
    pub calls: u64,
    pub tokens: u64,
}

/// A `wf.log` line: `message key=value ...`, a string value without spaces as it is, any other
/// value as JSON.
pub fn log_line(message: &str, fields: Option<&Value>) -> String {
    let mut line = message.to_string();
    if let Some(Value::Object(map)) = fields {
        for (key, value) in map {
            let shown = match value {
                Value::String(s) if !s.contains(char::is_whitespace) && !s.is_empty() => s.clone(),
                other => other.to_string(),
            };
            line.push_str(&format!(" {key}={shown}"));
        }
    }
    line
}

/// How records describe a runtime, in a few words.
fn runtime(described: Option<&Value>) -> String {
    let Some(described) = described else {
        return String::new();
    };
    let field = |name: &str| described.get(name).and_then(Value::as_str);
    match (field("kind"), field("model"), field("program")) {
        (Some("command"), _, Some(program)) => {
            let name = program.rsplit('/').next().unwrap_or(program);
            format!("command {name}")
        }
        (Some(kind), Some(model), _) => format!("{kind} {model}"),
        (Some(kind), None, _) => kind.to_string(),
        _ => String::new(),
    }
}

fn tokens(value: &Value) -> Option<Tokens> {
    let count = |name: &str| value.get(name).and_then(Value::as_u64);
    Some(Tokens {
        input_tokens: count("inputTokens")?,
        cached_input_tokens: count("cachedInputTokens").unwrap_or(0),
        output_tokens: count("outputTokens").unwrap_or(0),
        reasoning_tokens: count("reasoningTokens").unwrap_or(0),
    })
}

fn usage(value: &Value) -> Option<Usage> {
    Some(Usage {
        tokens: tokens(value)?,
        cost_usd: value.get("costUsd").and_then(Value::as_f64),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn board(events: &[Value]) -> (Board, Vec<Change>) {
        let mut board = Board::default();
        let changes = events.iter().map(|e| board.apply(e)).collect();
        (board, changes)
    }

    #[test]
    fn an_agent_works_calls_settles_and_is_counted() {
        let (board, changes) = board(&[
            json!({"event": "run-started", "runId": "r1", "workflow": "w"}),
            json!({"event": "agent-opened", "agent": "a", "runtime": {"kind": "codex", "model": "gpt-5", "program": "/bin/codex"}}),
            json!({"event": "turn-started", "agent": "a", "turn": "t1"}),
            json!({"event": "tool-called", "agent": "a", "tool": "add", "call": "t1-c1"}),
            json!({"event": "tool-settled", "agent": "a", "tool": "add", "outcome": "result"}),
            json!({"event": "tool-refused", "agent": "a", "tool": "add", "code": "invalid-input"}),
            json!({"event": "tool-called", "agent": "a", "tool": "add", "call": "t1-c2"}),
            json!({"event": "tool-settled", "agent": "a", "tool": "add", "outcome": "handler-failed", "error": "already recorded", "thrownAt": "wf.ts:9:13"}),
            json!({"event": "usage-reported", "agent": "a", "turn": "t1", "basis": "request", "inputTokens": 100, "outputTokens": 5}),
            json!({"event": "turn-settled", "agent": "a", "turn": "t1", "outcome": "answered", "usage": {"inputTokens": 300, "cachedInputTokens": 0, "outputTokens": 15, "reasoningTokens": 0}}),
            json!({"event": "log", "message": "done", "fields": {"n": 2, "who": "a b"}}),
            json!({"event": "run-ended", "outcome": "completed"}),
        ]);
        assert_eq!(board.run_id.as_deref(), Some("r1"));
        let a = &board.agents[0];
        assert_eq!(a.runtime, "codex gpt-5");
        assert_eq!(a.turns, 1);
        assert_eq!(a.outcomes, vec!["answered"]);
        assert_eq!(
            a.calls,
            Calls {
                ok: 1,
                refused: 1,
                failed: 1
            }
        );
        assert_eq!(a.failures[0].at.as_deref(), Some("wf.ts:9:13"));
        assert_eq!(
            a.tokens(),
            315,
            "the settled turn's usage replaces what it reported live"
        );
        assert_eq!(a.doing, Doing::Settled("answered".into()));
        assert_eq!(changes[10], Change::Line("done n=2 who=\"a b\"".into()));
        assert_eq!(changes[11], Change::Ended);
        assert_eq!(board.outcome.as_deref(), Some("completed"));
    }

    #[test]
    fn what_an_agent_does_now() {
        let (mut board, _) = board(&[
            json!({"event": "agent-opened", "agent": "a", "runtime": {"kind": "command", "program": "/w/agent.sh"}}),
            json!({"event": "turn-started", "agent": "a", "turn": "t1"}),
        ]);
        assert_eq!(board.agents[0].runtime, "command agent.sh");
        assert!(board.agents[0].is_busy());
        board.apply(&json!({"event": "shell-started", "agent": "a", "command": "ls"}));
        assert_eq!(board.agents[0].doing, Doing::Shell("ls".into()));
        board.apply(&json!({"event": "shell-finished", "agent": "a", "command": "ls"}));
        assert_eq!(board.agents[0].doing, Doing::Working);
        board.apply(&json!({"event": "check-in", "agent": "a", "turn": "t1"}));
        assert_eq!(board.agents[0].doing, Doing::CheckingIn);
        board.apply(&json!({"event": "turn-settled", "agent": "a", "turn": "t1", "outcome": "failed", "detail": "exit 3"}));
        assert_eq!(
            board.agents[0].doing,
            Doing::Settled("failed: exit 3".into())
        );
        assert!(!board.agents[0].is_busy());
        assert_eq!(
            board.apply(&json!({"event": "turn-started", "agent": "nobody"})),
            Change::None
        );
    }

    #[test]
    fn a_turn_without_an_answer_keeps_its_reason_and_last_stderr_line() {
        let (mut board, _) = board(&[
            json!({"event": "agent-opened", "agent": "a"}),
            json!({"event": "turn-started", "agent": "a", "turn": "t1"}),
        ]);
        board.stderr_line("a", "connecting");
        board.stderr_line("a", "the network is down  ");
        board.stderr_line("a", "   ");
        board.stderr_line("nobody", "lost");
        board.apply(&json!({"event": "turn-settled", "agent": "a", "turn": "t1", "outcome": "timed-out", "detail": "the turn's deadline passed"}));
        board.apply(&json!({"event": "turn-started", "agent": "a", "turn": "t2"}));
        board.apply(
            &json!({"event": "turn-settled", "agent": "a", "turn": "t2", "outcome": "answered"}),
        );
        assert_eq!(
            board.agents[0].turn_failures,
            vec![TurnFailure {
                turn: "t1".into(),
                outcome: "timed-out".into(),
                detail: "the turn's deadline passed".into(),
                last_stderr: Some("the network is down".into()),
            }]
        );
        assert_eq!(board.agents[0].last_stderr, None, "a new turn starts blank");
    }

    #[test]
    fn totals_count_agents_working_and_done_calls_and_tokens() {
        let (board, _) = board(&[
            json!({"event": "agent-opened", "agent": "a"}),
            json!({"event": "agent-opened", "agent": "b"}),
            json!({"event": "agent-opened", "agent": "c"}),
            json!({"event": "turn-started", "agent": "a", "turn": "t1"}),
            json!({"event": "tool-called", "agent": "a", "tool": "add", "call": "t1-c1"}),
            json!({"event": "tool-settled", "agent": "a", "tool": "add", "outcome": "result"}),
            json!({"event": "tool-refused", "agent": "a", "tool": "add", "code": "invalid-input"}),
            json!({"event": "usage-reported", "agent": "a", "turn": "t1", "basis": "request", "inputTokens": 1000, "outputTokens": 5}),
            json!({"event": "turn-started", "agent": "b", "turn": "t1"}),
            json!({"event": "turn-settled", "agent": "b", "turn": "t1", "outcome": "answered", "usage": {"inputTokens": 300, "outputTokens": 15}}),
        ]);
        assert_eq!(
            board.totals(),
            Totals {
                agents: 3,
                working: 1,
                done: 1,
                calls: 2,
                tokens: 1320,
            }
        );
    }
}
