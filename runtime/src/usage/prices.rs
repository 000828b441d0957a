//! The dated price table awf estimates a turn's cost from when its CLI reports tokens but no
//! money (codex, gemini), and the estimate itself.
//!
//! The figures are the providers' published **list prices** in US dollars per million tokens
//! (OpenAI's API pricing page for the gpt-5 family, Anthropic's pricing page for Claude, Google's
//! Gemini API pricing page, standard tier), as they stood on `PRICES_OF`. They are not what a
//! subscription, a batch discount, a negotiated rate or a provider's long-context tier charges:
//! where a price has tiers by prompt length, the table holds the lower tier (prompts up to 200k
//! tokens). Cached input is the price of a cache read; Anthropic's cache writes (1.25x input)
//! are billed as plain input here.

use super::Tokens;

/// The day the table's prices were read.
pub const PRICES_OF: &str = "2026-12-01";

/// One model's list price, US dollars per million tokens.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Price {
    pub input: f64,
    pub cached_input: f64,
    pub output: f64,
}

const fn price(input: f64, cached_input: f64, output: f64) -> Price {
    Price {
        input,
        cached_input,
        output,
    }
}

/// Model families by name prefix; the longest prefix that a model's name starts with wins, so
/// `gpt-5.1-codex-mini` is not priced as `gpt-5.1-codex`, and a dated or suffixed name
/// (`claude-sonnet-4-5-20250929`) is priced as its family.
const TABLE: &[(&str, Price)] = &[
    // OpenAI: the gpt-5 family codex defaults to.
    ("gpt-5", price(1.25, 0.125, 10.0)),
    ("gpt-5-codex", price(1.25, 0.125, 10.0)),
    ("gpt-5-mini", price(0.25, 0.025, 2.0)),
    ("gpt-5-nano", price(0.05, 0.005, 0.4)),
    ("gpt-5.1", price(1.25, 0.125, 10.0)),
    ("gpt-5.1-codex", price(1.25, 0.125, 10.0)),
    ("gpt-5.1-codex-max", price(1.25, 0.125, 10.0)),
    ("gpt-5.1-codex-mini", price(0.25, 0.025, 2.0)),
    ("gpt-5.2", price(1.75, 0.175, 14.0)),
    ("gpt-5.2-codex", price(1.75, 0.175, 14.0)),
    // Anthropic: Claude 4.x, by family; `sonnet`, `opus` and `haiku` are claude's own aliases
    // for the newest of each.
    ("claude-sonnet-4", price(3.0, 0.3, 15.0)),
    ("claude-sonnet-4-5", price(3.0, 0.3, 15.0)),
    ("sonnet", price(3.0, 0.3, 15.0)),
    ("claude-opus-4", price(15.0, 1.5, 75.0)),
    ("claude-opus-4-1", price(15.0, 1.5, 75.0)),
    ("claude-opus-4-5", price(5.0, 0.5, 25.0)),
    ("opus", price(5.0, 0.5, 25.0)),
    ("claude-haiku-4-5", price(1.0, 0.1, 5.0)),
    ("haiku", price(1.0, 0.1, 5.0)),
    // Google: Gemini 2.5 and 3, prompts up to 200k tokens.
    ("gemini-2.5-pro", price(1.25, 0.125, 10.0)),
    ("gemini-2.5-flash", price(0.3, 0.03, 2.5)),
    ("gemini-2.5-flash-lite", price(0.1, 0.01, 0.4)),
    ("gemini-3-pro", price(2.0, 0.2, 12.0)),
    ("gemini-3-flash", price(0.5, 0.05, 3.0)),
];

/// The list price of `model` (as an agent's `runtime.model` or its CLI names it, a provider
/// prefix such as `openai/` or `models/` ignored, case ignored), if the table has its family.
pub fn price_of(model: &str) -> Option<Price> {
    let name = model.trim().to_ascii_lowercase();
    let name = name.rsplit('/').next().unwrap_or_default();
    TABLE
        .iter()
        .filter(|(family, _)| {
            name == *family
                || name
                    .strip_prefix(family)
                    .is_some_and(|rest| rest.starts_with(['-', '@', ':', '[']))
        })
        .max_by_key(|(family, _)| family.len())
        .map(|(_, price)| *price)
}

/// What `tokens` cost at `model`'s list price; `None` for a model the table does not have.
/// Cached input is charged at the cache price, the rest of the input at the input price, and
/// every output token (reasoning included) at the output price.
pub fn estimate(model: &str, tokens: &Tokens) -> Option<f64> {
    let price = price_of(model)?;
    let cached = tokens.cached_input_tokens.min(tokens.input_tokens);
    let fresh = tokens.input_tokens - cached;
    let dollars = fresh as f64 * price.input
        + cached as f64 * price.cached_input
        + tokens.output_tokens as f64 * price.output;
    Some(dollars / 1_000_000.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_family_a_name_starts_with_prices_it() {
        assert_eq!(
            price_of("gpt-5.1-codex-mini"),
            Some(price(0.25, 0.025, 2.0))
        );
        assert_eq!(price_of("gpt-5.1-codex"), Some(price(1.25, 0.125, 10.0)));
        assert_eq!(price_of("openai/GPT-5.2"), Some(price(1.75, 0.175, 14.0)));
        assert_eq!(
            price_of("claude-sonnet-4-5-20250929"),
            Some(price(3.0, 0.3, 15.0))
        );
        assert_eq!(price_of("claude-opus-4-5"), Some(price(5.0, 0.5, 25.0)));
        assert_eq!(
            price_of("claude-opus-4-20250514"),
            Some(price(15.0, 1.5, 75.0))
        );
        assert_eq!(price_of("haiku"), Some(price(1.0, 0.1, 5.0)));
        assert_eq!(
            price_of("models/gemini-2.5-flash-lite"),
            Some(price(0.1, 0.01, 0.4))
        );
        assert_eq!(
            price_of("gemini-3-pro-preview"),
            Some(price(2.0, 0.2, 12.0))
        );
    }

    #[test]
    fn an_unknown_model_or_a_lookalike_has_no_price() {
        assert_eq!(price_of("fake-model"), None);
        assert_eq!(price_of("gpt-50"), None, "a prefix must end at a separator");
        assert_eq!(price_of(""), None);
        assert_eq!(estimate("llama3", &Tokens::default()), None);
    }

    #[test]
    fn cached_input_is_charged_at_the_cache_price_and_reasoning_as_output() {
        let tokens = Tokens {
            input_tokens: 1_000_000,
            cached_input_tokens: 400_000,
            output_tokens: 100_000,
            reasoning_tokens: 60_000,
        };
        // gpt-5: 600k fresh at 1.25, 400k cached at 0.125, 100k out at 10.
        let dollars = estimate("gpt-5", &tokens).unwrap();
        assert!((dollars - (0.75 + 0.05 + 1.0)).abs() < 1e-9, "{dollars}");
        let odd = Tokens {
            input_tokens: 10,
            cached_input_tokens: 20,
            ..Tokens::default()
        };
        assert!(
            estimate("gpt-5", &odd).unwrap() > 0.0,
            "more cached than input never underflows"
        );
    }
}
