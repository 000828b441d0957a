//! Ops of js/workflow/agents.ts: `wf.agents.open`, and an agent's `run` and `close`.

use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use serde_json::json;

use crate::agents::check_in::CheckIn;
use crate::agents::turn::{self, TurnRequest};
use crate::agents::{Agent, AgentSpec, OpenError, OPEN_OPTIONS};
use crate::duration::{parse_timeout, timeout_from_millis};
use crate::js::engine::{async_op, sync_op, HostState, Json, JsonCheck, OpCode, OpDecl, OpError};
use crate::schema::Schema;

use crate::workflow::run::Run;

pub const OPS: &[OpDecl] = &[
    sync_op!(agent_open),
    sync_op!(agent_execution),
    async_op!(agent_run),
    async_op!(agent_close),
    async_op!(agent_stop),
];

pub(super) fn run_of(state: &HostState, handle: u64) -> Result<Arc<Run>, OpError> {
    state.handle::<Arc<Run>>(handle).ok_or_else(|| {
        OpError::new(
            OpCode::RunEnded,
            "this workflow context belongs to a run that has ended",
        )
    })
}

pub(super) fn agent_of(run: &Run, key: &str) -> Result<Arc<Agent>, OpError> {
    run.agents.get(key).ok_or_else(|| {
        OpError::new(
            OpCode::UnknownAgent,
            format!("no agent \"{key}\" is open in this run"),
        )
    })
}

#[derive(Deserialize)]
struct AgentOpen(f64, Json);

/// `agent_open(run, spec)`: the agent's key once it is open (or already was, with the same spec).
fn agent_open(
    state: &Rc<HostState>,
    AgentOpen(handle, Json(spec)): AgentOpen,
) -> Result<serde_json::Value, OpError> {
    let run = state.handle::<Arc<Run>>(handle as u64).ok_or_else(|| {
        OpError::type_error("this workflow context belongs to a run that has ended")
    })?;
    let spec = AgentSpec::from_json(&spec.unwrap_or_default()).map_err(|e| match e {
        OpenError::UnknownOption(option) if PANE_OPTIONS.contains(&option.as_str()) => {
            OpError::new(
                OpCode::UnknownOption,
                format!("wf.agents.open(spec): `{option}` places agentswf's terminal pane; awf runs every agent headless and has no panes"),
            )
            .with_hint(Some(format!("leave `{option}` out; `awf run` shows each agent's turns in its live view, and `awf logs --follow` follows them from another terminal")))
        }
        OpenError::UnknownOption(option) => {
            unknown_option("wf.agents.open(spec)", &option, OPEN_OPTIONS)
        }
        other => OpError::type_problem(&other),
    })?;
    let agent = run
        .agents
        .open(spec)
        .map_err(|e| OpError::type_problem(&e))?;
    Ok(json!({ "key": agent.key, "launcher": agent.launcher.display().to_string() }))
}

/// agentswf's options of its terminal panes, which awf does not have.
const PANE_OPTIONS: &[&str] = &["layout", "keepPane"];

/// An `unknown-option` error from `place` for `option`, with the closest of `known` as "did you
/// mean" and the list, as js/workflow/options.ts words it for the options JS reads.
pub(super) fn unknown_option(place: &str, option: &str, known: &[&str]) -> OpError {
    let listed = format!("it takes {}", known.join(", "));
    let hint = match crate::hint::closest(option, known) {
        Some(closest) => format!("did you mean `{closest}`? {listed}"),
        None => listed,
    };
    OpError::new(
        OpCode::UnknownOption,
        format!("{place}: unknown option `{option}`"),
    )
    .with_hint(Some(hint))
}

/// What `agent.run` sends (js/workflow/agents.ts).
#[derive(Deserialize)]
struct AgentRun {
    run: u64,
    agent: String,
    prompt: JsonCheck,
    #[serde(default)]
    schema: Option<Json>,
    #[serde(default)]
    timeout: Option<Json>,
    #[serde(default)]
    label: Option<Json>,
    /// `false`, or `{ prompt?, timeout? }` (agents/check_in.rs).
    #[serde(default, rename = "checkIn")]
    check_in: Option<Json>,
    /// The token a scope cancels the turn by (js/workflow/scope.ts).
    #[serde(default)]
    cancel: Option<String>,
}

/// `agent_run({ run, agent, prompt, schema, timeout })`: checks, takes the agent's next place in
/// line and fixes the deadline now; the future runs the turn to its outcome.
fn agent_run(
    state: &Rc<HostState>,
    args: AgentRun,
) -> Result<impl std::future::Future<Output = Result<serde_json::Value, OpError>>, OpError> {
    let run = run_of(state, args.run)?;
    let agent = agent_of(&run, &args.agent)?;
    if agent.is_closed() {
        return Err(OpError::new(
            OpCode::AgentClosed,
            format!(
                "agent \"{}\" is closed; open another agent to give it turns",
                agent.key
            ),
        ));
    }
    let prompt = match args.prompt.0 {
        Ok(Some(serde_json::Value::String(p))) if !p.trim().is_empty() => p,
        Ok(Some(serde_json::Value::String(_))) => {
            return Err(OpError::new(
                OpCode::InvalidTurn,
                "agent.run({ prompt }): prompt is blank",
            ))
        }
        _ => {
            return Err(OpError::new(
                OpCode::InvalidTurn,
                "agent.run({ prompt }): prompt must be a string",
            ))
        }
    };
    let schema = match args.schema.and_then(|Json(raw)| raw) {
        None | Some(serde_json::Value::Null) => None,
        Some(raw) => Some(Schema::compile(raw).map_err(|e| {
            OpError::new(
                OpCode::InvalidSchema,
                format!("agent.run({{ schema }}): {e}"),
            )
        })?),
    };
    let timeout = read_timeout("agent.run", args.timeout)?;
    let label = match args.label.and_then(|Json(raw)| raw) {
        None | Some(serde_json::Value::Null) => None,
        Some(serde_json::Value::String(label)) if !label.trim().is_empty() => Some(label),
        Some(_) => return Err(OpError::new(
            OpCode::InvalidTurn,
            "agent.run({ label }): label must be a non-blank string, e.g. label: \"review src/\"",
        )),
    };
    let check_in = CheckIn::read(
        &args
            .check_in
            .and_then(|Json(raw)| raw)
            .unwrap_or(serde_json::Value::Null),
    )
    .map_err(|why| {
        OpError::new(
            OpCode::InvalidTurn,
            format!("agent.run({{ checkIn }}): {why}"),
        )
    })?;
    let deadline = turn::deadline(timeout, run.deadline);
    let id = run.agents.next_turn_id();
    // Every turn can be cancelled: by its scope's token, and by wf.agents.stop.
    let token = args.cancel.unwrap_or_else(|| format!("turn:{id}"));
    agent.cancels.register(&token, &id);
    let request = TurnRequest {
        id,
        prompt,
        schema,
        deadline,
        ticket: agent.queue.ticket(),
        label,
        check_in,
    };
    let in_flight = run.agents.in_flight();
    Ok(async move {
        let end = turn::run(agent, request).await;
        drop(in_flight);
        Ok(end.to_json())
    })
}

/// An operation's `timeout` (`place` names the call in errors: `agent.run`): `"30s"`, `"20m"`,
/// `"1h"`, `"1500ms"`, or a number of milliseconds; none when left out.
pub(super) fn read_timeout(place: &str, value: Option<Json>) -> Result<Option<Duration>, OpError> {
    let invalid = |why: String| {
        OpError::new(
            OpCode::InvalidTurn,
            format!("{place}({{ timeout }}): {why}"),
        )
    };
    match &value.and_then(|Json(raw)| raw).unwrap_or_default() {
        serde_json::Value::Null => Ok(None),
        serde_json::Value::String(text) => parse_timeout(text)
            .map(Some)
            .map_err(|e| invalid(e.to_string())),
        serde_json::Value::Number(n) => timeout_from_millis(n.as_f64().unwrap_or(f64::NAN))
            .map(Some)
            .map_err(|e| invalid(e.to_string())),
        other => Err(invalid(format!(
            "{other} is not a duration; write \"30s\", \"20m\" or a number of milliseconds"
        ))),
    }
}

/// Which agent of which run.
#[derive(Deserialize)]
struct AgentRef {
    run: u64,
    agent: String,
}

/// `agent_execution({ run, agent })`: the agent's settings now (`Agent::execution`), for
/// `agent.execution`; a closed agent's are its last.
fn agent_execution(
    state: &Rc<HostState>,
    AgentRef { run, agent }: AgentRef,
) -> Result<serde_json::Value, OpError> {
    let run = run_of(state, run)?;
    Ok(agent_of(&run, &agent)?.execution())
}

/// `agent_close({ run, agent })`: after the operations queued before it, the agent closes.
fn agent_close(
    state: &Rc<HostState>,
    AgentRef { run, agent }: AgentRef,
) -> Result<impl std::future::Future<Output = Result<(), OpError>>, OpError> {
    let run = run_of(state, run)?;
    let agent = agent_of(&run, &agent)?;
    let mut ticket = agent.queue.ticket();
    let first = agent.begin_close();
    let in_flight = run.agents.in_flight();
    Ok(async move {
        ticket.served().await;
        if first {
            agent.finish_close();
            run.agents.end_worktree(&agent.key);
        }
        drop(in_flight);
        Ok(())
    })
}

/// What `wf.agents.stop` sends (js/workflow/agents.ts).
#[derive(Deserialize)]
struct AgentStop {
    run: u64,
    key: String,
    #[serde(default)]
    reason: Option<String>,
}

/// `agent_stop({ run, key, reason? })`: whether there was an agent to stop (agents/stop.rs).
fn agent_stop(
    state: &Rc<HostState>,
    AgentStop { run, key, reason }: AgentStop,
) -> Result<impl std::future::Future<Output = Result<bool, OpError>>, OpError> {
    let run = run_of(state, run)?;
    let in_flight = run.agents.in_flight();
    Ok(async move {
        let stopped = crate::agents::stop::stop(&run.agents, &key, reason).await;
        drop(in_flight);
        Ok(stopped)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn given(value: serde_json::Value) -> Option<Json> {
        Some(Json(Some(value)))
    }

    #[test]
    fn timeouts_read_as_authors_write_them() {
        assert_eq!(
            read_timeout("agent.run", given(json!("1500ms"))).unwrap(),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(
            read_timeout("agent.run", given(json!(2000))).unwrap(),
            Some(Duration::from_secs(2))
        );
        assert_eq!(read_timeout("agent.run", None).unwrap(), None);
        assert!(read_timeout("agent.run", given(json!(-1)))
            .unwrap_err()
            .message
            .contains("positive"));
        assert!(read_timeout("agent.run", given(json!("soon")))
            .unwrap_err()
            .message
            .contains("not a duration"));
        assert!(read_timeout("agent.run", given(json!(true))).is_err());
        // Out of range is refused at the call, never a panic (`Duration::from_secs_f64`).
        assert!(read_timeout("agent.run", given(json!(1e300)))
            .unwrap_err()
            .message
            .contains("longer than awf takes"));
        assert!(read_timeout("agent.run", given(json!("0s")))
            .unwrap_err()
            .message
            .contains("no time at all"));
        assert!(read_timeout("agent.set", given(json!("soon")))
            .unwrap_err()
            .message
            .starts_with("agent.set({ timeout }): "));
    }
}
