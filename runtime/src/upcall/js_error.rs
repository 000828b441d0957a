//! An error thrown in workflow code, as plain data: what a person needs of it and the one way
//! awf prints it.
//!
//! `JsError` keeps the name, message, the stack (already at .ts positions, see
//! js/host/stack.ts), the `code` and `hint` of awf's own errors, and where a syntax or resolve
//! error was written. `render` prints it: the message, a code frame when the position is known,
//! the user's frames (built-in `awf:` frames are left out), then the hint. The engine reads
//! thrown values into it (js/errors.rs); everything else reads it as data.

use std::fmt::Write;
use std::path::Path;

/// Where in a source file an error was written (1-based).
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize)]
pub struct Location {
    pub file: String,
    pub line: u32,
    pub col: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsError {
    pub name: String,
    pub message: String,
    /// The `at ...` lines, one per frame.
    pub stack: String,
    pub code: Option<String>,
    pub hint: Option<String>,
    pub location: Option<Location>,
    /// The error came from a promise nobody handled.
    pub unhandled: bool,
}

impl JsError {
    pub fn message(name: &str, message: &str) -> JsError {
        JsError {
            name: name.to_string(),
            message: message.to_string(),
            stack: String::new(),
            code: None,
            hint: None,
            location: None,
            unhandled: false,
        }
    }

    /// A failure of awf itself, not of the user's code.
    pub fn internal(message: &str) -> JsError {
        JsError::message("InternalError", message)
    }

    pub fn with_code(mut self, code: &str) -> JsError {
        self.code = Some(code.to_string());
        self
    }

    pub fn with_hint(mut self, hint: &str) -> JsError {
        self.hint = Some(hint.to_string());
        self
    }

    pub fn unhandled_rejection(mut self) -> JsError {
        self.unhandled = true;
        self
    }

    /// The first line: `Name: message`, or just the message for awf's own errors.
    pub fn headline(&self) -> String {
        match (self.name.as_str(), self.message.is_empty()) {
            ("AwfError", false) => self.message.clone(),
            (_, true) => self.name.clone(),
            (name, false) => format!("{name}: {}", self.message),
        }
    }

    /// Where the error was thrown in the user's code: its location, else the first frame of its
    /// stack outside awf's built-ins, as `file:line:col`.
    pub fn thrown_at(&self) -> Option<String> {
        if let Some(location) = &self.location {
            return Some(format!(
                "{}:{}:{}",
                location.file, location.line, location.col
            ));
        }
        self.stack
            .lines()
            .filter(|l| !l.contains("(awf:") && !l.contains("(native)"))
            .find_map(|frame| {
                let frame = frame.trim().strip_prefix("at ")?;
                let at = match frame.rsplit_once(" (") {
                    Some((_, inner)) => inner.strip_suffix(')')?,
                    None => frame,
                };
                (!at.starts_with("awf:")).then(|| at.to_string())
            })
    }

    /// The full text for a terminal: headline, code frame, user frames, hint. Paths under `base`
    /// are shown relative to it.
    pub fn render(&self, base: &Path) -> String {
        let mut out = self.headline();
        if let Some(location) = &self.location {
            let at = format!(
                "{}:{}:{}",
                relative(&location.file, base),
                location.line,
                location.col
            );
            if !out.contains(&at) {
                out = format!("{at}: {out}");
            }
            if let Some(frame) = code_frame(location) {
                out.push('\n');
                out.push_str(&frame);
            }
        }
        let frames: Vec<String> = self
            .stack
            .lines()
            .filter(|l| !l.contains("(awf:") && !l.contains("(native)"))
            .map(|l| relativize_frame(l, base))
            .collect();
        if !frames.is_empty() && self.location.is_none() {
            out.push('\n');
            out.push_str(&frames.join("\n"));
        }
        if let Some(hint) = &self.hint {
            let _ = write!(out, "\n\nhint: {hint}");
        }
        out
    }
}

impl std::fmt::Display for JsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.headline())
    }
}

/// One `at function (file:line:col)` line of a stack.
pub(crate) struct Frame<'a> {
    pub function: Option<&'a str>,
    pub file: &'a str,
    pub line: u32,
    pub col: u32,
}

impl<'a> Frame<'a> {
    pub fn parse(line: &'a str) -> Option<Frame<'a>> {
        let frame = line.trim().strip_prefix("at ")?;
        let (function, at) = match frame.strip_suffix(')').and_then(|f| f.rsplit_once(" (")) {
            Some((function, at)) => (Some(function), at),
            None => (None, frame),
        };
        if at == "native" {
            return Some(Frame {
                function,
                file: "native",
                line: 0,
                col: 0,
            });
        }
        let mut parts = at.rsplitn(3, ':');
        let col = parts.next()?.parse().ok()?;
        let line = parts.next()?.parse().ok()?;
        Some(Frame {
            function,
            file: parts.next()?,
            line,
            col,
        })
    }
}

/// ` 2 | source line` and a caret line under the error's column, from the file on disk.
fn code_frame(location: &Location) -> Option<String> {
    if location.file.starts_with("awf:") {
        return None;
    }
    let source = std::fs::read_to_string(&location.file).ok()?;
    let text = source.lines().nth(location.line.checked_sub(1)? as usize)?;
    let number = location.line.to_string();
    let pad = " ".repeat(number.len());
    let caret_at: usize = text
        .chars()
        .take(location.col.saturating_sub(1) as usize)
        .map(|c| if c == '\t' { 4 } else { 1 })
        .sum();
    let shown = text.replace('\t', "    ");
    let width = caret_width(&shown, caret_at);
    Some(format!(
        " {number} | {shown}\n {pad} | {}{}",
        " ".repeat(caret_at),
        "^".repeat(width)
    ))
}

/// Underline a quoted string or a word at `at`; at least one caret.
fn caret_width(line: &str, at: usize) -> usize {
    let rest: Vec<char> = line.chars().skip(at).collect();
    match rest.first() {
        Some(&q @ ('"' | '\'' | '`')) => rest[1..]
            .iter()
            .position(|&c| c == q)
            .map(|end| end + 2)
            .unwrap_or(1),
        Some(c) if c.is_alphanumeric() || *c == '_' || *c == '$' => rest
            .iter()
            .take_while(|c| c.is_alphanumeric() || **c == '_' || **c == '$')
            .count(),
        _ => 1,
    }
}

fn relative(file: &str, base: &Path) -> String {
    Path::new(file)
        .strip_prefix(base)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| file.to_string())
}

fn relativize_frame(frame: &str, base: &Path) -> String {
    let prefix = format!("{}/", base.display());
    frame.replace(&format!("({prefix}"), "(")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn where_an_error_was_thrown_is_its_first_user_frame() {
        let mut error = JsError::message("Error", "the disk is full");
        error.stack = "    at <anonymous> (awf:agentswf/workflow:3:9)\n    at handler (/w/wf.ts:11:19)\n    at run (/w/wf.ts:20:3)".into();
        assert_eq!(error.thrown_at().as_deref(), Some("/w/wf.ts:11:19"));
        error.stack = "    at /w/lib.ts:2:5".into();
        assert_eq!(error.thrown_at().as_deref(), Some("/w/lib.ts:2:5"));
        error.stack = String::new();
        assert_eq!(error.thrown_at(), None);
    }

    #[test]
    fn renders_a_code_frame_under_the_specifier() {
        let dir = tempfile_dir();
        let file = dir.join("wf.ts");
        std::fs::write(
            &file,
            "const a = 1;\nimport { x } from \"agentswf/test\";\n",
        )
        .unwrap();
        let error = JsError {
            location: Some(Location {
                file: file.display().to_string(),
                line: 2,
                col: 19,
            }),
            ..JsError::message(
                "AwfError",
                "cannot resolve \"agentswf/test\" from wf.ts:2:19",
            )
        }
        .with_hint("did you mean \"agentswf/testing\"?");
        assert_eq!(
            error.render(&dir),
            "cannot resolve \"agentswf/test\" from wf.ts:2:19\n 2 | import { x } from \"agentswf/test\";\n   |                   ^^^^^^^^^^^^^^^\n\nhint: did you mean \"agentswf/testing\"?"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn leaves_out_built_in_frames_and_shortens_paths() {
        let error = JsError {
            stack: "    at boom (/work/p/wf.ts:3:9)\n    at run (awf:runner:10:3)".into(),
            ..JsError::message("Error", "boom")
        };
        assert_eq!(
            error.render(Path::new("/work/p")),
            "Error: boom\n    at boom (wf.ts:3:9)"
        );
    }

    fn tempfile_dir() -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("awf-errors-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }
}
