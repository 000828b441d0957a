//! Reading an answer the way `wfa result` sends it: flags, or text or JSON on stdin.
//!
//! A text turn takes the text (the heredoc's final newline removed); a turn with a schema takes
//! flags or JSON by its shape (`schema::read_payload`, as a tool's input). Problems come back as
//! lines the agent can act on; the turn stays open for a corrected answer.

use serde_json::Value;

use crate::schema::{read_payload, Schema};

/// The answer's value, or one line per problem.
pub fn read(
    schema: Option<&Schema>,
    args: &[String],
    stdin: Option<&str>,
) -> Result<Value, Vec<String>> {
    match schema {
        None => read_text(args, stdin).map(Value::String),
        Some(schema) => read_value(schema, args, stdin),
    }
}

fn read_text(args: &[String], stdin: Option<&str>) -> Result<String, Vec<String>> {
    if args.iter().any(|a| a.starts_with("--")) {
        return Err(vec![
            "this turn's answer is text, not options: send it on standard input (<<'WF_JSON' ... WF_JSON)".into(),
        ]);
    }
    let text = if args.is_empty() {
        stdin
            .map(|s| s.strip_suffix('\n').unwrap_or(s).to_string())
            .unwrap_or_default()
    } else {
        args.join(" ")
    };
    if text.trim().is_empty() {
        return Err(vec![
            "the answer is empty; send the answer's text on standard input".into(),
        ]);
    }
    Ok(text)
}

fn read_value(schema: &Schema, args: &[String], stdin: Option<&str>) -> Result<Value, Vec<String>> {
    read_payload(schema, args, stdin)
        .map_err(|problems| problems.iter().map(ToString::to_string).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema(raw: Value) -> Schema {
        Schema::compile(raw).unwrap()
    }

    fn words(w: &[&str]) -> Vec<String> {
        w.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn text_answers_lose_the_heredoc_newline_only() {
        assert_eq!(
            read(None, &[], Some("two\nlines\n")).unwrap(),
            json!("two\nlines")
        );
        assert_eq!(
            read(None, &words(&["short", "text"]), None).unwrap(),
            json!("short text")
        );
        assert!(read(None, &[], Some("\n")).unwrap_err()[0].contains("empty"));
        assert!(read(None, &words(&["--x", "1"]), None).unwrap_err()[0].contains("not options"));
    }

    #[test]
    fn flat_answers_take_flags_or_json() {
        let s = schema(
            json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}, "required": ["n"]}),
        );
        assert_eq!(
            read(Some(&s), &words(&["--n", "3"]), None).unwrap(),
            json!({"n": 3})
        );
        assert_eq!(
            read(Some(&s), &[], Some("{\"n\": 4}\n")).unwrap(),
            json!({"n": 4})
        );
        assert_eq!(
            read(Some(&s), &words(&["--n", "0"]), None).unwrap_err(),
            vec!["value.n: expected integer ≥ 1; got 0"]
        );
        assert_eq!(
            read(Some(&s), &[], None).unwrap_err(),
            vec!["value.n: required, missing"]
        );
    }

    #[test]
    fn other_answers_take_json() {
        let s = schema(json!({"type": "array", "items": {"type": "string"}}));
        assert_eq!(read(Some(&s), &[], Some("[\"a\"]")).unwrap(), json!(["a"]));
        assert_eq!(
            read(Some(&s), &words(&["[\"b\"]"]), None).unwrap(),
            json!(["b"])
        );
        assert!(read(Some(&s), &[], Some("not json")).unwrap_err()[0].contains("not valid JSON"));
        assert!(read(Some(&s), &[], None).unwrap_err()[0].starts_with("nothing was sent"));
        assert!(read(Some(&s), &words(&["--a", "1"]), None).unwrap_err()[0]
            .contains("not given as options"));
    }
}
