//! The container providers: `sandbox: { podman: { image?, args? } }` and `{ docker: { ... } }`
//! (the same code; the engine's program differs). Each process of the agent (its turns, forks,
//! compactions) runs as `<engine> run --rm -i ... IMAGE` in a container of its own, started by
//! the agent's keeper like any agent process:
//!
//! - the same uid and gid as awf (podman rootless: `--userns=keep-id`), its cwd and the
//!   sandbox's paths mounted at the same paths: `write` paths read-write, the cwd and `read`
//!   paths read-only; nothing else of the host's files (the image is the rest);
//! - the agent's control folder (launcher, socket, `launcher.json`) and the `wfa` binary its
//!   launcher links to mounted in, so any Linux image reaches the run without awf installed;
//!   the socket takes a process outside the agent's process tree by its secret (channel/);
//! - `network: true` is the host's network; otherwise the container has none of its own
//!   (`--network none`) and reaches the sandbox's proxy through `wfa __bridge`, as with
//!   bubblewrap (sandbox/network/); the bridge is the container's first process either way,
//!   so signals reach the program (a program as pid 1 would ignore SIGTERM);
//! - the variables the agent's process gets on the host, but the host's own (`PATH`, ...),
//!   passed by name (`-e NAME`), never their values on a command line;
//! - labelled with the run, its control folder and the agent's (engine.rs): removed when the
//!   agent closes, at the run's end, and by the sweep after awf was killed.
//!
//! `spec.rs` reads the author's options; `engine.rs` finds the engine and removes containers;
//! `command.rs` builds the `run` command line.

pub mod command;
pub mod engine;
pub mod spec;

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use serde_json::{json, Value};

use super::{AgentPlace, Sandbox, SandboxError, SandboxProvider};
use crate::harness::Launch;
pub use engine::{remove_left_in, Engine};
pub use spec::{ContainerSpec, EngineKind, DEFAULT_IMAGE};

/// A container provider: the engine found, the image it runs, the author's `run` options.
#[derive(Debug)]
pub struct Container {
    engine: Engine,
    image: String,
    args: Vec<String>,
    /// The agents (their control folders) that started a container: the ones to clean up.
    started: Mutex<HashSet<PathBuf>>,
    next: AtomicU64,
}

impl Container {
    /// The provider `spec` names, its engine found and its image checked present, for the
    /// sandbox `key`.
    pub fn find(spec: &ContainerSpec, key: &str) -> Result<Container, SandboxError> {
        Ok(Container::with(
            Engine::find(spec.engine, spec.image(), key)?,
            spec,
        ))
    }

    /// The provider of a sandbox only recorded (`awf test`): the engine not looked for.
    pub fn unchecked(spec: &ContainerSpec) -> Container {
        let engine = Engine::at(spec.engine, PathBuf::from(spec.engine.name()));
        Container::with(engine, spec)
    }

    fn with(engine: Engine, spec: &ContainerSpec) -> Container {
        Container {
            engine,
            image: spec.image().to_string(),
            args: spec.args.clone(),
            started: Mutex::default(),
            next: AtomicU64::new(1),
        }
    }
}

impl SandboxProvider for Container {
    fn name(&self) -> &'static str {
        self.engine.kind.name()
    }

    fn confine(&self, sandbox: &Sandbox, agent: &AgentPlace, launch: Launch) -> Launch {
        if let Some(control) = agent.control.parent() {
            if let Err(e) = engine::note_used(control, &self.engine) {
                tracing::warn!(target: "awf::sandbox::container", "cannot note the run's containers in {}: {e}", control.display());
            }
        }
        self.started
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(agent.control.clone());
        let net = sandbox.network_inside(agent, &launch);
        let n = self.next.fetch_add(1, Ordering::SeqCst);
        let run = command::RunLine {
            engine: &self.engine,
            image: &self.image,
            extra: &self.args,
            name: command::container_name(agent, n),
        };
        run.launch(sandbox, agent, launch, net)
    }

    fn release(&self, agent: &AgentPlace) {
        let started = self
            .started
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&agent.control);
        if started {
            self.engine
                .remove_labelled(engine::LABEL_AGENT, &agent.control);
        }
    }

    fn describe(&self) -> Option<Value> {
        Some(json!({
            "engine": self.engine.kind.name(),
            "image": self.image,
            "args": self.args,
        }))
    }
}
