//! Agent runtimes: how one turn of an agent becomes a process.
//!
//! Today there is one runtime, `command`: any executable, run once per turn with the prompt on
//! stdin (command.rs). The agent CLIs (codex, claude, pi, gemini, opencode) come as further
//! files here, each stating what it can do. `process.rs` starts and stops processes for all of
//! them. A runtime named by alias (`runtime: "codex"`) can be mapped to a command for one run
//! with `awf run --runtime codex=./fake-codex.sh`, so a workflow written for a real CLI can be
//! run offline.

pub mod command;
pub mod process;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

/// The agent CLIs awf will drive; named here so that their names are refused clearly until then.
pub const KNOWN_CLIS: &[&str] = &["codex", "claude", "pi", "gemini", "opencode"];

/// How an agent is run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Runtime {
    /// Any executable: `argv[0]` resolved at open, run once per turn.
    Command { program: PathBuf, args: Vec<String> },
    /// In `awf test`: the test's scripts play the agent; `declared` is the runtime its spec
    /// asked for, kept for the records.
    Scripted { declared: Value },
}

impl Runtime {
    /// What records say about it.
    pub fn describe(&self) -> Value {
        match self {
            Runtime::Command { program, args } => {
                json!({ "kind": "command", "program": program.display().to_string(), "args": args })
            }
            Runtime::Scripted { declared } => json!({ "kind": "scripted", "declared": declared }),
        }
    }
}

/// Runtime aliases mapped to commands for one run (`--runtime NAME=COMMAND`).
#[derive(Clone, Debug, Default)]
pub struct RuntimeOverrides {
    pub by_name: HashMap<String, Vec<String>>,
}

/// Reads an agent spec's `runtime` (`{ command: [...] }` or an alias), resolving the program
/// against the agent's cwd and PATH so a missing one is refused at open, not mid-turn.
pub fn resolve(spec: &Value, cwd: &Path, overrides: &RuntimeOverrides) -> Result<Runtime, String> {
    let argv: Vec<String> = match spec {
        Value::Object(map) if map.contains_key("command") => {
            if let Some(extra) = map.keys().find(|k| *k != "command") {
                return Err(format!("runtime.{extra} is not an option of a command runtime (it takes only `command`)"));
            }
            let Some(words) = map["command"].as_array() else {
                return Err("runtime.command must be an array of strings: [\"./agent.sh\", \"arg\"]".into());
            };
            let mut argv = Vec::new();
            for word in words {
                match word.as_str() {
                    Some(w) => argv.push(w.to_string()),
                    None => return Err(format!("runtime.command holds {word}, but every item must be a string")),
                }
            }
            argv
        }
        Value::String(name) => match overrides.by_name.get(name) {
            Some(argv) => argv.clone(),
            None if KNOWN_CLIS.contains(&name.as_str()) => {
                return Err(format!(
                    "the {name} runtime is not available in this version of awf yet; run with `--runtime {name}=<command>` to use an executable of your own in its place, or give runtime: {{ command: [...] }}"
                ))
            }
            None => {
                return Err(format!(
                    "unknown runtime \"{name}\"; give runtime: {{ command: [\"./agent.sh\"] }}, or map the name with `awf run --runtime {name}=<command>`"
                ))
            }
        },
        _ => return Err("runtime must be { command: [\"./agent.sh\", ...] } or a runtime name".into()),
    };
    let Some((program, args)) = argv.split_first() else {
        return Err("runtime.command is empty; name the executable first: [\"./agent.sh\"]".into());
    };
    let program = command::find_program(program, cwd)?;
    Ok(Runtime::Command {
        program,
        args: args.to_vec(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_runtimes_resolve_their_program() {
        let runtime = resolve(
            &json!({"command": ["sh", "-c", "true"]}),
            Path::new("/"),
            &RuntimeOverrides::default(),
        )
        .unwrap();
        let Runtime::Command { program, args } = runtime else {
            panic!("a command runtime: {runtime:?}");
        };
        assert!(program.ends_with("sh"), "{program:?}");
        assert_eq!(args, vec!["-c", "true"]);
    }

    #[test]
    fn mistakes_are_refused_with_what_to_do() {
        let none = RuntimeOverrides::default();
        let err = |spec: Value| resolve(&spec, Path::new("/"), &none).unwrap_err();
        assert!(err(json!("codex")).contains("--runtime codex=<command>"));
        assert!(err(json!("gpt")).starts_with("unknown runtime \"gpt\""));
        assert!(err(json!({"command": []})).contains("is empty"));
        assert!(err(json!({"command": "./a.sh"})).contains("must be an array"));
        assert!(err(json!({"command": ["./a.sh"], "model": "x"})).contains("runtime.model"));
        assert!(err(json!({"command": ["./no-such-agent.sh"]})).contains("no-such-agent.sh"));
    }

    #[test]
    fn an_alias_can_be_mapped_to_a_command() {
        let mut overrides = RuntimeOverrides::default();
        overrides.by_name.insert(
            "codex".into(),
            vec!["sh".into(), "-c".into(), "exit 0".into()],
        );
        let runtime = resolve(&json!("codex"), Path::new("/"), &overrides).unwrap();
        assert!(matches!(runtime, Runtime::Command { .. }));
    }
}
