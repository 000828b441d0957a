//! The one place the CLI prints an error that stops a command: `awf: <error>`, each cause
//! indented below it, then a blank line and `hint: ...` when awf knows what to do next (the
//! library's `Hint`, or one the command attached). `Failure` also carries the exit code.

use awf_runtime::Hint;

/// Why a command stopped, and its exit code.
pub struct Failure {
    error: anyhow::Error,
    hint: Option<String>,
    code: i32,
}

impl Failure {
    /// A usage error (exit 2): the command line asked for something that cannot be.
    pub fn usage(error: impl Into<anyhow::Error>) -> Failure {
        Failure {
            error: error.into(),
            hint: None,
            code: 2,
        }
    }

    /// Something went wrong running the command (exit 1).
    pub fn failed(error: impl Into<anyhow::Error>) -> Failure {
        Failure {
            code: 1,
            ..Failure::usage(error)
        }
    }

    /// A library error, with its hint.
    pub fn of(error: awf_runtime::Error, code: i32) -> Failure {
        Failure {
            hint: error.hint(),
            code,
            error: error.into(),
        }
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Failure {
        self.hint = Some(hint.into());
        self
    }

    /// Prints the failure on stderr; gives its exit code.
    pub fn report(self) -> i32 {
        eprintln!("{}", self.text());
        self.code
    }

    fn text(&self) -> String {
        let headline = self.error.to_string();
        let mut text = format!("awf: {headline}");
        for cause in self.error.chain().skip(1) {
            let cause = cause.to_string();
            // A cause the headline already quotes is not said twice.
            if !headline.contains(&cause) {
                text.push_str(&format!("\n  {cause}"));
            }
        }
        if let Some(hint) = &self.hint {
            text.push_str(&format!("\n\nhint: {hint}"));
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::{anyhow, Context};

    #[test]
    fn causes_are_indented_and_the_hint_follows_a_blank_line() {
        let error = Err::<(), _>(anyhow!("permission denied"))
            .context("cannot write report.xml")
            .unwrap_err();
        let failure = Failure::failed(error).with_hint("pass a --reporter-outfile you can write");
        assert_eq!(
            failure.text(),
            "awf: cannot write report.xml\n  permission denied\n\nhint: pass a --reporter-outfile you can write"
        );
        assert_eq!(failure.code, 1);
    }

    #[test]
    fn library_errors_bring_their_hint() {
        let error =
            awf_runtime::records::logs::find_run(std::path::Path::new("/nonexistent"), None)
                .unwrap_err();
        let failure = Failure::of(error.into(), 2);
        assert_eq!(
            failure.text(),
            "awf: no runs under /nonexistent/.awf/runs\n\nhint: `awf run` a workflow here first, or pass --cwd"
        );
    }
}
