//! An agent's `runtime`, read when it opens: a runtime name, `{ harness, model?, effort?, args? }`
//! or `{ command: [...] }`, made into the `Harness` that runs its turns.
//!
//! Everything that can be wrong with a runtime is refused here, naming the field: an unknown
//! name, an option the runtime does not take, an effort level it does not have, a program that
//! is not installed (with how to install it). A name mapped with `awf run --runtime
//! NAME=COMMAND` runs that command instead, so a workflow written for a real CLI can run
//! offline. Under `awf test` every agent is scripted.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::command::{self, Command};
use super::scripted::Scripted;
use super::Harness;
use crate::js::JsRequester;

/// The agent CLIs awf knows by name; named here so that they are refused clearly until their
/// harnesses land.
pub const KNOWN_CLIS: &[&str] = &["codex", "claude", "pi", "gemini", "opencode"];

/// How long each agent CLI lets one shell command run before it backgrounds, kills or hands it
/// back (reference/harnesses.md); `wfa tool` prints these so authors and agents know.
pub fn shell_limits() -> Vec<(&'static str, &'static str)> {
    vec![
        (
            "codex",
            "10 s, then the command is moved to the background (poll it with write_stdin)",
        ),
        (
            "claude",
            "120 s by default, up to 600 s with the Bash tool's timeout",
        ),
        ("gemini", "killed after 300 s without output"),
        ("opencode", "120 s by default"),
        ("pi", "no limit unless the model sets one"),
    ]
}

/// Runtime names mapped to commands for one run (`--runtime NAME=COMMAND`).
#[derive(Clone, Debug, Default)]
pub struct RuntimeOverrides {
    pub by_name: HashMap<String, Vec<String>>,
}

/// Where an agent opens.
pub struct OpenContext<'a> {
    pub cwd: &'a Path,
    pub overrides: &'a RuntimeOverrides,
    /// Under `awf test`: the test's scripts play the agent.
    pub scripted: Option<ScriptHost<'a>>,
}

/// What a scripted agent asks its turns of.
pub struct ScriptHost<'a> {
    pub js: &'a JsRequester,
    pub run_id: &'a str,
}

/// The harness for an agent spec's `runtime`.
pub fn resolve(spec: &Value, open: &OpenContext<'_>) -> Result<Arc<dyn Harness>, String> {
    if let Some(script) = &open.scripted {
        return Ok(Arc::new(Scripted {
            js: script.js.clone(),
            run_id: script.run_id.to_string(),
            declared: spec.clone(),
        }));
    }
    let chosen = read(spec, open.overrides)?;
    let Chosen::Command(argv) = chosen;
    let (program, args) = argv.split_first().expect("read() refuses an empty command");
    Ok(Arc::new(Command {
        program: command::find_program(program, open.cwd)?,
        args: args.to_vec(),
    }))
}

/// What a spec asks for, checked but not yet looked up on disk.
enum Chosen {
    Command(Vec<String>),
}

fn read(spec: &Value, overrides: &RuntimeOverrides) -> Result<Chosen, String> {
    match spec {
        Value::Object(map) if map.contains_key("command") => read_command(map),
        Value::String(name) => match overrides.by_name.get(name) {
            Some(argv) => Ok(Chosen::Command(argv.clone())),
            None if KNOWN_CLIS.contains(&name.as_str()) => Err(format!(
                "the {name} runtime is not available in this version of awf yet; run with `--runtime {name}=<command>` to use an executable of your own in its place, or give runtime: {{ command: [...] }}"
            )),
            None => Err(format!(
                "unknown runtime \"{name}\"; give runtime: {{ command: [\"./agent.sh\"] }}, or map the name with `awf run --runtime {name}=<command>`"
            )),
        },
        _ => Err("runtime must be { command: [\"./agent.sh\", ...] } or a runtime name".into()),
    }
}

fn read_command(map: &Map<String, Value>) -> Result<Chosen, String> {
    if let Some(extra) = map.keys().find(|k| *k != "command") {
        return Err(format!(
            "runtime.{extra} is not an option of a command runtime (it takes only `command`)"
        ));
    }
    let Some(words) = map["command"].as_array() else {
        return Err(
            "runtime.command must be an array of strings: [\"./agent.sh\", \"arg\"]".into(),
        );
    };
    let mut argv = Vec::new();
    for word in words {
        match word.as_str() {
            Some(w) => argv.push(w.to_string()),
            None => {
                return Err(format!(
                    "runtime.command holds {word}, but every item must be a string"
                ))
            }
        }
    }
    if argv.is_empty() {
        return Err("runtime.command is empty; name the executable first: [\"./agent.sh\"]".into());
    }
    Ok(Chosen::Command(argv))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn open(spec: Value, overrides: &RuntimeOverrides) -> Result<Arc<dyn Harness>, String> {
        resolve(
            &spec,
            &OpenContext {
                cwd: Path::new("/"),
                overrides,
                scripted: None,
            },
        )
    }

    #[test]
    fn command_runtimes_resolve_their_program() {
        let harness = open(
            json!({"command": ["sh", "-c", "true"]}),
            &RuntimeOverrides::default(),
        )
        .unwrap();
        assert_eq!(harness.name(), "command");
        let described = harness.describe();
        assert!(
            described["program"].as_str().unwrap().ends_with("sh"),
            "{described}"
        );
        assert_eq!(described["args"], json!(["-c", "true"]));
    }

    #[test]
    fn mistakes_are_refused_with_what_to_do() {
        let none = RuntimeOverrides::default();
        let err = |spec: Value| open(spec, &none).err().expect("refused");
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
        assert_eq!(open(json!("codex"), &overrides).unwrap().name(), "command");
    }
}
