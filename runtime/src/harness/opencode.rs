//! The `opencode` runtime: opencode (`opencode-ai`), one `opencode run` per attempt.
//!
//! First turn: `opencode run --format json [-m PROVIDER/MODEL] [--variant E] [ARGS] <prompt>`;
//! opencode names its session on every event (`sessionID`), and later turns and check-ins add
//! `-s <id>`. In `run`, opencode lets bash run unless the user's config says otherwise; so that
//! a config that asks first (or denies) still lets the agent run its own launcher, awf adds one
//! rule to the inline config (`OPENCODE_CONFIG_CONTENT`, the user's own inline config kept and
//! extended): `permission.bash["<launcher> *"] = "allow"`. Nothing else is widened.
//!
//! Its stream: `step_start`, `tool_use` (a finished call: `part.state` with the command, its
//! output and `metadata.exit`), `text`, `step_finish` (this request's `tokens` and `cost`) and
//! `error`. A new session's first model request makes a title, which no event reports.

use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::cli::{self, count, json_line, text, AgentCli, CliConfig, CliInfo, Flag, Readiness};
use super::{
    Can, Capabilities, Effort, Harness, HarnessEvent, Launch, LaunchError, LineMemory, Stream,
    Tokens, TurnLaunch, UsageBasis,
};

static CAPABILITIES: Capabilities = Capabilities {
    resume: Can::Yes("opencode run -s <session id>"),
    fork: Can::No("opencode forks a session only as it runs a message (run --session <id> --fork); awf does not fork opencode agents yet"),
    compact: Can::No("opencode compacts a session only in its TUI (/compact), not headless"),
    set: Can::Yes("the next opencode run --session runs with the new -m"),
    effort: Effort::AnyName(
        "passed as --variant; what it means is the provider's (high, max, minimal, ...)",
    ),
    usage: Can::Yes("step_finish.part.tokens and cost, for each model request"),
    shell_limit: "120 s by default",
};

pub static INFO: CliInfo = CliInfo {
    name: "opencode",
    program: "opencode",
    package: "opencode-ai",
    tested: "1.18.33",
    capabilities: &CAPABILITIES,
    model_flag: Flag::Named("-m"),
    effort_flag: Flag::Named("--variant"),
    open: |config| Arc::new(Opencode { config }) as Arc<dyn Harness>,
    readiness,
    checks: cli::no_checks,
};

/// The variable opencode reads inline config from.
const INLINE_CONFIG: &str = "OPENCODE_CONFIG_CONTENT";

/// An agent run by opencode.
pub struct Opencode {
    config: CliConfig,
}

impl AgentCli for Opencode {
    const INFO: &'static CliInfo = &INFO;

    fn config(&self) -> &CliConfig {
        &self.config
    }

    fn launch(&self, turn: &TurnLaunch<'_>) -> Result<Launch, LaunchError> {
        let mut args: Vec<String> = vec!["run".into(), "--format".into(), "json".into()];
        if let Some(session) = turn.resume {
            args.extend(["-s".into(), session.to_string()]);
        }
        args.extend(INFO.chosen_args(&self.config));
        args.push(cli::prompt_argument(turn.prompt)?);
        let inline = std::env::var(INLINE_CONFIG).ok();
        let mut config = allow_launcher(inline.as_deref(), &turn.launcher.display().to_string())?;
        if turn.sandbox.is_some() {
            config = allow_everything(&config)?;
        }
        Ok(self
            .config
            .launch(turn, args, None, vec![(INLINE_CONFIG.into(), config)]))
    }

    fn read_line(&self, stream: Stream, line: &str, _: &mut LineMemory) -> Vec<HarnessEvent> {
        if stream == Stream::Stderr {
            return Vec::new();
        }
        json_line(line)
            .map(|event| read_event(&event))
            .unwrap_or_default()
    }
}

/// The user's inline config (if any) with the launcher allowed for bash.
fn allow_launcher(inline: Option<&str>, launcher: &str) -> Result<String, LaunchError> {
    let mut config = match inline.map(str::trim).filter(|s| !s.is_empty()) {
        None => Map::new(),
        Some(text) => match serde_json::from_str(text) {
            Ok(Value::Object(config)) => config,
            _ => return Err(LaunchError::InlineConfigNotJson(INLINE_CONFIG)),
        },
    };
    let permission = config.entry("permission").or_insert_with(|| json!({}));
    let Value::Object(permission) = permission else {
        return Err(LaunchError::InlineConfigPermission(INLINE_CONFIG));
    };
    let bash = permission.entry("bash").or_insert_with(|| json!({}));
    if let Value::String(everything) = bash {
        *bash = json!({ "*": everything.clone() });
    }
    if let Value::Object(rules) = bash {
        rules.insert(format!("{launcher} *"), json!("allow"));
    }
    Ok(Value::Object(config).to_string())
}

/// Inside awf's sandbox the box is the gate: `config` with every permission allowed.
fn allow_everything(config: &str) -> Result<String, LaunchError> {
    let Ok(Value::Object(mut config)) = serde_json::from_str::<Value>(config) else {
        return Err(LaunchError::InlineConfigNotJson(INLINE_CONFIG));
    };
    config.insert(
        "permission".into(),
        json!({ "edit": "allow", "bash": "allow", "webfetch": "allow" }),
    );
    Ok(Value::Object(config).to_string())
}

fn read_event(event: &Value) -> Vec<HarnessEvent> {
    let mut events = Vec::new();
    if !text(event, "sessionID").is_empty() {
        events.push(HarnessEvent::Session(text(event, "sessionID").to_string()));
    }
    let part = &event["part"];
    match text(event, "type") {
        "tool_use" if text(part, "tool") == "bash" => {
            let state = &part["state"];
            events.push(HarnessEvent::ShellFinished {
                command: text(&state["input"], "command").to_string(),
                exit_code: state["metadata"]["exit"].as_i64().map(|code| code as i32),
                output: state["output"].as_str().map(str::to_string),
            });
        }
        "tool_use" => events.push(HarnessEvent::ToolUsed {
            tool: text(part, "tool").to_string(),
            detail: match text(&part["state"], "title") {
                "" => part["state"]["input"].to_string(),
                title => title.to_string(),
            },
        }),
        "text" if !text(part, "text").trim().is_empty() => {
            events.push(HarnessEvent::Message(text(part, "text").to_string()))
        }
        "step_finish" => {
            let tokens = &part["tokens"];
            let cached = count(&tokens["cache"], "read");
            let reasoning = count(tokens, "reasoning");
            events.push(HarnessEvent::Usage {
                tokens: Tokens {
                    input_tokens: count(tokens, "input")
                        + cached
                        + count(&tokens["cache"], "write"),
                    cached_input_tokens: cached,
                    output_tokens: count(tokens, "output") + reasoning,
                    reasoning_tokens: reasoning,
                },
                basis: UsageBasis::Request,
            });
            if let Some(usd) = part["cost"].as_f64().filter(|usd| *usd > 0.0) {
                events.push(HarnessEvent::Cost {
                    usd,
                    basis: UsageBasis::Request,
                });
            }
        }
        "error" => {
            let error = &event["error"];
            let message = match text(&error["data"], "message") {
                "" => text(error, "name").to_string(),
                said => said.to_string(),
            };
            let status = error["data"]["statusCode"].as_u64();
            events.push(HarnessEvent::Error {
                blocked: matches!(status, Some(401 | 403)) || cli::says_login_needed(&message),
                message,
            });
        }
        _ => {}
    }
    events
}

/// A provider key in the environment, or opencode's own auth file.
fn readiness() -> Readiness {
    let keys = [
        "ANTHROPIC_API_KEY",
        "OPENAI_API_KEY",
        "GEMINI_API_KEY",
        "OPENROUTER_API_KEY",
    ];
    if let Some(name) = cli::env_set(&keys) {
        return Readiness::found(format!("{name} is set"));
    }
    if cli::env_set(&[INLINE_CONFIG]).is_some() {
        return Readiness::found(format!(
            "{INLINE_CONFIG} is set (a provider may be configured in it)"
        ));
    }
    if let Some(auth) =
        cli::home_dir("XDG_DATA_HOME", ".local/share").map(|d| d.join("opencode/auth.json"))
    {
        if auth.is_file() {
            return Readiness::found(format!("a login in {}", auth.display()));
        }
    }
    Readiness::missing(
        "no provider key in the environment, no OPENCODE_CONFIG_CONTENT and no opencode auth.json; run `opencode auth login`",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::test_turn;

    #[test]
    fn the_launcher_is_allowed_in_the_users_inline_config() {
        let ours = allow_launcher(None, "/tmp/a/wfa").unwrap();
        assert_eq!(ours, r#"{"permission":{"bash":{"/tmp/a/wfa *":"allow"}}}"#);
        let theirs = allow_launcher(
            Some(r#"{"model":"wf/m","permission":{"bash":"ask","edit":"deny"}}"#),
            "/tmp/a/wfa",
        )
        .unwrap();
        let theirs: Value = serde_json::from_str(&theirs).unwrap();
        assert_eq!(theirs["model"], "wf/m");
        assert_eq!(theirs["permission"]["edit"], "deny");
        assert_eq!(
            theirs["permission"]["bash"],
            json!({"*": "ask", "/tmp/a/wfa *": "allow"})
        );
        assert!(allow_launcher(Some("not json"), "/tmp/a/wfa")
            .unwrap_err()
            .to_string()
            .contains("not a JSON object"));
    }

    #[test]
    fn launches_resume_the_session_opencode_named() {
        let harness = Opencode {
            config: CliConfig {
                program: "/usr/bin/opencode".into(),
                model: Some("wf/fake-model".into()),
                effort: Some("high".into()),
                args: vec![],
            },
        };
        let turn = test_turn(Some("ses_1"));
        let launch = harness.launch(&turn).unwrap();
        assert_eq!(
            launch.args.join(" "),
            "run --format json -s ses_1 -m wf/fake-model --variant high Say hello."
        );
        assert_eq!(launch.env[0].0, INLINE_CONFIG);
    }

    #[test]
    fn reads_the_stream_opencode_prints() {
        let read = |line: &str| read_event(&json_line(line).unwrap());
        assert_eq!(
            read(
                r#"{"type":"tool_use","sessionID":"ses_1","part":{"type":"tool","tool":"bash","state":{"status":"completed","input":{"command":"/tmp/a/wfa tool bad --x 'abc'"},"output":"wfa: bad: refused\n","metadata":{"exit":2}}}}"#
            ),
            vec![
                HarnessEvent::Session("ses_1".into()),
                HarnessEvent::ShellFinished {
                    command: "/tmp/a/wfa tool bad --x 'abc'".into(),
                    exit_code: Some(2),
                    output: Some("wfa: bad: refused\n".into()),
                },
            ]
        );
        assert_eq!(
            read(
                r#"{"type":"step_finish","part":{"reason":"stop","tokens":{"total":1240,"input":1000,"output":32,"reasoning":8,"cache":{"write":0,"read":200}},"cost":0}}"#
            ),
            vec![HarnessEvent::Usage {
                tokens: Tokens {
                    input_tokens: 1200,
                    cached_input_tokens: 200,
                    output_tokens: 40,
                    reasoning_tokens: 8
                },
                basis: UsageBasis::Request,
            }]
        );
        assert_eq!(
            read(
                r#"{"type":"error","error":{"name":"APIError","data":{"message":"Incorrect API key provided.","statusCode":401}}}"#
            ),
            vec![HarnessEvent::Error {
                message: "Incorrect API key provided.".into(),
                blocked: true
            }]
        );
    }
}
