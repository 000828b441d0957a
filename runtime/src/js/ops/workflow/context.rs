//! Ops of js/workflow/context.ts: what `wf` (the workflow context) asks of its run.

use std::rc::Rc;
use std::sync::Arc;

use serde::Deserialize;

use crate::js::engine::{sync_op, HostState, JsonCheck, OpDecl, OpError};
use crate::workflow::run::Run;

pub const OPS: &[OpDecl] = &[sync_op!(run_info), sync_op!(run_log)];

/// The run behind the handle JS holds.
pub fn run_of(state: &HostState, handle: f64) -> Result<Arc<Run>, OpError> {
    state
        .handle::<Arc<Run>>(handle as u64)
        .ok_or_else(|| OpError::type_error("this workflow context belongs to a run that has ended"))
}

/// `run_info(handle)`: the facts `wf` exposes: runId, attempt, workflow name, cwd, deadline.
fn run_info(state: &Rc<HostState>, handle: f64) -> Result<serde_json::Value, OpError> {
    let run = run_of(state, handle)?;
    let left = run
        .deadline
        .saturating_duration_since(std::time::Instant::now());
    let deadline_ms = crate::records::time::unix_millis(std::time::SystemTime::now() + left);
    Ok(serde_json::json!({
        "runId": run.id,
        "attempt": run.attempt,
        "workflow": run.workflow,
        "cwd": run.cwd.display().to_string(),
        "deadline": deadline_ms,
        "records": run.records.path().display().to_string(),
    }))
}

#[derive(Deserialize)]
struct RunLog(f64, JsonCheck, JsonCheck);

/// `run_log(handle, message, fields?)`.
fn run_log(state: &Rc<HostState>, RunLog(handle, message, fields): RunLog) -> Result<(), OpError> {
    let run = run_of(state, handle)?;
    let Ok(Some(serde_json::Value::String(message))) = message.0 else {
        return Err(OpError::type_error(
            "wf.log(message, fields?): message must be a string",
        ));
    };
    let fields = match fields.0 {
        Ok(None) => None,
        Ok(Some(serde_json::Value::Object(map))) => Some(serde_json::Value::Object(map)),
        Ok(Some(_)) => {
            return Err(OpError::type_error(
                "wf.log(message, fields?): fields must be an object",
            ))
        }
        Err(why) => {
            return Err(OpError::type_error(format!(
                "wf.log(message, fields?): fields must be JSON: {why}"
            )))
        }
    };
    run.log(&message, fields);
    Ok(())
}
