//! Op of `wf.budget(figures, { hard })` (js/workflow/context.ts): the run's budget, soft unless
//! `hard`; the spend against it so far is given back. The work is budget/'s.

use std::rc::Rc;
use std::sync::Arc;

use serde::Deserialize;

use crate::agents::passed_event;
use crate::budget::{Budget, Limit};
use crate::js::engine::{sync_op, HostState, Json, OpDecl, OpError};
use crate::workflow::run::Run;

pub const OPS: &[OpDecl] = &[sync_op!(run_budget)];

#[derive(Deserialize)]
struct RunBudget(f64, Json, Json);

/// `run_budget(run, figures, options)`: `{ budget, hard, spent, passed }` once set.
fn run_budget(
    state: &Rc<HostState>,
    RunBudget(handle, Json(figures), Json(options)): RunBudget,
) -> Result<serde_json::Value, OpError> {
    let run = state.handle::<Arc<Run>>(handle as u64).ok_or_else(|| {
        OpError::type_error("this workflow context belongs to a run that has ended")
    })?;
    let budget = Budget::from_json(&figures.unwrap_or_default()).map_err(|problem| {
        OpError::type_error(format!("wf.budget(figures): the budget {problem}")).with_hint(Some(
            "give the most the run may spend, e.g. wf.budget({ usd: 5 }) or wf.budget({ tokens: \
             2000000 }, { hard: true })"
                .into(),
        ))
    })?;
    let options = options.unwrap_or_default();
    let hard = match options.get("hard") {
        None | Some(serde_json::Value::Null) => false,
        Some(serde_json::Value::Bool(hard)) => *hard,
        Some(other) => {
            return Err(OpError::type_error(format!(
                "wf.budget(figures, options): options.hard must be true or false, not {other}"
            ))
            .with_hint(Some("write wf.budget({ usd: 5 }, { hard: true })".into())))
        }
    };
    let budgets = &run.agents.link().budgets;
    match budgets.set_run(Limit { budget, hard }) {
        Ok(Some(passed)) => run.record(&passed_event(passed)),
        Ok(None) => {}
        Err(operator) => tracing::info!(
            "wf.budget: the operator's --budget-* ({}) stands",
            operator.describe()
        ),
    }
    Ok(serde_json::to_value(budgets.run.report()).unwrap_or_default())
}
