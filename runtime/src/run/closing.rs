//! After an attempt's ending is known, the workflow's own words on it: `present(value, ending)`
//! (the text `awf run` prints for a completed attempt) and `report(value, ending)` (Markdown
//! written as `report.md` in the run folder, on every ending). Both run in the attempt's JS host
//! through js/runner.ts `endingHook`, each within `ENDING_HOOK_TIMEOUT`. A throw, a value that
//! is not a string or a hook that runs too long is an error reported beside the ending; it never
//! changes the ending nor its exit code.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

use serde_json::{json, Value};

use crate::js::{CallEnd, JsError, JsHost};
use crate::limits::ENDING_HOOK_TIMEOUT;
use crate::records::write_atomically;

/// The name of the report in the run folder.
pub const REPORT_FILE: &str = "report.md";

/// What the hooks gave.
#[derive(Debug, Default)]
pub struct Closing {
    /// `present`'s text (a completed attempt with a `present` that gave one).
    pub presented: Option<String>,
    /// Where `report`'s Markdown was written.
    pub report: Option<PathBuf>,
    /// What went wrong in either hook.
    pub errors: Vec<JsError>,
}

/// Which hooks the loaded workflow has (js/runner.ts `loadWorkflow`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Hooks {
    pub present: bool,
    pub report: bool,
}

impl Hooks {
    pub fn of(meta: &Value) -> Hooks {
        Hooks {
            present: meta["present"].as_bool().unwrap_or(false),
            report: meta["report"].as_bool().unwrap_or(false),
        }
    }
}

/// What `present` and `report` are given as `ending`, from the attempt's output record: its
/// kind, value (completed), reason and error, stage, stages, run id, attempt, duration, records
/// folder and usage.
pub fn ending_of(record: &Value) -> Value {
    let mut ending = json!({
        "kind": record["outcome"],
        "stages": record.get("stages").cloned().unwrap_or_else(|| json!([])),
        "runId": record["runId"],
        "attempt": record["attempt"],
        "durationMs": record["durationMs"],
        "records": record["records"],
    });
    if record["outcome"] == "completed" {
        ending["value"] = record.get("value").cloned().unwrap_or(Value::Null);
    }
    for key in ["reason", "stage", "usage"] {
        if let Some(value) = record.get(key) {
            ending[key] = value.clone();
        }
    }
    if let Some(error) = record.get("error") {
        let mut shown = json!({ "name": error["name"], "message": error["message"] });
        if let Some(code) = error.get("code").filter(|c| !c.is_null()) {
            shown["code"] = code.clone();
        }
        ending["error"] = shown;
    }
    ending
}

/// Runs the hooks the workflow has on the attempt's `record`; `report.md` is written into
/// `run_dir`, or a stale one from an earlier attempt removed when this one writes none.
pub async fn close(host: &mut JsHost, hooks: Hooks, record: &Value, run_dir: &Path) -> Closing {
    let mut closing = Closing::default();
    // `process.exit` ended the code: there is no engine left to ask.
    if record["outcome"] == "exited" {
        return closing;
    }
    let ending = ending_of(record);
    if hooks.present && record["outcome"] == "completed" {
        match call(host, "present", &ending).await {
            Ok(text) => closing.presented = text,
            Err(e) => closing.errors.push(e),
        }
    }
    let report_path = run_dir.join(REPORT_FILE);
    let report = if hooks.report {
        match call(host, "report", &ending).await {
            Ok(text) => text,
            Err(e) => {
                closing.errors.push(e);
                None
            }
        }
    } else {
        None
    };
    match report {
        Some(text) => match write_atomically(&report_path, text.as_bytes()) {
            Ok(()) => closing.report = Some(report_path),
            Err(e) => closing.errors.push(
                JsError::message(
                    "AwfError",
                    &format!("cannot write {}: {e}", report_path.display()),
                )
                .with_code("ending-hook-failed")
                .with_hint("the run folder must be writable; the report's text is lost"),
            ),
        },
        None => {
            let _ = std::fs::remove_file(&report_path);
        }
    }
    closing
}

/// One hook, with the engine's interrupt cleared (a deadline or Ctrl-C stopped the attempt's
/// code) and set again when the hook runs past `ENDING_HOOK_TIMEOUT`.
async fn call(host: &mut JsHost, hook: &str, ending: &Value) -> Result<Option<String>, JsError> {
    let interrupt = host.interrupt_flag();
    interrupt.store(false, Ordering::SeqCst);
    let stopping = interrupt.clone();
    let timer = tokio::spawn(async move {
        tokio::time::sleep(ENDING_HOOK_TIMEOUT).await;
        stopping.store(true, Ordering::SeqCst);
    });
    let end = host
        .call(
            "awf:runner",
            "endingHook",
            json!({ "hook": hook, "ending": ending }),
        )
        .await;
    timer.abort();
    match end {
        CallEnd::Returned(Some(Value::String(text))) => Ok(Some(text)),
        CallEnd::Returned(_) => Ok(None),
        CallEnd::Threw(e) => Err(e),
        CallEnd::Interrupted => Err(JsError::message(
            "AwfError",
            &format!(
                "{hook}(value, ending) still ran after {}s and was stopped",
                ENDING_HOOK_TIMEOUT.as_secs()
            ),
        )
        .with_code("ending-hook-failed")
        .with_hint(&format!("{hook} formats what the run already has: it should not wait on agents, timers or the network"))),
        CallEnd::Stalled => Err(JsError::message(
            "AwfError",
            &format!("{hook}(value, ending) awaits a promise that nothing will settle"),
        )
        .with_code("ending-hook-failed")
        .with_hint(&format!("{hook} may be async, but what it awaits must settle"))),
        CallEnd::Exited(code) => Err(JsError::message(
            "AwfError",
            &format!("{hook}(value, ending) called process.exit({code})"),
        )
        .with_code("ending-hook-failed")
        .with_hint(&format!("return {hook}'s text instead; the run's exit code is its ending's"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_completed_ending_carries_its_value_and_no_error() {
        let record = json!({
            "outcome": "completed", "value": { "n": 1 }, "runId": "r1", "attempt": 1,
            "durationMs": 5, "records": "/x", "usage": { "total": {} },
        });
        let ending = ending_of(&record);
        assert_eq!(ending["kind"], "completed");
        assert_eq!(ending["value"], json!({ "n": 1 }));
        assert_eq!(ending["stages"], json!([]));
        assert_eq!(ending["usage"], json!({ "total": {} }));
        assert!(ending.get("error").is_none());
    }

    #[test]
    fn a_failed_ending_carries_reason_stage_and_error_but_no_value() {
        let record = json!({
            "outcome": "failed", "value": 3, "runId": "r1", "attempt": 2, "durationMs": 5,
            "records": "/x", "reason": "boom", "stage": "plan",
            "stages": [{ "stage": "plan", "source": "ran", "outcome": "failed", "attempt": 2 }],
            "error": { "name": "Error", "message": "boom", "stack": "at x", "code": null },
        });
        let ending = ending_of(&record);
        assert_eq!(ending["kind"], "failed");
        assert!(ending.get("value").is_none());
        assert_eq!(ending["reason"], "boom");
        assert_eq!(ending["stage"], "plan");
        assert_eq!(
            ending["error"],
            json!({ "name": "Error", "message": "boom" })
        );
        assert_eq!(ending["stages"][0]["stage"], "plan");
    }
}
