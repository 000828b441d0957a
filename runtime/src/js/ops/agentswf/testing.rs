//! Ops of js/agentswf/testing.ts (`testWorkflow`): a run whose agents are scripted, the real
//! socket exchange its scripts answer and call tools through, and the run's events as they come.

use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::json;

use super::scripted::Scripts;
use crate::channel::client;
use crate::channel::wire::Request;
use crate::harness::aliases::{self, Aliases};
use crate::harness::RuntimeOverrides;
use crate::js::engine::{async_op, sync_op, HostState, OpCode, OpDecl, OpError};
use crate::paths::make_temp_dir;
use crate::records::RunDir;
use crate::workflow::attempt::AttemptStart;
use crate::workflow::run::{Run, RunMode, RunSpec};
use crate::workflow::stages::{valid_name, StagePlan};

pub const OPS: &[OpDecl] = &[
    sync_op!(test_run_open),
    async_op!(test_run_close),
    async_op!(test_exchange),
    sync_op!(run_events),
];

/// What `testWorkflow` opens a run with.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TestRunOptions {
    name: Option<String>,
    file: Option<String>,
    cwd: Option<String>,
    timeout_ms: Option<f64>,
    /// Stage name to the value an earlier attempt recorded (`null`: a stage without a value):
    /// the run is a continue over these records.
    recorded: Option<serde_json::Map<String, serde_json::Value>>,
    from_stage: Option<String>,
    /// Runtime aliases of the test (`runtimes`): name to `{ runtime, model?, effort? }`.
    runtimes: Option<serde_json::Map<String, serde_json::Value>>,
}

/// `test_run_open({ name, file, cwd, timeoutMs, recorded, fromStage, runtimes })`: a scripted
/// run; `cwd` null means a new temp folder, removed at the run's end (as are its records). With
/// `recorded` or `fromStage` it is attempt 2 of a run whose attempt 1 recorded those stages as
/// succeeded. Its runtime aliases are the project's config file's (`./.awf/config.json` where
/// `awf test` runs; the user's own file is never read), then `runtimes`', which win.
fn test_run_open(
    state: &Rc<HostState>,
    options: TestRunOptions,
) -> Result<serde_json::Value, OpError> {
    let name = options.name.unwrap_or_else(|| "workflow".to_string());
    let mut aliases = aliases::load_project(&state.cwd()).map_err(|e| {
        OpError::type_error(format!(
            "testWorkflow: {e}\nhint: {}; a test reads the project's aliases from it",
            aliases::CONFIG_HINT
        ))
    })?;
    aliases.extend(test_aliases(options.runtimes.unwrap_or_default())?);
    let overrides = RuntimeOverrides {
        aliases,
        aliases_in_test: true,
        ..RuntimeOverrides::default()
    };
    let timeout = crate::duration::clamp_millis(options.timeout_ms.unwrap_or(1_800_000.0));
    let io = |what: &str, e: std::io::Error| {
        OpError::type_error(format!("testWorkflow: cannot {what}: {e}"))
    };
    let records_root = make_temp_dir(&std::env::temp_dir(), "awf-test-run-")
        .map_err(|e| io("make a folder for the run's records", e))?;
    let mut scratch = vec![records_root.clone()];
    let cwd = match options.cwd.as_deref() {
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
    let file = PathBuf::from(options.file.unwrap_or_default());
    let continued = options.recorded.is_some() || options.from_stage.is_some();
    let mut plan = StagePlan {
        from_stage: options.from_stage,
        ..StagePlan::default()
    };
    for (stage, value) in options.recorded.unwrap_or_default() {
        if !valid_name(&stage) {
            return Err(OpError::type_error(format!(
                "testWorkflow: recorded names a stage {stage:?}; stage names are lowercase letters, digits and '-', starting with a letter"
            )));
        }
        let mut record = json!({ "stage": stage, "attempt": 1, "outcome": "succeeded" });
        if !value.is_null() {
            record["value"] = value;
        }
        plan.recorded.insert(stage, record);
    }
    let id = crate::records::time::new_run_id(std::time::SystemTime::now());
    let records = RunDir::create(&records_root, &name, &id)
        .map_err(|e| io("make a folder for the run's records", e))?;
    let attempt = if continued { 2 } else { 1 };
    records.set_attempt(attempt);
    let start = AttemptStart {
        records,
        run_id: id.clone(),
        attempt,
        input: serde_json::Value::Null,
        plan,
        sessions: Default::default(),
        changed: None,
        record: None,
    };
    let run = Run::open(RunSpec {
        workflow: &name,
        file: &file,
        cwd: &cwd,
        argv: &[],
        timeout,
        overrides,
        upcall: Arc::new(state.requester()),
        mode: RunMode::Scripted {
            scripts: Arc::new(Scripts {
                workflow: Arc::new(state.requester()),
                run_id: id,
            }),
            scratch,
        },
        start,
    })
    .map_err(|e| io("open the run", e))?;
    let run = Arc::new(run);
    let handle = state.add_handle(run.clone());
    Ok(
        json!({ "run": handle, "runId": run.id, "cwd": cwd.display().to_string(), "attempt": run.attempt }),
    )
}

/// The aliases of a test's `runtimes` option, each checked as a config file's alias is.
fn test_aliases(runtimes: serde_json::Map<String, serde_json::Value>) -> Result<Aliases, OpError> {
    let from = PathBuf::from("testWorkflow's runtimes option");
    let mut aliases = Aliases::new();
    for (name, spec) in runtimes {
        let alias = aliases::alias(&spec, &from).map_err(|why| {
            OpError::type_error(format!(
                "testWorkflow: runtimes.{name} {why}; e.g. {{ runtime: \"claude\", model: \"haiku\", effort: \"low\" }}"
            ))
        })?;
        aliases.insert(name, alias);
    }
    Ok(aliases)
}

fn run_of(state: &HostState, handle: u64) -> Result<Arc<Run>, OpError> {
    state
        .handle::<Arc<Run>>(handle)
        .ok_or_else(|| OpError::new(OpCode::RunEnded, "this test run has ended"))
}

#[derive(Deserialize)]
struct RunRef {
    run: u64,
}

/// `test_run_close({ run })`: cancels what is left and cleans up.
fn test_run_close(
    state: &Rc<HostState>,
    RunRef { run }: RunRef,
) -> Result<impl std::future::Future<Output = Result<(), OpError>>, OpError> {
    let run = run_of(state, run)?;
    Ok(async move {
        run.close().await;
        Ok(())
    })
}

#[derive(Deserialize)]
struct TestExchange {
    run: u64,
    agent: String,
    request: serde_json::Value,
}

/// `test_exchange({ run, agent, request })`: one wire request on the agent's own socket, as
/// `wfa` would send it; resolves with the response.
fn test_exchange(
    state: &Rc<HostState>,
    args: TestExchange,
) -> Result<impl std::future::Future<Output = Result<serde_json::Value, OpError>>, OpError> {
    let run = run_of(state, args.run)?;
    let key = args.agent.as_str();
    let agent = run.agents.get(key).ok_or_else(|| {
        OpError::new(
            OpCode::UnknownAgent,
            format!("no agent \"{key}\" in this run"),
        )
    })?;
    let socket = agent
        .socket_path()
        .ok_or_else(|| OpError::new(OpCode::AgentClosed, format!("agent \"{key}\" is closed")))?;
    let request: Request = serde_json::from_value(args.request)
        .map_err(|e| OpError::new(OpCode::InvalidRequest, format!("not a wire request: {e}")))?;
    Ok(async move {
        let response = client::exchange(&socket, &request)
            .await
            .map_err(|e| OpError::new(OpCode::Unreachable, e.to_string()))?;
        serde_json::to_value(&response).map_err(|e| OpError::internal(e.to_string()))
    })
}

#[derive(Deserialize)]
struct RunEvents(u64, usize);

/// `run_events(run, from)`: the run's events from index `from` (kept for scripted runs).
fn run_events(
    state: &Rc<HostState>,
    RunEvents(handle, from): RunEvents,
) -> Result<serde_json::Value, OpError> {
    let run = state
        .handle::<Arc<Run>>(handle)
        .ok_or_else(|| OpError::type_error("this test run has ended"))?;
    Ok(serde_json::Value::Array(run.records.kept_events(from)))
}
