//! `wf.stage`: which stages an attempt reuses and which it runs, and their records.
//!
//! An attempt starts with a `StagePlan`: the stages earlier attempts recorded (or, in a test,
//! the `recorded` values), `--from-stage` and `--fresh-stages`. While it is *reusing*, a stage
//! with a succeeded record is a candidate: JS checks the recorded value against the stage's
//! `result` schema (`decide`), and a value that fits is returned without calling the stage's
//! work. The first stage without a success, the `--from-stage` stage, or a value that no longer
//! fits, ends reusing: from there on every stage runs. A stage that runs moves its old record to
//! `replaced/`, writes `stages/<name>.json` when it starts and again, whole, when it ends (a
//! succeeded stage's durably before the workflow goes on).
//!
//! Names match `^[a-z][a-z0-9-]*$`, each at most once per attempt; stages do not nest and two
//! do not run at once.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use serde_json::{json, Value};

use crate::records::{run_files, time, Event, RunDir};

/// What an attempt starts with.
#[derive(Debug, Default, Clone)]
pub struct StagePlan {
    /// Every stage record of the run, by name (succeeded or not).
    pub recorded: BTreeMap<String, Value>,
    /// `--from-stage`: reuse stops here.
    pub from_stage: Option<String>,
    /// `--fresh-stages`: reuse nothing.
    pub fresh: bool,
    /// The workflow's `meta.version` now: a stage recorded under an incompatible one is not
    /// reused (`compatible`).
    pub version: Option<String>,
}

impl StagePlan {
    /// The plan of a continued run: its stage records on disk.
    pub fn from_records(dir: &std::path::Path) -> std::io::Result<StagePlan> {
        let recorded = run_files::stages(dir)?
            .into_iter()
            .filter_map(|r| Some((r["stage"].as_str()?.to_string(), r)))
            .collect();
        Ok(StagePlan {
            recorded,
            ..StagePlan::default()
        })
    }

    /// The stages that succeeded, in the order they started.
    pub fn succeeded(&self) -> Vec<&str> {
        let mut done: Vec<(&str, &Value)> = self
            .recorded
            .iter()
            .filter(|(_, r)| r["outcome"] == "succeeded")
            .map(|(name, r)| (name.as_str(), r))
            .collect();
        done.sort_by_key(|(_, r)| run_files::stage_start_key(r));
        done.into_iter().map(|(name, _)| name).collect()
    }
}

/// What `enter` found for a stage.
#[derive(Debug, PartialEq)]
pub enum Entered {
    /// A recorded success: reuse it if its value still fits (`decide`).
    Candidate { value: Option<Value>, attempt: u32 },
    /// The stage runs: call its work, then `end`.
    Runs,
}

/// One attempt's stages.
pub struct Stages {
    records: Arc<RunDir>,
    attempt: u32,
    plan: StagePlan,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    reusing: bool,
    seen: BTreeSet<String>,
    /// A candidate waiting for `decide`.
    pending: Option<String>,
    open: Option<Open>,
    /// What the attempt did with each stage, in order: for the attempt's record.
    summaries: Vec<Value>,
    /// The stage the attempt failed or stopped in.
    ended_in: Option<String>,
    /// How many stages the attempt started (each record's `order`).
    started: u64,
}

struct Open {
    name: String,
    order: u64,
    started: SystemTime,
    started_at: String,
}

/// Why a stage recorded under `meta.version` `recorded` may not be reused by a workflow now at
/// `now`: another major version, or another minor under 0.x (semver's rule for what may break).
/// A side without a version guards nothing.
pub fn version_change(recorded: Option<&str>, now: Option<&str>) -> Option<String> {
    let (recorded, now) = (recorded?, now?);
    let parts = |v: &str| -> Option<(u64, u64)> {
        let mut numbers = v.split(['.', '-', '+']);
        Some((numbers.next()?.parse().ok()?, numbers.next()?.parse().ok()?))
    };
    let (old, new) = (parts(recorded)?, parts(now)?);
    let breaking = old.0 != new.0 || (old.0 == 0 && old.1 != new.1);
    breaking.then(|| {
        format!("under meta.version {recorded}, and the workflow is now {now}: a stage's result from another major version (another minor under 0.x) is not reused")
    })
}

/// Whether `name` may name a stage.
pub fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

impl Stages {
    pub fn new(records: Arc<RunDir>, attempt: u32, plan: StagePlan) -> Stages {
        let state = State {
            reusing: !plan.fresh,
            ..State::default()
        };
        Stages {
            records,
            attempt,
            plan,
            state: Mutex::new(state),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `wf.stage(name, ...)` begins: checks the name and the rules, then says whether a recorded
    /// success may be reused or the stage runs (it is then open).
    pub fn enter(&self, name: &str) -> Result<Entered, String> {
        if !valid_name(name) {
            return Err(format!(
                "wf.stage: {} is not a stage name; use lowercase letters, digits and '-', starting with a letter (e.g. \"plan\", \"fix-tests\")",
                serde_json::to_string(name).unwrap_or_default()
            ));
        }
        let mut state = self.state();
        if let Some(open) = &state.open {
            return Err(format!(
                "wf.stage(\"{name}\") began while stage \"{}\" runs: stages do not nest, and two do not run at once; put the parallel work inside one stage",
                open.name
            ));
        }
        if let Some(pending) = &state.pending {
            return Err(format!(
                "wf.stage(\"{name}\") began while stage \"{pending}\" was being checked for reuse"
            ));
        }
        if !state.seen.insert(name.to_string()) {
            return Err(format!(
                "wf.stage(\"{name}\") ran twice in one attempt: each stage name is used once; give the second one its own name"
            ));
        }
        if state.reusing && self.plan.from_stage.as_deref() == Some(name) {
            state.reusing = false;
        }
        if state.reusing {
            if let Some(record) = self
                .plan
                .recorded
                .get(name)
                .filter(|r| r["outcome"] == "succeeded")
            {
                let recorded = record["workflowVersion"].as_str();
                if let Some(because) = version_change(recorded, self.plan.version.as_deref()) {
                    state.reusing = false;
                    let attempt = record["attempt"].as_u64().unwrap_or(1);
                    self.start(
                        &mut state,
                        name,
                        Some(format!("attempt {attempt} recorded it {because}")),
                    );
                    return Ok(Entered::Runs);
                }
                state.pending = Some(name.to_string());
                return Ok(Entered::Candidate {
                    value: record.get("value").cloned(),
                    attempt: record["attempt"].as_u64().unwrap_or(1) as u32,
                });
            }
            state.reusing = false;
        }
        self.start(&mut state, name, None);
        Ok(Entered::Runs)
    }

    /// After a `Candidate`: reuse it (`problems` empty; true) or, with the problems its recorded
    /// value has against the stage's schema, run the stage again from here on (false).
    pub fn decide(&self, name: &str, problems: &[String]) -> Result<bool, String> {
        let mut state = self.state();
        if state.pending.as_deref() != Some(name) {
            return Err(format!("wf.stage(\"{name}\"): no reuse was being decided"));
        }
        state.pending = None;
        let attempt = self.plan.recorded[name]["attempt"].as_u64().unwrap_or(1) as u32;
        if problems.is_empty() {
            state.summaries.push(json!({
                "stage": name, "source": "reused", "outcome": "succeeded", "attempt": attempt,
            }));
            drop(state);
            let summary = self.plan.recorded[name]["summary"]
                .as_str()
                .map(str::to_string);
            self.record(&Event::StageReused {
                stage: name.to_string(),
                from_attempt: attempt,
                summary,
            });
            return Ok(true);
        }
        state.reusing = false;
        let because = format!(
            "the value attempt {attempt} recorded no longer fits the stage's result schema: {}",
            problems.join("; ")
        );
        self.start(&mut state, name, Some(because));
        Ok(false)
    }

    fn start(&self, state: &mut State, name: &str, because: Option<String>) {
        let started = SystemTime::now();
        let started_at = time::rfc3339(started);
        let dir = self.records.path();
        // An earlier attempt's record of the stage is kept, moved aside.
        self.records.move_aside_behind(
            run_files::stage_path(dir, name),
            run_files::replaced_stage_path(dir, name, self.attempt),
        );
        state.started += 1;
        let order = state.started;
        let mut record = json!({
            "version": run_files::VERSION,
            "stage": name,
            "attempt": self.attempt,
            "order": order,
            "startedAt": started_at,
        });
        if let Some(version) = &self.plan.version {
            record["workflowVersion"] = json!(version);
        }
        if let Err(e) = self
            .records
            .replace_behind(run_files::stage_path(dir, name), &record)
        {
            tracing::warn!("cannot write the record of stage {name}: {e}");
        }
        state.open = Some(Open {
            name: name.to_string(),
            order,
            started,
            started_at,
        });
        self.records.set_stage(Some(name));
        self.record(&Event::StageStarted {
            stage: name.to_string(),
            because,
        });
    }

    /// The open stage `name` ended: `succeeded` (with its value, if it has a result schema, and
    /// its summary), `failed` or `stopped` (with the reason).
    pub fn end(
        &self,
        name: &str,
        outcome: &str,
        value: Option<Value>,
        summary: Option<String>,
        reason: Option<String>,
    ) -> Result<(), String> {
        let mut state = self.state();
        let open = match state.open.take() {
            Some(open) if open.name == name => open,
            other => {
                state.open = other;
                return Err(format!("wf.stage(\"{name}\") is not the stage open now"));
            }
        };
        self.close(&mut state, open, outcome, value, summary, reason);
        Ok(())
    }

    /// The attempt ends with a stage still open (cancelled, timed out, `process.exit`): its
    /// record says so.
    pub fn close_open(&self, outcome: &str, reason: Option<String>) {
        let mut state = self.state();
        if let Some(open) = state.open.take() {
            self.close(&mut state, open, outcome, None, None, reason);
        }
    }

    fn close(
        &self,
        state: &mut State,
        open: Open,
        outcome: &str,
        value: Option<Value>,
        summary: Option<String>,
        reason: Option<String>,
    ) {
        let ended = SystemTime::now();
        let duration_ms = ended
            .duration_since(open.started)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(0);
        let (sessions, turns) = self.records.stage_activity();
        let mut record = json!({
            "version": run_files::VERSION,
            "stage": open.name,
            "attempt": self.attempt,
            "order": open.order,
            "outcome": outcome,
            "startedAt": open.started_at,
            "endedAt": time::rfc3339(ended),
            "durationMs": duration_ms,
            "sessions": sessions,
            "turns": turns,
        });
        if let Some(version) = &self.plan.version {
            record["workflowVersion"] = json!(version);
        }
        if let Some(value) = value {
            record["value"] = value;
        }
        if let Some(summary) = &summary {
            record["summary"] = json!(summary);
        }
        if let Some(reason) = &reason {
            record["reason"] = json!(reason);
        }
        let path = run_files::stage_path(self.records.path(), &open.name);
        // A succeeded stage is on disk before the workflow goes on (and before its
        // `stage-ended` line): a continue after `kill -9` reuses it rather than running it again.
        let written = self.records.replace_behind(path, &record).and_then(|()| {
            if outcome == "succeeded" {
                self.records.flush()
            } else {
                Ok(())
            }
        });
        if let Err(e) = written {
            tracing::error!("cannot write the record of stage {}: {e}", open.name);
        }
        state.summaries.push(json!({
            "stage": open.name, "source": "ran", "outcome": outcome, "attempt": self.attempt,
        }));
        if outcome != "succeeded" {
            state.ended_in = Some(open.name.clone());
        }
        self.record(&Event::StageEnded {
            stage: open.name.clone(),
            outcome: outcome.to_string(),
            reason,
            summary,
            duration_ms,
        });
        self.records.set_stage(None);
    }

    /// What the attempt did with each stage, in order.
    pub fn summaries(&self) -> Vec<Value> {
        self.state().summaries.clone()
    }

    /// The stage the attempt failed, stopped or was cut off in.
    pub fn ended_in(&self) -> Option<String> {
        self.state().ended_in.clone()
    }

    pub fn attempt(&self) -> u32 {
        self.attempt
    }

    fn record(&self, event: &Event) {
        if let Err(e) = self.records.append(event) {
            tracing::warn!("cannot append to the run's events: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn another_major_or_a_0x_minor_is_a_version_change() {
        assert!(version_change(Some("1.2.0"), Some("2.0.0")).is_some());
        assert!(version_change(Some("0.3.1"), Some("0.4.0")).is_some());
        assert!(version_change(Some("1.2.0"), Some("1.9.3-rc.1")).is_none());
        assert!(version_change(Some("0.3.1"), Some("0.3.7")).is_none());
        // A side without a version guards nothing.
        assert!(version_change(None, Some("2.0.0")).is_none());
        assert!(version_change(Some("1.0.0"), None).is_none());
        let because = version_change(Some("1.4.0"), Some("2.0.0")).unwrap();
        assert!(
            because.contains("under meta.version 1.4.0, and the workflow is now 2.0.0"),
            "{because}"
        );
    }

    fn book(name: &str, plan: StagePlan) -> (Stages, std::path::PathBuf) {
        let cwd = std::env::temp_dir().join(format!("awf-stages-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&cwd);
        std::fs::create_dir_all(&cwd).unwrap();
        let records = Arc::new(RunDir::create(&cwd, "wf", "r1").unwrap());
        records.set_attempt(2);
        (Stages::new(records, 2, plan), cwd)
    }

    fn succeeded(name: &str, value: Option<Value>) -> (String, Value) {
        let mut record = json!({"stage": name, "attempt": 1, "outcome": "succeeded", "startedAt": "2026-12-01T10:00:00.000Z"});
        if let Some(value) = value {
            record["value"] = value;
        }
        (name.to_string(), record)
    }

    #[test]
    fn stages_started_within_one_millisecond_keep_their_order() {
        let at = "2026-12-01T10:00:00.000Z";
        let record = |stage: &str, attempt: u64, order: u64| {
            let value = json!({"stage": stage, "attempt": attempt, "order": order, "outcome": "succeeded", "startedAt": at});
            (stage.to_string(), value)
        };
        let plan = StagePlan {
            recorded: [
                record("plan", 1, 1),
                record("build", 1, 2),
                record("ack", 2, 1),
            ]
            .into_iter()
            .collect(),
            ..StagePlan::default()
        };
        assert_eq!(plan.succeeded(), ["plan", "build", "ack"]);
    }

    #[test]
    fn names_follow_the_rule() {
        for good in ["plan", "fix-tests", "a1"] {
            assert!(valid_name(good), "{good}");
        }
        for bad in ["", "Plan", "1a", "-a", "a_b", "a b"] {
            assert!(!valid_name(bad), "{bad}");
        }
    }

    #[test]
    fn reuse_runs_up_to_the_first_stage_without_a_success() {
        let plan = StagePlan {
            recorded: [
                succeeded("a", Some(json!(1))),
                succeeded("c", None),
                (
                    "b".to_string(),
                    json!({"stage": "b", "attempt": 1, "outcome": "failed"}),
                ),
            ]
            .into_iter()
            .collect(),
            ..StagePlan::default()
        };
        let (stages, cwd) = book("reuse", plan);
        assert_eq!(
            stages.enter("a").unwrap(),
            Entered::Candidate {
                value: Some(json!(1)),
                attempt: 1
            }
        );
        assert!(stages.decide("a", &[]).unwrap());
        assert_eq!(stages.enter("b").unwrap(), Entered::Runs);
        let nested = stages.enter("x").unwrap_err();
        assert!(nested.contains("do not nest"), "{nested}");
        stages.end("b", "succeeded", None, None, None).unwrap();
        // c succeeded before, but reuse ended at b.
        assert_eq!(stages.enter("c").unwrap(), Entered::Runs);
        stages
            .end("c", "failed", None, None, Some("boom".into()))
            .unwrap();
        assert!(stages.enter("a").unwrap_err().contains("twice"));
        let sources: Vec<_> = stages
            .summaries()
            .iter()
            .map(|s| s["source"].clone())
            .collect();
        assert_eq!(sources, [json!("reused"), json!("ran"), json!("ran")]);
        assert_eq!(stages.ended_in().as_deref(), Some("c"));
        let dir = cwd.join(".awf/runs/wf/r1");
        stages.records.flush().unwrap();
        let c = run_files::read(&run_files::stage_path(&dir, "c"))
            .unwrap()
            .unwrap();
        assert_eq!(
            (c["outcome"].clone(), c["attempt"].clone()),
            (json!("failed"), json!(2))
        );
        stages.records.flush().unwrap();
        std::fs::remove_dir_all(cwd).unwrap();
    }

    #[test]
    fn from_stage_and_a_value_that_no_longer_fits_end_reuse() {
        let plan = StagePlan {
            recorded: [succeeded("a", Some(json!(1))), succeeded("b", None)]
                .into_iter()
                .collect(),
            from_stage: Some("b".into()),
            fresh: false,
            version: None,
        };
        let (stages, cwd) = book("from", plan.clone());
        assert!(matches!(
            stages.enter("a").unwrap(),
            Entered::Candidate { .. }
        ));
        assert!(!stages
            .decide("a", &["value: expected string; got 1".into()])
            .unwrap());
        stages
            .end("a", "succeeded", Some(json!("one")), None, None)
            .unwrap();
        assert_eq!(stages.enter("b").unwrap(), Entered::Runs);
        stages.records.flush().unwrap();
        std::fs::remove_dir_all(cwd).unwrap();

        let (stages, cwd) = book("from-only", plan);
        assert!(matches!(
            stages.enter("a").unwrap(),
            Entered::Candidate { .. }
        ));
        assert!(stages.decide("a", &[]).unwrap());
        assert_eq!(stages.enter("b").unwrap(), Entered::Runs, "--from-stage b");
        stages.records.flush().unwrap();
        std::fs::remove_dir_all(cwd).unwrap();
    }

    #[test]
    fn fresh_stages_reuse_nothing_and_an_open_stage_is_closed_at_the_end() {
        let plan = StagePlan {
            recorded: [succeeded("a", None)].into_iter().collect(),
            fresh: true,
            ..StagePlan::default()
        };
        let (stages, cwd) = book("fresh", plan);
        let dir = cwd.join(".awf/runs/wf/r1");
        run_files::replace(
            &run_files::stage_path(&dir, "a"),
            &json!({"stage": "a", "attempt": 1}),
        )
        .unwrap();
        assert_eq!(stages.enter("a").unwrap(), Entered::Runs);
        stages.close_open("cancelled", None);
        assert_eq!(stages.ended_in().as_deref(), Some("a"));
        stages.records.flush().unwrap();
        assert!(dir.join("replaced/a.2.json").is_file());
        let record = run_files::read(&run_files::stage_path(&dir, "a"))
            .unwrap()
            .unwrap();
        assert_eq!(record["outcome"], "cancelled");
        stages.records.flush().unwrap();
        std::fs::remove_dir_all(cwd).unwrap();
    }
}
