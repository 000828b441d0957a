//! cgroup v2, where the machine lets awf use it: a group per run under awf's own, and one per
//! agent process inside it, so that everything an agent starts (a `setsid` daemon too) is found
//! and killed with its turn, at once (`cgroup.kill`).
//!
//! The v2 hierarchy is found in `/proc/self/mountinfo` (`/sys/fs/cgroup` on a pure v2 machine,
//! `/sys/fs/cgroup/unified` on a hybrid one) and awf's own group in `/proc/self/cgroup` (`0::`).
//! Making a group there needs write access to awf's own group (root, or a delegated user slice);
//! where that fails, awf falls back to its keeper's subreaper (harness/keeper.rs says what each
//! guarantees). Std and libc only (compiled into `wfa` too).

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// A cgroup v2 folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cgroup {
    path: PathBuf,
}

/// The v2 hierarchy's mount point, from `/proc/self/mountinfo` text.
pub fn v2_mount(mountinfo: &str) -> Option<PathBuf> {
    mountinfo.lines().find_map(|line| {
        let (before, after) = line.split_once(" - ")?;
        let fstype = after.split_whitespace().next()?;
        let mount_point = before.split_whitespace().nth(4)?;
        (fstype == "cgroup2").then(|| PathBuf::from(mount_point))
    })
}

/// This process's v2 group path (`/user.slice/...`), from `/proc/self/cgroup` text.
pub fn v2_own_path(cgroup: &str) -> Option<String> {
    cgroup
        .lines()
        .find_map(|line| line.strip_prefix("0::").map(str::to_string))
}

impl Cgroup {
    /// The group this process is in, when the v2 hierarchy is mounted.
    pub fn own() -> Option<Cgroup> {
        let mount = v2_mount(&fs::read_to_string("/proc/self/mountinfo").ok()?)?;
        let own = v2_own_path(&fs::read_to_string("/proc/self/cgroup").ok()?)?;
        let path = mount.join(own.trim_start_matches('/'));
        path.join("cgroup.procs")
            .is_file()
            .then_some(Cgroup { path })
    }

    /// The group at `path` (made by someone else).
    pub fn at(path: PathBuf) -> Cgroup {
        Cgroup { path }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Makes the child group `name`.
    pub fn make_child(&self, name: &str) -> io::Result<Cgroup> {
        let path = self.path.join(name);
        fs::create_dir(&path)?;
        Ok(Cgroup { path })
    }

    /// The processes in this group (not in its children).
    pub fn procs(&self) -> Vec<i32> {
        fs::read_to_string(self.path.join("cgroup.procs"))
            .map(|text| text.lines().filter_map(|l| l.trim().parse().ok()).collect())
            .unwrap_or_default()
    }

    /// Whether any process is in this group or below it.
    pub fn populated(&self) -> bool {
        match fs::read_to_string(self.path.join("cgroup.events")) {
            Ok(events) => events.lines().any(|l| l.trim() == "populated 1"),
            Err(_) => !self.procs().is_empty(),
        }
    }

    /// Sends `signal` to every process in the group and below. SIGKILL goes through
    /// `cgroup.kill` (Linux 5.14), which no fork can race; other signals, and SIGKILL on older
    /// kernels, go to each process listed.
    pub fn signal(&self, signal: i32) {
        if signal == libc::SIGKILL && fs::write(self.path.join("cgroup.kill"), "1").is_ok() {
            return;
        }
        let mut groups = vec![self.path.clone()];
        while let Some(dir) = groups.pop() {
            for pid in Cgroup::at(dir.clone()).procs() {
                // SAFETY: plain syscall.
                unsafe { libc::kill(pid, signal) };
            }
            if let Ok(entries) = fs::read_dir(&dir) {
                groups.extend(entries.flatten().map(|e| e.path()).filter(|p| p.is_dir()));
            }
        }
    }

    /// Removes the group and the groups below it; each must be empty of processes.
    pub fn remove(&self) -> io::Result<()> {
        if let Ok(entries) = fs::read_dir(&self.path) {
            for child in entries.flatten().filter(|e| e.path().is_dir()) {
                Cgroup::at(child.path()).remove()?;
            }
        }
        match fs::remove_dir(&self.path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_v2_mount_on_pure_and_hybrid_machines() {
        let hybrid = "30 25 0:26 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n\
                      35 30 0:31 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n\
                      36 30 0:32 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n";
        assert_eq!(
            v2_mount(hybrid),
            Some(PathBuf::from("/sys/fs/cgroup/unified"))
        );
        let pure = "29 23 0:26 / /sys/fs/cgroup rw,nosuid shared:4 - cgroup2 cgroup2 rw\n";
        assert_eq!(v2_mount(pure), Some(PathBuf::from("/sys/fs/cgroup")));
        assert_eq!(v2_mount("22 1 0:5 / /proc rw - proc proc rw\n"), None);
        assert_eq!(
            v2_own_path("4:memory:/x\n0::/user.slice/session-2.scope\n"),
            Some("/user.slice/session-2.scope".to_string())
        );
        assert_eq!(v2_own_path("4:memory:/x\n"), None);
    }
}
