//! A run of a workflow file: load it, open its records, run it under its deadline, end it.
//!
//! `run_file` is what `awf run` does. The JS half (js/runner.ts) imports the file, checks its
//! default export, calls `prepare` and `run`; this half owns the run's lifecycle: the run folder
//! and its records, the run's deadline, Ctrl-C and SIGTERM, and the ending (exit.rs) that picks
//! the exit code. `Run` (run.rs) is the state one run's ops share.

pub mod exit;
pub mod run;
mod watch;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde_json::{json, Value};
use tracing::Instrument;

use crate::harness::RuntimeOverrides;
use crate::js::{CallEnd, ConsoleTarget, HostConfig, JsError, JsHost};
use crate::records::{time, Event};
pub use exit::Ending;
use run::{Run, RunMode, RunSpec};
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
}

impl RunReport {
    fn invalid(error: JsError) -> RunReport {
        RunReport {
            ending: Ending::Invalid,
            value: None,
            error: Some(error),
            record: None,
            run_dir: None,
        }
    }
}

/// Loads and runs a workflow file to its end.
pub async fn run_file(options: RunOptions) -> RunReport {
    let file = match std::fs::canonicalize(&options.file) {
        Ok(f) if f.is_file() => f,
        _ => {
            return RunReport::invalid(
                JsError::message("AwfError", &format!("no workflow file at {}", options.file.display()))
                    .with_hint("pass the path of a .ts or .js file whose default export is defineWorkflow({ ... })"),
            )
        }
    };
    let mut argv = vec!["awf".to_string(), file.display().to_string()];
    argv.extend(options.words.iter().cloned());
    let config = HostConfig {
        cwd: options.cwd.clone(),
        argv,
        console: ConsoleTarget::Stderr,
    };
    let mut host = match JsHost::new(config) {
        Ok(host) => host,
        Err(e) => return RunReport::invalid(e),
    };
    if let Some(permissions) = &options.permissions {
        crate::js::set_permissions(host.state(), permissions.clone());
    }
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
    let run = match Run::open(RunSpec {
        workflow: &name,
        file: &file,
        cwd: &options.cwd,
        argv: &options.words,
        timeout: options.timeout,
        overrides: options.overrides.clone(),
        js: host.requester(),
        mode: RunMode::Live {
            observer: options.observer.clone(),
        },
    }) {
        Ok(run) => Arc::new(run),
        Err(e) => {
            return RunReport {
                ending: Ending::Failed,
                value: None,
                error: Some(JsError::message(
                    "AwfError",
                    &format!(
                        "cannot create the run folder under {}: {e}",
                        options.cwd.join(crate::records::RUNS_DIR).display()
                    ),
                )),
                record: None,
                run_dir: None,
            }
        }
    };
    let handle = host.state().add_handle(run.clone());
    let args = json!({ "run": handle, "argv": options.words, "cwd": options.cwd.display().to_string(), "runId": run.id });
    let watch = RunWatch::start(run.deadline + DEADLINE_GRACE, host.interrupt_flag());
    let span = tracing::info_span!("run", id = %run.id, workflow = %run.workflow);
    let end = drive(&mut host, args, &watch)
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
    if options.process_exits_after {
        host.leak_engine_at_exit();
    }
    drop(host);
    span.in_scope(|| finish(&run, end))
}

async fn drive(host: &mut JsHost, args: Value, watch: &RunWatch) -> Result<CallEnd, Stop> {
    let end = tokio::select! {
        end = host.call("awf:runner", "runWorkflow", args) => end,
        stop = watch.stopped() => return Err(stop),
    };
    // Code that never yielded was interrupted by the watch: the watch says why.
    match (end, watch.stop()) {
        (CallEnd::Interrupted, Some(stop)) => Err(stop),
        (end, _) => Ok(end),
    }
}

fn finish(run: &Run, end: Result<CallEnd, Stop>) -> RunReport {
    let (ending, value, error) = match end {
        Ok(CallEnd::Returned(value)) => (Ending::Completed, value, None),
        // prepare() refused the command line (js/runner.ts): a usage error.
        Ok(CallEnd::Threw(error)) if error.code.as_deref() == Some("prepare-failed") => {
            (Ending::Invalid, None, Some(error))
        }
        Ok(CallEnd::Threw(error)) => (Ending::Failed, None, Some(error)),
        Ok(CallEnd::Exited(code)) => (Ending::Exited(code), None, None),
        Ok(CallEnd::Stalled) => (
            Ending::Failed,
            None,
            Some(JsError::message("AwfError", "run() can never finish: it awaits a promise that nothing will settle").with_code("stalled").with_hint("no timer, agent turn or I/O was pending; look for a promise that is never resolved, or an await on something that never happens")),
        ),
        Ok(CallEnd::Interrupted) | Err(Stop::Deadline) => (
            Ending::TimedOut,
            None,
            Some(JsError::message("AwfError", "the run's deadline passed before run() returned").with_code("timed-out").with_hint("give the run more time with `awf run --timeout 1h`, or shorten what it waits for")),
        ),
        Err(Stop::Signal(sig)) => (Ending::Cancelled(sig), None, None),
    };
    let ended = SystemTime::now();
    let reason = error.as_ref().map(|e| e.headline());
    let mut record = json!({
        "version": 1,
        "runId": run.id,
        "workflow": { "name": run.workflow, "file": run.file.display().to_string() },
        "cwd": run.cwd.display().to_string(),
        "outcome": ending.outcome(),
        "startedAt": time::rfc3339(run.started),
        "endedAt": time::rfc3339(ended),
        "durationMs": ended.duration_since(run.started).map(|d| d.as_millis() as u64).unwrap_or(0),
        "records": run.records.path().display().to_string(),
    });
    if ending == Ending::Completed {
        record["value"] = value.clone().unwrap_or(Value::Null);
    }
    if let Ending::Exited(code) = ending {
        record["exitCode"] = json!(code);
    }
    if let Some(usage) = run.agents.usage_json() {
        record["usage"] = usage;
    }
    let dropped = run.records.dropped_events();
    if dropped > 0 {
        record["eventsDropped"] = json!(dropped);
    }
    if let Some(error) = &error {
        record["reason"] = json!(error.headline());
        record["error"] = json!({ "name": error.name, "message": error.message, "stack": error.stack, "code": error.code });
    }
    if let Err(e) = run.records.write_json("output.json", &record) {
        tracing::error!(
            "cannot write {}: {e}",
            run.records.path().join("output.json").display()
        );
    }
    run.record(&Event::RunEnded {
        outcome: ending.outcome().to_string(),
        reason,
    });
    RunReport {
        ending,
        value,
        error,
        record: Some(record),
        run_dir: Some(run.records.path().to_path_buf()),
    }
}
