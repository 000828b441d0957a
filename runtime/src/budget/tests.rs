//! Unit tests of budgets: reading them, counting spend, passing once, hard and soft, raising.

use super::*;
use crate::usage::Tokens;
use serde_json::json;
use std::time::Duration;

fn used(input: u64, output: u64, usd: Option<f64>) -> Usage {
    Usage {
        tokens: Tokens {
            input_tokens: input,
            cached_input_tokens: input / 2,
            output_tokens: output,
            reasoning_tokens: output / 2,
        },
        cost_usd: usd,
    }
}

fn limit(tokens: Option<u64>, usd: Option<f64>, hard: bool) -> Option<Limit> {
    Some(Limit {
        budget: Budget { tokens, usd },
        hard,
    })
}

#[test]
fn budgets_are_read_with_the_field_that_is_wrong() {
    assert_eq!(
        Budget::from_json(&json!({"tokens": 1000})),
        Ok(Budget {
            tokens: Some(1000),
            usd: None
        })
    );
    assert_eq!(
        Budget::from_json(&json!({"usd": 0.5, "tokens": null})),
        Ok(Budget {
            tokens: None,
            usd: Some(0.5)
        })
    );
    let refused = |v: Value| Budget::from_json(&v).unwrap_err();
    assert!(refused(json!({})).contains("give tokens, usd or both"));
    assert!(refused(json!({"tokens": -1})).contains("tokens must be a whole number"));
    assert!(refused(json!({"tokens": 1.5})).contains("tokens must be a whole number"));
    assert!(refused(json!({"usd": "5"})).contains("usd must be a number"));
    assert!(refused(json!({"dollars": 5})).contains("unknown key \"dollars\""));
    assert!(refused(json!(5)).contains("must be an object"));
}

#[test]
fn tokens_count_input_and_output_and_dollars_the_cost() {
    let spent = used(900, 150, Some(0.02));
    assert_eq!(tokens(&spent), 1050);
    let budget = Budget {
        tokens: Some(1000),
        usd: Some(0.5),
    };
    assert!(budget.passed_by(&spent), "1,050 tokens pass 1,000");
    assert_eq!(budget.describe(), "1,000 tokens or $0.5000");
    assert_eq!(spent_words(&budget, &spent), "1,050 tokens, $0.0200");
    let dollars_only = Budget {
        tokens: None,
        usd: Some(0.01),
    };
    assert!(dollars_only.passed_by(&spent));
    assert!(
        !dollars_only.passed_by(&used(1, 1, None)),
        "unpriced spend passes no dollar budget"
    );
}

#[test]
fn a_hard_budget_is_passed_once_blocks_and_a_higher_figure_lets_go_on() {
    let guard = Guard::new(
        Whose::Agent("a".into()),
        limit(Some(1000), None, true),
        Usage::default(),
    );
    let watch = guard.watch();
    assert_eq!(guard.running("t1", &used(600, 100, None)), None);
    assert_eq!(guard.blocked(), None);
    let passed = guard.running("t1", &used(300, 50, None)).expect("passed");
    assert_eq!(
        passed.detail,
        "agent \"a\"'s hard budget of 1,000 tokens was passed: 1,050 tokens spent"
    );
    assert_eq!(guard.blocked(), Some(passed.detail.clone()));
    assert!(watch.has_changed().unwrap());
    assert_eq!(guard.running("t1", &used(10, 0, None)), None, "said once");
    // The turn's whole usage replaces what it reported as it went.
    assert_eq!(guard.settle("t1", &used(900, 150, None)), None);
    let report = guard.report().unwrap();
    assert_eq!(tokens(&report.spent), 1050);
    assert!(report.passed && report.hard);
    assert_eq!(
        report.words(),
        "1,050 tokens of 1,000 tokens (hard, passed)"
    );

    assert_eq!(guard.set(limit(Some(5000), None, true)), None);
    assert_eq!(guard.blocked(), None, "a higher figure lets it go on");
    let lower = guard
        .set(limit(Some(1000), None, true))
        .expect("passed at once");
    assert!(lower.detail.contains("was passed"));
    assert!(guard.blocked().is_some());
}

#[test]
fn a_soft_budget_warns_once_and_never_blocks() {
    let guard = Guard::new(
        Whose::Run,
        limit(None, Some(0.01), false),
        used(1, 1, Some(0.005)),
    );
    assert_eq!(guard.running("t1", &used(1, 1, None)), None);
    let passed = guard.settle("t1", &used(1, 1, Some(0.01))).expect("passed");
    assert_eq!(
        passed.detail,
        "the run's budget of $0.0100 was passed: $0.0150 spent"
    );
    assert_eq!(guard.blocked(), None);
    assert_eq!(guard.settle("t2", &used(1, 1, Some(1.0))), None);
}

#[test]
fn spend_from_before_counts_and_no_budget_never_passes() {
    let guard = Guard::new(Whose::Run, None, used(5000, 0, None));
    assert_eq!(guard.running("t", &used(5000, 0, None)), None);
    assert_eq!(guard.report(), None);
    let passed = guard.set(limit(Some(9000), None, true)).expect("passed");
    assert!(
        passed.detail.contains("10,000 tokens spent"),
        "{}",
        passed.detail
    );
}

#[tokio::test]
async fn until_blocked_fires_for_either_guard() {
    let agent = Guard::new(
        Whose::Agent("a".into()),
        limit(Some(10), None, true),
        Usage::default(),
    );
    let run = Guard::new(Whose::Run, limit(Some(10), None, true), Usage::default());
    let waiting = tokio::spawn(until_blocked(Some(agent.watch()), run.watch()));
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert!(!waiting.is_finished());
    run.running("t", &used(20, 0, None));
    tokio::time::timeout(Duration::from_secs(1), waiting)
        .await
        .expect("fires")
        .unwrap();
    let waiting = tokio::spawn(until_blocked(None, agent.watch()));
    agent.running("t", &used(20, 0, None));
    tokio::time::timeout(Duration::from_secs(1), waiting)
        .await
        .expect("fires")
        .unwrap();
}
