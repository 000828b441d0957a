//! `--bail` inside one file's process: the failures the file reported so far, and the signal
//! that stops it once they alone reach the limit (the runner, pool.rs, counts over every file
//! and stops the others).

use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::watch;

/// `--bail`: the failures the file reported so far, and the signal that stops it.
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
