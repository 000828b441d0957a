//! Budgets: how much an agent (`budget` on `wf.agents.open`) or a whole run (`wf.budget`,
//! `awf run --budget-tokens/--budget-usd`) may spend, and the spend counted against them.
//!
//! A `Guard` holds one budget and what was spent under it: the settled turns' usage and, for
//! each turn under way, what its CLI reported so far (per model response where the CLI streams
//! it, else at the attempt's end; agents/turn.rs reports it). Tokens count input (cached
//! included) and output (reasoning included); dollars are the usage's cost, reported by the CLI
//! or estimated from the price table (usage/prices.rs), and a turn that is unpriced adds none.
//!
//! When the spend passes the budget the guard says so once (`Passed`, which the caller records).
//! A hard budget then stops: `blocked()` gives the detail a turn ends `blocked` with, and
//! `watch()` fires, which the agents' running turns stop on as on a cancel. A new figure
//! (`set`: the workflow's, or a continued run's `--budget-usd`) that the spend has not passed
//! lets the agents go on.

pub mod run;

use std::collections::HashMap;
use std::sync::Mutex;

use serde::Serialize;
use serde_json::Value;
use tokio::sync::watch;

use crate::usage::{thousands, Usage};

pub use run::RunBudgets;

/// A limit on tokens, dollars, or both (whichever is passed first).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Budget {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usd: Option<f64>,
}

/// The keys a budget object may hold.
pub const BUDGET_KEYS: &[&str] = &["tokens", "usd"];

impl Budget {
    /// Reads `{ tokens?, usd? }`; the error says which field is wrong and how.
    pub fn from_json(value: &Value) -> Result<Budget, String> {
        let Some(object) = value.as_object() else {
            return Err(format!(
                "must be an object {{ tokens?, usd? }}, not {value}"
            ));
        };
        if let Some(key) = object.keys().find(|k| !BUDGET_KEYS.contains(&k.as_str())) {
            return Err(format!(
                "has an unknown key {key:?} (it takes tokens and usd)"
            ));
        }
        let tokens = match object.get("tokens") {
            None | Some(Value::Null) => None,
            Some(n) => Some(
                n.as_u64()
                    .filter(|n| *n > 0)
                    .ok_or(format!("tokens must be a whole number above 0, not {n}"))?,
            ),
        };
        let usd = match object.get("usd") {
            None | Some(Value::Null) => None,
            Some(n) => Some(
                n.as_f64()
                    .filter(|n| n.is_finite() && *n > 0.0)
                    .ok_or(format!("usd must be a number of dollars above 0, not {n}"))?,
            ),
        };
        if tokens.is_none() && usd.is_none() {
            return Err("sets no limit: give tokens, usd or both".into());
        }
        Ok(Budget { tokens, usd })
    }

    /// `1,000 tokens`, `$0.50`, `1,000 tokens or $0.50`.
    pub fn describe(&self) -> String {
        let parts: Vec<String> = [
            self.tokens.map(|t| format!("{} tokens", thousands(t))),
            self.usd.map(dollars),
        ]
        .into_iter()
        .flatten()
        .collect();
        parts.join(" or ")
    }

    /// Whether `spent` has passed it.
    pub fn passed_by(&self, spent: &Usage) -> bool {
        self.tokens.is_some_and(|t| tokens(spent) > t)
            || self
                .usd
                .is_some_and(|usd| spent.cost_usd.is_some_and(|c| c > usd))
    }
}

/// The tokens a budget counts: input (cached included) and output (reasoning included).
pub fn tokens(usage: &Usage) -> u64 {
    usage.tokens.input_tokens + usage.tokens.output_tokens
}

/// `$0.5000`.
fn dollars(usd: f64) -> String {
    format!("${usd:.4}")
}

/// `1,234 tokens, $0.0120`: what was spent, in the units of `budget`.
pub fn spent_words(budget: &Budget, spent: &Usage) -> String {
    let mut parts = Vec::new();
    if budget.tokens.is_some() {
        parts.push(format!("{} tokens", thousands(tokens(spent))));
    }
    if budget.usd.is_some() {
        parts.push(match spent.cost_usd {
            Some(usd) => dollars(usd),
            None => "$0 (unpriced)".into(),
        });
    }
    parts.join(", ")
}

/// A budget as set: its figures and whether passing it stops agents.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Limit {
    pub budget: Budget,
    pub hard: bool,
}

/// Whose budget a guard holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Whose {
    Agent(String),
    Run,
}

impl Whose {
    /// `agent "a"'s`, `the run's`.
    fn possessive(&self) -> String {
        match self {
            Whose::Agent(key) => format!("agent {key:?}'s"),
            Whose::Run => "the run's".into(),
        }
    }

    /// The agent's key, `None` for the run.
    pub fn agent(&self) -> Option<&str> {
        match self {
            Whose::Agent(key) => Some(key),
            Whose::Run => None,
        }
    }
}

/// A budget the spend has just passed: what to record and warn about.
#[derive(Clone, Debug, PartialEq)]
pub struct Passed {
    pub whose: Whose,
    pub limit: Limit,
    pub spent: Usage,
    /// `agent "a"'s hard budget of 1,000 tokens was passed: 1,234 tokens spent`.
    pub detail: String,
}

/// One budget and the spend counted against it.
pub struct Guard {
    whose: Whose,
    state: Mutex<State>,
    /// The detail of a hard budget passed, while it is: what running turns stop on.
    stop: watch::Sender<Option<String>>,
}

#[derive(Default)]
struct State {
    limit: Option<Limit>,
    /// What settled turns used (and, in a continued run, earlier attempts).
    settled: Usage,
    /// What each turn under way reported so far, by turn id.
    running: HashMap<String, Usage>,
    /// The budget was passed and has not been raised since.
    passed: bool,
}

impl State {
    fn spent(&self) -> Usage {
        let mut spent = self.settled;
        for usage in self.running.values() {
            spent.add(usage);
        }
        spent
    }
}

impl Guard {
    /// A guard of `whose` budget (`None`: none set yet), `before` already spent.
    pub fn new(whose: Whose, limit: Option<Limit>, before: Usage) -> Guard {
        let guard = Guard {
            whose,
            state: Mutex::new(State {
                limit,
                settled: before,
                ..State::default()
            }),
            stop: watch::Sender::new(None),
        };
        guard.check(&mut guard.lock());
        guard
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sets a new figure (or none); `Some` when the spend already passes it.
    pub fn set(&self, limit: Option<Limit>) -> Option<Passed> {
        let mut state = self.lock();
        state.limit = limit;
        state.passed = false;
        self.stop.send_replace(None);
        self.check(&mut state)
    }

    /// Adds `delta` to what the turn `turn` used so far; `Some` when that passes the budget.
    pub fn running(&self, turn: &str, delta: &Usage) -> Option<Passed> {
        let mut state = self.lock();
        state
            .running
            .entry(turn.to_string())
            .or_default()
            .add(delta);
        self.check(&mut state)
    }

    /// The turn `turn` ended having used `used` in all.
    pub fn settle(&self, turn: &str, used: &Usage) -> Option<Passed> {
        let mut state = self.lock();
        state.running.remove(turn);
        state.settled.add(used);
        self.check(&mut state)
    }

    fn check(&self, state: &mut State) -> Option<Passed> {
        let limit = state.limit?;
        let spent = state.spent();
        if state.passed || !limit.budget.passed_by(&spent) {
            return None;
        }
        state.passed = true;
        let detail = format!(
            "{} {}budget of {} was passed: {} spent",
            self.whose.possessive(),
            if limit.hard { "hard " } else { "" },
            limit.budget.describe(),
            spent_words(&limit.budget, &spent)
        );
        if limit.hard {
            self.stop.send_replace(Some(detail.clone()));
        }
        Some(Passed {
            whose: self.whose.clone(),
            limit,
            spent,
            detail,
        })
    }

    /// The detail a turn ends `blocked` with, while a hard budget is passed.
    pub fn blocked(&self) -> Option<String> {
        self.stop.borrow().clone()
    }

    /// Fires (`Some(detail)`) when a hard budget is passed.
    pub fn watch(&self) -> watch::Receiver<Option<String>> {
        self.stop.subscribe()
    }

    /// The budget, what was spent against it and whether it was passed; `None` without one.
    pub fn report(&self) -> Option<Report> {
        let state = self.lock();
        let limit = state.limit?;
        Some(Report {
            budget: limit.budget,
            hard: limit.hard,
            spent: state.spent(),
            passed: state.passed,
        })
    }
}

/// A budget against its spend, for the closing summary, output.json and `awf runs`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub budget: Budget,
    pub hard: bool,
    pub spent: Usage,
    pub passed: bool,
}

impl Report {
    /// `1,234 tokens of 1,000 (hard, passed)`.
    pub fn words(&self) -> String {
        format!(
            "{} of {} ({}{})",
            spent_words(&self.budget, &self.spent),
            self.budget.describe(),
            if self.hard { "hard" } else { "soft" },
            if self.passed { ", passed" } else { "" }
        )
    }
}

/// Resolves once either guard watched (an agent's and the run's) blocks; never if neither does.
pub async fn until_blocked(
    mut own: Option<watch::Receiver<Option<String>>>,
    mut run: watch::Receiver<Option<String>>,
) {
    async fn blocks(guard: Option<&mut watch::Receiver<Option<String>>>) {
        if let Some(guard) = guard {
            if guard.wait_for(Option::is_some).await.is_ok() {
                return;
            }
        }
        std::future::pending().await
    }
    tokio::select! {
        _ = blocks(own.as_mut()) => {}
        _ = blocks(Some(&mut run)) => {}
    }
}

#[cfg(test)]
mod tests;
