//! `wfa send`: a message from an agent to its workflow.
//!
//! Only an agent opened with `messages: true` may send (else `messages-off`, with how to enable
//! it). The message is read and bounded (`crate::messages`), numbered in the run's ledger,
//! recorded (`message-sent`), and handed to the run's JS, whose queue `wf.receive()` takes it
//! from (js/workflow/messages.ts). The agent may send in a turn or a message turn, and after
//! its answer while its process still runs; `wfa` returns once the message is queued.

use std::sync::Arc;

use serde_json::json;

use super::agent::{refused, Agent};
use crate::channel::refusal::Code;
use crate::channel::wire::Response;
use crate::js::JsFailure;
use crate::messages::{self, BodyProblem};
use crate::records::Event;

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
    let arrived = json!({ "run": link.run_id, "message": message.to_json() });
    match link.js.request("message.arrived", arrived).await {
        Ok(_) => Response::Ok {
            stdout: format!("message {} sent to the workflow\n", message.seq),
        },
        Err(failure) => {
            link.messages.withdraw(message.seq);
            let why = match failure {
                JsFailure::Threw(error) => error.headline(),
                JsFailure::NotJson(why) => why,
                JsFailure::HostGone => "the run has ended".to_string(),
            };
            refuse(
                agent,
                Code::InvalidRequest,
                &format!("the workflow could not take the message: {why}"),
                None,
            )
        }
    }
}

fn refuse(agent: &Agent, code: Code, message: &str, hint: Option<&str>) -> Response {
    agent.record(&Event::MessageRefused {
        agent: agent.key.clone(),
        code: code.as_str().to_string(),
        message: message.to_string(),
    });
    refused(code, message, vec![], hint)
}
