//! Agent sandboxes: where an agent's process may read, write and connect, whatever its runtime.
//!
//! A sandbox is opened by `wf.sandboxes.open`, inline as an agent's `sandbox`, or for every agent
//! by `awf run --agent-sandbox FILE.json`. `spec.rs` checks what the author wrote; `Sandbox` is
//! that spec resolved against the filesystem (its paths absolute, existing); a provider
//! (`SandboxProvider`: bubblewrap on Linux, `bubblewrap.rs`; podman and docker, `container/`)
//! turns an agent's `Launch` into the confined one. `AgentBox` is one agent's place in a
//! sandbox (its launcher and socket, its run): the `harness::Confinement` every process of the
//! agent is started through. `network` owns the host-side proxy and the in-box bridge that give
//! a sandbox the hosts it was granted and nothing else.

pub mod bubblewrap;
pub mod container;
pub mod network;
pub mod operator;
pub mod spec;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{json, Value};

use crate::harness::confinement::Confinement;
use crate::harness::Launch;
use crate::hint::Hint;
use network::{Grant, Inside, Proxy};
pub use spec::{Network, SandboxSpec};

/// Why a sandbox cannot be opened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SandboxError {
    #[error("{0} must be an object, e.g. {{ write: [\".\"] }}")]
    NotAnObject(String),
    #[error("{place}: unknown option `{option}`{} (known: {})", .suggestion.as_ref().map(|s| format!("; did you mean `{s}`?")).unwrap_or_default(), spec::KNOWN.join(", "))]
    UnknownOption {
        place: String,
        option: String,
        suggestion: Option<String>,
    },
    #[error("{place}: {provider}: {why}")]
    Container {
        place: String,
        provider: &'static str,
        why: String,
    },
    #[error("sandbox \"{key}\": {engine} is not installed or not on PATH, so the agent cannot run in a container")]
    NoEngine { key: String, engine: &'static str },
    #[error("sandbox \"{key}\": {engine} cannot run the image {image:?}: {why}")]
    NoImage {
        key: String,
        engine: &'static str,
        image: String,
        why: String,
    },
    #[error("{place}: {provider} takes no options; write {provider}: {{}}")]
    ProviderOptions {
        place: String,
        provider: &'static str,
    },
    #[error("{place}: {field} must be a string")]
    NotText { place: String, field: &'static str },
    #[error("{place}: {field} must be a list of paths, e.g. [\".\", \"~/notes\"]")]
    NotPaths { place: String, field: &'static str },
    #[error("{0}: network must be true, false or a list of hosts (\"api.github.com\", \"*.npmjs.org\", \"127.0.0.1:8080\")")]
    BadNetwork(String),
    #[error(
        "sandbox key {0:?} is not a valid key; use 1 to 64 letters, digits, '.', '_', ':' or '-'"
    )]
    BadKey(String),
    #[error("sandbox \"{key}\": {field} path {} does not exist", .path.display())]
    MissingPath {
        key: String,
        field: &'static str,
        path: PathBuf,
    },
    #[error("{place}: {error}")]
    BadHost {
        place: String,
        error: network::RuleError,
    },
    #[error("sandbox \"{key}\": cannot start its network proxy: {error}")]
    Proxy { key: String, error: String },
    #[error("sandbox \"{key}\": bubblewrap (bwrap) is not installed or not on PATH, so the agent cannot be confined")]
    NoBubblewrap { key: String },
    #[error("sandbox \"{key}\": bubblewrap cannot create a sandbox here: {why}")]
    NoNamespaces { key: String, why: String },
    #[error("sandbox \"{0}\" is already open with another spec; open it with the same spec, or use another key")]
    Reopened(String),
    #[error("wf.agents.open(spec): agent \"{agent}\": sandbox {sandbox:?} was not opened by wf.sandboxes.open in this run")]
    UnknownRef { agent: String, sandbox: String },
    #[error("`{field}` has no place in an --agent-sandbox file: {why}")]
    NotForOperator {
        field: &'static str,
        why: &'static str,
    },
    #[error("{what}: this run puts every agent in the operator's sandbox (awf run --agent-sandbox {}), so the workflow may not open its own", .file.display())]
    OperatorChose { what: String, file: PathBuf },
}

impl Hint for SandboxError {
    fn hint(&self) -> Option<String> {
        Some(match self {
            SandboxError::NoBubblewrap { .. } => {
                "install bubblewrap (`apt-get install bubblewrap`, `dnf install bubblewrap`), or open the agent without `sandbox`".into()
            }
            SandboxError::NoNamespaces { .. } => "bubblewrap needs unprivileged user namespaces: `sysctl kernel.unprivileged_userns_clone=1` (Debian), or on Ubuntu 24.04+ an AppArmor profile for bwrap; in a container, run it with --privileged or a seccomp profile that allows unshare".into(),
            SandboxError::MissingPath { .. } => "create the path first, or leave it out; relative paths start at the sandbox's cwd and `~` is your home".into(),
            SandboxError::BadHost { error, .. } => return error.hint(),
            SandboxError::Proxy { .. } => "the proxy's sockets live in the run's control folder under /tmp: check /tmp is writable and not full, or open the sandbox with network: true".into(),
            SandboxError::Container { provider, .. } => format!("write {provider}: {{}} for the project's image ({}), or {provider}: {{ image: \"NAME\", args: [\"--memory\", \"2g\"] }}; docs/agents.md#containers", container::DEFAULT_IMAGE),
            SandboxError::NoEngine { engine, .. } => format!("install {engine} (`apt-get install podman runc`, or Docker Engine for docker), or open the agent with another sandbox (bubblewrap: `sandbox: {{}}`)"),
            SandboxError::NoImage { engine, image, .. } if image == container::DEFAULT_IMAGE => format!("build the project's image from the repository's Containerfile: `{engine} build -t {image} -f Containerfile .` (docs/agents.md#containers); or name another with image: \"NAME\""),
            SandboxError::NoImage { engine, image, .. } => format!("`{engine} pull {image}` (or `{engine} build`/`{engine} import` it), then run again; `{engine} images` lists what is here"),
            SandboxError::NotForOperator { field, .. } => format!("remove \"{field}\" from the file"),
            SandboxError::OperatorChose { .. } => "run it without --agent-sandbox to let the workflow choose its sandboxes, or remove its own (`sandbox` on wf.agents.open, wf.sandboxes.open): under --agent-sandbox every agent is in the operator's".into(),
            _ => return None,
        })
    }
}

/// Turns a launch into the one that runs inside a sandbox: bubblewrap, or a container engine.
pub trait SandboxProvider: Send + Sync {
    /// The provider's name, as records and `run.agentOf(key).sandbox.provider` give it.
    fn name(&self) -> &'static str;
    /// `launch` run inside `sandbox`, with what `agent` needs of its own.
    fn confine(&self, sandbox: &Sandbox, agent: &AgentPlace, launch: Launch) -> Launch;
    /// Removes what the provider keeps of `agent` once it closed (its containers); bubblewrap
    /// keeps nothing past a process.
    fn release(&self, _agent: &AgentPlace) {}
    /// What records say of the provider beyond its name (a container's engine and image).
    fn describe(&self) -> Option<Value> {
        None
    }
}

/// What a sandbox is opened for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    /// Agents' processes will run in it (`awf run`): its provider is checked able to confine
    /// here and its proxy started.
    Confine,
    /// Only recorded (`awf test`: scripted agents run no process): the spec is checked and its
    /// paths resolved, the provider named but not looked for (bubblewrap need not be installed),
    /// no proxy started.
    Record,
}

/// A sandbox, resolved: every path absolute and existing.
#[derive(Clone, Debug)]
pub struct Sandbox {
    /// `wf.sandboxes.open`'s key, or `agent:<key>` for an inline one.
    pub key: String,
    /// As the author wrote it (for comparing a reopen, and for records).
    pub spec: SandboxSpec,
    pub cwd: PathBuf,
    /// `None`: the whole filesystem but the deny list.
    pub read: Option<Vec<PathBuf>>,
    pub write: Vec<PathBuf>,
    pub network: Network,
    pub provider: Arc<dyn SandboxProvider>,
    /// For `network: false` and a host list, the proxy the box reaches the network through
    /// (only its grant and its agents' model APIs pass); `None` for `network: true`. Shared by
    /// the sandbox's agents; stops when the last of them lets the sandbox go.
    pub proxy: Option<Arc<Proxy>>,
    /// The `--agent-sandbox` file it was read from, for the operator's sandbox.
    pub from: Option<PathBuf>,
}

impl std::fmt::Debug for dyn SandboxProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The provider `spec` names (a container engine, else bubblewrap), checked able to confine
/// here: what `open` uses, and what `awf run --agent-sandbox` checks before the run starts.
pub fn provider_for(
    spec: &SandboxSpec,
    key: &str,
) -> Result<Arc<dyn SandboxProvider>, SandboxError> {
    Ok(match &spec.container {
        Some(c) => Arc::new(container::Container::find(c, key)?),
        None => Arc::new(bubblewrap::Bubblewrap::find(key)?),
    })
}

impl Sandbox {
    /// Resolves `spec` (keyed `key`): its cwd against `base` (the agent's cwd for an inline
    /// sandbox, the run's for a shared one), each path against its cwd, `~` against `home`; then
    /// checks its provider can confine here; unless `network: true`, starts its proxy in a
    /// folder of its own under `control` (the run's control folder: short, so the sockets' paths
    /// stay under the 108 bytes a Unix socket's path may have). Opened to be only recorded
    /// (`Purpose::Record`), neither the provider is checked nor the proxy started.
    pub fn open(
        key: String,
        spec: SandboxSpec,
        base: &Path,
        home: Option<&Path>,
        control: &Path,
        purpose: Purpose,
    ) -> Result<Sandbox, SandboxError> {
        let resolve = |field: &'static str, written: &str, from: &Path| {
            let path = written_path(written, from, home);
            std::fs::canonicalize(&path).map_err(|_| SandboxError::MissingPath {
                key: key.clone(),
                field,
                path,
            })
        };
        let cwd = match &spec.cwd {
            Some(dir) => resolve("cwd", dir, base)?,
            None => base.to_path_buf(),
        };
        let read = match &spec.read {
            Some(list) => Some(
                list.iter()
                    .map(|p| resolve("read", p, &cwd))
                    .collect::<Result<Vec<_>, _>>()?,
            ),
            None => None,
        };
        let write = spec
            .write
            .iter()
            .map(|p| resolve("write", p, &cwd))
            .collect::<Result<Vec<_>, _>>()?;
        let provider: Arc<dyn SandboxProvider> = match purpose {
            Purpose::Confine => provider_for(&spec, &key)?,
            Purpose::Record => match &spec.container {
                Some(c) => Arc::new(container::Container::unchecked(c)),
                None => Arc::new(bubblewrap::Bubblewrap::unchecked()),
            },
        };
        let grant = match &spec.network {
            Network::All => None,
            Network::None => Some(Grant::default()),
            Network::Hosts(hosts) => {
                Some(Grant::parse(hosts).map_err(|error| SandboxError::BadHost {
                    place: format!("sandbox \"{key}\""),
                    error,
                })?)
            }
        };
        let proxy = match grant {
            None => None,
            Some(_) if purpose == Purpose::Record => None,
            Some(grant) => {
                let dir = control.join(format!("net-{}", crate::os::random::unguessable(6)));
                let proxy = Proxy::start(&dir, &grant, &[]).map_err(|e| SandboxError::Proxy {
                    key: key.clone(),
                    error: e.to_string(),
                })?;
                Some(Arc::new(proxy))
            }
        };
        Ok(Sandbox {
            proxy,
            from: None,
            network: spec.network.clone(),
            provider,
            key,
            spec,
            cwd,
            read,
            write,
        })
    }

    /// What `launch` of `agent` needs to reach this sandbox's proxy (`None`: no proxy, for
    /// `network: true`). The agent's model API, as its CLI will find it in the launch's
    /// environment, is let through first; if that fails (a socket cannot be made), the launch
    /// still runs confined and the failure is logged: the agent then cannot reach its model.
    pub fn network_inside(&self, agent: &AgentPlace, launch: &Launch) -> Option<Inside> {
        let proxy = self.proxy.as_ref()?;
        let env = |name: &str| -> Option<String> {
            if let Some((_, value)) = launch.env.iter().rev().find(|(n, _)| n == name) {
                return Some(value.clone());
            }
            if launch.env_remove.iter().any(|n| n == name) {
                return None;
            }
            std::env::var(name).ok()
        };
        let urls = network::model_urls(agent.runtime, &env);
        if let Err(e) = proxy.admit(&urls) {
            tracing::warn!(target: "awf::sandbox::network", "sandbox {}: cannot let {} reach its model API {urls:?}: {e}", self.key, agent.runtime);
        }
        Some(proxy.inside(&agent.control.join("wfa")))
    }

    /// The provider as the author knows it: what runs, or agentswf's `srt` where the spec named
    /// it (bubblewrap runs it).
    pub fn named_provider(&self) -> &'static str {
        match self.spec.named {
            Some("srt") if self.spec.container.is_none() => "srt",
            _ => self.provider.name(),
        }
    }

    /// What records say of the sandbox an agent runs in (where it ran, what it was granted).
    pub fn describe(&self) -> Value {
        let network = match &self.network {
            Network::None => json!(false),
            Network::All => json!(true),
            Network::Hosts(hosts) => json!(hosts),
        };
        let mut described = json!({
            "key": self.key,
            "provider": self.provider.name(),
            "cwd": self.cwd,
            "read": self.read,
            "write": self.write,
            "network": network,
            "spec": self.spec.to_json(),
        });
        if let Some(file) = &self.from {
            described["from"] = json!(file);
        }
        if let Some(container) = self.provider.describe() {
            described["container"] = container;
        }
        described
    }
}

/// A path as a sandbox spec writes it, made absolute: `~` and `~/...` against `home`, anything
/// else against `from`.
pub fn written_path(written: &str, from: &Path, home: Option<&Path>) -> PathBuf {
    match (written.strip_prefix('~'), home) {
        (Some(rest), Some(home)) if rest.is_empty() || rest.starts_with('/') => {
            home.join(rest.trim_start_matches('/'))
        }
        _ => from.join(written),
    }
}

/// What one agent brings into a sandbox: its control folder (launcher and socket) and its run's
/// folder (the other runs beside it are masked).
#[derive(Clone, Debug)]
pub struct AgentPlace {
    /// The agent's harness (`codex`, `command`): whose model API its box lets through.
    pub runtime: &'static str,
    pub control: PathBuf,
    pub run_folder: PathBuf,
    /// The agent's own CLI home, written by it, when it has one.
    pub home: Option<PathBuf>,
    /// `$HOME` of the user, for the deny list.
    pub user_home: Option<PathBuf>,
}

/// Under the user's home: credentials and the agent CLIs' own homes, never visible in a box
/// (each sandboxed agent gets its own CLI home with only what its CLI needs to log in).
pub const DENIED_IN_HOME: &[&str] = &[
    ".ssh",
    ".aws",
    ".gnupg",
    ".config/gcloud",
    ".kube",
    ".docker",
    ".netrc",
    ".codex",
    ".claude",
    ".claude.json",
    ".pi",
    ".gemini",
    ".config/opencode",
    ".local/share/opencode",
];

impl AgentPlace {
    /// What no provider lets the agent see, whatever its grants: the credentials and CLI homes
    /// under the user's home (`DENIED_IN_HOME`), and the other runs' folders
    /// beside its own (`.awf/runs/<id>`), in that order.
    pub fn hidden(&self) -> Vec<PathBuf> {
        let mut hidden: Vec<PathBuf> = match &self.user_home {
            Some(home) => DENIED_IN_HOME
                .iter()
                .map(|denied| home.join(denied))
                .collect(),
            None => Vec::new(),
        };
        let Some(runs) = self.run_folder.parent() else {
            return hidden;
        };
        let Ok(entries) = std::fs::read_dir(runs) else {
            return hidden;
        };
        let mut others: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.as_path() != self.run_folder && p.is_dir())
            .collect();
        others.sort();
        hidden.extend(others);
        hidden
    }
}

/// One agent in a sandbox: the `Confinement` its processes are started through.
#[derive(Debug)]
pub struct AgentBox {
    pub sandbox: Arc<Sandbox>,
    pub place: AgentPlace,
}

impl Confinement for AgentBox {
    fn confine(&self, launch: Launch) -> Launch {
        self.sandbox
            .provider
            .confine(&self.sandbox, &self.place, launch)
    }
}

impl AgentBox {
    /// The agent closed, or its run ends: what its provider keeps of it goes (its containers).
    pub fn release(&self) {
        self.sandbox.provider.release(&self.place);
    }
}

/// `$HOME`, when set and absolute.
pub fn user_home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
}
