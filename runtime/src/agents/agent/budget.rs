//! An agent's spend against its own budget (`budget` on `wf.agents.open`) and the run's
//! (`wf.budget`, `awf run --budget-*`): what its turns report is counted as it comes, a budget
//! passed is recorded once (`budget-passed`), and a hard one passed blocks the agent: its running
//! turn stops as on a cancel and ends `blocked`, a later turn is `blocked` without starting.

use crate::budget::{self, Budget, Guard, Passed};
use crate::records::Event;
use crate::usage::Usage;

use super::Agent;

impl Agent {
    /// The guard of the agent's own budget (`None` figure: it has none).
    pub(super) fn budget_guard(link: &super::RunLink, key: &str, budget: Option<Budget>) -> Guard {
        link.budgets.agent(key, budget)
    }

    /// Why the agent may not spend more: the detail of a hard budget passed (its own, else the
    /// run's), with what lets it go on.
    pub fn budget_blocked(&self) -> Option<String> {
        let detail = self
            .budget
            .blocked()
            .or_else(|| self.link.budgets.run.blocked())?;
        Some(format!(
            "{detail}; raise it to go on (budget on wf.agents.open, wf.budget, or awf run \
             --continue <id> --budget-tokens N / --budget-usd N for the run's)"
        ))
    }

    /// Resolves once a hard budget of the agent's (its own or the run's) is passed.
    pub async fn until_budget_blocked(&self) {
        budget::until_blocked(Some(self.budget.watch()), self.link.budgets.run.watch()).await
    }

    /// The turn `turn` has used `delta` more so far (reported as it ran).
    pub fn spend_running(&self, turn: &str, delta: &Usage) {
        let own = self.budget.running(turn, delta);
        let run = self
            .link
            .budgets
            .run
            .running(turn_key(&self.key, turn).as_str(), delta);
        self.record_passed(own);
        self.record_passed(run);
    }

    /// The turn `turn` ended having used `used` in all (priced).
    pub fn spend_settled(&self, turn: &str, used: &Usage) {
        let own = self.budget.settle(turn, used);
        let run = self
            .link
            .budgets
            .run
            .settle(turn_key(&self.key, turn).as_str(), used);
        self.record_passed(own);
        self.record_passed(run);
    }

    /// A reopen's figure: the agent's budget from now on.
    pub(in crate::agents) fn set_budget(&self, budget: Budget) {
        let passed = self
            .budget
            .set(Some(crate::budget::Limit { budget, hard: true }));
        self.record_passed(passed);
    }

    /// The agent's own budget against its spend, if it has one.
    pub fn budget_report(&self) -> Option<budget::Report> {
        self.budget.report()
    }

    fn record_passed(&self, passed: Option<Passed>) {
        if let Some(passed) = passed {
            self.record(&passed_event(passed));
        }
    }
}

/// The record of a budget passed.
pub fn passed_event(passed: Passed) -> Event {
    Event::BudgetPassed {
        agent: passed.whose.agent().map(str::to_string),
        budget: passed.limit.budget,
        hard: passed.limit.hard,
        spent: passed.spent,
        detail: passed.detail,
    }
}

/// A turn as the run's guard keeps it: turn ids are the run's, but forks share none.
fn turn_key(agent: &str, turn: &str) -> String {
    format!("{agent}/{turn}")
}
