//! One event as a line of `awf logs`: the time, who, and what happened, each kind of event in
//! words of its own; an unknown kind shows its name and its JSON.

use serde_json::Value;

use super::place;
use super::values::{
    details, fields, fold, list, millis, number, runtime, size, size_of, usage, with_reason,
};

/// One event as a line: `18:30:58.123  reviewer t1-c1  tool add_finding {...}`.
pub fn line(event: &Value) -> String {
    parts(event).to_string()
}

/// One event's line in its three parts: the time, who (the agent, and its turn or call; empty
/// for the run's own events), and what happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogLine {
    pub time: String,
    pub who: String,
    pub what: String,
}

impl std::fmt::Display for LogLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.who.is_empty() {
            write!(f, "{}  {}", self.time, self.what)
        } else {
            write!(f, "{}  {}  {}", self.time, self.who, self.what)
        }
    }
}

/// `line`, in parts (for a CLI that colours them).
pub fn parts(event: &Value) -> LogLine {
    let text = |name: &str| {
        event
            .get(name)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let time = text("at").get(11..23).unwrap_or("").to_string();
    let agent = text("agent");
    let (who, what) = match text("event").as_str() {
        "run-started" => (
            String::new(),
            format!("run {} of {} started", text("runId"), text("workflow")),
        ),
        "events-capped" => (
            String::new(),
            format!(
                "events file reached its cap of {}; later events were not recorded",
                size_of(event.get("limitBytes").and_then(Value::as_u64).unwrap_or(0))
            ),
        ),
        "channel-refused" => (
            agent,
            format!("✗ socket refused a connection from {}", text("why")),
        ),
        "channel-check-failed" => (
            agent,
            format!(
                "✗ socket could not check a connection, refused it as resource-error: {}",
                text("error")
            ),
        ),
        "run-ended" => (
            String::new(),
            with_reason(
                format!("run ended {}", text("outcome")),
                event.get("reason"),
            ),
        ),
        "log" => (
            String::new(),
            format!("log: {}{}", text("message"), fields(event.get("fields"))),
        ),
        "asked" => (
            String::new(),
            format!(
                "? asked {}: {}{}{}",
                text("key"),
                text("question"),
                match (event.get("choices"), event.get("schema")) {
                    (Some(choices), _) => format!(" {}", fold(choices)),
                    (None, Some(_)) => " (typed)".to_string(),
                    (None, None) => String::new(),
                },
                match text("from").as_str() {
                    "" => String::new(),
                    from => format!(" at {from}"),
                }
            ),
        ),
        "answered" => (
            String::new(),
            format!(
                "answered {} by {}: {}",
                text("key"),
                text("how"),
                fold(&event["value"])
            ),
        ),
        "ask-timed-out" => (
            String::new(),
            format!(
                "✗ no answer to {} came within {}",
                text("key"),
                crate::duration::format_duration(std::time::Duration::from_millis(
                    event["timeoutMs"].as_u64().unwrap_or(0)
                ))
            ),
        ),
        "agent-opened" => (
            agent,
            format!(
                "opened ({}){}{}",
                runtime(event.get("runtime")),
                place::sandbox(event.get("sandbox")),
                match event.get("labels") {
                    Some(labels) => format!("; labels{}", fields(Some(labels))),
                    None => String::new(),
                }
            ),
        ),
        "agent-workspace" => (agent, place::workspace(event)),
        "worktree-ended" => (agent, place::worktree_ended(event)),
        "agent-closed" => (agent, "closed".to_string()),
        "agent-stopped" => (
            agent,
            with_reason("stopped by wf.agents.stop".to_string(), event.get("reason")),
        ),
        "turn-started" if event.get("message").is_some() => (
            format!("{agent} {}", text("turn")),
            format!(
                "message turn {} started: {}",
                number(event, "n"),
                fold(&event["message"])
            ),
        ),
        "message-sent" => (
            match text("turn").as_str() {
                "" => agent,
                turn => format!("{agent} {turn}"),
            },
            format!(
                "✉ message {} to the workflow: {}{}",
                number(event, "seq"),
                fold(&event["text"]),
                event
                    .get("data")
                    .map(|d| format!(" data {}", fold(d)))
                    .unwrap_or_default()
            ),
        ),
        "message-refused" => (
            agent,
            format!("✗ send refused ({}): {}", text("code"), text("message")),
        ),
        "message-received" => (
            agent,
            format!("message {} received by the workflow", number(event, "seq")),
        ),
        "messages-unreceived" => (
            String::new(),
            format!(
                "{} message{} never received: {}",
                number(event, "count"),
                if event["count"] == 1 { "" } else { "s" },
                event["messages"]
                    .as_array()
                    .map(|all| all
                        .iter()
                        .map(|m| format!("{} from {}", m["seq"], m["agent"].as_str().unwrap_or("")))
                        .collect::<Vec<_>>()
                        .join(", "))
                    .unwrap_or_default()
            ),
        ),
        "agent-forked" => (
            agent,
            format!(
                "forked from {} ({}{})",
                text("from"),
                text("harness"),
                match (text("session").as_str(), text("forkSession").as_str()) {
                    ("", "") => format!(
                        ": AWF_SESSION {} from {}",
                        text("sessionName"),
                        text("fromSessionName")
                    ),
                    (from, to) => format!(" session {from} → {to}"),
                }
            ),
        ),
        "agent-compacted" => (
            format!("{agent} {}", text("compaction")),
            with_reason(
                format!(
                    "compaction {} after {} (focus: {}){}",
                    text("outcome"),
                    millis(event),
                    fold(&event["focus"]),
                    match event.get("tokensBefore").and_then(Value::as_u64) {
                        Some(before) =>
                            format!(", {} tokens before", crate::usage::thousands(before)),
                        None => String::new(),
                    }
                ),
                event.get("detail"),
            ),
        ),
        "settings-changed" => (
            agent,
            format!(
                "settings changed: {}",
                [("model", text("model")), ("effort", text("effort"))]
                    .iter()
                    .filter(|(_, v)| !v.is_empty())
                    .map(|(k, v)| format!("{k} {v}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ),
        "turn-started" => (
            format!("{agent} {}", text("turn")),
            format!(
                "turn {}{} started ({} of prompt)",
                number(event, "n"),
                match text("label").as_str() {
                    "" => String::new(),
                    label => format!(" \"{label}\""),
                },
                size(&text("prompt"))
            ),
        ),
        "answer-submitted" if event["accepted"] == Value::Bool(true) => (
            format!("{agent} {}", text("turn")),
            format!("answer accepted: {}", fold(&event["value"])),
        ),
        "answer-submitted" => (
            format!("{agent} {}", text("turn")),
            match text("code").as_str() {
                // Written before refusals carried their code.
                "" => format!("answer refused: {}", list(event.get("problems"))),
                code => format!(
                    "answer refused ({code}): {}{}",
                    text("message"),
                    details(event.get("problems"))
                ),
            },
        ),
        "waiting" => (
            format!("{agent} {}", text("turn")),
            format!("waiting: {}", text("reason")),
        ),
        "check-in" => (
            format!("{agent} {}", text("turn")),
            format!("check-in: {}", text("after")),
        ),
        "turn-settled" => (
            format!("{agent} {}", text("turn")),
            with_reason(
                match event.get("usage") {
                    Some(used) => format!(
                        "turn {} after {} ({})",
                        text("outcome"),
                        millis(event),
                        usage(used)
                    ),
                    None => format!("turn {} after {}", text("outcome"), millis(event)),
                },
                event.get("detail"),
            ),
        ),
        "tool-called" => (
            format!("{agent} {}", text("call")),
            format!("→ {} {}", text("tool"), fold(&event["input"])),
        ),
        "tool-joined" => (
            format!("{agent} {}", text("call")),
            format!("→ {} again while it ran: joined it", text("tool")),
        ),
        "tool-refused" => (
            match (text("call").as_str(), text("turn").as_str()) {
                ("", "") => agent,
                ("", turn) => format!("{agent} {turn}"),
                (call, _) => format!("{agent} {call}"),
            },
            format!(
                "✗ {} refused ({}): {}{}",
                text("tool"),
                text("code"),
                text("message"),
                details(event.get("details"))
            ),
        ),
        "tool-settled" if text("outcome") == "result" => (
            format!("{agent} {}", text("call")),
            format!(
                "← {} {} ({})",
                text("tool"),
                event
                    .get("result")
                    .map(fold)
                    .unwrap_or_else(|| "(nothing)".into()),
                millis(event)
            ),
        ),
        "tool-settled" => (
            format!("{agent} {}", text("call")),
            format!(
                "← {} failed ({}): {} ({}){}",
                text("tool"),
                text("outcome"),
                text("error"),
                millis(event),
                match text("thrownAt").as_str() {
                    "" => String::new(),
                    at => format!(" at {at}"),
                }
            ),
        ),
        "agent-session" => (
            format!("{agent} {}", text("turn")),
            format!("{} session {}", text("harness"), text("session")),
        ),
        "agent-container" => (
            format!("{agent} {}", text("turn")),
            format!("runs in container {}", text("container")),
        ),
        "shell-started" => (
            format!("{agent} {}", text("turn")),
            format!("$ {}", text("command")),
        ),
        "shell-finished" => (
            format!("{agent} {}", text("turn")),
            match event.get("exitCode").and_then(Value::as_i64) {
                Some(code) => format!("$ {} → exit {code}", text("command")),
                None => format!("$ {} → ended", text("command")),
            },
        ),
        "agent-tool-used" => (
            format!("{agent} {}", text("turn")),
            format!("{} {}", text("tool"), text("detail")),
        ),
        "agent-message" => (
            format!("{agent} {}", text("turn")),
            format!("says: {}", fold(&event["text"])),
        ),
        "usage-reported" => (
            format!("{agent} {}", text("turn")),
            format!("tokens ({}): {}", text("basis"), usage(event)),
        ),
        "harness-error" if event["blocked"] == Value::Bool(true) => (
            format!("{agent} {}", text("turn")),
            format!("blocked: {}", text("message")),
        ),
        "harness-error" => (
            format!("{agent} {}", text("turn")),
            format!("error: {}", text("message")),
        ),
        "stage-started" => (
            String::new(),
            match text("because").as_str() {
                "" => format!("stage {} started", text("stage")),
                because => format!("stage {} runs again: {because}", text("stage")),
            },
        ),
        "stage-ended" => (
            String::new(),
            format!(
                "stage {} {} after {}{}",
                text("stage"),
                text("outcome"),
                millis(event),
                [text("reason"), text("summary")]
                    .into_iter()
                    .find(|said| !said.is_empty())
                    .map(|said| format!(": {said}"))
                    .unwrap_or_default()
            ),
        ),
        "stage-reused" => (
            String::new(),
            format!(
                "stage {} reused (finished in attempt {}){}",
                text("stage"),
                event["fromAttempt"],
                match text("summary").as_str() {
                    "" => String::new(),
                    summary => format!(": {summary}"),
                }
            ),
        ),
        "sources-changed" => (
            String::new(),
            format!(
                "changed since attempt {}: {}",
                event["sinceAttempt"],
                event["changed"]
                    .as_array()
                    .map(|files| files
                        .iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join(", "))
                    .unwrap_or_default()
            ),
        ),
        "agent-resumed" => (
            agent,
            format!(
                "resumes {} session {} (from attempt {})",
                text("harness"),
                text("session"),
                event["fromAttempt"]
            ),
        ),
        "budget-passed" => (
            agent,
            format!(
                "{} budget passed: {}",
                if event["hard"] == Value::Bool(true) {
                    "hard"
                } else {
                    "soft"
                },
                text("detail")
            ),
        ),
        other => (agent, format!("{other} {}", fold(event))),
    };
    LogLine { time, who, what }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_opened_agent_shows_its_labels() {
        let opened = json!({"at": "2026-11-29T18:30:58.000Z", "event": "agent-opened", "agent": "a", "runtime": {"kind": "command", "program": "./a.sh"}, "cwd": "/p", "launcher": "/c/wfa", "tracking": "cgroup", "labels": {"team": "red", "n": 2}});
        assert_eq!(
            line(&opened),
            "18:30:58.000  a  opened (command ./a.sh); labels team=\"red\" n=2"
        );
    }

    #[test]
    fn a_turn_in_a_container_names_it() {
        let placed = json!({"at": "2026-11-29T18:30:58.000Z", "event": "agent-container", "agent": "a", "turn": "t1-x", "container": "awf-r1-a-1"});
        assert_eq!(
            line(&placed),
            "18:30:58.000  a t1-x  runs in container awf-r1-a-1"
        );
    }

    #[test]
    fn tool_calls_read_as_arrows() {
        let called = json!({"at": "2026-11-29T18:30:58.123Z", "event": "tool-called", "agent": "reviewer", "turn": "t1", "tool": "add_finding", "call": "t1-c1", "input": {"line": 3}});
        assert_eq!(
            line(&called),
            "18:30:58.123  reviewer t1-c1  → add_finding {\"line\":3}"
        );
        let settled = json!({"at": "2026-11-29T18:30:58.125Z", "event": "tool-settled", "agent": "reviewer", "tool": "add_finding", "call": "t1-c1", "outcome": "handler-failed", "error": "src/a.ts:3 is already recorded", "durationMs": 2});
        assert_eq!(line(&settled), "18:30:58.125  reviewer t1-c1  ← add_finding failed (handler-failed): src/a.ts:3 is already recorded (2ms)");
    }

    #[test]
    fn refusals_name_their_turn_and_call() {
        let at = "2026-11-29T18:30:58.000Z";
        let refused = json!({"at": at, "event": "tool-refused", "agent": "a", "turn": "t1", "call": "t1-c2", "tool": "add", "code": "busy", "message": "add is still running"});
        assert_eq!(
            line(&refused),
            "18:30:58.000  a t1-c2  ✗ add refused (busy): add is still running"
        );
        let outside = json!({"at": at, "event": "tool-refused", "agent": "a", "tool": "add", "code": "not-in-turn", "message": "you have no open turn"});
        assert_eq!(
            line(&outside),
            "18:30:58.000  a  ✗ add refused (not-in-turn): you have no open turn"
        );
        let second = json!({"at": at, "event": "answer-submitted", "agent": "a", "turn": "t1", "accepted": false, "code": "closed-turn", "message": "turn t1 is already answered"});
        assert_eq!(
            line(&second),
            "18:30:58.000  a t1  answer refused (closed-turn): turn t1 is already answered"
        );
        let unfit = json!({"at": at, "event": "answer-submitted", "agent": "a", "turn": "t1", "accepted": false, "code": "invalid-result", "message": "the answer does not fit the turn", "problems": ["value.n: required, missing"]});
        assert_eq!(
            line(&unfit),
            "18:30:58.000  a t1  answer refused (invalid-result): the answer does not fit the turn [value.n: required, missing]"
        );
    }

    #[test]
    fn turns_and_runs() {
        let settled = json!({"at": "2026-11-29T18:30:59.000Z", "event": "turn-settled", "agent": "a", "turn": "t2", "outcome": "timed-out", "detail": "deadline", "durationMs": 1500});
        assert_eq!(
            line(&settled),
            "18:30:59.000  a t2  turn timed-out after 1.5s: deadline"
        );
        let labelled = json!({"at": "2026-11-29T18:30:58.000Z", "event": "turn-started", "agent": "a", "turn": "t3", "n": 3, "prompt": "Review.", "label": "review src/"});
        assert_eq!(
            line(&labelled),
            "18:30:58.000  a t3  turn 3 \"review src/\" started (7 bytes of prompt)"
        );
        let ended =
            json!({"at": "2026-11-29T18:31:00.000Z", "event": "run-ended", "outcome": "completed"});
        assert_eq!(line(&ended), "18:31:00.000  run ended completed");
    }

    #[test]
    fn stages_resumes_and_budgets_read_as_sentences() {
        let at = "2026-11-29T18:30:58.000Z";
        let cases = [
            (json!({"at": at, "event": "stage-started", "stage": "plan"}), "18:30:58.000  stage plan started"),
            (json!({"at": at, "event": "stage-started", "stage": "plan", "because": "its value no longer fits"}), "18:30:58.000  stage plan runs again: its value no longer fits"),
            (json!({"at": at, "event": "stage-ended", "stage": "plan", "outcome": "succeeded", "summary": "3 files", "durationMs": 1500}), "18:30:58.000  stage plan succeeded after 1.5s: 3 files"),
            (json!({"at": at, "event": "stage-ended", "stage": "build", "outcome": "stopped", "reason": "no plan", "durationMs": 20}), "18:30:58.000  stage build stopped after 20ms: no plan"),
            (json!({"at": at, "event": "stage-reused", "stage": "plan", "fromAttempt": 1, "summary": "3 files"}), "18:30:58.000  stage plan reused (finished in attempt 1): 3 files"),
            (json!({"at": at, "event": "sources-changed", "sinceAttempt": 1, "changed": ["wf.ts", "lib.ts"]}), "18:30:58.000  changed since attempt 1: wf.ts, lib.ts"),
            (json!({"at": at, "event": "agent-resumed", "agent": "a", "harness": "codex", "session": "0199", "fromAttempt": 1}), "18:30:58.000  a  resumes codex session 0199 (from attempt 1)"),
            (json!({"at": at, "event": "budget-passed", "agent": "a", "hard": true, "detail": "agent \"a\"'s hard budget of 100 tokens was passed"}), "18:30:58.000  a  hard budget passed: agent \"a\"'s hard budget of 100 tokens was passed"),
        ];
        for (event, expected) in cases {
            assert_eq!(line(&event), expected);
        }
    }

    #[test]
    fn what_an_agent_cli_did_between_calls() {
        let at = "2026-11-29T18:30:58.000Z";
        let shell = json!({"at": at, "event": "shell-finished", "agent": "a", "turn": "t1", "command": "ls", "exitCode": 0});
        assert_eq!(line(&shell), "18:30:58.000  a t1  $ ls → exit 0");
        let said = json!({"at": at, "event": "agent-message", "agent": "a", "turn": "t1", "text": "Done."});
        assert_eq!(line(&said), "18:30:58.000  a t1  says: \"Done.\"");
        let used = json!({"at": at, "event": "turn-settled", "agent": "a", "turn": "t1", "outcome": "answered", "durationMs": 900,
            "usage": {"inputTokens": 1200, "cachedInputTokens": 200, "outputTokens": 40, "reasoningTokens": 0}});
        assert_eq!(
            line(&used),
            "18:30:58.000  a t1  turn answered after 900ms (1200 in (200 cached), 40 out)"
        );
        let blocked = json!({"at": at, "event": "harness-error", "agent": "a", "turn": "t1", "message": "401", "blocked": true});
        assert_eq!(line(&blocked), "18:30:58.000  a t1  blocked: 401");
    }

    #[test]
    fn messages_and_message_turns() {
        let at = "2026-11-29T18:30:58.000Z";
        let sent = json!({"at": at, "event": "message-sent", "agent": "a", "turn": "t1-x", "seq": 2, "text": "found 3", "data": {"n": 3}});
        assert_eq!(
            line(&sent),
            "18:30:58.000  a t1-x  ✉ message 2 to the workflow: \"found 3\" data {\"n\":3}"
        );
        let woke = json!({"at": at, "event": "turn-started", "agent": "a", "turn": "t2-y", "n": 2, "message": {"text": "stop"}});
        assert_eq!(
            line(&woke),
            "18:30:58.000  a t2-y  message turn 2 started: {\"text\":\"stop\"}"
        );
        let got = json!({"at": at, "event": "message-received", "agent": "a", "seq": 2});
        assert_eq!(
            line(&got),
            "18:30:58.000  a  message 2 received by the workflow"
        );
        let left = json!({"at": at, "event": "messages-unreceived", "count": 1, "messages": [{"agent": "a", "seq": 3, "text": "x"}]});
        assert_eq!(
            line(&left),
            "18:30:58.000  1 message never received: 3 from a"
        );
        let refused = json!({"at": at, "event": "message-refused", "agent": "b", "code": "messages-off", "message": "no"});
        assert_eq!(
            line(&refused),
            "18:30:58.000  b  ✗ send refused (messages-off): no"
        );
    }
}
