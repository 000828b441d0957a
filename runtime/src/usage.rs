//! Tokens and money an agent used, in one shape whatever the runtime reports. A leaf: records,
//! harnesses and agents share it.
//!
//! Each CLI counts differently (reference/harnesses.md): codex sums a turn's requests and, after
//! a resume, reports the whole thread's total; claude reports one run's total (and a session's
//! running cost); pi and opencode report each request; gemini one run. A harness's line reader
//! says which basis a figure is on, and `UsageFold` turns them all into what one attempt used.
//!
//! Normalized fields: `inputTokens` counts every input token, cached ones included;
//! `cachedInputTokens` is the part read from a cache; `outputTokens` counts every output token,
//! reasoning included; `reasoningTokens` is the part spent reasoning.
//!
//! A turn's usage is priced once it ends (`PricedUsage`): the CLI's own cost where it reports
//! one, else an estimate from the dated list prices in `prices.rs`, else none.

pub mod prices;

use serde::Serialize;

/// Token counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Tokens {
    pub input_tokens: u64,
    pub cached_input_tokens: u64,
    pub output_tokens: u64,
    pub reasoning_tokens: u64,
}

impl Tokens {
    pub fn is_zero(&self) -> bool {
        *self == Tokens::default()
    }

    fn plus(self, other: Tokens) -> Tokens {
        Tokens {
            input_tokens: self.input_tokens + other.input_tokens,
            cached_input_tokens: self.cached_input_tokens + other.cached_input_tokens,
            output_tokens: self.output_tokens + other.output_tokens,
            reasoning_tokens: self.reasoning_tokens + other.reasoning_tokens,
        }
    }

    /// What was added since `earlier` (a running total's growth); never below zero.
    pub fn since(self, earlier: Tokens) -> Tokens {
        Tokens {
            input_tokens: self.input_tokens.saturating_sub(earlier.input_tokens),
            cached_input_tokens: self
                .cached_input_tokens
                .saturating_sub(earlier.cached_input_tokens),
            output_tokens: self.output_tokens.saturating_sub(earlier.output_tokens),
            reasoning_tokens: self
                .reasoning_tokens
                .saturating_sub(earlier.reasoning_tokens),
        }
    }
}

/// What a turn (or an agent, or a run) used.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    #[serde(flatten)]
    pub tokens: Tokens,
    /// Dollars, where the runtime reckons them (claude, pi, opencode).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
}

impl Usage {
    /// A usage as records and replies write it (`{ inputTokens, cachedInputTokens,
    /// outputTokens, reasoningTokens, costUsd? }`), read leniently: a count that is missing or
    /// not a whole number is 0, a cost that is not a number is none.
    pub fn from_json(value: &serde_json::Value) -> Usage {
        let count = |key: &str| value[key].as_u64().unwrap_or(0);
        Usage {
            tokens: Tokens {
                input_tokens: count("inputTokens"),
                cached_input_tokens: count("cachedInputTokens"),
                output_tokens: count("outputTokens"),
                reasoning_tokens: count("reasoningTokens"),
            },
            cost_usd: value["costUsd"].as_f64(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.tokens.is_zero() && self.cost_usd.is_none()
    }

    pub fn add(&mut self, other: &Usage) {
        self.tokens = self.tokens.plus(other.tokens);
        self.cost_usd = match (self.cost_usd, other.cost_usd) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
        };
    }

    /// What was added since `earlier` (a running figure's growth); never below zero.
    pub fn since(&self, earlier: &Usage) -> Usage {
        let cost_usd = match (self.cost_usd, earlier.cost_usd) {
            (Some(now), before) => Some((now - before.unwrap_or(0.0)).max(0.0)),
            (None, _) => None,
        };
        Usage {
            tokens: self.tokens.since(earlier.tokens),
            cost_usd,
        }
    }

    /// `1,234 in (1,000 cached), 56 out (7 reasoning), $0.0123`.
    pub fn summary(&self) -> String {
        let t = &self.tokens;
        let mut text = format!("{} in", thousands(t.input_tokens));
        if t.cached_input_tokens > 0 {
            text += &format!(" ({} cached)", thousands(t.cached_input_tokens));
        }
        text += &format!(", {} out", thousands(t.output_tokens));
        if t.reasoning_tokens > 0 {
            text += &format!(" ({} reasoning)", thousands(t.reasoning_tokens));
        }
        if let Some(usd) = self.cost_usd {
            text += &format!(", ${usd:.4}");
        }
        text
    }
}

/// What the agents of `attempts` used, by key, added up over the attempts: each ended attempt's
/// record holds its agents' totals (`usage`, by key, as output.json has them). What a continued
/// run's budgets count (budget/run.rs) and what `awf runs` shows (records/status.rs).
pub fn spent_by_agent(attempts: &[serde_json::Value]) -> std::collections::HashMap<String, Usage> {
    let mut spent: std::collections::HashMap<String, Usage> = std::collections::HashMap::new();
    for attempt in attempts {
        let Some(agents) = attempt["usage"].as_object() else {
            continue;
        };
        for (key, usage) in agents {
            spent
                .entry(key.clone())
                .or_default()
                .add(&Usage::from_json(usage));
        }
    }
    spent
}

/// Where a cost came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Priced {
    /// The CLI reported it.
    Reported,
    /// Estimated from the model's list price (`prices::PRICES_OF`).
    Estimated,
    /// Neither: the CLI reports no cost and the model is not in the price table (or unknown).
    Unpriced,
}

/// What a turn used, priced: `outcome.usage` as workflow code reads it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PricedUsage {
    #[serde(flatten)]
    pub tokens: Tokens,
    /// Dollars: reported, estimated, or `null` when unpriced.
    pub cost_usd: Option<f64>,
    pub priced: Priced,
    /// The model the agent was opened with, `null` when it left the choice to its CLI.
    pub model: Option<String>,
    /// The price table's date, for an estimate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prices_of: Option<&'static str>,
}

impl PricedUsage {
    /// `usage` priced: its reported cost if it has one, else `model`'s list price.
    pub fn of(usage: Usage, model: Option<&str>) -> PricedUsage {
        let estimate = || model.and_then(|m| prices::estimate(m, &usage.tokens));
        let (cost_usd, priced) = match (usage.cost_usd, usage.cost_usd.is_none().then(estimate)) {
            (Some(usd), _) => (Some(usd), Priced::Reported),
            (None, Some(Some(usd))) => (Some(usd), Priced::Estimated),
            (None, _) => (None, Priced::Unpriced),
        };
        PricedUsage {
            tokens: usage.tokens,
            cost_usd,
            priced,
            model: model.map(str::to_string),
            prices_of: (priced == Priced::Estimated).then_some(prices::PRICES_OF),
        }
    }

    /// As a plain `Usage`, its cost whether reported or estimated: what totals add up.
    pub fn as_usage(&self) -> Usage {
        Usage {
            tokens: self.tokens,
            cost_usd: self.cost_usd,
        }
    }
}

/// `1234567` as `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// What a reported figure covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UsageBasis {
    /// One model request: added up.
    Request,
    /// Everything this run of the CLI used so far: the latest replaces the earlier.
    Run,
    /// The native session's running total across runs: what this run used is its growth.
    Session,
}

impl UsageBasis {
    /// As records name it.
    pub fn name(self) -> &'static str {
        match self {
            UsageBasis::Request => "request",
            UsageBasis::Run => "run",
            UsageBasis::Session => "session",
        }
    }
}

/// Folds one attempt's reports into what it used.
#[derive(Debug, Default)]
pub struct UsageFold {
    requests: Tokens,
    run: Option<Tokens>,
    session: Option<Tokens>,
    cost_requests: Option<f64>,
    cost_run: Option<f64>,
    cost_session: Option<f64>,
}

impl UsageFold {
    pub fn tokens(&mut self, tokens: Tokens, basis: UsageBasis) {
        match basis {
            UsageBasis::Request => self.requests = self.requests.plus(tokens),
            UsageBasis::Run => self.run = Some(tokens),
            UsageBasis::Session => self.session = Some(tokens),
        }
    }

    pub fn cost(&mut self, usd: f64, basis: UsageBasis) {
        match basis {
            UsageBasis::Request => {
                self.cost_requests = Some(self.cost_requests.unwrap_or(0.0) + usd)
            }
            UsageBasis::Run => self.cost_run = Some(usd),
            UsageBasis::Session => self.cost_session = Some(usd),
        }
    }

    /// What the attempt used, given the session's totals before it; `reported` becomes the
    /// totals after it.
    pub fn finish(self, reported: &mut Usage) -> Usage {
        let used = self.so_far(reported);
        if let Some(total) = self.session {
            reported.tokens = total;
        }
        if let Some(total) = self.cost_session {
            reported.cost_usd = Some(total);
        }
        used
    }

    /// What the attempt used so far, given the session's totals `reported` before it. A run's
    /// total replaces the requests reported before it (claude reports each response, then the
    /// run's total).
    pub fn so_far(&self, reported: &Usage) -> Usage {
        let mut tokens = self.run.unwrap_or(self.requests);
        if let Some(total) = self.session {
            tokens = tokens.plus(total.since(reported.tokens));
        }
        let mut cost = None;
        for usd in [self.cost_requests, self.cost_run].into_iter().flatten() {
            cost = Some(cost.unwrap_or(0.0) + usd);
        }
        if let Some(total) = self.cost_session {
            let before = reported.cost_usd.unwrap_or(0.0);
            cost = Some(cost.unwrap_or(0.0) + (total - before).max(0.0));
        }
        Usage {
            tokens,
            cost_usd: cost,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(input: u64, output: u64) -> Tokens {
        Tokens {
            input_tokens: input,
            output_tokens: output,
            ..Tokens::default()
        }
    }

    #[test]
    fn requests_add_up_and_a_run_total_replaces_itself() {
        let mut fold = UsageFold::default();
        fold.tokens(tokens(10, 1), UsageBasis::Request);
        fold.tokens(tokens(20, 2), UsageBasis::Request);
        let mut reported = Usage::default();
        assert_eq!(fold.finish(&mut reported).tokens, tokens(30, 3));

        let mut fold = UsageFold::default();
        fold.tokens(tokens(5, 1), UsageBasis::Run);
        fold.tokens(tokens(9, 2), UsageBasis::Run);
        assert_eq!(fold.finish(&mut reported).tokens, tokens(9, 2));
        assert!(reported.is_empty(), "run totals leave the session's alone");
    }

    #[test]
    fn a_run_total_replaces_the_responses_reported_before_it() {
        // claude: each response's usage as it streams, then the run's total.
        let mut fold = UsageFold::default();
        fold.tokens(tokens(10, 1), UsageBasis::Request);
        fold.tokens(tokens(20, 2), UsageBasis::Request);
        assert_eq!(fold.so_far(&Usage::default()).tokens, tokens(30, 3));
        fold.tokens(tokens(31, 4), UsageBasis::Run);
        assert_eq!(fold.finish(&mut Usage::default()).tokens, tokens(31, 4));
        let later = Usage {
            tokens: tokens(40, 5),
            cost_usd: Some(0.5),
        };
        let earlier = Usage {
            tokens: tokens(31, 4),
            cost_usd: None,
        };
        assert_eq!(
            later.since(&earlier),
            Usage {
                tokens: tokens(9, 1),
                cost_usd: Some(0.5)
            }
        );
    }

    #[test]
    fn a_session_total_counts_only_its_growth() {
        // codex: 2468 after the first run, 3702 after a resumed one.
        let mut reported = Usage::default();
        let mut first = UsageFold::default();
        first.tokens(tokens(2468, 100), UsageBasis::Session);
        assert_eq!(first.finish(&mut reported).tokens, tokens(2468, 100));
        let mut second = UsageFold::default();
        second.tokens(tokens(3702, 150), UsageBasis::Session);
        assert_eq!(second.finish(&mut reported).tokens, tokens(1234, 50));
        assert_eq!(reported.tokens, tokens(3702, 150));
    }

    #[test]
    fn costs_fold_like_tokens() {
        let mut reported = Usage::default();
        let mut first = UsageFold::default();
        first.cost(0.5, UsageBasis::Session);
        assert_eq!(first.finish(&mut reported).cost_usd, Some(0.5));
        let mut second = UsageFold::default();
        second.cost(1.25, UsageBasis::Session);
        assert_eq!(second.finish(&mut reported).cost_usd, Some(0.75));
        let mut none = UsageFold::default();
        none.tokens(tokens(1, 1), UsageBasis::Request);
        assert_eq!(none.finish(&mut reported).cost_usd, None);
    }

    #[test]
    fn a_reported_cost_wins_then_an_estimate_then_none() {
        let used = Usage {
            tokens: tokens(1_000_000, 0),
            cost_usd: None,
        };
        let estimated = PricedUsage::of(used, Some("gpt-5"));
        assert_eq!(estimated.priced, Priced::Estimated);
        assert_eq!(estimated.cost_usd, Some(1.25));
        assert_eq!(estimated.prices_of, Some(prices::PRICES_OF));
        let reported = PricedUsage::of(
            Usage {
                cost_usd: Some(0.5),
                ..used
            },
            Some("gpt-5"),
        );
        assert_eq!(
            (reported.priced, reported.cost_usd),
            (Priced::Reported, Some(0.5))
        );
        assert_eq!(reported.prices_of, None);
        let unknown = PricedUsage::of(used, Some("fake-model"));
        assert_eq!((unknown.priced, unknown.cost_usd), (Priced::Unpriced, None));
        let unnamed = PricedUsage::of(used, None);
        assert_eq!(unnamed.priced, Priced::Unpriced);
        assert_eq!(
            serde_json::to_value(&estimated).unwrap(),
            serde_json::json!({"inputTokens": 1_000_000, "cachedInputTokens": 0, "outputTokens": 0,
                "reasoningTokens": 0, "costUsd": 1.25, "priced": "estimated", "model": "gpt-5",
                "pricesOf": prices::PRICES_OF})
        );
        assert_eq!(estimated.as_usage().cost_usd, Some(1.25));
    }

    #[test]
    fn summaries_read_well() {
        let mut usage = Usage {
            tokens: Tokens {
                input_tokens: 12345,
                cached_input_tokens: 1000,
                output_tokens: 56,
                reasoning_tokens: 7,
            },
            cost_usd: Some(0.01234),
        };
        assert_eq!(
            usage.summary(),
            "12,345 in (1,000 cached), 56 out (7 reasoning), $0.0123"
        );
        usage.add(&usage.clone());
        assert_eq!(usage.tokens.input_tokens, 24690);
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1234567), "1,234,567");
    }
}
