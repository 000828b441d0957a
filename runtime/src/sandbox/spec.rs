//! A sandbox as the author writes it (`sandbox` on `wf.agents.open`, `wf.sandboxes.open`, or
//! the operator's `--agent-sandbox FILE.json`), checked field by field: each mistake is refused
//! naming the field and what to write instead. The container providers' options
//! (`docker: { image?, args? }`, `podman: ...`) are read by `container/spec.rs`.

use serde_json::{Map, Value};

use super::container::ContainerSpec;
use super::network::Grant;
use super::SandboxError;
use crate::hint::closest;

/// The fields a sandbox spec may hold.
pub const KNOWN: &[&str] = &[
    "key", "cwd", "read", "write", "network", "bwrap", "srt", "docker", "podman",
];

/// Which hosts the sandbox may reach.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Network {
    /// No network (the default): the sandbox has its own, empty, network namespace.
    None,
    /// `network: true`: the host's network.
    All,
    /// `network: ["host", "*.suffix", "host:port"]`: through awf's proxy (sandbox/network/).
    Hosts(Vec<String>),
}

/// A sandbox spec, checked but not resolved (its paths are as written).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SandboxSpec {
    /// `wf.sandboxes.open`'s key; `None` for an inline sandbox (then keyed `agent:<key>`).
    pub key: Option<String>,
    /// Where relative paths start; relative to the run's cwd. `None`: the agent's cwd.
    pub cwd: Option<String>,
    /// `read`: narrows reads to these paths (and the system list); `None`: everything but the
    /// deny list.
    pub read: Option<Vec<String>>,
    /// Paths the agent may write; `.` is the sandbox's cwd (the default).
    pub write: Vec<String>,
    pub network: Network,
    /// `docker: {...}` or `podman: {...}`: the agents run in containers; `None`: bubblewrap.
    pub container: Option<ContainerSpec>,
    /// The bubblewrap provider as the spec named it: `bwrap`, or agentswf's `srt` (Anthropic's
    /// sandbox runtime, which is bubblewrap on Linux); `None` when it named none.
    pub named: Option<&'static str>,
}

impl SandboxSpec {
    /// Reads a spec; `place` names it in errors (`wf.sandboxes.open(spec)`, `agent "a": sandbox`).
    pub fn from_json(value: &Value, place: &str) -> Result<SandboxSpec, SandboxError> {
        let Some(object) = value.as_object() else {
            return Err(SandboxError::NotAnObject(place.to_string()));
        };
        if let Some(unknown) = object.keys().find(|k| !KNOWN.contains(&k.as_str())) {
            return Err(SandboxError::UnknownOption {
                place: place.to_string(),
                option: unknown.clone(),
                suggestion: closest(unknown, KNOWN).map(str::to_string),
            });
        }
        let container = ContainerSpec::from_spec(object, place)?;
        let mut named = None;
        for provider in ["bwrap", "srt"] {
            match object.get(provider) {
                None | Some(Value::Null) => {}
                Some(Value::Object(options)) if options.is_empty() => named = Some(provider),
                Some(_) => {
                    return Err(SandboxError::ProviderOptions {
                        place: place.to_string(),
                        provider,
                    })
                }
            }
        }
        let text = |field: &'static str| -> Result<Option<String>, SandboxError> {
            match object.get(field) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) if !s.is_empty() => Ok(Some(s.clone())),
                Some(_) => Err(SandboxError::NotText {
                    place: place.to_string(),
                    field,
                }),
            }
        };
        let key = text("key")?;
        if let Some(key) = &key {
            if !valid_key(key) {
                return Err(SandboxError::BadKey(key.clone()));
            }
        }
        Ok(SandboxSpec {
            key,
            cwd: text("cwd")?,
            read: paths(object, "read", place)?,
            // agentswf's `srt: {}` spec is read with agentswf's default, no write path, so that
            // its workflows keep the authority they were written with; awf's own default is
            // the sandbox's cwd.
            write: paths(object, "write", place)?.unwrap_or_else(|| match named {
                Some("srt") => Vec::new(),
                _ => vec![".".to_string()],
            }),
            network: network(object.get("network"), place)?,
            container,
            named,
        })
    }

    /// The spec as records and `run.agentOf(key).sandbox.spec` show it.
    pub fn to_json(&self) -> Value {
        let network = match &self.network {
            Network::None => Value::Bool(false),
            Network::All => Value::Bool(true),
            Network::Hosts(hosts) => serde_json::json!(hosts),
        };
        let mut spec = serde_json::json!({
            "cwd": self.cwd,
            "read": self.read,
            "write": self.write,
            "network": network,
        });
        if let Some(named) = self.named {
            spec[named] = serde_json::json!({});
        }
        if let (Some(container), Some(fields)) = (&self.container, spec.as_object_mut()) {
            if let Some(provider) = container.to_json().as_object() {
                fields.extend(provider.clone());
            }
        }
        spec
    }
}

fn paths(
    object: &Map<String, Value>,
    field: &'static str,
    place: &str,
) -> Result<Option<Vec<String>>, SandboxError> {
    let bad = || SandboxError::NotPaths {
        place: place.to_string(),
        field,
    };
    match object.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(list)) => list
            .iter()
            .map(|p| match p.as_str() {
                Some(s) if !s.is_empty() => Ok(s.to_string()),
                _ => Err(bad()),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some(_) => Err(bad()),
    }
}

fn network(value: Option<&Value>, place: &str) -> Result<Network, SandboxError> {
    let bad = || SandboxError::BadNetwork(place.to_string());
    match value {
        None | Some(Value::Null) | Some(Value::Bool(false)) => Ok(Network::None),
        Some(Value::Bool(true)) => Ok(Network::All),
        Some(Value::Array(list)) => {
            let hosts = list
                .iter()
                .map(|h| match h.as_str() {
                    Some(s) if !s.is_empty() && !s.contains(char::is_whitespace) => {
                        Ok(s.to_string())
                    }
                    _ => Err(bad()),
                })
                .collect::<Result<Vec<_>, _>>()?;
            Grant::parse(&hosts).map_err(|error| SandboxError::BadHost {
                place: place.to_string(),
                error,
            })?;
            Ok(if hosts.is_empty() {
                Network::None
            } else {
                Network::Hosts(hosts)
            })
        }
        Some(_) => Err(bad()),
    }
}

/// As an agent's key: 1 to 64 letters, digits, '.', '_', ':' or '-'.
fn valid_key(key: &str) -> bool {
    !key.is_empty()
        && key.len() <= 64
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | ':'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(v: Value) -> Result<SandboxSpec, String> {
        SandboxSpec::from_json(&v, "sandbox").map_err(|e| e.to_string())
    }

    #[test]
    fn defaults_to_writing_the_cwd_without_network() {
        let spec = read(json!({})).unwrap();
        assert_eq!(spec.write, vec!["."]);
        assert_eq!(spec.read, None);
        assert_eq!(spec.network, Network::None);
        let spec =
            read(json!({"key": "team", "write": [".", "~/out"], "network": true, "srt": {}}))
                .unwrap();
        assert_eq!(spec.key.as_deref(), Some("team"));
        assert_eq!(spec.write, vec![".", "~/out"]);
        assert_eq!(spec.network, Network::All);
        let hosts = read(json!({"network": ["api.github.com", "*.npmjs.org"]})).unwrap();
        assert_eq!(
            hosts.network,
            Network::Hosts(vec!["api.github.com".into(), "*.npmjs.org".into()])
        );
    }

    #[test]
    fn agentswfs_srt_spec_writes_nothing_unless_it_says() {
        let srt = read(json!({"srt": {}})).unwrap();
        assert_eq!(srt.write, Vec::<String>::new());
        assert_eq!(srt.named, Some("srt"));
        assert_eq!(srt.to_json()["srt"], json!({}));
        let bwrap = read(json!({"bwrap": {}})).unwrap();
        assert_eq!(bwrap.write, vec!["."], "awf's own default");
        assert_eq!(
            read(json!({"srt": {}, "write": ["."]})).unwrap().write,
            vec!["."]
        );
    }

    #[test]
    fn refuses_each_mistake_naming_the_field() {
        assert!(read(json!("x")).unwrap_err().contains("must be an object"));
        let typo = read(json!({"wirte": ["."]})).unwrap_err();
        assert!(typo.contains("unknown option `wirte`"), "{typo}");
        assert!(typo.contains("did you mean `write`"), "{typo}");
        assert!(read(json!({"docker": {"imag": "x"}}))
            .unwrap_err()
            .contains("did you mean `image`"));
        assert!(read(json!({"write": "."}))
            .unwrap_err()
            .contains("write must be a list"));
        assert!(read(json!({"read": [1]}))
            .unwrap_err()
            .contains("read must be a list"));
        assert!(read(json!({"network": "all"}))
            .unwrap_err()
            .contains("network must be"));
        assert!(read(json!({"cwd": 3}))
            .unwrap_err()
            .contains("cwd must be a string"));
        let host = read(json!({"network": ["api.github.com", "https://x.org/"]})).unwrap_err();
        assert!(host.starts_with("sandbox: sandbox network entry"), "{host}");
        assert!(host.contains("https://x.org/"), "{host}");
        assert!(read(json!({"bwrap": {"x": 1}}))
            .unwrap_err()
            .contains("bwrap takes no options"));
    }

    #[test]
    fn closest_allows_two_edits() {
        assert_eq!(closest("netwrk", KNOWN), Some("network"));
        assert_eq!(closest("zzzzzz", KNOWN), None);
    }
}
