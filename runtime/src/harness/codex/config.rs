//! What awf reads of codex's own config file, as codex reads it, for `awf doctor`: where it is
//! (`$CODEX_HOME/config.toml`, else `~/.codex/config.toml`), the model codex will ask for and the
//! model provider it will ask, from the top level or from the profile that `profile` names.
//!
//! Only those keys are read: `key = "string"` (or `'string'`) lines at the top level and in
//! `[profiles.<name>]` tables; everything else in the file is codex's business. A custom
//! provider without a model is worth a warning: codex then asks it for codex's own default
//! model (an OpenAI one), with no tools, and the turn comes back unanswered.

use std::path::PathBuf;

use crate::harness::cli::{self, Check};

/// The model providers codex has built in; any other is one of the user's own.
const BUILT_IN_PROVIDERS: [&str; 3] = ["openai", "ollama", "lmstudio"];

/// The keys awf reads from codex's config.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CodexConfig {
    pub model: Option<String>,
    pub provider: Option<String>,
    pub profile: Option<String>,
}

impl CodexConfig {
    /// Reads `text`: the top level, then the chosen profile's table over it.
    pub fn read(text: &str) -> CodexConfig {
        let mut top = CodexConfig::default();
        let mut profiles: Vec<(String, CodexConfig)> = Vec::new();
        let mut table: Option<String> = None;
        for line in text.lines() {
            let line = line.trim();
            if let Some(header) = line.strip_prefix('[') {
                let name = header.split(']').next().unwrap_or_default().trim();
                table = Some(name.to_string());
                continue;
            }
            let Some((key, value)) = string_entry(line) else {
                continue;
            };
            let into = match table.as_deref() {
                None => &mut top,
                Some(name) => match name.strip_prefix("profiles.") {
                    Some(profile) => {
                        let profile = unquote(profile).unwrap_or(profile).to_string();
                        if !profiles.iter().any(|(p, _)| *p == profile) {
                            profiles.push((profile.clone(), CodexConfig::default()));
                        }
                        match profiles.iter_mut().find(|(p, _)| *p == profile) {
                            Some((_, config)) => config,
                            None => continue,
                        }
                    }
                    None => continue,
                },
            };
            match key {
                "model" => into.model = Some(value),
                "model_provider" => into.provider = Some(value),
                "profile" => into.profile = Some(value),
                _ => {}
            }
        }
        let chosen = top
            .profile
            .as_ref()
            .and_then(|name| profiles.iter().find(|(p, _)| p == name))
            .map(|(_, config)| config.clone())
            .unwrap_or_default();
        CodexConfig {
            model: chosen.model.or(top.model),
            provider: chosen.provider.or(top.provider),
            profile: top.profile,
        }
    }

    /// Whether the provider is one of the user's own (not one codex has built in).
    pub fn custom_provider(&self) -> Option<&str> {
        self.provider
            .as_deref()
            .filter(|p| !BUILT_IN_PROVIDERS.contains(p))
    }
}

/// Where codex reads its config, as codex finds it.
pub fn config_path() -> Option<PathBuf> {
    cli::home_dir("CODEX_HOME", ".codex").map(|home| home.join("config.toml"))
}

/// `awf doctor`'s model line: the model codex will ask for, and a warning when a provider of
/// the user's own has none.
pub fn model_check() -> Check {
    let Some(path) = config_path() else {
        return Check::ok(
            "model",
            "codex's default (no HOME or CODEX_HOME to find its config.toml in)".into(),
        );
    };
    let config = CodexConfig::read(&std::fs::read_to_string(&path).unwrap_or_default());
    let shown = path.display();
    let from = match &config.profile {
        Some(profile) => format!("{shown}, profile {profile}"),
        None => shown.to_string(),
    };
    let provider = config.provider.as_deref().unwrap_or("openai");
    match (&config.model, config.custom_provider()) {
        (Some(model), _) => Check::ok(
            "model",
            format!("{model} from provider {provider} ({from}); an agent's runtime.model overrides it"),
        ),
        (None, Some(custom)) => Check::failed(
            "model",
            format!(
                "none set for provider {custom} ({from}): codex will ask your server for its own default model, an OpenAI one, and send no tools with it"
            ),
            Some(format!(
                "add `model = \"<a model your server serves>\"` to {shown} (beside `model_provider`), or give each codex agent one: `runtime: {{ harness: \"codex\", model: \"...\" }}`"
            )),
        ),
        (None, None) => Check::ok(
            "model",
            format!("codex's default, from provider {provider} (no `model` in {from}); an agent's runtime.model overrides it"),
        ),
    }
}

/// A `key = "value"` line with a string value, its key and unquoted value.
fn string_entry(line: &str) -> Option<(&str, String)> {
    let (key, value) = line.split_once('=')?;
    let key = key.trim();
    let value = value.trim();
    let quote = value.chars().next().filter(|q| *q == '"' || *q == '\'')?;
    let end = value[1..].find(quote)? + 1;
    Some((key, value[1..end].to_string()))
}

/// A quoted table name's inside (`profiles."my profile"`).
fn unquote(name: &str) -> Option<&str> {
    name.strip_prefix('"')?.strip_suffix('"')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_and_provider_codex_will_use() {
        let custom = CodexConfig::read(
            "model_provider = \"mine\" # a comment\n\n[model_providers.mine]\nname = \"mine\"\nbase_url = \"http://127.0.0.1:8080/v1\"\nmodel = \"not this one\"\n",
        );
        assert_eq!(custom.provider.as_deref(), Some("mine"));
        assert_eq!(
            custom.model, None,
            "a provider table's keys are not codex's model"
        );
        assert_eq!(custom.custom_provider(), Some("mine"));
        let given = CodexConfig::read("model = 'qwen3'\nmodel_provider = \"mine\"\n");
        assert_eq!(given.model.as_deref(), Some("qwen3"));
        let default = CodexConfig::read("");
        assert_eq!(default, CodexConfig::default());
        assert_eq!(default.custom_provider(), None);
        assert_eq!(
            CodexConfig::read("model_provider = \"openai\"\n").custom_provider(),
            None
        );
    }

    #[test]
    fn the_chosen_profile_overrides_the_top_level() {
        let config = CodexConfig::read(
            "model = \"gpt-5\"\nprofile = \"local\"\n\n[profiles.local]\nmodel_provider = \"mine\"\nmodel = \"qwen3\"\n\n[profiles.other]\nmodel = \"o3\"\n",
        );
        assert_eq!(config.model.as_deref(), Some("qwen3"));
        assert_eq!(config.provider.as_deref(), Some("mine"));
        assert_eq!(config.profile.as_deref(), Some("local"));
        let unchosen = CodexConfig::read("model = \"gpt-5\"\n[profiles.other]\nmodel = \"o3\"\n");
        assert_eq!(unchosen.model.as_deref(), Some("gpt-5"));
    }
}
