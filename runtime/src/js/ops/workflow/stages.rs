//! Ops of js/workflow/stages.ts: `wf.stage` asks its attempt's stages (workflow/stages.rs)
//! whether a stage is reused or runs, and records how it ended.

use std::rc::Rc;

use serde::Deserialize;
use serde_json::{json, Value};

use super::context::run_of;
use crate::js::engine::{sync_op, HostState, OpCode, OpDecl, OpError};
use crate::workflow::stages::Entered;

pub const OPS: &[OpDecl] = &[
    sync_op!(stage_enter),
    sync_op!(stage_decide),
    sync_op!(stage_end),
];

#[derive(Deserialize)]
struct StageEnter {
    run: f64,
    name: Value,
}

/// `stage_enter({ run, name })`: `{ reuse: true, value?, attempt }` for a recorded success (JS
/// checks its value, then `stage_decide`), or `{ reuse: false }`: the stage is open, its work
/// runs. A broken rule (the name, nesting, a second use) throws.
fn stage_enter(state: &Rc<HostState>, args: StageEnter) -> Result<Value, OpError> {
    let run = run_of(state, args.run)?;
    let Value::String(name) = args.name else {
        return Err(OpError::type_error(
            "wf.stage(name, work): name must be a string such as \"plan\"",
        ));
    };
    match run
        .stages
        .enter(&name)
        .map_err(|m| OpError::new(OpCode::InvalidStage, m))?
    {
        Entered::Candidate { value, attempt } => {
            let mut found =
                json!({ "reuse": true, "attempt": attempt, "hasValue": value.is_some() });
            if let Some(value) = value {
                found["value"] = value;
            }
            Ok(found)
        }
        Entered::Runs => Ok(json!({ "reuse": false })),
    }
}

#[derive(Deserialize)]
struct StageDecide {
    run: f64,
    name: String,
    problems: Vec<String>,
}

/// `stage_decide({ run, name, problems })`: true when the candidate is reused; false when its
/// problems make the stage run again (it is then open).
fn stage_decide(state: &Rc<HostState>, args: StageDecide) -> Result<bool, OpError> {
    let run = run_of(state, args.run)?;
    run.stages
        .decide(&args.name, &args.problems)
        .map_err(OpError::type_error)
}

#[derive(Deserialize)]
struct StageEnd {
    run: f64,
    name: String,
    outcome: String,
    value: Option<Value>,
    summary: Option<String>,
    reason: Option<String>,
}

/// `stage_end({ run, name, outcome, value?, summary?, reason? })`.
fn stage_end(state: &Rc<HostState>, args: StageEnd) -> Result<(), OpError> {
    let run = run_of(state, args.run)?;
    if !matches!(args.outcome.as_str(), "succeeded" | "failed" | "stopped") {
        return Err(OpError::internal(format!(
            "stage_end: unknown outcome {}",
            args.outcome
        )));
    }
    run.stages
        .end(
            &args.name,
            &args.outcome,
            args.value,
            args.summary,
            args.reason,
        )
        .map_err(OpError::type_error)
}
