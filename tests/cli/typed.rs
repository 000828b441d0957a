//! `typed(schema)` from a workflow: compiled once, an invalid schema refused at the call with a
//! clear TypeError, field-level error lines from `check`, `is` and `parse`; typebox's draft-07
//! tuples; and the checks `tool()` makes where it is called.

use serde_json::json;

use crate::util::{assert_text, TempProject};

fn result_of(source: &str) -> serde_json::Value {
    let project = TempProject::new();
    project.file("wf.ts", source);
    let ran = project.awf(&["run", "wf.ts"]).run();
    ran.assert_success().json()
}

#[test]
fn check_gives_one_line_per_problem_with_its_path() {
    let value = result_of(
        r#"const Plan = typed(Type.Object({
  title: Type.String({ minLength: 1 }),
  items: Type.Array(Type.Object({ file: Type.String(), line: Type.Integer({ minimum: 1 }) })),
  status: Type.Union([Type.Literal("open"), Type.Literal("closed")]),
  note: Type.Optional(Type.String()),
}, { additionalProperties: false }));

export default defineWorkflow({
  meta: { name: "checks", description: "Checks values." },
  run: () => ({
    fits: Plan.check({ title: "t", items: [{ file: "a.ts", line: 1 }], status: "open" }),
    lines: Plan.check({ title: "", items: [{ file: "a", line: 1 }, { file: "b", line: 2 }, { file: "c", line: 0 }], status: "merged", extra: 1 }),
    missing: Plan.check({ items: [] }),
    notObject: Plan.check("plan"),
    notJson: Plan.check({ title: "t", items: [], status: "open", note: new Date(0) }),
  }),
});
"#,
    );
    assert_eq!(value["fits"], json!([]));
    assert_eq!(
        value["lines"],
        json!([
            "value.extra: unexpected property (accepted: title, items, status, note)",
            "value.items[2].line: expected integer ≥ 1; got 0",
            "value.status: expected one of \"open\", \"closed\"; got \"merged\"",
            "value.title: expected text of at least 1 character; got \"\"",
        ])
    );
    assert_eq!(
        value["missing"],
        json!([
            "value.status: required, missing",
            "value.title: required, missing",
        ])
    );
    assert_eq!(
        value["notObject"],
        json!(["value: expected object; got \"plan\""])
    );
    assert_eq!(
        value["notJson"],
        json!(["value.note is a Date, which is not JSON"])
    );
}

#[test]
fn is_and_parse_use_the_same_check() {
    let value = result_of(
        r#"const Count = typed(Type.Integer({ minimum: 0 }));
let parsed: unknown;
let refused = "";
try {
  Count.parse(-1);
} catch (error) {
  refused = String(error);
}
parsed = Count.parse(3);
export default defineWorkflow({
  meta: { name: "parse", description: "Parses." },
  run: () => ({ is: [Count.is(1), Count.is(1.5), Count.is("1")], parsed, refused }),
});
"#,
    );
    assert_eq!(
        value,
        json!({
            "is": [true, false, false],
            "parsed": 3,
            "refused": "TypeError: the value does not match the schema:\n  value: expected integer ≥ 0; got -1",
        })
    );
}

#[test]
fn an_invalid_schema_is_refused_at_the_call() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"export const Finding = typed({
  type: "object",
  properties: { line: { type: "integr" } },
});

export default defineWorkflow({
  meta: { name: "bad-schema", description: "Has a bad schema." },
  run: () => 1,
});
"#,
    );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_text(
        &ran.snapshot(&project.path()),
        r#"exit: 2
--- stdout
--- stderr
awf: TypeError: typed(schema): invalid schema at /properties/line/type: "integr" is not one of "array", "boolean", "integer", "null", "number", "object", "string"
    at <anonymous> (wf.ts:1:14)
"#,
    );
}

#[test]
fn schema_refusals_name_the_problem() {
    let value = result_of(
        r#"const refusals: string[] = [];
for (const schema of [
  { type: "string", minLength: -1 },
  { type: "string", pattern: "[a-" },
  { type: "string", format: "emial" },
  { $ref: "https://example.com/schema.json" },
  null,
  "string",
]) {
  try {
    typed(schema as any);
    refusals.push("compiled");
  } catch (error) {
    refusals.push(String(error));
  }
}
export default defineWorkflow({
  meta: { name: "refusals", description: "Refuses schemas." },
  run: () => refusals,
});
"#,
    );
    assert_eq!(
        value,
        json!([
            "TypeError: typed(schema): invalid schema at /minLength: -1 is less than the minimum of 0",
            "TypeError: typed(schema): invalid schema at /pattern: \"[a-\" is not a regular expression",
            "TypeError: typed(schema): invalid schema at /format: unknown format \"emial\"",
            "TypeError: typed(schema): invalid schema at /$ref: $ref \"https://example.com/schema.json\" is outside the schema; awf fetches no schemas, so put it under $defs and refer to it as \"#/$defs/<name>\"",
            "TypeError: typed(schema): schema must be a JSON Schema object, got null",
            "TypeError: typed(schema): schema must be a JSON Schema object, got string",
        ])
    );
}

#[test]
fn a_typebox_tuple_compiles_and_validates_as_a_tuple() {
    let value = result_of(
        r#"const At = typed(Type.Tuple([Type.String({ minLength: 1 }), Type.Integer({ minimum: 1 })]));
export default defineWorkflow({
  meta: { name: "tuple", description: "Checks tuples." },
  run: () => ({
    fits: At.check(["a.ts", 3]),
    wrongItems: At.check(["", 0]),
    tooMany: At.check(["a.ts", 3, 4]),
    tooFew: At.check(["a.ts"]),
    schema: At.schema,
  }),
});
"#,
    );
    assert_eq!(
        value,
        json!({
            "fits": [],
            "wrongItems": [
                "value[0]: expected text of at least 1 character; got \"\"",
                "value[1]: expected integer ≥ 1; got 0",
            ],
            "tooMany": ["value: expected at most 2 items; got 3"],
            "tooFew": ["value: expected at least 2 items; got 1"],
            "schema": {
                "type": "array",
                "additionalItems": false,
                "items": [{"type": "string", "minLength": 1}, {"type": "integer", "minimum": 1}],
                "minItems": 2,
            },
        })
    );
}

#[test]
fn typed_takes_plain_json_schema_and_gives_back_a_typed_value() {
    let value = result_of(
        r#"const Raw = typed<{ id: string }>({ type: "object", required: ["id"], properties: { id: { type: "string" } } });
export default defineWorkflow({
  meta: { name: "raw", description: "Plain schemas." },
  run: () => ({
    same: typed(Raw) === Raw,
    json: JSON.parse(JSON.stringify(Raw)),
    check: Raw.check({}),
    frozen: Object.isFrozen(Raw.schema),
  }),
});
"#,
    );
    assert_eq!(
        value,
        json!({
            "same": true,
            "json": {"type": "object", "required": ["id"], "properties": {"id": {"type": "string"}}},
            "check": ["value.id: required, missing"],
            "frozen": true,
        })
    );
}

#[test]
fn tool_checks_its_spec_where_it_is_called() {
    let value = result_of(
        r#"const errors: string[] = [];
for (const spec of [
  { description: "no handler" },
  { description: "bad input", input: { type: "object", properties: { n: { type: "nmber" } } }, handler: () => 1 },
  null,
]) {
  try {
    tool(spec as any);
    errors.push("accepted");
  } catch (error) {
    errors.push(String(error));
  }
}
const add = tool({
  description: "Adds.",
  input: typed(Type.Object({ a: Type.Integer(), b: Type.Integer() })),
  handler: ({ a, b }) => a + b,
});
export default defineWorkflow({
  meta: { name: "tools", description: "Defines tools." },
  run: () => ({ errors, description: add.description, inputChecks: add.input!.check({ a: 1 }), frozen: Object.isFrozen(add) }),
});
"#,
    );
    assert_eq!(
        value,
        json!({
            "errors": [
                "TypeError: tool(spec): handler must be a function (input, call) => result",
                "TypeError: typed(schema): invalid schema at /properties/n/type: \"nmber\" is not one of \"array\", \"boolean\", \"integer\", \"null\", \"number\", \"object\", \"string\"",
                "TypeError: tool(spec): spec must be an object with description and handler",
            ],
            "description": "Adds.",
            "inputChecks": ["value.b: required, missing"],
            "frozen": true,
        })
    );
}
