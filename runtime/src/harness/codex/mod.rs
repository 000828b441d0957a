//! The `codex` runtime: OpenAI's Codex CLI (`@openai/codex`), one `codex exec` per attempt.
//!
//! First turn: `codex exec --json --skip-git-repo-check -c allow_login_shell=false
//! -c sandbox_mode="workspace-write" -c sandbox_workspace_write.network_access=true [-m MODEL]
//! [-c model_reasoning_effort="E"] [ARGS] -`, the prompt on stdin. Later turns and check-ins:
//! `codex exec resume <thread id> ...` with the same flags (`exec resume` takes no `-s`, hence
//! `-c sandbox_mode`). Why these flags (reference/harnesses.md, pitfalls 2 and 3):
//! - a login shell (`bash -lc`) resets PATH on Debian; `allow_login_shell=false` runs commands
//!   with `bash -c`, so the environment awf gives reaches `wfa`;
//! - codex's workspace-write sandbox blocks every socket, the launcher's Unix socket too, unless
//!   `network_access` is on; the sandbox otherwise stays (writes limited to the workspace and
//!   /tmp), rather than turning it off with `--dangerously-bypass-approvals-and-sandbox`;
//! - outside a git repository codex refuses to start without `--skip-git-repo-check`.
//!
//! Its stream: `thread.started{thread_id}` (the session), `item.started|completed` of a
//! `command_execution` (shell commands) or an `agent_message`, `turn.completed{usage}` and
//! `turn.failed{error}`. Usage is the thread's running total (it grows across `exec resume`), so
//! it is read on the session basis. An `item` of type `error` ("model metadata not found") is a
//! warning, not a failure. A command that codex's own sandbox could not run (`bwrap: ...`,
//! sandbox.rs) ends the attempt at once and the turn `blocked`, with codex's words: no command
//! will run, `wfa` included, so neither the model's retries nor a check-in can help.
//!
//! Beside it: `config.rs` (what `awf doctor` reads of codex's config.toml), `sandbox.rs` (codex's
//! sandbox as awf meets it) and `session.rs` (forks and compactions through `codex app-server`).

mod config;
mod sandbox;
mod session;

use std::path::Path;
use std::sync::Arc;

use serde_json::Value;

use crate::harness::cli::{
    self, count, json_line, text, AgentCli, Check, CliConfig, CliInfo, Flag, Readiness,
};
use crate::harness::{
    BoxFuture, Can, Capabilities, Compacted, Effort, Forked, Harness, HarnessEvent, Launch,
    LaunchError, LineMemory, OpEnd, SessionOp, Stream, Tokens, TurnLaunch, UsageBasis,
};
use config::CodexConfig;

static CAPABILITIES: Capabilities = Capabilities {
    resume: Can::Yes("codex exec resume <thread id>"),
    fork: Can::Yes("thread/fork through codex app-server: no model call"),
    compact: Can::Yes("thread/compact/start through codex app-server, the focus injected first; codex keeps its summary opaque"),
    set: Can::Yes("the next codex exec resume runs with the new -m or model_reasoning_effort"),
    effort: Effort::Levels(&["minimal", "low", "medium", "high", "xhigh"]),
    usage: Can::Yes("turn.completed.usage, the thread's running total"),
    shell_limit: "10 s, then the command is moved to the background (poll it with write_stdin)",
};

pub static INFO: CliInfo = CliInfo {
    name: "codex",
    program: "codex",
    package: "@openai/codex",
    tested: "0.171.0",
    capabilities: &CAPABILITIES,
    model_flag: Flag::Named("-m"),
    effort_flag: Flag::Setting("model_reasoning_effort"),
    open: |config| Arc::new(Codex { config }) as Arc<dyn Harness>,
    readiness,
    checks,
};

/// An agent run by codex.
pub struct Codex {
    config: CliConfig,
}

impl AgentCli for Codex {
    const INFO: &'static CliInfo = &INFO;

    fn config(&self) -> &CliConfig {
        &self.config
    }

    fn launch(&self, turn: &TurnLaunch<'_>) -> Result<Launch, LaunchError> {
        let mut args: Vec<String> = vec!["exec".into()];
        if let Some(thread) = turn.resume {
            args.extend(["resume".into(), thread.to_string()]);
        }
        args.extend(["--json", "--skip-git-repo-check"].map(String::from));
        args.extend(sandbox::gate(turn.sandbox.is_some()).map(String::from));
        args.extend(INFO.chosen_args(&self.config));
        // `-`: the prompt is read from stdin, which awf closes once it is written.
        args.push("-".into());
        Ok(self
            .config
            .launch(turn, args, Some(turn.prompt.to_string()), Vec::new()))
    }

    fn read_line(&self, stream: Stream, line: &str, memory: &mut LineMemory) -> Vec<HarnessEvent> {
        if stream == Stream::Stderr {
            // Inside awf's sandbox codex runs no sandbox of its own, so its helper's absence
            // (CODEX_HOME under /tmp: the agent's own home in a run under /tmp) does not matter.
            if memory.confined {
                return Vec::new();
            }
            return sandbox::refused_at_start(&self.config.program, line)
                .map(|message| {
                    vec![HarnessEvent::Error {
                        message,
                        blocked: true,
                    }]
                })
                .unwrap_or_default();
        }
        json_line(line)
            .map(|event| read_event(&event))
            .unwrap_or_default()
    }

    /// A command its sandbox refused: every other command, `wfa` included, would fail the same
    /// way, so the turn ends now rather than after the model's retries.
    fn hopeless(&self, event: &HarnessEvent) -> bool {
        matches!(event, HarnessEvent::Error { message, blocked: true } if sandbox::is_refusal(message))
    }

    fn fork<'a>(&'a self, op: SessionOp<'a>) -> BoxFuture<'a, OpEnd<Forked>> {
        Box::pin(session::fork(&INFO, &self.config, op))
    }

    fn compact<'a>(&'a self, op: SessionOp<'a>, focus: &'a str) -> BoxFuture<'a, OpEnd<Compacted>> {
        Box::pin(session::compact(&INFO, &self.config, op, focus))
    }
}

fn read_event(event: &Value) -> Vec<HarnessEvent> {
    match text(event, "type") {
        "thread.started" if !text(event, "thread_id").is_empty() => {
            vec![HarnessEvent::Session(text(event, "thread_id").to_string())]
        }
        "item.started" => match &event["item"] {
            item if text(item, "type") == "command_execution" => vec![HarnessEvent::ShellStarted {
                command: cli::unwrap_shell(text(item, "command")),
            }],
            _ => Vec::new(),
        },
        "item.completed" => read_item(&event["item"]),
        "turn.completed" => {
            let usage = &event["usage"];
            vec![HarnessEvent::Usage {
                tokens: Tokens {
                    input_tokens: count(usage, "input_tokens"),
                    cached_input_tokens: count(usage, "cached_input_tokens"),
                    output_tokens: count(usage, "output_tokens"),
                    reasoning_tokens: count(usage, "reasoning_output_tokens"),
                },
                basis: UsageBasis::Session,
            }]
        }
        "turn.failed" => error(text(&event["error"], "message")),
        "error" => error(text(event, "message")),
        _ => Vec::new(),
    }
}

fn read_item(item: &Value) -> Vec<HarnessEvent> {
    match text(item, "type") {
        "command_execution" => read_command(item),
        "agent_message" => vec![HarnessEvent::Message(text(item, "text").to_string())],
        // A warning codex carries on after ("model metadata not found"), unless its sandbox
        // cannot start.
        "error" => match sandbox::refusal(text(item, "message")) {
            Some(words) => vec![HarnessEvent::Error {
                message: sandbox::refused(None, words),
                blocked: true,
            }],
            None => Vec::new(),
        },
        "file_change" => vec![HarnessEvent::ToolUsed {
            tool: "file_change".into(),
            detail: item["changes"]
                .as_array()
                .map(|changes| {
                    changes
                        .iter()
                        .map(|c| format!("{} {}", text(c, "kind"), text(c, "path")))
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .unwrap_or_default(),
        }],
        "mcp_tool_call" => vec![HarnessEvent::ToolUsed {
            tool: format!("{}.{}", text(item, "server"), text(item, "tool")),
            detail: String::new(),
        }],
        "web_search" => vec![HarnessEvent::ToolUsed {
            tool: "web_search".into(),
            detail: text(item, "query").to_string(),
        }],
        _ => Vec::new(),
    }
}

/// A shell command that ended; one its sandbox would not run also says the agent is blocked:
/// every command it runs, `wfa` included, fails the same way.
fn read_command(item: &Value) -> Vec<HarnessEvent> {
    let command = cli::unwrap_shell(text(item, "command"));
    let exit_code = item["exit_code"].as_i64().map(|code| code as i32);
    let output = item["aggregated_output"].as_str();
    let refused = output
        .filter(|_| exit_code != Some(0))
        .and_then(sandbox::refusal)
        .map(|words| HarnessEvent::Error {
            message: sandbox::refused(Some(&command), words),
            blocked: true,
        });
    let mut events = vec![HarnessEvent::ShellFinished {
        command,
        exit_code,
        output: output.map(str::to_string),
    }];
    events.extend(refused);
    events
}

fn error(message: &str) -> Vec<HarnessEvent> {
    if message.is_empty() {
        return Vec::new();
    }
    vec![HarnessEvent::Error {
        message: message.to_string(),
        blocked: cli::says_login_needed(message) || sandbox::refusal(message).is_some(),
    }]
}

/// What `awf doctor` checks of codex besides its login: the model it will ask for, and whether
/// its sandbox can run a command here.
fn checks(program: &Path) -> Vec<Check> {
    vec![config::model_check(), sandbox::check(program)]
}

/// A key in the environment, a ChatGPT login (`auth.json` in CODEX_HOME), or a model provider
/// of one's own in its config.toml.
fn readiness() -> Readiness {
    if let Some(name) = cli::env_set(&["OPENAI_API_KEY", "CODEX_API_KEY"]) {
        return Readiness::found(format!("{name} is set"));
    }
    let Some(home) = cli::home_dir("CODEX_HOME", ".codex") else {
        return Readiness::missing("no HOME or CODEX_HOME to look for a login in");
    };
    if home.join("auth.json").is_file() {
        return Readiness::found(format!("a login in {}", home.join("auth.json").display()));
    }
    let config = std::fs::read_to_string(home.join("config.toml")).unwrap_or_default();
    if CodexConfig::read(&config).provider.is_some() {
        return Readiness::found(format!(
            "a model provider in {}",
            home.join("config.toml").display()
        ));
    }
    Readiness::missing(format!(
        "no OPENAI_API_KEY, no login in {} and no model_provider in its config.toml; run `codex login`",
        home.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::test_turn;
    use serde_json::json;

    /// codex warning that its CODEX_HOME is under /tmp, where a codex whose sandbox check
    /// fails (this one) cannot make its helper: a turn of its own sandbox is blocked from the
    /// start; inside awf's sandbox (no sandbox of codex's) the warning is nothing.
    #[test]
    fn the_helper_warning_blocks_only_a_codex_running_its_own_sandbox() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("awf-codex-helper-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let program = dir.join("codex");
        std::fs::write(
            &program,
            "#!/bin/sh\necho 'bwrap: execvp codex-linux-sandbox: No such file or directory' >&2\nexit 1\n",
        )
        .unwrap();
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        let harness = Codex {
            config: CliConfig {
                program: program.clone(),
                model: None,
                effort: None,
                args: vec![],
            },
        };
        let warning = format!(
            "WARNING: Refusing to create helper binaries under temporary dir {:?} (codex_home: \"{}/home\")",
            dir.display().to_string(),
            dir.display()
        );
        let mut confined = LineMemory {
            confined: true,
            ..LineMemory::default()
        };
        let inside = harness.read_line(Stream::Stderr, &warning, &mut confined);
        let outside = harness.read_line(Stream::Stderr, &warning, &mut LineMemory::default());
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(inside, vec![]);
        assert!(
            matches!(&outside[..], [HarnessEvent::Error { blocked: true, message }] if message.contains("codex-linux-sandbox")),
            "{outside:?}"
        );
    }

    fn codex(model: Option<&str>, effort: Option<&str>) -> Codex {
        Codex {
            config: CliConfig {
                program: "/usr/bin/codex".into(),
                model: model.map(str::to_string),
                effort: effort.map(str::to_string),
                args: vec![],
            },
        }
    }

    #[test]
    fn a_first_turn_and_a_resumed_one() {
        let first = codex(Some("gpt-5"), Some("high"))
            .launch(&test_turn(None))
            .unwrap();
        assert_eq!(
            first.args.join(" "),
            "exec --json --skip-git-repo-check -c allow_login_shell=false -c sandbox_mode=\"workspace-write\" -c sandbox_workspace_write.network_access=true -m gpt-5 -c model_reasoning_effort=\"high\" -"
        );
        assert_eq!(first.stdin.as_deref(), Some("Say hello."));
        let resumed = codex(None, None).launch(&test_turn(Some("01a2"))).unwrap();
        assert!(resumed
            .args
            .join(" ")
            .starts_with("exec resume 01a2 --json "));
        assert_eq!(resumed.args.last().map(String::as_str), Some("-"));
    }

    #[test]
    fn reads_the_stream_codex_prints() {
        let read = |line: &str| {
            codex(None, None).read_line(Stream::Stdout, line, &mut LineMemory::default())
        };
        assert_eq!(
            read(r#"{"type":"thread.started","thread_id":"01a23149"}"#),
            vec![HarnessEvent::Session("01a23149".into())]
        );
        assert_eq!(
            read(
                r#"{"type":"item.completed","item":{"id":"item_0","type":"error","message":"Model metadata for `fake-model` not found."}}"#
            ),
            vec![]
        );
        assert_eq!(
            read(
                r#"{"type":"item.completed","item":{"id":"item_2","type":"command_execution","command":"/bin/bash -c \"/tmp/a/wfa tool bad --x 'abc'\"","aggregated_output":"wfa: bad: refused (invalid-input)\n","exit_code":2,"status":"failed"}}"#
            ),
            vec![HarnessEvent::ShellFinished {
                command: "/tmp/a/wfa tool bad --x 'abc'".into(),
                exit_code: Some(2),
                output: Some("wfa: bad: refused (invalid-input)\n".into()),
            }]
        );
        assert_eq!(
            read(
                r#"{"type":"turn.completed","usage":{"input_tokens":8800,"cached_input_tokens":3800,"cache_write_input_tokens":0,"output_tokens":220,"reasoning_output_tokens":40}}"#
            ),
            vec![HarnessEvent::Usage {
                tokens: Tokens {
                    input_tokens: 8800,
                    cached_input_tokens: 3800,
                    output_tokens: 220,
                    reasoning_tokens: 40
                },
                basis: UsageBasis::Session,
            }]
        );
        assert_eq!(
            read(
                r#"{"type":"turn.failed","error":{"message":"unexpected status 401 Unauthorized: Incorrect API key provided."}}"#
            ),
            vec![HarnessEvent::Error {
                message: "unexpected status 401 Unauthorized: Incorrect API key provided.".into(),
                blocked: true
            }]
        );
        assert_eq!(read("Reading additional input from stdin..."), vec![]);
        assert_eq!(
            codex(None, None).read_line(
                Stream::Stderr,
                r#"{"type":"thread.started","thread_id":"x"}"#,
                &mut LineMemory::default()
            ),
            vec![]
        );
    }

    #[test]
    fn a_command_its_sandbox_would_not_run_blocks_the_turn() {
        let read = |line: &str| {
            codex(None, None).read_line(Stream::Stdout, line, &mut LineMemory::default())
        };
        let refused = read(
            r#"{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"/bin/bash -c \"/tmp/a/wfa tool add --x '1'\"","aggregated_output":"bwrap: execvp codex-linux-sandbox: No such file or directory\n","exit_code":1,"status":"failed"}}"#,
        );
        assert!(
            matches!(&refused[..], [HarnessEvent::ShellFinished { exit_code: Some(1), .. }, HarnessEvent::Error { message, blocked: true }]
                if message.starts_with("codex's sandbox could not run the agent's command `/tmp/a/wfa tool add --x '1'`: bwrap: execvp codex-linux-sandbox: No such file or directory; hint: ")),
            "{refused:?}"
        );
        assert!(
            codex(None, None).hopeless(&refused[1]),
            "the attempt ends at once"
        );
        assert!(!codex(None, None).hopeless(&HarnessEvent::Error {
            message: "unexpected status 401 Unauthorized".into(),
            blocked: true
        }));
        // The same words from a command that succeeded are its output, not a refusal.
        let printed = read(
            r#"{"type":"item.completed","item":{"id":"item_2","type":"command_execution","command":"cat notes.txt","aggregated_output":"bwrap: a note\n","exit_code":0,"status":"completed"}}"#,
        );
        assert!(
            matches!(&printed[..], [HarnessEvent::ShellFinished { .. }]),
            "{printed:?}"
        );
        let warned = read(
            r#"{"type":"item.completed","item":{"id":"item_0","type":"error","message":"error running landlock: Sandbox(LandlockRestrict)"}}"#,
        );
        assert!(
            matches!(&warned[..], [HarnessEvent::Error { message, blocked: true }] if message.contains("could not run the agent's commands: error running landlock")),
            "{warned:?}"
        );
    }

    #[test]
    fn describes_itself_with_its_choices() {
        assert_eq!(
            Harness::describe(&codex(Some("gpt-5"), None)),
            json!({"kind": "codex", "program": "/usr/bin/codex", "model": "gpt-5"})
        );
    }
}
