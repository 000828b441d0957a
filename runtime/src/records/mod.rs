//! The run folder: `<cwd>/.awf/runs/<workflow>/<run-id>/` with `run.json`, `events.jsonl` and
//! `output.json`.
//!
//! JSON files are written whole (temp file, fsync, rename), so a reader never sees half a file;
//! `events.jsonl` is appended one line per event, and a torn last line is skipped on read
//! (`reader.rs`). `.awf/runs/.gitignore` keeps the records out of git. A file the run need not
//! wait for (run.json) can be written behind, on a thread of its own: an fsync takes
//! milliseconds, and the next whole-file write waits for it, so files still land in order.

pub mod event;
pub mod logs;
pub mod observer;

pub mod reader;
pub mod time;

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::JoinHandle;
use std::time::SystemTime;

pub use event::Event;
pub use observer::RunObserver;

/// Where runs are recorded, under a workflow's cwd.
pub const RUNS_DIR: &str = ".awf/runs";

/// One run's folder, open for writing.
pub struct RunDir {
    path: PathBuf,
    events: Mutex<File>,
    /// A copy of every event appended, for tests that read them as they go (`keep_events`).
    kept: Mutex<Option<Vec<serde_json::Value>>>,
    /// Whole-file writes still on their way to disk (`write_json_behind`).
    behind: Mutex<Vec<JoinHandle<io::Result<()>>>>,
    /// Who watches the run as it happens (`observe`).
    observer: OnceLock<Arc<dyn RunObserver>>,
}

impl RunDir {
    /// Creates `<cwd>/.awf/runs/<workflow>/<run_id>/` and its events file.
    pub fn create(cwd: &Path, workflow: &str, run_id: &str) -> io::Result<RunDir> {
        let runs = cwd.join(RUNS_DIR);
        fs::create_dir_all(&runs)?;
        let ignore = runs.join(".gitignore");
        if !ignore.exists() {
            write_atomically(&ignore, b"*\n")?;
        }
        let path = runs.join(workflow).join(run_id);
        fs::create_dir_all(&path)?;
        let events = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path.join("events.jsonl"))?;
        Ok(RunDir {
            path,
            events: Mutex::new(events),
            kept: Mutex::new(None),
            behind: Mutex::default(),
            observer: OnceLock::new(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes `name` (e.g. `output.json`) whole and durably, after the writes left behind; an
    /// error of one of those is returned too, naming its file.
    pub fn write_json(&self, name: &str, value: &serde_json::Value) -> io::Result<()> {
        let target = self.path.join(name);
        // The file goes to disk while the writes left behind still do (two flushes at once, not
        // one after the other); it takes its name only after them, so files still land in order.
        let written = write_durably(&target, &json_text(value)?);
        let earlier = self.catch_up();
        publish(&written?, &target)?;
        earlier
    }

    /// Writes `name` (e.g. `run.json`) whole and durably without waiting for the disk; the next
    /// `write_json`, or the end of this `RunDir`, waits for it.
    pub fn write_json_behind(&self, name: &str, value: &serde_json::Value) -> io::Result<()> {
        let text = json_text(value)?;
        let target = self.path.join(name);
        let writer = std::thread::spawn(move || {
            write_atomically(&target, &text)
                .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", target.display())))
        });
        self.behind
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(writer);
        Ok(())
    }

    /// Waits for the writes left behind; the first one's error, if any.
    pub fn catch_up(&self) -> io::Result<()> {
        let writers = std::mem::take(&mut *self.behind.lock().unwrap_or_else(|e| e.into_inner()));
        let mut first = Ok(());
        for writer in writers {
            let done = writer
                .join()
                .unwrap_or_else(|_| Err(io::Error::other("a record writer panicked")));
            if first.is_ok() {
                first = done;
            }
        }
        first
    }

    /// Writes one stream of an agent process's output as `turns/<turn>/<name>`; the path
    /// relative to the run folder, as events name it.
    pub fn write_turn_output(&self, turn: &str, name: &str, bytes: &[u8]) -> io::Result<String> {
        let dir = self.path.join("turns").join(turn);
        fs::create_dir_all(&dir)?;
        fs::write(dir.join(name), bytes)?;
        Ok(format!("turns/{turn}/{name}"))
    }

    /// Appends one event line, stamped with the time.
    pub fn append(&self, event: &Event) -> io::Result<()> {
        let line = event::line(SystemTime::now(), event);
        let observer = self.observer.get();
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        let parsed: Option<serde_json::Value> = (kept.is_some() || observer.is_some())
            .then(|| serde_json::from_str(&line).ok())
            .flatten();
        if let (Some(kept), Some(value)) = (kept.as_mut(), &parsed) {
            kept.push(value.clone());
        }
        drop(kept);
        let mut file = self.events.lock().unwrap_or_else(|e| e.into_inner());
        let written = file.write_all(line.as_bytes());
        // Under the file's lock, so an observer sees events in the order they were written.
        if let (Some(observer), Some(value)) = (observer, &parsed) {
            observer.recorded(value);
        }
        written
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

impl Drop for RunDir {
    fn drop(&mut self) {
        // Nobody is left to tell; what matters is that the files are complete before exit.
        let _ = self.catch_up();
    }
}

/// Pretty JSON and a final newline: how every JSON record reads.
fn json_text(value: &serde_json::Value) -> io::Result<Vec<u8>> {
    let mut text = serde_json::to_vec_pretty(value).map_err(io::Error::other)?;
    text.push(b'\n');
    Ok(text)
}

/// Temp file beside the target, fsync, rename: the target is either old or whole.
pub fn write_atomically(target: &Path, bytes: &[u8]) -> io::Result<()> {
    publish(&write_durably(target, bytes)?, target)
}

/// Writes `bytes` to a temp file beside `target` and waits until they are on disk; gives the
/// temp file's path.
fn write_durably(target: &Path, bytes: &[u8]) -> io::Result<PathBuf> {
    let dir = target.parent().unwrap_or(Path::new("."));
    let name = target
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("file");
    let temp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let mut file = File::create(&temp)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    Ok(temp)
}

/// Gives the durable temp file its name: readers see the whole file or none.
fn publish(temp: &Path, target: &Path) -> io::Result<()> {
    fs::rename(temp, target).inspect_err(|_| {
        let _ = fs::remove_file(temp);
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
        run.write_json("run.json", &json!({"a": 1})).unwrap();
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
        run.write_json_behind("run.json", &json!({"first": true}))
            .unwrap();
        run.write_json("output.json", &json!({"second": true}))
            .unwrap();
        let first = fs::read_to_string(run.path().join("run.json")).unwrap();
        assert_eq!(first, "{\n  \"first\": true\n}\n");
        fs::remove_dir_all(cwd).unwrap();
    }

    #[test]
    fn an_error_left_behind_comes_back_with_its_file() {
        let cwd = scratch("behind-error");
        let run = RunDir::create(&cwd, "hello", "r1").unwrap();
        fs::create_dir(run.path().join("run.json")).unwrap();
        run.write_json_behind("run.json", &json!({})).unwrap();
        let error = run.write_json("output.json", &json!({})).unwrap_err();
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
