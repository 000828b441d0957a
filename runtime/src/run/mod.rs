//! The run driver: an attempt of a run of a workflow file, from starting its JS host to its
//! records' end, above the engine and the run's data.
//!
//! `start_host` and `run_started` are what `awf run` does. The JS half (js/runner.ts) imports
//! the file, checks its default export, calls `prepare` (and `id`) and `run`; this half owns the
//! attempt's lifecycle over the run's data (crate::workflow): which run it is an attempt of and
//! its records (workflow/attempt.rs), the source files it records, the deadline, Ctrl-C and
//! SIGTERM (watch.rs), and the ending (ending.rs) that writes output.json and picks the exit
//! code.

mod closing;
mod ending;
pub mod list;
mod watch;

use std::path::PathBuf;
use std::pin::pin;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde_json::{json, Value};
use tracing::Instrument;

use crate::harness::RuntimeOverrides;
use crate::js::{CallEnd, ConsoleTarget, HostConfig, JsError, JsHost};
use crate::limits::SIGNAL_ABORT_GRACE;
use crate::records::time;
use crate::sandbox::operator::OperatorSandbox;
use crate::workflow::attempt::{self, AttemptFacts, ContinueAsk};
use crate::workflow::run::{Run, RunMode, RunSpec};
use crate::workflow::sources;
pub use crate::workflow::{ContinueWhich, Ending};
use closing::Hooks;
pub use closing::{Closing, REPORT_FILE};
use watch::{RunWatch, Stop};

/// How long workflow code may still run after the run's deadline before it is stopped, so that
/// it can see its turns end `timed-out` and return what it has.
pub const DEADLINE_GRACE: Duration = Duration::from_secs(5);

/// What `awf run` was asked.
#[derive(Clone)]
pub struct RunOptions {
    pub file: PathBuf,
    pub cwd: PathBuf,
    /// The words after `--`.
    pub words: Vec<String>,
    pub timeout: Duration,
    /// Runtime names mapped to commands for this run (`--runtime NAME=COMMAND`).
    pub overrides: RuntimeOverrides,
    /// What workflow and handler code may touch through host APIs (`--sandbox`); `None`
    /// allows everything.
    pub permissions: Option<crate::js::Permissions>,
    /// Who watches the run as it happens (the live view), beside the records.
    pub observer: Option<std::sync::Arc<dyn crate::records::RunObserver>>,
    /// The process exits when the run returns (`awf run`): the JS engine's memory is left to
    /// the operating system rather than freed object by object.
    pub process_exits_after: bool,
    /// `--id`: the new run's id.
    pub id: Option<String>,
    /// `--continue [ID]`: a new attempt of a run under the cwd.
    pub continue_run: Option<ContinueWhich>,
    /// `--cwd` was given (a continue refuses one that is not the run's).
    pub cwd_given: bool,
    /// `--from-stage`: redo from this stage on.
    pub from_stage: Option<String>,
    /// `--fresh-stages`: reuse no stage.
    pub fresh_stages: bool,
    /// `--agent-sandbox FILE`, read: every agent runs in this sandbox.
    pub agent_sandbox: Option<OperatorSandbox>,
    /// `--budget-tokens`, `--budget-usd`: the run's budget, hard, over `wf.budget`'s.
    pub budget: Option<crate::budget::Budget>,
}

/// How a run ended, for the CLI to print.
#[derive(Debug)]
pub struct RunReport {
    pub ending: Ending,
    /// The workflow's result (completed runs).
    pub value: Option<Value>,
    pub error: Option<JsError>,
    /// output.json's content, when the run got as far as having a folder.
    pub record: Option<Value>,
    pub run_dir: Option<PathBuf>,
    /// What the workflow's `present` and `report` gave, or how they failed.
    pub closing: Closing,
}

impl RunReport {
    fn invalid(error: JsError) -> RunReport {
        RunReport {
            ending: Ending::Invalid,
            value: None,
            error: Some(error),
            record: None,
            run_dir: None,
            closing: Closing::default(),
        }
    }
}

/// A workflow file found and the JS host that will run it started: the first part of a run,
/// which needs no async runtime, so that `awf run` builds that runtime on another thread
/// meanwhile. `run_started` does the rest.
pub struct StartedHost {
    file: PathBuf,
    host: JsHost,
}

/// Finds the workflow file and starts its JS host (the globals installed, nothing of the file
/// loaded yet).
#[allow(clippy::result_large_err)] // returned once, on its way to being printed
pub fn start_host(options: &RunOptions) -> Result<StartedHost, RunReport> {
    let file = match std::fs::canonicalize(&options.file) {
        Ok(f) if f.is_file() => f,
        _ => {
            return Err(RunReport::invalid(
                JsError::message("AwfError", &format!("no workflow file at {}", options.file.display()))
                    .with_hint("pass the path of a .ts or .js file whose default export is defineWorkflow({ ... })"),
            ))
        }
    };
    let mut argv = vec!["awf".to_string(), file.display().to_string()];
    argv.extend(options.words.iter().cloned());
    let config = HostConfig {
        cwd: options.cwd.clone(),
        argv,
        console: ConsoleTarget::Stderr,
    };
    let host = JsHost::new(config).map_err(RunReport::invalid)?;
    if let Some(permissions) = &options.permissions {
        // The entry's folder is the workflow's own code: importable whatever --allow-read says.
        let code = file.parent().unwrap_or(&file);
        crate::js::set_permissions(host.state(), permissions.clone().with_code_in(code));
    }
    Ok(StartedHost { file, host })
}

/// Loads the workflow into its started host and runs it to its end.
pub async fn run_started(options: RunOptions, started: StartedHost) -> RunReport {
    let StartedHost { file, mut host } = started;
    let shown = file
        .strip_prefix(&options.cwd)
        .unwrap_or(&file)
        .display()
        .to_string();
    let load = json!({ "file": file.display().to_string(), "shown": shown });
    let meta = match host.call("awf:runner", "loadWorkflow", load).await {
        CallEnd::Returned(Some(meta)) => meta,
        CallEnd::Threw(e) => return RunReport::invalid(e),
        other => {
            return RunReport::invalid(JsError::internal(&format!(
                "loading the workflow ended with {other:?}"
            )))
        }
    };
    let name = meta["name"].as_str().unwrap_or_default().to_string();
    let hooks = Hooks::of(&meta);
    let sources = sources::hashes(&file, host.state().sources.borrow().files());
    let agent_sandbox = options
        .agent_sandbox
        .as_ref()
        .map(OperatorSandbox::to_record);
    let facts = AttemptFacts {
        file: &file,
        sources: &sources,
        timeout_ms: options.timeout.as_millis() as u64,
        from_stage: options.from_stage.as_deref(),
        fresh_stages: options.fresh_stages,
        version: meta["version"].as_str(),
        agent_sandbox: agent_sandbox.as_ref(),
    };
    let start = match &options.continue_run {
        Some(which) => {
            let ask = ContinueAsk {
                which,
                words: &options.words,
                cwd_given: options.cwd_given,
            };
            attempt::continue_run(&options.cwd, &name, &ask, &facts)
        }
        None => match new_run_input(&mut host, &options).await {
            Ok((input, derived)) => match run_id(options.id.as_deref(), derived) {
                Ok(id) => attempt::new_run(&options.cwd, &name, id, &options.words, input, &facts),
                Err(e) => Err(e),
            },
            Err(e) => Err(e),
        },
    };
    let start = match start {
        Ok(start) => start,
        Err(e) if e.code.as_deref() == Some(attempt::UNWRITABLE) => {
            return RunReport {
                ending: Ending::Failed,
                ..RunReport::invalid(e)
            }
        }
        Err(e) => return RunReport::invalid(e),
    };
    if let Some((since, changed)) = start.changed.as_ref().filter(|(_, c)| !c.is_empty()) {
        let reuse = if options.fresh_stages {
            "no stage is reused (--fresh-stages)"
        } else {
            "finished stages are still reused, their results checked again; --fresh-stages reuses none"
        };
        eprintln!(
            "awf: since attempt {since}, the workflow's files changed: {}; {reuse}",
            changed.join(", ")
        );
    }
    // The attempt's sandbox for every agent: --agent-sandbox's, or the one a continued run kept
    // (continue_run checked its record can be read).
    let agent_sandbox = match start.record.as_ref().map(|r| &r["flags"]["agentSandbox"]) {
        Some(recorded) if !recorded.is_null() => {
            match OperatorSandbox::from_record(recorded, &options.cwd) {
                Ok(operator) => Some(operator),
                Err(e) => {
                    return RunReport {
                        ending: Ending::Failed,
                        ..RunReport::invalid(JsError::message(
                            "AwfError",
                            &format!(
                                "--agent-sandbox: the attempt's record of it cannot be read: {e}"
                            ),
                        ))
                    }
                }
            }
        }
        _ => None,
    };
    let run = match Run::open(RunSpec {
        workflow: &name,
        file: &file,
        cwd: &options.cwd,
        argv: &options.words,
        timeout: options.timeout,
        overrides: options.overrides.clone(),
        upcall: Arc::new(host.requester()),
        mode: RunMode::Live {
            observer: options.observer.clone(),
            agent_sandbox: agent_sandbox.map(Box::new),
        },
        start,
    }) {
        Ok(run) => Arc::new(run),
        Err(e) => {
            return RunReport {
                ending: Ending::Failed,
                value: None,
                error: Some(JsError::message(
                    "AwfError",
                    &format!(
                        "cannot write the run's records under {}: {e}",
                        options.cwd.join(crate::records::RUNS_DIR).display()
                    ),
                )),
                record: None,
                run_dir: None,
                closing: Closing::default(),
            }
        }
    };
    if let Some(budget) = options.budget {
        if let Some(passed) = run.agents.link().budgets.operator(budget) {
            run.record(&crate::agents::passed_event(passed));
        }
    }
    let handle = host.state().add_handle(run.clone());
    let args = json!({ "run": handle, "input": run.input });
    let watch = RunWatch::start(run.deadline + DEADLINE_GRACE, host.interrupt_flag());
    let span = tracing::info_span!("run", id = %run.id, workflow = %run.workflow);
    let end = drive(&mut host, args, &watch, &run)
        .instrument(span.clone())
        .await;
    watch.code_done();
    async {
        // Turns the workflow left running end now; their agents' groups are killed. A signal
        // meanwhile exits at once (the watch).
        run.cancel();
        run.agents.settled().await;
        run.agents.shut_down();
    }
    .instrument(span.clone())
    .await;
    let settled = span.in_scope(|| ending::settle(&run, end));
    let closing = closing::close(&mut host, hooks, &settled.record, run.records.path())
        .instrument(span.clone())
        .await;
    if options.process_exits_after {
        host.leak_engine_at_exit();
    }
    drop(host);
    span.in_scope(|| ending::write(&run, settled, closing))
}

/// A new run's input (prepare's, or `{ argv }`) and the id the workflow's `id(input)` derives.
async fn new_run_input(
    host: &mut JsHost,
    options: &RunOptions,
) -> Result<(Value, Option<String>), JsError> {
    let ask = json!({ "argv": options.words, "cwd": options.cwd.display().to_string() });
    match host.call("awf:runner", "prepareInput", ask).await {
        CallEnd::Returned(Some(prepared)) => Ok((
            prepared["input"].clone(),
            prepared["id"].as_str().map(str::to_string),
        )),
        CallEnd::Threw(e) => Err(e),
        other => Err(JsError::internal(&format!(
            "preparing the input ended with {other:?}"
        ))),
    }
}

/// The new run's id: `--id`, else the workflow's `id(input)`, else a sortable generated one.
#[allow(clippy::result_large_err)] // returned once, on its way to being printed
fn run_id(given: Option<&str>, derived: Option<String>) -> Result<String, JsError> {
    let (id, from) = match (given, derived) {
        (Some(id), _) => (id.to_string(), "--id"),
        (None, Some(id)) => (id, "the workflow's id(input)"),
        (None, None) => return Ok(time::new_run_id(SystemTime::now())),
    };
    if attempt::valid_id(&id) {
        return Ok(id);
    }
    Err(attempt::refused(
        format!("{from} gave {}, which cannot name a run", serde_json::to_string(&id).unwrap_or_default()),
        "a run id is 1 to 128 letters, digits, '.', '_' or '-', not starting with '.' (e.g. PROJ-123)",
    ))
}

/// Runs the workflow's `run()` until it ends or the run is stopped from outside. On Ctrl-C or
/// SIGTERM the run is cancelled first, which aborts every running tool call's `call.signal`,
/// and the engine keeps running for `SIGNAL_ABORT_GRACE`, so the abort listeners run (and the
/// code awaiting the turns sees them end); then the watch stops whatever code still runs.
async fn drive(
    host: &mut JsHost,
    args: Value,
    watch: &RunWatch,
    run: &Run,
) -> Result<CallEnd, Stop> {
    let mut call = pin!(host.call("awf:runner", "runWorkflow", args));
    let stop = tokio::select! {
        end = &mut call => {
            // Code that never yielded was interrupted by the watch: the watch says why.
            return match (end, watch.stop()) {
                (CallEnd::Interrupted, Some(stop)) => Err(stop),
                (end, _) => Ok(end),
            };
        }
        stop = watch.stopped() => stop,
    };
    if let Stop::Signal(_) = stop {
        run.cancel();
        let _ = tokio::time::timeout(SIGNAL_ABORT_GRACE, &mut call).await;
    }
    Err(stop)
}
