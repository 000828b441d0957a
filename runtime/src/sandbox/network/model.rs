//! Where each agent CLI reaches its model, so a sandbox always lets it through: the CLI's
//! default hosts, and the base URL its environment or config names (harnesses.md, "custom
//! endpoint"): codex `OPENAI_BASE_URL` and `base_url` / `openai_base_url` in
//! `$CODEX_HOME/config.toml`; claude `ANTHROPIC_BASE_URL`; gemini `GOOGLE_GEMINI_BASE_URL`,
//! `GOOGLE_VERTEX_BASE_URL`; pi `baseUrl` in `$PI_CODING_AGENT_DIR/models.json`; opencode
//! `options.baseURL` in `OPENCODE_CONFIG_CONTENT`. `Proxy::start` takes the result.

use std::path::PathBuf;

use serde_json::Value;

/// The hosts each CLI talks to by default (its API and its login).
fn defaults(cli: &str) -> &'static [&'static str] {
    match cli {
        "codex" => &[
            "https://api.openai.com/v1",
            "https://chatgpt.com/backend-api",
        ],
        "claude" => &["https://api.anthropic.com"],
        "gemini" => &[
            "https://generativelanguage.googleapis.com",
            "https://cloudcode-pa.googleapis.com",
            "https://oauth2.googleapis.com",
        ],
        "pi" | "opencode" => &[
            "https://api.anthropic.com",
            "https://api.openai.com/v1",
            "https://generativelanguage.googleapis.com",
        ],
        _ => &[],
    }
}

/// The model base URLs of `cli` as the agent will run it: `env` is the agent's environment
/// (its CLI home variables included).
pub fn model_urls(cli: &str, env: &dyn Fn(&str) -> Option<String>) -> Vec<String> {
    let mut urls: Vec<String> = defaults(cli).iter().map(|u| u.to_string()).collect();
    let variables: &[&str] = match cli {
        "codex" | "pi" | "opencode" => &["OPENAI_BASE_URL"],
        "claude" => &["ANTHROPIC_BASE_URL"],
        "gemini" => &["GOOGLE_GEMINI_BASE_URL", "GOOGLE_VERTEX_BASE_URL"],
        _ => &[],
    };
    urls.extend(variables.iter().filter_map(|v| env(v)));
    match cli {
        "codex" => {
            let home = env("CODEX_HOME")
                .map(PathBuf::from)
                .or_else(|| env("HOME").map(|h| PathBuf::from(h).join(".codex")));
            if let Some(text) =
                home.and_then(|h| std::fs::read_to_string(h.join("config.toml")).ok())
            {
                urls.extend(codex_base_urls(&text));
            }
        }
        "pi" => {
            let dir = env("PI_CODING_AGENT_DIR")
                .map(PathBuf::from)
                .or_else(|| env("HOME").map(|h| PathBuf::from(h).join(".pi/agent")));
            if let Some(text) =
                dir.and_then(|d| std::fs::read_to_string(d.join("models.json")).ok())
            {
                urls.extend(json_base_urls(&text, &["providers"], &["baseUrl"]));
            }
        }
        "opencode" => {
            if let Some(text) = env("OPENCODE_CONFIG_CONTENT") {
                urls.extend(json_base_urls(
                    &text,
                    &["provider"],
                    &["options", "baseURL"],
                ));
            }
        }
        _ => {}
    }
    urls.dedup();
    urls
}

/// `base_url = "..."` and `openai_base_url = "..."` anywhere in codex's config.toml.
fn codex_base_urls(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| {
            let (key, value) = line.split_once('=')?;
            let key = key.trim();
            if key != "base_url" && key != "openai_base_url" {
                return None;
            }
            let value = value.split('#').next()?.trim();
            let quoted = value.strip_prefix('"').and_then(|v| v.strip_suffix('"'));
            let quoted =
                quoted.or_else(|| value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')));
            quoted.map(str::to_string)
        })
        .collect()
}

/// Each provider's URL in a JSON config: `{ <table>: { <name>: { <path...>: url } } }`.
fn json_base_urls(text: &str, table: &[&str], path: &[&str]) -> Vec<String> {
    let Ok(config) = serde_json::from_str::<Value>(text) else {
        return Vec::new();
    };
    let Some(providers) = table
        .iter()
        .try_fold(&config, |v, k| v.get(k))
        .and_then(Value::as_object)
    else {
        return Vec::new();
    };
    providers
        .values()
        .filter_map(|p| {
            path.iter()
                .try_fold(p, |v, k| v.get(k))?
                .as_str()
                .map(str::to_string)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_cli_has_its_default_hosts_and_the_base_url_its_environment_names() {
        let env = |name: &str| {
            (name == "ANTHROPIC_BASE_URL").then(|| "http://127.0.0.1:18081".to_string())
        };
        let urls = model_urls("claude", &env);
        assert_eq!(
            urls,
            vec!["https://api.anthropic.com", "http://127.0.0.1:18081"]
        );
        assert!(model_urls("command", &env).is_empty());
    }

    #[test]
    fn codex_and_pi_base_urls_come_from_their_config_files() {
        let home = tempfile::tempdir().unwrap();
        std::fs::write(
            home.path().join("config.toml"),
            "model_provider = \"fake\"\n[model_providers.fake]\nbase_url = \"http://127.0.0.1:18080/v1\" # the fake\n",
        )
        .unwrap();
        std::fs::write(
            home.path().join("models.json"),
            r#"{"providers":{"fake":{"baseUrl":"http://127.0.0.1:18082/v1"}}}"#,
        )
        .unwrap();
        let dir = home.path().display().to_string();
        let env =
            |name: &str| matches!(name, "CODEX_HOME" | "PI_CODING_AGENT_DIR").then(|| dir.clone());
        assert!(model_urls("codex", &env).contains(&"http://127.0.0.1:18080/v1".to_string()));
        assert!(model_urls("pi", &env).contains(&"http://127.0.0.1:18082/v1".to_string()));
        let content =
            r#"{"provider":{"fake":{"options":{"baseURL":"http://127.0.0.1:18083/v1"}}}}"#;
        let env = |name: &str| (name == "OPENCODE_CONFIG_CONTENT").then(|| content.to_string());
        assert!(model_urls("opencode", &env).contains(&"http://127.0.0.1:18083/v1".to_string()));
    }
}
