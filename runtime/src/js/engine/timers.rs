//! The host's timers: a wheel ordered by due time. js/core.ts schedules through the timer
//! primitives (primitives.rs); the event loop fires what is due, one timer at a time, so a
//! callback may start or clear timers (itself included) as it runs.

use std::collections::{BTreeSet, HashMap};
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug)]
struct Timer {
    at: Instant,
    every: Option<Duration>,
    refed: bool,
}

/// Timers by due time (ties in start order) and by id.
#[derive(Default)]
pub struct TimerWheel {
    by_time: BTreeSet<(Instant, u64)>,
    by_id: HashMap<u64, Timer>,
}

impl TimerWheel {
    /// Schedules timer `id` at `now + delay`, again every `delay` (at least 1 ms) if it repeats.
    pub fn start(&mut self, id: u64, now: Instant, delay: Duration, repeat: bool) {
        self.insert(
            id,
            Timer {
                at: now + delay,
                every: repeat.then_some(delay.max(Duration::from_millis(1))),
                refed: true,
            },
        );
    }

    fn insert(&mut self, id: u64, timer: Timer) {
        self.by_time.insert((timer.at, id));
        self.by_id.insert(id, timer);
    }

    /// Forgets every timer.
    pub fn clear_all(&mut self) {
        self.by_time.clear();
        self.by_id.clear();
    }

    pub fn clear(&mut self, id: u64) {
        if let Some(timer) = self.by_id.remove(&id) {
            self.by_time.remove(&(timer.at, id));
        }
    }

    /// Whether timer `id` keeps the host's call alive (Node's `ref`/`unref`).
    pub fn set_ref(&mut self, id: u64, refed: bool) {
        if let Some(timer) = self.by_id.get_mut(&id) {
            timer.refed = refed;
        }
    }

    pub fn next_at(&self) -> Option<Instant> {
        self.by_time.first().map(|(at, _)| *at)
    }

    /// The earliest timer due at `now`, rescheduled if it repeats.
    pub fn pop_due(&mut self, now: Instant) -> Option<u64> {
        let &(at, id) = self.by_time.first()?;
        if at > now {
            return None;
        }
        self.by_time.remove(&(at, id));
        let timer = self.by_id.remove(&id)?;
        if let Some(every) = timer.every {
            self.insert(
                id,
                Timer {
                    at: now + every,
                    ..timer
                },
            );
        }
        Some(id)
    }

    /// Whether any timer keeps the call alive.
    pub fn any_refed(&self) -> bool {
        self.by_id.values().any(|t| t.refed)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{call_js, host};
    use super::*;
    use crate::js::CallEnd;
    use serde_json::json;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn timers_pop_in_due_order_then_start_order() {
        let now = Instant::now();
        let mut wheel = TimerWheel::default();
        wheel.start(1, now, ms(20), false);
        wheel.start(2, now, ms(10), false);
        wheel.start(3, now, ms(10), false);
        assert_eq!(wheel.pop_due(now + ms(5)), None);
        let due: Vec<u64> = std::iter::from_fn(|| wheel.pop_due(now + ms(30))).collect();
        assert_eq!(due, [2, 3, 1]);
        assert_eq!(wheel.next_at(), None);
    }

    #[test]
    fn a_cleared_timer_never_fires_and_a_repeating_one_comes_back() {
        let now = Instant::now();
        let mut wheel = TimerWheel::default();
        wheel.start(1, now, ms(10), true);
        wheel.start(2, now, ms(10), false);
        wheel.clear(2);
        assert_eq!(wheel.pop_due(now + ms(10)), Some(1));
        assert_eq!(wheel.pop_due(now + ms(10)), None);
        assert_eq!(wheel.next_at(), Some(now + ms(20)));
        assert!(wheel.any_refed());
        wheel.set_ref(1, false);
        assert!(!wheel.any_refed());
    }

    #[test]
    fn js_timers_fire_in_order_nest_and_clear_from_inside_a_callback() {
        let mut host = host();
        let end = call_js(
            &mut host,
            r#"
            export function main() {
              const seen = [];
              return new Promise((resolve) => {
                setTimeout(() => seen.push("b"), 2);
                setTimeout(() => {
                  seen.push("a");
                  setTimeout(() => { seen.push("nested"); resolve(seen); }, 5);
                }, 0);
                const doomed = setTimeout(() => seen.push("never"), 3);
                setTimeout(() => clearTimeout(doomed), 1);
                const every = setInterval(() => {
                  seen.push("tick");
                  clearInterval(every);
                }, 1);
              });
            }
            "#,
        );
        match end {
            CallEnd::Returned(Some(value)) => {
                assert_eq!(value, json!(["a", "tick", "b", "nested"]))
            }
            other => panic!("{other:?}"),
        }
    }
}
