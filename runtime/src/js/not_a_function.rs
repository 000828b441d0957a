//! QuickJS says only "not a function" when code calls something that is not one
//! (`wf.agents.opne(...)`). This names what the author called, as written: the member path at
//! the position QuickJS gives the call's frame (the property name), read from the source, so the
//! error says `wf.agents.opne is not a function` and points there.

use crate::upcall::{Frame, JsError, Location};

/// `error` naming the callee, when it is QuickJS's bare "not a function" thrown in the author's
/// code and the source there holds a name; else `error` as it is.
pub fn name_the_callee(mut error: JsError) -> JsError {
    if error.name != "TypeError" || error.message != "not a function" || error.location.is_some() {
        return error;
    }
    let Some(frame) = error
        .stack
        .lines()
        .filter_map(Frame::parse)
        .find(|f| !f.file.starts_with("awf:") && f.file != "native")
    else {
        return error;
    };
    let Ok(source) = std::fs::read_to_string(frame.file) else {
        return error;
    };
    let Some(text) = source.lines().nth(frame.line.saturating_sub(1) as usize) else {
        return error;
    };
    let Some((path, start)) = callee_at(text, frame.col.saturating_sub(1) as usize) else {
        return error;
    };
    let last = path.rsplit('.').next().unwrap_or(&path).to_string();
    error.message = format!("{path} is not a function");
    error.location = Some(Location {
        file: frame.file.to_string(),
        line: frame.line,
        col: start as u32 + 1,
    });
    if error.hint.is_none() {
        error.hint = Some(format!(
            "check the spelling of `{last}`; docs/workflow-api.md lists what awf's objects have"
        ));
    }
    error
}

/// The member path (`wf.agents.opne`) whose last name starts at or around character `at` of
/// `line`, and the character where that last name starts.
fn callee_at(line: &str, at: usize) -> Option<(String, usize)> {
    let chars: Vec<char> = line.chars().collect();
    let is_name = |c: char| c.is_alphanumeric() || c == '_' || c == '$' || c == '#';
    if !chars.get(at).copied().is_some_and(is_name) {
        return None;
    }
    let mut start = at;
    while start > 0 && is_name(chars[start - 1]) {
        start -= 1;
    }
    let mut end = at;
    while end < chars.len() && is_name(chars[end]) {
        end += 1;
    }
    let mut from = start;
    while from > 1 && chars[from - 1] == '.' && is_name(chars[from - 2]) {
        let mut before = from - 1;
        while before > 0 && is_name(chars[before - 1]) {
            before -= 1;
        }
        from = before;
    }
    let path: String = chars[from..end].iter().collect();
    Some((path, start))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_callee_is_the_member_path_at_the_position() {
        let line = "    await wf.agents.opne({ key: \"a\" });";
        assert_eq!(callee_at(line, 20), Some(("wf.agents.opne".into(), 20)));
        assert_eq!(callee_at(line, 22), Some(("wf.agents.opne".into(), 20)));
        assert_eq!(callee_at("  helper();", 2), Some(("helper".into(), 2)));
        assert_eq!(callee_at("  (x)();", 2), None);
    }

    #[test]
    fn a_bare_not_a_function_names_what_was_called_and_points_there() {
        let dir = std::env::temp_dir().join(format!("awf-not-a-function-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("wf.ts");
        std::fs::write(
            &file,
            "export default 1;\n\n\n    await wf.agents.opne({});\n",
        )
        .unwrap();
        let mut error = JsError::message("TypeError", "not a function");
        error.stack = format!("    at run ({}:4:21)", file.display());
        let named = name_the_callee(error);
        assert_eq!(named.message, "wf.agents.opne is not a function");
        let at = named.location.unwrap();
        assert_eq!((at.line, at.col), (4, 21));
        assert!(named.hint.unwrap().contains("`opne`"));
        // Another TypeError is left as it is.
        let other = name_the_callee(JsError::message("TypeError", "x is not a function"));
        assert_eq!(other.message, "x is not a function");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
