//! An agent's `runtime`, read when it opens: a runtime name, `{ harness, model?, effort?, args? }`
//! or `{ command: [...] }`, made into the `Harness` that runs its turns.
//!
//! Everything that can be wrong with a runtime is refused here, naming the field: an unknown
//! name, an option the runtime does not take, an effort level it does not have, a program that
//! is not installed (with how to install it). `CLIS` lists the agent CLIs awf drives, with the
//! version of each its live tests run (the one place those versions are pinned). A name mapped with `awf run --runtime
//! NAME=COMMAND` runs that command instead, so a workflow written for a real CLI can run
//! offline. Under `awf test` a `StandIn` (the test's scripts) plays every agent, but its spec
//! is still checked (not its program: a test needs none installed).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::aliases::{Alias, Aliases};
use super::cli::{CliConfig, CliInfo};
use super::command::{self, Command};
use super::Capabilities;
use super::{claude, codex, gemini, opencode, pi, Harness, RuntimeError};

/// The agent CLIs awf drives, by runtime name.
pub static CLIS: &[&CliInfo] = &[
    &codex::INFO,
    &claude::INFO,
    &gemini::INFO,
    &pi::INFO,
    &opencode::INFO,
];

/// The CLI a runtime name means.
pub fn cli(name: &str) -> Option<&'static CliInfo> {
    CLIS.iter().copied().find(|info| info.name == name)
}

/// How long each agent CLI lets one shell command run before it backgrounds, kills or hands it
/// back; `wfa tool` prints these so authors and agents know.
pub fn shell_limits() -> Vec<(&'static str, &'static str)> {
    CLIS.iter()
        .map(|info| (info.name, info.capabilities.shell_limit))
        .collect()
}

/// Runtime names mapped to commands for one run (`--runtime NAME=COMMAND`), and the aliases
/// of the config files (aliases.rs), or a test's (`aliases_in_test`).
#[derive(Clone, Debug, Default)]
pub struct RuntimeOverrides {
    pub by_name: HashMap<String, Vec<String>>,
    pub aliases: Aliases,
    /// The aliases are a test's `runtimes` option, not the config files'.
    pub aliases_in_test: bool,
}

/// Where an agent opens.
pub struct OpenContext<'a> {
    pub cwd: &'a Path,
    pub overrides: &'a RuntimeOverrides,
    /// Plays the agent in place of its runtime (under `awf test`, the test's scripts).
    pub stand_in: Option<&'a dyn StandIn>,
}

/// Plays agents in place of the runtimes their specs declare (under `awf test`, a test's
/// scripts: js/ops/agentswf/scripted.rs). The spec is still checked as the declared runtime
/// would check it; its program is not looked up.
pub trait StandIn: Send + Sync {
    /// The harness of an agent whose spec declared the runtime `declared`, which can do what
    /// `capabilities` says (and is the agent CLI `cli`, when it is one, with the model and
    /// effort the spec or its alias chose).
    fn harness(
        &self,
        declared: &Value,
        capabilities: &'static Capabilities,
        cli: Option<&'static CliInfo>,
        settings: StandInSettings,
    ) -> Arc<dyn Harness>;
}

/// The model and effort a stand-in's agent was given (by its spec or its alias).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StandInSettings {
    pub model: Option<String>,
    pub effort: Option<String>,
}

/// The harness for an agent spec's `runtime`.
pub fn resolve(spec: &Value, open: &OpenContext<'_>) -> Result<Arc<dyn Harness>, RuntimeError> {
    let chosen = read(spec, open.overrides)?;
    if let Some(stand_in) = open.stand_in {
        let (capabilities, cli, settings) = match chosen {
            Chosen::Command(_) => (&command::CAPABILITIES, None, StandInSettings::default()),
            Chosen::Cli(info, settings) => (
                info.capabilities,
                Some(info),
                StandInSettings {
                    model: settings.model,
                    effort: settings.effort,
                },
            ),
        };
        return Ok(stand_in.harness(spec, capabilities, cli, settings));
    }
    match chosen {
        Chosen::Command(argv) => {
            let (program, args) = argv.split_first().expect("read() refuses an empty command");
            Ok(Arc::new(Command {
                program: command::find_program(program, open.cwd)?,
                args: args.to_vec(),
                forked_from: None,
            }))
        }
        Chosen::Cli(info, settings) => Ok((info.open)(CliConfig {
            program: find_cli(info)?,
            model: settings.model,
            effort: settings.effort,
            args: settings.args,
        })),
    }
}

/// The CLI's executable on PATH, or why not and how to install it.
fn find_cli(info: &CliInfo) -> Result<std::path::PathBuf, RuntimeError> {
    command::find_on_path(info.program).ok_or_else(|| RuntimeError::NotInstalled {
        cli: info.name,
        program: info.program,
        install: info.install_hint(),
    })
}

/// What a spec asks for, checked but not yet looked up on disk.
enum Chosen {
    Command(Vec<String>),
    Cli(&'static CliInfo, CliSettings),
}

/// `{ harness, model?, effort?, args? }` as read.
#[derive(Default)]
struct CliSettings {
    model: Option<String>,
    effort: Option<String>,
    args: Vec<String>,
}

fn read(spec: &Value, overrides: &RuntimeOverrides) -> Result<Chosen, RuntimeError> {
    match spec {
        Value::Object(map) if map.contains_key("command") => read_command(map),
        Value::Object(map) if map.contains_key("alias") => {
            const OPTIONS: &[&str] = &[
                "alias",
                "harness",
                "model",
                "effort",
                "placement",
                "metered",
            ];
            if let Some(extra) = map.keys().find(|k| !OPTIONS.contains(&k.as_str())) {
                return Err(RuntimeError::AliasOption {
                    option: extra.clone(),
                });
            }
            let name = map["alias"].as_str().unwrap_or_default();
            let alias = alias_named(name, overrides).ok_or_else(|| RuntimeError::UnknownAlias {
                name: map["alias"].to_string().trim_matches('"').to_string(),
                known: alias_names(&overrides.aliases),
                in_test: overrides.aliases_in_test,
            })?;
            if let Some(harness) = map.get("harness") {
                if harness.as_str() != Some(alias.runtime.as_str()) {
                    return Err(RuntimeError::AliasHarness {
                        alias: name.to_string(),
                        runtime: alias.runtime.clone(),
                        given: harness.to_string(),
                    });
                }
            }
            check_execution(map)?;
            read(&expanded(&alias, map), overrides)
        }
        Value::Object(map) if map.contains_key("harness") => {
            let Some(name) = map["harness"].as_str() else {
                return Err(RuntimeError::HarnessNotAName { known: names() });
            };
            if let Some(argv) = overrides.by_name.get(name) {
                return Ok(Chosen::Command(argv.clone()));
            }
            let info = cli(name).ok_or_else(|| RuntimeError::UnknownHarness {
                name: name.to_string(),
                known: names(),
            })?;
            Ok(Chosen::Cli(info, read_settings(info, map)?))
        }
        Value::Object(_) => Err(RuntimeError::NeitherHarnessNorCommand { known: names() }),
        Value::String(name) => match (overrides.by_name.get(name), cli(name)) {
            (Some(argv), _) => Ok(Chosen::Command(argv.clone())),
            (None, _) if overrides.aliases.contains_key(name) => {
                read(&expanded(&overrides.aliases[name], &Map::new()), overrides)
            }
            (None, Some(info)) => Ok(Chosen::Cli(info, CliSettings::default())),
            (None, None) => Err(RuntimeError::UnknownName {
                name: name.clone(),
                known: names(),
            }),
        },
        _ => Err(RuntimeError::NotARuntime { known: names() }),
    }
}

fn read_command(map: &Map<String, Value>) -> Result<Chosen, RuntimeError> {
    if let Some(extra) = map.keys().find(|k| *k != "command") {
        return Err(RuntimeError::CommandOption(extra.clone()));
    }
    let Some(words) = map["command"].as_array() else {
        return Err(RuntimeError::CommandNotArray);
    };
    let mut argv = Vec::new();
    for word in words {
        match word.as_str() {
            Some(w) => argv.push(w.to_string()),
            None => return Err(RuntimeError::CommandItem(word.to_string())),
        }
    }
    if argv.is_empty() {
        return Err(RuntimeError::CommandEmpty);
    }
    Ok(Chosen::Command(argv))
}

fn read_settings(info: &CliInfo, map: &Map<String, Value>) -> Result<CliSettings, RuntimeError> {
    const OPTIONS: &[&str] = &["harness", "model", "effort", "args", "placement", "metered"];
    if let Some(extra) = map.keys().find(|k| !OPTIONS.contains(&k.as_str())) {
        return Err(RuntimeError::CliOption {
            cli: info.name,
            option: extra.clone(),
        });
    }
    check_execution(map)?;
    let word = |field: &'static str| -> Result<Option<String>, RuntimeError> {
        match map.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if !s.trim().is_empty() => Ok(Some(s.clone())),
            Some(other) => Err(RuntimeError::NotAWord {
                field,
                value: other.to_string(),
            }),
        }
    };
    let model = word("model")?;
    let effort = word("effort")?;
    if let Some(level) = &effort {
        super::cli::check_effort(info, level)?;
    }
    let args = match map.get("args") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| {
                item.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| RuntimeError::ArgsItem(item.to_string()))
            })
            .collect::<Result<_, _>>()?,
        Some(other) => return Err(RuntimeError::ArgsNotArray(other.to_string())),
    };
    Ok(CliSettings {
        model,
        effort,
        args,
    })
}

/// agentswf's `placement` and `metered`, which awf takes so its workflows run unchanged:
/// `placement: "headless"` is how awf runs every agent (a process per turn), and `metered`
/// (which agentswf requires for headless claude) acknowledges what awf never asks to.
fn check_execution(map: &Map<String, Value>) -> Result<(), RuntimeError> {
    match map.get("placement") {
        None => {}
        Some(Value::String(p)) if p == "headless" => {}
        Some(Value::String(p)) if p == "pane" => return Err(RuntimeError::PanePlacement),
        Some(other) => return Err(RuntimeError::UnknownPlacement(other.to_string())),
    }
    match map.get("metered") {
        None | Some(Value::Bool(_)) => Ok(()),
        Some(other) => Err(RuntimeError::MeteredNotABoolean(other.to_string())),
    }
}

/// The alias `name`: a config file's (or a test's), else the CLI of that name with its own
/// default model (agentswf's built-in `claude` and `codex` aliases, for every CLI awf drives).
fn alias_named(name: &str, overrides: &RuntimeOverrides) -> Option<Alias> {
    if let Some(alias) = overrides.aliases.get(name) {
        return Some(alias.clone());
    }
    cli(name).map(|info| Alias {
        runtime: info.name.to_string(),
        model: None,
        effort: None,
        from: std::path::PathBuf::new(),
    })
}

/// What an agent's runtime spec chose beyond its harness, model and effort, as records and the
/// test API show it (agentswf's `execution`): the alias it named, if any, and `metered`.
pub fn chosen_execution(spec: &Value, overrides: &RuntimeOverrides) -> Map<String, Value> {
    let mut chosen = Map::new();
    let alias = match spec {
        Value::String(name) if !overrides.by_name.contains_key(name) => {
            alias_named(name, overrides).map(|_| name.clone())
        }
        Value::Object(map) => map.get("alias").and_then(Value::as_str).map(str::to_string),
        _ => None,
    };
    if let Some(alias) = alias {
        chosen.insert("alias".into(), Value::String(alias));
    }
    chosen.insert("placement".into(), Value::String("headless".into()));
    if let Some(metered) = spec.get("metered").and_then(Value::as_bool) {
        chosen.insert("metered".into(), Value::Bool(metered));
    }
    chosen
}

/// An alias as the `{ harness, model?, effort? }` it stands for, `given`'s model and effort
/// replacing its own.
fn expanded(alias: &Alias, given: &Map<String, Value>) -> Value {
    let mut spec = Map::new();
    spec.insert("harness".into(), Value::String(alias.runtime.clone()));
    for (key, own) in [("model", &alias.model), ("effort", &alias.effort)] {
        match given.get(key) {
            Some(value) => spec.insert(key.into(), value.clone()),
            None => own
                .as_ref()
                .and_then(|v| spec.insert(key.into(), Value::String(v.clone()))),
        };
    }
    Value::Object(spec)
}

/// The aliases' names, for an error: `fast, deep` or `none`.
fn alias_names(aliases: &Aliases) -> String {
    if aliases.is_empty() {
        return "none".into();
    }
    aliases.keys().cloned().collect::<Vec<_>>().join(", ")
}

/// `codex, claude, gemini, pi and opencode`.
fn names() -> String {
    let names: Vec<&str> = CLIS.iter().map(|info| info.name).collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => names.join(""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hint::Hint;
    use serde_json::json;

    fn open(spec: Value, overrides: &RuntimeOverrides) -> Result<Arc<dyn Harness>, String> {
        resolve(
            &spec,
            &OpenContext {
                cwd: Path::new("/"),
                overrides,
                stand_in: None,
            },
        )
        .map_err(|e| e.to_string())
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
        assert!(err(json!("gpt")).starts_with(
            "unknown runtime \"gpt\"; awf drives codex, claude, gemini, pi and opencode"
        ));
        assert!(err(json!({"harness": "gpt"})).contains("unknown harness \"gpt\""));
        assert!(err(json!({"harness": "codex", "sandbox": "x"}))
            .contains("runtime.sandbox is not an option of the codex runtime"));
        assert!(err(json!({"harness": "codex", "effort": "ultra"}))
            .contains("\"ultra\" is not an effort level of codex (it has minimal, low"));
        assert!(err(json!({"harness": "gemini", "effort": "high"}))
            .contains("gemini has no effort levels"));
        assert!(err(json!({"harness": "codex", "model": ""}))
            .contains("runtime.model must be a non-empty string"));
        assert!(err(json!({"harness": "codex", "args": "--x"}))
            .contains("runtime.args must be an array"));
        assert!(err(json!({"model": "x"})).contains("runtime needs a harness or a command"));
        assert!(err(json!({"command": []})).contains("is empty"));
        assert!(err(json!({"command": "./a.sh"})).contains("must be an array"));
        assert!(err(json!({"command": ["./a.sh"], "model": "x"})).contains("runtime.model"));
        assert!(err(json!({"command": ["./no-such-agent.sh"]})).contains("no-such-agent.sh"));
    }

    #[test]
    fn a_cli_not_on_path_is_refused_with_how_to_install_it() {
        let absent = CliInfo {
            program: "awf-no-such-cli",
            ..*cli("codex").unwrap()
        };
        let refused = find_cli(&absent).unwrap_err();
        assert_eq!(
            refused.to_string(),
            "runtime: codex is not installed (no `awf-no-such-cli` on PATH)"
        );
        let hint = refused.hint().unwrap();
        assert!(
            hint.contains("npm install -g @openai/codex@0.171.0"),
            "{hint}"
        );
        assert!(hint.contains("--runtime codex=<command>"), "{hint}");
    }

    #[test]
    fn a_name_or_harness_options_read_into_settings() {
        let none = RuntimeOverrides::default();
        let Chosen::Cli(info, settings) = read(&json!({"harness": "claude", "model": "sonnet", "effort": "max", "args": ["--verbose"]}), &none).ok().unwrap() else {
            panic!("a cli");
        };
        assert_eq!(info.name, "claude");
        assert_eq!(settings.model.as_deref(), Some("sonnet"));
        assert_eq!(settings.effort.as_deref(), Some("max"));
        assert_eq!(settings.args, vec!["--verbose"]);
        assert!(matches!(read(&json!("pi"), &none), Ok(Chosen::Cli(info, _)) if info.name == "pi"));
    }

    #[test]
    fn agentswf_runtime_forms_are_read_and_a_pane_is_refused() {
        let none = RuntimeOverrides::default();
        let chosen = |spec: Value| match read(&spec, &none) {
            Ok(Chosen::Cli(info, s)) => (info.name, s.model),
            Ok(Chosen::Command(_)) => panic!("a command"),
            Err(e) => panic!("{e}"),
        };
        // A CLI's name is an alias of itself, with the CLI's default model.
        assert_eq!(
            chosen(
                json!({"alias": "claude", "model": "sonnet", "placement": "headless", "metered": true})
            ),
            ("claude", Some("sonnet".into()))
        );
        assert_eq!(
            chosen(json!({"harness": "codex", "placement": "headless"})),
            ("codex", None)
        );
        let err = |spec: Value| read(&spec, &none).err().expect("refused").to_string();
        assert_eq!(
            err(json!({"alias": "claude", "harness": "codex"})),
            "runtime.harness: alias \"claude\" runs claude, not \"codex\""
        );
        assert!(err(json!({"harness": "pi", "placement": "pane"}))
            .starts_with("runtime.placement \"pane\": awf runs every agent headless"));
        assert!(err(json!({"harness": "pi", "placement": 3})).contains("not 3"));
        assert!(err(json!({"alias": "pi", "metered": "yes"})).contains("true or false"));
        assert_eq!(
            chosen_execution(&json!({"alias": "claude", "metered": false}), &none),
            json!({"alias": "claude", "placement": "headless", "metered": false})
                .as_object()
                .cloned()
                .unwrap()
        );
        assert_eq!(
            chosen_execution(&json!("pi"), &none),
            json!({"alias": "pi", "placement": "headless"})
                .as_object()
                .cloned()
                .unwrap()
        );
        assert_eq!(
            chosen_execution(&json!({"command": ["x"]}), &none),
            json!({"placement": "headless"})
                .as_object()
                .cloned()
                .unwrap()
        );
    }

    #[test]
    fn config_aliases_stand_for_a_cli_with_a_model_and_an_effort() {
        let mut overrides = RuntimeOverrides::default();
        overrides.aliases.insert(
            "fast".into(),
            Alias {
                runtime: "claude".into(),
                model: Some("haiku".into()),
                effort: Some("low".into()),
                from: "/p/.awf/config.json".into(),
            },
        );
        let settings = |spec: Value| match read(&spec, &overrides) {
            Ok(Chosen::Cli(info, s)) => (info.name, s.model, s.effort),
            Ok(Chosen::Command(_)) => panic!("a command"),
            Err(e) => panic!("{e}"),
        };
        let haiku = Some("haiku".to_string());
        assert_eq!(
            settings(json!("fast")),
            ("claude", haiku.clone(), Some("low".into()))
        );
        assert_eq!(
            settings(json!({"alias": "fast", "effort": "high"})),
            ("claude", haiku, Some("high".into()))
        );
        let err = |spec: Value| read(&spec, &overrides).err().expect("refused").to_string();
        assert_eq!(
            err(json!({"alias": "slow"})),
            "runtime.alias: unknown alias \"slow\"; the config files have fast"
        );
        assert!(err(json!({"alias": "fast", "args": []}))
            .contains("runtime.args is not an option of an alias"));
        assert!(err(json!({"alias": "fast", "effort": "ultra"}))
            .contains("not an effort level of claude"));
        // `--runtime claude=COMMAND` also runs the aliases that name claude.
        overrides
            .by_name
            .insert("claude".into(), vec!["./fake.sh".into()]);
        assert!(matches!(
            read(&json!("fast"), &overrides),
            Ok(Chosen::Command(_))
        ));
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
