//! The cancel primitive the floors above stand on: the run's cancellation is a `watch` flag
//! that becomes `true` once (Ctrl-C, SIGTERM, the run's end), and everything that waits (an
//! agent's queued operation, a harness's process, a tool call) waits on it the same way.
//!
//! `merged` joins that flag with one more cause, so a harness, which watches one flag only,
//! also stops for it: an operation the workflow cancels on its own (agents/cancel.rs). Which
//! operations may be cancelled and why is the business of `agents/`; this module knows only
//! signals.

use std::convert::Infallible;
use std::future::Future;

use tokio::sync::watch;

/// Resolves when the run is cancelled; never, once nothing can cancel it any more.
pub async fn until_cancelled(cancelled: &mut watch::Receiver<bool>) {
    if cancelled.wait_for(|c| *c).await.is_err() {
        // The run is gone; nothing will cancel this attempt any more.
        std::future::pending::<()>().await;
    }
}

/// One flag that becomes `true` when the run is cancelled or `also` resolves: the receiver goes
/// to whoever watches one flag (a harness), the future must be polled alongside it (it never
/// ends, and it keeps the flag's sender alive).
pub fn merged(
    run: watch::Receiver<bool>,
    also: impl Future<Output = ()> + Send,
) -> (
    watch::Receiver<bool>,
    impl Future<Output = Infallible> + Send,
) {
    let (tx, rx) = watch::channel(*run.borrow());
    let forward = async move {
        let mut run = run;
        tokio::select! {
            _ = until_cancelled(&mut run) => {}
            _ = also => {}
        }
        let _ = tx.send(true);
        // Keep the sender alive: the harness's `wait_for` must not see it closed.
        std::future::pending::<Infallible>().await
    };
    (rx, forward)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    async fn fires(mut signal: watch::Receiver<bool>) {
        tokio::time::timeout(Duration::from_secs(1), signal.wait_for(|c| *c))
            .await
            .expect("fires")
            .expect("the sender lives");
    }

    #[tokio::test]
    async fn the_merged_flag_fires_for_the_run_or_the_other_cause() {
        let (_run_tx, run_rx) = watch::channel(false);
        let (other_tx, other_rx) = tokio::sync::oneshot::channel::<()>();
        let (signal, forward) = merged(run_rx, async {
            let _ = other_rx.await;
        });
        tokio::spawn(forward);
        assert!(!*signal.borrow());
        other_tx.send(()).unwrap();
        fires(signal).await;

        let (run_tx, run_rx) = watch::channel(false);
        let (signal, forward) = merged(run_rx, std::future::pending());
        tokio::spawn(forward);
        run_tx.send(true).unwrap();
        fires(signal).await;
    }
}
