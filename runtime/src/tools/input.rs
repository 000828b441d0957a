//! A call's input from the words `wfa tool` sent: by the tool's schema (the same rules and
//! conversions as a turn's answer, `schema::read_payload`), or nothing for a tool without input.

use serde_json::Value;

use crate::schema::{read_payload, Schema};

/// The checked input, or one line per problem.
pub fn read(
    tool: &str,
    schema: Option<&Schema>,
    args: &[String],
    stdin: Option<&str>,
) -> Result<Value, Vec<String>> {
    match schema {
        Some(schema) => read_payload(schema, args, stdin)
            .map_err(|problems| problems.iter().map(ToString::to_string).collect()),
        // Whatever reached stdin is not for this tool (it takes none): a harness may hand its
        // commands an open pipe.
        None if args.is_empty() => Ok(Value::Object(Default::default())),
        None => Err(vec![format!(
            "{tool} takes no input; call it by its name alone"
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
        assert_eq!(
            read("f", Some(&flat), &[], Some("{\"line\": 2}")).unwrap(),
            json!({"line": 2})
        );
        let nested = Schema::compile(json!({"type": "object", "properties": {"labels": {"type": "array", "items": {"type": "string"}}}})).unwrap();
        assert_eq!(
            read("l", Some(&nested), &[], Some("{\"labels\": [\"ops\"]}\n")).unwrap(),
            json!({"labels": ["ops"]})
        );
        assert!(
            read("l", Some(&nested), &words(&["--labels", "x"]), None).unwrap_err()[0]
                .contains("not given as options")
        );
        assert!(read("l", Some(&nested), &[], None).unwrap_err()[0].starts_with("nothing was sent"));
    }
}
