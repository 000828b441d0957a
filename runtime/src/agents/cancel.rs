//! Cancelling one turn of an agent, running or queued, on the workflow's word (`wf.race`,
//! `wf.select`, `wf.parallel`), while the run and the agent go on.
//!
//! `agent.run` gives each turn a token (the JS side picks it); `register` ties the token to the
//! turn's id before the turn is queued, so a cancel that comes at once is not lost. The turn
//! (turn.rs) watches its entry: queued, it ends `cancelled` without starting; running, its
//! attempt sees the same signal as the run's cancellation (`merged`), so the harness stops the
//! agent's process the way it does for Ctrl-C (harness/attempt.rs), and the turn's end aborts
//! its tool calls. The reason given to `cancel` becomes the outcome's detail, so the records
//! and `awf logs` say what cancelled the turn. The agent stays usable for later turns. The
//! signals themselves (the run's flag, joining two causes) are `crate::cancel`'s.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::Mutex;

use tokio::sync::watch;

/// The turns of one agent that may still be cancelled, by the token `agent.run` gave them.
#[derive(Default)]
pub struct TurnCancels {
    by_turn: Mutex<HashMap<String, Entry>>,
}

struct Entry {
    token: String,
    /// `Some(reason)` once cancelled.
    cancelled: watch::Sender<Option<String>>,
}

impl TurnCancels {
    fn entries(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        self.by_turn.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Ties `token` to the turn `turn`, before the turn is queued.
    pub fn register(&self, token: &str, turn: &str) {
        self.entries().insert(
            turn.to_string(),
            Entry {
                token: token.to_string(),
                cancelled: watch::Sender::new(None),
            },
        );
    }

    /// Cancels the turn with `token`, if it has not ended; whether one was found.
    pub fn cancel(&self, token: &str, reason: &str) -> bool {
        let entries = self.entries();
        let Some(entry) = entries.values().find(|e| e.token == token) else {
            return false;
        };
        entry.cancelled.send_if_modified(|now| {
            if now.is_some() {
                return false;
            }
            *now = Some(reason.to_string());
            true
        });
        true
    }

    /// Cancels every turn not yet ended (`wf.agents.stop`); how many.
    pub fn cancel_every(&self, reason: &str) -> usize {
        let entries = self.entries();
        for entry in entries.values() {
            entry.cancelled.send_if_modified(|now| {
                if now.is_some() {
                    return false;
                }
                *now = Some(reason.to_string());
                true
            });
        }
        entries.len()
    }

    /// What the turn `turn` watches: `Some(reason)` once cancelled; `None` for a turn that was
    /// not registered (it can only end with the run).
    pub fn watch(&self, turn: &str) -> Option<watch::Receiver<Option<String>>> {
        self.entries().get(turn).map(|e| e.cancelled.subscribe())
    }

    /// The turn has ended: a later cancel finds nothing.
    pub fn done(&self, turn: &str) {
        self.entries().remove(turn);
    }
}

/// Resolves with the reason once the turn is cancelled; never for an unregistered turn.
pub async fn until_turn_cancelled(watch: &mut Option<watch::Receiver<Option<String>>>) -> String {
    let Some(watch) = watch else {
        return std::future::pending().await;
    };
    let reason = match watch.wait_for(Option::is_some).await {
        Ok(reason) => reason.clone(),
        Err(_) => None,
    };
    match reason {
        Some(reason) => reason,
        None => std::future::pending().await,
    }
}

/// The reason the turn was cancelled, if it was.
pub fn reason(watch: &Option<watch::Receiver<Option<String>>>) -> Option<String> {
    watch.as_ref().and_then(|w| w.borrow().clone())
}

/// One signal for an attempt that fires when the run is cancelled or this turn is: the
/// receiver goes to the harness, the future must be polled alongside it (it never ends).
pub fn merged(
    run: watch::Receiver<bool>,
    turn: Option<watch::Receiver<Option<String>>>,
) -> (
    watch::Receiver<bool>,
    impl std::future::Future<Output = Infallible> + Send,
) {
    let mut turn = turn;
    crate::cancel::merged(run, async move {
        until_turn_cancelled(&mut turn).await;
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn a_cancel_before_the_turn_watches_is_not_lost() {
        let cancels = TurnCancels::default();
        cancels.register("k1", "t1-x");
        assert!(cancels.cancel("k1", "wf.race: another branch settled first"));
        let mut watch = cancels.watch("t1-x");
        let reason = tokio::time::timeout(Duration::from_secs(1), until_turn_cancelled(&mut watch))
            .await
            .expect("already cancelled");
        assert_eq!(reason, "wf.race: another branch settled first");
        // The first reason stays.
        cancels.cancel("k1", "later");
        assert_eq!(
            reason_of(&cancels, "t1-x"),
            Some("wf.race: another branch settled first".into())
        );
        cancels.done("t1-x");
        assert!(!cancels.cancel("k1", "after the end"));
        assert!(cancels.watch("t1-x").is_none());
    }

    #[test]
    fn cancel_every_reaches_each_turn_not_ended() {
        let cancels = TurnCancels::default();
        cancels.register("k1", "t1");
        cancels.register("turn:t2", "t2");
        cancels.register("k3", "t3");
        cancels.cancel("k3", "wf.race");
        cancels.done("t1");
        assert_eq!(cancels.cancel_every("wf.agents.stop: enough"), 2);
        assert_eq!(
            reason_of(&cancels, "t2"),
            Some("wf.agents.stop: enough".into())
        );
        // A turn already cancelled keeps its first reason.
        assert_eq!(reason_of(&cancels, "t3"), Some("wf.race".into()));
    }

    fn reason_of(cancels: &TurnCancels, turn: &str) -> Option<String> {
        reason(&cancels.watch(turn))
    }

    #[tokio::test]
    async fn the_merged_signal_fires_for_the_turn_or_the_run() {
        let cancels = TurnCancels::default();
        cancels.register("k", "t");
        let (_run_tx, run_rx) = watch::channel(false);
        let (mut signal, forward) = merged(run_rx, cancels.watch("t"));
        tokio::spawn(forward);
        assert!(!*signal.borrow());
        cancels.cancel("k", "why");
        tokio::time::timeout(Duration::from_secs(1), signal.wait_for(|c| *c))
            .await
            .expect("fires")
            .expect("the sender lives");

        let (run_tx, run_rx) = watch::channel(false);
        let (mut signal, forward) = merged(run_rx, None);
        tokio::spawn(forward);
        run_tx.send(true).unwrap();
        tokio::time::timeout(Duration::from_secs(1), signal.wait_for(|c| *c))
            .await
            .expect("fires")
            .expect("the sender lives");
    }
}
