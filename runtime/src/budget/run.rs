//! A run's budgets: the run's own guard (`wf.budget`, or the operator's `awf run --budget-tokens
//! / --budget-usd`, which wins), the agents' guards made at their open, and what the run's
//! earlier attempts spent, which a continued run counts against both (each ended attempt's
//! record holds its agents' totals, as output.json has them).

use std::collections::HashMap;
use std::sync::Mutex;

use serde_json::Value;

use super::{Budget, Guard, Limit, Passed, Whose};
use crate::usage::{spent_by_agent, Usage};

/// The budgets of one attempt of a run.
pub struct RunBudgets {
    pub run: Guard,
    /// The operator's figure (`awf run --budget-*`): hard, and `wf.budget` cannot change it.
    operator: Mutex<Option<Budget>>,
    /// What each agent key spent in the run's earlier attempts.
    before: HashMap<String, Usage>,
}

impl Default for RunBudgets {
    fn default() -> RunBudgets {
        RunBudgets::new(None, HashMap::new())
    }
}

impl RunBudgets {
    /// The budgets of an attempt: `operator`'s figure for the run, if given; `before`, what each
    /// agent key spent in earlier attempts.
    pub fn new(operator: Option<Budget>, before: HashMap<String, Usage>) -> RunBudgets {
        let mut spent = Usage::default();
        for usage in before.values() {
            spent.add(usage);
        }
        let limit = operator.map(|budget| Limit { budget, hard: true });
        RunBudgets {
            run: Guard::new(Whose::Run, limit, spent),
            operator: Mutex::new(operator),
            before,
        }
    }

    /// The budgets of an attempt of a run whose attempts' records are `attempts` (a new run's:
    /// none, or its own, not ended).
    pub fn of_attempts(attempts: &[Value]) -> RunBudgets {
        RunBudgets::new(None, spent_by_agent(attempts))
    }

    fn operator_figure(&self) -> Option<Budget> {
        *self.operator.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The operator's figure (`awf run --budget-*`), set as the attempt starts: the run's
    /// budget, hard; `Some` when the spend already passes it.
    pub fn operator(&self, budget: Budget) -> Option<Passed> {
        *self.operator.lock().unwrap_or_else(|e| e.into_inner()) = Some(budget);
        self.run.set(Some(Limit { budget, hard: true }))
    }

    /// `wf.budget(figures, { hard })`: `Err` names the operator's figure it cannot replace.
    pub fn set_run(&self, limit: Limit) -> Result<Option<Passed>, Budget> {
        match self.operator_figure() {
            Some(operator) => Err(operator),
            None => Ok(self.run.set(Some(limit))),
        }
    }

    /// The guard of agent `key`'s own budget (hard), counting what the key spent before.
    pub fn agent(&self, key: &str, budget: Option<Budget>) -> Guard {
        let limit = budget.map(|budget| Limit { budget, hard: true });
        let before = self.before.get(key).copied().unwrap_or_default();
        Guard::new(Whose::Agent(key.to_string()), limit, before)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn earlier_attempts_count_for_the_run_and_each_agent() {
        let attempts = vec![
            json!({"usage": {"a": {"inputTokens": 900, "outputTokens": 100, "costUsd": 0.5}}}),
            json!({"reason": "killed"}),
            json!({"usage": {"a": {"inputTokens": 90, "outputTokens": 10}, "b": {"inputTokens": 5}}}),
        ];
        let before = spent_by_agent(&attempts);
        assert_eq!(super::super::tokens(&before["a"]), 1100);
        assert_eq!(before["a"].cost_usd, Some(0.5));
        let budgets = RunBudgets::new(None, before);
        let a = budgets.agent(
            "a",
            Some(Budget {
                tokens: Some(1000),
                usd: None,
            }),
        );
        assert!(a.blocked().is_some(), "a's earlier spend passes 1,000");
        assert!(budgets.agent("b", None).blocked().is_none());
        let run = budgets
            .set_run(Limit {
                budget: Budget {
                    tokens: Some(1104),
                    usd: None,
                },
                hard: true,
            })
            .unwrap()
            .expect("1,105 passes 1,104");
        assert!(run.detail.contains("1,105 tokens spent"), "{}", run.detail);
    }

    #[test]
    fn the_operators_figure_is_hard_and_wins() {
        let budgets = RunBudgets::new(
            Some(Budget {
                tokens: None,
                usd: Some(5.0),
            }),
            HashMap::new(),
        );
        let report = budgets.run.report().unwrap();
        assert!(report.hard);
        let refused = budgets.set_run(Limit {
            budget: Budget {
                tokens: Some(1),
                usd: None,
            },
            hard: false,
        });
        assert_eq!(refused.unwrap_err().usd, Some(5.0));
    }
}
