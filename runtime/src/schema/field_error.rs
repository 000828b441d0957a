//! [`FieldError`]: one problem with a value, said for an agent that must fix its input
//! (`value.items[2].line: expected integer ≥ 1; got 0`), made from the `jsonschema` crate's
//! errors.
//!
//! Owns value paths (`value`, `value.items[2]`, `value["odd key"]`), the wording of each kind of
//! problem, and which branch of an `anyOf`/`oneOf` to report from. Schema words come from
//! `describe`; which flags or refusal code carry these lines is left to `flags` and `tools`.

use std::collections::HashSet;
use std::fmt;

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::{ValidationError, Validator};
use serde_json::Value;

use super::describe::{describe, describe_alternatives, format_words, type_word};
use super::path::ValuePath;
use super::shape::{literals, resolve_local_ref};
use super::union::{meant_branch, unknown_tag};

/// The longest `got` shown, in characters; longer JSON is cut with `…`.
const MAX_GOT_CHARS: usize = 80;

/// One problem with a value: where (`value.items[2].line`) and what (`expected integer ≥ 1;
/// got 0`). Displays as `{path}: {message}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// Where, from `value`: `value`, `value.items[2].line`, `value["odd key"]`.
    pub path: String,
    /// What was expected and what was got: `expected integer ≥ 1; got 0`.
    pub message: String,
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// A problem before it is written out: its path orders the lines.
#[derive(Debug)]
struct Line {
    at: ValuePath,
    message: String,
}

impl Line {
    fn new(at: ValuePath, message: String) -> Line {
        Line { at, message }
    }
}

/// Every problem `validator` finds in `value`, ordered by path, each once.
pub(super) fn field_errors(root: &Value, validator: &Validator, value: &Value) -> Vec<FieldError> {
    let mut lines: Vec<Line> = validator
        .iter_errors(value)
        .flat_map(|error| lines_for(root, value, &error))
        .collect();
    lines.sort_by(|a, b| a.at.cmp(&b.at));
    let mut seen = HashSet::new();
    lines.retain(|line| seen.insert((line.at.clone(), line.message.clone())));
    lines
        .into_iter()
        .map(|line| FieldError {
            path: line.at.to_string(),
            message: line.message,
        })
        .collect()
}

/// The path of a property of the value itself, as [`FieldError::path`] writes it.
pub(super) fn property_path(name: &str) -> String {
    ValuePath::default().child(name).to_string()
}

/// `value` as compact JSON, cut to [`MAX_GOT_CHARS`] characters.
pub(super) fn compact(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() <= MAX_GOT_CHARS {
        return text;
    }
    let cut: String = text.chars().take(MAX_GOT_CHARS - 1).collect();
    format!("{cut}…")
}

/// The schema object holding the keyword an error is about (`/properties/a/minimum` →
/// `/properties/a`), when the error's schema path leads into `root`.
fn keyword_owner<'r>(root: &'r Value, error: &ValidationError) -> Option<&'r Value> {
    let path = error.schema_path().as_str();
    let owner = &path[..path.rfind('/').unwrap_or(0)];
    root.pointer(owner)
}

/// The keyword an error is about, the last step of its schema path (`minimum`, `items`).
fn last_schema_step<'e>(error: &'e ValidationError) -> &'e str {
    let path = error.schema_path().as_str();
    &path[path.rfind('/').map_or(0, |slash| slash + 1)..]
}

/// The lines one error of the crate becomes: most become one line where they are; a missing or
/// unexpected property is reported at the property; a union reports from the branch the value
/// was meant for.
fn lines_for(root: &Value, value: &Value, error: &ValidationError) -> Vec<Line> {
    let at = ValuePath::of_pointer(error.instance_path().as_str(), value);
    match error.kind() {
        ValidationErrorKind::Required { property } => {
            let name = property.as_str().unwrap_or_default();
            vec![Line::new(at.child(name), "required, missing".into())]
        }
        ValidationErrorKind::AdditionalProperties { unexpected }
        | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
            let accepted = accepted_names(keyword_owner(root, error), root);
            let message = format!("unexpected property ({accepted})");
            unexpected
                .iter()
                .map(|name| Line::new(at.child(name), message.clone()))
                .collect()
        }
        ValidationErrorKind::PropertyNames { error: inner } => {
            let name = inner.instance().as_str().unwrap_or_default().to_string();
            lines_for(root, inner.instance(), inner)
                .into_iter()
                .map(|line| {
                    let message = format!("property name not accepted: {}", line.message);
                    Line::new(at.child(&name), message)
                })
                .collect()
        }
        ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } => {
            union_lines(root, value, error, context, at)
        }
        ValidationErrorKind::FalseSchema if last_schema_step(error) == "additionalProperties" => {
            closed_object_lines(value, at)
        }
        _ => vec![Line::new(at, message_for(root, error))],
    }
}

/// `additionalProperties: false` on an object naming no properties: every name is unexpected.
/// The crate reports only the first such property, at the object's path, so the object is read
/// here for all of them.
fn closed_object_lines(value: &Value, at: ValuePath) -> Vec<Line> {
    let message = "unexpected property (none are accepted)";
    match at.value_in(value) {
        Some(Value::Object(object)) => object
            .keys()
            .map(|name| Line::new(at.child(name), message.to_string()))
            .collect(),
        _ => vec![Line::new(at, message.to_string())],
    }
}

/// `accepted: file, line, problem` from the object schema whose `additionalProperties` (or
/// `unevaluatedProperties`) refused a name.
fn accepted_names(owner: Option<&Value>, root: &Value) -> String {
    let mut accepted: Vec<String> = Vec::new();
    let mut owners: Vec<&Value> = owner.into_iter().collect();
    if let Some(all_of) = owner.and_then(|o| o.get("allOf")).and_then(Value::as_array) {
        owners.extend(all_of.iter().map(|s| resolve_local_ref(root, s)));
    }
    for schema in owners {
        if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
            accepted.extend(properties.keys().cloned());
        }
        if let Some(patterns) = schema.get("patternProperties").and_then(Value::as_object) {
            accepted.extend(patterns.keys().map(|p| format!("names matching {p}")));
        }
    }
    if accepted.is_empty() {
        "none are accepted".to_string()
    } else {
        format!("accepted: {}", accepted.join(", "))
    }
}

/// The message of a problem that is about the value where it is.
fn message_for(root: &Value, error: &ValidationError) -> String {
    let value = error.instance();
    let got = compact(value);
    let owner = keyword_owner(root, error);
    let keyword = |name: &str| owner.and_then(|o| o.get(name));
    match error.kind() {
        ValidationErrorKind::Type { kind } => {
            format!("expected {}; got {got}", type_words(owner, kind))
        }
        ValidationErrorKind::Minimum { limit } => bound(owner, "≥", limit, &got),
        ValidationErrorKind::Maximum { limit } => bound(owner, "≤", limit, &got),
        ValidationErrorKind::ExclusiveMinimum { limit } => bound(owner, ">", limit, &got),
        ValidationErrorKind::ExclusiveMaximum { limit } => bound(owner, "<", limit, &got),
        ValidationErrorKind::MultipleOf { multiple_of } => {
            let step = keyword("multipleOf").map_or_else(|| multiple_of.to_string(), compact);
            format!("expected a multiple of {step}; got {got}")
        }
        ValidationErrorKind::MinLength { limit } => {
            let unit = plural(*limit, "character", "characters");
            format!("expected text of at least {limit} {unit}; got {got}")
        }
        ValidationErrorKind::MaxLength { limit } => {
            let unit = plural(*limit, "character", "characters");
            let length = value.as_str().map_or(0, |text| text.chars().count());
            format!("expected text of at most {limit} {unit}; got {length}")
        }
        ValidationErrorKind::Pattern { pattern } => {
            format!("expected text matching {pattern}; got {got}")
        }
        ValidationErrorKind::Format { format } => {
            format!("expected {}; got {got}", format_words(format))
        }
        ValidationErrorKind::Enum { options } => {
            let options = options.as_array().map(Vec::as_slice).unwrap_or_default();
            let options: Vec<&Value> = options.iter().collect();
            format!("expected {}; got {got}", one_of_json(&options))
        }
        ValidationErrorKind::Constant { expected_value } => {
            format!("expected {}; got {got}", compact(expected_value))
        }
        ValidationErrorKind::MinItems { limit } => {
            let unit = plural(*limit, "item", "items");
            format!("expected at least {limit} {unit}; got {}", count(value))
        }
        ValidationErrorKind::MaxItems { limit } => {
            let unit = plural(*limit, "item", "items");
            format!("expected at most {limit} {unit}; got {}", count(value))
        }
        ValidationErrorKind::AdditionalItems { limit } => {
            let unit = plural(*limit as u64, "item", "items");
            format!("expected at most {limit} {unit}; got {}", count(value))
        }
        ValidationErrorKind::MinProperties { limit } => {
            let unit = plural(*limit, "property", "properties");
            format!("expected at least {limit} {unit}; got {}", count(value))
        }
        ValidationErrorKind::MaxProperties { limit } => {
            let unit = plural(*limit, "property", "properties");
            format!("expected at most {limit} {unit}; got {}", count(value))
        }
        ValidationErrorKind::UniqueItems => unique_items_message(value),
        ValidationErrorKind::Contains => contains_message(owner, last_schema_step(error)),
        ValidationErrorKind::FalseSchema => false_schema_message(root, error, &got),
        ValidationErrorKind::Not { schema } => {
            let refused = describe(resolve_local_ref(root, schema));
            format!("expected anything but {refused}; got {got}")
        }
        ValidationErrorKind::OneOfMultipleValid { .. } => {
            let branches = branches_at(root, error).unwrap_or_default();
            format!(
                "expected exactly one of: {}; got {got}, which fits more than one",
                describe_alternatives(&branches)
            )
        }
        ValidationErrorKind::UnevaluatedItems { unexpected } => {
            format!("unexpected items {}", unexpected.join(", "))
        }
        ValidationErrorKind::ContentEncoding { content_encoding } => {
            format!("expected text encoded as {content_encoding}; got {got}")
        }
        ValidationErrorKind::ContentMediaType { content_media_type } => {
            format!("expected text holding {content_media_type}; got {got}")
        }
        _ => error.to_string(),
    }
}

/// `expected integer ≥ 1; got 0`: the type named from the schema, `number` when it names none.
fn bound(owner: Option<&Value>, sign: &str, limit: &Value, got: &str) -> String {
    let integer = owner.and_then(|o| o.get("type")) == Some(&Value::from("integer"));
    let noun = if integer { "integer" } else { "number" };
    format!("expected {noun} {sign} {limit}; got {got}")
}

/// The expected types in words, in the schema's own order when the schema can be read.
fn type_words(owner: Option<&Value>, kind: &TypeKind) -> String {
    let declared: Vec<String> = match owner.and_then(|o| o.get("type")) {
        Some(Value::String(name)) => vec![name.clone()],
        Some(Value::Array(names)) => names
            .iter()
            .filter_map(Value::as_str)
            .map(String::from)
            .collect(),
        _ => match kind {
            TypeKind::Single(one) => vec![one.to_string()],
            TypeKind::Multiple(set) => set.iter().map(|t| t.to_string()).collect(),
        },
    };
    let words: Vec<&str> = declared.iter().map(|name| type_word(name)).collect();
    words.join(" or ")
}

fn plural<'w>(count: u64, one: &'w str, many: &'w str) -> &'w str {
    if count == 1 {
        one
    } else {
        many
    }
}

fn count(value: &Value) -> usize {
    match value {
        Value::Array(items) => items.len(),
        Value::Object(map) => map.len(),
        _ => 0,
    }
}

/// `"a"` for one option, `one of "a", "b"` for several.
fn one_of_json(options: &[&Value]) -> String {
    let texts: Vec<String> = options.iter().map(|o| compact(o)).collect();
    match texts.as_slice() {
        [one] => one.clone(),
        _ => format!("one of {}", texts.join(", ")),
    }
}

/// Names the first repeated item and both places it is at.
fn unique_items_message(value: &Value) -> String {
    let items = value.as_array().map(Vec::as_slice).unwrap_or_default();
    for (later, item) in items.iter().enumerate() {
        if let Some(first) = items[..later].iter().position(|e| same_json(e, item)) {
            return format!(
                "expected unique items; got {} at [{first}] and [{later}]",
                compact(item)
            );
        }
    }
    "expected unique items".to_string()
}

/// JSON equality as JSON Schema means it: `1` and `1.0` are the same number.
fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_json(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_json(v, w)))
        }
        _ => a == b,
    }
}

fn contains_message(owner: Option<&Value>, keyword: &str) -> String {
    let wanted = owner
        .and_then(|o| o.get("contains"))
        .map_or_else(|| "fitting".to_string(), describe);
    let limit = |name| owner.and_then(|o| o.get(name)).and_then(Value::as_u64);
    let (most, limit) = match keyword {
        "maxContains" => ("most", limit("maxContains").unwrap_or(0)),
        _ => ("least", limit("minContains").unwrap_or(1)),
    };
    let unit = plural(limit, "item", "items");
    format!(
        "expected at {most} {limit} {unit} that {} {wanted}",
        plural(limit, "is", "are")
    )
}

/// `false` as a schema: past the end of a tuple it is an extra item; elsewhere nothing fits.
fn false_schema_message(root: &Value, error: &ValidationError, got: &str) -> String {
    let after_tuple = matches!(last_schema_step(error), "items" | "additionalItems");
    let tuple_length = keyword_owner(root, error)
        .and_then(|o| o.get("prefixItems").or_else(|| o.get("items")))
        .and_then(Value::as_array)
        .map(Vec::len);
    match tuple_length {
        Some(length) if after_tuple => {
            let unit = plural(length as u64, "item", "items");
            format!("unexpected item (at most {length} {unit} accepted)")
        }
        _ => format!("no value is accepted here; got {got}"),
    }
}

/// The branches of the `anyOf`/`oneOf` an error is about, `$ref`s followed.
fn branches_at<'r>(root: &'r Value, error: &ValidationError) -> Option<Vec<&'r Value>> {
    let branches = root.pointer(error.schema_path().as_str())?.as_array()?;
    Some(
        branches
            .iter()
            .map(|b| resolve_local_ref(root, b))
            .collect(),
    )
}

/// A value fitting no branch of a union: literals say which are accepted; the branch the value
/// was meant for reports its own problems; a tag that matches no branch is reported at the tag;
/// anything else is one summary line.
fn union_lines(
    root: &Value,
    value: &Value,
    error: &ValidationError,
    context: &[Vec<ValidationError<'static>>],
    at: ValuePath,
) -> Vec<Line> {
    let here = error.instance();
    let got = compact(here);
    let Some(branches) = branches_at(root, error) else {
        let message = format!("expected one of the accepted shapes; got {got}");
        return vec![Line::new(at, message)];
    };
    let options: Option<Vec<Vec<&Value>>> = branches.iter().map(|b| literals(b)).collect();
    if let Some(options) = options {
        let options: Vec<&Value> = options.into_iter().flatten().collect();
        let message = format!("expected {}; got {got}", one_of_json(&options));
        return vec![Line::new(at, message)];
    }
    if let Some(errors) = meant_branch(&branches, here).and_then(|index| context.get(index)) {
        return errors
            .iter()
            .flat_map(|e| lines_for(root, value, e))
            .collect();
    }
    if let Some(tag) = unknown_tag(&branches, here) {
        let expected = one_of_json(&tag.options);
        let message = match here.get(tag.name) {
            None => format!("required, missing; expected {expected}"),
            Some(given) => format!("expected {expected}; got {}", compact(given)),
        };
        return vec![Line::new(at.child(tag.name), message)];
    }
    let expected = describe_alternatives(&branches);
    vec![Line::new(at, format!("expected {expected}; got {got}"))]
}

#[cfg(test)]
mod tests {
    use super::super::Schema;
    use super::*;
    use serde_json::json;

    /// The lines `check` gives for `value` against `schema`, as an agent reads them.
    fn lines(schema: Value, value: Value) -> Vec<String> {
        let schema = Schema::compile(schema).unwrap();
        schema
            .check(&value)
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    fn finding() -> Value {
        json!({
            "type": "object",
            "properties": {
                "file": {"type": "string", "minLength": 1},
                "line": {"type": "integer", "minimum": 1},
                "problem": {"type": "string", "minLength": 1}
            },
            "required": ["file", "line", "problem"],
            "additionalProperties": false
        })
    }

    #[test]
    fn a_finding_with_every_kind_of_object_problem() {
        let value = json!({"file": "", "line": "12", "colour": "red"});
        assert_eq!(
            lines(finding(), value),
            [
                r#"value.colour: unexpected property (accepted: file, line, problem)"#,
                r#"value.file: expected text of at least 1 character; got """#,
                r#"value.line: expected integer; got "12""#,
                r#"value.problem: required, missing"#,
            ]
        );
    }

    #[test]
    fn paths_go_through_items_and_odd_keys() {
        let schema = json!({
            "type": "object",
            "properties": {
                "items": {"type": "array", "items": finding()},
                "odd key": {"type": "boolean"},
                "0": {"type": "null"}
            }
        });
        let value = json!({
            "items": [
                {"file": "a", "line": 1, "problem": "p"},
                {"file": "a", "line": 1, "problem": "p"},
                {"file": "a", "line": 0, "problem": "p"}
            ],
            "odd key": "yes",
            "0": 1
        });
        assert_eq!(
            lines(schema, value),
            [
                r#"value["0"]: expected null; got 1"#,
                r#"value.items[2].line: expected integer ≥ 1; got 0"#,
                r#"value["odd key"]: expected true or false; got "yes""#,
            ]
        );
    }

    #[test]
    fn errors_are_ordered_by_index_as_numbers() {
        let schema = json!({"type": "array", "items": {"type": "integer"}});
        let value = json!([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, "ten", 11, "two"]);
        assert_eq!(
            lines(schema, value),
            [
                r#"value[10]: expected integer; got "ten""#,
                r#"value[12]: expected integer; got "two""#,
            ]
        );
    }

    #[test]
    fn numeric_bounds_use_signs_and_the_schema_type() {
        let schema = json!({
            "type": "object",
            "properties": {
                "a": {"type": "integer", "maximum": 5},
                "b": {"type": "number", "exclusiveMinimum": 0},
                "c": {"type": "number", "exclusiveMaximum": 1},
                "d": {"type": "number", "multipleOf": 0.5},
                "e": {"type": "number", "minimum": 1.5}
            }
        });
        let value = json!({"a": 6, "b": 0, "c": 1, "d": 1.2, "e": 1});
        assert_eq!(
            lines(schema, value),
            [
                "value.a: expected integer ≤ 5; got 6",
                "value.b: expected number > 0; got 0",
                "value.c: expected number < 1; got 1",
                "value.d: expected a multiple of 0.5; got 1.2",
                "value.e: expected number ≥ 1.5; got 1",
            ]
        );
    }

    #[test]
    fn text_rules_say_what_was_expected() {
        let schema = json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "maxLength": 3},
                "slug": {"type": "string", "pattern": "^[a-z]+$"},
                "email": {"type": "string", "format": "email"},
                "at": {"type": "string", "format": "date-time"},
                "id": {"type": "string", "format": "uuid"},
                "home": {"type": "string", "format": "uri"}
            }
        });
        let value = json!({
            "name": "abcd", "slug": "A1", "email": "bob", "at": "noon", "id": "x", "home": "/a"
        });
        assert_eq!(
            lines(schema, value),
            [
                r#"value.at: expected a date and time like 2024-05-01T09:30:00Z; got "noon""#,
                r#"value.email: expected an email address; got "bob""#,
                r#"value.home: expected an absolute URI; got "/a""#,
                r#"value.id: expected a UUID; got "x""#,
                "value.name: expected text of at most 3 characters; got 4",
                r#"value.slug: expected text matching ^[a-z]+$; got "A1""#,
            ]
        );
    }

    #[test]
    fn enum_const_and_literal_unions_list_what_is_accepted() {
        let schema = json!({
            "type": "object",
            "properties": {
                "level": {"enum": ["low", "high"]},
                "kind": {"const": "bug"},
                "size": {"anyOf": [{"const": "s", "type": "string"}, {"const": 3}]}
            }
        });
        let value = json!({"level": "mid", "kind": "idea", "size": "m"});
        assert_eq!(
            lines(schema, value),
            [
                r#"value.kind: expected "bug"; got "idea""#,
                r#"value.level: expected one of "low", "high"; got "mid""#,
                r#"value.size: expected one of "s", 3; got "m""#,
            ]
        );
    }

    #[test]
    fn list_rules_count_items_and_name_a_repeat() {
        let schema = json!({
            "type": "object",
            "properties": {
                "few": {"type": "array", "minItems": 2},
                "many": {"type": "array", "maxItems": 1},
                "tags": {"type": "array", "uniqueItems": true},
                "pair": {
                    "type": "array",
                    "prefixItems": [{"type": "string"}, {"type": "integer"}],
                    "items": false
                },
                "some": {"type": "array", "contains": {"type": "integer"}}
            }
        });
        let value = json!({
            "few": [1], "many": [1, 2], "tags": ["ops", "cron", "ops"],
            "pair": ["a", "b", 3], "some": ["x"]
        });
        assert_eq!(
            lines(schema, value),
            [
                "value.few: expected at least 2 items; got 1",
                "value.many: expected at most 1 item; got 2",
                r#"value.pair[1]: expected integer; got "b""#,
                "value.pair[2]: unexpected item (at most 2 items accepted)",
                "value.some: expected at least 1 item that is integer",
                r#"value.tags: expected unique items; got "ops" at [0] and [2]"#,
            ]
        );
    }

    #[test]
    fn records_report_values_and_names() {
        let schema = json!({
            "type": "object",
            "propertyNames": {"pattern": "^[a-z]+$"},
            "patternProperties": {"^x": {"type": "integer"}},
            "additionalProperties": {"type": "string"}
        });
        let value = json!({"xa": "1", "b": 2, "Bad": "ok"});
        assert_eq!(
            lines(schema, value),
            [
                r#"value.Bad: property name not accepted: expected text matching ^[a-z]+$; got "Bad""#,
                "value.b: expected text; got 2",
                r#"value.xa: expected integer; got "1""#,
            ]
        );
    }

    #[test]
    fn unexpected_property_lists_patterns_or_says_none_are_accepted() {
        let with_patterns = json!({
            "type": "object",
            "properties": {"a": {}},
            "patternProperties": {"^x-": {}},
            "additionalProperties": false
        });
        let closed = json!({"type": "object", "additionalProperties": false});
        assert_eq!(
            lines(with_patterns, json!({"b": 1})),
            ["value.b: unexpected property (accepted: a, names matching ^x-)"]
        );
        assert_eq!(
            lines(closed, json!({"b": 1, "c": 2})),
            [
                "value.b: unexpected property (none are accepted)",
                "value.c: unexpected property (none are accepted)",
            ]
        );
    }

    fn tagged_union() -> Value {
        json!({
            "anyOf": [
                {
                    "type": "object",
                    "properties": {"kind": {"const": "bug"}, "line": {"type": "integer"}},
                    "required": ["kind", "line"]
                },
                {
                    "type": "object",
                    "properties": {"kind": {"const": "idea"}, "text": {"type": "string"}},
                    "required": ["kind", "text"]
                }
            ]
        })
    }

    #[test]
    fn a_tagged_union_reports_from_the_branch_its_tag_names() {
        assert_eq!(
            lines(tagged_union(), json!({"kind": "bug", "line": "3"})),
            [r#"value.line: expected integer; got "3""#]
        );
        assert_eq!(
            lines(tagged_union(), json!({"kind": "idea"})),
            ["value.text: required, missing"]
        );
    }

    #[test]
    fn a_tagged_union_reports_an_unknown_or_missing_tag_at_the_tag() {
        assert_eq!(
            lines(tagged_union(), json!({"kind": "task"})),
            [r#"value.kind: expected one of "bug", "idea"; got "task""#]
        );
        assert_eq!(
            lines(tagged_union(), json!({"line": 3})),
            [r#"value.kind: required, missing; expected one of "bug", "idea""#]
        );
    }

    #[test]
    fn a_union_reports_from_the_only_branch_of_the_value_type() {
        let schema = json!({
            "type": "array",
            "items": {"oneOf": [
                {"type": "string", "minLength": 1},
                {"$ref": "#/$defs/point"}
            ]},
            "$defs": {"point": {"type": "object", "required": ["x"]}}
        });
        assert_eq!(
            lines(schema, json!(["", {}])),
            [
                r#"value[0]: expected text of at least 1 character; got """#,
                "value[1].x: required, missing",
            ]
        );
    }

    #[test]
    fn an_unclear_union_gets_one_summary_line() {
        let schema = json!({"anyOf": [
            {"type": "string", "minLength": 1},
            {"type": "object", "properties": {"a": {}, "b": {}}},
            {"type": "integer"}
        ]});
        assert_eq!(
            lines(schema, json!(true)),
            [
                "value: expected (text, at least 1 character) or (object with a, b) or integer; \
                 got true"
            ]
        );
        let both = json!({"oneOf": [{"type": "integer"}, {"type": "number"}]});
        assert_eq!(
            lines(both, json!(1)),
            ["value: expected exactly one of: integer or number; got 1, which fits more than one"]
        );
    }

    #[test]
    fn not_and_false_schemas_say_nothing_fits() {
        let schema = json!({
            "type": "object",
            "properties": {"a": {"not": {"type": "string"}}, "b": false}
        });
        assert_eq!(
            lines(schema, json!({"a": "x", "b": 1})),
            [
                r#"value.a: expected anything but text; got "x""#,
                "value.b: no value is accepted here; got 1",
            ]
        );
    }

    #[test]
    fn object_size_rules_count_properties() {
        let schema = json!({"type": "object", "minProperties": 2, "maxProperties": 3});
        assert_eq!(
            lines(schema.clone(), json!({"a": 1})),
            ["value: expected at least 2 properties; got 1"]
        );
        assert_eq!(
            lines(schema, json!({"a": 1, "b": 2, "c": 3, "d": 4})),
            ["value: expected at most 3 properties; got 4"]
        );
    }

    #[test]
    fn a_long_got_is_cut_to_eighty_characters() {
        let long = "x".repeat(200);
        let line = &lines(json!({"type": "integer"}), json!(long))[0];
        let got = line.strip_prefix("value: expected integer; got ").unwrap();
        assert_eq!(got.chars().count(), 80);
        assert!(got.ends_with("xx…"));
    }

    #[test]
    fn a_nullable_type_is_named_in_schema_order() {
        assert_eq!(
            lines(json!({"type": ["string", "null"]}), json!(3)),
            ["value: expected text or null; got 3"]
        );
    }

    #[test]
    fn display_is_path_then_message() {
        let error = FieldError {
            path: "value.a".into(),
            message: "required, missing".into(),
        };
        assert_eq!(error.to_string(), "value.a: required, missing");
        assert_eq!(property_path("odd key"), r#"value["odd key"]"#);
    }
}
