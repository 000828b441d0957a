//! JSON Schemas for turn answers and tool inputs: compiled once, checked into error lines an
//! agent can act on, and taught to the agent as a command it can run.
//!
//! - `compile`: building a [`Schema`] with the `jsonschema` crate (no network, no files,
//!   formats checked) and [`SchemaError`], why a schema is refused.
//! - `field_error`: [`FieldError`], one line per problem in a value (`value.line: expected …`),
//!   placed by `path` and, in a union, from the branch `union` says the value was meant for.
//! - `describe`: a schema said in a few words (`integer, at least 1`).
//! - `shape`: whether an input is taught as `--name value` options or as JSON on stdin.
//! - [`teach`]: the texts appended to a prompt: how to answer a turn, how to call tools.
//! - [`flags`]: option words to a checked value; `input`: JSON text to a checked value
//!   ([`parse_json_payload`]); `problem`: [`InputProblem`], what either form reports.
//!
//! Which turn or tool a value belongs to, refusal codes and the wire are left to `agents`,
//! `tools` and `channel`; this module knows only schemas, values and words.

mod compile;
mod describe;
mod field_error;
pub mod flags;
mod input;
mod path;
mod problem;
mod shape;
pub mod teach;
mod union;

use std::fmt;
use std::sync::Arc;

use serde_json::Value;

pub use compile::SchemaError;
pub use describe::describe;
pub use field_error::FieldError;
pub use input::{parse_json_payload, read_payload};
pub use problem::InputProblem;

/// A JSON Schema compiled once, with the JSON it was compiled from.
///
/// Cloning shares the compiled validator.
#[derive(Clone)]
pub struct Schema {
    raw: Value,
    validator: Arc<jsonschema::Validator>,
}

impl Schema {
    /// Compiles `raw`, refusing an invalid schema, an unknown `format` and any `$ref` outside
    /// the schema itself (nothing is fetched).
    pub fn compile(raw: Value) -> Result<Schema, SchemaError> {
        let validator = compile::validator_for(&raw)?;
        Ok(Schema {
            raw,
            validator: Arc::new(validator),
        })
    }

    /// The JSON Schema as the author gave it.
    pub fn raw(&self) -> &Value {
        &self.raw
    }

    /// Every problem with `value`, ordered by path; empty when it fits.
    pub fn check(&self, value: &Value) -> Vec<FieldError> {
        field_error::field_errors(&self.raw, &self.validator, value)
    }

    /// Whether a value of this schema is given as `--name value` options (a small object of
    /// scalars) rather than as JSON on standard input.
    pub fn takes_flags(&self) -> bool {
        matches!(shape::shape_of(&self.raw), shape::Shape::Flags(_))
    }
}

impl fmt::Debug for Schema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Schema").field(&self.raw).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn a_schema_can_be_shared_between_threads() {
        assert_send_sync::<Schema>();
    }

    #[test]
    fn raw_gives_back_the_json_in_its_key_order() {
        let raw = json!({"type": "object", "properties": {"b": {}, "a": {}}});
        let schema = Schema::compile(raw.clone()).unwrap();
        assert_eq!(
            serde_json::to_string(schema.raw()).unwrap(),
            r#"{"type":"object","properties":{"b":{},"a":{}}}"#
        );
    }

    #[test]
    fn check_is_empty_for_a_fitting_value() {
        let schema = Schema::compile(json!({"type": "integer", "minimum": 1})).unwrap();
        assert!(schema.check(&json!(3)).is_empty());
    }

    #[test]
    fn takes_flags_only_for_a_small_object_of_scalars() {
        let flat = json!({"type": "object", "properties": {"a": {"type": "string"}}});
        let nested = json!({"type": "object", "properties": {"a": {"type": "array"}}});
        assert!(Schema::compile(flat).unwrap().takes_flags());
        assert!(!Schema::compile(nested).unwrap().takes_flags());
        assert!(!Schema::compile(json!({"type": "string"}))
            .unwrap()
            .takes_flags());
    }
}
