//! The run `awf logs [RUN]` means: a folder path, a run id under `.awf/runs`, or the latest run;
//! the agents that run opened (to check `--agent`); and why there is none to show.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::records::RUNS_DIR;

/// The keys of the agents a run opened, in the order they opened (its `agent-opened` events).
pub fn agents_of(events: &Path) -> std::io::Result<Vec<String>> {
    let mut agents: Vec<String> = Vec::new();
    crate::records::reader::each_event(events, |event| {
        if event.get("event").and_then(Value::as_str) == Some("agent-opened") {
            if let Some(key) = event.get("agent").and_then(Value::as_str) {
                if !agents.iter().any(|a| a == key) {
                    agents.push(key.to_string());
                }
            }
        }
        true
    })?;
    Ok(agents)
}

/// Why `awf logs` found no run to show.
#[derive(Debug, thiserror::Error)]
pub enum LogsError {
    #[error("no run {run} under {}", runs.display())]
    NoSuchRun { run: String, runs: PathBuf },
    #[error("no runs under {}", runs.display())]
    NoRuns { runs: PathBuf },
    #[error("run {run} has no agent \"{agent}\"; {}", if .agents.is_empty() { "it opened none".to_string() } else { format!("its agents: {}", .agents.join(", ")) })]
    NoSuchAgent {
        run: String,
        agent: String,
        agents: Vec<String>,
    },
}

impl crate::hint::Hint for LogsError {
    fn hint(&self) -> Option<String> {
        Some(match self {
            LogsError::NoSuchRun { .. } => {
                "a run id is the name of a folder under .awf/runs/<workflow>/; `awf logs` alone shows the latest run".into()
            }
            LogsError::NoRuns { .. } => "`awf run` a workflow here first, or pass --cwd".into(),
            LogsError::NoSuchAgent { .. } => {
                "pass one of its agents' keys to --agent, or leave --agent out".into()
            }
        })
    }
}

/// The run folder `awf logs [RUN]` means: a folder path, a run id under `<cwd>/.awf/runs`, or
/// (none given) the latest run there.
pub fn find_run(cwd: &Path, run: Option<&str>) -> Result<PathBuf, LogsError> {
    let runs = cwd.join(RUNS_DIR);
    if let Some(run) = run {
        let as_path = cwd.join(run);
        if as_path.join("events.jsonl").is_file() {
            return Ok(as_path);
        }
        return all_runs(&runs)
            .into_iter()
            .find(|dir| dir.file_name().and_then(|n| n.to_str()) == Some(run))
            .ok_or_else(|| LogsError::NoSuchRun {
                run: run.to_string(),
                runs: runs.clone(),
            });
    }
    all_runs(&runs)
        .into_iter()
        .max_by_key(|dir| started(dir))
        .ok_or(LogsError::NoRuns { runs })
}

/// When a run started, for picking the latest: the time in its id (`20261129-183058-...`), then
/// its run.json's `startedAt` to the millisecond (two runs in one second), then its id.
fn started(dir: &Path) -> (String, String, String) {
    let id = dir
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("")
        .to_string();
    let id_time = id.get(..15).unwrap_or("").to_string();
    let started_at = std::fs::read_to_string(dir.join("run.json"))
        .ok()
        .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        .and_then(|run| run["startedAt"].as_str().map(str::to_string))
        .unwrap_or_default();
    (id_time, started_at, id)
}

/// Every `<workflow>/<run-id>` folder with an events file.
fn all_runs(runs: &Path) -> Vec<PathBuf> {
    let Ok(workflows) = std::fs::read_dir(runs) else {
        return Vec::new();
    };
    workflows
        .flatten()
        .filter_map(|w| std::fs::read_dir(w.path()).ok())
        .flat_map(|ids| ids.flatten().map(|e| e.path()))
        .filter(|dir| dir.join("events.jsonl").is_file())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_latest_run_is_the_latest_by_its_start_not_its_name() {
        let cwd = std::env::temp_dir().join(format!("awf-logs-latest-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&cwd);
        let run = |workflow: &str, id: &str, at: &str| {
            let dir = cwd.join(RUNS_DIR).join(workflow).join(id);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("events.jsonl"), "").unwrap();
            std::fs::write(dir.join("run.json"), json!({"startedAt": at}).to_string()).unwrap();
            dir
        };
        run("a", "20261129-183058-zzzz", "2026-11-29T18:30:58.100Z");
        let later = run("b", "20261129-183058-aaaa", "2026-11-29T18:30:58.900Z");
        run("c", "20261129-183057-zzzz", "2026-11-29T18:30:57.999Z");
        assert_eq!(find_run(&cwd, None).unwrap(), later);
        std::fs::remove_dir_all(cwd).unwrap();
    }
}
