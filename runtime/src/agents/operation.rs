//! One operation on an agent (a turn, a message turn, a compaction, a fork), from its place in
//! the agent's queue to its recorded end: the skeleton they share.
//!
//! The workflow's call takes the operation's ticket (queue.rs: order is call order) and fixes
//! its deadline (`Deadline::Fixed`, the least of its own timeout and the run's), both before it
//! queues; waiting uses the deadline up and nothing extends it. A fork's bound counts from its
//! start instead (`Deadline::FromStart`). While it waits for the agent's earlier operations,
//! its deadline, the run's cancellation, or the workflow cancelling it on its own (a turn
//! given a token, cancel.rs) end it unstarted (`Unstarted`). Once served it runs in a `Scope`:
//! its deadline and one cancel flag for the run's cancellation and its own, which is what its
//! harness watches. However it ends, its end is recorded once (`Operation::settle`), and only
//! then does the agent's next operation start (its ticket drops).
//!
//! Each operation supplies what differs (`Operation`): how it ends unstarted, what it does once
//! served, how its end is recorded.

use std::future::Future;
use std::time::{Duration, Instant};

use tokio::sync::watch;

use super::cancel::{self, TurnCancels};
use super::queue::Ticket;
use super::{Agent, Outcome};
use crate::cancel::until_cancelled;

/// When an operation must be done by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Deadline {
    /// Fixed when the operation was called, before it queued: the time it waits is its own.
    Fixed(Instant),
    /// `bound` from its start, and no later than `latest`: a fork makes no model call, so its
    /// time counts once it begins (reference: agentswf.md §1.4).
    FromStart { bound: Duration, latest: Instant },
}

impl Deadline {
    /// What bounds the wait in the queue, if anything.
    fn while_queued(self) -> Option<Instant> {
        match self {
            Deadline::Fixed(at) => Some(at),
            Deadline::FromStart { .. } => None,
        }
    }

    /// The deadline of an operation that starts at `started`.
    fn once_started(self, started: Instant) -> Instant {
        match self {
            Deadline::Fixed(at) => at,
            Deadline::FromStart { bound, latest } => started
                .checked_add(bound)
                .map_or(latest, |at| at.min(latest)),
        }
    }
}

/// What an operation queues with, taken when the workflow called it.
pub(super) struct Queued<'a> {
    pub ticket: Ticket,
    pub deadline: Deadline,
    /// The run's cancellation.
    pub run_cancelled: watch::Receiver<bool>,
    /// The agent's operations the workflow may cancel, and this one's id among them; `None`
    /// for one that has no id before it starts (a fork).
    pub cancels: Option<(&'a TurnCancels, String)>,
}

impl<'a> Queued<'a> {
    /// What an operation of `agent` called now queues with: its deadline was fixed at the call,
    /// and the workflow may cancel it by its id (if it gave a token, cancel.rs).
    pub fn fixed(agent: &'a Agent, ticket: Ticket, deadline: Instant, id: &str) -> Queued<'a> {
        Queued {
            ticket,
            deadline: Deadline::Fixed(deadline),
            run_cancelled: agent.link.cancelled.clone(),
            cancels: Some((&agent.cancels, id.to_string())),
        }
    }
}

/// Why an operation ended before it started.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unstarted {
    /// Its deadline passed while it waited.
    TimedOut,
    RunCancelled,
    /// The workflow cancelled it, with this reason.
    Cancelled(String),
}

impl Unstarted {
    /// As the outcome of the operation `name` (`"turn"`, `"compaction"`), in the words records
    /// keep.
    pub fn outcome(self, name: &str) -> Outcome {
        match self {
            Unstarted::TimedOut => Outcome::TimedOut(format!(
                "the {name}'s deadline passed while it waited for the agent's earlier operations"
            )),
            Unstarted::RunCancelled => {
                Outcome::Cancelled(format!("the run was cancelled before the {name} began"))
            }
            Unstarted::Cancelled(reason) => {
                Outcome::Cancelled(format!("{reason} (before the {name} began)"))
            }
        }
    }
}

/// What a started operation runs under.
pub(super) struct Scope {
    pub deadline: Instant,
    /// When it started (it queued since the workflow called it).
    pub started: Instant,
    /// Becomes `true` when the run is cancelled or the workflow cancels this operation: the
    /// flag its harness watches.
    pub cancelled: watch::Receiver<bool>,
    own: Option<watch::Receiver<Option<String>>>,
}

impl Scope {
    /// Why it was cancelled, as its outcome says: the workflow's reason, else the run's.
    pub fn cancelled_why(&self) -> String {
        cancel::reason(&self.own).unwrap_or_else(|| "the run was cancelled".into())
    }
}

/// What one kind of operation does in the shared skeleton.
pub(super) trait Operation: Send {
    /// What its caller gets.
    type End: Send;
    /// Its end when it never started.
    fn unstarted(&mut self, why: Unstarted) -> Self::End;
    /// Runs it, once the agent's earlier operations are done.
    fn run(&mut self, scope: &Scope) -> impl Future<Output = Self::End> + Send;
    /// Records how it ended (`called`: when the workflow called it), once, before the agent's
    /// next operation starts.
    fn settle(&mut self, end: &Self::End, called: Instant);
}

/// Runs `op` through the agent's queue to its recorded end.
pub(super) async fn run<O: Operation>(mut op: O, queued: Queued<'_>) -> O::End {
    let called = Instant::now();
    let Queued {
        mut ticket,
        deadline,
        run_cancelled,
        cancels,
    } = queued;
    let mut own = cancels.as_ref().and_then(|(cancels, id)| cancels.watch(id));
    let waited = wait(
        &mut ticket,
        deadline.while_queued(),
        run_cancelled.clone(),
        &mut own,
    )
    .await;
    let end = match waited {
        Err(why) => op.unstarted(why),
        Ok(()) => {
            let started = Instant::now();
            let (flag, forward) = cancel::merged(run_cancelled, own.clone());
            let scope = Scope {
                deadline: deadline.once_started(started),
                started,
                cancelled: flag,
                own,
            };
            tokio::select! {
                end = op.run(&scope) => end,
                never = forward => match never {},
            }
        }
    };
    if let Some((cancels, id)) = &cancels {
        cancels.done(id);
    }
    op.settle(&end, called);
    // The agent's next operation may start.
    drop(ticket);
    end
}

/// Waits until `ticket` is served, or why not: `deadline` passed, the run was cancelled, or
/// `own` (the workflow's cancel of this operation) was.
pub(super) async fn wait(
    ticket: &mut Ticket,
    deadline: Option<Instant>,
    mut run_cancelled: watch::Receiver<bool>,
    own: &mut Option<watch::Receiver<Option<String>>>,
) -> Result<(), Unstarted> {
    tokio::select! {
        _ = ticket.served() => Ok(()),
        _ = until(deadline) => Err(Unstarted::TimedOut),
        _ = until_cancelled(&mut run_cancelled) => Err(Unstarted::RunCancelled),
        reason = cancel::until_turn_cancelled(own) => Err(Unstarted::Cancelled(reason)),
    }
}

/// Resolves at `deadline`; never without one.
async fn until(deadline: Option<Instant>) {
    match deadline {
        Some(at) => tokio::time::sleep_until(at.into()).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::queue::TurnQueue;
    use std::sync::{Arc, Mutex};
    use tokio::sync::oneshot;

    /// What the test operations did, in order.
    type Log = Arc<Mutex<Vec<String>>>;

    /// How a test operation's run goes once it starts.
    enum Body {
        /// Yields to the scheduler a few times, so that others could interleave.
        Yields,
        /// Holds until released.
        Holds(oneshot::Receiver<()>),
        /// Waits for its cancel flag; ends with why it was cancelled.
        UntilCancelled,
    }

    struct TestOp {
        name: &'static str,
        body: Option<Body>,
        log: Log,
        /// The deadline it ran under.
        deadline: Arc<Mutex<Option<Instant>>>,
    }

    impl TestOp {
        fn note(&self, what: &str) {
            self.log
                .lock()
                .unwrap()
                .push(format!("{} {what}", self.name));
        }
    }

    impl Operation for TestOp {
        type End = String;

        fn unstarted(&mut self, why: Unstarted) -> String {
            self.note("unstarted");
            why.outcome("test").detail().unwrap_or_default().to_string()
        }

        fn run(&mut self, scope: &Scope) -> impl Future<Output = String> + Send {
            *self.deadline.lock().unwrap() = Some(scope.deadline);
            self.note("started");
            let body = self.body.take();
            let mut cancelled = scope.cancelled.clone();
            async move {
                match body {
                    Some(Body::Yields) | None => {
                        for _ in 0..10 {
                            tokio::task::yield_now().await;
                        }
                        "done".to_string()
                    }
                    Some(Body::Holds(release)) => {
                        let _ = release.await;
                        "released".to_string()
                    }
                    Some(Body::UntilCancelled) => {
                        until_cancelled(&mut cancelled).await;
                        scope.cancelled_why()
                    }
                }
            }
        }

        fn settle(&mut self, end: &String, _called: Instant) {
            self.note(&format!("settled: {end}"));
        }
    }

    struct Agent {
        queue: Arc<TurnQueue>,
        cancels: Arc<TurnCancels>,
        run: watch::Sender<bool>,
        log: Log,
    }

    impl Agent {
        fn new() -> Agent {
            Agent {
                queue: Arc::new(TurnQueue::default()),
                cancels: Arc::new(TurnCancels::default()),
                run: watch::Sender::new(false),
                log: Log::default(),
            }
        }

        /// Calls an operation now: its ticket and deadline are taken here, in call order; it
        /// runs once the returned future is polled. What it ran under is kept.
        fn called(
            &self,
            name: &'static str,
            body: Body,
            deadline: Deadline,
        ) -> (
            impl Future<Output = String> + Send + 'static,
            Arc<Mutex<Option<Instant>>>,
        ) {
            let ticket = self.queue.ticket();
            let ran_under = Arc::new(Mutex::new(None));
            let op = TestOp {
                name,
                body: Some(body),
                log: self.log.clone(),
                deadline: ran_under.clone(),
            };
            let cancels = self.cancels.clone();
            let run_cancelled = self.run.subscribe();
            let running = async move {
                let queued = Queued {
                    ticket,
                    deadline,
                    run_cancelled,
                    cancels: Some((&*cancels, name.to_string())),
                };
                run(op, queued).await
            };
            (running, ran_under)
        }

        /// Calls an operation now and runs it on a task.
        fn call(
            &self,
            name: &'static str,
            body: Body,
            deadline: Deadline,
        ) -> (tokio::task::JoinHandle<String>, Arc<Mutex<Option<Instant>>>) {
            let (running, ran_under) = self.called(name, body, deadline);
            (tokio::spawn(running), ran_under)
        }

        fn log(&self) -> Vec<String> {
            self.log.lock().unwrap().clone()
        }

        /// Waits until the log has `line`.
        async fn logged(&self, line: &str) {
            while !self.log().iter().any(|l| l == line) {
                tokio::task::yield_now().await;
            }
        }
    }

    fn far() -> Deadline {
        Deadline::Fixed(Instant::now() + Duration::from_secs(600))
    }

    #[tokio::test]
    async fn operations_run_one_at_a_time_in_call_order() {
        let agent = Agent::new();
        let calls: Vec<_> = ["a", "b", "c"]
            .into_iter()
            .map(|name| agent.called(name, Body::Yields, far()).0)
            .collect();
        // Spawned in reverse, so that the order tasks are polled in is not the call order.
        let tasks: Vec<_> = calls.into_iter().rev().map(tokio::spawn).collect();
        for task in tasks {
            assert_eq!(task.await.unwrap(), "done");
        }
        let expected: Vec<String> = ["a", "b", "c"]
            .iter()
            .flat_map(|n| [format!("{n} started"), format!("{n} settled: done")])
            .collect();
        assert_eq!(agent.log(), expected);
        assert_eq!(agent.queue.pending(), 0);
    }

    #[tokio::test]
    async fn a_deadline_fixed_before_queueing_is_not_extended() {
        let agent = Agent::new();
        let (release_a, hold_a) = oneshot::channel();
        let (a, _) = agent.call("a", Body::Holds(hold_a), far());
        // b's deadline passes while a still runs: b ends unstarted, and c behind it goes on.
        let soon = Instant::now() + Duration::from_millis(100);
        let (b, _) = agent.call("b", Body::Yields, Deadline::Fixed(soon));
        let fixed = Instant::now() + Duration::from_secs(300);
        let (c, c_ran_under) = agent.call("c", Body::Yields, Deadline::Fixed(fixed));
        assert_eq!(
            b.await.unwrap(),
            "the test's deadline passed while it waited for the agent's earlier operations"
        );
        assert!(Instant::now() >= soon);
        assert!(!agent.log().contains(&"b started".to_string()));
        release_a.send(()).unwrap();
        assert_eq!(a.await.unwrap(), "released");
        assert_eq!(c.await.unwrap(), "done");
        // c started later than it was called, and runs under the deadline fixed at its call.
        assert_eq!(*c_ran_under.lock().unwrap(), Some(fixed));
    }

    #[tokio::test]
    async fn a_deadline_from_the_start_counts_once_served() {
        let agent = Agent::new();
        let (release_a, hold_a) = oneshot::channel();
        let (a, _) = agent.call("a", Body::Holds(hold_a), far());
        let latest = Instant::now() + Duration::from_secs(600);
        let bound = Duration::from_secs(60);
        let (fork, ran_under) =
            agent.call("f", Body::Yields, Deadline::FromStart { bound, latest });
        agent.logged("a started").await;
        let before_start = Instant::now();
        release_a.send(()).unwrap();
        a.await.unwrap();
        assert_eq!(fork.await.unwrap(), "done");
        let deadline = ran_under.lock().unwrap().expect("it started");
        assert!(deadline >= before_start + bound && deadline <= latest);
    }

    #[tokio::test]
    async fn cancelled_while_queued_it_never_starts_and_the_queue_goes_on() {
        let agent = Agent::new();
        let (release_a, hold_a) = oneshot::channel();
        let (a, _) = agent.call("a", Body::Holds(hold_a), far());
        agent.cancels.register("token-b", "b");
        let (b, _) = agent.call("b", Body::Yields, far());
        let (c, _) = agent.call("c", Body::Yields, far());
        agent.logged("a started").await;
        assert!(agent
            .cancels
            .cancel("token-b", "wf.race: another branch settled first"));
        assert_eq!(
            b.await.unwrap(),
            "wf.race: another branch settled first (before the test began)"
        );
        // Its entry is gone: a later cancel finds nothing.
        assert!(!agent.cancels.cancel("token-b", "again"));
        release_a.send(()).unwrap();
        a.await.unwrap();
        assert_eq!(c.await.unwrap(), "done");
        assert!(!agent.log().contains(&"b started".to_string()));

        let (release_d, hold_d) = oneshot::channel::<()>();
        let (d, _) = agent.call("d", Body::Holds(hold_d), far());
        let (e, _) = agent.call("e", Body::Yields, far());
        agent.logged("d started").await;
        agent.run.send_replace(true);
        assert_eq!(
            e.await.unwrap(),
            "the run was cancelled before the test began"
        );
        drop(release_d);
        d.await.unwrap();
    }

    #[tokio::test]
    async fn cancelled_while_running_its_flag_fires_with_the_reason() {
        let agent = Agent::new();
        agent.cancels.register("token-a", "a");
        let (a, _) = agent.call("a", Body::UntilCancelled, far());
        agent.logged("a started").await;
        assert!(agent
            .cancels
            .cancel("token-a", "wf.select: another case was chosen"));
        assert_eq!(a.await.unwrap(), "wf.select: another case was chosen");
        assert!(!agent.cancels.cancel("token-a", "after its end"));

        let (b, _) = agent.call("b", Body::UntilCancelled, far());
        agent.logged("b started").await;
        agent.run.send_replace(true);
        assert_eq!(b.await.unwrap(), "the run was cancelled");
        assert_eq!(
            agent.log().last().map(String::as_str),
            Some("b settled: the run was cancelled")
        );
    }
}
