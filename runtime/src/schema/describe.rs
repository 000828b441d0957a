//! A schema said in a few words, as an option's placeholder shows it (`<integer, at least 1>`)
//! and as a union's summary line lists its branches.
//!
//! Placeholders stay short, so a property's `description` is left out: the agent reads the
//! author's prompt and the tool's description for meaning, and the placeholder only for what is
//! accepted. Literals are written in single quotes (`one of 'low', 'high'`), the way the agent
//! types them on the command line. Where to put the words is `teach`'s job.

use serde_json::Value;

use super::shape::literals;

/// The words for a value of `schema`: `text, at least 1 character`, `integer from 1 to 5`,
/// `one of 'low', 'high'`, `array of text`.
pub fn describe(schema: &Value) -> String {
    match schema {
        Value::Bool(false) => "nothing".to_string(),
        Value::Object(_) => describe_object_schema(schema),
        _ => "any value".to_string(),
    }
}

/// The words for a value fitting any of `branches`: `text or integer`, each branch whose own
/// words hold a comma put in parentheses.
pub(super) fn describe_alternatives(branches: &[&Value]) -> String {
    let options: Option<Vec<Vec<&Value>>> = branches.iter().map(|b| literals(b)).collect();
    if let Some(options) = options {
        let options: Vec<&Value> = options.into_iter().flatten().collect();
        return one_of_words(&options);
    }
    let words: Vec<String> = branches.iter().map(|b| grouped(describe(b))).collect();
    words.join(" or ")
}

/// A JSON type's name as the agent is taught it: `string` is `text`, as in the spec's
/// placeholders, and `boolean` is `true or false`, the words it types.
pub(super) fn type_word(name: &str) -> &str {
    match name {
        "string" => "text",
        "boolean" => "true or false",
        other => other,
    }
}

/// A `format` in words: `an email address`, `a date like 2024-05-01`.
pub(super) fn format_words(format: &str) -> String {
    let words = match format {
        "email" | "idn-email" => "an email address",
        "date-time" => "a date and time like 2024-05-01T09:30:00Z",
        "date" => "a date like 2024-05-01",
        "time" => "a time like 09:30:00Z",
        "duration" => "a duration like P3DT4H30M",
        "uri" => "an absolute URI",
        "uri-reference" => "a URI or relative reference",
        "iri" => "an absolute IRI",
        "iri-reference" => "an IRI or relative reference",
        "uri-template" => "a URI template",
        "uuid" => "a UUID",
        "hostname" | "idn-hostname" => "a host name",
        "ipv4" => "an IPv4 address",
        "ipv6" => "an IPv6 address",
        "json-pointer" => "a JSON Pointer",
        "relative-json-pointer" => "a relative JSON Pointer",
        "regex" => "a regular expression",
        other => return format!("text in format \"{other}\""),
    };
    words.to_string()
}

fn describe_object_schema(schema: &Value) -> String {
    if let Some(options) = literals(schema) {
        return one_of_words(&options);
    }
    if let Some(branches) = schema
        .get("anyOf")
        .or_else(|| schema.get("oneOf"))
        .and_then(Value::as_array)
    {
        let branches: Vec<&Value> = branches.iter().collect();
        return describe_alternatives(&branches);
    }
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        return format!("a value as {reference} defines");
    }
    let types = declared_types(schema);
    if types.is_empty() {
        return "any value".to_string();
    }
    let words: Vec<String> = types.iter().map(|t| describe_typed(t, schema)).collect();
    match words.as_slice() {
        [one] => one.clone(),
        _ => words
            .into_iter()
            .map(grouped)
            .collect::<Vec<_>>()
            .join(" or "),
    }
}

/// The schema's `type` names, or the one its keywords imply (`minLength` → string).
fn declared_types(schema: &Value) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(name)) => vec![name.as_str()],
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        _ => implied_type(schema).into_iter().collect(),
    }
}

fn implied_type(schema: &Value) -> Option<&'static str> {
    let has_any = |keywords: &[&str]| keywords.iter().any(|k| schema.get(k).is_some());
    if has_any(&["minLength", "maxLength", "pattern", "format"]) {
        Some("string")
    } else if has_any(&["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"])
        || has_any(&["multipleOf"])
    {
        Some("number")
    } else if has_any(&[
        "properties",
        "required",
        "additionalProperties",
        "patternProperties",
    ]) {
        Some("object")
    } else if has_any(&[
        "items",
        "prefixItems",
        "minItems",
        "maxItems",
        "uniqueItems",
    ]) {
        Some("array")
    } else {
        None
    }
}

fn describe_typed(type_name: &str, schema: &Value) -> String {
    match type_name {
        "string" => text_words(schema),
        "integer" | "number" => number_words(type_name, schema),
        "array" => array_words(schema),
        "object" => object_words(schema),
        other => type_word(other).to_string(),
    }
}

/// `text matching ^[a-z]+$, an email address, at most 80 characters`.
fn text_words(schema: &Value) -> String {
    let mut words = match schema.get("pattern").and_then(Value::as_str) {
        Some(pattern) => format!("text matching {pattern}"),
        None => "text".to_string(),
    };
    if let Some(format) = schema.get("format").and_then(Value::as_str) {
        words.push_str(&format!(", {}", format_words(format)));
    }
    let length = count_words(schema, "minLength", "maxLength", "character", "characters");
    if let Some(length) = length {
        words.push_str(&format!(", {length}"));
    }
    words
}

/// `at least 1 character`, `at most 3 items`, `2 to 5 characters`, `exactly 4 characters`.
fn count_words(schema: &Value, min: &str, max: &str, one: &str, many: &str) -> Option<String> {
    let min = schema.get(min).and_then(Value::as_u64).filter(|&n| n > 0);
    let max = schema.get(max).and_then(Value::as_u64);
    let unit = |n: u64| if n == 1 { one } else { many };
    match (min, max) {
        (Some(low), Some(high)) if low == high => Some(format!("exactly {low} {}", unit(low))),
        (Some(low), Some(high)) => Some(format!("{low} to {high} {}", unit(high))),
        (Some(low), None) => Some(format!("at least {low} {}", unit(low))),
        (None, Some(high)) => Some(format!("at most {high} {}", unit(high))),
        (None, None) => None,
    }
}

/// A numeric bound and whether the limit itself is allowed.
struct Bound<'s> {
    limit: &'s Value,
    inclusive: bool,
}

/// The lower or upper bound of a number schema; draft 4's boolean `exclusiveMinimum` is read too.
fn bound<'s>(schema: &'s Value, inclusive_key: &str, exclusive_key: &str) -> Option<Bound<'s>> {
    match (schema.get(exclusive_key), schema.get(inclusive_key)) {
        (Some(limit @ Value::Number(_)), _) => Some(Bound {
            limit,
            inclusive: false,
        }),
        (Some(Value::Bool(true)), Some(limit)) => Some(Bound {
            limit,
            inclusive: false,
        }),
        (_, Some(limit)) => Some(Bound {
            limit,
            inclusive: true,
        }),
        _ => None,
    }
}

/// `integer, at least 1`, `integer from 1 to 5`, `number between 0 and 1`,
/// `number, greater than 0 and at most 1`, each with `, a multiple of 5` when asked.
fn number_words(type_name: &str, schema: &Value) -> String {
    let lower = bound(schema, "minimum", "exclusiveMinimum");
    let upper = bound(schema, "maximum", "exclusiveMaximum");
    let mut words = match (&lower, &upper) {
        (Some(low), Some(high)) if low.inclusive && high.inclusive => {
            let (from, to) = (low.limit, high.limit);
            match type_name {
                "integer" => format!("integer from {from} to {to}"),
                _ => format!("{type_name} between {from} and {to}"),
            }
        }
        _ => {
            let lower = lower.map(|b| {
                let relation = if b.inclusive {
                    "at least"
                } else {
                    "greater than"
                };
                format!("{relation} {}", b.limit)
            });
            let upper = upper.map(|b| {
                let relation = if b.inclusive { "at most" } else { "less than" };
                format!("{relation} {}", b.limit)
            });
            let bounds: Vec<String> = lower.into_iter().chain(upper).collect();
            match bounds.as_slice() {
                [] => type_name.to_string(),
                _ => format!("{type_name}, {}", bounds.join(" and ")),
            }
        }
    };
    if let Some(step) = schema.get("multipleOf") {
        words.push_str(&format!(", a multiple of {step}"));
    }
    words
}

/// `array of text`, `array [text, integer]`, with `, at least 1 item` and `, no repeats`.
fn array_words(schema: &Value) -> String {
    let mut words = match (schema.get("prefixItems"), schema.get("items")) {
        (Some(Value::Array(tuple)), _) | (None, Some(Value::Array(tuple))) => {
            let members: Vec<String> = tuple.iter().map(|m| grouped(describe(m))).collect();
            format!("array [{}]", members.join(", "))
        }
        (_, Some(items @ Value::Object(_))) => format!("array of {}", grouped(describe(items))),
        _ => "array".to_string(),
    };
    if let Some(count) = count_words(schema, "minItems", "maxItems", "item", "items") {
        words.push_str(&format!(", {count}"));
    }
    if schema.get("uniqueItems") == Some(&Value::Bool(true)) {
        words.push_str(", no repeats");
    }
    words
}

/// `object with kind 'bug'` (its tags), `object with file, line`, `object whose values are text`.
fn object_words(schema: &Value) -> String {
    let properties = schema.get("properties").and_then(Value::as_object);
    if let Some(properties) = properties.filter(|p| !p.is_empty()) {
        let tags = super::shape::tags(schema);
        let names: Vec<String> = match tags.as_slice() {
            [] => properties.keys().cloned().collect(),
            _ => tags
                .iter()
                .map(|(name, tag)| format!("{name} {}", literal_words(tag)))
                .collect(),
        };
        return format!("object with {}", names.join(", "));
    }
    match schema.get("additionalProperties") {
        Some(values @ Value::Object(_)) => {
            format!("object whose values are {}", grouped(describe(values)))
        }
        _ => "object".to_string(),
    }
}

/// `'low'` for one literal, `one of 'low', 'high'` for several.
fn one_of_words(options: &[&Value]) -> String {
    let words: Vec<String> = options.iter().map(|o| literal_words(o)).collect();
    match words.as_slice() {
        [one] => one.clone(),
        _ => format!("one of {}", words.join(", ")),
    }
}

/// A literal as typed on a command line: text in single quotes, anything else as JSON.
fn literal_words(value: &Value) -> String {
    match value {
        Value::String(text) => format!("'{text}'"),
        other => other.to_string(),
    }
}

/// Words that hold a comma, in parentheses, so a list of them stays readable.
fn grouped(words: String) -> String {
    if words.contains(", ") {
        format!("({words})")
    } else {
        words
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn words(schema: Value) -> String {
        describe(&schema)
    }

    #[test]
    fn text_with_lengths_patterns_and_formats() {
        assert_eq!(words(json!({"type": "string"})), "text");
        assert_eq!(
            words(json!({"type": "string", "minLength": 1})),
            "text, at least 1 character"
        );
        assert_eq!(
            words(json!({"type": "string", "maxLength": 80})),
            "text, at most 80 characters"
        );
        assert_eq!(
            words(json!({"type": "string", "minLength": 2, "maxLength": 5})),
            "text, 2 to 5 characters"
        );
        assert_eq!(
            words(json!({"type": "string", "minLength": 4, "maxLength": 4})),
            "text, exactly 4 characters"
        );
        assert_eq!(
            words(json!({"type": "string", "pattern": "^[a-z]+$"})),
            "text matching ^[a-z]+$"
        );
        assert_eq!(
            words(json!({"type": "string", "format": "email"})),
            "text, an email address"
        );
        assert_eq!(
            words(json!({"type": "string", "format": "date", "maxLength": 10})),
            "text, a date like 2024-05-01, at most 10 characters"
        );
    }

    #[test]
    fn numbers_with_bounds_and_steps() {
        assert_eq!(
            words(json!({"type": "integer", "minimum": 1})),
            "integer, at least 1"
        );
        assert_eq!(
            words(json!({"type": "integer", "minimum": 1, "maximum": 5})),
            "integer from 1 to 5"
        );
        assert_eq!(
            words(json!({"type": "number", "minimum": 0, "maximum": 1})),
            "number between 0 and 1"
        );
        assert_eq!(
            words(json!({"type": "number", "exclusiveMinimum": 0, "maximum": 1})),
            "number, greater than 0 and at most 1"
        );
        assert_eq!(
            words(json!({"type": "number", "exclusiveMaximum": 2.5})),
            "number, less than 2.5"
        );
        assert_eq!(
            words(json!({"type": "integer", "multipleOf": 5})),
            "integer, a multiple of 5"
        );
        assert_eq!(words(json!({"minimum": 0})), "number, at least 0");
    }

    #[test]
    fn literals_booleans_and_nulls() {
        assert_eq!(words(json!({"type": "boolean"})), "true or false");
        assert_eq!(
            words(json!({"enum": ["low", "high"]})),
            "one of 'low', 'high'"
        );
        assert_eq!(
            words(json!({"anyOf": [{"const": "low", "type": "string"}, {"const": 3}]})),
            "one of 'low', 3"
        );
        assert_eq!(words(json!({"const": "bug"})), "'bug'");
        assert_eq!(words(json!({"type": ["string", "null"]})), "text or null");
    }

    #[test]
    fn lists_objects_and_unions() {
        assert_eq!(
            words(json!({"type": "array", "items": {"type": "string"}, "minItems": 1})),
            "array of text, at least 1 item"
        );
        assert_eq!(
            words(json!({"type": "array", "items": {"type": "string", "minLength": 1}})),
            "array of (text, at least 1 character)"
        );
        assert_eq!(
            words(
                json!({"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "uniqueItems": true})
            ),
            "array [text, integer], no repeats"
        );
        assert_eq!(
            words(json!({"type": "object", "properties": {"file": {}, "line": {}}})),
            "object with file, line"
        );
        assert_eq!(
            words(json!({"type": "object", "properties": {"kind": {"const": "bug"}, "line": {}}})),
            "object with kind 'bug'"
        );
        assert_eq!(
            words(json!({"type": "object", "additionalProperties": {"type": "integer"}})),
            "object whose values are integer"
        );
        assert_eq!(
            words(json!({"anyOf": [{"type": "string"}, {"type": "integer", "minimum": 0}]})),
            "text or (integer, at least 0)"
        );
        assert_eq!(
            words(json!({"$ref": "#/$defs/item"})),
            "a value as #/$defs/item defines"
        );
    }

    #[test]
    fn boolean_and_empty_schemas() {
        assert_eq!(words(json!(true)), "any value");
        assert_eq!(words(json!({})), "any value");
        assert_eq!(words(json!(false)), "nothing");
    }
}
