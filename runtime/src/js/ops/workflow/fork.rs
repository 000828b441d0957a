//! Ops of js/workflow/fork.ts: an agent's `fork`, `compact` and `set`.
//!
//! Everything the call itself can tell is refused at the call (so the error points at the
//! author's line): a closed agent, one that never had a turn and has none queued, a harness
//! that cannot do it (naming the harness and why), a key already open, a blank focus, a model
//! or effort the runtime does not take. Then the operation takes the agent's next place in line.

use std::rc::Rc;

use serde::Deserialize;
use serde_json::{json, Value};

use super::agents::{agent_of, read_timeout, run_of, unknown_option};
use crate::agents::compaction::{self, CompactRequest};
use crate::agents::fork::{self, ForkRequest};
use crate::agents::{read_labels, turn, Agent, OPEN_OPTIONS};
use crate::harness::{Can, Settings};
use crate::js::engine::{async_op, HostState, Json, OpCode, OpDecl, OpError};
use crate::tools::ToolSet;

pub const OPS: &[OpDecl] = &[
    async_op!(agent_fork),
    async_op!(agent_compact),
    async_op!(agent_set),
];

/// A refusal with what to do instead.
fn refused(code: OpCode, message: String, hint: &str) -> OpError {
    OpError::new(code, message).with_hint(Some(hint.to_string()))
}

/// What every operation on a session refuses: a closed agent, one whose harness cannot do it.
fn check_agent(agent: &Agent, operation: &str, can: Can) -> Result<(), OpError> {
    if agent.is_closed() {
        return Err(refused(
            OpCode::AgentClosed,
            format!("agent \"{}\" is closed; it cannot {operation}", agent.key),
            "fork or compact an agent before you close it",
        ));
    }
    if let Can::No(why) = can {
        return Err(refused(
            OpCode::NotSupported,
            format!(
                "agent \"{}\" runs on {}, which cannot {operation}: {why}",
                agent.key,
                runtime_name(&agent.harness().describe())
            ),
            "docs/workflow-api.md (\"Forks, compaction and settings\") lists what each runtime can do",
        ));
    }
    // Work given by the agent's own tool handler is refused in JS (js/workflow/identity.ts),
    // which knows whose code runs.
    Ok(())
}

/// The runtime as the author named it: a scripted agent by the runtime its spec declares.
fn runtime_name(described: &Value) -> String {
    let kind = described["kind"].as_str().unwrap_or_default();
    let declared = match &described["declared"] {
        Value::String(alias) => alias.as_str(),
        Value::Object(map) if map.contains_key("command") => "command",
        Value::Object(map) => map
            .get("harness")
            .and_then(Value::as_str)
            .unwrap_or_default(),
        _ => return kind.to_string(),
    };
    format!("{declared} ({kind})")
}

/// A fork or a compaction needs the session of a turn: one begun, or one queued before it.
fn check_had_a_turn(agent: &Agent, operation: &str) -> Result<(), OpError> {
    if agent.turns_taken() == 0 && agent.queue.pending() == 0 {
        return Err(refused(
            OpCode::NoSessionYet,
            format!(
                "agent \"{}\" has had no turn yet, so there is no session to {operation}",
                agent.key
            ),
            "give the agent its first turn (agent.run) before this; an operation queued after a run waits for it",
        ));
    }
    Ok(())
}

#[derive(Deserialize)]
struct AgentFork {
    run: u64,
    agent: String,
    key: Json,
    #[serde(default)]
    instructions: Option<Json>,
    #[serde(default)]
    tools: Option<Json>,
    #[serde(default)]
    labels: Option<Json>,
}

/// `agent_fork({ run, agent, key, instructions?, tools?, labels? })`: the fork's key and launcher.
fn agent_fork(
    state: &Rc<HostState>,
    args: AgentFork,
) -> Result<impl std::future::Future<Output = Result<Value, OpError>>, OpError> {
    let run = run_of(state, args.run)?;
    let parent = agent_of(&run, &args.agent)?;
    let key = match args.key.0 {
        Some(Value::String(key)) if crate::agents::valid_key(&key) => key,
        other => {
            return Err(refused(
                OpCode::InvalidFork,
                format!(
                    "agent.fork({{ key }}): {} is not a valid agent key",
                    other.map_or("nothing".into(), |v| v.to_string())
                ),
                "give the fork a key of its own: 1 to 64 letters, digits, '.', '_', ':' or '-'",
            ))
        }
    };
    let instructions = match args.instructions.and_then(|Json(v)| v) {
        None | Some(Value::Null) => None,
        Some(Value::String(text)) => Some(text),
        Some(_) => {
            return Err(OpError::new(
                OpCode::InvalidFork,
                "agent.fork({ instructions }): instructions must be a string",
            ))
        }
    };
    let tools = match args.tools.and_then(|Json(v)| v) {
        None | Some(Value::Null) => None,
        Some(tools) => Some(ToolSet::from_json(&tools).map_err(|e| {
            OpError::new(OpCode::InvalidFork, format!("agent.fork({{ tools }}): {e}"))
        })?),
    };
    let labels = read_labels(&key, args.labels.and_then(|Json(v)| v).as_ref()).map_err(|_| {
        refused(
            OpCode::InvalidFork,
            "agent.fork({ labels }): labels must be a JSON object".into(),
            "give labels as an object, e.g. labels: { team: \"review\" }",
        )
    })?;
    check_agent(&parent, "fork", parent.harness().capabilities().fork)?;
    check_had_a_turn(&parent, "fork")?;
    if run.agents.get(&key).is_some() {
        return Err(refused(
            OpCode::ForkKeyOpen,
            format!("agent.fork({{ key }}): an agent \"{key}\" is already open in this run"),
            "give the fork a key of its own, e.g. \"<parent>:fork-1\"",
        ));
    }
    let request = ForkRequest {
        key,
        instructions,
        tools,
        labels,
        ticket: parent.queue.ticket(),
    };
    let in_flight = run.agents.in_flight();
    Ok(async move {
        let forked = fork::fork(&run.agents, parent, request).await;
        drop(in_flight);
        let agent = forked.map_err(|why| OpError::new(OpCode::ForkFailed, why))?;
        Ok(json!({ "key": agent.key, "launcher": agent.launcher.display().to_string() }))
    })
}

#[derive(Deserialize)]
struct AgentCompact {
    run: u64,
    agent: String,
    prompt: Json,
    #[serde(default)]
    timeout: Option<Json>,
}

/// `agent_compact({ run, agent, prompt, timeout? })`: the compaction's outcome.
fn agent_compact(
    state: &Rc<HostState>,
    args: AgentCompact,
) -> Result<impl std::future::Future<Output = Result<Value, OpError>>, OpError> {
    let run = run_of(state, args.run)?;
    let agent = agent_of(&run, &args.agent)?;
    let focus = match args.prompt.0 {
        Some(Value::String(text)) if !text.trim().is_empty() => text,
        _ => {
            return Err(refused(
                OpCode::InvalidCompaction,
                "agent.compact({ prompt }): prompt must be a non-blank string: what the summary should keep".into(),
                "say what to keep, e.g. agent.compact({ prompt: \"the open findings and their files\" })",
            ))
        }
    };
    let timeout = read_timeout("agent.compact", args.timeout)?;
    check_agent(&agent, "compact", agent.harness().capabilities().compact)?;
    check_had_a_turn(&agent, "compact")?;
    let id = format!("c{}", &run.agents.next_turn_id()[1..]);
    let request = CompactRequest {
        id,
        focus,
        deadline: turn::deadline(timeout, run.deadline),
        ticket: agent.queue.ticket(),
    };
    let in_flight = run.agents.in_flight();
    Ok(async move {
        let outcome = compaction::compact(agent, request).await;
        drop(in_flight);
        Ok(outcome.to_json())
    })
}

#[derive(Deserialize)]
struct AgentSet {
    run: u64,
    agent: String,
    settings: Json,
    #[serde(default)]
    timeout: Option<Json>,
}

/// `agent_set({ run, agent, settings: { model?, effort? }, timeout? })`: the outcome of the
/// change (compaction.rs `set`), once the agent's earlier operations are done.
fn agent_set(
    state: &Rc<HostState>,
    args: AgentSet,
) -> Result<impl std::future::Future<Output = Result<Value, OpError>>, OpError> {
    let run = run_of(state, args.run)?;
    let agent = agent_of(&run, &args.agent)?;
    let settings = read_settings(args.settings.0.unwrap_or_default())?;
    let timeout = read_timeout("agent.set", args.timeout)?;
    check_agent(
        &agent,
        "change its settings",
        agent.harness().capabilities().set,
    )?;
    // Checked now, so that a model or effort the runtime does not take is refused at the call.
    agent.harness().reconfigure(&settings).map_err(|e| {
        OpError::new(OpCode::InvalidSettings, format!("agent.set: {e}"))
            .with_hint(crate::hint::Hint::hint(&e))
    })?;
    let ticket = agent.queue.ticket();
    let deadline = turn::deadline(timeout, run.deadline);
    let in_flight = run.agents.in_flight();
    Ok(async move {
        let outcome = compaction::set(agent, settings, ticket, deadline).await;
        drop(in_flight);
        Ok(outcome)
    })
}

/// The keys `agent.set(spec)` reads.
const SET_OPTIONS: &[&str] = &["model", "effort"];

/// `{ model?, effort? }`: at least one, each a non-empty string; nothing else.
fn read_settings(value: Value) -> Result<Settings, OpError> {
    let invalid = |why: String| {
        refused(
            OpCode::InvalidSettings,
            format!("agent.set: {why}"),
            "agent.set takes { model?, effort? }; another harness or placement needs another agent",
        )
    };
    let Value::Object(map) = value else {
        return Err(invalid(
            "settings must be an object: { model?, effort? }".into(),
        ));
    };
    if let Some(other) = map.keys().find(|k| !SET_OPTIONS.contains(&k.as_str())) {
        // An option of `open` (or the harness its `runtime` names) is known but fixed for the
        // agent's life: say so, not "unknown".
        if other == "harness" || OPEN_OPTIONS.contains(&other.as_str()) {
            return Err(invalid(format!(
                "`{other}` cannot be changed (only model and effort)"
            )));
        }
        return Err(unknown_option("agent.set(spec)", other, SET_OPTIONS));
    }
    let word = |field: &str| match map.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(Some(s.clone())),
        Some(other) => Err(invalid(format!(
            "{field} must be a non-empty string, not {other}"
        ))),
    };
    let settings = Settings {
        model: word("model")?,
        effort: word("effort")?,
    };
    if settings == Settings::default() {
        return Err(invalid("give a model or an effort to change".into()));
    }
    Ok(settings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_take_a_model_or_an_effort_and_nothing_else() {
        assert_eq!(
            read_settings(json!({"model": "m"})).unwrap(),
            Settings {
                model: Some("m".into()),
                effort: None
            }
        );
        let err = |v: Value| read_settings(v).unwrap_err().message;
        assert!(err(json!({})).contains("give a model or an effort"));
        assert!(err(json!({"harness": "codex"})).contains("`harness` cannot be changed"));
        let typo = read_settings(json!({"modle": "m"})).unwrap_err();
        assert!(typo
            .message
            .contains("agent.set(spec): unknown option `modle`"));
        assert!(typo.data.unwrap()["hint"]
            .as_str()
            .unwrap()
            .contains("did you mean `model`?"));
        assert!(err(json!({"effort": ""})).contains("effort must be a non-empty string"));
        assert!(err(json!("x")).contains("must be an object"));
    }
}
