//! `wfa hook claude`: Claude Code's PreToolUse hook for an agent awf runs with claude
//! (runtime/src/harness/claude/mod.rs installs it with `--settings`).
//!
//! Claude Code reads the hook's decision on stdout. The hook allows a Bash command when it is
//! exactly one call of this agent's launcher — the path this wfa was started by, then `tool`,
//! `result`, `waiting` or `send`, then words that are plain (letters, digits, `_.,:/=+-@%`) or quoted
//! (single quotes, `'\''` for a quote inside; double quotes without `$`, `` ` ``, `\` or `!`),
//! and at most one `<<'WF_JSON'` heredoc at the end, closed by the last line. That is how awf's
//! prompts teach the agent to call, and Claude Code's own checker refuses such a heredoc when
//! its JSON holds a brace before a quote. For anything else the hook says nothing, so Claude
//! Code's own rules and the user's settings decide: no chain (`;`, `&&`, `|`), substitution,
//! redirection or second command is ever allowed here. It always exits 0: a failing hook must
//! not block the agent.

use std::io::Read;

use serde_json::{json, Value};

/// The most of the hook's input read (a tool call's input is bounded by the wire anyway).
const MAX_INPUT_BYTES: u64 = 4 * 1024 * 1024;

/// What the hook prints for `input` (Claude Code's PreToolUse JSON).
pub fn decide(launcher: &str, input: &str) -> String {
    let Ok(event) = serde_json::from_str::<Value>(input) else {
        return String::new();
    };
    let command = event["tool_input"]["command"].as_str().unwrap_or_default();
    if event["tool_name"] != "Bash" || !is_one_launcher_call(launcher, command) {
        return String::new();
    }
    let decision = json!({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "permissionDecisionReason": "one call of this agent's awf launcher",
        }
    });
    format!("{decision}\n")
}

/// Reads the hook's input from standard input.
pub fn read_input() -> String {
    let mut input = String::new();
    let _ = std::io::stdin()
        .take(MAX_INPUT_BYTES)
        .read_to_string(&mut input);
    input
}

/// Whether `command` is exactly one call of `launcher`, as described above.
fn is_one_launcher_call(launcher: &str, command: &str) -> bool {
    let Some(rest) = command.strip_prefix(launcher) else {
        return false;
    };
    let (line, heredoc) = match rest.split_once('\n') {
        Some((line, body)) => (line, Some(body)),
        None => (rest, None),
    };
    // The launcher's path ends where a blank follows it (`.../wfaevil` is another program).
    if !line.starts_with([' ', '\t']) {
        return false;
    }
    let mut words = Words { rest: line };
    let Some(first) = words.next() else {
        return false;
    };
    if !matches!(first, Word::Plain("tool" | "result" | "waiting" | "send")) {
        return false;
    }
    let mut opened_heredoc = false;
    for word in words.by_ref() {
        match word {
            Word::Plain(_) | Word::Quoted => {}
            Word::Heredoc if !opened_heredoc => opened_heredoc = true,
            Word::Heredoc | Word::Other => return false,
        }
    }
    if !words.rest.trim().is_empty() {
        return false;
    }
    match (opened_heredoc, heredoc) {
        (false, None) => true,
        (true, Some(body)) => heredoc_closes_at_end(body),
        _ => false,
    }
}

/// The heredoc's body ends with a `WF_JSON` line (and an optional newline), and no earlier line
/// closes it (nothing may follow the close).
fn heredoc_closes_at_end(body: &str) -> bool {
    let body = body.strip_suffix('\n').unwrap_or(body);
    let lines: Vec<&str> = body.split('\n').collect();
    match lines.split_last() {
        Some((last, before)) => *last == "WF_JSON" && !before.contains(&"WF_JSON"),
        None => false,
    }
}

/// One shell word of the command's first line, as far as the hook needs to tell.
#[derive(Debug, PartialEq)]
enum Word<'a> {
    /// Only safe characters, unquoted.
    Plain(&'a str),
    /// Safe characters and quoted strings, glued together.
    Quoted,
    /// `<<'WF_JSON'`.
    Heredoc,
    /// Anything else: an operator, a substitution, a redirection, a glob.
    Other,
}

struct Words<'a> {
    rest: &'a str,
}

impl<'a> Iterator for Words<'a> {
    type Item = Word<'a>;

    fn next(&mut self) -> Option<Word<'a>> {
        let trimmed = self.rest.trim_start_matches([' ', '\t']);
        if trimmed.is_empty() {
            self.rest = trimmed;
            return None;
        }
        if let Some(after) = trimmed.strip_prefix("<<'WF_JSON'") {
            self.rest = after;
            return Some(if after.is_empty() || after.starts_with([' ', '\t']) {
                Word::Heredoc
            } else {
                Word::Other
            });
        }
        let (word, after) = read_word(trimmed);
        self.rest = after;
        Some(word)
    }
}

/// The word at the start of `text` and what follows it.
fn read_word(text: &str) -> (Word<'_>, &str) {
    let mut quoted = false;
    let mut chars = text.char_indices().peekable();
    while let Some(&(at, c)) = chars.peek() {
        match c {
            ' ' | '\t' => {
                let word = &text[..at];
                return (classify(word, quoted), &text[at..]);
            }
            '\'' => {
                chars.next();
                quoted = true;
                if !chars.by_ref().any(|(_, c)| c == '\'') {
                    return (Word::Other, "");
                }
            }
            '"' => {
                chars.next();
                quoted = true;
                loop {
                    match chars.next() {
                        Some((_, '"')) => break,
                        Some((_, '$' | '`' | '\\' | '!')) | None => return (Word::Other, ""),
                        Some(_) => {}
                    }
                }
            }
            // `'\''`: a quote inside single quotes, written as the prompt teaches.
            '\\' => {
                chars.next();
                if chars.next().map(|(_, c)| c) != Some('\'') {
                    return (Word::Other, "");
                }
                quoted = true;
            }
            c if is_plain(c) => {
                chars.next();
            }
            _ => return (Word::Other, ""),
        }
    }
    (classify(text, quoted), "")
}

fn classify(word: &str, quoted: bool) -> Word<'_> {
    if quoted {
        Word::Quoted
    } else {
        Word::Plain(word)
    }
}

fn is_plain(c: char) -> bool {
    c.is_ascii_alphanumeric() || "_.,:/=+-@%".contains(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    const WFA: &str = "/tmp/awf-x/a1/wfa";

    fn allowed(command: &str) -> bool {
        let input = json!({"tool_name": "Bash", "tool_input": {"command": command}}).to_string();
        !decide(WFA, &input).is_empty()
    }

    #[test]
    fn the_forms_awf_teaches_are_allowed() {
        for command in [
            "/tmp/awf-x/a1/wfa tool",
            "/tmp/awf-x/a1/wfa tool list_findings",
            "/tmp/awf-x/a1/wfa tool add_finding --file 'src/report.ts' --line '41' --problem 'formatDate is never called'",
            "/tmp/awf-x/a1/wfa tool add --x 'it'\\''s'",
            "/tmp/awf-x/a1/wfa tool add --x \"plain double\"",
            "/tmp/awf-x/a1/wfa result t1 --ok 'true'",
            "/tmp/awf-x/a1/wfa result t2 <<'WF_JSON'\n{\"a\": 1}\nWF_JSON",
            "/tmp/awf-x/a1/wfa result t2 <<'WF_JSON'\n{\n  \"a\": \"it's\"\n}\nWF_JSON\n",
            "/tmp/awf-x/a1/wfa tool label_item <<'WF_JSON'\n{\"id\": \"b2\", \"labels\": [\"ops\"]}\nWF_JSON",
            "/tmp/awf-x/a1/wfa waiting t1 --reason 'the build takes a while' --timeout 5m",
            "/tmp/awf-x/a1/wfa send 'found 3 problems'",
            "/tmp/awf-x/a1/wfa send --json <<'WF_JSON'\n{\"n\": 3}\nWF_JSON",
            "/tmp/awf-x/a1/wfa  tool  add --x '1'",
        ] {
            assert!(allowed(command), "{command:?} should be allowed");
        }
    }

    #[test]
    fn anything_more_is_left_to_claude() {
        for command in [
            "/tmp/awf-x/a1/wfa tool add --x '1' && touch pwned.txt",
            "/tmp/awf-x/a1/wfa tool add --x '1'; touch pwned.txt",
            "/tmp/awf-x/a1/wfa tool add --x '1' | sh",
            "/tmp/awf-x/a1/wfa tool add --x \"$(whoami)\"",
            "/tmp/awf-x/a1/wfa tool add --x `whoami`",
            "/tmp/awf-x/a1/wfa tool add --x $HOME",
            "/tmp/awf-x/a1/wfa tool add --x '1' > out.txt",
            "/tmp/awf-x/a1/wfa tool add --x '1' 2>&1",
            "/tmp/awf-x/a1/wfa tool add --x 'unclosed",
            "/tmp/awf-x/a1/wfa result t2 <<'WF_JSON'\n{}\nWF_JSON\nrm -rf /",
            "/tmp/awf-x/a1/wfa result t2 <<'WF_JSON'\n{}\nWF_JSON\ntouch x\nWF_JSON",
            "/tmp/awf-x/a1/wfa result t2 <<WF_JSON\n{}\nWF_JSON",
            "/tmp/awf-x/a1/wfa result t2 <<'WF_JSON' <<'WF_JSON'\n{}\nWF_JSON",
            "/tmp/awf-x/a1/wfa result t2\ntouch x",
            "/tmp/awf-x/a1/wfaevil tool add",
            "/tmp/awf-x/a1/wfa rm -rf /",
            "/tmp/awf-x/a2/wfa tool add --x '1'",
            "touch /tmp/awf-x/a1/wfa",
            "/tmp/awf-x/a1/wfa tool add --x *",
            "/tmp/awf-x/a1/wfa tool add --x ~/secret",
        ] {
            assert!(!allowed(command), "{command:?} should be left to claude");
        }
    }

    #[test]
    fn only_bash_calls_are_decided() {
        let read = json!({"tool_name": "Read", "tool_input": {"command": format!("{WFA} tool")}});
        assert_eq!(decide(WFA, &read.to_string()), "");
        assert_eq!(decide(WFA, "not json"), "");
        let decision: Value = serde_json::from_str(&decide(
            WFA,
            &json!({"tool_name": "Bash", "tool_input": {"command": format!("{WFA} tool")}})
                .to_string(),
        ))
        .unwrap();
        assert_eq!(
            decision["hookSpecificOutput"]["permissionDecision"],
            "allow"
        );
        assert_eq!(
            decision["hookSpecificOutput"]["hookEventName"],
            "PreToolUse"
        );
    }
}
