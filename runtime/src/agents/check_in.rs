//! A turn's check-in policy: `agent.run({ checkIn })`, or the default its agent was opened with.
//!
//! When an attempt ends without an answer and without a failure, the turn checks in once: a
//! second attempt whose prompt says the answer is missing (turn.rs). `checkIn: false` turns that
//! off (the turn is `unanswered` at once); `{ prompt, timeout }` says the check-in's first
//! sentence in the author's words and bounds the check-in's attempt (never past the turn's own
//! deadline).

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::duration::{parse_timeout, timeout_from_millis};

/// Whether and how a turn checks in.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum CheckIn {
    /// awf's sentence, within the turn's deadline.
    #[default]
    Standard,
    Off,
    /// The author's sentence instead of awf's, and/or a bound on the check-in's attempt.
    Custom {
        sentence: Option<String>,
        timeout: Option<Duration>,
    },
}

impl CheckIn {
    /// Reads `checkIn` as the author gave it (`null`: not given, the standard check-in). `Err`
    /// says what is wrong with it, for `agent.run({ checkIn })`.
    pub fn read(value: &Value) -> Result<CheckIn, String> {
        let object = match value {
            Value::Null | Value::Bool(true) => return Ok(CheckIn::Standard),
            Value::Bool(false) => return Ok(CheckIn::Off),
            Value::Object(object) => object,
            _ => return Err(
                "checkIn must be false (no check-in) or { prompt?, timeout? }, e.g. { prompt: \"Please send your answer.\", timeout: \"2m\" }".into(),
            ),
        };
        if let Some(unknown) = object.keys().find(|k| *k != "prompt" && *k != "timeout") {
            return Err(format!(
                "checkIn has no option \"{unknown}\"; its options are prompt and timeout"
            ));
        }
        let sentence = match object.get("prompt") {
            None | Some(Value::Null) => None,
            Some(Value::String(text)) if !text.trim().is_empty() => Some(text.clone()),
            Some(_) => return Err("checkIn.prompt must be a sentence (a non-blank string)".into()),
        };
        let timeout = match object.get("timeout") {
            None | Some(Value::Null) => None,
            Some(Value::String(text)) => {
                Some(parse_timeout(text).map_err(|e| format!("checkIn.timeout: {e}"))?)
            }
            Some(Value::Number(n)) => Some(
                timeout_from_millis(n.as_f64().unwrap_or(f64::NAN))
                    .map_err(|e| format!("checkIn.timeout: {e}"))?,
            ),
            Some(_) => {
                return Err(
                    "checkIn.timeout must be a duration such as \"2m\" or milliseconds".into(),
                )
            }
        };
        Ok(CheckIn::Custom { sentence, timeout })
    }

    pub fn is_off(&self) -> bool {
        *self == CheckIn::Off
    }

    /// The author's first sentence for the check-in, if they gave one.
    pub fn sentence(&self) -> Option<&str> {
        match self {
            CheckIn::Custom { sentence, .. } => sentence.as_deref(),
            _ => None,
        }
    }

    /// The check-in attempt's deadline: its own bound from now, within the turn's `deadline`.
    pub fn deadline(&self, deadline: Instant) -> Instant {
        match self {
            CheckIn::Custom {
                timeout: Some(timeout),
                ..
            } => deadline.min(Instant::now() + *timeout),
            _ => deadline,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_each_form_the_author_may_give() {
        assert_eq!(CheckIn::read(&Value::Null), Ok(CheckIn::Standard));
        assert_eq!(CheckIn::read(&json!(false)), Ok(CheckIn::Off));
        assert_eq!(
            CheckIn::read(&json!({"prompt": "Answer now.", "timeout": "2s"})),
            Ok(CheckIn::Custom {
                sentence: Some("Answer now.".into()),
                timeout: Some(Duration::from_secs(2)),
            })
        );
        assert_eq!(
            CheckIn::read(&json!({"timeout": 1500})),
            Ok(CheckIn::Custom {
                sentence: None,
                timeout: Some(Duration::from_millis(1500)),
            })
        );
    }

    #[test]
    fn refuses_what_it_cannot_read_saying_what_to_write() {
        assert!(CheckIn::read(&json!("no"))
            .unwrap_err()
            .contains("must be false"));
        assert!(CheckIn::read(&json!({"promt": "x"}))
            .unwrap_err()
            .contains("no option \"promt\""));
        assert!(CheckIn::read(&json!({"prompt": " "}))
            .unwrap_err()
            .contains("non-blank"));
        assert!(CheckIn::read(&json!({"timeout": "soon"}))
            .unwrap_err()
            .starts_with("checkIn.timeout"));
    }

    #[test]
    fn a_check_in_timeout_never_passes_the_turns_deadline() {
        let soon = Instant::now() + Duration::from_millis(10);
        let long = CheckIn::Custom {
            sentence: None,
            timeout: Some(Duration::from_secs(60)),
        };
        assert_eq!(long.deadline(soon), soon);
        assert_eq!(CheckIn::Standard.deadline(soon), soon);
    }
}
