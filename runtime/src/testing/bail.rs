//! `--bail`: the failures every file of a run reported so far, and the signal that stops them
//! all once the limit is reached.

use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::watch;

/// `--bail`: the failures reported so far, by every file, and the signal that stops them all.
pub(crate) struct Bail {
    pub limit: Option<usize>,
    pub failures: AtomicUsize,
    pub stop: watch::Sender<bool>,
}

impl Bail {
    /// Counts one failure; true when it is the one that stops the run.
    pub(crate) fn count_failure(&self) -> bool {
        let failures = self.failures.fetch_add(1, Ordering::SeqCst) + 1;
        let last = self.limit == Some(failures);
        if last {
            let _ = self.stop.send(true);
        }
        last
    }
}
