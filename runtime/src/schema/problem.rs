//! [`InputProblem`]: the one list of problems an agent's input can have, as JSON (input.rs) or
//! as option words (flags.rs).
//!
//! Each problem displays as one line an agent can act on. The header above them, the refusal
//! code (`invalid-input`, `invalid-result`) and the exit code are left to `tools` and `channel`.

use serde_json::Value;

use super::FieldError;

/// One reason an agent's input was not accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InputProblem {
    /// The text sent on standard input is not one JSON value.
    #[error("the input is not valid JSON ({detail}); send exactly one JSON value")]
    NotJson { detail: String },
    /// Options were given for an input that is taught as JSON.
    #[error(
        "this input is not given as options; send it as one JSON value on standard input \
         (<<'WF_JSON' ... WF_JSON)"
    )]
    TakesJson,
    /// Nothing was sent for an input that is taught as JSON.
    #[error("nothing was sent; send one JSON value on standard input (<<'WF_JSON' ... WF_JSON)")]
    NoJson,
    /// An option the schema does not name.
    #[error("{option}: unknown option ({})", accepted_options(.accepted))]
    UnknownOption {
        option: String,
        accepted: Vec<String>,
    },
    /// An option given a second time; the first value is kept.
    #[error("{option}: given more than once; give each option once")]
    RepeatedOption { option: String },
    /// An option at the end, or followed by another option, with no value.
    #[error("{option}: missing value; write {option} '<value>'")]
    MissingValue { option: String },
    /// Words that follow no option, most often an unquoted value with spaces.
    #[error(
        "unexpected {} {}: each value follows its --option; put a value with spaces in single \
         quotes",
        if .words.len() == 1 { "word" } else { "words" },
        quoted_words(.words)
    )]
    StrayWords { words: Vec<String> },
    /// An integer too large to reach the workflow exactly (past 2^53 - 1); refused rather than
    /// rounded.
    #[error(
        "{option}: {word} is past 2^53 - 1 (9007199254740991), the largest integer that reaches \
         the workflow exactly; send a smaller number, or the digits as text if the field takes text"
    )]
    InexactInteger { option: String, word: String },
    /// The value does not fit the schema.
    #[error("{0}")]
    Field(FieldError),
}

impl From<FieldError> for InputProblem {
    fn from(error: FieldError) -> InputProblem {
        InputProblem::Field(error)
    }
}

fn accepted_options(accepted: &[String]) -> String {
    match accepted {
        [] => "this takes no options".to_string(),
        _ => format!("accepted: {}", accepted.join(", ")),
    }
}

fn quoted_words(words: &[String]) -> String {
    let quoted: Vec<String> = words
        .iter()
        .map(|w| Value::from(w.as_str()).to_string())
        .collect();
    quoted.join(", ")
}
