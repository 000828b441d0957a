//! A call's input from the words `wfa tool` sent: flags for a small flat input, JSON on stdin
//! otherwise, nothing for a tool without input. Same rules and conversions as a turn's answer.

use serde_json::Value;

use crate::schema::{flags, parse_json_payload, InputProblem, Schema};

/// The checked input, or one line per problem.
pub fn read(
    tool: &str,
    schema: Option<&Schema>,
    args: &[String],
    stdin: Option<&str>,
) -> Result<Value, Vec<String>> {
    let Some(schema) = schema else {
        // Whatever reached stdin is not for this tool (it takes none): a harness may hand its
        // commands an open pipe.
        if args.is_empty() {
            return Ok(Value::Object(Default::default()));
        }
        return Err(vec![format!(
            "{tool} takes no input; call it by its name alone"
        )]);
    };
    let lines =
        |problems: Vec<InputProblem>| problems.iter().map(ToString::to_string).collect::<Vec<_>>();
    if !args.is_empty() {
        if schema.takes_flags() {
            return flags::parse(schema, args).map_err(lines);
        }
        if let [json] = args {
            if !json.starts_with("--") {
                return parse_json_payload(schema, json).map_err(lines);
            }
        }
        return Err(vec![format!(
            "{tool} takes its input as JSON on standard input (<<'WF_JSON' ... WF_JSON), not as options"
        )]);
    }
    match stdin {
        Some(text) if !text.trim().is_empty() => parse_json_payload(schema, text).map_err(lines),
        _ if schema.takes_flags() => flags::parse(schema, args).map_err(lines),
        _ => Err(vec![format!(
            "{tool} needs its input as JSON on standard input (<<'WF_JSON' ... WF_JSON)"
        )]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn words(w: &[&str]) -> Vec<String> {
        w.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_tool_without_input_takes_nothing() {
        assert_eq!(read("list", None, &[], None).unwrap(), json!({}));
        assert_eq!(
            read("list", None, &[], Some("leftover prompt")).unwrap(),
            json!({})
        );
        assert_eq!(
            read("list", None, &words(&["--x", "1"]), None).unwrap_err(),
            vec!["list takes no input; call it by its name alone"]
        );
    }

    #[test]
    fn flags_and_json_by_schema() {
        let flat = Schema::compile(json!({"type": "object", "properties": {"line": {"type": "integer", "minimum": 1}}, "required": ["line"]})).unwrap();
        assert_eq!(
            read("f", Some(&flat), &words(&["--line", "41"]), None).unwrap(),
            json!({"line": 41})
        );
        assert_eq!(
            read("f", Some(&flat), &words(&["--line", "0"]), None).unwrap_err(),
            vec!["value.line: expected integer ≥ 1; got 0"]
        );
        let nested = Schema::compile(json!({"type": "object", "properties": {"labels": {"type": "array", "items": {"type": "string"}}}})).unwrap();
        assert_eq!(
            read("l", Some(&nested), &[], Some("{\"labels\": [\"ops\"]}\n")).unwrap(),
            json!({"labels": ["ops"]})
        );
        assert!(
            read("l", Some(&nested), &words(&["--labels", "x"]), None).unwrap_err()[0]
                .contains("as JSON on standard input")
        );
        assert!(read("l", Some(&nested), &[], None).unwrap_err()[0].contains("needs its input"));
    }
}
