//! What an agent reads for a turn: the author's prompt (after the agent's instructions on its
//! first turn), then how to answer, then the tools it can call. A check-in says the answer is
//! missing and repeats how to answer.

use crate::schema::teach::{self, ToolTeaching};
use crate::schema::Schema;

pub struct TurnText<'a> {
    pub instructions: Option<&'a str>,
    pub prompt: &'a str,
    pub launcher: &'a str,
    pub turn: &'a str,
    pub schema: Option<&'a Schema>,
    pub tools: &'a [ToolTeaching<'a>],
}

/// The prompt of a turn's first run.
pub fn compose(text: &TurnText<'_>) -> String {
    let mut parts: Vec<String> = Vec::new();
    if let Some(instructions) = text.instructions.filter(|i| !i.trim().is_empty()) {
        parts.push(instructions.trim_end().to_string());
    }
    parts.push(text.prompt.trim_end().to_string());
    parts.extend(how_to_act(text));
    join(parts)
}

/// The prompt of a check-in: the turn's run ended and no answer was accepted.
pub fn check_in(text: &TurnText<'_>) -> String {
    let mut parts = vec![format!(
        "You ended your turn {} without sending its answer, and the workflow is still waiting for it. Send it now, as follows.",
        text.turn
    )];
    parts.extend(how_to_act(text));
    join(parts)
}

fn how_to_act(text: &TurnText<'_>) -> Vec<String> {
    let mut parts = vec![teach::answer_instructions(
        text.launcher,
        text.turn,
        text.schema,
    )];
    let tools = teach::tools_instructions(text.launcher, text.tools);
    if !tools.is_empty() {
        parts.push(tools);
    }
    parts
}

fn join(parts: Vec<String>) -> String {
    let mut text = parts.join("\n\n");
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instructions_then_prompt_then_how_to_answer() {
        let text = TurnText {
            instructions: Some("You review code."),
            prompt: "Say hello.",
            launcher: "/tmp/awf-x/a1/wfa",
            turn: "t1",
            schema: None,
            tools: &[],
        };
        let prompt = compose(&text);
        assert!(
            prompt.starts_with("You review code.\n\nSay hello.\n\n"),
            "{prompt}"
        );
        assert!(
            prompt.contains("/tmp/awf-x/a1/wfa result t1 <<'WF_JSON'"),
            "{prompt}"
        );
        let check_in = check_in(&text);
        assert!(
            check_in.starts_with("You ended your turn t1 without sending its answer"),
            "{check_in}"
        );
        assert!(!check_in.contains("Say hello."));
        assert!(check_in.contains("result t1"));
    }
}
