//! Reporters: each reads the `TestEvent` stream of a run and nothing else.
//!
//! - `pretty`: bun's text, a line per test, failures with their code frame, diff and stack.
//! - `junit`: bun's JUnit XML (`--reporter junit --reporter-outfile F`).

pub mod junit;
pub mod pretty;

use std::path::Path;

use super::event::{TestEvent, TestFailure};

pub use junit::JunitReporter;
pub use pretty::{PrettyOptions, PrettyReporter};

/// Reads the events of a run, in order.
pub trait TestReporter {
    fn report(&mut self, event: &TestEvent);
}

/// A failure's frames a reader cares about: built-in (`awf:`) and native frames left out, paths
/// under `cwd` made relative.
pub fn user_frames(failure: &TestFailure, cwd: &Path) -> Vec<String> {
    let prefix = format!("{}/", cwd.display());
    failure
        .frames()
        .filter(|frame| !frame.contains("(awf:") && !frame.ends_with("(native)"))
        .map(|frame| {
            frame
                .replace(&format!("({prefix}"), "(")
                .replace(&format!("at {prefix}"), "at ")
        })
        .collect()
}

/// `path` relative to `cwd` when under it.
pub fn relative<'a>(path: &'a str, cwd: &Path) -> &'a str {
    Path::new(path)
        .strip_prefix(cwd)
        .ok()
        .and_then(|p| p.to_str())
        .unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_leave_out_built_ins_and_shorten_paths() {
        let failure = TestFailure {
            stack: Some(
                "at toBe (awf:test/expect:1:2)\n    at <anonymous> (/p/a.test.ts:3:9)\n    at /p/b.ts:1:1\n    at f (native)\n    at /q/c.ts:2:2"
                    .into(),
            ),
            ..TestFailure::message("Error", "x")
        };
        assert_eq!(
            user_frames(&failure, Path::new("/p")),
            [
                "at <anonymous> (a.test.ts:3:9)",
                "at b.ts:1:1",
                "at /q/c.ts:2:2"
            ]
        );
        assert_eq!(relative("/p/a/b.ts", Path::new("/p")), "a/b.ts");
        assert_eq!(relative("/q/b.ts", Path::new("/p")), "/q/b.ts");
    }
}
