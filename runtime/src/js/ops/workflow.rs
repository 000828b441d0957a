//! Ops of a run: what `wf` (the workflow context) asks of its run.

use std::rc::Rc;

use rquickjs::function::Rest;
use rquickjs::{Ctx, Value};

use super::{arg, type_error, Op, OpDecl};
use crate::js::convert;
use crate::js::engine::HostState;
use crate::workflow::Run;

pub const OPS: &[OpDecl] = &[
    OpDecl {
        name: "run_info",
        op: Op::Sync(run_info),
    },
    OpDecl {
        name: "run_log",
        op: Op::Sync(run_log),
    },
];

fn run_of<'js>(
    ctx: &Ctx<'js>,
    state: &Rc<HostState>,
    handle: &Value<'js>,
) -> rquickjs::Result<std::sync::Arc<Run>> {
    let handle = handle.as_number().unwrap_or(-1.0) as u64;
    state
        .run(handle)
        .ok_or_else(|| type_error(ctx, "this workflow context belongs to a run that has ended"))
}

/// `run_info(handle)`: the facts `wf` exposes: runId, workflow name, cwd, deadline.
fn run_info<'js>(
    ctx: &Ctx<'js>,
    state: &Rc<HostState>,
    args: Rest<Value<'js>>,
) -> rquickjs::Result<Value<'js>> {
    let run = run_of(ctx, state, &arg(ctx, &args, 0))?;
    let left = run
        .deadline
        .saturating_duration_since(std::time::Instant::now());
    let deadline_ms = crate::records::time::unix_millis(std::time::SystemTime::now() + left);
    let info = serde_json::json!({
        "runId": run.id,
        "workflow": run.workflow,
        "cwd": run.cwd.display().to_string(),
        "deadline": deadline_ms,
        "records": run.records.path().display().to_string(),
    });
    convert::to_js(ctx, &info)
}

/// `run_log(handle, message, fields?)`.
fn run_log<'js>(
    ctx: &Ctx<'js>,
    state: &Rc<HostState>,
    args: Rest<Value<'js>>,
) -> rquickjs::Result<Value<'js>> {
    let run = run_of(ctx, state, &arg(ctx, &args, 0))?;
    let message = convert::to_json_or_throw(ctx, &arg(ctx, &args, 1))?;
    let Some(message) = message.as_str() else {
        return Err(type_error(
            ctx,
            "wf.log(message, fields?): message must be a string",
        ));
    };
    let fields = arg(ctx, &args, 2);
    let fields = if fields.is_undefined() {
        None
    } else {
        match convert::to_json(&fields) {
            Ok(Some(serde_json::Value::Object(map))) => Some(serde_json::Value::Object(map)),
            Ok(_) => {
                return Err(type_error(
                    ctx,
                    "wf.log(message, fields?): fields must be an object",
                ))
            }
            Err(e) => {
                return Err(type_error(
                    ctx,
                    &format!("wf.log(message, fields?): fields must be JSON: {e}"),
                ))
            }
        }
    };
    run.log(message, fields);
    Ok(Value::new_undefined(ctx.clone()))
}
