//! The process groups of one host's children, and signals by name: every child starts in a
//! group of its own, and `GroupSet` keeps each group that may still have a live member (a leader
//! still running, or one that left background processes behind), so that `stop_groups` can end
//! them all when the host drops.

use std::collections::HashSet;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::limits::KILL_GRACE;

/// Signals by name, as Node names them.
const SIGNALS: &[(&str, i32)] = &[
    ("SIGHUP", libc::SIGHUP),
    ("SIGINT", libc::SIGINT),
    ("SIGQUIT", libc::SIGQUIT),
    ("SIGABRT", libc::SIGABRT),
    ("SIGKILL", libc::SIGKILL),
    ("SIGUSR1", libc::SIGUSR1),
    ("SIGSEGV", libc::SIGSEGV),
    ("SIGUSR2", libc::SIGUSR2),
    ("SIGPIPE", libc::SIGPIPE),
    ("SIGALRM", libc::SIGALRM),
    ("SIGTERM", libc::SIGTERM),
    ("SIGCHLD", libc::SIGCHLD),
    ("SIGCONT", libc::SIGCONT),
    ("SIGSTOP", libc::SIGSTOP),
    ("SIGTSTP", libc::SIGTSTP),
    ("SIGWINCH", libc::SIGWINCH),
];

pub(super) fn signal_number(name: &str) -> Option<i32> {
    SIGNALS.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
}

pub(super) fn signal_name(number: i32) -> String {
    SIGNALS
        .iter()
        .find(|(_, s)| *s == number)
        .map(|(n, _)| n.to_string())
        .unwrap_or_else(|| format!("SIG{number}"))
}

/// Process groups that may still have live members; shared with the tasks that wait on leaders.
#[derive(Default)]
pub(super) struct GroupSet(Mutex<HashSet<i32>>);

impl GroupSet {
    pub(super) fn add(&self, pgid: i32) {
        self.0.lock().expect("group set").insert(pgid);
    }

    /// After a leader exited: forget its group unless members are left (they keep the id taken,
    /// so it cannot name another group while it is listed).
    pub(super) fn leader_exited(&self, pgid: i32) {
        if !group_alive(pgid) {
            self.0.lock().expect("group set").remove(&pgid);
        }
    }

    pub(super) fn take_all(&self) -> Vec<i32> {
        self.0.lock().expect("group set").drain().collect()
    }
}

pub(super) fn group_alive(pgid: i32) -> bool {
    // SAFETY: kill(2) with signal 0 only checks that the group exists.
    unsafe { libc::killpg(pgid, 0) == 0 }
}

pub(super) fn signal_group(pgid: i32, signal: i32) -> bool {
    // SAFETY: kill(2) on a process group this host started.
    unsafe { libc::killpg(pgid, signal) == 0 }
}

/// SIGTERM to each group, up to `KILL_GRACE` for them to go, then SIGKILL to what is left.
pub(super) fn stop_groups(groups: &[i32]) {
    let live: Vec<i32> = groups
        .iter()
        .copied()
        .filter(|g| signal_group(*g, libc::SIGTERM))
        .collect();
    let until = Instant::now() + KILL_GRACE;
    while Instant::now() < until && live.iter().any(|g| group_alive(*g)) {
        std::thread::sleep(Duration::from_millis(10));
    }
    for group in live {
        signal_group(group, libc::SIGKILL);
    }
}
