//! How a turn ended: answered with a value, or one of the ways it can end without one.

use serde_json::{json, Value};

use crate::tools::calls::TurnEnding;

#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Answered(Value),
    /// The agent ended its turn without an accepted answer, twice (the second time after a
    /// check-in).
    Unanswered(String),
    /// The agent waits for something only a person can give (a permission prompt).
    Blocked(String),
    TimedOut(String),
    Failed(String),
    Cancelled(String),
}

impl Outcome {
    pub fn kind(&self) -> &'static str {
        match self {
            Outcome::Answered(_) => "answered",
            Outcome::Unanswered(_) => "unanswered",
            Outcome::Blocked(_) => "blocked",
            Outcome::TimedOut(_) => "timed-out",
            Outcome::Failed(_) => "failed",
            Outcome::Cancelled(_) => "cancelled",
        }
    }

    pub fn detail(&self) -> Option<&str> {
        match self {
            Outcome::Answered(_) => None,
            Outcome::Unanswered(d)
            | Outcome::Blocked(d)
            | Outcome::TimedOut(d)
            | Outcome::Failed(d)
            | Outcome::Cancelled(d) => Some(d),
        }
    }

    /// Why the turn ended without an answer, in words (the kind where nothing more is known):
    /// what `outcome.reason` says, as agentswf's does.
    pub fn reason(&self) -> Option<&str> {
        self.detail().map(|detail| {
            if detail.is_empty() {
                self.kind()
            } else {
                detail
            }
        })
    }

    /// How the turn ended, for a tool call it cut off: `failed: <detail>`.
    pub fn ending(&self) -> TurnEnding {
        TurnEnding {
            timed_out: matches!(self, Outcome::TimedOut(_)),
            how: match self.detail() {
                Some(detail) => format!("{}: {detail}", self.kind()),
                None => self.kind().to_string(),
            },
        }
    }

    /// The outcome as workflow code sees it:
    /// `{ kind: "answered", answered: true, value }` or `{ kind, answered: false, reason, detail }`
    /// (`detail` is the older name of `reason`, kept for workflows that read it).
    pub fn to_json(&self) -> Value {
        match self {
            Outcome::Answered(value) => {
                json!({ "kind": "answered", "answered": true, "value": value })
            }
            other => json!({
                "kind": other.kind(),
                "answered": false,
                "reason": other.reason(),
                "detail": other.reason(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_as_workflow_code_sees_them() {
        assert_eq!(
            Outcome::Answered(json!(3)).to_json(),
            json!({"kind": "answered", "answered": true, "value": 3})
        );
        assert_eq!(
            Outcome::TimedOut("deadline".into()).to_json(),
            json!({"kind": "timed-out", "answered": false, "reason": "deadline", "detail": "deadline"})
        );
        assert_eq!(
            Outcome::Failed(String::new()).to_json()["reason"],
            json!("failed"),
            "with nothing more known, the reason is the kind"
        );
    }
}
