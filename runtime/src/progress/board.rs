//! The state of a run as its events tell it, agent by agent: what each is doing now (working on
//! a turn, checking in, calling a tool, running a shell command, done), since when, what it has
//! used and done so far, and the last line its process wrote on stderr (kept with a turn that
//! ends without an answer, as part of why). The live view draws from it, with the run's totals
//! (`totals`); the closing summary is read from it. Pure: it only folds the records' typed
//! events (`records::Event`, as they are appended) and stderr lines, so it is tested without a
//! run.

use std::time::Instant;

use serde_json::Value;

use crate::records::Event;
use crate::usage::{Tokens, Usage, UsageBasis};

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
    /// Its worktree, when kept at its end: path and branch.
    pub kept_worktree: Option<(String, String)>,
    /// Where it is confined: the sandbox's provider (`bwrap`), and a container's image
    /// (`podman awf-agents:0.1.0`).
    pub sandbox: Option<String>,
    /// The branch of its worktree, when it works in one.
    pub branch: Option<String>,
    /// The author's `labels` (`agents.open`, `fork`), as the row shows them: `team=red tier=1`.
    pub labels: Option<String>,
}

impl AgentRow {
    /// Its key, with its labels and marked with where it runs: `impl {team=red} [bwrap] on fix/a`.
    pub fn label(&self) -> String {
        let mut label = self.key.clone();
        if let Some(labels) = &self.labels {
            label += &format!(" {{{labels}}}");
        }
        if let Some(provider) = &self.sandbox {
            label += &format!(" [{provider}]");
        }
        if let Some(branch) = &self.branch {
            label += &format!(" on {branch}");
        }
        label
    }

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
    pub fn apply(&mut self, event: &Event) -> Change {
        match event {
            Event::RunStarted {
                run_id, workflow, ..
            } => {
                self.run_id = Some(run_id.clone());
                self.workflow = Some(workflow.clone());
                Change::None
            }
            Event::RunEnded { outcome, .. } => {
                self.outcome = Some(outcome.clone());
                Change::Ended
            }
            Event::Log { message, fields } => Change::Line(log_line(message, fields.as_ref())),
            Event::Asked {
                key,
                question,
                choices,
                schema,
                context,
                ..
            } => Change::Line(super::question::asked(
                self.run_id.as_deref(),
                key,
                question,
                choices.as_deref(),
                schema.is_some(),
                context.as_ref(),
            )),
            Event::Answered {
                key, value, how, ..
            } => Change::Line(super::question::answered(key, value, how)),
            Event::AskTimedOut { key, timeout_ms } => {
                Change::Line(super::question::timed_out(key, *timeout_ms))
            }
            Event::BudgetPassed { detail, hard, .. } => Change::Line(if *hard {
                format!("budget: {detail}; blocked")
            } else {
                format!("warning: {detail}; the run goes on (a soft budget)")
            }),
            Event::StageStarted { stage, because } => Change::Line(match because {
                Some(because) => format!("stage {stage} runs again: {because}"),
                None => format!("stage {stage}"),
            }),
            Event::StageEnded {
                stage,
                outcome,
                reason,
                summary,
                ..
            } => Change::Line(format!(
                "stage {stage} {outcome}{}",
                reason
                    .as_ref()
                    .or(summary.as_ref())
                    .map(|r| format!(": {r}"))
                    .unwrap_or_default()
            )),
            Event::StageReused {
                stage,
                from_attempt,
                summary,
            } => Change::Line(format!(
                "stage {stage} reused (finished in attempt {from_attempt}){}",
                summary
                    .as_ref()
                    .map(|s| format!(": {s}"))
                    .unwrap_or_default()
            )),
            Event::AgentOpened {
                agent,
                runtime,
                sandbox,
                labels,
                ..
            } => {
                self.agents.push(AgentRow {
                    key: agent.clone(),
                    runtime: runtime_words(runtime),
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
                    kept_worktree: None,
                    sandbox: sandbox.as_ref().and_then(sandbox_words),
                    branch: None,
                    labels: labels.as_ref().and_then(labels_words),
                });
                Change::Row(self.agents.len() - 1)
            }
            _ => self.apply_to_agent(event),
        }
    }

    /// Folds in an event about one agent's work (a turn, a tool call, a shell command, what it
    /// used, its end); events about an agent the board has no row for change nothing.
    fn apply_to_agent(&mut self, event: &Event) -> Change {
        let agent = match event {
            Event::TurnStarted { agent, .. }
            | Event::CheckIn { agent, .. }
            | Event::ToolCalled { agent, .. }
            | Event::ToolSettled { agent, .. }
            | Event::ToolRefused { agent, .. }
            | Event::ShellStarted { agent, .. }
            | Event::ShellFinished { agent, .. }
            | Event::UsageReported { agent, .. }
            | Event::TurnSettled { agent, .. }
            | Event::AgentClosed { agent }
            | Event::AgentWorkspace { agent, .. }
            | Event::WorktreeEnded { agent, .. } => agent,
            _ => return Change::None,
        };
        let Some(index) = self.agents.iter().position(|a| &a.key == agent) else {
            return Change::None;
        };
        let row = &mut self.agents[index];
        let doing = match event {
            Event::TurnStarted { turn, label, .. } => {
                row.turns += 1;
                // The author's label, when the turn has one, reads better than its id.
                row.turn = Some(label.clone().unwrap_or_else(|| turn.clone()));
                row.live = Tokens::default();
                row.last_stderr = None;
                Doing::Working
            }
            Event::CheckIn { .. } => Doing::CheckingIn,
            Event::ToolCalled { tool, .. } => Doing::CallingTool(tool.clone()),
            Event::ToolSettled {
                tool,
                outcome,
                error,
                thrown_at,
                ..
            } => {
                if outcome == "result" {
                    row.calls.ok += 1;
                } else {
                    row.calls.failed += 1;
                    row.failures.push(ToolFailure {
                        tool: tool.clone(),
                        code: outcome.clone(),
                        error: error.clone().unwrap_or_default(),
                        at: thrown_at.clone(),
                    });
                }
                Doing::Working
            }
            Event::ToolRefused { .. } => {
                row.calls.refused += 1;
                return Change::Row(index);
            }
            Event::ShellStarted { command, .. } => Doing::Shell(command.clone()),
            Event::ShellFinished { .. } if matches!(row.doing, Doing::Shell(_)) => Doing::Working,
            Event::UsageReported { basis, tokens, .. } => {
                if let Some(tokens) = tokens {
                    if basis == UsageBasis::Request.name() {
                        row.live.input_tokens += tokens.input_tokens;
                        row.live.output_tokens += tokens.output_tokens;
                    } else {
                        row.live = *tokens;
                    }
                }
                return Change::Row(index);
            }
            Event::TurnSettled {
                turn,
                outcome,
                detail,
                usage,
                ..
            } => {
                row.outcomes.push(outcome.clone());
                if let Some(used) = usage {
                    row.usage.add(used);
                }
                row.live = Tokens::default();
                if outcome != "answered" {
                    row.turn_failures.push(TurnFailure {
                        turn: turn.clone(),
                        outcome: outcome.clone(),
                        detail: detail.clone().unwrap_or_default(),
                        last_stderr: row.last_stderr.clone(),
                    });
                }
                match detail {
                    Some(detail) if !detail.is_empty() => {
                        Doing::Settled(format!("{outcome}: {detail}"))
                    }
                    _ => Doing::Settled(outcome.clone()),
                }
            }
            Event::AgentClosed { .. } => Doing::Closed,
            Event::AgentWorkspace { worktree, .. } => {
                row.branch = worktree
                    .as_ref()
                    .and_then(|w| w.get("branch"))
                    .and_then(Value::as_str)
                    .map(str::to_string);
                return Change::Row(index);
            }
            Event::WorktreeEnded {
                path,
                branch,
                kept: true,
                ..
            } => {
                row.kept_worktree = Some((path.clone(), branch.clone()));
                return Change::None;
            }
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

/// An agent's labels as its row shows them: `team=red tier=1` (a string bare, any other value
/// as JSON); none for an empty object.
fn labels_words(labels: &Value) -> Option<String> {
    let words: Vec<String> = labels
        .as_object()?
        .iter()
        .map(|(name, value)| match value {
            Value::String(text) => format!("{name}={text}"),
            other => format!("{name}={other}"),
        })
        .collect();
    (!words.is_empty()).then(|| words.join(" "))
}

/// How records describe a runtime (`agent-opened`'s `runtime`), in a few words.
fn runtime_words(described: &Value) -> String {
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

/// The provider of an `agent-opened` record's sandbox, with its image when it is a container.
fn sandbox_words(sandbox: &Value) -> Option<String> {
    let provider = sandbox.get("provider").and_then(Value::as_str)?;
    match sandbox.pointer("/container/image").and_then(Value::as_str) {
        Some(image) => Some(format!("{provider} {image}")),
        None => Some(provider.to_string()),
    }
}
#[cfg(test)]
mod tests {
    use super::super::test_events::*;
    use super::*;
    use serde_json::json;

    fn board(events: &[Event]) -> (Board, Vec<Change>) {
        let mut board = Board::default();
        let changes = events.iter().map(|e| board.apply(e)).collect();
        (board, changes)
    }

    #[test]
    fn an_agent_works_calls_settles_and_is_counted() {
        let (board, changes) = board(&[
            run_started("r1", "w"),
            opened(
                "a",
                json!({"kind": "codex", "model": "gpt-5", "program": "/bin/codex"}),
            ),
            turn_started("a", "t1"),
            tool_called("a", "add", "t1-c1"),
            tool_ok("a", "add"),
            tool_refused("a", "add", "invalid-input"),
            tool_called("a", "add", "t1-c2"),
            tool_settled(
                "a",
                "add",
                "handler-failed",
                Some("already recorded"),
                Some("wf.ts:9:13"),
            ),
            usage_reported("a", "t1", "request", 100, 5),
            turn_settled("a", "t1", "answered", None, Some(usage(300, 0, 15, None))),
            log("done", Some(json!({"n": 2, "who": "a b"}))),
            run_ended("completed"),
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
    fn a_row_shows_a_turns_label_instead_of_its_id() {
        let labelled = Event::TurnStarted {
            agent: "a".into(),
            turn: "t2".into(),
            n: 1,
            prompt: String::new(),
            schema: None,
            deadline: String::new(),
            message: None,
            label: Some("review src/".into()),
        };
        let (with_label, _) = board(&[opened_command("a", "/w/agent.sh"), labelled]);
        assert_eq!(with_label.agents[0].turn.as_deref(), Some("review src/"));
        let (without, _) = board(&[opened_command("a", "/w/agent.sh"), turn_started("a", "t1")]);
        assert_eq!(without.agents[0].turn.as_deref(), Some("t1"));
    }

    #[test]
    fn what_an_agent_does_now() {
        let (mut board, _) = board(&[opened_command("a", "/w/agent.sh"), turn_started("a", "t1")]);
        assert_eq!(board.agents[0].runtime, "command agent.sh");
        assert!(board.agents[0].is_busy());
        board.apply(&shell_started("a", "ls"));
        assert_eq!(board.agents[0].doing, Doing::Shell("ls".into()));
        board.apply(&shell_finished("a", "ls"));
        assert_eq!(board.agents[0].doing, Doing::Working);
        board.apply(&check_in("a", "t1"));
        assert_eq!(board.agents[0].doing, Doing::CheckingIn);
        board.apply(&turn_settled("a", "t1", "failed", Some("exit 3"), None));
        assert_eq!(
            board.agents[0].doing,
            Doing::Settled("failed: exit 3".into())
        );
        assert!(!board.agents[0].is_busy());
        assert_eq!(board.apply(&turn_started("nobody", "")), Change::None);
    }

    #[test]
    fn a_turn_without_an_answer_keeps_its_reason_and_last_stderr_line() {
        let (mut board, _) = board(&[opened("a", Value::Null), turn_started("a", "t1")]);
        board.stderr_line("a", "connecting");
        board.stderr_line("a", "the network is down  ");
        board.stderr_line("a", "   ");
        board.stderr_line("nobody", "lost");
        board.apply(&turn_settled(
            "a",
            "t1",
            "timed-out",
            Some("the turn's deadline passed"),
            None,
        ));
        board.apply(&turn_started("a", "t2"));
        board.apply(&turn_settled("a", "t2", "answered", None, None));
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
            opened("a", Value::Null),
            opened("b", Value::Null),
            opened("c", Value::Null),
            turn_started("a", "t1"),
            tool_called("a", "add", "t1-c1"),
            tool_ok("a", "add"),
            tool_refused("a", "add", "invalid-input"),
            usage_reported("a", "t1", "request", 1000, 5),
            turn_started("b", "t1"),
            turn_settled("b", "t1", "answered", None, Some(usage(300, 0, 15, None))),
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

    #[test]
    fn a_row_is_marked_with_its_sandbox_and_its_worktree_branch() {
        let mut boxed = opened("impl", json!({"kind": "codex"}));
        if let Event::AgentOpened { sandbox, .. } = &mut boxed {
            *sandbox = Some(json!({"key": "agent:impl", "provider": "bwrap", "write": ["/p"]}));
        }
        let workspace = Event::AgentWorkspace {
            agent: "impl".into(),
            workspace: json!({"worktree": {"keep": "on-failure"}}),
            worktree: Some(json!({"path": "/r/worktrees/impl", "branch": "fix/a"})),
        };
        let (board, changes) = board(&[boxed, opened("free", Value::Null), workspace]);
        assert_eq!(
            changes,
            vec![Change::Row(0), Change::Row(1), Change::Row(0)]
        );
        assert_eq!(board.agents[0].label(), "impl [bwrap] on fix/a");
        assert_eq!(board.agents[1].label(), "free");
        let mut contained = opened("c", json!({"kind": "codex"}));
        if let Event::AgentOpened { sandbox, .. } = &mut contained {
            *sandbox = Some(json!({"key": "agent:c", "provider": "podman",
                "container": {"engine": "podman", "image": "awf-agents:0.1.0", "args": []}}));
        }
        let (in_container, _) = super::tests::board(&[contained]);
        assert_eq!(
            in_container.agents[0].label(),
            "c [podman awf-agents:0.1.0]"
        );
    }

    #[test]
    fn a_row_shows_its_agents_labels() {
        let mut labelled = opened("impl", json!({"kind": "codex"}));
        if let Event::AgentOpened {
            labels, sandbox, ..
        } = &mut labelled
        {
            *labels = Some(json!({"team": "red", "tier": 1, "tags": ["a"]}));
            *sandbox = Some(json!({"provider": "bwrap"}));
        }
        let mut empty = opened("free", Value::Null);
        if let Event::AgentOpened { labels, .. } = &mut empty {
            *labels = Some(json!({}));
        }
        let (board, _) = board(&[labelled, empty]);
        assert_eq!(
            board.agents[0].label(),
            "impl {team=red tier=1 tags=[\"a\"]} [bwrap]"
        );
        assert_eq!(board.agents[1].label(), "free");
    }
}
