//! The operator's sandbox: `awf run --agent-sandbox FILE.json` puts every agent of the run in
//! one sandbox, whatever the workflow says, and a workflow that opens its own is refused.
//!
//! The file holds the fields of an inline `sandbox` (`write`, `read`, `network`, `bwrap`/`srt`)
//! but not `key` (the sandbox is keyed `operator`) nor `cwd`: its paths start at the file's
//! folder, `~` is the user's home, and without `write` agents write the run's cwd. A mistake is
//! refused before the run starts, at the file's line and column, saying what to write. The
//! attempt records the file and what it held (`attempts/<n>.json`, `flags.agentSandbox`); a
//! `--continue` without the flag keeps that record, so editing or removing the file later
//! changes nothing of the run's confinement.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::{written_path, SandboxError, SandboxSpec};
use crate::hint::Hint;

/// The operator's sandbox's key, in records and errors.
pub const KEY: &str = "operator";

/// What an `--agent-sandbox` file may hold, as a hint says it.
const SHAPE: &str = r#"an --agent-sandbox file holds one JSON object with the fields of an inline sandbox, e.g. {"write": ["."], "read": ["~/src/lib"], "network": ["api.github.com"]}; paths start at the file's folder and ~ is your home"#;

/// The sandbox an operator gave with `--agent-sandbox`.
#[derive(Clone, Debug, PartialEq)]
pub struct OperatorSandbox {
    /// The file, absolute.
    pub file: PathBuf,
    /// The file's object, as read: recorded, and what `--continue` keeps.
    pub written: Value,
    /// `written` checked; its `write` is the run's cwd when the file names none.
    pub spec: SandboxSpec,
}

/// An `--agent-sandbox` file that cannot be used: where, what, and what to write.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--agent-sandbox {at}: {message}")]
pub struct FileError {
    /// `FILE:LINE:COL`, or the file alone when no place in it is at fault.
    pub at: String,
    pub message: String,
    pub hint: String,
}

impl Hint for FileError {
    fn hint(&self) -> Option<String> {
        Some(self.hint.clone())
    }
}

impl OperatorSandbox {
    /// Reads and checks `file` (absolute, or relative to the current directory): JSON, the
    /// spec's fields, and that every path it names exists (`cwd`: the run's, written when the
    /// file names no `write`; `home`: the user's, for `~`).
    pub fn read(
        file: &Path,
        cwd: &Path,
        home: Option<&Path>,
    ) -> Result<OperatorSandbox, FileError> {
        let file = file.to_path_buf();
        let shown = file.display().to_string();
        let whole = |message: String, hint: &str| FileError {
            at: shown.clone(),
            message,
            hint: hint.to_string(),
        };
        let text = std::fs::read_to_string(&file).map_err(|e| {
            whole(
                format!("cannot read it: {e}"),
                "give the path of a JSON file holding the agents' sandbox, relative to the current directory",
            )
        })?;
        let file = std::fs::canonicalize(&file).unwrap_or(file);
        let written: Value = serde_json::from_str(&text).map_err(|e| {
            let what = e.to_string();
            let what = what
                .rsplit_once(" at line ")
                .map_or(what.as_str(), |(w, _)| w);
            FileError {
                at: format!("{shown}:{}:{}", e.line(), e.column()),
                message: format!("not JSON: {what}"),
                hint: SHAPE.to_string(),
            }
        })?;
        let at = |needle: &str, is_key: bool| match position(&text, needle, is_key) {
            Some((line, column)) => format!("{shown}:{line}:{column}"),
            None => shown.clone(),
        };
        let operator = OperatorSandbox::from_written(file.clone(), written, cwd).map_err(|e| {
            let (needle, is_key) = culprit(&e);
            FileError {
                at: needle.map_or_else(|| format!("{shown}:1:1"), |n| at(&n, is_key)),
                message: e.to_string(),
                hint: e.hint().unwrap_or_else(|| SHAPE.to_string()),
            }
        })?;
        let folder = operator.folder();
        for (field, paths) in [
            ("read", operator.written.get("read")),
            ("write", operator.written.get("write")),
        ] {
            for path in paths
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
            {
                let resolved = written_path(path, &folder, home);
                if !resolved.exists() {
                    return Err(FileError {
                        at: at(path, false),
                        message: format!("{field} path {} does not exist", resolved.display()),
                        hint: format!("create it first, or leave it out; relative paths start at the file's folder ({}) and ~ is your home", folder.display()),
                    });
                }
            }
        }
        Ok(operator)
    }

    /// The operator's sandbox from what a file held (read now, or recorded by an earlier
    /// attempt); `cwd` is the run's, written when the file names no `write`.
    fn from_written(
        file: PathBuf,
        written: Value,
        cwd: &Path,
    ) -> Result<OperatorSandbox, SandboxError> {
        let place = "sandbox";
        for (field, why) in [
            ("key", "the operator's sandbox is keyed \"operator\""),
            ("cwd", "its paths start at the file's folder"),
        ] {
            if written.get(field).is_some() {
                return Err(SandboxError::NotForOperator { field, why });
            }
        }
        let mut spec = SandboxSpec::from_json(&written, place)?;
        if written.get("write").is_none() {
            spec.write = vec![cwd.display().to_string()];
        }
        Ok(OperatorSandbox {
            file,
            written,
            spec,
        })
    }

    /// What the attempt records: the file and what it held.
    pub fn to_record(&self) -> Value {
        json!({ "file": self.file, "spec": self.written })
    }

    /// The operator's sandbox an attempt recorded (`to_record`).
    pub fn from_record(record: &Value, cwd: &Path) -> Result<OperatorSandbox, String> {
        let file = record["file"]
            .as_str()
            .ok_or_else(|| "the record names no file".to_string())?;
        OperatorSandbox::from_written(PathBuf::from(file), record["spec"].clone(), cwd)
            .map_err(|e| e.to_string())
    }

    /// Where the file's relative paths start.
    pub fn folder(&self) -> PathBuf {
        self.file
            .parent()
            .map_or_else(|| PathBuf::from("/"), Path::to_path_buf)
    }
}

/// What in the file an error is about: a key (`true`) or a string value, when one is.
fn culprit(error: &SandboxError) -> (Option<String>, bool) {
    match error {
        SandboxError::UnknownOption { option, .. } => (Some(option.clone()), true),
        SandboxError::Container { provider, .. }
        | SandboxError::ProviderOptions { provider, .. } => (Some(provider.to_string()), true),
        SandboxError::NotText { field, .. } | SandboxError::NotPaths { field, .. } => {
            (Some(field.to_string()), true)
        }
        SandboxError::NotForOperator { field, .. } => (Some(field.to_string()), true),
        SandboxError::BadNetwork(_) => (Some("network".into()), true),
        SandboxError::BadHost { error, .. } => (Some(error.entry.clone()), false),
        _ => (None, false),
    }
}

/// The line and column (1-based, in characters) where `needle` is written in `text` as a JSON
/// string: as an object's key (followed by `:`) or as a value.
fn position(text: &str, needle: &str, is_key: bool) -> Option<(usize, usize)> {
    let quoted = serde_json::to_string(needle).ok()?;
    let mut from = 0;
    while let Some(found) = text[from..].find(&quoted) {
        let start = from + found;
        let after = text[start + quoted.len()..].trim_start();
        if after.starts_with(':') == is_key {
            let before = &text[..start];
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
            return Some((line, column));
        }
        from = start + quoted.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Folder(PathBuf);

    impl Drop for Folder {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn folder(name: &str) -> Folder {
        let dir = std::env::temp_dir().join(format!("awf-operator-{name}-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("out")).unwrap();
        Folder(std::fs::canonicalize(dir).unwrap())
    }

    fn read(dir: &Path, text: &str) -> Result<OperatorSandbox, FileError> {
        std::fs::write(dir.join("box.json"), text).unwrap();
        OperatorSandbox::read(&dir.join("box.json"), dir, None)
    }

    #[test]
    fn paths_start_at_the_files_folder_and_write_defaults_to_the_runs_cwd() {
        let dir = folder("ok");
        let operator = read(
            &dir.0,
            r#"{ "write": ["out"], "network": ["127.0.0.1:9"] }"#,
        )
        .unwrap();
        assert_eq!(operator.file, dir.0.join("box.json"));
        assert_eq!(operator.folder(), dir.0);
        assert_eq!(operator.spec.write, vec!["out"]);
        let record = operator.to_record();
        assert_eq!(record["spec"]["network"], json!(["127.0.0.1:9"]));
        assert_eq!(
            OperatorSandbox::from_record(&record, &dir.0).unwrap(),
            operator
        );
        let bare = read(&dir.0, "{}").unwrap();
        assert_eq!(bare.spec.write, vec![dir.0.display().to_string()]);
    }

    #[test]
    fn a_mistake_is_refused_at_its_line_and_column() {
        let dir = folder("bad");
        let shown = dir.0.join("box.json").display().to_string();
        let err = read(&dir.0, "{\n  \"write\": [\"out\"],\n  \"wirte\": []\n}").unwrap_err();
        assert_eq!(err.at, format!("{shown}:3:3"));
        assert!(
            err.message.contains("did you mean `write`"),
            "{}",
            err.message
        );
        let err = read(&dir.0, "{\n  \"write\": [\"out\",]\n}").unwrap_err();
        assert!(err.at.starts_with(&format!("{shown}:2:")), "{}", err.at);
        assert!(err.message.starts_with("not JSON: "), "{}", err.message);
        assert!(err.hint.contains("one JSON object"), "{}", err.hint);
        let err = read(&dir.0, "{\"write\": [\"out\", \"gone\"]}").unwrap_err();
        assert_eq!(err.at, format!("{shown}:1:19"));
        assert_eq!(
            err.message,
            format!("write path {} does not exist", dir.0.join("gone").display())
        );
        let err = read(&dir.0, "{ \"key\": \"mine\" }").unwrap_err();
        assert_eq!(err.at, format!("{shown}:1:3"));
        assert!(err.message.contains("`key`"), "{}", err.message);
        let err = read(&dir.0, "{ \"network\": [\"ok.org\", \"https://x.org/\"] }").unwrap_err();
        assert_eq!(err.at, format!("{shown}:1:25"));
        let err = read(&dir.0, "[]").unwrap_err();
        assert_eq!(err.at, format!("{shown}:1:1"));
        let missing = OperatorSandbox::read(&dir.0.join("none.json"), &dir.0, None).unwrap_err();
        assert_eq!(missing.at, dir.0.join("none.json").display().to_string());
        assert!(
            missing.message.starts_with("cannot read it: "),
            "{}",
            missing.message
        );
    }

    #[test]
    fn position_tells_a_key_from_a_value() {
        let text = "{\n \"a\": \"write\",\n \"write\": 1}";
        assert_eq!(position(text, "write", true), Some((3, 2)));
        assert_eq!(position(text, "write", false), Some((2, 7)));
        assert_eq!(position(text, "none", false), None);
    }
}
