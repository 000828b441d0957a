//! One turn of an agent, from its queue ticket to its outcome.
//!
//! The deadline is fixed before the turn is queued and nothing extends it. The turn waits for
//! the agent's earlier operations, opens for answers, and gives its harness an attempt: the
//! agent's process (or script) runs with the composed prompt, resuming the agent's native
//! session when it has one. Then:
//! - an accepted answer ends it `answered`;
//! - an attempt that ends without an answer and without a failure gets one check-in, a second
//!   attempt with a prompt that says the answer is missing; a second silent end is `unanswered`;
//! - a failure is `failed` (or `blocked`, when the runtime needs a person), with its detail;
//! - the deadline is `timed-out`, the run's cancellation `cancelled`, and so is the workflow's
//!   cancelling this one turn (cancel.rs), queued or running, with the reason it gave.
//!
//! What the runtime does meanwhile (its session, shell commands, messages, tokens) is recorded
//! as it happens (`AttemptRecorder`); the turn's tokens are summed into the agent's.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use super::cancel;
use super::prompt::{self, TurnText};
use super::queue::Ticket;
use super::{Agent, Outcome};
use crate::harness::attempt::until_cancelled;
use crate::harness::{Attempt, AttemptEnd, Captured, HarnessEvent, Stream, TurnSink, Usage};
use crate::limits::MAX_ACTIVITY_TEXT_BYTES;
use crate::records::{time, Event};
use crate::schema::Schema;

/// A turn as asked, with its deadline and its place in the agent's queue.
pub struct TurnRequest {
    pub id: String,
    pub prompt: String,
    pub schema: Option<Schema>,
    pub deadline: Instant,
    pub ticket: Ticket,
}

/// Runs one turn to its outcome, in a `turn` span that the log lines of its work carry.
pub async fn run(agent: Arc<Agent>, request: TurnRequest) -> Outcome {
    use tracing::Instrument;
    let span = tracing::info_span!("turn", agent = %agent.key, turn = %request.id);
    let outcome = run_in_span(agent, request).instrument(span.clone()).await;
    span.in_scope(|| tracing::debug!(outcome = outcome.kind(), "turn ended"));
    outcome
}

async fn run_in_span(agent: Arc<Agent>, mut request: TurnRequest) -> Outcome {
    let started = Instant::now();
    let mut cancelled = agent.link.cancelled.clone();
    let mut turn_cancel = agent.cancels.watch(&request.id);
    let waited = tokio::select! {
        _ = request.ticket.served() => None,
        _ = tokio::time::sleep_until(request.deadline.into()) => Some(Outcome::TimedOut(
            "the turn's deadline passed while it waited for the agent's earlier operations".into(),
        )),
        _ = until_cancelled(&mut cancelled) => Some(Outcome::Cancelled("the run was cancelled before the turn began".into())),
        reason = cancel::until_turn_cancelled(&mut turn_cancel) => Some(Outcome::Cancelled(format!("{reason} (before the turn began)"))),
    };
    if let Some(outcome) = waited {
        agent.cancels.done(&request.id);
        settle(
            &agent,
            &request.id,
            &outcome,
            started,
            Vec::new(),
            Usage::default(),
        );
        return outcome;
    }
    let (n, answered) = agent.open_turn(&request.id, request.schema.clone(), request.deadline);
    let launcher = agent.launcher.display().to_string();
    let tools = agent.tools.teaching();
    let text = TurnText {
        instructions: agent.instructions_for_turn(n),
        prompt: &request.prompt,
        launcher: &launcher,
        turn: &request.id,
        schema: request.schema.as_ref(),
        tools: &tools,
        sends: agent.sends_messages(),
    };
    let first_prompt = prompt::compose(&text);
    agent.record(&Event::TurnStarted {
        agent: agent.key.clone(),
        turn: request.id.clone(),
        n,
        prompt: first_prompt.clone(),
        schema: request.schema.as_ref().map(|s| s.raw().clone()),
        deadline: time::rfc3339(
            SystemTime::now() + request.deadline.saturating_duration_since(Instant::now()),
        ),
        message: None,
    });
    let mut native = agent.native.lock().await;
    let mut outputs = Vec::new();
    let mut usage = Usage::default();
    let mut outcome = None;
    for attempt in 1..=2 {
        let check_in = attempt == 2;
        let prompt = if check_in {
            prompt::check_in(&text)
        } else {
            first_prompt.clone()
        };
        let recorder = AttemptRecorder::new(&agent, &request.id, attempt);
        let (attempt_cancelled, forward) =
            cancel::merged(agent.link.cancelled.clone(), turn_cancel.clone());
        let harness = agent.harness();
        let run = harness.run(Attempt {
            agent: &agent.key,
            turn: &request.id,
            n,
            author_prompt: &request.prompt,
            schema: request.schema.as_ref(),
            prompt: &prompt,
            check_in,
            deadline: request.deadline,
            cwd: &agent.cwd,
            launcher: &agent.launcher,
            session_name: &agent.session_name,
            env: &agent.spec.env,
            native: &mut native,
            cancelled: attempt_cancelled,
            answered: &answered,
            sink: &recorder,
            supervision: &agent.supervision,
            message: None,
        });
        let report = tokio::select! {
            report = run => report,
            never = forward => match never {},
        };
        outputs.extend(report.output);
        usage.add(&report.usage);
        outcome = Some(match report.end {
            AttemptEnd::Answered => Outcome::Answered(agent.accepted().unwrap_or_default()),
            AttemptEnd::ExitedSilent if !check_in => {
                agent.record(&Event::CheckIn {
                    agent: agent.key.clone(),
                    turn: request.id.clone(),
                    after: "the agent's process exited with code 0 without an accepted answer"
                        .into(),
                });
                continue;
            }
            AttemptEnd::ExitedSilent => Outcome::Unanswered(
                "the agent's process exited with code 0 without an accepted answer, and again after a check-in"
                    .into(),
            ),
            AttemptEnd::Failed(detail) => Outcome::Failed(detail),
            AttemptEnd::Blocked(detail) => Outcome::Blocked(detail),
            AttemptEnd::TimedOut => {
                Outcome::TimedOut("the turn's deadline passed before an answer was accepted".into())
            }
            AttemptEnd::Cancelled => Outcome::Cancelled(
                cancel::reason(&turn_cancel).unwrap_or_else(|| "the run was cancelled".into()),
            ),
        });
        break;
    }
    drop(native);
    let outcome = outcome.expect("the loop settles on its last attempt");
    agent.cancels.done(&request.id);
    let ending = outcome.ending();
    agent.close_turn(&request.id, ending.clone());
    agent.abort_running_call(&ending).await;
    agent.add_usage(&usage);
    settle(&agent, &request.id, &outcome, started, outputs, usage);
    // `request.ticket` drops here: the agent's next operation may start.
    outcome
}

fn settle(
    agent: &Agent,
    turn: &str,
    outcome: &Outcome,
    started: Instant,
    output: Vec<String>,
    usage: Usage,
) {
    agent.record(&Event::TurnSettled {
        agent: agent.key.clone(),
        turn: turn.to_string(),
        outcome: outcome.kind().to_string(),
        detail: outcome.detail().map(str::to_string),
        duration_ms: started.elapsed().as_millis() as u64,
        output,
        usage: (!usage.is_empty()).then_some(usage),
    });
}

/// Records what one attempt's runtime does, as it happens, under the agent and turn.
pub(super) struct AttemptRecorder<'a> {
    agent: &'a Agent,
    turn: &'a str,
    attempt: u32,
    /// The session last recorded: runtimes repeat it on many lines.
    session: Mutex<Option<String>>,
}

impl<'a> AttemptRecorder<'a> {
    pub(super) fn new(agent: &'a Agent, turn: &'a str, attempt: u32) -> AttemptRecorder<'a> {
        AttemptRecorder {
            agent,
            turn,
            attempt,
            session: Mutex::new(None),
        }
    }
}

impl TurnSink for AttemptRecorder<'_> {
    fn answered(&self) -> bool {
        self.agent.accepted().is_some()
    }

    fn activity(&self, event: &HarnessEvent) {
        let agent = self.agent.key.clone();
        let turn = self.turn.to_string();
        let recorded = match event {
            HarnessEvent::Session(id) => {
                let mut last = self.session.lock().unwrap_or_else(|e| e.into_inner());
                if last.as_deref() == Some(id.as_str()) {
                    return;
                }
                *last = Some(id.clone());
                Event::AgentSession {
                    agent,
                    turn,
                    harness: self.agent.harness().name().to_string(),
                    session: id.clone(),
                }
            }
            HarnessEvent::ShellStarted { command } => Event::ShellStarted {
                agent,
                turn,
                command: bounded(command),
            },
            HarnessEvent::ShellFinished {
                command,
                exit_code,
                output,
            } => Event::ShellFinished {
                agent,
                turn,
                command: bounded(command),
                exit_code: *exit_code,
                output: output.as_deref().map(bounded),
            },
            HarnessEvent::ToolUsed { tool, detail } => Event::AgentToolUsed {
                agent,
                turn,
                tool: tool.clone(),
                detail: bounded(detail),
            },
            HarnessEvent::Message(text) => Event::AgentMessage {
                agent,
                turn,
                text: bounded(text),
            },
            HarnessEvent::Usage { tokens, basis } => Event::UsageReported {
                agent,
                turn,
                basis: basis.name().to_string(),
                tokens: Some(*tokens),
                cost_usd: None,
            },
            HarnessEvent::Cost { usd, basis } => Event::UsageReported {
                agent,
                turn,
                basis: basis.name().to_string(),
                tokens: None,
                cost_usd: Some(*usd),
            },
            HarnessEvent::Error { message, blocked } => Event::HarnessError {
                agent,
                turn,
                message: bounded(message),
                blocked: *blocked,
            },
        };
        self.agent.record(&recorded);
    }

    fn stderr_line(&self, line: &str) {
        self.agent
            .link
            .records
            .agent_stderr(&self.agent.key, self.turn, line);
    }

    fn process(&self, root: Option<i32>) {
        self.agent.set_process_root(root);
    }

    fn keep_output(&self, stream: Stream, captured: &Captured) -> Option<String> {
        let mut bytes = captured.bytes.clone();
        if captured.truncated {
            bytes.extend_from_slice(b"\n[awf: output truncated at the limit]\n");
        }
        let name = format!("{}.{}", self.attempt, stream.name());
        self.agent
            .link
            .records
            .write_turn_output(self.turn, &name, &bytes)
            .ok()
    }
}

/// `text`, cut at `MAX_ACTIVITY_TEXT_BYTES` (on a character boundary) with an ellipsis.
fn bounded(text: &str) -> String {
    if text.len() <= MAX_ACTIVITY_TEXT_BYTES {
        return text.to_string();
    }
    let mut end = MAX_ACTIVITY_TEXT_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// The least of a turn's own timeout and the run's deadline, fixed now.
pub fn deadline(timeout: Option<Duration>, run_deadline: Instant) -> Instant {
    match timeout {
        Some(t) => Instant::now()
            .checked_add(t)
            .map_or(run_deadline, |at| at.min(run_deadline)),
        None => run_deadline,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_activity_texts_are_cut_on_a_character_boundary() {
        assert_eq!(bounded("ls -la"), "ls -la");
        let long = "é".repeat(MAX_ACTIVITY_TEXT_BYTES);
        let cut = bounded(&long);
        assert!(cut.len() <= MAX_ACTIVITY_TEXT_BYTES + '…'.len_utf8());
        assert!(cut.ends_with('…'));
    }

    #[test]
    fn a_turns_deadline_is_the_least_of_its_own_and_the_runs() {
        let run = Instant::now() + Duration::from_secs(60);
        assert_eq!(deadline(None, run), run);
        assert_eq!(deadline(Some(Duration::from_secs(3600)), run), run);
        assert!(deadline(Some(Duration::from_secs(1)), run) < run);
    }
}
