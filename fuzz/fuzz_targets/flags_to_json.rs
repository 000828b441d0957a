//! Flag words to JSON by a schema: words are the input split at NUL bytes, read against a flat
//! schema of every kind of flag. Never a panic; what is accepted fits the schema, and an integer
//! accepted is exact (within 2^53).
#![no_main]

use std::sync::OnceLock;

use awf_runtime::schema::{flags, Schema};
use libfuzzer_sys::fuzz_target;
use serde_json::json;

fn schema() -> &'static Schema {
    static SCHEMA: OnceLock<Schema> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        Schema::compile(json!({
            "type": "object",
            "properties": {
                "file": {"type": "string", "minLength": 1},
                "line": {"type": "integer", "minimum": 1},
                "ratio": {"type": "number"},
                "sure": {"type": "boolean"},
                "kind": {"enum": ["bug", "style", 3, true]},
                "note": {"type": "string"}
            },
            "required": ["file"],
            "additionalProperties": false
        }))
        .expect("the schema compiles")
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let words: Vec<String> = text.split('\0').map(str::to_string).collect();
    if let Ok(value) = flags::parse(schema(), &words) {
        assert!(schema().check(&value).is_empty(), "{value}");
        if let Some(line) = value.get("line") {
            assert!(line.as_u64().is_some_and(|n| n < 1 << 53), "{line}");
        }
    }
});
