//! A message turn: `agent.send(message)` wakes the agent with the workflow's message.
//!
//! It takes its place in the agent's queue like a turn (behind a running one), with a deadline
//! fixed before it waits. Then the agent's harness gets one attempt with the message as its
//! prompt, resuming the agent's native session as a turn does; the command runtime also gets
//! `AWF_MESSAGE=1` and the message in `AWF_MESSAGE_TEXT` (and `AWF_MESSAGE_DATA`). The agent may
//! call its tools and send messages, but owes no answer: `wfa result` and `wfa waiting` are
//! refused `message-turn`, and there is no check-in. It ends `ended` when the process (or
//! script) ends on its own, or `failed`, `blocked`, `timed-out`, `cancelled` as a turn does.

use std::sync::Arc;
use std::time::{Instant, SystemTime};

use serde_json::{json, Value};

use super::agent::refused;
use super::prompt::{self, MessageText};
use super::queue::Ticket;
use super::turn::AttemptRecorder;
use super::{Agent, Outcome};
use crate::channel::refusal::Code;
use crate::channel::wire::Response;
use crate::harness::attempt::until_cancelled;
use crate::harness::{Attempt, AttemptEnd};
use crate::messages::Body;
use crate::records::{time, Event};
use crate::tools::calls::TurnEnding;

/// A message turn as asked, with its deadline and its place in the agent's queue.
pub struct MessageTurnRequest {
    pub id: String,
    pub body: Body,
    pub deadline: Instant,
    pub ticket: Ticket,
}

/// How a message turn ended: the agent was done with it, or it ended as a turn can.
#[derive(Clone, Debug, PartialEq)]
pub enum MessageOutcome {
    Ended,
    Not(Outcome),
}

impl MessageOutcome {
    pub fn kind(&self) -> &'static str {
        match self {
            MessageOutcome::Ended => "ended",
            MessageOutcome::Not(outcome) => outcome.kind(),
        }
    }

    /// `{ kind: "ended", ended: true }` or `{ kind, ended: false, reason, detail }`.
    pub fn to_json(&self) -> Value {
        match self {
            MessageOutcome::Ended => json!({ "kind": "ended", "ended": true }),
            MessageOutcome::Not(outcome) => json!({
                "kind": outcome.kind(),
                "ended": false,
                "reason": outcome.kind(),
                "detail": outcome.detail().unwrap_or_default(),
            }),
        }
    }
}

/// The refusal of `wfa result` or `wfa waiting` (`command`) in message turn `turn`.
pub(super) fn refuse_answer(turn: &str, command: &str) -> Response {
    refused(
        Code::MessageTurn,
        &format!("turn {turn} is a message turn: it owes no answer, so {command} is not taken"),
        vec![],
        Some("do what the message asks (call your tools, send a message if you may), then end"),
    )
}

/// Runs one message turn to its end, in a `turn` span.
pub async fn run(agent: Arc<Agent>, request: MessageTurnRequest) -> MessageOutcome {
    use tracing::Instrument;
    let span = tracing::info_span!("message_turn", agent = %agent.key, turn = %request.id);
    run_in_span(agent, request).instrument(span).await
}

async fn run_in_span(agent: Arc<Agent>, mut request: MessageTurnRequest) -> MessageOutcome {
    let started = Instant::now();
    let mut cancelled = agent.link.cancelled.clone();
    let waited = tokio::select! {
        _ = request.ticket.served() => None,
        _ = tokio::time::sleep_until(request.deadline.into()) => Some(Outcome::TimedOut(
            "the message turn's deadline passed while it waited for the agent's earlier operations".into(),
        )),
        _ = until_cancelled(&mut cancelled) => Some(Outcome::Cancelled("the run was cancelled before the message turn began".into())),
    };
    if let Some(outcome) = waited {
        let outcome = MessageOutcome::Not(outcome);
        settle(&agent, &request.id, &outcome, started, Vec::new(), None);
        return outcome;
    }
    let (n, answered) = agent.open_message_turn(&request.id, request.deadline);
    let launcher = agent.launcher.display().to_string();
    let tools = agent.tools.teaching();
    let prompt = prompt::message(&MessageText {
        instructions: agent.instructions_for_turn(n),
        body: &request.body,
        launcher: &launcher,
        tools: &tools,
        sends: agent.sends_messages(),
    });
    agent.record(&Event::TurnStarted {
        agent: agent.key.clone(),
        turn: request.id.clone(),
        n,
        prompt: prompt.clone(),
        schema: None,
        deadline: time::rfc3339(
            SystemTime::now() + request.deadline.saturating_duration_since(Instant::now()),
        ),
        message: Some(request.body.to_json()),
    });
    let mut native = agent.native.lock().await;
    let recorder = AttemptRecorder::new(&agent, &request.id, 1);
    let report = agent
        .harness()
        .run(Attempt {
            agent: &agent.key,
            turn: &request.id,
            n,
            author_prompt: &request.body.text,
            schema: None,
            prompt: &prompt,
            check_in: false,
            deadline: request.deadline,
            cwd: &agent.cwd,
            launcher: &agent.launcher,
            session_name: &agent.session_name,
            env: &agent.spec.env,
            native: &mut native,
            cancelled: agent.link.cancelled.clone(),
            answered: &answered,
            sink: &recorder,
            supervision: &agent.supervision,
            message: Some(&request.body),
        })
        .await;
    drop(native);
    let outcome = match report.end {
        AttemptEnd::Answered | AttemptEnd::ExitedSilent => MessageOutcome::Ended,
        AttemptEnd::Failed(detail) => MessageOutcome::Not(Outcome::Failed(detail)),
        AttemptEnd::Blocked(detail) => MessageOutcome::Not(Outcome::Blocked(detail)),
        AttemptEnd::TimedOut => MessageOutcome::Not(Outcome::TimedOut(
            "the message turn's deadline passed before the agent ended it".into(),
        )),
        AttemptEnd::Cancelled => {
            MessageOutcome::Not(Outcome::Cancelled("the run was cancelled".into()))
        }
    };
    let ending = match &outcome {
        MessageOutcome::Ended => TurnEnding {
            timed_out: false,
            how: "ended: the agent's process exited".into(),
        },
        MessageOutcome::Not(outcome) => outcome.ending(),
    };
    agent.close_turn(&request.id, ending.clone());
    agent.abort_running_call(&ending).await;
    agent.add_usage(&report.usage);
    let usage = (!report.usage.is_empty()).then_some(report.usage);
    settle(&agent, &request.id, &outcome, started, report.output, usage);
    outcome
}

fn settle(
    agent: &Agent,
    turn: &str,
    outcome: &MessageOutcome,
    started: Instant,
    output: Vec<String>,
    usage: Option<crate::harness::Usage>,
) {
    let detail = match outcome {
        MessageOutcome::Ended => None,
        MessageOutcome::Not(outcome) => outcome.detail().map(str::to_string),
    };
    agent.record(&Event::TurnSettled {
        agent: agent.key.clone(),
        turn: turn.to_string(),
        outcome: outcome.kind().to_string(),
        detail,
        duration_ms: started.elapsed().as_millis() as u64,
        output,
        usage,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_as_workflow_code_sees_them() {
        assert_eq!(
            MessageOutcome::Ended.to_json(),
            json!({"kind": "ended", "ended": true})
        );
        assert_eq!(
            MessageOutcome::Not(Outcome::Failed("exit 3".into())).to_json(),
            json!({"kind": "failed", "ended": false, "reason": "failed", "detail": "exit 3"})
        );
    }
}
