//! An agent spec as `wf.agents.open` gives it (JSON from js/workflow/agents.ts), checked field by
//! field: each mistake is refused naming the field and saying what to write instead.

use serde_json::{json, Value};

use super::problem::{EnvProblem, OpenError};
use crate::budget::Budget;
use crate::harness::environment::{AgentEnv, Inherit};
use crate::sandbox::{SandboxError, SandboxSpec};
use crate::skills::SkillSource;
use crate::tools::ToolSet;
use crate::worktree::WorktreeSpec;

/// An agent spec as `wf.agents.open` gives it (JSON from js/workflow/agents.ts).
#[derive(Clone, Debug)]
pub struct AgentSpec {
    pub key: String,
    pub runtime: Value,
    pub instructions: Option<String>,
    pub cwd: Option<String>,
    /// What the agent's process inherits, and the variables set on top.
    pub env: AgentEnv,
    /// `None` when the spec left tools out (a reopen then keeps what the agent has).
    pub tools: Option<ToolSet>,
    /// `messages: true`: the agent may send the workflow messages (`wfa send`).
    pub messages: bool,
    /// `workspace: { worktree }`: the agent works in a git worktree of its own.
    pub workspace: Option<WorktreeSpec>,
    /// `sandbox`: where the agent's processes run; `None`: unconfined.
    pub sandbox: Option<SandboxChoice>,
    /// `labels`: the author's JSON object, recorded and shown beside the agent; `None`: none.
    pub labels: Option<Value>,
    /// `skills`: the exact skills the agent gets, in order (resolved and installed at open).
    pub skills: Vec<SkillSource>,
    /// `budget`: what the agent may spend (hard: it stops when passed); a reopen may raise it.
    pub budget: Option<Budget>,
}

/// The keys `wf.agents.open(spec)` reads (a new option is added here, where it is read).
pub const OPEN_OPTIONS: &[&str] = &[
    "key",
    "runtime",
    "instructions",
    "cwd",
    "env",
    "tools",
    "messages",
    "workspace",
    "sandbox",
    "labels",
    "skills",
    "budget",
];

/// An agent's `sandbox`: its own (inline), or one `wf.sandboxes.open` made (`{ key, provider }`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SandboxChoice {
    Inline(SandboxSpec),
    Shared(String),
}

impl SandboxChoice {
    fn read(key: &str, value: &Value) -> Result<SandboxChoice, SandboxError> {
        if let Some(object) = value.as_object() {
            let is_ref = object.len() == 2
                && object.get("provider").is_some_and(Value::is_string)
                && object.get("key").is_some_and(Value::is_string);
            if is_ref {
                let shared = object["key"].as_str().unwrap_or_default();
                return Ok(SandboxChoice::Shared(shared.to_string()));
            }
        }
        let place = format!("wf.agents.open(spec): agent \"{key}\": sandbox");
        SandboxSpec::from_json(value, &place).map(SandboxChoice::Inline)
    }

    fn identity(&self) -> Value {
        match self {
            SandboxChoice::Inline(spec) => spec.to_json(),
            SandboxChoice::Shared(key) => json!({ "key": key }),
        }
    }
}

impl AgentSpec {
    pub fn from_json(spec: &Value) -> Result<AgentSpec, OpenError> {
        let Some(object) = spec.as_object() else {
            return Err(OpenError::NotAnObject);
        };
        if let Some(unknown) = object.keys().find(|k| !OPEN_OPTIONS.contains(&k.as_str())) {
            return Err(OpenError::UnknownOption(unknown.clone()));
        }
        let key = match object.get("key").and_then(Value::as_str) {
            Some(k) if valid_key(k) => k.to_string(),
            Some(k) => return Err(OpenError::BadKey(json!(k).to_string())),
            None => return Err(OpenError::NoKey),
        };
        let Some(runtime) = object.get("runtime").cloned() else {
            return Err(OpenError::NoRuntime(key));
        };
        let text = |field: &'static str| -> Result<Option<String>, OpenError> {
            match object.get(field) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err(OpenError::NotText {
                    key: key.clone(),
                    field,
                }),
            }
        };
        let env = match object.get("env") {
            None | Some(Value::Null) => AgentEnv::default(),
            Some(Value::Object(vars)) => read_env(vars).map_err(|problem| OpenError::Env {
                key: key.clone(),
                problem,
            })?,
            Some(_) => {
                return Err(OpenError::Env {
                    key,
                    problem: EnvProblem::NotAnObject,
                })
            }
        };
        let tools = match object.get("tools") {
            None | Some(Value::Null) => None,
            Some(tools) => Some(
                ToolSet::from_json(tools).map_err(|source| OpenError::Tools {
                    key: key.clone(),
                    source,
                })?,
            ),
        };
        let messages = match object.get("messages") {
            None | Some(Value::Null) | Some(Value::Bool(false)) => false,
            Some(Value::Bool(true)) => true,
            Some(_) => {
                return Err(OpenError::NotBoolean {
                    key,
                    field: "messages",
                })
            }
        };
        let sandbox = match object.get("sandbox") {
            None | Some(Value::Null) => None,
            Some(value) => Some(SandboxChoice::read(&key, value).map_err(OpenError::Sandbox)?),
        };
        let workspace = match object.get("workspace") {
            None | Some(Value::Null) => None,
            Some(value) => WorktreeSpec::from_workspace(&key, value)?,
        };
        let labels = read_labels(&key, object.get("labels"))?;
        let skills = match object.get("skills") {
            None | Some(Value::Null) => Vec::new(),
            Some(value) => {
                crate::skills::parse_sources(value).map_err(|source| OpenError::Skills {
                    key: key.clone(),
                    source: Box::new(source),
                })?
            }
        };
        let budget = match object.get("budget") {
            None | Some(Value::Null) => None,
            Some(value) => Some(
                Budget::from_json(value).map_err(|problem| OpenError::Budget {
                    key: key.clone(),
                    problem,
                })?,
            ),
        };
        Ok(AgentSpec {
            budget,
            skills,
            labels,
            workspace,
            sandbox,
            tools,
            messages,
            instructions: text("instructions")?,
            cwd: text("cwd")?,
            key,
            runtime,
            env,
        })
    }

    /// The fields a reopen must repeat, for comparison.
    pub(super) fn identity(&self) -> [(&'static str, Value); 9] {
        [
            ("runtime", self.runtime.clone()),
            ("instructions", json!(self.instructions)),
            ("cwd", json!(self.cwd)),
            ("env", self.env.identity()),
            ("messages", json!(self.messages)),
            (
                "workspace",
                self.workspace
                    .as_ref()
                    .map_or(Value::Null, WorktreeSpec::to_json),
            ),
            (
                "sandbox",
                self.sandbox
                    .as_ref()
                    .map_or(Value::Null, SandboxChoice::identity),
            ),
            ("labels", json!(self.labels)),
            (
                "skills",
                json!(self
                    .skills
                    .iter()
                    .map(SkillSource::text)
                    .collect::<Vec<_>>()),
            ),
        ]
    }
}

/// `labels`: a JSON object (any values, as agentswf takes), or nothing; `{}` is nothing.
pub fn read_labels(key: &str, labels: Option<&Value>) -> Result<Option<Value>, OpenError> {
    match labels {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(map)) if map.is_empty() => Ok(None),
        Some(value @ Value::Object(_)) => Ok(Some(value.clone())),
        Some(_) => Err(OpenError::NotLabels(key.to_string())),
    }
}

/// `env`: variables by name (strings), and two options: `inherit` (`true`, the default; `false`,
/// only the base set; or a list of names and `PREFIX*` patterns added to the base set) and
/// `withhold` (names and patterns never inherited).
fn read_env(object: &serde_json::Map<String, Value>) -> Result<AgentEnv, EnvProblem> {
    let names = |field: &str, value: &Value| -> Result<Vec<String>, EnvProblem> {
        let list = value
            .as_array()
            .ok_or_else(|| EnvProblem::NotAList(field.to_string()))?;
        list.iter()
            .map(|name| match name.as_str() {
                Some(n) if valid_env_pattern(n) => Ok(n.to_string()),
                _ => Err(EnvProblem::NotAName {
                    field: field.to_string(),
                    name: name.to_string(),
                }),
            })
            .collect()
    };
    let mut env = AgentEnv::default();
    for (name, value) in object {
        match (name.as_str(), value) {
            ("inherit", Value::Bool(true)) => env.inherit = Inherit::All,
            ("inherit", Value::Bool(false)) => env.inherit = Inherit::Only(Vec::new()),
            ("inherit", Value::Array(_)) => env.inherit = Inherit::Only(names(name, value)?),
            ("inherit", _) => return Err(EnvProblem::BadInherit),
            ("withhold", _) => env.withhold = names(name, value)?,
            (_, Value::String(text)) => env.vars.push((name.clone(), text.clone())),
            _ => return Err(EnvProblem::NotText(name.clone())),
        }
    }
    Ok(env)
}

/// `NAME` or `PREFIX*`, of letters, digits and `_`.
fn valid_env_pattern(pattern: &str) -> bool {
    let name = pattern.strip_suffix('*').unwrap_or(pattern);
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

pub fn valid_key(key: &str) -> bool {
    !key.is_empty()
        && key.len() <= 64
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | ':'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hint::Hint;

    #[test]
    fn reads_a_full_spec() {
        let spec = AgentSpec::from_json(&json!({
            "key": "reviewer",
            "runtime": "codex",
            "instructions": "Be brief.",
            "cwd": "src",
            "env": {"A": "1"},
            "tools": {"add": {"description": "Add one."}},
        }))
        .unwrap();
        assert_eq!(spec.key, "reviewer");
        assert_eq!(spec.runtime, json!("codex"));
        assert_eq!(spec.instructions.as_deref(), Some("Be brief."));
        assert_eq!(spec.env.vars, vec![("A".to_string(), "1".to_string())]);
        assert_eq!(spec.env.inherit, Inherit::All);
        assert_eq!(spec.tools.unwrap().names(), vec!["add"]);
        assert_eq!(spec.labels, None);
    }

    #[test]
    fn labels_are_a_json_object_and_part_of_a_reopen() {
        let spec = AgentSpec::from_json(
            &json!({"key": "a", "runtime": "x", "labels": {"team": "red", "n": 2}}),
        )
        .unwrap();
        assert_eq!(spec.labels, Some(json!({"team": "red", "n": 2})));
        assert!(spec
            .identity()
            .iter()
            .any(|(field, value)| *field == "labels" && *value == json!({"team": "red", "n": 2})));
        let err = AgentSpec::from_json(&json!({"key": "a", "runtime": "x", "labels": ["red"]}))
            .unwrap_err();
        assert!(
            err.to_string().contains("labels must be a JSON object"),
            "{err}"
        );
        assert!(err.hint().unwrap().contains("labels: {"), "{err:?}");
    }

    #[test]
    fn an_unknown_option_names_the_closest_known_one() {
        let err =
            AgentSpec::from_json(&json!({"key": "a", "runtime": "x", "label": {}})).unwrap_err();
        assert_eq!(
            err.to_string(),
            "wf.agents.open(spec): unknown option `label`"
        );
        let hint = err.hint().unwrap();
        assert!(hint.starts_with("did you mean `labels`?"), "{hint}");
        for known in OPEN_OPTIONS {
            assert!(hint.contains(known), "{hint} lacks {known}");
        }
        let far =
            AgentSpec::from_json(&json!({"key": "a", "runtime": "x", "zzzzzzzz": 1})).unwrap_err();
        assert!(far.hint().unwrap().starts_with("it takes key, runtime"));
    }

    #[test]
    fn env_takes_inherit_and_withhold_beside_its_variables() {
        let spec = AgentSpec::from_json(&json!({"key": "a", "runtime": "x",
            "env": {"inherit": ["OPENAI_API_KEY", "GH_*"], "withhold": ["AWS_*"], "B": "2"}}))
        .unwrap();
        assert_eq!(
            spec.env.inherit,
            Inherit::Only(vec!["OPENAI_API_KEY".into(), "GH_*".into()])
        );
        assert_eq!(spec.env.withhold, vec!["AWS_*"]);
        assert_eq!(spec.env.vars, vec![("B".to_string(), "2".to_string())]);
        let closed =
            AgentSpec::from_json(&json!({"key": "a", "runtime": "x", "env": {"inherit": false}}))
                .unwrap();
        assert_eq!(closed.env.inherit, Inherit::Only(vec![]));
    }

    #[test]
    fn refuses_each_mistake_naming_the_field() {
        let err = |spec: Value| AgentSpec::from_json(&spec).unwrap_err().to_string();
        assert!(err(json!("codex")).contains("must be an object"));
        assert!(err(json!({"key": "a", "runtime": "x", "model": "m"}))
            .contains("unknown option `model`"));
        assert!(err(json!({"key": "a b", "runtime": "x"})).contains("not a valid agent key"));
        assert!(err(json!({"runtime": "x"})).contains("key is missing"));
        assert!(err(json!({"key": "a"})).contains("has no runtime"));
        assert!(err(json!({"key": "a", "runtime": "x", "cwd": 1})).contains("cwd must be a string"));
        assert!(err(json!({"key": "a", "runtime": "x", "messages": "yes"}))
            .contains("messages must be true or false"));
        assert!(err(json!({"key": "a", "runtime": "x", "env": {"A": 1}}))
            .contains("env.A must be a string"));
        assert!(
            err(json!({"key": "a", "runtime": "x", "env": {"inherit": "no"}}))
                .contains("env.inherit must be true, false or a list")
        );
        assert!(
            err(json!({"key": "a", "runtime": "x", "env": {"withhold": ["A B"]}}))
                .contains("not a variable name")
        );
        assert!(
            err(json!({"key": "a", "runtime": "x", "tools": {"Bad": {"description": "x"}}}))
                .contains("tool \"Bad\"")
        );
    }
}
