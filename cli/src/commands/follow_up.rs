//! What `awf run` says after the run about where to go next: where its records are, the
//! `awf logs` command that shows them and the `awf run --continue` command that goes on with an
//! unfinished run. Each is written to work typed in the same shell: the workflow file as the user
//! gave it, their `--cwd` when they gave one, the records' folder from the shell's folder.

use std::path::{Path, PathBuf};

use awf_runtime::records::status::shell_word;

/// How the user started the run, as far as the commands after it need.
pub struct FollowUp {
    /// The workflow file, as given.
    file: PathBuf,
    /// `--cwd`, as given.
    cwd: Option<PathBuf>,
    /// The shell's folder, canonical (awf's own paths are).
    here: Option<PathBuf>,
}

impl FollowUp {
    pub fn new(file: &Path, cwd: Option<&Path>) -> FollowUp {
        FollowUp {
            file: file.to_path_buf(),
            cwd: cwd.map(Path::to_path_buf),
            here: std::env::current_dir()
                .ok()
                .and_then(|dir| std::fs::canonicalize(dir).ok()),
        }
    }

    /// `awf logs ID [--cwd DIR]`.
    pub fn logs(&self, id: &str) -> String {
        format!("awf logs {}{}", shell_word(id), self.cwd_flag())
    }

    /// `awf run FILE --continue ID [--cwd DIR]`.
    pub fn continue_run(&self, id: &str) -> String {
        format!(
            "awf run {} --continue {}{}",
            shell_word(&self.file.display().to_string()),
            shell_word(id),
            self.cwd_flag()
        )
    }

    /// The records' folder, from the shell's folder when it is under it.
    pub fn records(&self, dir: &Path) -> String {
        let shown = self
            .here
            .as_deref()
            .and_then(|here| dir.strip_prefix(here).ok())
            .unwrap_or(dir);
        shown.display().to_string()
    }

    fn cwd_flag(&self) -> String {
        match &self.cwd {
            Some(cwd) => format!(" --cwd {}", shell_word(&cwd.display().to_string())),
            None => String::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_carry_the_file_and_cwd_as_given() {
        let given = FollowUp {
            file: "examples/dead-code/tools.ts".into(),
            cwd: Some("examples/dead code".into()),
            here: Some("/w".into()),
        };
        assert_eq!(given.logs("r1"), "awf logs r1 --cwd 'examples/dead code'");
        assert_eq!(
            given.continue_run("r1"),
            "awf run examples/dead-code/tools.ts --continue r1 --cwd 'examples/dead code'"
        );
        assert_eq!(
            given.records(Path::new("/w/examples/dead code/.awf/runs/x/r1")),
            "examples/dead code/.awf/runs/x/r1"
        );
        let plain = FollowUp {
            file: "wf.ts".into(),
            cwd: None,
            here: Some("/w".into()),
        };
        assert_eq!(plain.logs("r1"), "awf logs r1");
        assert_eq!(plain.continue_run("r1"), "awf run wf.ts --continue r1");
        assert_eq!(plain.records(Path::new("/elsewhere/r1")), "/elsewhere/r1");
    }
}
