//! A run's status, derived from its files and the live process, never stored: the highest
//! attempt's record says how it ended; without an ending, the attempt is `running` while the
//! awf it names (pid and start time) lives, and `interrupted` once it is gone. `awf runs` lists
//! every run under a cwd this way, and `awf run --continue` finds the run it continues here.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde_json::{json, Value};

use super::{run_files, time, RUNS_DIR};
use crate::usage::Usage;

/// What `awf runs` shows of one run.
#[derive(Clone, Debug, PartialEq)]
pub struct RunStatus {
    pub dir: PathBuf,
    pub workflow: String,
    pub id: String,
    /// The workflow file the run was started with.
    pub file: String,
    /// running, completed, failed, stopped, cancelled, timed-out, interrupted (or exited).
    pub status: String,
    pub attempts: u32,
    /// The stage started last, and how it stands (succeeded, failed, stopped, running, ...).
    pub stage: Option<(String, String)>,
    pub started_at: String,
    /// When the highest attempt started (the latest run is the one attempted last).
    pub attempted_at: String,
    /// The time the attempts took: those that ended, and the one running up to now.
    pub duration_ms: u64,
    /// The awf running it, while it runs.
    pub pid: Option<i32>,
    /// The reason of the last attempt's ending, when it has one.
    pub reason: Option<String>,
    /// A record of the run awf cannot read: the file and what is wrong with it. A run whose
    /// run.json or attempt records are broken is `unreadable`; one whose stage records are keeps
    /// its status but shows no stage.
    pub problem: Option<String>,
    /// The record the problem is about, when it names one.
    pub broken: Option<PathBuf>,
    /// What the agents of its ended attempts used, cost reported or estimated.
    pub usage: Usage,
    /// The budgets of the latest ended attempt that had any, against their spend, as its record
    /// holds them
    /// (`[{ of, words, budget, hard, spent, passed }]`; empty without budgets).
    pub budgets: Vec<Value>,
}

/// The status of a run whose records say nothing awf can use.
pub const UNREADABLE: &str = "unreadable";

impl RunStatus {
    /// Whether `awf run --continue` may start an attempt of it.
    pub fn can_continue(&self) -> bool {
        !matches!(self.status.as_str(), "running" | "completed" | UNREADABLE)
    }

    /// The command that continues the run from `cwd`, when it can be continued.
    pub fn continue_command(&self, cwd: &Path) -> Option<String> {
        if !self.can_continue() {
            return None;
        }
        let file = Path::new(&self.file);
        let shown = file.strip_prefix(cwd).unwrap_or(file).display().to_string();
        Some(format!(
            "awf run {} --continue {}",
            shell_word(&shown),
            shell_word(&self.id)
        ))
    }

    pub fn to_json(&self, cwd: &Path) -> Value {
        json!({
            "workflow": self.workflow,
            "runId": self.id,
            "status": self.status,
            "attempts": self.attempts,
            "stage": self.stage.as_ref().map(|(name, _)| name),
            "stageOutcome": self.stage.as_ref().map(|(_, outcome)| outcome),
            "startedAt": self.started_at,
            "durationMs": self.duration_ms,
            "file": self.file,
            "records": self.dir.display().to_string(),
            "pid": self.pid,
            "reason": self.reason,
            "continue": self.continue_command(cwd),
            "problem": self.problem,
            "usage": (!self.usage.is_empty()).then_some(self.usage),
            "budgets": (!self.budgets.is_empty()).then_some(&self.budgets),
        })
    }
}

/// `word` as one shell word: as it is when it needs no quoting, else in single quotes.
pub fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._/-+=:@".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// The status of the run in `dir`; `None` when `dir` holds no run (no run.json). A run whose
/// records cannot be read is `unreadable`, with the problem named, never left out.
pub fn status_of(dir: &Path) -> Option<RunStatus> {
    let run = match run_files::read(&dir.join("run.json")) {
        Ok(Some(run)) => run,
        Ok(None) => return None,
        Err(e) => return Some(unreadable(dir, &Value::Null, e)),
    };
    let attempts = match run_files::attempts(dir) {
        Ok(attempts) => attempts,
        Err(e) => return Some(unreadable(dir, &run, e)),
    };
    let now = time::unix_millis(SystemTime::now());
    let mut duration_ms = 0;
    let mut live = None;
    for attempt in &attempts {
        if run_files::has_ended(attempt) {
            duration_ms += attempt["durationMs"].as_u64().unwrap_or(0);
        } else if let Some(owner) = run_files::owner_of(attempt).filter(|o| o.alive()) {
            let started = attempt["startedAt"]
                .as_str()
                .and_then(time::parse_rfc3339)
                .unwrap_or(now);
            duration_ms += now.saturating_sub(started);
            live = Some(owner.pid);
        }
    }
    let last = attempts.last();
    let status = match last {
        Some(a) if run_files::has_ended(a) => a["outcome"].as_str().unwrap_or("failed").to_string(),
        Some(a) if run_files::owner_of(a).is_some_and(|o| o.alive()) => "running".to_string(),
        Some(_) => super::ending::INTERRUPTED.to_string(),
        // Records from before attempts: output.json says how the run ended.
        None => run_files::read(&dir.join("output.json"))
            .ok()
            .flatten()
            .and_then(|o| o["outcome"].as_str().map(str::to_string))
            .unwrap_or_else(|| super::ending::INTERRUPTED.to_string()),
    };
    let (stage, problem, broken) = match stage_reached(dir, live.is_some()) {
        Ok(stage) => (stage, None, None),
        Err(e) => (None, Some(e.to_string()), broken_path(&e)),
    };
    let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
    Some(RunStatus {
        dir: dir.to_path_buf(),
        workflow: text(&run["workflow"]),
        id: text(&run["runId"]),
        file: text(&run["file"]),
        status,
        attempts: attempts.len() as u32,
        stage,
        started_at: text(&run["startedAt"]),
        attempted_at: last
            .map(|a| text(&a["startedAt"]))
            .unwrap_or_else(|| text(&run["startedAt"])),
        duration_ms,
        pid: live,
        reason: last.and_then(|a| a["reason"].as_str().map(str::to_string)),
        problem,
        broken,
        usage: spent(&attempts),
        budgets: attempts
            .iter()
            .rev()
            .find_map(|a| a["budgets"].as_array().cloned())
            .unwrap_or_default(),
    })
}

/// What the agents of `attempts` used, added up over agents and attempts.
fn spent(attempts: &[Value]) -> Usage {
    let mut total = Usage::default();
    for usage in crate::usage::spent_by_agent(attempts).values() {
        total.add(usage);
    }
    total
}

fn broken_path(error: &std::io::Error) -> Option<PathBuf> {
    run_files::broken_record(error).map(|broken| broken.path.clone())
}

/// A run whose run.json (`run` is then null) or attempt records cannot be read: named by its
/// folder where run.json cannot say, with the problem.
fn unreadable(dir: &Path, run: &Value, error: std::io::Error) -> RunStatus {
    let named = |key: &str, folder: Option<&Path>| {
        run[key].as_str().map(str::to_string).unwrap_or_else(|| {
            folder
                .and_then(Path::file_name)
                .map(|name| name.to_string_lossy().into_owned())
                .unwrap_or_default()
        })
    };
    RunStatus {
        dir: dir.to_path_buf(),
        workflow: named("workflow", dir.parent()),
        id: named("runId", Some(dir)),
        file: named("file", None),
        status: UNREADABLE.to_string(),
        attempts: 0,
        stage: None,
        started_at: named("startedAt", None),
        // When it was last written to, for the latest run: its events were appended last.
        attempted_at: std::fs::metadata(dir.join("events.jsonl"))
            .and_then(|m| m.modified())
            .map(time::rfc3339)
            .unwrap_or_else(|_| named("startedAt", None)),
        duration_ms: 0,
        pid: None,
        reason: None,
        problem: Some(error.to_string()),
        broken: broken_path(&error),
        usage: Usage::default(),
        budgets: Vec::new(),
    }
}

/// The stage started last and how it stands; one without an ending is running while the run
/// is, and interrupted otherwise.
fn stage_reached(dir: &Path, live: bool) -> std::io::Result<Option<(String, String)>> {
    let stages = run_files::stages(dir)?;
    let Some(last) = stages.iter().max_by_key(|s| run_files::stage_start_key(s)) else {
        return Ok(None);
    };
    let outcome = match last["outcome"].as_str() {
        Some(outcome) => outcome.to_string(),
        None if live => "running".to_string(),
        None => super::ending::INTERRUPTED.to_string(),
    };
    Ok(last["stage"]
        .as_str()
        .map(|name| (name.to_string(), outcome)))
}

/// What to do about the broken record at `path` of the run in `dir` (`shown`: its workflow
/// file as the user names it); `None` when the error named no file.
pub fn repair_hint(dir: &Path, shown: &str, path: Option<&Path>) -> String {
    let start_new = format!("start a new run (`awf run {shown}`)");
    match path {
        Some(path) if path == dir.join("run.json") => format!(
            "a run without a readable run.json cannot be continued: {start_new}, and move {} out of .awf/runs to drop it from `awf runs`",
            shell_word(&dir.display().to_string())
        ),
        Some(path) => {
            let path_word = shell_word(&path.display().to_string());
            let moved = format!("move it away (`mv {path_word} {path_word}.broken`) and continue again");
            if path.starts_with(dir.join("stages")) && path != dir.join("stages") {
                format!("{moved}: its stage then runs again; or add --fresh-stages to run every stage again")
            } else {
                moved
            }
        }
        None => format!("fix what keeps awf from reading it, or {start_new}"),
    }
}

/// Every run under `<cwd>/.awf/runs`, the latest attempted first.
pub fn list(cwd: &Path) -> Vec<RunStatus> {
    let runs = cwd.join(RUNS_DIR);
    let Ok(workflows) = std::fs::read_dir(&runs) else {
        return Vec::new();
    };
    let mut found: Vec<RunStatus> = workflows
        .flatten()
        .filter_map(|w| std::fs::read_dir(w.path()).ok())
        .flat_map(|ids| ids.flatten().map(|e| e.path()))
        .filter_map(|dir| status_of(&dir))
        .collect();
    found.sort_by(|a, b| (&b.attempted_at, &b.id).cmp(&(&a.attempted_at, &a.id)));
    found
}

/// The run of `workflow` attempted last under `cwd`.
pub fn latest_of(cwd: &Path, workflow: &str) -> Option<RunStatus> {
    list(cwd).into_iter().find(|r| r.workflow == workflow)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::os::proc::Identity;
    use crate::records::run_files::{attempt_path, claim, replace, stage_path};

    fn run(name: &str) -> PathBuf {
        let cwd = std::env::temp_dir().join(format!("awf-status-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&cwd);
        let dir = cwd.join(RUNS_DIR).join("wf").join("r1");
        std::fs::create_dir_all(&dir).unwrap();
        replace(
            &dir.join("run.json"),
            &json!({"version": 1, "runId": "r1", "workflow": "wf", "file": cwd.join("wf.ts"), "startedAt": "2026-12-01T10:00:00.000Z"}),
        )
        .unwrap();
        dir
    }

    fn gone() -> Value {
        let me = Identity::current();
        json!({"pid": me.pid, "start": me.start + 1})
    }

    #[test]
    fn an_attempt_without_an_ending_is_running_while_its_awf_lives_then_interrupted() {
        let dir = run("live");
        let attempt = json!({"version": 1, "attempt": 1, "startedAt": "2026-12-01T10:00:00.000Z", "awf": run_files::me()});
        claim(&attempt_path(&dir, 1), &attempt).unwrap();
        replace(&stage_path(&dir, "plan"), &json!({"version": 1, "stage": "plan", "attempt": 1, "startedAt": "2026-12-01T10:00:01.000Z"})).unwrap();
        let status = status_of(&dir).unwrap();
        assert_eq!(status.status, "running");
        assert_eq!(status.stage, Some(("plan".into(), "running".into())));
        assert_eq!(status.pid, Some(std::process::id() as i32));
        assert_eq!(status.continue_command(Path::new("/")), None);

        let dead = json!({"version": 1, "attempt": 1, "startedAt": "2026-12-01T10:00:00.000Z", "awf": gone()});
        replace(&attempt_path(&dir, 1), &dead).unwrap();
        let status = status_of(&dir).unwrap();
        assert_eq!(status.status, "interrupted");
        assert_eq!(status.stage, Some(("plan".into(), "interrupted".into())));
        let cwd = dir.ancestors().nth(4).unwrap();
        assert_eq!(
            status.continue_command(cwd).as_deref(),
            Some("awf run wf.ts --continue r1")
        );
        std::fs::remove_dir_all(cwd).unwrap();
    }

    #[test]
    fn the_highest_attempt_decides_and_durations_add_up() {
        let dir = run("ended");
        for (n, outcome) in [(1, "failed"), (2, "completed")] {
            let record = json!({"version": 1, "attempt": n, "startedAt": format!("2026-12-01T10:0{n}:00.000Z"), "awf": gone(), "outcome": outcome, "durationMs": 1500});
            claim(&attempt_path(&dir, n), &record).unwrap();
        }
        let status = status_of(&dir).unwrap();
        assert_eq!(status.status, "completed");
        assert_eq!(status.attempts, 2);
        assert_eq!(status.duration_ms, 3000);
        assert_eq!(status.attempted_at, "2026-12-01T10:02:00.000Z");
        let cwd = dir.ancestors().nth(4).unwrap().to_path_buf();
        assert_eq!(list(&cwd).len(), 1);
        assert_eq!(latest_of(&cwd, "wf").unwrap().id, "r1");
        assert!(latest_of(&cwd, "other").is_none());
        std::fs::remove_dir_all(cwd).unwrap();
    }

    #[test]
    fn a_run_with_a_broken_record_is_listed_unreadable_naming_it() {
        let dir = run("broken");
        let cwd = dir.ancestors().nth(4).unwrap().to_path_buf();
        std::fs::write(dir.join("run.json"), "{\"version\": 1, \"runId").unwrap();
        let listed = list(&cwd);
        assert_eq!(listed.len(), 1, "a broken run is listed, not hidden");
        let status = &listed[0];
        assert_eq!(
            (
                status.workflow.as_str(),
                status.id.as_str(),
                status.status.as_str()
            ),
            ("wf", "r1", UNREADABLE)
        );
        assert!(status
            .problem
            .as_deref()
            .unwrap()
            .contains("run.json: is not a whole JSON record"));
        assert_eq!(
            status.broken.as_deref(),
            Some(dir.join("run.json").as_path())
        );
        assert_eq!(status.continue_command(&cwd), None);
        assert!(repair_hint(&dir, "wf.ts", status.broken.as_deref())
            .starts_with("a run without a readable run.json cannot be continued: start a new run (`awf run wf.ts`)"));

        replace(
            &dir.join("run.json"),
            &json!({"version": 1, "runId": "r1", "workflow": "wf", "file": cwd.join("wf.ts"), "startedAt": "2026-12-01T10:00:00.000Z"}),
        )
        .unwrap();
        std::fs::create_dir_all(dir.join("attempts")).unwrap();
        std::fs::write(attempt_path(&dir, 1), "{}").unwrap();
        let status = status_of(&dir).unwrap();
        assert_eq!(status.status, UNREADABLE);
        assert_eq!(status.broken, Some(attempt_path(&dir, 1)));
        assert!(
            repair_hint(&dir, "wf.ts", status.broken.as_deref()).starts_with("move it away (`mv ")
        );
        std::fs::remove_dir_all(cwd).unwrap();
    }

    #[test]
    fn words_that_need_quotes_get_them() {
        assert_eq!(shell_word("a b"), "'a b'");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
        assert_eq!(shell_word("dir/wf.ts"), "dir/wf.ts");
    }
}
