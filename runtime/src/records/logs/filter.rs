//! Which events `awf logs` keeps: those of one agent, one tool, or one turn and its tool calls.

use serde_json::Value;

/// Which events to show.
#[derive(Clone, Debug, Default)]
pub struct LogFilter {
    pub agent: Option<String>,
    pub tool: Option<String>,
    /// A turn id: its own events and those of its tool calls (`<turn>-c<n>`).
    pub turn: Option<String>,
}

impl LogFilter {
    pub fn keeps(&self, event: &Value) -> bool {
        let field = |name: &str| event.get(name).and_then(Value::as_str);
        if let Some(agent) = &self.agent {
            if field("agent") != Some(agent.as_str()) {
                return false;
            }
        }
        if let Some(tool) = &self.tool {
            if field("tool") != Some(tool.as_str()) {
                return false;
            }
        }
        if let Some(turn) = &self.turn {
            let of_turn = field("turn") == Some(turn.as_str())
                || field("call").is_some_and(|call| {
                    call.strip_prefix(turn.as_str())
                        .is_some_and(|rest| rest.starts_with("-c"))
                });
            if !of_turn {
                return false;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn filters_by_agent_and_tool() {
        let filter = LogFilter {
            agent: Some("a".into()),
            tool: Some("t".into()),
            turn: None,
        };
        assert!(filter.keeps(&json!({"agent": "a", "tool": "t"})));
        assert!(!filter.keeps(&json!({"agent": "a", "tool": "u"})));
        assert!(!filter.keeps(&json!({"agent": "b", "tool": "t"})));
        assert!(LogFilter::default().keeps(&json!({"event": "run-started"})));
    }

    #[test]
    fn filters_by_turn_with_its_calls() {
        let filter = LogFilter {
            turn: Some("t1-ab".into()),
            ..LogFilter::default()
        };
        assert!(filter.keeps(&json!({"turn": "t1-ab"})));
        assert!(filter.keeps(&json!({"call": "t1-ab-c2"})));
        assert!(!filter.keeps(&json!({"turn": "t1-abc"})));
        assert!(!filter.keeps(&json!({"call": "t1-abc-c1"})));
        assert!(!filter.keeps(&json!({"event": "run-started"})));
    }
}
