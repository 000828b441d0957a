//! Compiling a JSON Schema with the `jsonschema` crate, and [`SchemaError`]: why a schema is
//! refused, said in one line that names the place in the schema.
//!
//! Options are fixed here: no retrieval (an external `$ref` is refused, never fetched), formats
//! checked, unknown formats refused (an unchecked `"format": "emial"` would be taught to the agent
//! as if it meant something). The dialect is the schema's `$schema`; without one, draft 2020-12,
//! except that a schema using the array form of `items` (typebox's `Type.Tuple`, draft-07 style,
//! with `additionalItems`) is read as draft 7, the last draft where that form means a tuple.
//! Checking values is `field_error`'s job.

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::{Draft, ValidationError, Validator};
use serde_json::Value;

use super::describe::format_words;
use super::field_error::compact;

/// Why a JSON Schema was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SchemaError {
    /// The schema breaks the JSON Schema rules; `at` is a JSON Pointer into it, empty for the root.
    #[error("invalid schema{}: {problem}", place(.at))]
    Invalid { at: String, problem: String },
    /// A `$ref` names a document outside the schema; `at` is where the `$ref` is, when found.
    #[error(
        "invalid schema{}: $ref \"{reference}\" is outside the schema; awf fetches no schemas, \
         so put it under $defs and refer to it as \"#/$defs/<name>\"",
        place(.at)
    )]
    ExternalRef { at: String, reference: String },
}

fn place(at: &str) -> String {
    if at.is_empty() {
        String::new()
    } else {
        format!(" at {at}")
    }
}

/// Builds the validator for `raw`, meta-validating it first (the crate does so on build).
pub(super) fn validator_for(raw: &Value) -> Result<Validator, SchemaError> {
    let mut options = jsonschema::options()
        .offline()
        .should_validate_formats(true)
        .should_ignore_unknown_formats(false);
    if raw.get("$schema").is_none() && uses_tuple_items(raw) {
        options = options.with_draft(Draft::Draft7);
    }
    options
        .build(raw)
        .map_err(|error| schema_error(raw, &error))
}

/// Whether any subschema of `schema` has an array as its `items` (a draft-07 tuple). Values
/// under keywords that hold data, not schemas (`const`, `enum`, `default`, `examples`), are not
/// looked at: `{"default": {"items": []}}` is no tuple.
fn uses_tuple_items(schema: &Value) -> bool {
    match schema {
        Value::Object(map) => map.iter().any(|(key, child)| match key.as_str() {
            "items" if child.is_array() => true,
            "const" | "enum" | "default" | "examples" => false,
            _ => uses_tuple_items(child),
        }),
        Value::Array(items) => items.iter().any(uses_tuple_items),
        _ => false,
    }
}

fn schema_error(raw: &Value, error: &ValidationError) -> SchemaError {
    let at = error.instance_path().as_str().to_string();
    match error.kind() {
        ValidationErrorKind::Referencing(reference) => reference_error(raw, reference),
        ValidationErrorKind::Custom { message, .. } if message.starts_with("Unknown format") => {
            let format = raw.pointer(&at).map(compact).unwrap_or_default();
            SchemaError::Invalid {
                at,
                problem: format!("unknown format {format}"),
            }
        }
        _ => SchemaError::Invalid {
            at,
            problem: problem_of(error),
        },
    }
}

fn reference_error(raw: &Value, error: &jsonschema::ReferencingError) -> SchemaError {
    use jsonschema::ReferencingError as E;
    match error {
        E::Unretrievable { uri, .. } => SchemaError::ExternalRef {
            at: ref_location(raw, uri).unwrap_or_default(),
            reference: uri.clone(),
        },
        E::PointerToNowhere { pointer } => {
            let reference = format!("#{pointer}");
            SchemaError::Invalid {
                at: ref_location(raw, &reference).unwrap_or_default(),
                problem: format!("$ref \"{reference}\" points to nothing in the schema"),
            }
        }
        E::UnknownSpecification { specification } => SchemaError::Invalid {
            at: "/$schema".to_string(),
            problem: format!(
                "unknown $schema \"{specification}\"; use a JSON Schema draft such as \
                 \"https://json-schema.org/draft/2020-12/schema\", or leave $schema out"
            ),
        },
        other => SchemaError::Invalid {
            at: String::new(),
            problem: other.to_string(),
        },
    }
}

/// The JSON Pointer of the first `$ref` whose text is `reference` or, resolved against a base,
/// ends it.
fn ref_location(raw: &Value, reference: &str) -> Option<String> {
    match raw {
        Value::Object(map) => {
            if let Some(Value::String(text)) = map.get("$ref") {
                if !text.is_empty() && reference.ends_with(text.as_str()) {
                    return Some("/$ref".to_string());
                }
            }
            map.iter().find_map(|(key, child)| {
                let below = ref_location(child, reference)?;
                Some(format!("/{}{below}", escape_pointer(key)))
            })
        }
        Value::Array(items) => items.iter().enumerate().find_map(|(index, child)| {
            Some(format!("/{index}{}", ref_location(child, reference)?))
        }),
        _ => None,
    }
}

fn escape_pointer(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// The meta-schema's complaint in words, where the crate's own text is unclear.
fn problem_of(error: &ValidationError) -> String {
    let got = compact(error.instance());
    match error.kind() {
        ValidationErrorKind::Type { .. } => {
            format!("{got} is not of type {}", quoted_types(&[error]))
        }
        ValidationErrorKind::Format { format } => {
            format!("{got} is not {}", format_words(format))
        }
        ValidationErrorKind::Enum { options } => {
            let options = options.as_array().map(Vec::as_slice).unwrap_or_default();
            let options: Vec<String> = options.iter().map(compact).collect();
            format!("{got} is not one of {}", options.join(", "))
        }
        ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } => {
            alternatives_problem(error, context).unwrap_or_else(|| error.to_string())
        }
        _ => error.to_string(),
    }
}

/// For a value fitting none of the meta-schema's alternatives: the complaint of the alternative
/// whose type fits (`"strnig"` against `type`'s enum of names), or every type that was tried.
fn alternatives_problem(
    error: &ValidationError,
    context: &[Vec<ValidationError<'static>>],
) -> Option<String> {
    let here = error.instance_path();
    let is_type_error = |e: &ValidationError| {
        matches!(e.kind(), ValidationErrorKind::Type { .. }) && e.instance_path() == here
    };
    if let Some(branch) = context.iter().find(|b| !b.iter().any(is_type_error)) {
        return branch.first().map(problem_of);
    }
    let type_errors: Vec<&ValidationError> = context.iter().flatten().collect();
    Some(format!(
        "{} is not of type {}",
        compact(error.instance()),
        quoted_types(&type_errors)
    ))
}

fn quoted_types(errors: &[&ValidationError]) -> String {
    let mut names: Vec<String> = Vec::new();
    for error in errors {
        if let ValidationErrorKind::Type { kind } = error.kind() {
            let types: Vec<jsonschema::JsonType> = match kind {
                TypeKind::Single(one) => vec![*one],
                TypeKind::Multiple(set) => set.iter().collect(),
            };
            for name in types.iter().map(|t| format!("\"{t}\"")) {
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
    }
    names.join(" or ")
}

#[cfg(test)]
mod tests {
    use super::super::Schema;
    use serde_json::json;

    fn refusal(raw: serde_json::Value) -> String {
        Schema::compile(raw).unwrap_err().to_string()
    }

    #[test]
    fn a_keyword_of_the_wrong_type_is_refused_where_it_is() {
        assert_eq!(
            refusal(json!({"type": "object", "properties": {"line": {"minimum": "x"}}})),
            r#"invalid schema at /properties/line/minimum: "x" is not of type "number""#
        );
    }

    #[test]
    fn a_misspelt_type_name_is_refused_with_the_accepted_names() {
        assert_eq!(
            refusal(json!({"type": "strnig"})),
            r#"invalid schema at /type: "strnig" is not one of "array", "boolean", "integer", "null", "number", "object", "string""#
        );
    }

    #[test]
    fn a_type_or_items_of_the_wrong_kind_is_refused_with_what_fits() {
        assert_eq!(
            refusal(json!({"type": 3})),
            r#"invalid schema at /type: 3 is not one of "array", "boolean", "integer", "null", "number", "object", "string""#
        );
        assert_eq!(
            refusal(json!({"$schema": "http://json-schema.org/draft-07/schema#", "items": 3})),
            r#"invalid schema at /items: 3 is not of type "boolean" or "object" or "array""#
        );
    }

    #[test]
    fn a_schema_that_is_not_an_object_or_boolean_is_refused() {
        assert_eq!(
            refusal(json!(42)),
            r#"invalid schema: 42 is not of type "boolean" or "object""#
        );
        assert_eq!(
            refusal(json!({"properties": {"a": "text"}})),
            r#"invalid schema at /properties/a: "text" is not of type "boolean" or "object""#
        );
    }

    #[test]
    fn a_negative_length_and_a_required_that_is_not_a_list_are_refused() {
        assert_eq!(
            refusal(json!({"type": "string", "minLength": -1})),
            "invalid schema at /minLength: -1 is less than the minimum of 0"
        );
        assert_eq!(
            refusal(json!({"type": "object", "required": "a"})),
            r#"invalid schema at /required: "a" is not of type "array""#
        );
    }

    #[test]
    fn a_broken_pattern_is_refused() {
        assert_eq!(
            refusal(json!({"type": "string", "pattern": "[a-"})),
            r#"invalid schema at /pattern: "[a-" is not a regular expression"#
        );
    }

    #[test]
    fn an_unknown_format_is_refused() {
        assert_eq!(
            refusal(json!({"properties": {"to": {"type": "string", "format": "emial"}}})),
            r#"invalid schema at /properties/to/format: unknown format "emial""#
        );
    }

    #[test]
    fn an_external_ref_is_refused_without_fetching_it() {
        assert_eq!(
            refusal(json!({"properties": {"a": {"$ref": "https://example.com/a.json"}}})),
            "invalid schema at /properties/a/$ref: $ref \"https://example.com/a.json\" is \
             outside the schema; awf fetches no schemas, so put it under $defs and refer to it \
             as \"#/$defs/<name>\""
        );
        assert!(refusal(json!({"$ref": "other.json"}))
            .starts_with("invalid schema at /$ref: $ref \"other.json\" is outside the schema"));
    }

    #[test]
    fn a_local_ref_to_nothing_is_refused() {
        assert_eq!(
            refusal(json!({"items": {"$ref": "#/$defs/missing"}})),
            "invalid schema at /items/$ref: $ref \"#/$defs/missing\" points to nothing in the schema"
        );
    }

    #[test]
    fn an_unknown_meta_schema_is_refused() {
        assert_eq!(
            refusal(json!({"$schema": "http://example.com/mine"})),
            "invalid schema at /$schema: unknown $schema \"http://example.com/mine\"; use a JSON \
             Schema draft such as \"https://json-schema.org/draft/2020-12/schema\", or leave \
             $schema out"
        );
    }

    #[test]
    fn a_tuple_in_typebox_form_is_read_as_draft_7() {
        // Type.Tuple([Type.String(), Type.Integer({ minimum: 1 })]), nested in an object.
        let tuple = json!({"type": "array", "additionalItems": false,
            "items": [{"type": "string"}, {"type": "integer", "minimum": 1}], "minItems": 2});
        let schema = Schema::compile(json!({"type": "object", "properties": {"at": tuple}}))
            .expect("a draft-07 tuple compiles");
        let lines = |value: serde_json::Value| -> Vec<String> {
            schema
                .check(&value)
                .iter()
                .map(ToString::to_string)
                .collect()
        };
        assert!(lines(json!({"at": ["a.ts", 3]})).is_empty());
        assert_eq!(
            lines(json!({"at": ["a.ts", 0]})),
            ["value.at[1]: expected integer ≥ 1; got 0"]
        );
        assert_eq!(
            lines(json!({"at": ["a.ts", 3, 4]})),
            ["value.at: expected at most 2 items; got 3"]
        );
        assert_eq!(
            lines(json!({"at": ["a.ts"]})),
            ["value.at: expected at least 2 items; got 1"]
        );
    }

    #[test]
    fn a_stated_dialect_wins_over_the_tuple_rule() {
        assert_eq!(
            refusal(
                json!({"$schema": "https://json-schema.org/draft/2020-12/schema",
                "items": [{"type": "string"}]})
            ),
            r#"invalid schema at /items: [{"type":"string"}] is not of type "boolean" or "object""#
        );
    }

    #[test]
    fn data_that_looks_like_a_tuple_does_not_change_the_dialect() {
        assert!(!super::uses_tuple_items(
            &json!({"type": "object", "default": {"items": [1]}, "enum": [{"items": []}]})
        ));
        assert!(super::uses_tuple_items(
            &json!({"anyOf": [{"items": [{"type": "null"}]}]})
        ));
    }

    #[test]
    fn local_refs_and_boolean_schemas_compile() {
        let raw = json!({"$defs": {"n": {"type": "integer"}}, "items": {"$ref": "#/$defs/n"}});
        assert!(Schema::compile(raw).is_ok());
        assert!(Schema::compile(json!(true)).is_ok());
        assert!(Schema::compile(json!(false)).is_ok());
    }
}
