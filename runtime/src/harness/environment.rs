//! What an agent's process inherits: the user's environment, less the variables that would make
//! a CLI think it runs inside another agent's session and awf's own (`env::WITHHELD_FROM_AGENTS`),
//! plus the turn's `AWF_*` variables, plus the agent spec's `env` on top.

use std::path::Path;

use super::Launch;
use crate::env;

/// The turn's own variables, set for every process-based agent (documented in env.rs).
pub struct TurnVars<'a> {
    pub launcher: &'a Path,
    pub turn: &'a str,
    pub agent: &'a str,
    pub n: u32,
    pub session_name: &'a str,
    pub check_in: bool,
}

/// Settles `launch`'s environment: withheld names removed, the turn's variables, then the
/// harness's own (already in `launch.env`), then the spec's `env`, which wins.
pub fn prepare(launch: &mut Launch, turn: &TurnVars<'_>, spec_env: &[(String, String)]) {
    launch
        .env_remove
        .extend(withheld(std::env::vars_os().map(|(name, _)| name)));
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
    ];
    vars.append(&mut launch.env);
    vars.extend(spec_env.iter().cloned());
    launch.env = vars;
}

/// The names among `names` an agent must not inherit.
fn withheld(names: impl Iterator<Item = std::ffi::OsString>) -> Vec<String> {
    names
        .filter_map(|name| name.into_string().ok())
        .filter(|name| {
            name.starts_with(env::AWF_PREFIX) || env::WITHHELD_FROM_AGENTS.contains(&name.as_str())
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
        let withheld = withheld(names.iter().map(std::ffi::OsString::from));
        assert_eq!(
            withheld,
            vec!["CLAUDECODE", "CODEX_THREAD_ID", "AWF_WFA_BIN"]
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
        };
        let turn = TurnVars {
            launcher: Path::new("/tmp/awf-x/a1/wfa"),
            turn: "t1",
            agent: "a",
            n: 1,
            session_name: "a-a1",
            check_in: false,
        };
        prepare(
            &mut launch,
            &turn,
            &[("ANTHROPIC_MODEL".into(), "spec".into())],
        );
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
