//! The run folder: `<cwd>/.awf/runs/<workflow>/<run-id>/` with `run.json`, `events.jsonl`,
//! `output.json`, and one record per attempt and per stage (run_files.rs).
//!
//! One folder holds every attempt of a run (`awf run --continue`): events of all attempts go to
//! the one `events.jsonl`; the lines that say what an attempt did (its start and end, agents
//! opened and resumed, turns, native sessions, stages) carry its `attempt`, and those written
//! while a stage is open carry the `stage`.
//!
//! JSON files are written whole (temp file, fsync, rename: whole_file.rs), so a reader never sees
//! half a file; `events.jsonl` is appended one line per event, and a torn last line is skipped on
//! read (`reader.rs`). `.awf/runs/.gitignore` keeps the records out of git. The whole files are
//! written in order on a thread of their own (writer.rs): the run waits for the disk only where
//! it must: at its end (`flush`) and where a claim decides what it does (`claim`).
//!
//! Records hold prompts, answers and tool inputs: folders are made 0700 and files 0600, whatever
//! the umask. `events.jsonl` is capped (`limits::MAX_EVENTS_BYTES`, or `$AWF_MAX_EVENTS_BYTES`):
//! the event that would pass the cap is replaced by one `events-capped` line, later events are
//! counted and dropped (output.json says how many), in later attempts too, and the run goes on;
//! `run-ended` is always written.

pub mod ending;
pub mod event;
pub mod logs;
pub mod observer;

pub mod reader;
pub mod run_files;
pub mod status;
pub mod time;
pub mod whole_file;
pub mod writer;

use std::fs::{self, DirBuilder, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::SystemTime;

pub use event::Event;
pub use observer::RunObserver;
use whole_file::json_text;
pub use whole_file::{make_private_dirs, write_atomically, write_whole};
use writer::{RecordWrite, RecordWriter};

/// Where runs are recorded, under a workflow's cwd.
pub const RUNS_DIR: &str = ".awf/runs";

/// One run's folder, open for writing.
pub struct RunDir {
    path: PathBuf,
    events: Mutex<EventsFile>,
    /// A copy of every event appended, for tests that read them as they go (`keep_events`).
    kept: Mutex<Option<Vec<serde_json::Value>>>,
    /// The whole-file records, written in order on a thread of their own.
    writer: RecordWriter,
    /// Who watches the run as it happens (`observe`).
    observer: OnceLock<Arc<dyn RunObserver>>,
    /// The attempt that writes, and the stage open now, stamped on the lines that say what an
    /// attempt did (`event::stamped`).
    attempt: AtomicU32,
    stage: Mutex<Option<String>>,
    /// The native sessions agents reported, and the turns of the open stage: a stage's record
    /// says which turns it gave and which sessions they ran in.
    activity: Mutex<Activity>,
}

#[derive(Default)]
struct Activity {
    /// Agent key to (harness, session).
    sessions: std::collections::BTreeMap<String, (String, String)>,
    stage_turns: Vec<String>,
    stage_agents: std::collections::BTreeSet<String>,
}

/// `events.jsonl` as it is appended: how much it holds against its cap.
#[derive(Debug)]
struct EventsFile {
    file: File,
    bytes: u64,
    cap: u64,
    /// Whether the `events-capped` line is written (by this attempt or an earlier one): from
    /// then on, only `always` lines are.
    capped: bool,
    /// Events this attempt did not write because the cap was reached.
    dropped: u64,
}

impl EventsFile {
    /// Writes `line`, or past the cap, the `events-capped` line once and then nothing, however
    /// small a later line (one that no longer fits may be much larger than those after it);
    /// `always` lines (the run's end) are written past the cap too.
    fn write(&mut self, line: &str, always: bool) -> io::Result<()> {
        let fits = !self.capped && self.bytes + line.len() as u64 <= self.cap;
        if fits || always {
            self.bytes += line.len() as u64;
            return self.file.write_all(line.as_bytes());
        }
        self.dropped += 1;
        if self.capped {
            return Ok(());
        }
        self.capped = true;
        let capped = event::line(
            SystemTime::now(),
            &Event::EventsCapped {
                limit_bytes: self.cap,
            },
        );
        self.bytes += capped.len() as u64;
        self.file.write_all(capped.as_bytes())
    }
}

/// The cap on one run's events file: `$AWF_MAX_EVENTS_BYTES`, else `MAX_EVENTS_BYTES`.
fn events_cap() -> u64 {
    std::env::var(crate::env::AWF_MAX_EVENTS_BYTES)
        .ok()
        .and_then(|text| text.trim().parse().ok())
        .unwrap_or(crate::limits::MAX_EVENTS_BYTES)
}

impl RunDir {
    /// Creates `<cwd>/.awf/runs/<workflow>/<run_id>/` (0700) and its events file (0600); a
    /// folder already there is refused (`AlreadyExists`): that run id is taken.
    pub fn create(cwd: &Path, workflow: &str, run_id: &str) -> io::Result<RunDir> {
        let runs = cwd.join(RUNS_DIR);
        // Only the run's own folder being there means the id is taken: a file in the way of a
        // folder above it is another error.
        let not_taken = |e: io::Error| match e.kind() {
            io::ErrorKind::AlreadyExists => io::Error::other(e.to_string()),
            _ => e,
        };
        make_private_dirs(&runs).map_err(not_taken)?;
        let ignore = runs.join(".gitignore");
        if !ignore.exists() {
            write_atomically(&ignore, b"*\n").map_err(not_taken)?;
        }
        let parent = runs.join(workflow);
        make_private_dirs(&parent).map_err(not_taken)?;
        let path = parent.join(run_id);
        DirBuilder::new().mode(0o700).create(&path)?;
        // The umask may have taken bits off.
        fs::set_permissions(&path, fs::Permissions::from_mode(0o700))?;
        RunDir::open_events(path)
    }

    /// An existing run's folder, for a new attempt of it: its events file is appended to.
    pub fn reopen(path: &Path) -> io::Result<RunDir> {
        RunDir::open_events(path.to_path_buf())
    }

    fn open_events(path: PathBuf) -> io::Result<RunDir> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .open(path.join("events.jsonl"))?;
        let bytes = file.metadata()?.len();
        let capped = reader::reached_its_cap(&path.join("events.jsonl"))?;
        Ok(RunDir {
            path,
            events: Mutex::new(EventsFile {
                file,
                bytes,
                cap: events_cap(),
                capped,
                dropped: 0,
            }),
            kept: Mutex::new(None),
            writer: RecordWriter::default(),
            observer: OnceLock::new(),
            attempt: AtomicU32::new(1),
            stage: Mutex::new(None),
            activity: Mutex::default(),
        })
    }

    /// The attempt whose events this folder now records.
    pub fn set_attempt(&self, attempt: u32) {
        self.attempt.store(attempt, Ordering::SeqCst);
    }

    pub fn attempt(&self) -> u32 {
        self.attempt.load(Ordering::SeqCst)
    }

    /// The stage open now (`None` between stages): the lines written meanwhile carry it.
    pub fn set_stage(&self, stage: Option<&str>) {
        *self.stage.lock().unwrap_or_else(|e| e.into_inner()) = stage.map(str::to_string);
        if stage.is_some() {
            let mut activity = self.activity();
            activity.stage_turns.clear();
            activity.stage_agents.clear();
        }
    }

    fn activity(&self) -> std::sync::MutexGuard<'_, Activity> {
        self.activity.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The open stage's turns, and the native sessions of the agents that had them:
    /// `([{agent, harness, session}], [turn ids])`.
    pub fn stage_activity(&self) -> (Vec<serde_json::Value>, Vec<String>) {
        let activity = self.activity();
        let sessions = activity
            .stage_agents
            .iter()
            .filter_map(|agent| {
                let (harness, session) = activity.sessions.get(agent)?;
                Some(serde_json::json!({ "agent": agent, "harness": harness, "session": session }))
            })
            .collect();
        (sessions, activity.stage_turns.clone())
    }

    fn note_activity(&self, event: &Event) {
        match event {
            Event::AgentSession {
                agent,
                harness,
                session,
                ..
            }
            | Event::AgentResumed {
                agent,
                harness,
                session,
                ..
            } => {
                self.activity()
                    .sessions
                    .insert(agent.clone(), (harness.clone(), session.clone()));
            }
            Event::TurnStarted { agent, turn, .. } => {
                let mut activity = self.activity();
                activity.stage_turns.push(turn.clone());
                activity.stage_agents.insert(agent.clone());
            }
            _ => {}
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Replaces the record at `target` (in this folder) whole and durably, after the writes
    /// given before, without waiting for the disk.
    pub fn replace_behind(&self, target: PathBuf, value: &serde_json::Value) -> io::Result<()> {
        let bytes = json_text(value)?;
        self.writer.give(RecordWrite::Replace { target, bytes });
        Ok(())
    }

    /// Writes the record at `target` over in place, after the writes given before, without
    /// flushing it: for a copy of what a durable record holds, whose readers take the original
    /// when they find the copy empty or cut off (writer.rs, `RecordWrite::Copy`).
    pub fn copy_behind(&self, target: PathBuf, value: &serde_json::Value) -> io::Result<()> {
        let bytes = json_text(value)?;
        self.writer.give(RecordWrite::Copy { target, bytes });
        Ok(())
    }

    /// Creates the record at `target` whole and durably, after the writes given before; fails
    /// with `AlreadyExists` when another awf has it.
    pub fn claim(&self, target: PathBuf, value: &serde_json::Value) -> io::Result<()> {
        let bytes = json_text(value)?;
        self.writer.wait(RecordWrite::Claim { target, bytes })
    }

    /// `claim` without waiting: for records in a folder this run made, which no other awf can
    /// claim (a failure comes back from the next `flush`).
    pub fn claim_behind(&self, target: PathBuf, value: &serde_json::Value) -> io::Result<()> {
        let bytes = json_text(value)?;
        self.writer.give(RecordWrite::Claim { target, bytes });
        Ok(())
    }

    /// Moves the record at `from` to `to` when it is there, after the writes given before,
    /// without waiting for the disk.
    pub fn move_aside_behind(&self, from: PathBuf, to: PathBuf) {
        self.writer.give(RecordWrite::MoveAside { from, to });
    }

    /// Waits for the writes left behind; the first one's error, if any.
    pub fn flush(&self) -> io::Result<()> {
        self.writer.flush()
    }

    /// Writes one stream of an agent process's output as `turns/<turn>/<name>`; the path
    /// relative to the run folder, as events name it.
    pub fn write_turn_output(&self, turn: &str, name: &str, bytes: &[u8]) -> io::Result<String> {
        let dir = self.path.join("turns").join(turn);
        make_private_dirs(&dir)?;
        let mut file = OpenOptions::new()
            .create(true)
            .write(true)
            .truncate(true)
            .mode(0o600)
            .open(dir.join(name))?;
        file.write_all(bytes)?;
        Ok(format!("turns/{turn}/{name}"))
    }

    /// Appends one event line, stamped with the time; the observer gets the event itself.
    pub fn append(&self, event: &Event) -> io::Result<()> {
        let stage = self.stage.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let stamped = event::stamped(SystemTime::now(), event, self.attempt(), stage.as_deref());
        let line = event::line_of(&stamped);
        self.note_activity(event);
        if let Some(kept) = self.kept.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
            kept.push(stamped);
        }
        let always = matches!(event, Event::RunEnded { .. });
        let mut events = self.events.lock().unwrap_or_else(|e| e.into_inner());
        let written = events.write(&line, always);
        // Under the file's lock, so an observer sees events in the order they were written.
        if let Some(observer) = self.observer.get() {
            observer.recorded(event);
        }
        written
    }

    /// How many events the cap kept out of `events.jsonl` so far.
    pub fn dropped_events(&self) -> u64 {
        self.events
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .dropped
    }

    /// From now on, `observer` sees every event appended, and the lines agents write on stderr.
    /// A run has one observer; a second call changes nothing.
    pub fn observe(&self, observer: Arc<dyn RunObserver>) {
        let _ = self.observer.set(observer);
    }

    /// A line an agent's process wrote on stderr, for the observer (the records keep the
    /// stream as a file: `write_turn_output`).
    pub fn agent_stderr(&self, agent: &str, turn: &str, line: &str) {
        if let Some(observer) = self.observer.get() {
            observer.agent_stderr(agent, turn, line);
        }
    }

    /// From now on, also keep every event in memory (`kept_events`).
    pub fn keep_events(&self) {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.get_or_insert_with(Vec::new);
    }

    /// The events kept since `keep_events`, from index `from` on.
    pub fn kept_events(&self, from: usize) -> Vec<serde_json::Value> {
        let kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.as_ref()
            .map(|k| k.get(from..).unwrap_or_default().to_vec())
            .unwrap_or_default()
    }
}

impl std::fmt::Debug for RunDir {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunDir").field("path", &self.path).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Writes `name` whole, after what was left behind, and waits for all of it.
    fn write(run: &RunDir, name: &str, value: &serde_json::Value) -> io::Result<()> {
        run.replace_behind(run.path().join(name), value)?;
        run.flush()
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("awf-records-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn creates_the_folder_the_gitignore_and_whole_files() {
        let cwd = scratch("create");
        let run = RunDir::create(&cwd, "hello", "20261129-000000-abcd").unwrap();
        assert_eq!(run.path(), cwd.join(".awf/runs/hello/20261129-000000-abcd"));
        assert_eq!(
            fs::read_to_string(cwd.join(".awf/runs/.gitignore")).unwrap(),
            "*\n"
        );
        write(&run, "run.json", &json!({"a": 1})).unwrap();
        let text = fs::read_to_string(run.path().join("run.json")).unwrap();
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&text).unwrap(),
            json!({"a": 1})
        );
        let leftovers: Vec<_> = fs::read_dir(run.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(
            leftovers.len(),
            2,
            "only run.json and events.jsonl: {leftovers:?}"
        );
        fs::remove_dir_all(cwd).unwrap();
    }

    #[test]
    fn a_file_written_behind_is_whole_before_the_next_write() {
        let cwd = scratch("behind");
        let run = RunDir::create(&cwd, "hello", "r1").unwrap();
        run.replace_behind(run.path().join("run.json"), &json!({"first": true}))
            .unwrap();
        write(&run, "output.json", &json!({"second": true})).unwrap();
        let first = fs::read_to_string(run.path().join("run.json")).unwrap();
        assert_eq!(first, "{\n  \"first\": true\n}\n");
        fs::remove_dir_all(cwd).unwrap();
    }

    #[test]
    fn an_error_left_behind_comes_back_with_its_file() {
        let cwd = scratch("behind-error");
        let run = RunDir::create(&cwd, "hello", "r1").unwrap();
        fs::create_dir(run.path().join("run.json")).unwrap();
        run.replace_behind(run.path().join("run.json"), &json!({}))
            .unwrap();
        let error = write(&run, "output.json", &json!({})).unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with(&format!("{}: ", run.path().join("run.json").display())),
            "{error}"
        );
        assert!(
            run.path().join("output.json").is_file(),
            "written all the same"
        );
        fs::remove_dir_all(cwd).unwrap();
    }

    #[test]
    fn turn_output_lands_under_its_turn() {
        let cwd = scratch("turn-output");
        let run = RunDir::create(&cwd, "hello", "r1").unwrap();
        let path = run.write_turn_output("t1", "1.stdout", b"hi\n").unwrap();
        assert_eq!(path, "turns/t1/1.stdout");
        assert_eq!(fs::read_to_string(run.path().join(&path)).unwrap(), "hi\n");
        fs::remove_dir_all(cwd).unwrap();
    }

    #[test]
    fn folders_are_0700_and_files_0600_whatever_the_umask() {
        let cwd = scratch("modes");
        // SAFETY: plain syscall; the umask is restored below.
        let old = unsafe { libc::umask(0o000) };
        let run = RunDir::create(&cwd, "hello", "r1").unwrap();
        write(&run, "output.json", &json!({})).unwrap();
        run.write_turn_output("t1", "1.stdout", b"x").unwrap();
        run.append(&Event::Log {
            message: "m".into(),
            fields: None,
        })
        .unwrap();
        unsafe { libc::umask(old) };
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        for dir in [
            cwd.join(".awf"),
            cwd.join(".awf/runs"),
            cwd.join(".awf/runs/hello"),
            run.path().to_path_buf(),
            run.path().join("turns/t1"),
        ] {
            assert_eq!(mode(&dir), 0o700, "{}", dir.display());
        }
        for file in ["events.jsonl", "output.json", "turns/t1/1.stdout"] {
            assert_eq!(mode(&run.path().join(file)), 0o600, "{file}");
        }
        fs::remove_dir_all(cwd).unwrap();
    }

    #[test]
    fn past_its_cap_the_events_file_says_so_once_and_still_ends() {
        let cwd = scratch("cap");
        let run = RunDir::create(&cwd, "hello", "r1").unwrap();
        run.events.lock().unwrap().cap = 300;
        for n in 0..20 {
            run.append(&Event::Log {
                message: format!("line {n}"),
                fields: None,
            })
            .unwrap();
        }
        run.append(&Event::RunEnded {
            outcome: "completed".into(),
            reason: None,
        })
        .unwrap();
        let events = reader::read_events(&run.path().join("events.jsonl")).unwrap();
        let kinds: Vec<&str> = events
            .iter()
            .map(|e| e["event"].as_str().unwrap())
            .collect();
        let capped = kinds.iter().position(|k| *k == "events-capped").unwrap();
        assert!(kinds[..capped].iter().all(|k| *k == "log"), "{kinds:?}");
        assert_eq!(&kinds[capped + 1..], ["run-ended"]);
        assert_eq!(events[capped]["limitBytes"], 300);
        assert_eq!(run.dropped_events(), 20 - capped as u64);
        fs::remove_dir_all(cwd).unwrap();
    }

    #[test]
    fn past_its_cap_a_smaller_event_that_would_fit_is_counted_not_written() {
        let cwd = scratch("cap-small");
        let run = RunDir::create(&cwd, "hello", "r1").unwrap();
        run.events.lock().unwrap().cap = 2000;
        let log = |message: String| Event::Log {
            message,
            fields: None,
        };
        run.append(&log("small".into())).unwrap();
        run.append(&log("x".repeat(3000))).unwrap();
        for n in 0..5 {
            run.append(&log(format!("after {n}"))).unwrap();
        }
        let events = reader::read_events(&run.path().join("events.jsonl")).unwrap();
        let kinds: Vec<&str> = events
            .iter()
            .map(|e| e["event"].as_str().unwrap())
            .collect();
        assert_eq!(kinds, ["log", "events-capped"]);
        assert_eq!(run.dropped_events(), 6);
        fs::remove_dir_all(cwd).unwrap();
    }

    #[test]
    fn a_continued_attempt_writes_nothing_more_into_a_capped_events_file() {
        let cwd = scratch("cap-continued");
        let run = RunDir::create(&cwd, "hello", "r1").unwrap();
        run.events.lock().unwrap().cap = 2000;
        let log = |message: String| Event::Log {
            message,
            fields: None,
        };
        run.append(&log("x".repeat(3000))).unwrap();
        let ended = Event::RunEnded {
            outcome: "failed".into(),
            reason: None,
        };
        run.append(&ended).unwrap();
        let path = run.path().to_path_buf();
        drop(run);
        let again = RunDir::reopen(&path).unwrap();
        again.events.lock().unwrap().cap = 2000;
        again.append(&log("small".into())).unwrap();
        again.append(&ended).unwrap();
        let events = reader::read_events(&path.join("events.jsonl")).unwrap();
        let kinds: Vec<&str> = events
            .iter()
            .map(|e| e["event"].as_str().unwrap())
            .collect();
        assert_eq!(kinds, ["events-capped", "run-ended", "run-ended"]);
        assert_eq!(again.dropped_events(), 1);
        fs::remove_dir_all(cwd).unwrap();
    }

    /// Keeps what it is shown.
    #[derive(Default)]
    struct Watcher {
        seen: Mutex<Vec<Event>>,
    }

    impl RunObserver for Watcher {
        fn recorded(&self, event: &Event) {
            self.seen.lock().unwrap().push(event.clone());
        }
        fn agent_stderr(&self, _agent: &str, _turn: &str, _line: &str) {}
    }

    #[test]
    fn the_observer_gets_every_event_appended_as_it_is_typed_in_order() {
        let cwd = scratch("observer");
        let run = RunDir::create(&cwd, "hello", "r1").unwrap();
        run.events.lock().unwrap().cap = 400;
        let watcher = Arc::new(Watcher::default());
        run.observe(watcher.clone());
        let appended = vec![
            Event::UsageReported {
                agent: "a".into(),
                turn: "t1".into(),
                basis: "request".into(),
                tokens: Some(crate::usage::Tokens {
                    input_tokens: 100,
                    output_tokens: 5,
                    ..Default::default()
                }),
                cost_usd: Some(0.01),
            },
            Event::Log {
                message: "x".repeat(500),
                fields: None,
            },
            Event::RunEnded {
                outcome: "completed".into(),
                reason: None,
            },
        ];
        for event in &appended {
            run.append(event).unwrap();
        }
        assert_eq!(
            *watcher.seen.lock().unwrap(),
            appended,
            "the event past the cap too"
        );
        fs::remove_dir_all(cwd).unwrap();
    }

    #[test]
    fn kept_events_are_the_lines_of_the_events_file() {
        let cwd = scratch("kept");
        let run = RunDir::create(&cwd, "hello", "r1").unwrap();
        run.keep_events();
        run.set_attempt(2);
        run.set_stage(Some("build"));
        run.append(&Event::StageStarted {
            stage: "build".into(),
            because: None,
        })
        .unwrap();
        run.append(&Event::Log {
            message: "one".into(),
            fields: Some(json!({"n": 1.5, "neg": -3})),
        })
        .unwrap();
        let events = reader::read_events(&run.path().join("events.jsonl")).unwrap();
        assert_eq!(run.kept_events(0), events);
        assert_eq!(events[0]["attempt"], 2);
        assert_eq!(run.kept_events(1), events[1..]);
        fs::remove_dir_all(cwd).unwrap();
    }

    #[test]
    fn appends_one_line_per_event() {
        let cwd = scratch("append");
        let run = RunDir::create(&cwd, "hello", "r1").unwrap();
        run.append(&Event::Log {
            message: "one".into(),
            fields: None,
        })
        .unwrap();
        run.append(&Event::Log {
            message: "two".into(),
            fields: Some(json!({"n": 2})),
        })
        .unwrap();
        let events = reader::read_events(&run.path().join("events.jsonl")).unwrap();
        assert_eq!(events.len(), 2);
        assert_eq!(events[1]["message"], "two");
        assert_eq!(events[1]["fields"]["n"], 2);
        fs::remove_dir_all(cwd).unwrap();
    }
}
