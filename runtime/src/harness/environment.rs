//! What an agent's process inherits: the user's environment, less the variables that would make
//! a CLI think it runs inside another agent's session and awf's own (`env::WITHHELD_FROM_AGENTS`),
//! less what the agent spec's `env` withholds (`inherit: false | [names]`, `withhold: [names]`),
//! plus the turn's `AWF_*` variables, plus the spec's variables on top.

use std::path::Path;

use serde_json::{json, Value};

use super::{Launch, TurnLaunch};
use crate::env;

/// Inherited variables an agent keeps under `env: { inherit: false }` (and beside the names of
/// `inherit: [...]`): what a shell and a CLI need to run at all, and no credentials.
pub const BASE_INHERITED: &[&str] = &[
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "LC_*", "TERM", "TMPDIR", "TZ",
];

/// Which inherited variables an agent's process sees.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Inherit {
    /// All of them but the withheld (the default).
    #[default]
    All,
    /// Only `BASE_INHERITED` and these names or `PREFIX*` patterns.
    Only(Vec<String>),
}

/// An agent spec's `env`: its variables, what it inherits, what it withholds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AgentEnv {
    /// Set on top of what the process inherits; these win.
    pub vars: Vec<(String, String)>,
    pub inherit: Inherit,
    /// Names or `PREFIX*` patterns never inherited.
    pub withhold: Vec<String>,
}

impl AgentEnv {
    /// The spec as a reopen must repeat it.
    pub fn identity(&self) -> Value {
        let inherit = match &self.inherit {
            Inherit::All => json!(true),
            Inherit::Only(names) => json!(names),
        };
        json!({ "vars": self.vars, "inherit": inherit, "withhold": self.withhold })
    }

    /// The value of `name` in the agent's processes, as far as the spec and awf's environment
    /// say: the spec's variable, else awf's own when the agent inherits it (the turn's `AWF_*`
    /// and a harness's own variables aside).
    pub fn value(&self, name: &str) -> Option<String> {
        if let Some((_, value)) = self.vars.iter().rev().find(|(n, _)| n == name) {
            return Some(value.clone());
        }
        let inherited = std::env::var(name).ok()?;
        let names = std::iter::once(std::ffi::OsString::from(name));
        withheld(names, self).is_empty().then_some(inherited)
    }

    /// Whether an inherited variable `name` reaches the agent under this spec (awf's own
    /// withholding aside).
    fn passes(&self, name: &str) -> bool {
        let matches = |pattern: &String| match pattern.strip_suffix('*') {
            Some(prefix) => name.starts_with(prefix),
            None => name == pattern,
        };
        if self.withhold.iter().any(matches) {
            return false;
        }
        match &self.inherit {
            Inherit::All => true,
            Inherit::Only(names) => {
                names.iter().any(matches)
                    || BASE_INHERITED
                        .iter()
                        .map(|b| b.to_string())
                        .any(|b| matches(&b))
            }
        }
    }
}

/// What the turn's own variables (documented in env.rs) are made of, for every process-based
/// agent. A turn's attempt has them from its `TurnLaunch` (`of`); a session operation's
/// process (a fork, a compaction) has no turn to launch, and gives its own (turn number 0).
pub struct TurnVars<'a> {
    pub launcher: &'a Path,
    pub turn: &'a str,
    pub agent: &'a str,
    pub n: u32,
    pub session_name: &'a str,
    pub check_in: bool,
    /// A message turn's message.
    pub message: Option<&'a crate::messages::Body>,
}

impl<'a> TurnVars<'a> {
    /// The variables of `turn`'s attempt; a message turn's carry its message.
    pub fn of(turn: &TurnLaunch<'a>, message: Option<&'a crate::messages::Body>) -> TurnVars<'a> {
        TurnVars {
            launcher: turn.launcher,
            turn: turn.turn,
            agent: turn.agent,
            n: turn.n,
            session_name: turn.session_name,
            check_in: turn.check_in,
            message,
        }
    }
}

/// Settles `launch`'s environment: withheld names removed, the turn's variables, then the
/// harness's own (already in `launch.env`), then the spec's `env`, which wins.
pub fn prepare(launch: &mut Launch, turn: &TurnVars<'_>, spec_env: &AgentEnv) {
    launch.env_remove.extend(withheld(
        std::env::vars_os().map(|(name, _)| name),
        spec_env,
    ));
    let mut vars = vec![
        (
            env::AWF_WFA.to_string(),
            turn.launcher.display().to_string(),
        ),
        (env::AWF_TURN.to_string(), turn.turn.to_string()),
        (env::AWF_AGENT.to_string(), turn.agent.to_string()),
        (env::AWF_TURN_NUMBER.to_string(), turn.n.to_string()),
        (env::AWF_SESSION.to_string(), turn.session_name.to_string()),
        (
            env::AWF_CHECK_IN.to_string(),
            if turn.check_in { "1" } else { "0" }.to_string(),
        ),
        (
            env::AWF_MESSAGE.to_string(),
            if turn.message.is_some() { "1" } else { "0" }.to_string(),
        ),
    ];
    if let Some(message) = turn.message {
        vars.push((env::AWF_MESSAGE_TEXT.to_string(), message.text.clone()));
        if let Some(data) = &message.data {
            vars.push((env::AWF_MESSAGE_DATA.to_string(), data.to_string()));
        }
    }
    vars.append(&mut launch.env);
    vars.extend(spec_env.vars.iter().cloned());
    launch.env = vars;
}

/// The names among `names` an agent must not inherit.
fn withheld(names: impl Iterator<Item = std::ffi::OsString>, spec: &AgentEnv) -> Vec<String> {
    names
        .filter_map(|name| name.into_string().ok())
        .filter(|name| {
            name.starts_with(env::AWF_PREFIX)
                || env::WITHHELD_FROM_AGENTS.contains(&name.as_str())
                || !spec.passes(name)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_markers_and_awf_variables_are_withheld_the_rest_passes() {
        let names = [
            "CLAUDECODE",
            "CODEX_THREAD_ID",
            "AWF_WFA_BIN",
            "CODEX_HOME",
            "ANTHROPIC_BASE_URL",
            "PATH",
        ];
        let withheld = withheld(
            names.iter().map(std::ffi::OsString::from),
            &AgentEnv::default(),
        );
        assert_eq!(
            withheld,
            vec!["CLAUDECODE", "CODEX_THREAD_ID", "AWF_WFA_BIN"]
        );
    }

    #[test]
    fn a_value_is_the_specs_else_the_inherited_one_unless_withheld() {
        let path = std::env::var("PATH").expect("tests run with a PATH");
        let spec = AgentEnv {
            vars: vec![
                ("CODEX_HOME".into(), "/a".into()),
                ("CODEX_HOME".into(), "/b".into()),
            ],
            ..AgentEnv::default()
        };
        assert_eq!(spec.value("CODEX_HOME").as_deref(), Some("/b"));
        assert_eq!(spec.value("PATH"), Some(path));
        let withholding = AgentEnv {
            withhold: vec!["PA*".into()],
            ..AgentEnv::default()
        };
        assert_eq!(withholding.value("PATH"), None);
        let closed = AgentEnv {
            inherit: Inherit::Only(vec![]),
            ..AgentEnv::default()
        };
        assert!(closed.value("PATH").is_some(), "PATH is always inherited");
    }

    #[test]
    fn a_spec_can_withhold_credentials_or_inherit_only_what_it_names() {
        let names = [
            "PATH",
            "HOME",
            "LC_ALL",
            "AWS_SECRET_ACCESS_KEY",
            "GITHUB_TOKEN",
            "OPENAI_API_KEY",
        ];
        let removed = |env: AgentEnv| withheld(names.iter().map(std::ffi::OsString::from), &env);
        let deny = AgentEnv {
            withhold: vec!["AWS_*".into(), "GITHUB_TOKEN".into()],
            ..AgentEnv::default()
        };
        assert_eq!(removed(deny), vec!["AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN"]);
        let closed = AgentEnv {
            inherit: Inherit::Only(vec![]),
            ..AgentEnv::default()
        };
        assert_eq!(
            removed(closed),
            vec!["AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "OPENAI_API_KEY"]
        );
        let allow = AgentEnv {
            inherit: Inherit::Only(vec!["OPENAI_*".into()]),
            ..AgentEnv::default()
        };
        assert_eq!(
            removed(allow),
            vec!["AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN"]
        );
    }

    #[test]
    fn the_spec_env_wins_over_the_harness_and_the_turn() {
        let mut launch = Launch {
            program: "/bin/true".into(),
            args: vec![],
            cwd: "/".into(),
            env: vec![("ANTHROPIC_MODEL".into(), "harness".into())],
            env_remove: vec![],
            stdin: None,
            hold_stdin: false,
            container: None,
        };
        let turn = TurnVars {
            launcher: Path::new("/tmp/awf-x/a1/wfa"),
            turn: "t1",
            agent: "a",
            n: 1,
            session_name: "a-a1",
            check_in: false,
            message: None,
        };
        let spec = AgentEnv {
            vars: vec![("ANTHROPIC_MODEL".into(), "spec".into())],
            ..AgentEnv::default()
        };
        prepare(&mut launch, &turn, &spec);
        let last = |name: &str| {
            launch
                .env
                .iter()
                .rev()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        };
        assert_eq!(last("ANTHROPIC_MODEL").as_deref(), Some("spec"));
        assert_eq!(last("AWF_TURN").as_deref(), Some("t1"));
        assert_eq!(last("AWF_WFA").as_deref(), Some("/tmp/awf-x/a1/wfa"));
    }
}
