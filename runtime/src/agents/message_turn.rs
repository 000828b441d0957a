//! A message turn: `agent.send(message)` wakes the agent with the workflow's message.
//!
//! It takes its place in the agent's queue like a turn (behind a running one), with a deadline
//! fixed before it waits. Then the agent's harness gets one attempt with the message as its
//! prompt, resuming the agent's native session as a turn does; the command runtime also gets
//! `AWF_MESSAGE=1` and the message in `AWF_MESSAGE_TEXT` (and `AWF_MESSAGE_DATA`). The agent may
//! call its tools and send messages, but owes no answer: `wfa result` and `wfa waiting` are
//! refused `message-turn`, and there is no check-in. It ends `ended` when the process (or
//! script) ends on its own, or `failed`, `blocked`, `timed-out`, `cancelled` as a turn does;
//! its outcome carries what it used (`usage`), as a turn's does.

use std::sync::Arc;
use std::time::Instant;

use serde_json::{json, Value};

use super::agent::refused;
use super::operation::{self, Operation, Queued, Scope, Unstarted};
use super::prompt::{self, MessageText};
use super::queue::Ticket;
use super::turn::{self, Attempts, Spent};
use super::{Agent, OperationUsage, Outcome};
use crate::channel::refusal::Code;
use crate::channel::wire::Response;
use crate::harness::AttemptEnd;
use crate::messages::Body;
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
                "reason": outcome.reason(),
                "detail": outcome.reason(),
            }),
        }
    }
}

/// How a message turn ended and what its attempt used, priced.
pub struct MessageEnd {
    pub outcome: MessageOutcome,
    pub usage: OperationUsage,
}

impl MessageEnd {
    /// The outcome as workflow code sees it, with its `usage`.
    pub fn to_json(&self) -> Value {
        let mut json = self.outcome.to_json();
        json["usage"] = self.usage.to_json();
        json
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
pub async fn run(agent: Arc<Agent>, request: MessageTurnRequest) -> MessageEnd {
    use tracing::Instrument;
    let span = tracing::info_span!("message_turn", agent = %agent.key, turn = %request.id);
    run_in_span(agent, request).instrument(span).await
}

async fn run_in_span(agent: Arc<Agent>, request: MessageTurnRequest) -> MessageEnd {
    let MessageTurnRequest {
        id,
        body,
        deadline,
        ticket,
    } = request;
    let queued = Queued::fixed(&agent, ticket, deadline, &id);
    let message_turn = MessageTurn {
        agent: agent.clone(),
        id,
        body,
        spent: Spent::default(),
    };
    operation::run(message_turn, queued).await
}

/// A message turn in the agent's queue.
struct MessageTurn {
    agent: Arc<Agent>,
    id: String,
    body: Body,
    spent: Spent,
}

impl Operation for MessageTurn {
    type End = MessageEnd;

    fn unstarted(&mut self, why: Unstarted) -> MessageEnd {
        MessageEnd {
            outcome: MessageOutcome::Not(why.outcome("message turn")),
            usage: self
                .agent
                .operation_usage(self.spent.priced(&self.agent), None),
        }
    }

    async fn run(&mut self, scope: &Scope) -> MessageEnd {
        let MessageTurn {
            agent,
            id,
            body,
            spent,
        } = self;
        let agent: &Agent = agent;
        let body: &Body = body;
        if let Some(detail) = agent.budget_blocked() {
            return MessageEnd {
                outcome: MessageOutcome::Not(Outcome::Blocked(detail)),
                usage: agent.operation_usage(spent.priced(agent), None),
            };
        }
        let (n, answered) = agent.open_message_turn(id, scope.deadline);
        let launcher = agent.launcher.display().to_string();
        let tools = agent.tools.teaching();
        let prompt = prompt::message(&MessageText {
            instructions: agent.instructions_for_turn(n),
            body,
            launcher: &launcher,
            tools: &tools,
            sends: agent.sends_messages(),
        });
        let attempts = Attempts {
            agent,
            id,
            n,
            author_prompt: &body.text,
            schema: None,
            deadline: scope.deadline,
            answered: &answered,
            message: Some(body),
            label: None,
        };
        attempts.started(&prompt);
        let mut native = agent.native.lock().await;
        let report = attempts
            .run(&prompt, false, &mut native, scope.cancelled.clone())
            .await;
        let session = native.id.clone();
        drop(native);
        let end = spent.add(report);
        let outcome = match (turn::over_budget(agent, &end), end) {
            (Some(detail), _) => MessageOutcome::Not(Outcome::Blocked(detail)),
            (None, AttemptEnd::Answered | AttemptEnd::ExitedSilent) => MessageOutcome::Ended,
            (None, AttemptEnd::Failed(detail)) => MessageOutcome::Not(Outcome::Failed(detail)),
            (None, AttemptEnd::Blocked(detail)) => MessageOutcome::Not(Outcome::Blocked(detail)),
            (None, AttemptEnd::TimedOut(reason)) => {
                MessageOutcome::Not(Outcome::TimedOut(reason.unwrap_or_else(|| {
                    "the message turn's deadline passed before the agent ended it".into()
                })))
            }
            (None, AttemptEnd::Cancelled) => {
                MessageOutcome::Not(Outcome::Cancelled(scope.cancelled_why()))
            }
        };
        let ending = match &outcome {
            MessageOutcome::Ended => TurnEnding {
                timed_out: false,
                how: "ended: the agent's process exited".into(),
            },
            MessageOutcome::Not(outcome) => outcome.ending(),
        };
        attempts.close(ending, spent).await;
        MessageEnd {
            outcome,
            usage: agent.operation_usage(spent.priced(agent), session.as_deref()),
        }
    }

    fn settle(&mut self, MessageEnd { outcome, .. }: &MessageEnd, called: Instant) {
        let detail = match outcome {
            MessageOutcome::Ended => None,
            MessageOutcome::Not(outcome) => outcome.detail(),
        };
        let spent = std::mem::take(&mut self.spent);
        turn::settled(
            &self.agent,
            &self.id,
            (outcome.kind(), detail),
            called,
            spent,
        );
    }
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
            json!({"kind": "failed", "ended": false, "reason": "exit 3", "detail": "exit 3"})
        );
    }
}
