//! Which branch of an `anyOf`/`oneOf` a value was meant for, so its problems can be reported
//! from that branch instead of from every branch.
//!
//! A value was surely meant for a branch when it is the only one its JSON type fits, or, among
//! object branches, the only one whose `const` tags (`"kind": {"const": "bug"}`) it carries.
//! The lines themselves are `field_error`'s.

use serde_json::Value;

use super::shape::{literals, tags};

/// The index of the one branch `value` was meant for, if there is one.
pub(super) fn meant_branch(branches: &[&Value], value: &Value) -> Option<usize> {
    let fitting: Vec<usize> = (0..branches.len())
        .filter(|&i| admits_type(branches[i], value))
        .collect();
    if let [only] = fitting.as_slice() {
        return Some(*only);
    }
    let object = value.as_object()?;
    let tagged: Vec<usize> = fitting
        .into_iter()
        .filter(|&i| {
            let tags = tags(branches[i]);
            !tags.is_empty()
                && tags
                    .iter()
                    .all(|(name, tag)| object.get(*name) == Some(tag))
        })
        .collect();
    match tagged.as_slice() {
        [only] => Some(*only),
        _ => None,
    }
}

/// A tag every branch has, which the value lacks or gives a value no branch has.
#[derive(Debug, PartialEq)]
pub(super) struct UnknownTag<'s> {
    pub name: &'s str,
    /// Each branch's value of the tag, in branch order.
    pub options: Vec<&'s Value>,
}

/// When every branch is tagged on the same property and `value`'s tag is none of them, that tag.
pub(super) fn unknown_tag<'s>(branches: &[&'s Value], value: &Value) -> Option<UnknownTag<'s>> {
    let object = value.as_object()?;
    let (name, _) = *tags(branches.first()?).first()?;
    let options: Vec<&Value> = branches
        .iter()
        .map(|b| {
            tags(b)
                .into_iter()
                .find(|(n, _)| *n == name)
                .map(|(_, tag)| tag)
        })
        .collect::<Option<_>>()?;
    match object.get(name) {
        Some(tag) if options.contains(&tag) => None,
        _ => Some(UnknownTag { name, options }),
    }
}

/// Whether a branch could take a value of this JSON type (`integer` counts as a `number`).
fn admits_type(branch: &Value, value: &Value) -> bool {
    let kind = json_type(value);
    let accepts = |name: &str| name == kind || (name == "number" && kind == "integer");
    match branch {
        Value::Bool(accepted) => *accepted,
        _ => match branch.get("type") {
            Some(Value::String(name)) => accepts(name),
            Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).any(accepts),
            _ => literals(branch)
                .is_none_or(|options| options.iter().any(|option| accepts(json_type(option)))),
        },
    }
}

/// The JSON Schema type name of `value`; a number without a fraction is an `integer`.
fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(n) if n.as_f64().is_some_and(|f| f.fract() == 0.0) => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn bug_or_idea() -> [Value; 2] {
        [
            json!({"type": "object", "properties": {"kind": {"const": "bug"}}}),
            json!({"type": "object", "properties": {"kind": {"const": "idea"}}}),
        ]
    }

    #[test]
    fn the_only_branch_of_the_value_type_is_meant() {
        let text = json!({"type": "string"});
        let number = json!({"type": "number"});
        let level = json!({"enum": ["low", "high"]});
        assert_eq!(meant_branch(&[&text, &number], &json!(3)), Some(1));
        assert_eq!(meant_branch(&[&number, &level], &json!("mid")), Some(1));
        assert_eq!(meant_branch(&[&text, &level], &json!("mid")), None);
        assert_eq!(meant_branch(&[&text, &number], &json!(true)), None);
    }

    #[test]
    fn among_objects_the_branch_whose_tags_match_is_meant() {
        let [bug, idea] = bug_or_idea();
        assert_eq!(
            meant_branch(&[&bug, &idea], &json!({"kind": "idea"})),
            Some(1)
        );
        assert_eq!(meant_branch(&[&bug, &idea], &json!({"kind": "task"})), None);
    }

    #[test]
    fn a_tag_no_branch_has_is_unknown() {
        let [bug, idea] = bug_or_idea();
        let unknown = unknown_tag(&[&bug, &idea], &json!({"kind": "task"})).unwrap();
        assert_eq!(unknown.name, "kind");
        assert_eq!(unknown.options, [&json!("bug"), &json!("idea")]);
        assert!(unknown_tag(&[&bug, &idea], &json!({})).is_some());
        assert_eq!(unknown_tag(&[&bug, &idea], &json!({"kind": "bug"})), None);
    }
}
