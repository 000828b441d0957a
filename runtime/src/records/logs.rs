//! What `awf logs` shows: finding a run's folder, filtering its events, one readable line each.
//!
//! A line is the time, who (the agent, and its turn or call), then what happened; values are
//! compact JSON, folded when long. `--json` prints the raw lines instead (`reader.rs`).

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::RUNS_DIR;

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

/// The keys of the agents a run opened, in the order they opened (its `agent-opened` events).
pub fn agents_of(events: &Path) -> std::io::Result<Vec<String>> {
    let mut agents: Vec<String> = Vec::new();
    super::reader::each_event(events, |event| {
        if event.get("event").and_then(Value::as_str) == Some("agent-opened") {
            if let Some(key) = event.get("agent").and_then(Value::as_str) {
                if !agents.iter().any(|a| a == key) {
                    agents.push(key.to_string());
                }
            }
        }
        true
    })?;
    Ok(agents)
}

/// Why `awf logs` found no run to show.
#[derive(Debug, thiserror::Error)]
pub enum LogsError {
    #[error("no run {run} under {}", runs.display())]
    NoSuchRun { run: String, runs: PathBuf },
    #[error("no runs under {}", runs.display())]
    NoRuns { runs: PathBuf },
    #[error("run {run} has no agent \"{agent}\"; {}", if .agents.is_empty() { "it opened none".to_string() } else { format!("its agents: {}", .agents.join(", ")) })]
    NoSuchAgent {
        run: String,
        agent: String,
        agents: Vec<String>,
    },
}

impl crate::hint::Hint for LogsError {
    fn hint(&self) -> Option<String> {
        Some(match self {
            LogsError::NoSuchRun { .. } => {
                "a run id is the name of a folder under .awf/runs/<workflow>/; `awf logs` alone shows the latest run".into()
            }
            LogsError::NoRuns { .. } => "`awf run` a workflow here first, or pass --cwd".into(),
            LogsError::NoSuchAgent { .. } => {
                "pass one of its agents' keys to --agent, or leave --agent out".into()
            }
        })
    }
}

/// The run folder `awf logs [RUN]` means: a folder path, a run id under `<cwd>/.awf/runs`, or
/// (none given) the latest run there.
pub fn find_run(cwd: &Path, run: Option<&str>) -> Result<PathBuf, LogsError> {
    let runs = cwd.join(RUNS_DIR);
    if let Some(run) = run {
        let as_path = cwd.join(run);
        if as_path.join("events.jsonl").is_file() {
            return Ok(as_path);
        }
        return all_runs(&runs)
            .into_iter()
            .find(|dir| dir.file_name().and_then(|n| n.to_str()) == Some(run))
            .ok_or_else(|| LogsError::NoSuchRun {
                run: run.to_string(),
                runs: runs.clone(),
            });
    }
    all_runs(&runs)
        .into_iter()
        .max_by_key(|dir| started(dir))
        .ok_or(LogsError::NoRuns { runs })
}

/// When a run started, for picking the latest: the time in its id (`20261129-183058-...`), then
/// its run.json's `startedAt` to the millisecond (two runs in one second), then its id.
fn started(dir: &Path) -> (String, String, String) {
    let id = dir
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("")
        .to_string();
    let id_time = id.get(..15).unwrap_or("").to_string();
    let started_at = std::fs::read_to_string(dir.join("run.json"))
        .ok()
        .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        .and_then(|run| run["startedAt"].as_str().map(str::to_string))
        .unwrap_or_default();
    (id_time, started_at, id)
}

/// Every `<workflow>/<run-id>` folder with an events file.
fn all_runs(runs: &Path) -> Vec<PathBuf> {
    let Ok(workflows) = std::fs::read_dir(runs) else {
        return Vec::new();
    };
    workflows
        .flatten()
        .filter_map(|w| std::fs::read_dir(w.path()).ok())
        .flat_map(|ids| ids.flatten().map(|e| e.path()))
        .filter(|dir| dir.join("events.jsonl").is_file())
        .collect()
}

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
        "agent-opened" => (agent, format!("opened ({})", runtime(event.get("runtime")))),
        "agent-closed" => (agent, "closed".to_string()),
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
                "turn {} started ({} of prompt)",
                number(event, "n"),
                size(&text("prompt"))
            ),
        ),
        "answer-submitted" if event["accepted"] == Value::Bool(true) => (
            format!("{agent} {}", text("turn")),
            format!("answer accepted: {}", fold(&event["value"])),
        ),
        "answer-submitted" => (
            format!("{agent} {}", text("turn")),
            format!("answer refused: {}", list(event.get("problems"))),
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
            agent,
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
        other => (agent, format!("{other} {}", fold(event))),
    };
    LogLine { time, who, what }
}

/// `1200 in (200 cached), 40 out, $0.0100` from an object with the usage fields.
fn usage(value: &Value) -> String {
    let count = |name: &str| value.get(name).and_then(Value::as_u64).unwrap_or(0);
    let mut text = format!("{} in", count("inputTokens"));
    if count("cachedInputTokens") > 0 {
        text += &format!(" ({} cached)", count("cachedInputTokens"));
    }
    text += &format!(", {} out", count("outputTokens"));
    if count("reasoningTokens") > 0 {
        text += &format!(" ({} reasoning)", count("reasoningTokens"));
    }
    if let Some(usd) = value.get("costUsd").and_then(Value::as_f64) {
        text += &format!(", ${usd:.4}");
    }
    text
}

fn number(event: &Value, name: &str) -> String {
    event.get(name).map(|v| v.to_string()).unwrap_or_default()
}

fn millis(event: &Value) -> String {
    let ms = event.get("durationMs").and_then(Value::as_u64).unwrap_or(0);
    if ms >= 1000 {
        format!("{:.1}s", ms as f64 / 1000.0)
    } else {
        format!("{ms}ms")
    }
}

fn with_reason(text: String, reason: Option<&Value>) -> String {
    match reason.and_then(Value::as_str) {
        Some(reason) if !reason.is_empty() => format!("{text}: {reason}"),
        _ => text,
    }
}

fn runtime(runtime: Option<&Value>) -> String {
    let Some(runtime) = runtime else {
        return String::new();
    };
    let field = |name: &str| runtime.get(name).and_then(Value::as_str);
    match field("kind") {
        Some("command") => format!("command {}", field("program").unwrap_or("")),
        Some(harness) if field("program").is_some() => match field("model") {
            Some(model) => format!("{harness} {model}"),
            None => harness.to_string(),
        },
        _ => fold(runtime),
    }
}

fn fields(fields: Option<&Value>) -> String {
    match fields {
        Some(Value::Object(map)) => map
            .iter()
            .map(|(k, v)| format!(" {k}={}", fold(v)))
            .collect(),
        _ => String::new(),
    }
}

fn list(items: Option<&Value>) -> String {
    items
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join("; ")
        })
        .unwrap_or_default()
}

fn details(items: Option<&Value>) -> String {
    let text = list(items);
    if text.is_empty() {
        text
    } else {
        format!(" [{text}]")
    }
}

fn size(text: &str) -> String {
    size_of(text.len() as u64)
}

fn size_of(bytes: u64) -> String {
    if bytes >= 1024 * 1024 {
        format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
    } else if bytes >= 1024 {
        format!("{:.1} KiB", bytes as f64 / 1024.0)
    } else {
        format!("{bytes} bytes")
    }
}

/// A value as compact JSON, cut to 160 characters.
fn fold(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 160 {
        format!(
            "{}… ({})",
            text.chars().take(160).collect::<String>(),
            size(&text)
        )
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
    fn turns_and_runs() {
        let settled = json!({"at": "2026-11-29T18:30:59.000Z", "event": "turn-settled", "agent": "a", "turn": "t2", "outcome": "timed-out", "detail": "deadline", "durationMs": 1500});
        assert_eq!(
            line(&settled),
            "18:30:59.000  a t2  turn timed-out after 1.5s: deadline"
        );
        let ended =
            json!({"at": "2026-11-29T18:31:00.000Z", "event": "run-ended", "outcome": "completed"});
        assert_eq!(line(&ended), "18:31:00.000  run ended completed");
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

    #[test]
    fn the_latest_run_is_the_latest_by_its_start_not_its_name() {
        let cwd = std::env::temp_dir().join(format!("awf-logs-latest-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&cwd);
        let run = |workflow: &str, id: &str, at: &str| {
            let dir = cwd.join(RUNS_DIR).join(workflow).join(id);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("events.jsonl"), "").unwrap();
            std::fs::write(dir.join("run.json"), json!({"startedAt": at}).to_string()).unwrap();
            dir
        };
        run("a", "20261129-183058-zzzz", "2026-11-29T18:30:58.100Z");
        let later = run("b", "20261129-183058-aaaa", "2026-11-29T18:30:58.900Z");
        run("c", "20261129-183057-zzzz", "2026-11-29T18:30:57.999Z");
        assert_eq!(find_run(&cwd, None).unwrap(), later);
        std::fs::remove_dir_all(cwd).unwrap();
    }

    #[test]
    fn long_values_are_folded() {
        let long = json!("x".repeat(500));
        assert!(fold(&long).ends_with("… (502 bytes)"));
    }
}
