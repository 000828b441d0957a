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
    /// Opened with `messages: true`: taught `wfa send`.
    pub sends: bool,
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

/// The prompt of a check-in: the turn's run ended and no answer was accepted. `sentence`: the
/// author's words for its opening (`checkIn: { prompt }`) instead of awf's.
pub fn check_in(text: &TurnText<'_>, sentence: Option<&str>) -> String {
    let opening = match sentence {
        Some(sentence) => sentence.trim_end().to_string(),
        None => format!(
            "You ended your turn {} without sending its answer, and the workflow is still waiting for it. Send it now, as follows.",
            text.turn
        ),
    };
    let mut parts = vec![opening];
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
    if text.sends {
        parts.push(crate::messages::teaching(text.launcher));
    }
    parts
}

/// What an agent reads in a message turn (`agent.send`).
pub struct MessageText<'a> {
    pub instructions: Option<&'a str>,
    pub body: &'a crate::messages::Body,
    pub launcher: &'a str,
    pub tools: &'a [ToolTeaching<'a>],
    pub sends: bool,
}

/// The prompt of a message turn: the message, that no answer is owed, then the tools (and how
/// to send, for an agent that may).
pub fn message(text: &MessageText<'_>) -> String {
    let mut parts: Vec<String> = Vec::new();
    if let Some(instructions) = text.instructions.filter(|i| !i.trim().is_empty()) {
        parts.push(instructions.trim_end().to_string());
    }
    parts.push(
        "The workflow sent you this message. It is not a turn: you owe no answer, so do not run \
         `result`; do what the message asks (you may call your tools), then end."
            .to_string(),
    );
    if !text.body.text.trim().is_empty() {
        parts.push(text.body.text.trim_end().to_string());
    }
    if let Some(data) = &text.body.data {
        let json = serde_json::to_string_pretty(data).unwrap_or_else(|_| data.to_string());
        parts.push(format!("Its data, as JSON:\n\n{json}"));
    }
    let tools = teach::tools_instructions(text.launcher, text.tools);
    if !tools.is_empty() {
        parts.push(tools);
    }
    if text.sends {
        parts.push(crate::messages::teaching(text.launcher));
    }
    join(parts)
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
            sends: false,
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
        let authors = check_in(&text, Some("Where is your answer?"));
        assert!(
            authors.starts_with("Where is your answer?\n\n"),
            "{authors}"
        );
        assert!(
            authors.contains("result t1"),
            "how to answer follows: {authors}"
        );
        let check_in = check_in(&text, None);
        assert!(
            check_in.starts_with("You ended your turn t1 without sending its answer"),
            "{check_in}"
        );
        assert!(!check_in.contains("Say hello."));
        assert!(check_in.contains("result t1"));
        assert!(!prompt.contains("wfa send"), "{prompt}");
        let sends = compose(&TurnText {
            sends: true,
            ..text
        });
        assert!(sends.contains("/tmp/awf-x/a1/wfa send '<text>'"), "{sends}");
        assert!(sends.contains("/tmp/awf-x/a1/wfa send --json <<'WF_JSON'"));
    }

    #[test]
    fn a_message_turn_says_no_answer_is_owed_and_gives_the_message() {
        let body = crate::messages::Body {
            text: "Check src/b.ts too.".into(),
            data: Some(serde_json::json!({"file": "src/b.ts"})),
        };
        let prompt = message(&MessageText {
            instructions: None,
            body: &body,
            launcher: "/tmp/awf-x/a1/wfa",
            tools: &[],
            sends: true,
        });
        assert!(
            prompt.starts_with("The workflow sent you this message."),
            "{prompt}"
        );
        assert!(prompt.contains("you owe no answer"));
        assert!(prompt.contains("\n\nCheck src/b.ts too.\n\n"));
        assert!(prompt.contains("\"file\": \"src/b.ts\""));
        assert!(prompt.contains("wfa send '<text>'"));
        assert!(!prompt.contains("result t"));
    }
}
