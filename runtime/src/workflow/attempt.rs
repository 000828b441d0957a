//! Which run an `awf run` is an attempt of, and the records that say so: a new run (its id from
//! `--id`, the workflow's `id(input)` or generated; its folder and `run.json` claimed so that one
//! id is one run), or `--continue [ID]`, a new attempt of a run under the cwd, refused when it
//! still runs, when it completed (unless stages are to be redone), when the command line asks
//! for another input or cwd, or when its workflow file is another. The attempt's own record,
//! `attempts/<n>.json`, is claimed here too, so two awfs cannot both start attempt n.

// A refusal is returned once per `awf run`, on its way to being printed: its size does not matter.
#![allow(clippy::result_large_err)]

use std::collections::HashMap;
use std::path::Path;
use std::time::SystemTime;

use serde_json::{json, Value};

use super::stages::StagePlan;
use crate::records::run_files::PriorSession;
use crate::records::{reader, run_files, status, time, RunDir};
use crate::sandbox::operator::OperatorSandbox;
use crate::upcall::JsError;

/// Which run `--continue` names.
#[derive(Clone, Debug, PartialEq)]
pub enum ContinueWhich {
    /// `--continue` alone: the run of this workflow attempted last under the cwd.
    Latest,
    Id(String),
}

/// The records an attempt writes into, and what it starts from.
pub struct AttemptStart {
    pub records: RunDir,
    pub run_id: String,
    pub attempt: u32,
    pub input: Value,
    pub plan: StagePlan,
    pub sessions: HashMap<String, PriorSession>,
    /// Files of the workflow that changed since the attempt before (a continue).
    pub changed: Option<(u32, Vec<String>)>,
    /// The attempt's own record, as claimed (`None` for a test's run).
    pub record: Option<Value>,
}

/// A refusal: what went wrong and what to do.
pub fn refused(message: String, hint: &str) -> JsError {
    JsError::message("AwfError", &message)
        .with_code("refused")
        .with_hint(hint)
}

/// Whether `id` may name a run: letters, digits, `.`, `_`, `-`; at most 128; no leading dot.
pub fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 128
        && !id.starts_with('.')
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// What an attempt's first record says, besides its number.
pub struct AttemptFacts<'a> {
    pub file: &'a Path,
    pub sources: &'a Value,
    pub timeout_ms: u64,
    pub from_stage: Option<&'a str>,
    pub fresh_stages: bool,
    /// The workflow's `meta.version`, recorded with the attempt and its stages.
    pub version: Option<&'a str>,
    /// `--agent-sandbox`, as its record (`OperatorSandbox::to_record`), recorded in the
    /// attempt's flags; a continue given none keeps the one its last attempt recorded.
    pub agent_sandbox: Option<&'a Value>,
}

/// A new run: claims its folder and `run.json`, then attempt 1.
pub fn new_run(
    cwd: &Path,
    workflow: &str,
    id: String,
    argv: &[String],
    input: Value,
    facts: &AttemptFacts<'_>,
) -> Result<AttemptStart, JsError> {
    let records = match RunDir::create(cwd, workflow, &id) {
        Ok(records) => records,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            let shown = shown_file(facts.file, cwd);
            return Err(refused(
                format!("a run with id {id} already exists under .awf/runs/{workflow}/"),
                &format!("continue it with `awf run {shown} --continue {id}`, or give the new run another --id"),
            ));
        }
        Err(e) => return Err(cannot_write(cwd, e)),
    };
    let run = json!({
        "version": run_files::VERSION,
        "runId": id,
        "workflow": workflow,
        "file": facts.file.display().to_string(),
        "cwd": cwd.display().to_string(),
        "argv": argv,
        "input": input,
        "startedAt": time::rfc3339(SystemTime::now()),
    });
    // The folder is this run's (made above, or refused): no other awf can claim the records in
    // it, so they go to disk while the run starts.
    records
        .claim_behind(records.path().join("run.json"), &run)
        .map_err(|e| cannot_write(cwd, e))?;
    let record = claim_attempt(&records, 1, facts, Claim::Behind)?;
    Ok(AttemptStart {
        records,
        run_id: id,
        attempt: 1,
        input,
        plan: StagePlan {
            from_stage: facts.from_stage.map(str::to_string),
            version: facts.version.map(str::to_string),
            ..StagePlan::default()
        },
        sessions: HashMap::new(),
        changed: None,
        record: Some(record),
    })
}

/// What `--continue` was given besides the run.
pub struct ContinueAsk<'a> {
    pub which: &'a ContinueWhich,
    pub words: &'a [String],
    /// `--cwd`, when it was given (resolved).
    pub cwd_given: bool,
}

/// A new attempt of a run under `cwd`.
pub fn continue_run(
    cwd: &Path,
    workflow: &str,
    ask: &ContinueAsk<'_>,
    facts: &AttemptFacts<'_>,
) -> Result<AttemptStart, JsError> {
    let shown = shown_file(facts.file, cwd);
    let found = match ask.which {
        ContinueWhich::Latest => status::latest_of(cwd, workflow).ok_or_else(|| {
            refused(
                format!(
                    "--continue: there is no run of workflow {workflow} under {}",
                    cwd.join(crate::records::RUNS_DIR).display()
                ),
                &format!("start one with `awf run {shown}`; `awf runs` lists the runs here"),
            )
        })?,
        ContinueWhich::Id(id) => {
            let dir = cwd.join(crate::records::RUNS_DIR).join(workflow).join(id);
            status::status_of(&dir).ok_or_else(|| {
                refused(
                    format!(
                        "--continue {id}: workflow {workflow} has no run {id} under {}",
                        cwd.join(crate::records::RUNS_DIR).display()
                    ),
                    "`awf runs` lists the runs here and the command that continues each",
                )
            })?
        }
    };
    let id = found.id.clone();
    if found.status == status::UNREADABLE {
        let problem = found.problem.clone().unwrap_or_default();
        return Err(refused(
            format!("--continue {id}: {problem}"),
            &status::repair_hint(&found.dir, &shown, found.broken.as_deref()),
        ));
    }
    if !ask.words.is_empty() {
        return Err(refused(
            format!("--continue {id}: a continued run keeps the input of its first attempt, so words after `--` are refused"),
            &format!("drop the words: `awf run {shown} --continue {id}`; for another input, start a new run"),
        ));
    }
    let unreadable = |e: std::io::Error| unreadable(&id, &found.dir, &shown, e);
    let run = run_files::read(&found.dir.join("run.json"))
        .map_err(unreadable)?
        .unwrap_or_default();
    let recorded_cwd = run["cwd"].as_str().unwrap_or_default();
    if recorded_cwd != cwd.display().to_string() {
        let hint = if ask.cwd_given {
            format!("run it where it works: --cwd {recorded_cwd}")
        } else {
            format!("its records were moved; continue it from {recorded_cwd}")
        };
        return Err(refused(
            format!(
                "--continue {id}: the run works in {recorded_cwd}, not {}",
                cwd.display()
            ),
            &hint,
        ));
    }
    let recorded_file = run["file"].as_str().unwrap_or_default();
    if recorded_file != facts.file.display().to_string() {
        let theirs = shown_file(Path::new(recorded_file), cwd);
        return Err(refused(
            format!("--continue {id}: the run was started with {theirs}, not {shown}"),
            &format!("continue it with its own file: `awf run {theirs} --continue {id}`"),
        ));
    }
    if found.status == "running" {
        let pid = found.pid.unwrap_or_default();
        return Err(refused(
            format!(
                "--continue {id}: the run is still running (awf pid {pid}, attempt {})",
                found.attempts
            ),
            &format!("wait for it to end, or stop it (`kill {pid}`), then continue it"),
        ));
    }
    // --fresh-stages reuses no stage, so it reads no stage record: a broken one is no obstacle.
    let mut plan = if facts.fresh_stages {
        StagePlan::default()
    } else {
        StagePlan::from_records(&found.dir).map_err(unreadable)?
    };
    if found.status == "completed" && facts.from_stage.is_none() && !facts.fresh_stages {
        let done = plan.succeeded().join(", ");
        return Err(refused(
            format!("--continue {id}: the run completed; there is nothing to go on with"),
            &if done.is_empty() {
                "to run it again, start a new run".to_string()
            } else {
                format!(
                    "to redo stages, add --from-stage STAGE (its stages: {done}) or --fresh-stages"
                )
            },
        ));
    }
    if let Some(stage) = facts.from_stage {
        if !plan.recorded.contains_key(stage) {
            let known: Vec<&str> = plan.recorded.keys().map(String::as_str).collect();
            return Err(refused(
                format!("--from-stage {stage}: run {id} has no record of a stage {stage}"),
                &if known.is_empty() {
                    "the run recorded no stages yet; continue it without --from-stage".to_string()
                } else {
                    format!("its stages: {}", known.join(", "))
                },
            ));
        }
    }
    plan.from_stage = facts.from_stage.map(str::to_string);
    plan.fresh = facts.fresh_stages;
    plan.version = facts.version.map(str::to_string);
    let attempts = run_files::attempts(&found.dir).map_err(unreadable)?;
    let before = attempts.last().cloned().unwrap_or_default();
    let (sessions, evented) = sessions_and_last_attempt(&found.dir);
    let attempt = run_files::next_attempt(&found.dir, &attempts).max(evented + 1);
    // This attempt's output.json will replace the last one's, which may be the only durable
    // record of how that attempt ended.
    run_files::make_ending_durable(&found.dir).map_err(|e| cannot_write(cwd, e))?;
    let records = RunDir::reopen(&found.dir).map_err(|e| cannot_write(cwd, e))?;
    let kept = before["flags"].get("agentSandbox").filter(|v| !v.is_null());
    let agent_sandbox = facts.agent_sandbox.or(kept);
    if let Some(recorded) = agent_sandbox {
        OperatorSandbox::from_record(recorded, cwd).map_err(|e| {
            refused(
                format!("--continue {id}: its last attempt ran under --agent-sandbox, whose record cannot be read: {e}"),
                &format!("give the sandbox again: `awf run {shown} --continue {id} --agent-sandbox FILE`"),
            )
        })?;
    }
    let facts = &AttemptFacts {
        agent_sandbox,
        ..*facts
    };
    let record = claim_attempt(&records, attempt, facts, Claim::Wait)?;
    let changed = before.get("sources").map(|old| {
        let number = before["attempt"].as_u64().unwrap_or_default() as u32;
        (number, super::sources::changes(old, facts.sources))
    });
    Ok(AttemptStart {
        sessions,
        records,
        run_id: id,
        attempt,
        input: run["input"].clone(),
        plan,
        changed,
        record: Some(record),
    })
}

/// Whether a claim is waited for: a continue's must be (another awf may start the same attempt
/// at the same moment); a new run's is in a folder no other awf can claim in.
enum Claim {
    Wait,
    Behind,
}

/// Claims `attempts/<n>.json`; the record it holds.
fn claim_attempt(
    records: &RunDir,
    attempt: u32,
    facts: &AttemptFacts<'_>,
    how: Claim,
) -> Result<Value, JsError> {
    records.set_attempt(attempt);
    let mut flags = json!({ "timeoutMs": facts.timeout_ms });
    if let Some(stage) = facts.from_stage {
        flags["fromStage"] = json!(stage);
    }
    if facts.fresh_stages {
        flags["freshStages"] = json!(true);
    }
    if let Some(sandbox) = facts.agent_sandbox {
        flags["agentSandbox"] = sandbox.clone();
    }
    let mut record = json!({
        "version": run_files::VERSION,
        "attempt": attempt,
        "file": facts.file.display().to_string(),
        "sources": facts.sources,
        "flags": flags,
        "awf": run_files::me(),
        "startedAt": time::rfc3339(SystemTime::now()),
    });
    if let Some(version) = facts.version {
        record["workflowVersion"] = json!(version);
    }
    let path = run_files::attempt_path(records.path(), attempt);
    let claimed = match how {
        Claim::Wait => records.claim(path.clone(), &record),
        Claim::Behind => records.claim_behind(path.clone(), &record),
    };
    match claimed {
        Ok(()) => Ok(record),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(refused(
            format!("attempt {attempt} of this run was started by another awf at the same moment"),
            "let that one run; `awf runs` shows it",
        )),
        Err(e) => Err(JsError::message(
            "AwfError",
            &format!("cannot write {}: {e}", path.display()),
        )
        .with_code(UNWRITABLE)),
    }
}

/// The native session each agent had last, from the run's events (every attempt's; a crash
/// leaves them too), and the highest attempt the events name (0 when none does).
pub fn sessions_and_last_attempt(dir: &Path) -> (HashMap<String, PriorSession>, u32) {
    let mut sessions = HashMap::new();
    let mut highest = 0;
    let _ = reader::each_event(&dir.join("events.jsonl"), |event| {
        let attempt = event["attempt"].as_u64().unwrap_or(1) as u32;
        highest = highest.max(event["attempt"].as_u64().unwrap_or(0) as u32);
        let kind = event["event"].as_str().unwrap_or_default();
        if kind == "agent-session" || kind == "agent-resumed" {
            let text = |name: &str| event[name].as_str().map(str::to_string);
            if let (Some(agent), Some(harness), Some(session)) =
                (text("agent"), text("harness"), text("session"))
            {
                let attempt = event["fromAttempt"].as_u64().map_or(attempt, |a| a as u32);
                sessions.insert(
                    agent,
                    PriorSession {
                        harness,
                        session,
                        attempt,
                    },
                );
            }
        }
        true
    });
    (sessions, highest)
}

fn shown_file(file: &Path, cwd: &Path) -> String {
    file.strip_prefix(cwd).unwrap_or(file).display().to_string()
}

/// The code of an error writing the records: the run fails (exit 1) rather than being refused.
pub const UNWRITABLE: &str = "records-unwritable";

fn cannot_write(cwd: &Path, e: std::io::Error) -> JsError {
    JsError::message(
        "AwfError",
        &format!(
            "cannot create the run folder under {}: {e}",
            cwd.join(crate::records::RUNS_DIR).display()
        ),
    )
    .with_code(UNWRITABLE)
}

/// A continue refused because a record of the run cannot be read: the file and what is wrong
/// with it, and what to do.
fn unreadable(id: &str, dir: &Path, shown: &str, e: std::io::Error) -> JsError {
    match run_files::broken_record(&e) {
        Some(broken) => refused(
            format!("--continue {id}: {broken}"),
            &status::repair_hint(dir, shown, Some(&broken.path)),
        ),
        None => refused(
            format!(
                "--continue {id}: cannot read the records in {}: {e}",
                dir.display()
            ),
            &status::repair_hint(dir, shown, None),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_ids_follow_the_rule() {
        for good in ["PROJ-123", "20261201-143000-abcd", "a.b_c"] {
            assert!(valid_id(good), "{good}");
        }
        for bad in ["", ".hidden", "a/b", "a b", &"x".repeat(129)] {
            assert!(!valid_id(bad), "{bad}");
        }
    }

    #[test]
    fn sessions_are_the_last_each_agent_had() {
        let dir = std::env::temp_dir().join(format!("awf-prior-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("events.jsonl"),
            concat!(
                r#"{"event":"agent-session","agent":"a","harness":"codex","session":"s1","attempt":1}"#, "\n",
                r#"{"event":"agent-session","agent":"a","harness":"codex","session":"s2","attempt":2}"#, "\n",
                r#"{"event":"agent-resumed","agent":"b","harness":"claude","session":"s3","fromAttempt":1,"attempt":2}"#, "\n",
            ),
        )
        .unwrap();
        let (sessions, highest) = sessions_and_last_attempt(&dir);
        assert_eq!(highest, 2);
        assert_eq!(sessions["a"].session, "s2");
        assert_eq!(sessions["a"].attempt, 2);
        assert_eq!(sessions["b"].attempt, 1);
        std::fs::remove_dir_all(dir).unwrap();
    }
}
