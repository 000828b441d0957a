//! One operation at a time per agent, in call order.
//!
//! A ticket is taken synchronously when the operation is called (so order is the order of the
//! calls, not of whichever task tokio polls first); the operation waits until its ticket is
//! served and hands on when its `QueueTurn` drops. A ticket given up before it was served (its
//! operation timed out or was cancelled while waiting) is skipped when its time comes.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::watch;

#[derive(Debug)]
pub struct TurnQueue {
    next: AtomicU64,
    serving: watch::Sender<u64>,
    given_up: Mutex<BTreeSet<u64>>,
}

impl Default for TurnQueue {
    fn default() -> TurnQueue {
        TurnQueue {
            next: AtomicU64::new(0),
            serving: watch::Sender::new(0),
            given_up: Mutex::default(),
        }
    }
}

/// A place in the queue; served or not, dropping it lets the queue go on.
pub struct Ticket {
    queue: Arc<TurnQueue>,
    number: u64,
    served: bool,
}

impl TurnQueue {
    pub fn ticket(self: &Arc<Self>) -> Ticket {
        Ticket {
            queue: self.clone(),
            number: self.next.fetch_add(1, Ordering::SeqCst),
            served: false,
        }
    }

    /// Operations queued or running.
    pub fn pending(&self) -> u64 {
        self.next.load(Ordering::SeqCst) - *self.serving.borrow()
    }

    fn advance_past(&self, number: u64) {
        let given_up = self.given_up.lock().unwrap_or_else(|e| e.into_inner());
        self.serving.send_modify(|serving| {
            if *serving == number {
                *serving += 1;
                while given_up.contains(serving) {
                    *serving += 1;
                }
            }
        });
    }
}

impl Ticket {
    /// Waits until it is this ticket's turn.
    pub async fn served(&mut self) {
        let mut serving = self.queue.serving.subscribe();
        while *serving.borrow_and_update() != self.number {
            if serving.changed().await.is_err() {
                break;
            }
        }
        self.served = true;
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        if self.served {
            self.queue.advance_past(self.number);
            return;
        }
        let mut given_up = self
            .queue
            .given_up
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        given_up.insert(self.number);
        let serving = *self.queue.serving.borrow();
        drop(given_up);
        if serving == self.number {
            self.queue.advance_past(self.number);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn tickets_are_served_in_the_order_they_were_taken() {
        let queue = Arc::new(TurnQueue::default());
        let order = Arc::new(Mutex::new(Vec::new()));
        let mut tasks = Vec::new();
        let tickets: Vec<Ticket> = (0..5).map(|_| queue.ticket()).collect();
        // Spawn in reverse so that polling order differs from ticket order.
        for (i, mut ticket) in tickets.into_iter().enumerate().rev() {
            let order = order.clone();
            tasks.push(tokio::spawn(async move {
                ticket.served().await;
                order.lock().unwrap().push(i);
                tokio::time::sleep(Duration::from_millis(2)).await;
            }));
        }
        for task in tasks {
            task.await.unwrap();
        }
        assert_eq!(*order.lock().unwrap(), vec![0, 1, 2, 3, 4]);
        assert_eq!(queue.pending(), 0);
    }

    #[tokio::test]
    async fn a_ticket_given_up_while_waiting_is_skipped() {
        let queue = Arc::new(TurnQueue::default());
        let mut first = queue.ticket();
        let second = queue.ticket();
        let mut third = queue.ticket();
        first.served().await;
        drop(second);
        drop(first);
        tokio::time::timeout(Duration::from_secs(1), third.served())
            .await
            .expect("the third ticket is served once the first is done");
    }
}
