//! What `awf doctor` reports of each agent CLI awf drives, found without a model call: whether
//! it is installed, its version (against the version awf's live tests run), whether it looks
//! able to reach a model (a login or an endpoint), the CLI's own checks (codex: the model it will
//! ask for, whether its sandbox runs a command), and what it can do.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::cli::{Check, CliInfo, Readiness};
use super::command::find_on_path;
use super::probe::run_bounded;
use super::registry::CLIS;

/// One CLI, as found.
pub struct CliSurvey {
    pub info: &'static CliInfo,
    pub program: Option<PathBuf>,
    /// The first line `--version` printed, or why there is none.
    pub version: Result<String, String>,
    pub readiness: Readiness,
    /// The CLI's own further checks (codex: its model, its sandbox); none when not installed.
    pub checks: Vec<Check>,
}

impl CliSurvey {
    /// Whether the installed version is the one awf is tested with.
    pub fn tested_version(&self) -> bool {
        self.version.as_ref().is_ok_and(|v| {
            v.split(|c: char| c.is_whitespace() || c == '(')
                .any(|w| w == self.info.tested)
        })
    }

    pub fn to_json(&self) -> Value {
        json!({
            "name": self.info.name,
            "package": self.info.package,
            "testedVersion": self.info.tested,
            "installed": self.program.is_some(),
            "program": self.program.as_ref().map(|p| p.display().to_string()),
            "version": self.version.as_ref().ok(),
            "versionError": self.version.as_ref().err(),
            "isTestedVersion": self.tested_version(),
            "ready": self.readiness.ready,
            "readiness": self.readiness.how,
            "install": self.info.install_hint(),
            "capabilities": self.info.capabilities.to_json(),
            "checks": self.checks.iter().map(|check| json!({
                "name": check.name,
                "ok": check.ok,
                "said": check.said,
                "hint": check.hint,
            })).collect::<Vec<_>>(),
        })
    }
}

/// Every CLI, looked at side by side (each `--version` on its own thread).
pub fn survey() -> Vec<CliSurvey> {
    let looks: Vec<_> = CLIS
        .iter()
        .map(|info| std::thread::spawn(move || look(info)))
        .collect();
    looks
        .into_iter()
        .zip(CLIS)
        .map(|(look, info)| {
            look.join().unwrap_or_else(|_| CliSurvey {
                info,
                program: None,
                version: Err("awf could not look at it".into()),
                readiness: Readiness::missing("awf could not look at it"),
                checks: Vec::new(),
            })
        })
        .collect()
}

fn look(info: &'static CliInfo) -> CliSurvey {
    let program = find_on_path(info.program);
    let version = match &program {
        Some(program) => version_of(program),
        None => Err(format!("no `{}` on PATH", info.program)),
    };
    let checks = program
        .as_deref()
        .map(|program| (info.checks)(program))
        .unwrap_or_default();
    CliSurvey {
        info,
        program,
        version,
        readiness: (info.readiness)(),
        checks,
    }
}

/// The first line `<program> --version` prints, in the time `run_bounded` gives it.
fn version_of(program: &Path) -> Result<String, String> {
    let ran = run_bounded(program, &["--version"], &[])?;
    // Most print their version on stdout; pi prints it on stderr.
    [ran.stdout, ran.stderr]
        .iter()
        .flat_map(|text| text.lines())
        .map(str::trim)
        .find(|line| !line.is_empty())
        .map(str::to_string)
        .ok_or_else(|| format!("`{} --version` printed nothing", program.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_cli_is_reported_with_how_to_install_it() {
        let absent = CliInfo {
            program: "awf-no-such-cli",
            ..*CLIS[0]
        };
        let leaked: &'static CliInfo = Box::leak(Box::new(absent));
        let found = look(leaked);
        assert!(found.program.is_none());
        assert_eq!(found.version, Err("no `awf-no-such-cli` on PATH".into()));
        let report = found.to_json();
        assert_eq!(report["installed"], false);
        assert_eq!(report["install"], "npm install -g @openai/codex@0.171.0");
        assert_eq!(report["capabilities"]["resume"]["given"], true);
    }

    #[test]
    fn versions_are_read_and_matched_to_the_tested_one() {
        let echo = find_on_path("echo").unwrap();
        assert!(
            version_of(&echo).unwrap().contains("echo"),
            "coreutils' echo answers --version"
        );
        let mut survey = look(CLIS[0]);
        survey.version = Ok("codex-cli 0.171.0".into());
        assert!(survey.tested_version());
        survey.version = Ok("2.1.332 (Claude Code)".into());
        assert!(!survey.tested_version());
    }
}
