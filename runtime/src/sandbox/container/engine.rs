//! The container engine's program (podman or docker) as awf uses it: found on PATH, asked
//! whether it can run the image, and told to remove the containers a label names.
//!
//! Every container awf starts carries three labels: `awf.run` (the run's id), `awf.control`
//! (the run's control folder under /tmp) and `awf.agent` (the agent's folder in it). The agent's
//! close removes those labelled with its folder; a later awf's sweep removes those labelled with
//! a dead run's control folder (`LEFT_FILE` says which engines it used).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use super::spec::EngineKind;
use crate::sandbox::bubblewrap::on_path;
use crate::sandbox::SandboxError;

/// Written in a run's control folder when its first container starts: the engine programs the
/// run used, a line each, for the sweep after the run's awf died.
pub const LEFT_FILE: &str = "containers";

pub const LABEL_RUN: &str = "awf.run";
pub const LABEL_CONTROL: &str = "awf.control";
pub const LABEL_AGENT: &str = "awf.agent";

/// How many times a container that will not go is asked to (engine.rs `remove_labelled`).
const REMOVE_ATTEMPTS: usize = 3;

/// An engine found on PATH.
#[derive(Clone, Debug)]
pub struct Engine {
    pub kind: EngineKind,
    pub program: PathBuf,
}

impl Engine {
    /// The engine's program on PATH, checked able to run `image`: a missing engine, an engine
    /// that cannot answer (docker's daemon down) or a missing image refuses the sandbox `key`.
    pub fn find(kind: EngineKind, image: &str, key: &str) -> Result<Engine, SandboxError> {
        let Some(program) = on_path(kind.name()) else {
            return Err(SandboxError::NoEngine {
                key: key.to_string(),
                engine: kind.name(),
            });
        };
        let engine = Engine { kind, program };
        let inspected = engine
            .command(&["image", "inspect", "--format", "{{.Id}}", image])
            .output();
        match inspected {
            Ok(out) if out.status.success() => Ok(engine),
            Ok(out) => Err(SandboxError::NoImage {
                key: key.to_string(),
                engine: kind.name(),
                image: image.to_string(),
                why: last_stderr_line(&out),
            }),
            Err(e) => Err(SandboxError::NoImage {
                key: key.to_string(),
                engine: kind.name(),
                image: image.to_string(),
                why: format!("{}: {e}", engine.program.display()),
            }),
        }
    }

    /// The engine named by `program` without a check (the sweep's, for what a run left).
    pub fn at(kind: EngineKind, program: PathBuf) -> Engine {
        Engine { kind, program }
    }

    /// `<engine> args...`, its output captured, no input.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(&self.program);
        command
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    /// Removes every container (running or not) labelled `label=value`. A container whose
    /// processes died under it (its conmon killed with awf) is still marked running: podman's
    /// first `rm` fails ("container state improper") and a second removes it, so it is asked a
    /// few times.
    pub fn remove_labelled(&self, label: &str, value: &Path) {
        for attempt in 1..=REMOVE_ATTEMPTS {
            let ids = self.labelled(label, value);
            if ids.is_empty() {
                return;
            }
            let mut args = vec!["rm", "--force"];
            if self.kind == EngineKind::Podman {
                // podman stops a running container with a grace first; its processes are done.
                args.extend(["--time", "0"]);
            }
            args.extend(ids.iter().map(String::as_str));
            match self.command(&args).output() {
                Ok(out) if out.status.success() => return,
                Ok(out) if attempt == REMOVE_ATTEMPTS => {
                    tracing::warn!(target: "awf::sandbox::container", "{} rm: {}", self.kind.name(), last_stderr_line(&out));
                }
                _ => std::thread::sleep(std::time::Duration::from_millis(300)),
            }
        }
    }

    /// The ids of the containers (running or not) labelled `label=value`.
    fn labelled(&self, label: &str, value: &Path) -> Vec<String> {
        let filter = format!("label={label}={}", value.display());
        let Ok(listed) = self
            .command(&["ps", "--all", "--quiet", "--filter", &filter])
            .output()
        else {
            return Vec::new();
        };
        String::from_utf8_lossy(&listed.stdout)
            .split_whitespace()
            .map(str::to_string)
            .collect()
    }
}

/// Removes the containers a dead run left (its control folder `control`, from `LEFT_FILE`).
/// For the sweep, before the folder goes.
pub fn remove_left_in(control: &Path) {
    let Ok(text) = std::fs::read_to_string(control.join(LEFT_FILE)) else {
        return;
    };
    for line in text.lines() {
        let program = PathBuf::from(line.trim());
        let kind = match program.file_name().and_then(|n| n.to_str()) {
            Some(name) if name.contains("docker") => EngineKind::Docker,
            Some(_) => EngineKind::Podman,
            None => continue,
        };
        Engine::at(kind, program).remove_labelled(LABEL_CONTROL, control);
    }
}

/// Notes in the run's control folder that `engine` starts containers for it (once a line).
pub fn note_used(control: &Path, engine: &Engine) -> std::io::Result<()> {
    use std::io::Write;
    let file = control.join(LEFT_FILE);
    let line = engine.program.display().to_string();
    let known = std::fs::read_to_string(&file).unwrap_or_default();
    if known.lines().any(|l| l == line) {
        return Ok(());
    }
    let mut out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&file)?;
    writeln!(out, "{line}")
}

fn last_stderr_line(out: &Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr);
    let text = stderr.trim();
    let text = if text.is_empty() {
        format!("exit {}", out.status)
    } else {
        text.to_string()
    };
    text.lines().last().unwrap_or_default().to_string()
}
