//! `docker: { image?, args? }` and `podman: { image?, args? }` in a sandbox spec, checked: which
//! engine, which image (the project's own, built from the repository's `Containerfile`, when
//! none is named), and the options given to the engine's `run` before the image.

use serde_json::{json, Map, Value};

use crate::sandbox::SandboxError;

/// The image a container sandbox runs when its spec names none: the one the repository's
/// `Containerfile` builds (docs/agents.md "Containers").
pub const DEFAULT_IMAGE: &str = "awf-agents";

/// Which container engine runs the sandbox's agents: the same command lines, another program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineKind {
    Podman,
    Docker,
}

impl EngineKind {
    /// The engine's program, and the provider's name in records.
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Podman => "podman",
            EngineKind::Docker => "docker",
        }
    }
}

/// A container sandbox as the author wrote it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContainerSpec {
    pub engine: EngineKind,
    /// `None`: `DEFAULT_IMAGE`.
    pub image: Option<String>,
    /// Given to `<engine> run` before the image (`["--memory", "2g"]`).
    pub args: Vec<String>,
}

/// The options `docker: {}` and `podman: {}` take.
const OPTIONS: &[&str] = &["image", "args"];

impl ContainerSpec {
    /// The container provider `object` (a sandbox spec) names, if any; `place` names the spec
    /// in errors.
    pub fn from_spec(
        object: &Map<String, Value>,
        place: &str,
    ) -> Result<Option<ContainerSpec>, SandboxError> {
        let named: Vec<EngineKind> = [EngineKind::Podman, EngineKind::Docker]
            .into_iter()
            .filter(|e| !matches!(object.get(e.name()), None | Some(Value::Null)))
            .collect();
        let engine = match named.as_slice() {
            [] => return Ok(None),
            [one] => *one,
            _ => return Err(bad(place, "podman", "give docker or podman, not both")),
        };
        let provider = engine.name();
        if object.contains_key("bwrap") || object.contains_key("srt") {
            return Err(bad(
                place,
                provider,
                "a container sandbox takes no bwrap or srt; give one provider",
            ));
        }
        let Some(options) = object.get(provider).and_then(Value::as_object) else {
            return Err(bad(
                place,
                provider,
                &format!("must be an object, e.g. {provider}: {{ image: \"{DEFAULT_IMAGE}\" }}"),
            ));
        };
        if let Some(unknown) = options.keys().find(|k| !OPTIONS.contains(&k.as_str())) {
            let suggestion = crate::hint::closest(unknown, OPTIONS)
                .map(|s| format!("; did you mean `{s}`?"))
                .unwrap_or_default();
            return Err(bad(
                place,
                provider,
                &format!("unknown option `{unknown}`{suggestion} (known: image, args)"),
            ));
        }
        let image = match options.get("image") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if !s.trim().is_empty() && !s.starts_with('-') => {
                Some(s.clone())
            }
            Some(_) => {
                return Err(bad(
                    place,
                    provider,
                    "image must be an image's name, e.g. \"docker.io/library/node:22\"",
                ))
            }
        };
        let args = match options.get("args") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(list)) => list
                .iter()
                .map(|a| a.as_str().map(str::to_string))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| {
                    bad(
                        place,
                        provider,
                        "args must be a list of strings, e.g. [\"--memory\", \"2g\"]",
                    )
                })?,
            Some(_) => {
                return Err(bad(
                    place,
                    provider,
                    "args must be a list of strings, e.g. [\"--memory\", \"2g\"]",
                ))
            }
        };
        Ok(Some(ContainerSpec {
            engine,
            image,
            args,
        }))
    }

    /// The image the sandbox runs.
    pub fn image(&self) -> &str {
        self.image.as_deref().unwrap_or(DEFAULT_IMAGE)
    }

    /// As records and `run.agentOf(key).sandbox.spec` show it: `{ podman: { image, args } }`.
    pub fn to_json(&self) -> Value {
        json!({ self.engine.name(): { "image": self.image, "args": self.args } })
    }
}

fn bad(place: &str, provider: &'static str, why: &str) -> SandboxError {
    SandboxError::Container {
        place: place.to_string(),
        provider,
        why: why.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(v: Value) -> Result<Option<ContainerSpec>, String> {
        ContainerSpec::from_spec(v.as_object().unwrap(), "sandbox").map_err(|e| e.to_string())
    }

    #[test]
    fn reads_the_engine_image_and_args() {
        assert_eq!(read(json!({"write": ["."]})).unwrap(), None);
        let podman = read(json!({"podman": {}})).unwrap().unwrap();
        assert_eq!(podman.engine, EngineKind::Podman);
        assert_eq!(podman.image(), DEFAULT_IMAGE);
        let docker = read(json!({"docker": {"image": "node:22", "args": ["--memory", "2g"]}}))
            .unwrap()
            .unwrap();
        assert_eq!(docker.engine, EngineKind::Docker);
        assert_eq!(docker.image(), "node:22");
        assert_eq!(docker.args, vec!["--memory", "2g"]);
        assert_eq!(
            docker.to_json(),
            json!({"docker": {"image": "node:22", "args": ["--memory", "2g"]}})
        );
    }

    #[test]
    fn refuses_each_mistake_saying_what_to_write() {
        let both = read(json!({"podman": {}, "docker": {}})).unwrap_err();
        assert!(both.contains("not both"), "{both}");
        let typo = read(json!({"podman": {"imag": "x"}})).unwrap_err();
        assert!(
            typo.contains("unknown option `imag`; did you mean `image`?"),
            "{typo}"
        );
        let not_object = read(json!({"docker": true})).unwrap_err();
        assert!(
            not_object.contains("docker: must be an object"),
            "{not_object}"
        );
        assert!(read(json!({"podman": {"image": ""}}))
            .unwrap_err()
            .contains("image must be"));
        assert!(read(json!({"podman": {"args": "--memory 2g"}}))
            .unwrap_err()
            .contains("args must be a list"));
        assert!(read(json!({"podman": {}, "bwrap": {}}))
            .unwrap_err()
            .contains("one provider"));
    }
}
