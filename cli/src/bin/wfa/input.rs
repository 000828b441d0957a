//! A request's standard input: which requests take it (`tool <name>` and `result <turn>` with no
//! words after them, and `send` without a text or with `--json`), where it goes in the request,
//! the question that tells whether a slow producer is worth waiting for, and a `send` that got
//! nothing to send. Reading it is `stdin.rs`'s.

use crate::args::UsageError;
use crate::output::Output;
use crate::wire::Request;

/// The question whose answer says whether `request`'s input may come slowly on stdin.
pub fn expects_request(request: &Request) -> Option<Request> {
    match request {
        Request::Tool { name, .. } => Some(Request::Expects {
            tool: Some(name.clone()),
            turn: None,
        }),
        Request::Result { turn, .. } => Some(Request::Expects {
            tool: None,
            turn: Some(turn.clone()),
        }),
        _ => None,
    }
}

/// Where standard input goes, for a request that may take it: `tool <name>` and
/// `result <turn>` with no words after them.
pub fn stdin_slot(request: &mut Request) -> Option<&mut Option<String>> {
    match request {
        Request::Tool { args, stdin, .. } | Request::Result { args, stdin, .. }
            if args.is_empty() =>
        {
            Some(stdin)
        }
        // `send --json`: the data (a placeholder until stdin fills it); `send` alone: the text.
        Request::Send { text, data } => {
            if data.is_some() {
                Some(data)
            } else if text.is_none() {
                Some(text)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// `send --json` whose standard input brought no JSON, or `send` with neither words nor text on
/// standard input: a usage error, nothing sent.
pub fn nothing_to_send(request: &Request, wants_json: bool) -> Option<Output> {
    let message = match request {
        Request::Send { data: None, .. } if wants_json => {
            "--json takes the data on standard input, and none came; send it in a quoted heredoc:\n\n  wfa send --json <<'WF_JSON'\n  {\"key\": \"value\"}\n  WF_JSON".to_owned()
        }
        Request::Send {
            data: None,
            text: None,
        } => "give the text as a word, send '<text>', or on standard input".to_owned(),
        _ => return None,
    };
    Some(UsageError::new("send", message).render())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::{parse, Invocation};
    use crate::refusal::Exit;

    #[test]
    fn only_a_call_without_words_reads_stdin() {
        let takes = |line: &str| {
            let words = line.split_whitespace().map(String::from).collect();
            match parse(words).unwrap() {
                Invocation::Send { mut request, .. } => stdin_slot(&mut request).is_some(),
                _ => unreachable!(),
            }
        };
        assert!(takes("tool label_item"));
        assert!(takes("result t3"));
        assert!(!takes("tool"));
        assert!(!takes("tool add_finding --line 3"));
        assert!(!takes("result t3 --verdict ok"));
        assert!(!takes("waiting t3 --reason r"));
        assert!(takes("send"));
        assert!(takes("send --json"));
        assert!(takes("send found --json"));
        assert!(!takes("send found it"));
    }

    #[test]
    fn a_send_with_nothing_to_send_is_a_usage_error() {
        let missing = Request::Send {
            text: Some("t".into()),
            data: None,
        };
        let output = nothing_to_send(&missing, true).unwrap();
        assert_eq!(output.exit, Exit::Usage);
        assert!(output
            .stderr
            .starts_with("wfa: send: --json takes the data on standard input"));
        assert_eq!(nothing_to_send(&missing, false), None);
    }
}
