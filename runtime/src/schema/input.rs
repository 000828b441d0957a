//! An agent's input as it arrives, made into a checked value: JSON text from standard input here,
//! option words in `flags`; what either reports is an [`InputProblem`] (problem.rs).

use serde_json::Value;

use super::problem::InputProblem;
use super::Schema;
use crate::limits::MAX_JSON_DEPTH;

/// An input as `wfa` sends it, read by the schema's shape: option words for a flat object
/// (`--name value`), else JSON on standard input — or, as the predecessor's
/// `wf result <id> '<json>'`, as one word. JSON on stdin is accepted for a flat object too.
pub fn read_payload(
    schema: &Schema,
    args: &[String],
    stdin: Option<&str>,
) -> Result<Value, Vec<InputProblem>> {
    let sent = stdin.filter(|text| !text.trim().is_empty());
    match (args, sent) {
        ([], Some(text)) => parse_json_payload(schema, text),
        ([], None) if schema.takes_flags() => super::flags::parse(schema, args),
        ([], None) => Err(vec![InputProblem::NoJson]),
        (_, _) if schema.takes_flags() => super::flags::parse(schema, args),
        ([json], _) if !json.starts_with("--") => parse_json_payload(schema, json),
        (_, _) => Err(vec![InputProblem::TakesJson]),
    }
}

/// Parses `text` as one JSON value and checks it against `schema`.
pub fn parse_json_payload(schema: &Schema, text: &str) -> Result<Value, Vec<InputProblem>> {
    let value: Value = serde_json::from_str(text).map_err(|error| {
        let detail = if text.trim().is_empty() {
            "it is empty".to_string()
        } else if error.to_string().starts_with("recursion limit exceeded") {
            format!("it is nested more than {MAX_JSON_DEPTH} levels deep, the limit")
        } else {
            error.to_string()
        };
        vec![InputProblem::NotJson { detail }]
    })?;
    let problems = schema.check(&value);
    if problems.is_empty() {
        Ok(value)
    } else {
        Err(problems.into_iter().map(InputProblem::from).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn lines(result: Result<Value, Vec<InputProblem>>) -> Vec<String> {
        result
            .unwrap_err()
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    fn labels() -> Schema {
        Schema::compile(json!({
            "type": "object",
            "properties": {
                "id": {"type": "string"},
                "labels": {"type": "array", "items": {"type": "string"}}
            },
            "required": ["id", "labels"]
        }))
        .unwrap()
    }

    #[test]
    fn the_depth_limit_is_the_one_in_limits() {
        let any = Schema::compile(json!({})).unwrap();
        let nested = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        assert!(parse_json_payload(&any, &nested(MAX_JSON_DEPTH)).is_ok());
        assert_eq!(
            lines(parse_json_payload(&any, &nested(MAX_JSON_DEPTH + 1))),
            [format!("the input is not valid JSON (it is nested more than {MAX_JSON_DEPTH} levels deep, the limit); send exactly one JSON value")]
        );
    }

    #[test]
    fn valid_json_that_fits_is_the_value() {
        let text = "{\"id\": \"b2\", \"labels\": [\"ops\", \"cron\"]}\n";
        assert_eq!(
            parse_json_payload(&labels(), text).unwrap(),
            json!({"id": "b2", "labels": ["ops", "cron"]})
        );
    }

    #[test]
    fn text_that_is_not_json_says_where_and_what_is_expected() {
        assert_eq!(
            lines(parse_json_payload(&labels(), "{\"id\": b2}")),
            ["the input is not valid JSON (expected value at line 1 column 8); send exactly one JSON value"]
        );
        assert_eq!(
            lines(parse_json_payload(&labels(), "{} {}")),
            ["the input is not valid JSON (trailing characters at line 1 column 4); send exactly one JSON value"]
        );
        assert_eq!(
            lines(parse_json_payload(&labels(), "\n")),
            ["the input is not valid JSON (it is empty); send exactly one JSON value"]
        );
    }

    #[test]
    fn json_that_does_not_fit_gives_field_lines() {
        assert_eq!(
            lines(parse_json_payload(
                &labels(),
                r#"{"id": 2, "labels": ["ops", 3]}"#
            )),
            [
                "value.id: expected text; got 2",
                "value.labels[1]: expected text; got 3"
            ]
        );
    }

    #[test]
    fn option_problems_read_as_one_line_each() {
        let unknown = InputProblem::UnknownOption {
            option: "--colour".into(),
            accepted: vec!["--file".into(), "--line".into()],
        };
        let none = InputProblem::UnknownOption {
            option: "--colour".into(),
            accepted: vec![],
        };
        let stray = InputProblem::StrayWords {
            words: vec!["is".into(), "never".into()],
        };
        assert_eq!(
            unknown.to_string(),
            "--colour: unknown option (accepted: --file, --line)"
        );
        assert_eq!(
            none.to_string(),
            "--colour: unknown option (this takes no options)"
        );
        assert_eq!(
            stray.to_string(),
            r#"unexpected words "is", "never": each value follows its --option; put a value with spaces in single quotes"#
        );
    }
}
