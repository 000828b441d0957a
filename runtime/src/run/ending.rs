//! The records' end of an attempt: how its code ended becomes its `Ending` and output record
//! (`settle`); once the workflow's `present` and `report` have run on it (closing.rs), `write`
//! puts output.json, the attempt's record with its ending, and the last event (`run-ended`).

use std::time::SystemTime;

use serde_json::{json, Value};

use super::closing::Closing;
use super::watch::Stop;
use super::RunReport;
use crate::js::{CallEnd, JsError};
use crate::records::{run_files, time, Event};
use crate::workflow::run::Run;
use crate::workflow::Ending;

/// Writes the attempt's record again, whole, with its ending: after output.json, and not
/// flushed, since output.json holds the ending too (run_files.rs `attempts`).
fn end_attempt(run: &Run, output: &Value) {
    let Some(record) = run.attempt_record.clone() else {
        return;
    };
    let path = run_files::attempt_path(run.records.path(), run.attempt);
    if let Err(e) = run
        .records
        .copy_behind(path, &run_files::with_ending(record, output))
    {
        tracing::error!("cannot write the record of attempt {}: {e}", run.attempt);
    }
}

/// An attempt whose code has ended, its output record not yet written.
pub(super) struct Settled {
    ending: Ending,
    value: Option<Value>,
    error: Option<JsError>,
    reason: Option<String>,
    pub(super) record: Value,
}

/// How the attempt's code ended: its stages and worktrees closed, its output record made.
pub(super) fn settle(run: &Run, end: Result<CallEnd, Stop>) -> Settled {
    let (ending, value, error) = match end {
        Ok(CallEnd::Returned(value)) => (Ending::Completed, value, None),
        // prepare() refused the command line (js/runner.ts): a usage error.
        Ok(CallEnd::Threw(error)) if error.code.as_deref() == Some("prepare-failed") => {
            (Ending::Invalid, None, Some(error))
        }
        // wf.stop(reason) (js/workflow/stages.ts).
        Ok(CallEnd::Threw(error)) if error.code.as_deref() == Some("stopped") => {
            (Ending::Stopped, None, Some(error))
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
    // A stage cut off by the deadline, a signal or process.exit says how.
    run.stages.close_open(ending.outcome(), reason.clone());
    // Worktrees still open end with the run; `keep: "on-failure"` keeps them unless it completed.
    run.agents
        .end_worktrees(!matches!(ending, Ending::Completed | Ending::Exited(0)));
    let stage = run.stages.ended_in();
    let stages = run.stages.summaries();
    let mut record = json!({
        "version": 1,
        "runId": run.id,
        "attempt": run.attempt,
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
    if let Some(stage) = &stage {
        record["stage"] = json!(stage);
    }
    if !stages.is_empty() {
        record["stages"] = json!(stages);
    }
    if let Some(usage) = run.agents.usage_json() {
        record["usage"] = usage;
    }
    if let Some(budgets) = run.agents.budgets_json() {
        record["budgets"] = budgets;
    }
    let unreceived = run.report_unreceived();
    if unreceived > 0 {
        record["unreceivedMessages"] = json!(unreceived);
    }
    let dropped = run.records.dropped_events();
    if dropped > 0 {
        record["eventsDropped"] = json!(dropped);
    }
    if let Some(error) = &error {
        record["reason"] = json!(error.headline());
        record["error"] = json!({ "name": error.name, "message": error.message, "stack": error.stack, "code": error.code });
    }
    Settled {
        ending,
        value,
        error,
        reason,
        record,
    }
}

/// Writes the settled attempt's records, with what its `present` and `report` gave.
pub(super) fn write(run: &Run, settled: Settled, closing: Closing) -> RunReport {
    let Settled {
        ending,
        value,
        error,
        reason,
        mut record,
    } = settled;
    if let Some(report) = &closing.report {
        record["report"] = json!(report.display().to_string());
    }
    if !closing.errors.is_empty() {
        record["closingErrors"] = json!(closing
            .errors
            .iter()
            .map(|e| json!({ "message": e.headline(), "code": e.code, "stack": e.stack }))
            .collect::<Vec<_>>());
    }
    let output = run.records.path().join("output.json");
    if let Err(e) = run.records.replace_behind(output, &record) {
        tracing::error!("cannot write the run's output.json: {e}");
    }
    end_attempt(run, &record);
    // The run ends when its records are on disk.
    if let Err(e) = run.records.flush() {
        tracing::error!("cannot write the run's records: {e}");
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
        closing,
    }
}
