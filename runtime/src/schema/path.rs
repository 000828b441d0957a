//! [`ValuePath`]: where in a value a problem is, written as an agent reads it: `value`,
//! `value.items[2].line`, `value["odd key"]`.
//!
//! Made from the JSON Pointers the `jsonschema` crate reports; what the problem is, is
//! `field_error`'s.

use std::fmt;

use serde_json::Value;

/// One step into a value. Indices order by number, keys by text, so lines sort as a value reads.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Step {
    Index(usize),
    Key(String),
}

/// A place in a value; the empty path is the value itself.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) struct ValuePath(Vec<Step>);

impl ValuePath {
    /// The path a JSON Pointer names in `value`: a segment is an index only where the value
    /// there is an array, so a key named `"0"` stays a key.
    pub(super) fn of_pointer(pointer: &str, value: &Value) -> ValuePath {
        let mut here = Some(value);
        let mut steps = Vec::new();
        for segment in pointer.split('/').skip(1) {
            let key = segment.replace("~1", "/").replace("~0", "~");
            let step = match (here, key.parse::<usize>()) {
                (Some(Value::Array(items)), Ok(index)) => {
                    here = items.get(index);
                    Step::Index(index)
                }
                _ => {
                    here = here.and_then(|h| h.get(&key));
                    Step::Key(key)
                }
            };
            steps.push(step);
        }
        ValuePath(steps)
    }

    /// The path of property `name` of the value here.
    pub(super) fn child(&self, name: &str) -> ValuePath {
        let mut steps = self.0.clone();
        steps.push(Step::Key(name.to_string()));
        ValuePath(steps)
    }

    /// What is at this path in `value`, if anything.
    pub(super) fn value_in<'v>(&self, value: &'v Value) -> Option<&'v Value> {
        self.0.iter().try_fold(value, |here, step| match step {
            Step::Index(index) => here.get(*index),
            Step::Key(key) => here.get(key),
        })
    }
}

impl fmt::Display for ValuePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("value")?;
        for step in &self.0 {
            match step {
                Step::Index(index) => write!(f, "[{index}]")?,
                Step::Key(key) if is_identifier(key) => write!(f, ".{key}")?,
                Step::Key(key) => write!(f, "[{}]", Value::from(key.as_str()))?,
            }
        }
        Ok(())
    }
}

/// A key that reads after a dot, as in JavaScript.
fn is_identifier(key: &str) -> bool {
    let mut chars = key.chars();
    let starts_well = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$');
    starts_well && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn written(pointer: &str, value: Value) -> String {
        ValuePath::of_pointer(pointer, &value).to_string()
    }

    #[test]
    fn paths_read_as_javascript() {
        let value = json!({"items": [{}, {}, {"line": 0}], "odd key": {"a/b": 1}, "0": [5]});
        assert_eq!(written("", value.clone()), "value");
        assert_eq!(
            written("/items/2/line", value.clone()),
            "value.items[2].line"
        );
        assert_eq!(
            written("/odd key/a~1b", value.clone()),
            r#"value["odd key"]["a/b"]"#
        );
        assert_eq!(written("/0/0", value), r#"value["0"][0]"#);
    }

    #[test]
    fn indices_order_as_numbers_before_keys() {
        let value = json!([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
        let ten = ValuePath::of_pointer("/10", &value);
        let two = ValuePath::of_pointer("/2", &value);
        assert!(two < ten);
        assert!(ValuePath::default() < two);
    }

    #[test]
    fn child_and_value_in_follow_the_same_steps() {
        let value = json!({"a": [{"b": true}]});
        let path = ValuePath::of_pointer("/a/0", &value).child("b");
        assert_eq!(path.to_string(), "value.a[0].b");
        assert_eq!(path.value_in(&value), Some(&json!(true)));
    }
}
