//! The closing summary `awf run` prints on stderr after the result, for a run that opened
//! agents: how it ended and how long it took; per agent its turns and their outcomes, its tool
//! calls (ok, refused, failed), its tokens and cost; each turn that ended without an answer with
//! why (its first line: the exit code, the CLI's words) and the last line its agent wrote on
//! stderr; where its worktree was kept, if it was; each failed tool call with the handler's error and where it was thrown (a value that
//! is not JSON: where the handler is written). Where the records are, and the `awf logs`
//! command that shows them, `awf run` says after it (it knows how the user typed the run's file
//! and cwd).

use std::path::Path;
use std::time::Duration;

use super::board::{Board, TurnFailure};
use crate::duration::format_duration;

/// The summary's lines, or `None` for a run that opened no agent (its ending says enough).
pub fn summary(board: &Board, outcome: &str, took: Duration, cwd: &Path) -> Option<String> {
    if board.agents.is_empty() {
        return None;
    }
    let took = format_duration(Duration::from_millis(took.as_millis() as u64));
    let mut text = format!("awf: run {outcome} in {took}\n");
    for agent in &board.agents {
        let turns = match agent.turns {
            1 => "1 turn".to_string(),
            n => format!("{n} turns"),
        };
        let outcomes = if agent.outcomes.is_empty() {
            String::new()
        } else {
            format!(" ({})", agent.outcomes.join(", "))
        };
        let calls = agent.calls;
        let mut line = format!("  {}", agent.key);
        if !agent.runtime.is_empty() {
            line += &format!(" ({})", agent.runtime);
        }
        line += &format!(": {turns}{outcomes}");
        if calls.ok + calls.refused + calls.failed > 0 {
            line += &format!(
                "; tools {} ok, {} refused, {} failed",
                calls.ok, calls.refused, calls.failed
            );
        }
        if !agent.usage.is_empty() {
            line += &format!("; {}", agent.usage.summary());
        }
        text += &line;
        text.push('\n');
        for failure in &agent.turn_failures {
            text += &format!("    ✗ {}\n", turn_failure(failure));
        }
        for failure in &agent.failures {
            let at = match &failure.at {
                // A value that is not JSON is placed at the handler that returned it.
                Some(at) if failure.code == "result-not-json" => {
                    format!(" (handler at {})", relative(at, cwd))
                }
                Some(at) => format!(" (at {})", relative(at, cwd)),
                None => String::new(),
            };
            text += &format!(
                "    ✗ {} {}: {}{at}\n",
                failure.tool, failure.code, failure.error
            );
        }
        if let Some((path, branch)) = &agent.kept_worktree {
            text += &format!(
                "    worktree kept: {} (branch {branch})\n",
                relative(path, cwd)
            );
        }
    }
    Some(text)
}

/// `t1 failed: agent.sh exited with code 3: ...; last stderr line: ...`: the first line of the
/// turn's detail, and the last line its process wrote on stderr when the detail lacks it.
fn turn_failure(failure: &TurnFailure) -> String {
    let mut text = format!("{} {}", failure.turn, failure.outcome);
    let reason = failure.detail.lines().next().unwrap_or_default();
    if !reason.is_empty() {
        text += &format!(": {reason}");
    }
    if let Some(line) = failure.last_stderr.as_deref() {
        if !reason.contains(line) {
            text += &format!("; last stderr line: {line}");
        }
    }
    text
}

/// `at` without the cwd in front, as the author opened the file.
fn relative(at: &str, cwd: &Path) -> String {
    let prefix = format!("{}/", cwd.display());
    at.strip_prefix(&prefix).unwrap_or(at).to_string()
}

#[cfg(test)]
mod tests {
    use super::super::test_events::*;
    use super::*;
    use serde_json::json;

    #[test]
    fn each_agent_on_a_line_and_failed_calls_under_it() {
        let mut board = Board::default();
        for event in [
            opened(
                "reviewer",
                json!({"kind": "codex", "model": "gpt-5", "program": "/bin/codex"}),
            ),
            turn_started("reviewer", "t1"),
            tool_ok("reviewer", "add_finding"),
            tool_settled(
                "reviewer",
                "add_finding",
                "handler-failed",
                Some("src/a.ts:3 is already recorded"),
                Some("/w/tools.ts:31:21"),
            ),
            tool_settled(
                "reviewer",
                "when",
                "result-not-json",
                Some("when returned a value that is not JSON: value is a Date, which is not JSON; fix the handler: return date.toISOString()"),
                Some("/w/tools.ts:40:15"),
            ),
            turn_settled(
                "reviewer",
                "t1",
                "answered",
                None,
                Some(usage(1200, 200, 40, Some(0.01))),
            ),
            opened_command("idle", "/w/agent.sh"),
            opened_command("broken", "/w/agent.sh"),
            turn_started("broken", "t1"),
        ] {
            board.apply(&event);
        }
        board.stderr_line("broken", "connecting");
        board.stderr_line("broken", "the network is down");
        for event in [
            turn_settled(
                "broken",
                "t1",
                "failed",
                Some("agent.sh exited with code 3: connecting\nthe network is down"),
                None,
            ),
            turn_started("broken", "t2"),
            turn_settled(
                "broken",
                "t2",
                "failed",
                Some("agent.sh exited with code 3: the network is down"),
                None,
            ),
        ] {
            board.apply(&event);
        }
        let text = summary(
            &board,
            "completed",
            Duration::from_millis(12_300),
            Path::new("/w"),
        )
        .unwrap();
        assert_eq!(
            text,
            "awf: run completed in 12.3s\n  reviewer (codex gpt-5): 1 turn (answered); tools 1 ok, 0 refused, 2 failed; 1,200 in (200 cached), 40 out, $0.0100\n    ✗ add_finding handler-failed: src/a.ts:3 is already recorded (at tools.ts:31:21)\n    ✗ when result-not-json: when returned a value that is not JSON: value is a Date, which is not JSON; fix the handler: return date.toISOString() (handler at tools.ts:40:15)\n  idle (command agent.sh): 0 turns\n  broken (command agent.sh): 2 turns (failed, failed)\n    ✗ t1 failed: agent.sh exited with code 3: connecting; last stderr line: the network is down\n    ✗ t2 failed: agent.sh exited with code 3: the network is down\n"
        );
        assert_eq!(
            summary(
                &Board::default(),
                "completed",
                Duration::ZERO,
                Path::new("/")
            ),
            None
        );
    }
}
