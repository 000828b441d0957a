//! `wfa send`: a message from an agent to its workflow.
//!
//! Only an agent opened with `messages: true` may send (else `messages-off`, with how to enable
//! it). The message is read and bounded (`crate::messages`), numbered in the run's ledger,
//! recorded (`message-sent`), and handed to the run's JS, whose queue `wf.receive()` takes it
//! from (js/workflow/messages.ts). The agent may send in a turn or a message turn, and after
//! its answer while its process still runs; `wfa` returns once the message is queued.

use std::sync::Arc;

use super::agent::{refused, Agent};
use crate::channel::refusal::Code;
use crate::channel::wire::Response;
use crate::messages::{self, BodyProblem, Ledger, Message};
use crate::records::Event;
use crate::upcall::{MessageArrived, Upcall, UpcallFailure};

pub(super) async fn send(agent: &Arc<Agent>, text: Option<&str>, data: Option<&str>) -> Response {
    if !agent.sends_messages() {
        return refuse(
            agent,
            Code::MessagesOff,
            &format!(
                "agent \"{}\" was opened without messages: true, so it cannot send the workflow messages",
                agent.key
            ),
            Some("the workflow enables it with `messages: true` in wf.agents.open({ key, runtime, messages: true }); until then, give what you have in your turn's answer"),
        );
    }
    let body = match messages::read_sent(text, data) {
        Ok(body) => body,
        Err(problem) => {
            let (code, hint) = match problem {
                BodyProblem::TooLarge(_) => (
                    Code::RequestTooLarge,
                    "send less: a summary, or the path of a file that holds the rest",
                ),
                BodyProblem::NotJson(_) => (
                    Code::InvalidInput,
                    "give one JSON value on standard input, e.g. in a quoted <<'WF_JSON' heredoc",
                ),
                _ => (
                    Code::InvalidInput,
                    "give the text as one quoted word: send 'found 3 problems'",
                ),
            };
            return refuse(agent, code, &problem.to_string(), Some(hint));
        }
    };
    let link = agent.link();
    let message = link.messages.post(&agent.key, body);
    agent.record(&Event::MessageSent {
        agent: agent.key.clone(),
        turn: agent.open_turn_id(),
        seq: message.seq,
        text: message.body.text.clone(),
        data: message.body.data.clone(),
    });
    match hand_over(
        link.workflow.as_ref(),
        &link.run_id,
        &link.messages,
        &message,
    )
    .await
    {
        Ok(()) => Response::Ok {
            stdout: format!("message {} sent to the workflow\n", message.seq),
        },
        Err(why) => refuse(
            agent,
            Code::InvalidRequest,
            &format!("the workflow could not take the message: {why}"),
            None,
        ),
    }
}

/// Hands a message numbered in `ledger` to the workflow's queue; one the workflow cannot take
/// is withdrawn from the ledger, and why is said.
async fn hand_over(
    workflow: &dyn Upcall,
    run: &str,
    ledger: &Ledger,
    message: &Message,
) -> Result<(), String> {
    let arrived = MessageArrived {
        run,
        message: message.to_json(),
    };
    let Err(failure) = workflow.message_arrived(&arrived).await else {
        return Ok(());
    };
    ledger.withdraw(message.seq);
    Err(match failure {
        UpcallFailure::Threw(error) => error.headline(),
        UpcallFailure::NotJson(why) => why,
        UpcallFailure::HostGone => "the run has ended".to_string(),
    })
}

fn refuse(agent: &Agent, code: Code, message: &str, hint: Option<&str>) -> Response {
    agent.record(&Event::MessageRefused {
        agent: agent.key.clone(),
        code: code.as_str().to_string(),
        message: message.to_string(),
    });
    refused(code, message, vec![], hint)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::upcall::fake::{FakeWorkflow, Handler};
    use crate::upcall::{JsError, Kind};

    fn hand_over_one(handler: Handler) -> (FakeWorkflow, Ledger, Result<(), String>) {
        let workflow = FakeWorkflow::new(Handler::Gone).with_messages(handler);
        let ledger = Ledger::default();
        let body = messages::read_sent(Some("found 3 problems"), None).expect("a message");
        let message = ledger.post("reviewer", body);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime");
        let handed = runtime.block_on(hand_over(&workflow, "r1", &ledger, &message));
        (workflow, ledger, handed)
    }

    #[test]
    fn a_message_the_workflow_takes_stays_in_the_ledger_until_received() {
        let (workflow, ledger, handed) = hand_over_one(Handler::Answers(json!(null)));
        assert_eq!(handed, Ok(()));
        let (kind, payload) = &workflow.asked()[0];
        assert_eq!(*kind, Kind::MessageArrived);
        assert_eq!(payload["run"], "r1");
        assert_eq!(payload["message"]["seq"], 1);
        assert_eq!(payload["message"]["from"], "reviewer");
        assert_eq!(payload["message"]["text"], "found 3 problems");
        assert_eq!(ledger.unreceived().len(), 1);
    }

    #[test]
    fn a_message_the_workflow_refuses_is_withdrawn_with_its_error() {
        let thrown = JsError::message("AwfError", "the queue is closed");
        let (_, ledger, handed) = hand_over_one(Handler::Throws(thrown));
        assert_eq!(handed, Err("the queue is closed".to_string()));
        assert!(ledger.unreceived().is_empty());
    }

    #[test]
    fn a_message_sent_after_the_run_ended_is_withdrawn() {
        let (_, ledger, handed) = hand_over_one(Handler::Gone);
        assert_eq!(handed, Err("the run has ended".to_string()));
        assert!(ledger.unreceived().is_empty());
    }
}
