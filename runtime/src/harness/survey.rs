//! What `awf doctor` reports of each agent CLI awf drives, found without a model call: whether
//! it is installed, its version (against the version awf's live tests run), whether it looks
//! able to reach a model (a login or an endpoint), and what it can do.

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::cli::{CliInfo, Readiness};
use super::command::find_on_path;
use super::registry::CLIS;

/// How long `<cli> --version` may take (a node CLI starts slowly on a cold disk).
const VERSION_BOUND: Duration = Duration::from_secs(20);

/// One CLI, as found.
pub struct CliSurvey {
    pub info: &'static CliInfo,
    pub program: Option<PathBuf>,
    /// The first line `--version` printed, or why there is none.
    pub version: Result<String, String>,
    pub readiness: Readiness,
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
    CliSurvey {
        info,
        program,
        version,
        readiness: (info.readiness)(),
    }
}

/// The first line `<program> --version` prints, within `VERSION_BOUND`.
fn version_of(program: &std::path::Path) -> Result<String, String> {
    let mut child = Command::new(program)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", program.display()))?;
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if started.elapsed() < VERSION_BOUND => {
                std::thread::sleep(Duration::from_millis(20))
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "`{} --version` gave no answer in {}s",
                    program.display(),
                    VERSION_BOUND.as_secs()
                ));
            }
        }
    }
    // Most print their version on stdout; pi prints it on stderr.
    let mut stdout = String::new();
    let mut stderr = String::new();
    if let Some(mut out) = child.stdout.take() {
        let _ = out.read_to_string(&mut stdout);
    }
    if let Some(mut err) = child.stderr.take() {
        let _ = err.read_to_string(&mut stderr);
    }
    [stdout, stderr]
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
