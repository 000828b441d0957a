//! The run's worktree ledger: `<run>/worktrees/<key>.json` beside each worktree, saying where it
//! is, its branch, its keep rule and whether it is still open or ended (kept or removed, its head
//! and whether it was dirty). The awf that made a worktree ends it when the agent closes or the
//! run ends; when that awf died (`kill -9`), a later awf's sweep ends it from the ledger as a
//! failed run's (`sweep_run`), so `keep` holds either way.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::{Ending, Keep, Worktree};
use crate::git::git;

/// The folder of a run's worktrees and their ledger entries.
pub struct Ledger {
    dir: PathBuf,
}

const OPEN: &str = "open";

impl Ledger {
    pub fn of(run_folder: &Path) -> Ledger {
        Ledger {
            dir: run_folder.join("worktrees"),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn entry(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.json"))
    }

    pub(super) fn write_open(&self, key: &str, worktree: &Worktree) {
        self.write(key, worktree, json!({ "state": OPEN }));
    }

    pub(super) fn write_ended(&self, key: &str, worktree: &Worktree, ending: &Ending) {
        let state = if ending.kept { "kept" } else { "removed" };
        let end = json!({ "state": state, "head": ending.head, "dirty": ending.dirty });
        self.write(key, worktree, end);
    }

    fn write(&self, key: &str, worktree: &Worktree, state: Value) {
        let mut entry = worktree.describe();
        entry["cwd"] = json!(worktree.cwd);
        if let (Some(entry), Some(state)) = (entry.as_object_mut(), state.as_object()) {
            entry.extend(state.clone());
        }
        let temporary = self.dir.join(format!(".{key}.json.new"));
        let written = fs::write(&temporary, format!("{entry}\n"))
            .and_then(|()| fs::rename(&temporary, self.entry(key)));
        if let Err(error) = written {
            tracing::warn!(key, %error, "cannot write the worktree ledger");
        }
    }

    fn read(&self, key: &str) -> Option<(Worktree, String)> {
        let entry: Value = serde_json::from_str(&fs::read_to_string(self.entry(key)).ok()?).ok()?;
        let path = |field: &str| entry[field].as_str().map(PathBuf::from);
        let worktree = Worktree {
            path: path("path")?,
            branch: entry["branch"].as_str()?.to_string(),
            repo: path("repo")?,
            base: entry["base"].as_str()?.to_string(),
            keep: Keep::parse(entry["keep"].as_str()?)?,
            cwd: path("cwd")?,
        };
        Some((worktree, entry["state"].as_str()?.to_string()))
    }

    /// The keys of the ledger's worktrees, in order.
    fn keys(&self) -> Vec<String> {
        let Ok(entries) = fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut keys: Vec<String> = entries
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().to_str()?.to_string();
                let key = name.strip_suffix(".json")?;
                (!key.starts_with('.')).then(|| key.to_string())
            })
            .collect();
        keys.sort();
        keys
    }

    /// An earlier attempt's worktree of `key` in `repo` that is still there (`--continue`).
    pub(super) fn earlier(&self, key: &str, repo: &Path) -> Option<Worktree> {
        let (worktree, _) = self.read(key)?;
        let top = git(&worktree.path, &["rev-parse", "--show-toplevel"]).ok()?;
        let same = fs::canonicalize(top).ok()? == fs::canonicalize(&worktree.path).ok()?;
        (same && worktree.repo == repo && worktree.cwd.is_dir()).then_some(worktree)
    }

    /// Ends the worktree of `key` if it is open; what it ended as.
    pub fn end(&self, key: &str, failed: bool) -> Option<(Worktree, Ending)> {
        let (worktree, state) = self.read(key)?;
        if state != OPEN {
            return None;
        }
        let ending = worktree.end(self, key, failed);
        Some((worktree, ending))
    }

    /// Ends every open worktree of the run; what each ended as, by key.
    pub fn end_all(&self, failed: bool) -> Vec<(String, Worktree, Ending)> {
        self.keys()
            .into_iter()
            .filter_map(|key| {
                let (worktree, ending) = self.end(&key, failed)?;
                Some((key, worktree, ending))
            })
            .collect()
    }
}

/// Ends the worktrees a dead run left open, as a failed run's (`keep: "on-failure"` keeps them);
/// the worktrees it went through.
pub fn sweep_run(run_folder: &Path) -> Vec<PathBuf> {
    Ledger::of(run_folder)
        .end_all(true)
        .into_iter()
        .map(|(_, worktree, _)| worktree.path)
        .collect()
}
