//! Ops of `testWorkflow` (js/agentswf/testing.ts): a run whose agents are scripted, the real
//! socket exchange its scripts answer and call tools through, and the run's events as they come.

use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

use rquickjs::function::Rest;
use rquickjs::{Ctx, Value};
use serde_json::json;

use super::{arg, number, type_error, Op, OpDecl, OpError, OpFuture, OpValue};
use crate::channel::client;
use crate::channel::wire::Request;
use crate::harness::RuntimeOverrides;
use crate::js::convert;
use crate::js::engine::HostState;
use crate::paths::make_temp_dir;
use crate::workflow::{Run, RunMode, RunSpec};

pub const OPS: &[OpDecl] = &[
    OpDecl {
        name: "test_run_open",
        op: Op::Sync(test_run_open),
    },
    OpDecl {
        name: "test_run_close",
        op: Op::Async(test_run_close),
    },
    OpDecl {
        name: "test_exchange",
        op: Op::Async(test_exchange),
    },
    OpDecl {
        name: "run_events",
        op: Op::Sync(run_events),
    },
];

/// `test_run_open({ name, file, cwd, timeoutMs })`: a scripted run; `cwd` null means a new temp
/// folder, removed at the run's end (as are its records).
fn test_run_open<'js>(
    ctx: &Ctx<'js>,
    state: &Rc<HostState>,
    args: Rest<Value<'js>>,
) -> rquickjs::Result<Value<'js>> {
    let options = convert::to_json_or_throw(ctx, &arg(ctx, &args, 0))?;
    let name = options["name"].as_str().unwrap_or("workflow").to_string();
    let timeout = Duration::from_millis(options["timeoutMs"].as_u64().unwrap_or(30 * 60 * 1000));
    let io = |what: &str, e: std::io::Error| {
        type_error(ctx, &format!("testWorkflow: cannot {what}: {e}"))
    };
    let records_root = make_temp_dir(&std::env::temp_dir(), "awf-test-run-")
        .map_err(|e| io("make a folder for the run's records", e))?;
    let mut scratch = vec![records_root.clone()];
    let cwd = match options["cwd"].as_str() {
        Some(dir) => {
            let path = state.cwd().join(dir);
            std::fs::canonicalize(&path)
                .map_err(|e| io(&format!("use cwd {}", path.display()), e))?
        }
        None => {
            let dir = make_temp_dir(&std::env::temp_dir(), "awf-test-cwd-")
                .map_err(|e| io("make a temp cwd", e))?;
            scratch.push(dir.clone());
            dir
        }
    };
    let file = PathBuf::from(options["file"].as_str().unwrap_or(""));
    let run = Run::open(RunSpec {
        workflow: &name,
        file: &file,
        cwd: &cwd,
        argv: &[],
        timeout,
        overrides: RuntimeOverrides::default(),
        js: state.requester(),
        mode: RunMode::Scripted {
            records_root,
            scratch,
        },
    })
    .map_err(|e| io("open the run", e))?;
    let run = Arc::new(run);
    let handle = state.add_run(run.clone());
    convert::to_js(
        ctx,
        &json!({ "run": handle, "runId": run.id, "cwd": cwd.display().to_string() }),
    )
}

fn run_of(state: &HostState, handle: &serde_json::Value) -> Result<Arc<Run>, OpError> {
    handle
        .as_u64()
        .and_then(|h| state.run(h))
        .ok_or_else(|| OpError::new("run-ended", "this test run has ended"))
}

/// `test_run_close({ run })`: cancels what is left and cleans up.
fn test_run_close(
    state: &Rc<HostState>,
    args: serde_json::Value,
    _: Option<Vec<u8>>,
) -> Result<OpFuture, OpError> {
    let run = run_of(state, &args["run"])?;
    Ok(Box::pin(async move {
        run.close().await;
        Ok(OpValue::Undefined)
    }))
}

/// `test_exchange({ run, agent, request })`: one wire request on the agent's own socket, as
/// `wfa` would send it; resolves with the response.
fn test_exchange(
    state: &Rc<HostState>,
    args: serde_json::Value,
    _: Option<Vec<u8>>,
) -> Result<OpFuture, OpError> {
    let run = run_of(state, &args["run"])?;
    let key = args["agent"].as_str().unwrap_or_default();
    let agent = run
        .agents
        .get(key)
        .ok_or_else(|| OpError::new("unknown-agent", format!("no agent \"{key}\" in this run")))?;
    let socket = agent
        .socket_path()
        .ok_or_else(|| OpError::new("agent-closed", format!("agent \"{key}\" is closed")))?;
    let request: Request = serde_json::from_value(args["request"].clone())
        .map_err(|e| OpError::new("invalid-request", format!("not a wire request: {e}")))?;
    Ok(Box::pin(async move {
        let response = client::exchange(&socket, &request)
            .await
            .map_err(|e| OpError::new("unreachable", e))?;
        let json =
            serde_json::to_value(&response).map_err(|e| OpError::new("internal", e.to_string()))?;
        Ok(OpValue::Json(json))
    }))
}

/// `run_events(run, from)`: the run's events from index `from` (kept for scripted runs).
fn run_events<'js>(
    ctx: &Ctx<'js>,
    state: &Rc<HostState>,
    args: Rest<Value<'js>>,
) -> rquickjs::Result<Value<'js>> {
    let handle = number(&arg(ctx, &args, 0)) as u64;
    let from = number(&arg(ctx, &args, 1)) as usize;
    let run = state
        .run(handle)
        .ok_or_else(|| type_error(ctx, "this test run has ended"))?;
    convert::to_js(
        ctx,
        &serde_json::Value::Array(run.records.kept_events(from)),
    )
}
