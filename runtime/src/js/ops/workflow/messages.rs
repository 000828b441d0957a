//! Ops of js/workflow/messages.ts: `agent.send` (a message turn), and what `wf.receive` asks
//! of the run: its options checked, and each message it took recorded as received.

use std::rc::Rc;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{json, Value};

use super::context::run_of;
use crate::agents::message_turn::{self, MessageTurnRequest};
use crate::agents::turn;
use crate::duration::{parse_timeout, timeout_from_millis};
use crate::js::engine::{async_op, sync_op, HostState, Json, OpCode, OpDecl, OpError};
use crate::records::Event;

pub const OPS: &[OpDecl] = &[
    async_op!(agent_send),
    sync_op!(receive_check),
    sync_op!(message_received),
];

/// What `agent.send` sends (js/workflow/messages.ts).
#[derive(Deserialize)]
struct AgentSend {
    run: f64,
    agent: String,
    message: Json,
    #[serde(default)]
    timeout: Option<Json>,
}

/// `agent_send({ run, agent, message, timeout })`: checks, takes the agent's next place in line
/// and fixes the deadline now; the future runs the message turn to its end.
fn agent_send(
    state: &Rc<HostState>,
    args: AgentSend,
) -> Result<impl std::future::Future<Output = Result<Value, OpError>>, OpError> {
    let run = run_of(state, args.run)?;
    let agent = run.agents.get(&args.agent).ok_or_else(|| {
        OpError::new(
            OpCode::UnknownAgent,
            format!("no agent \"{}\" is open in this run", args.agent),
        )
    })?;
    if agent.is_closed() {
        return Err(OpError::new(
            OpCode::AgentClosed,
            format!(
                "agent \"{}\" is closed; open another agent to send it messages",
                agent.key
            ),
        ));
    }
    if let Some(tool) = agent.tool_call_running() {
        return Err(OpError::new(
            OpCode::AgentInToolCall,
            format!(
                "agent \"{}\" is waiting for its tool {tool} to answer, so it cannot be sent a message now; a tool handler cannot give work to the agent that called it (another agent can be sent one)",
                agent.key
            ),
        ));
    }
    let body = crate::messages::read_given(&args.message.0.unwrap_or(Value::Null))
        .map_err(|problem| OpError::new(OpCode::InvalidMessage, problem.to_string()))?;
    let timeout = read_timeout(
        "agent.send(message, { timeout })",
        OpCode::InvalidMessage,
        args.timeout.and_then(|Json(raw)| raw).as_ref(),
    )?;
    let request = MessageTurnRequest {
        id: run.agents.next_turn_id(),
        body,
        deadline: turn::deadline(timeout, run.deadline),
        ticket: agent.queue.ticket(),
    };
    let in_flight = run.agents.in_flight();
    Ok(async move {
        let outcome = message_turn::run(agent, request).await;
        drop(in_flight);
        Ok(outcome.to_json())
    })
}

/// What `wf.receive` is given.
#[derive(Deserialize)]
struct ReceiveCheck {
    run: f64,
    #[serde(default)]
    from: Option<Json>,
    #[serde(default)]
    timeout: Option<Json>,
}

/// `receive_check({ run, from, timeout })`: `{ from, timeoutMs }` as JS waits by them. `from`
/// must be an agent key; one that names an open agent without `messages: true` is refused, since
/// nothing from it could ever come.
fn receive_check(state: &Rc<HostState>, args: ReceiveCheck) -> Result<Value, OpError> {
    let run = run_of(state, args.run)?;
    let invalid =
        |why: String| OpError::new(OpCode::InvalidReceive, format!("wf.receive({{ {why}"));
    let from = match args.from.and_then(|Json(raw)| raw) {
        None | Some(Value::Null) => None,
        Some(Value::String(key)) if !key.is_empty() => Some(key),
        Some(other) => {
            return Err(invalid(format!(
                "from }}): {other} is not an agent key; give the key of the agent to wait for"
            )))
        }
    };
    if let Some(key) = &from {
        if let Some(agent) = run.agents.get(key) {
            if !agent.sends_messages() {
                return Err(OpError::new(
                    OpCode::MessagesOff,
                    format!("wf.receive({{ from: \"{key}\" }}): agent \"{key}\" was opened without messages: true, so no message can come from it; open it with messages: true"),
                ));
            }
        }
    }
    let timeout = read_timeout(
        "wf.receive({ timeout })",
        OpCode::InvalidReceive,
        args.timeout.and_then(|Json(raw)| raw).as_ref(),
    )?;
    Ok(json!({ "from": from, "timeoutMs": timeout.map(|t| t.as_millis() as u64) }))
}

#[derive(Deserialize)]
struct MessageReceived(f64, u64);

/// `message_received(run, seq)`: `wf.receive` took message `seq`; recorded once.
fn message_received(
    state: &Rc<HostState>,
    MessageReceived(handle, seq): MessageReceived,
) -> Result<(), OpError> {
    let run = run_of(state, handle)?;
    if let Some(message) = run.agents.link().messages.received(seq) {
        run.record(&Event::MessageReceived {
            agent: message.from,
            seq,
        });
    }
    Ok(())
}

/// `timeout`: `"30s"`, `"20m"`, `"1h"`, `"1500ms"`, or a number of milliseconds.
pub(super) fn read_timeout(
    call: &str,
    code: OpCode,
    value: Option<&Value>,
) -> Result<Option<Duration>, OpError> {
    let invalid = |why: String| OpError::new(code, format!("{call}: {why}"));
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => parse_timeout(text)
            .map(Some)
            .map_err(|e| invalid(e.to_string())),
        Some(Value::Number(n)) => timeout_from_millis(n.as_f64().unwrap_or(f64::NAN))
            .map(Some)
            .map_err(|e| invalid(e.to_string())),
        Some(other) => Err(invalid(format!(
            "{other} is not a duration; write \"30s\", \"20m\" or a number of milliseconds"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_read_as_authors_write_them() {
        let read =
            |v: Value| read_timeout("wf.receive({ timeout })", OpCode::InvalidReceive, Some(&v));
        assert_eq!(read(json!("2s")).unwrap(), Some(Duration::from_secs(2)));
        assert_eq!(
            read(json!(1500)).unwrap(),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(read(Value::Null).unwrap(), None);
        let error = read(json!(true)).unwrap_err();
        assert_eq!(error.code, "invalid-receive");
        assert!(error
            .message
            .starts_with("wf.receive({ timeout }): true is not a duration"));
    }
}
