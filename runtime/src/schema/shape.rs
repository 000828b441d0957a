//! What kind of thing a schema asks for, read from its JSON: whether an input is given as
//! `--name value` options or as JSON on stdin, and the small facts other files need (the literals
//! a schema allows, an object branch's `const` tags, a local `$ref` followed).
//!
//! The rule for options is one place so that teaching (`teach`) and parsing (`flags`) agree.
//! Wording is `describe`'s; validating is the compiled validator's.

use serde_json::{Map, Value};

/// Most properties an object may have and still be taught as options: past this a command line
/// is harder to get right than one JSON value.
pub(super) const MAX_FLAGS: usize = 8;

/// Object keywords an options-taught schema may carry; any other (`patternProperties`,
/// `minProperties`, `if`, ...) asks for more than options can show, so it is taught as JSON.
const FLAT_OBJECT_KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "title",
    "description",
    "$schema",
    "$id",
    "$comment",
    "default",
    "examples",
    "readOnly",
    "writeOnly",
    "deprecated",
];

/// How a value of a schema is given.
#[derive(Debug, PartialEq)]
pub(super) enum Shape<'s> {
    /// An object of at most [`MAX_FLAGS`] scalar properties: one `--name value` per property.
    Flags(Vec<Flag<'s>>),
    /// Anything else: one JSON value on standard input.
    Json,
}

/// One property of an options-taught object.
#[derive(Debug, PartialEq)]
pub(super) struct Flag<'s> {
    pub name: &'s str,
    pub schema: &'s Value,
    pub required: bool,
    pub kind: FlagKind<'s>,
}

/// What an option's word is turned into.
#[derive(Debug, PartialEq)]
pub(super) enum FlagKind<'s> {
    Text,
    Integer,
    Number,
    Boolean,
    /// One of these strings, numbers or booleans (`enum`, `const`, a union of literals).
    Literals(Vec<&'s Value>),
}

/// How a value of `schema` is given: options for a small object of scalars, else JSON.
pub(super) fn shape_of(schema: &Value) -> Shape<'_> {
    flat_flags(schema).map_or(Shape::Json, Shape::Flags)
}

fn flat_flags(schema: &Value) -> Option<Vec<Flag<'_>>> {
    let object = schema.as_object()?;
    let is_object = object.get("type")?.as_str()? == "object";
    let known_keywords = object
        .keys()
        .all(|k| FLAT_OBJECT_KEYWORDS.contains(&k.as_str()));
    if !is_object || !known_keywords {
        return None;
    }
    let closed = match object.get("additionalProperties") {
        None => false,
        Some(Value::Bool(open)) => !open,
        Some(_) => return None,
    };
    let required = required_names(object)?;
    let Some(properties) = object.get("properties") else {
        // No properties named: a closed object is empty; an open one takes any names, a record.
        return (closed && required.is_empty()).then(Vec::new);
    };
    let properties = properties.as_object()?;
    if properties.len() > MAX_FLAGS || (properties.is_empty() && !closed) {
        return None;
    }
    if required.iter().any(|name| !properties.contains_key(*name)) {
        return None;
    }
    properties
        .iter()
        .map(|(name, schema)| {
            let kind = scalar_kind(schema)?;
            is_flag_name(name).then_some(Flag {
                name,
                schema,
                required: required.contains(&name.as_str()),
                kind,
            })
        })
        .collect()
}

fn required_names(object: &Map<String, Value>) -> Option<Vec<&str>> {
    match object.get("required") {
        None => Some(Vec::new()),
        Some(names) => names.as_array()?.iter().map(Value::as_str).collect(),
    }
}

/// A name that reads as an option and needs no quoting: `file`, `max_items`, `dry-run`.
fn is_flag_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn scalar_kind(schema: &Value) -> Option<FlagKind<'_>> {
    if let Some(options) = literals(schema) {
        let scalar = |v: &&Value| v.is_string() || v.is_number() || v.is_boolean();
        return options
            .iter()
            .all(scalar)
            .then_some(FlagKind::Literals(options));
    }
    match schema.get("type")?.as_str()? {
        "string" => Some(FlagKind::Text),
        "integer" => Some(FlagKind::Integer),
        "number" => Some(FlagKind::Number),
        "boolean" => Some(FlagKind::Boolean),
        _ => None,
    }
}

/// The only values a schema allows, when it lists them: `const`, `enum`, or an `anyOf`/`oneOf`
/// whose every branch lists its own.
pub(super) fn literals(schema: &Value) -> Option<Vec<&Value>> {
    if let Some(value) = schema.get("const") {
        return Some(vec![value]);
    }
    if let Some(values) = schema.get("enum") {
        return Some(values.as_array()?.iter().collect());
    }
    let branches = schema
        .get("anyOf")
        .or_else(|| schema.get("oneOf"))?
        .as_array()?;
    let lists: Option<Vec<Vec<&Value>>> = branches.iter().map(literals).collect();
    Some(lists?.into_iter().flatten().collect())
}

/// An object schema's tags: properties that allow exactly one value (`"kind": {"const": "bug"}`).
pub(super) fn tags(schema: &Value) -> Vec<(&str, &Value)> {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    properties
        .iter()
        .filter_map(|(name, property)| match literals(property)?.as_slice() {
            [only] => Some((name.as_str(), *only)),
            _ => None,
        })
        .collect()
}

/// `schema` with a local `$ref` (`#/$defs/x`) followed, a few times at most; anything else is
/// given back as it is.
pub(super) fn resolve_local_ref<'r>(root: &'r Value, schema: &'r Value) -> &'r Value {
    let mut here = schema;
    for _ in 0..8 {
        let target = here
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|reference| reference.strip_prefix('#'))
            .and_then(|pointer| root.pointer(pointer));
        match target {
            Some(next) => here = next,
            None => break,
        }
    }
    here
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn flag_names(schema: &Value) -> Option<Vec<(&str, bool)>> {
        match shape_of(schema) {
            Shape::Flags(flags) => Some(flags.iter().map(|f| (f.name, f.required)).collect()),
            Shape::Json => None,
        }
    }

    #[test]
    fn a_small_object_of_scalars_is_flags_in_schema_order() {
        let schema = json!({
            "type": "object",
            "properties": {
                "file": {"type": "string"},
                "line": {"type": "integer"},
                "level": {"anyOf": [{"const": "low"}, {"const": "high"}]},
                "done": {"type": "boolean"},
                "ratio": {"type": "number"},
                "kind": {"enum": ["a", 1, true]}
            },
            "required": ["line", "file"],
            "additionalProperties": false
        });
        assert_eq!(
            flag_names(&schema),
            Some(vec![
                ("file", true),
                ("line", true),
                ("level", false),
                ("done", false),
                ("ratio", false),
                ("kind", false),
            ])
        );
    }

    #[test]
    fn anything_but_a_small_object_of_scalars_is_json() {
        let json_shaped = [
            json!({"type": "string"}),
            json!(true),
            json!({"type": "object", "properties": {"a": {"type": "array"}}}),
            json!({"type": "object", "properties": {"a": {"type": "object"}}}),
            json!({"type": "object", "properties": {"a": {"type": ["string", "null"]}}}),
            json!({"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}}),
            json!({"type": "object", "properties": {"a": {"const": null}}}),
            json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/a"}}}),
            json!({"type": "object", "additionalProperties": {"type": "string"}}),
            json!({"type": "object", "patternProperties": {"^a": {}}, "properties": {}}),
            json!({"type": "object"}),
            json!({"type": "object", "properties": {"odd key": {"type": "string"}}}),
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["b"]}),
            json!({"anyOf": [{"type": "object", "properties": {"a": {"type": "string"}}}]}),
        ];
        for schema in json_shaped {
            assert_eq!(flag_names(&schema), None, "{schema}");
        }
    }

    #[test]
    fn more_than_eight_properties_is_json() {
        let properties: Map<String, Value> = (0..=MAX_FLAGS)
            .map(|i| (format!("p{i}"), json!({"type": "string"})))
            .collect();
        let schema = json!({"type": "object", "properties": properties});
        assert_eq!(flag_names(&schema), None);
    }

    #[test]
    fn a_closed_empty_object_is_flags_with_none() {
        let schema = json!({"type": "object", "properties": {}, "additionalProperties": false});
        assert_eq!(flag_names(&schema), Some(vec![]));
    }

    #[test]
    fn tags_are_the_single_value_properties() {
        let schema = json!({"properties": {"kind": {"const": "bug"}, "n": {"enum": [1]}, "x": {}}});
        assert_eq!(
            tags(&schema),
            vec![("kind", &json!("bug")), ("n", &json!(1))]
        );
    }

    #[test]
    fn a_local_ref_is_followed() {
        let root = json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"type": "string"}}});
        let reference = json!({"$ref": "#/$defs/a"});
        assert_eq!(
            resolve_local_ref(&root, &reference),
            &json!({"type": "string"})
        );
    }
}
