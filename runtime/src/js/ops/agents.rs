//! Ops of `wf.agents` and of an agent: open, run a turn, close.

use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

use rquickjs::function::Rest;
use rquickjs::{Ctx, Value};
use serde_json::json;

use super::{arg, number, type_error, Op, OpDecl, OpError, OpFuture, OpValue};
use crate::agents::turn::{self, TurnRequest};
use crate::agents::{Agent, AgentSpec};
use crate::duration::parse_duration;
use crate::js::convert;
use crate::js::engine::HostState;
use crate::schema::Schema;
use crate::workflow::Run;

pub const OPS: &[OpDecl] = &[
    OpDecl {
        name: "agent_open",
        op: Op::Sync(agent_open),
    },
    OpDecl {
        name: "agent_run",
        op: Op::Async(agent_run),
    },
    OpDecl {
        name: "agent_close",
        op: Op::Async(agent_close),
    },
];

fn run_of(state: &HostState, handle: &serde_json::Value) -> Result<Arc<Run>, OpError> {
    handle.as_u64().and_then(|h| state.run(h)).ok_or_else(|| {
        OpError::new(
            "run-ended",
            "this workflow context belongs to a run that has ended",
        )
    })
}

fn agent_of(run: &Run, key: &serde_json::Value) -> Result<Arc<Agent>, OpError> {
    let key = key.as_str().unwrap_or_default();
    run.agents.get(key).ok_or_else(|| {
        OpError::new(
            "unknown-agent",
            format!("no agent \"{key}\" is open in this run"),
        )
    })
}

/// `agent_open(run, spec)`: the agent's key once it is open (or already was, with the same spec).
fn agent_open<'js>(
    ctx: &Ctx<'js>,
    state: &Rc<HostState>,
    args: Rest<Value<'js>>,
) -> rquickjs::Result<Value<'js>> {
    let handle = number(&arg(ctx, &args, 0)) as u64;
    let run = state
        .run(handle)
        .ok_or_else(|| type_error(ctx, "this workflow context belongs to a run that has ended"))?;
    let spec = convert::to_json_or_throw(ctx, &arg(ctx, &args, 1))?;
    let spec = AgentSpec::from_json(&spec).map_err(|e| type_error(ctx, &e))?;
    let agent = run.agents.open(spec).map_err(|e| type_error(ctx, &e))?;
    convert::to_js(
        ctx,
        &json!({ "key": agent.key, "launcher": agent.launcher.display().to_string() }),
    )
}

/// `agent_run({ run, agent, prompt, schema, timeout })`: checks, takes the agent's next place in
/// line and fixes the deadline now; the future runs the turn to its outcome.
fn agent_run(
    state: &Rc<HostState>,
    args: serde_json::Value,
    _: Option<Vec<u8>>,
) -> Result<OpFuture, OpError> {
    let run = run_of(state, &args["run"])?;
    let agent = agent_of(&run, &args["agent"])?;
    if agent.is_closed() {
        return Err(OpError::new(
            "agent-closed",
            format!(
                "agent \"{}\" is closed; open another agent to give it turns",
                agent.key
            ),
        ));
    }
    refuse_while_calling(&agent, "run")?;
    let prompt = match args["prompt"].as_str() {
        Some(p) if !p.trim().is_empty() => p.to_string(),
        Some(_) => {
            return Err(OpError::new(
                "invalid-turn",
                "agent.run({ prompt }): prompt is blank",
            ))
        }
        None => {
            return Err(OpError::new(
                "invalid-turn",
                "agent.run({ prompt }): prompt must be a string",
            ))
        }
    };
    let schema = match &args["schema"] {
        serde_json::Value::Null => None,
        raw => Some(Schema::compile(raw.clone()).map_err(|e| {
            OpError::new("invalid-schema", format!("agent.run({{ schema }}): {e}"))
        })?),
    };
    let timeout = read_timeout(&args["timeout"])?;
    let deadline = turn::deadline(timeout, run.deadline);
    let request = TurnRequest {
        id: run.agents.next_turn_id(),
        prompt,
        schema,
        deadline,
        ticket: agent.queue.ticket(),
    };
    let in_flight = run.agents.in_flight();
    Ok(Box::pin(async move {
        let outcome = turn::run(agent, request).await;
        drop(in_flight);
        Ok(OpValue::Json(outcome.to_json()))
    }))
}

/// A handler cannot give work to the agent that called it: that agent is in a turn waiting for
/// the handler, so the work would wait for itself.
fn refuse_while_calling(agent: &Agent, operation: &str) -> Result<(), OpError> {
    match agent.tool_call_running() {
        Some(tool) => Err(OpError::new(
            "agent-in-tool-call",
            format!(
                "agent \"{}\" is waiting for its tool {tool} to answer, so it cannot {operation} now; a tool handler cannot give work to the agent that called it (another agent can be run)",
                agent.key
            ),
        )),
        None => Ok(()),
    }
}

/// `timeout`: `"30s"`, `"20m"`, `"1h"`, `"1500ms"`, or a number of milliseconds.
fn read_timeout(value: &serde_json::Value) -> Result<Option<Duration>, OpError> {
    let invalid =
        |why: String| OpError::new("invalid-turn", format!("agent.run({{ timeout }}): {why}"));
    match value {
        serde_json::Value::Null => Ok(None),
        serde_json::Value::String(text) => parse_duration(text).map(Some).map_err(invalid),
        serde_json::Value::Number(n) => match n.as_f64() {
            Some(ms) if ms > 0.0 && ms.is_finite() => {
                Ok(Some(Duration::from_secs_f64(ms / 1000.0)))
            }
            _ => Err(invalid(format!(
                "{n} is not a positive number of milliseconds"
            ))),
        },
        other => Err(invalid(format!(
            "{other} is not a duration; write \"30s\", \"20m\" or a number of milliseconds"
        ))),
    }
}

/// `agent_close({ run, agent })`: after the operations queued before it, the agent closes.
fn agent_close(
    state: &Rc<HostState>,
    args: serde_json::Value,
    _: Option<Vec<u8>>,
) -> Result<OpFuture, OpError> {
    let run = run_of(state, &args["run"])?;
    let agent = agent_of(&run, &args["agent"])?;
    refuse_while_calling(&agent, "close")?;
    let mut ticket = agent.queue.ticket();
    let first = agent.begin_close();
    let in_flight = run.agents.in_flight();
    Ok(Box::pin(async move {
        ticket.served().await;
        if first {
            agent.finish_close();
        }
        drop(in_flight);
        Ok(OpValue::Undefined)
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_read_as_authors_write_them() {
        assert_eq!(
            read_timeout(&json!("1500ms")).unwrap(),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(
            read_timeout(&json!(2000)).unwrap(),
            Some(Duration::from_secs(2))
        );
        assert_eq!(read_timeout(&serde_json::Value::Null).unwrap(), None);
        assert!(read_timeout(&json!(-1))
            .unwrap_err()
            .message
            .contains("positive"));
        assert!(read_timeout(&json!("soon"))
            .unwrap_err()
            .message
            .contains("not a duration"));
        assert!(read_timeout(&json!(true)).is_err());
    }
}
