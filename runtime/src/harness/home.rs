//! An agent's own CLI home: a folder of the run (`<run>/agents/<key>/home`) that the agent's CLI
//! reads its login from and writes its sessions to, instead of the user's `~/.codex`, `~/.claude`
//! and the like. A sandbox masks the user's homes and makes everything read-only but its write
//! paths, so a CLI in a box needs one (the box binds it writable); skills are installed into it.
//!
//! What is copied in is only what the CLI needs to log in and reach its model, taken from where
//! the user's CLI keeps it: the agent's own environment first (`CODEX_HOME`, `CLAUDE_CONFIG_DIR`,
//! ...), else the default under `$HOME`. Each file is copied (never linked: the box hides the
//! user's files), mode 0600, in a folder of mode 0700. The folder is kept across `--continue`,
//! so a resumed session finds its files; a file is copied again only when the user's is newer
//! (a login renewed since), so a credential the CLI refreshed in the home is not undone.

use std::fs;
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

/// The CLIs that have a home of their own, by the harness name.
pub const CLIS: &[&str] = &["codex", "claude", "pi", "gemini", "opencode"];

/// claude's `.claude.json` keys that say who is logged in and that the first run is over.
const CLAUDE_STATE_KEYS: &[&str] = &[
    "oauthAccount",
    "userID",
    "primaryApiKey",
    "customApiKeyResponses",
    "hasCompletedOnboarding",
    "lastOnboardingVersion",
];

/// claude's `settings.json` keys that say how it logs in and which endpoint and model it uses.
const CLAUDE_SETTINGS_KEYS: &[&str] = &[
    "env",
    "apiKeyHelper",
    "forceLoginMethod",
    "forceLoginOrgUUID",
    "awsAuthRefresh",
    "awsCredentialExport",
    "model",
];

/// Which CLI a home is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cli {
    Codex,
    Claude,
    Pi,
    Gemini,
    Opencode,
}

impl Cli {
    fn named(name: &str) -> Option<Cli> {
        Some(match name {
            "codex" => Cli::Codex,
            "claude" => Cli::Claude,
            "pi" => Cli::Pi,
            "gemini" => Cli::Gemini,
            "opencode" => Cli::Opencode,
            _ => return None,
        })
    }
}

/// One file the CLI needs, where the user keeps it and where the home gets it.
struct Seed {
    from: PathBuf,
    to: PathBuf,
    /// `Some`: only these keys of a JSON object are copied.
    keys: Option<&'static [&'static str]>,
}

/// An agent's own CLI home.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentHome {
    cli: Cli,
    dir: PathBuf,
}

impl AgentHome {
    /// Whether `cli` (a harness name) has a home of its own.
    pub fn supports(cli: &str) -> bool {
        Cli::named(cli).is_some()
    }

    /// Makes (or, on `--continue`, refreshes) the home of `cli` in `dir`, seeded from where the
    /// user's CLI keeps its login: `env` is the agent's environment (its spec's variables, then
    /// awf's own), which names the CLI's folder when it is not the default under `$HOME`.
    pub fn create(
        cli: &str,
        dir: &Path,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> io::Result<AgentHome> {
        let cli = Cli::named(cli).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{cli} has no CLI home of its own (those that do: {})",
                    CLIS.join(", ")
                ),
            )
        })?;
        let home = AgentHome {
            cli,
            dir: dir.to_path_buf(),
        };
        make_dir(dir)?;
        for seed in home.seeds(env) {
            if let Some(parent) = seed.to.parent() {
                make_dir(parent)?;
            }
            seed.copy()?;
        }
        if let Some(skills) = home.skills_dir() {
            make_dir(&skills)?;
        }
        Ok(home)
    }

    /// The home's folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The variables that point the CLI at this home (they win over the agent's own).
    pub fn env(&self) -> Vec<(String, String)> {
        let at = |path: PathBuf| path.display().to_string();
        let vars: Vec<(&str, String)> = match self.cli {
            Cli::Codex => vec![("CODEX_HOME", at(self.dir.clone()))],
            Cli::Claude => vec![("CLAUDE_CONFIG_DIR", at(self.dir.clone()))],
            Cli::Pi => vec![("PI_CODING_AGENT_DIR", at(self.dir.clone()))],
            Cli::Gemini => vec![("GEMINI_CLI_HOME", at(self.dir.clone()))],
            // Its cache too: opencode writes there at every start (the box makes the user's
            // read-only).
            Cli::Opencode => vec![
                ("XDG_CONFIG_HOME", at(self.dir.join("config"))),
                ("XDG_DATA_HOME", at(self.dir.join("data"))),
                ("XDG_STATE_HOME", at(self.dir.join("state"))),
                ("XDG_CACHE_HOME", at(self.dir.join("cache"))),
            ],
        };
        vars.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
    }

    /// Where the CLI finds the user's own skills, in this home: codex, claude and pi
    /// `<home>/skills`, gemini `<home>/.gemini/skills`, opencode `<XDG_CONFIG_HOME>/opencode/skills`.
    pub fn skills_dir(&self) -> Option<PathBuf> {
        Some(match self.cli {
            Cli::Codex | Cli::Claude | Cli::Pi => self.dir.join("skills"),
            Cli::Gemini => self.dir.join(".gemini/skills"),
            Cli::Opencode => self.dir.join("config/opencode/skills"),
        })
    }

    /// What the CLI needs copied in, from where the user's CLI keeps it.
    fn seeds(&self, env: &dyn Fn(&str) -> Option<String>) -> Vec<Seed> {
        let user_home = env("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
        let folder = |var: &str, default: &str| -> Option<PathBuf> {
            match env(var).filter(|v| !v.is_empty()) {
                Some(dir) => Some(PathBuf::from(dir)),
                None => user_home.as_ref().map(|h| h.join(default)),
            }
        };
        let whole = |from: &Option<PathBuf>, name: &str, to: PathBuf| {
            from.as_ref().map(|dir| Seed {
                from: dir.join(name),
                to,
                keys: None,
            })
        };
        let dir = &self.dir;
        let seeds: Vec<Option<Seed>> = match self.cli {
            Cli::Codex => {
                let from = folder("CODEX_HOME", ".codex");
                vec![
                    whole(&from, "auth.json", dir.join("auth.json")),
                    whole(&from, "config.toml", dir.join("config.toml")),
                ]
            }
            Cli::Claude => {
                let config_dir = env("CLAUDE_CONFIG_DIR").filter(|v| !v.is_empty());
                let from = folder("CLAUDE_CONFIG_DIR", ".claude");
                // `.claude.json` sits in CLAUDE_CONFIG_DIR when it is set, else in $HOME.
                let state = match &config_dir {
                    Some(dir) => Some(PathBuf::from(dir)),
                    None => user_home.clone(),
                };
                vec![
                    whole(&from, ".credentials.json", dir.join(".credentials.json")),
                    from.as_ref().map(|from| Seed {
                        from: from.join("settings.json"),
                        to: dir.join("settings.json"),
                        keys: Some(CLAUDE_SETTINGS_KEYS),
                    }),
                    state.map(|from| Seed {
                        from: from.join(".claude.json"),
                        to: dir.join(".claude.json"),
                        keys: Some(CLAUDE_STATE_KEYS),
                    }),
                ]
            }
            Cli::Pi => {
                let from = folder("PI_CODING_AGENT_DIR", ".pi/agent");
                ["auth.json", "models.json", "settings.json"]
                    .into_iter()
                    .map(|name| whole(&from, name, dir.join(name)))
                    .collect()
            }
            Cli::Gemini => {
                let from = folder("GEMINI_CLI_HOME", "").map(|h| h.join(".gemini"));
                ["oauth_creds.json", "google_accounts.json", "settings.json"]
                    .into_iter()
                    .map(|name| whole(&from, name, dir.join(".gemini").join(name)))
                    .collect()
            }
            Cli::Opencode => {
                let data = folder("XDG_DATA_HOME", ".local/share").map(|d| d.join("opencode"));
                let config = folder("XDG_CONFIG_HOME", ".config").map(|d| d.join("opencode"));
                let mut seeds = vec![whole(
                    &data,
                    "auth.json",
                    dir.join("data/opencode/auth.json"),
                )];
                for name in ["opencode.json", "opencode.jsonc", "config.json"] {
                    seeds.push(whole(&config, name, dir.join("config/opencode").join(name)));
                }
                seeds
            }
        };
        seeds.into_iter().flatten().collect()
    }
}

impl Seed {
    /// Copies the user's file into the home when it is there and the home has none, or an
    /// older one. A JSON file copied by keys that does not parse is left out.
    fn copy(&self) -> io::Result<()> {
        let Ok(source) = fs::metadata(&self.from) else {
            return Ok(());
        };
        if !source.is_file() || same_file(&self.from, &self.to) {
            return Ok(());
        }
        if let Ok(copied) = fs::symlink_metadata(&self.to) {
            let newer = match (source.modified(), copied.modified()) {
                (Ok(theirs), Ok(ours)) => theirs > ours,
                _ => true,
            };
            if copied.is_file() && !newer {
                return Ok(());
            }
        }
        let bytes = fs::read(&self.from)?;
        let bytes = match self.keys {
            None => bytes,
            Some(keys) => match only_keys(&bytes, keys) {
                Some(kept) => kept,
                None => return Ok(()),
            },
        };
        write_private(&self.to, &bytes)
    }
}

/// `bytes` (a JSON object) with only `keys`; `None` when it is not a JSON object.
fn only_keys(bytes: &[u8], keys: &[&str]) -> Option<Vec<u8>> {
    let Value::Object(all) = serde_json::from_slice::<Value>(bytes).ok()? else {
        return None;
    };
    let kept: Map<String, Value> = all
        .into_iter()
        .filter(|(key, _)| keys.contains(&key.as_str()))
        .collect();
    serde_json::to_vec_pretty(&Value::Object(kept)).ok()
}

/// Whether `a` and `b` are one file (the agent's env already names the home).
fn same_file(a: &Path, b: &Path) -> bool {
    matches!((fs::canonicalize(a), fs::canonicalize(b)), (Ok(a), Ok(b)) if a == b)
}

/// A folder of mode 0700 (its parents as needed).
fn make_dir(dir: &Path) -> io::Result<()> {
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

/// Writes `bytes` to `path`, mode 0600, whole: a new file renamed over whatever is there (a
/// link at `path` is replaced, never followed).
fn write_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let temp = path.with_file_name(format!(".{name}.awf-{}", std::process::id()));
    let _ = fs::remove_file(&temp);
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&temp)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    drop(file);
    fs::rename(&temp, path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;
    use std::os::unix::fs::PermissionsExt;

    /// A fresh folder for one test, removed at the end.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(name: &str) -> Scratch {
            let dir = std::env::temp_dir().join(format!("awf-home-{name}-{}", std::process::id()));
            let _ = fs::remove_dir_all(&dir);
            fs::create_dir_all(&dir).unwrap();
            Scratch(dir)
        }

        fn file(&self, path: &str, text: &str) -> PathBuf {
            let path = self.0.join(path);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(&path, text).unwrap();
            path
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    fn env_of(vars: &[(&str, PathBuf)]) -> impl Fn(&str) -> Option<String> {
        let vars: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.display().to_string()))
            .collect();
        move |name: &str| vars.get(name).cloned()
    }

    fn mode(path: &Path) -> u32 {
        fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn codex_gets_its_auth_and_config_from_its_codex_home_private_and_not_linked() {
        let s = Scratch::new("codex");
        s.file("state/auth.json", r#"{"token":"t"}"#);
        s.file("state/config.toml", "model = \"m\"\n");
        s.file("state/sessions/old.jsonl", "{}");
        let dir = s.0.join("run/agents/a/home");
        let env = env_of(&[
            ("CODEX_HOME", s.0.join("state")),
            ("HOME", s.0.join("user")),
        ]);
        let home = AgentHome::create("codex", &dir, &env).unwrap();
        assert_eq!(home.dir(), dir);
        assert_eq!(
            fs::read_to_string(dir.join("auth.json")).unwrap(),
            r#"{"token":"t"}"#
        );
        assert_eq!(
            fs::read_to_string(dir.join("config.toml")).unwrap(),
            "model = \"m\"\n"
        );
        assert!(!dir.join("sessions").exists(), "only the login is copied");
        assert_eq!(mode(&dir.join("auth.json")), 0o600);
        assert_eq!(mode(&dir), 0o700);
        assert!(!fs::symlink_metadata(dir.join("auth.json"))
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(
            home.env(),
            vec![("CODEX_HOME".to_string(), dir.display().to_string())]
        );
        assert_eq!(home.skills_dir(), Some(dir.join("skills")));
        assert!(dir.join("skills").is_dir());
    }

    #[test]
    fn without_the_variable_the_default_under_home_is_the_source() {
        let s = Scratch::new("default");
        s.file("user/.codex/auth.json", "A");
        s.file("user/.pi/agent/models.json", "M");
        s.file("user/.gemini/oauth_creds.json", "G");
        s.file("user/.local/share/opencode/auth.json", "O");
        s.file("user/.config/opencode/opencode.json", "C");
        let env = env_of(&[("HOME", s.0.join("user"))]);
        let codex = AgentHome::create("codex", &s.0.join("codex"), &env).unwrap();
        assert_eq!(
            fs::read_to_string(codex.dir().join("auth.json")).unwrap(),
            "A"
        );
        let pi = AgentHome::create("pi", &s.0.join("pi"), &env).unwrap();
        assert_eq!(
            fs::read_to_string(pi.dir().join("models.json")).unwrap(),
            "M"
        );
        let gemini = AgentHome::create("gemini", &s.0.join("gemini"), &env).unwrap();
        assert_eq!(
            fs::read_to_string(gemini.dir().join(".gemini/oauth_creds.json")).unwrap(),
            "G"
        );
        assert_eq!(gemini.skills_dir(), Some(s.0.join("gemini/.gemini/skills")));
        let opencode = AgentHome::create("opencode", &s.0.join("oc"), &env).unwrap();
        assert_eq!(
            fs::read_to_string(s.0.join("oc/data/opencode/auth.json")).unwrap(),
            "O"
        );
        assert_eq!(
            fs::read_to_string(s.0.join("oc/config/opencode/opencode.json")).unwrap(),
            "C"
        );
        let names: Vec<String> = opencode.env().into_iter().map(|(k, _)| k).collect();
        assert_eq!(
            names,
            [
                "XDG_CONFIG_HOME",
                "XDG_DATA_HOME",
                "XDG_STATE_HOME",
                "XDG_CACHE_HOME"
            ]
        );
        assert_eq!(
            opencode.skills_dir(),
            Some(s.0.join("oc/config/opencode/skills"))
        );
    }

    #[test]
    fn claude_gets_its_credentials_and_only_the_login_keys_of_its_json_files() {
        let s = Scratch::new("claude");
        s.file("user/.claude/.credentials.json", r#"{"claudeAiOauth":{}}"#);
        s.file(
            "user/.claude/settings.json",
            r#"{"env":{"ANTHROPIC_BASE_URL":"http://x"},"hooks":{"Stop":[]}}"#,
        );
        s.file(
            "user/.claude.json",
            r#"{"oauthAccount":{"a":1},"hasCompletedOnboarding":true,"projects":{"/secret":{}}}"#,
        );
        let env = env_of(&[("HOME", s.0.join("user"))]);
        let home = AgentHome::create("claude", &s.0.join("home"), &env).unwrap();
        let json = |name: &str| -> Value {
            serde_json::from_str(&fs::read_to_string(home.dir().join(name)).unwrap()).unwrap()
        };
        assert_eq!(
            json(".credentials.json"),
            serde_json::json!({"claudeAiOauth": {}})
        );
        assert_eq!(
            json("settings.json"),
            serde_json::json!({"env": {"ANTHROPIC_BASE_URL": "http://x"}})
        );
        assert_eq!(
            json(".claude.json"),
            serde_json::json!({"oauthAccount": {"a": 1}, "hasCompletedOnboarding": true})
        );
        assert_eq!(mode(&home.dir().join(".claude.json")), 0o600);
        assert_eq!(home.env()[0].0, "CLAUDE_CONFIG_DIR");

        // With CLAUDE_CONFIG_DIR set, .claude.json is read from inside it.
        s.file("conf/.claude.json", r#"{"userID":"u","projects":{}}"#);
        let env = env_of(&[
            ("HOME", s.0.join("user")),
            ("CLAUDE_CONFIG_DIR", s.0.join("conf")),
        ]);
        let moved = AgentHome::create("claude", &s.0.join("moved"), &env).unwrap();
        assert_eq!(
            fs::read_to_string(moved.dir().join(".claude.json")).unwrap(),
            "{\n  \"userID\": \"u\"\n}"
        );
        assert!(!moved.dir().join(".credentials.json").exists());
    }

    #[test]
    fn a_linked_source_is_copied_as_a_file_and_a_link_in_the_home_is_replaced() {
        let s = Scratch::new("links");
        let real = s.file("real/auth.json", "REAL");
        fs::create_dir_all(s.0.join("state")).unwrap();
        std::os::unix::fs::symlink(&real, s.0.join("state/auth.json")).unwrap();
        let dir = s.0.join("home");
        fs::create_dir_all(&dir).unwrap();
        let elsewhere = s.file("elsewhere.json", "KEEP");
        std::os::unix::fs::symlink(&elsewhere, dir.join("auth.json")).unwrap();
        let env = env_of(&[("CODEX_HOME", s.0.join("state"))]);
        AgentHome::create("codex", &dir, &env).unwrap();
        let copied = fs::symlink_metadata(dir.join("auth.json")).unwrap();
        assert!(copied.file_type().is_file());
        assert_eq!(fs::read_to_string(dir.join("auth.json")).unwrap(), "REAL");
        assert_eq!(fs::read_to_string(&elsewhere).unwrap(), "KEEP");
    }

    #[test]
    fn a_continued_run_keeps_the_homes_files_and_takes_only_a_newer_login() {
        let s = Scratch::new("continue");
        let auth = s.file("state/auth.json", "OLD");
        let dir = s.0.join("home");
        let env = env_of(&[("CODEX_HOME", s.0.join("state"))]);
        AgentHome::create("codex", &dir, &env).unwrap();
        fs::write(dir.join("auth.json"), "REFRESHED BY THE CLI").unwrap();
        fs::create_dir_all(dir.join("sessions")).unwrap();
        fs::write(dir.join("sessions/s.jsonl"), "{}").unwrap();
        AgentHome::create("codex", &dir, &env).unwrap();
        assert_eq!(
            fs::read_to_string(dir.join("auth.json")).unwrap(),
            "REFRESHED BY THE CLI"
        );
        assert!(dir.join("sessions/s.jsonl").is_file());
        // The user logs in again: their file is newer, and the home takes it.
        let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
        fs::write(&auth, "NEW LOGIN").unwrap();
        fs::File::options()
            .write(true)
            .open(&auth)
            .unwrap()
            .set_modified(later)
            .unwrap();
        AgentHome::create("codex", &dir, &env).unwrap();
        assert_eq!(
            fs::read_to_string(dir.join("auth.json")).unwrap(),
            "NEW LOGIN"
        );
    }

    #[test]
    fn the_home_itself_named_as_the_source_is_left_alone() {
        let s = Scratch::new("same");
        let dir = s.0.join("home");
        s.file("home/auth.json", "MINE");
        let env = env_of(&[("CODEX_HOME", dir.clone())]);
        AgentHome::create("codex", &dir, &env).unwrap();
        assert_eq!(fs::read_to_string(dir.join("auth.json")).unwrap(), "MINE");
    }

    #[test]
    fn a_runtime_without_a_cli_home_is_refused_naming_those_with_one() {
        let s = Scratch::new("none");
        let err = AgentHome::create("command", &s.0.join("home"), &|_| None).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        assert!(
            err.to_string()
                .contains("codex, claude, pi, gemini, opencode"),
            "{err}"
        );
        assert!(!AgentHome::supports("command"));
        assert!(AgentHome::supports("pi"));
    }

    #[test]
    fn nothing_to_copy_still_makes_the_home() {
        let s = Scratch::new("empty");
        let home = AgentHome::create("pi", &s.0.join("home"), &|_| None).unwrap();
        assert!(home.dir().is_dir());
        assert!(home.skills_dir().unwrap().is_dir());
        assert_eq!(
            fs::read_dir(home.dir()).unwrap().count(),
            1,
            "only the skills folder"
        );
    }
}
