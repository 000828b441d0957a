//! Leftovers of dead runs: a later awf removes the control folders (`/tmp/awf-*`) of this user
//! whose awf is gone, kills what is left in their cgroups, removes the containers they left
//! (sandbox/container/), and closes their records as
//! `interrupted` (records/ending.rs), after ending the git worktrees its agents left open as a
//! failed run's (worktree/ledger.rs: each `keep` rule holds). A run's awf is named by pid and start time in the folder's
//! marker, so a reused pid does not keep a dead run's folder. A new run sweeps on a thread of its
//! own while it starts (`SweepBehind`): `/tmp` can hold hundreds of folders, and reading each
//! marker is time the run need not wait for.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::MARKER;
use crate::os::cgroup::Cgroup;
use crate::os::proc::Identity;
use crate::records::ending;
use crate::worktree;

/// What one sweep cleaned up.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Swept {
    /// Control folders removed.
    pub folders: Vec<PathBuf>,
    /// Run folders whose records were closed as interrupted.
    pub runs: Vec<PathBuf>,
    /// Worktrees of those runs ended (kept or removed by their `keep` rule).
    pub worktrees: Vec<PathBuf>,
}

/// Sweeps `/tmp`.
pub fn sweep_dead_runs() -> Swept {
    sweep(Path::new("/tmp"))
}

/// Whether `name` is one `ControlDir::create` gives: `awf-` and mkdtemp's six letters or digits.
/// Only those are looked into: /tmp holds many other folders, some named `awf-...` too.
fn is_control_folder(name: &str) -> bool {
    name.len() == 10
        && name.starts_with("awf-")
        && name[4..].bytes().all(|b| b.is_ascii_alphanumeric())
}

/// A sweep of `/tmp` going on beside the run; dropping it waits for the sweep, so none is cut off
/// halfway when awf exits.
pub struct SweepBehind {
    thread: Option<std::thread::JoinHandle<Swept>>,
}

impl SweepBehind {
    /// Starts sweeping `/tmp` on a thread; when no thread can be started, sweeps here and now.
    pub fn start() -> SweepBehind {
        let thread = std::thread::Builder::new()
            .name("awf-sweep".to_string())
            .spawn(sweep_dead_runs)
            .inspect_err(|_| {
                sweep_dead_runs();
            })
            .ok();
        SweepBehind { thread }
    }
}

impl Drop for SweepBehind {
    fn drop(&mut self) {
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Sweeps the `awf-*` folders under `parent` that this user owns.
pub fn sweep(parent: &Path) -> Swept {
    let mut swept = Swept::default();
    let Ok(entries) = fs::read_dir(parent) else {
        return swept;
    };
    // SAFETY: plain syscall.
    let me = unsafe { libc::geteuid() };
    for entry in entries.flatten() {
        if !entry.file_name().to_str().is_some_and(is_control_folder) {
            continue;
        }
        let path = entry.path();
        if !fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir() && m.uid() == me) {
            continue;
        }
        let Some(marker) = fs::read_to_string(path.join(MARKER))
            .ok()
            .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        else {
            continue;
        };
        let owner = Identity {
            pid: marker["pid"].as_i64().unwrap_or(0) as i32,
            start: marker["start"].as_u64().unwrap_or(0),
        };
        if owner.pid <= 0 || owner.alive() {
            continue;
        }
        if let Some(cgroup) = marker["cgroup"].as_str().map(PathBuf::from) {
            if cgroup.join("cgroup.procs").is_file() {
                let cgroup = Cgroup::at(cgroup);
                cgroup.signal(libc::SIGKILL);
                let _ = cgroup.remove();
            }
        }
        if let Some(records) = marker["records"].as_str().map(PathBuf::from) {
            if ending::owner(&records).is_none_or(|owner| !owner.alive()) {
                swept.worktrees.extend(worktree::sweep_run(&records));
            }
            if ending::close_if_orphaned(&records).unwrap_or(false) {
                swept.runs.push(records);
            }
        }
        crate::sandbox::container::remove_left_in(&path);
        if fs::remove_dir_all(&path).is_ok() {
            swept.folders.push(path);
        }
    }
    swept
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_folders_of_dead_runs_go() {
        let parent = std::env::temp_dir().join(format!("awf-sweep-{}", std::process::id()));
        let _ = fs::remove_dir_all(&parent);
        fs::create_dir_all(&parent).unwrap();
        let me = Identity::current();
        let marker = |dir: &str, start: u64| {
            let path = parent.join(dir);
            fs::create_dir(&path).unwrap();
            let text =
                json!({"pid": me.pid, "start": start, "records": "/nowhere", "cgroup": null});
            fs::write(path.join(MARKER), text.to_string()).unwrap();
            path
        };
        let alive = marker("awf-aLive1", me.start);
        let dead = marker("awf-dEad02", me.start + 1);
        let not_a_control_folder = marker("awf-dead-but-named-otherwise", me.start + 1);
        let unmarked = parent.join("awf-unmark");
        fs::create_dir(&unmarked).unwrap();
        let swept = sweep(&parent);
        assert_eq!(swept.folders, vec![dead.clone()]);
        assert!(alive.exists() && unmarked.exists() && !dead.exists());
        assert!(not_a_control_folder.exists());
        fs::remove_dir_all(parent).unwrap();
    }
}
