//! The typings under typings/, checked by the real TypeScript compiler (`tsc --noEmit`, installed
//! once into target/test-tools/): the examples and their tests (examples/dead-code is the spec's
//! example) compile with no error through typings/tsconfig.example.json, and what the typings
//! must refuse (a tool handler returning a Date, a Map or a function; a wrong field of
//! `Type.Static`) is refused.

use crate::util::{assert_text, node_bin, npm_tool, workspace, AwfCommand, Ran, TempProject};

const TYPESCRIPT_VERSION: &str = "5.9.3";

/// `tsc -p <project>/tsconfig.json` with `include` as given, extending the example tsconfig.
fn tsc(project: &TempProject, include: &[String]) -> Ran {
    tsc_with(project, include, serde_json::json!({}))
}

/// `tsc` with `compiler_options` over the example tsconfig's.
pub(crate) fn tsc_with(
    project: &TempProject,
    include: &[String],
    compiler_options: serde_json::Value,
) -> Ran {
    let typescript = npm_tool("typescript", TYPESCRIPT_VERSION);
    let config = serde_json::json!({
        "extends": workspace().join("typings/tsconfig.example.json"),
        "compilerOptions": compiler_options,
        "include": include,
    });
    project.file("tsconfig.json", &config.to_string());
    AwfCommand::new(node_bin())
        .arg(typescript.join("node_modules/typescript/bin/tsc"))
        .args(&["-p", "tsconfig.json", "--pretty", "false"])
        .current_dir(&project.path())
        .run()
}

fn under_workspace(path: &str) -> String {
    workspace().join(path).display().to_string()
}

#[test]
fn the_examples_type_check() {
    let project = TempProject::new();
    let ran = tsc(&project, &[under_workspace("examples/**/*.ts")]);
    assert_eq!(
        (ran.code, ran.stdout.as_str(), ran.stderr.as_str()),
        (Some(0), "", ""),
        "tsc found errors"
    );
}

#[test]
fn the_typings_refuse_what_the_spec_refuses() {
    let project = TempProject::new();
    project.file(
        "refused.ts",
        r#"import { tool, typed, Type } from "agentswf";

const Finding = typed(Type.Object({ file: Type.String(), line: Type.Integer() }));
type Finding = Type.Static<typeof Finding>;
const raw = Type.Object({ file: Type.String() });

export const ok: Finding = { file: "a.ts", line: 1 };
export const wrongField: Type.Static<typeof Finding> = { file: "a.ts", line: "1" };
export const wrongRaw: Type.Static<typeof raw> = { file: 1 };
export const date = tool({ description: "d", input: Finding, handler: () => new Date() });
export const map = tool({ description: "d", handler: async () => new Map<string, number>() });
export const fn = tool({ description: "d", handler: () => ({ later: () => 1 }) });
export const unknownField = tool({ description: "d", input: Finding, handler: (f) => f.column });
export const fine = tool({ description: "d", input: Finding, handler: async (f) => ({ at: `${f.file}:${f.line}` }) });
export const noInput = tool({ description: "d", handler: () => {} });
"#,
    );
    let ran = tsc(
        &project,
        &[project.path().join("refused.ts").display().to_string()],
    );
    assert_eq!(ran.code, Some(2), "{}", ran.stdout);
    // One error per refused line, each at its place and saying why; the lines that are fine
    // give none.
    let errors: Vec<&str> = ran
        .stdout
        .lines()
        .filter(|line| line.starts_with("refused.ts("))
        .collect();
    assert_text(
        &errors.join("\n"),
        r#"refused.ts(8,72): error TS2322: Type 'string' is not assignable to type 'number'.
refused.ts(9,52): error TS2322: Type 'number' is not assignable to type 'string'.
refused.ts(10,77): error TS2322: Type 'Date' is not assignable to type 'Date & "a Date is not JSON: return date.toISOString()"'.
refused.ts(11,66): error TS2322: Type 'Promise<Map<string, number>>' is not assignable to type 'Promise<Map<string, number>> & PromiseLike<"a Map is not JSON: return Object.fromEntries(map)">'.
refused.ts(12,62): error TS2322: Type '() => 1' is not assignable to type '(() => 1) & "a function is not JSON"'.
refused.ts(13,88): error TS2339: Property 'column' does not exist on type '{ file: string; line: number; }'."#,
    );
}

#[test]
fn the_example_tsconfig_lists_every_typings_file() {
    let example =
        std::fs::read_to_string(workspace().join("typings/tsconfig.example.json")).unwrap();
    let listed: Vec<String> = std::fs::read_dir(workspace().join("typings"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".d.ts"))
        .filter(|name| !example.contains(&format!("\"./{name}\"")))
        .collect();
    assert!(
        listed.is_empty(),
        "not in tsconfig.example.json: {listed:?}"
    );
}

/// The message fixtures (a workflow, its tests, the live one) use `messages`, `wf.receive`,
/// `agent.send`, `wake`, `turn.send` and `run.messages` as the typings declare them.
#[test]
fn the_message_fixtures_type_check() {
    let project = TempProject::new();
    let ran = tsc(
        &project,
        &[
            under_workspace("tests/fixtures/testing-messages/*.ts"),
            under_workspace("tests/fixtures/agent-clis/messages.ts"),
        ],
    );
    assert_eq!(
        (ran.code, ran.stdout.as_str(), ran.stderr.as_str()),
        (Some(0), "", ""),
        "tsc found errors"
    );
}

/// `typebox/value`: `Check` narrows to the schema's static type, `Parse` and `Create` return it,
/// and the namespace object, the named functions and the default export are the same API.
#[test]
fn the_typebox_value_typings_type_check() {
    let project = TempProject::new();
    project.file(
        "value.ts",
        r#"import { Type } from "typebox";
import Value, { Check, Errors, ParseError, Value as Named, type ValueError } from "typebox/value";

const Finding = Type.Object({ file: Type.String(), line: Type.Integer() });
declare const input: unknown;

if (Check(Finding, input)) {
  const line: number = input.line;
  void line;
}
const parsed = Value.Parse(Finding, input);
const file: string = parsed.file;
const made: { file: string; line: number } = Named.Create(Finding);
const errors: ValueError[] = Errors(Finding, input);
const first: string = errors[0]!.instancePath;
const cleaned: unknown = Value.Clean(Finding, Value.Convert(Finding, Value.Default(Finding, input)));
try {
  Value.Parse(Finding, input);
} catch (error) {
  if (error instanceof ParseError) void error.cause.errors[0]!.message;
}
export const wrong: string = Value.Parse(Finding, input).line;
void [file, made, first, cleaned];
"#,
    );
    let ran = tsc(
        &project,
        &[project.path().join("value.ts").display().to_string()],
    );
    assert_eq!(ran.code, Some(2), "{}", ran.stdout);
    let errors: Vec<&str> = ran
        .stdout
        .lines()
        .filter(|line| line.starts_with("value.ts("))
        .collect();
    assert_text(
        &errors.join("\n"),
        "value.ts(22,14): error TS2322: Type 'number' is not assignable to type 'string'.",
    );
}
