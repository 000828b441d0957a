//! Runtime aliases: names for a CLI with a model and an effort, from awf's config files.
//!
//! Two files are read, the user's (`$XDG_CONFIG_HOME/awf/config.json`, else
//! `~/.config/awf/config.json`) and the project's (`<cwd>/.awf/config.json`); the nearer (the
//! project's) wins, alias by alias. Each holds `{ "runtimes": { "<name>": { "runtime": "claude",
//! "model"?: "haiku", "effort"?: "low" } } }`. A file that is not that is an error naming the
//! file, the line and what to write. registry.rs reads an agent's `runtime: "<name>"` or
//! `runtime: { alias: "<name>", model?, effort? }` through them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

/// One alias and the file it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Alias {
    /// The agent CLI it names (`claude`, `codex`, ...).
    pub runtime: String,
    pub model: Option<String>,
    pub effort: Option<String>,
    pub from: PathBuf,
}

impl Alias {
    /// As `awf doctor --json` shows it.
    pub fn to_json(&self, name: &str) -> Value {
        json!({ "name": name, "runtime": self.runtime, "model": self.model,
            "effort": self.effort, "from": self.from.display().to_string() })
    }
}

/// The aliases in effect, by name.
pub type Aliases = BTreeMap<String, Alias>;

/// A config file awf cannot use: where, and what to write.
#[derive(Debug, PartialEq, Eq)]
pub struct ConfigError {
    pub file: PathBuf,
    pub line: usize,
    pub column: usize,
    pub problem: String,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file.display(),
            self.line,
            self.column,
            self.problem
        )
    }
}

/// What a config file should look like, for the error's hint.
pub const CONFIG_HINT: &str = "write { \"runtimes\": { \"fast\": { \"runtime\": \"claude\", \"model\": \"haiku\", \"effort\": \"low\" } } }";

/// The config files awf reads, the farthest first: the user's, then the project's under `cwd`.
pub fn config_files(cwd: &Path) -> Vec<PathBuf> {
    let user = match std::env::var_os("XDG_CONFIG_HOME").filter(|v| !v.is_empty()) {
        Some(dir) => Some(PathBuf::from(dir)),
        None => std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".config")),
    };
    let mut files: Vec<PathBuf> = user
        .map(|d| d.join("awf").join("config.json"))
        .into_iter()
        .collect();
    files.push(project_file(cwd));
    files
}

/// The project's config file: `<cwd>/.awf/config.json`.
pub fn project_file(cwd: &Path) -> PathBuf {
    cwd.join(".awf").join("config.json")
}

/// The aliases of the config files for `cwd`, the nearer winning; files that do not exist are
/// skipped.
pub fn load(cwd: &Path) -> Result<Aliases, ConfigError> {
    let mut aliases = Aliases::new();
    for file in config_files(cwd) {
        aliases.extend(load_file(&file)?);
    }
    Ok(aliases)
}

/// The aliases of the project's config file alone (none when it does not exist): what a test
/// reads, so that the project's aliases mean the same under `awf test` as under `awf run`
/// while the user's own file stays out of tests.
pub fn load_project(cwd: &Path) -> Result<Aliases, ConfigError> {
    load_file(&project_file(cwd))
}

/// The aliases of `file`; none when it does not exist.
fn load_file(file: &Path) -> Result<Aliases, ConfigError> {
    match std::fs::read_to_string(file) {
        Ok(text) => read(file, &text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Aliases::new()),
        Err(e) => Err(ConfigError {
            file: file.to_path_buf(),
            line: 1,
            column: 1,
            problem: format!("cannot read it: {e}"),
        }),
    }
}

/// The aliases of one file's `text`.
pub fn read(file: &Path, text: &str) -> Result<Aliases, ConfigError> {
    let at = |needle: Option<&str>, problem: String| {
        let offset = needle.and_then(|n| text.find(n)).unwrap_or(0);
        let line = text[..offset].matches('\n').count() + 1;
        let column = offset - text[..offset].rfind('\n').map_or(0, |i| i + 1) + 1;
        ConfigError {
            file: file.to_path_buf(),
            line,
            column,
            problem,
        }
    };
    let value: Value = serde_json::from_str(text).map_err(|e| ConfigError {
        file: file.to_path_buf(),
        line: e.line().max(1),
        column: e.column().max(1),
        problem: format!("not JSON: {e}"),
    })?;
    let Some(top) = value.as_object() else {
        return Err(at(None, "the file must hold a JSON object".into()));
    };
    if let Some(other) = top.keys().find(|k| *k != "runtimes") {
        let needle = format!("\"{other}\"");
        return Err(at(
            Some(&needle),
            format!("unknown key `{other}`: the file holds only `runtimes`"),
        ));
    }
    let mut aliases = Aliases::new();
    let Some(runtimes) = top.get("runtimes") else {
        return Ok(aliases);
    };
    let Some(runtimes) = runtimes.as_object() else {
        return Err(at(
            Some("\"runtimes\""),
            "`runtimes` must be an object of aliases by name".into(),
        ));
    };
    for (name, spec) in runtimes {
        let needle = format!("\"{name}\"");
        let alias =
            alias(spec, file).map_err(|why| at(Some(&needle), format!("alias `{name}`: {why}")))?;
        aliases.insert(name.clone(), alias);
    }
    Ok(aliases)
}

/// One alias of `spec` (`{ runtime, model?, effort? }`), defined in `from` (a config file, or a
/// test's `runtimes` option); the error says what is wrong with it.
pub fn alias(spec: &Value, from: &Path) -> Result<Alias, String> {
    let Some(fields) = spec.as_object() else {
        return Err("must be an object { runtime, model?, effort? }".into());
    };
    if let Some(other) = fields
        .keys()
        .find(|k| !["runtime", "model", "effort"].contains(&k.as_str()))
    {
        return Err(format!(
            "unknown key `{other}`; an alias has runtime, model and effort"
        ));
    }
    let word = |key: &str| -> Result<Option<String>, String> {
        match fields.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if !s.trim().is_empty() => Ok(Some(s.clone())),
            Some(other) => Err(format!("`{key}` must be a non-empty string, not {other}")),
        }
    };
    let Some(runtime) = word("runtime")? else {
        return Err(
            "needs `runtime`, the agent CLI it names (codex, claude, gemini, pi, opencode)".into(),
        );
    };
    if super::registry::cli(&runtime).is_none() {
        return Err(format!(
            "`runtime` \"{runtime}\" is not an agent CLI awf drives (codex, claude, gemini, pi, opencode)"
        ));
    }
    Ok(Alias {
        runtime,
        model: word("model")?,
        effort: word("effort")?,
        from: from.to_path_buf(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str) -> PathBuf {
        PathBuf::from(format!("/home/u/{name}"))
    }

    #[test]
    fn an_alias_names_a_cli_with_a_model_and_an_effort() {
        let aliases = read(
            &file("a.json"),
            r#"{ "runtimes": { "fast": { "runtime": "claude", "model": "haiku", "effort": "low" } } }"#,
        )
        .unwrap();
        assert_eq!(
            aliases["fast"],
            Alias {
                runtime: "claude".into(),
                model: Some("haiku".into()),
                effort: Some("low".into()),
                from: file("a.json"),
            }
        );
        assert!(read(&file("a.json"), "{}").unwrap().is_empty());
    }

    #[test]
    fn the_nearer_file_wins_alias_by_alias() {
        let home = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        let user = home.path().join("awf");
        std::fs::create_dir_all(&user).unwrap();
        std::fs::write(
            user.join("config.json"),
            r#"{"runtimes": {"fast": {"runtime": "claude", "model": "haiku"}, "deep": {"runtime": "codex"}}}"#,
        )
        .unwrap();
        std::fs::create_dir_all(project.path().join(".awf")).unwrap();
        std::fs::write(
            project.path().join(".awf/config.json"),
            r#"{"runtimes": {"fast": {"runtime": "pi", "model": "m"}}}"#,
        )
        .unwrap();
        let mut aliases = Aliases::new();
        for f in [
            user.join("config.json"),
            project.path().join(".awf/config.json"),
        ] {
            aliases.extend(read(&f, &std::fs::read_to_string(&f).unwrap()).unwrap());
        }
        assert_eq!(aliases["fast"].runtime, "pi");
        assert_eq!(
            aliases["fast"].from,
            project.path().join(".awf/config.json")
        );
        assert_eq!(aliases["deep"].runtime, "codex");
    }

    #[test]
    fn a_bad_file_names_the_line_and_what_is_wrong() {
        let error = read(
            &file("c.json"),
            "{\n  \"runtimes\": {\n    \"fast\": {\"model\": \"x\"}\n  }\n}",
        )
        .unwrap_err();
        assert_eq!((error.line, error.column), (3, 5));
        assert!(
            error.problem.contains("alias `fast`: needs `runtime`"),
            "{error}"
        );
        let error = read(&file("c.json"), "{\n  \"runtimes\": {\n").unwrap_err();
        assert_eq!(error.line, 3, "{error}");
        assert!(error.problem.starts_with("not JSON"), "{error}");
        let error = read(&file("c.json"), r#"{"aliases": {}}"#).unwrap_err();
        assert!(error.problem.contains("unknown key `aliases`"), "{error}");
        let error = read(
            &file("c.json"),
            r#"{"runtimes": {"x": {"runtime": "vim"}}}"#,
        )
        .unwrap_err();
        assert!(error.problem.contains("not an agent CLI"), "{error}");
        assert_eq!(
            error.to_string(),
            format!("/home/u/c.json:1:15: {}", error.problem)
        );
    }
}
