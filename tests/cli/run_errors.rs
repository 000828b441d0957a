//! A workflow that cannot be used, or fails: each mistake gives one message a user can act on
//! (where, what, a code frame or the .ts frames, a hint) and its exit code: 2 when the file is
//! not a usable workflow or prepare() refuses the command line, 1 when run() fails. Snapshots of
//! exit code, stdout and stderr, with run ids and temp paths filtered.

use crate::util::{assert_text, TempProject};

#[test]
fn a_syntax_error_shows_where_with_a_code_frame() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"interface Finding {
  file: string;
}

export default defineWorkflow({
  meta: { name: "broken", description: "Does not parse." },
  run() {
    const findings: Finding[] = [;
    return findings;
  },
});
"#,
    );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_text(
        &ran.snapshot(&project.path()),
        r#"exit: 2
--- stdout
--- stderr
awf: wf.ts:8:34: SyntaxError: Expression expected
 8 |     const findings: Finding[] = [;
   |                                  ^
"#,
    );
}

#[test]
fn a_syntax_error_in_an_imported_file_names_that_file() {
    let project = TempProject::new();
    project
        .file(
            "wf.ts",
            r#"import { helper } from "./helper";

export default defineWorkflow({
  meta: { name: "importer", description: "Imports a broken file." },
  run: () => helper(),
});
"#,
        )
        .file(
            "helper.ts",
            r#"export function helper(): number {
  return 1 +;
}
"#,
        );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_text(
        &ran.snapshot(&project.path()),
        r#"exit: 2
--- stdout
--- stderr
awf: helper.ts:2:13: SyntaxError: Expression expected
 2 |   return 1 +;
   |             ^
"#,
    );
}

#[test]
fn invalid_json_data_shows_where() {
    let project = TempProject::new();
    project
        .file("wf.ts", r#"import config from "./config.json";
export default defineWorkflow({ meta: { name: "json", description: "Bad JSON." }, run: () => config });
"#)
        .file("config.json", r#"{
  "a": 1,
  "b": ,
}
"#);
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_text(
        &ran.snapshot(&project.path()),
        r#"exit: 2
--- stdout
--- stderr
awf: config.json:3:8: SyntaxError: not valid JSON: expected value
 3 |   "b": ,
   |        ^
"#,
    );
}

#[test]
fn an_uncaught_throw_shows_the_message_and_ts_frames() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"interface Finding {
  file: string;
  line: number;
}

type Report = { findings: Finding[] };

function check(report: Report): never {
  throw new Error(`${report.findings.length} findings, expected none`);
}

export default defineWorkflow({
  meta: { name: "thrower", description: "Throws from run." },
  async run() {
    await Promise.resolve();
    return check({ findings: [{ file: "a.ts", line: 1 }] });
  },
});
"#,
    );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_text(
        &ran.snapshot(&project.path()),
        r#"exit: 1
--- stdout
--- stderr
awf: run failed: Error: 1 findings, expected none
    at check (wf.ts:9:22)
    at run (wf.ts:16:12)
awf: records in .awf/runs/thrower/[RUN_ID]
"#,
    );
}

#[test]
fn a_thrown_non_error_is_described() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "string", description: "Throws a string." },
  run: () => {
    throw "not an Error";
  },
});
"#,
    );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_text(
        &ran.snapshot(&project.path()),
        r#"exit: 1
--- stdout
--- stderr
awf: run failed: Error: a non-error value was thrown: "not an Error"
awf: records in .awf/runs/string/[RUN_ID]
"#,
    );
}

#[test]
fn an_unhandled_rejection_fails_the_run() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "unhandled", description: "Drops a rejection." },
  async run() {
    Promise.reject(new TypeError("nobody waits for this"));
    await new Promise((resolve) => setTimeout(resolve, 20));
    return "unreachable";
  },
});
"#,
    );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_text(
        &ran.snapshot(&project.path()),
        r#"exit: 1
--- stdout
--- stderr
awf: run failed: TypeError: nobody waits for this
    at run (wf.ts:4:24)
awf: records in .awf/runs/unhandled/[RUN_ID]
"#,
    );
}

#[test]
fn a_throw_while_loading_is_an_invalid_workflow() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"const required: string | undefined = process.env.AWF_TEST_NOT_SET;
if (!required) throw new Error("AWF_TEST_NOT_SET is not set");

export default defineWorkflow({
  meta: { name: "toplevel", description: "Throws while loading." },
  run: () => required,
});
"#,
    );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_text(
        &ran.snapshot(&project.path()),
        r#"exit: 2
--- stdout
--- stderr
awf: Error: AWF_TEST_NOT_SET is not set
    at <anonymous> (wf.ts:2:26)
"#,
    );
}

#[test]
fn a_file_without_a_default_export_is_refused() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"export const workflow = defineWorkflow({
  meta: { name: "named", description: "Exported by name." },
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
awf: wf.ts has no default export

hint: end the file with: export default defineWorkflow({ meta: { name, description }, run })
"#,
    );
}

#[test]
fn a_default_export_that_is_not_a_workflow_is_refused() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"export default {
  meta: { name: "plain", description: "Not from defineWorkflow." },
  run: () => 1,
};
"#,
    );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_text(
        &ran.snapshot(&project.path()),
        r#"exit: 2
--- stdout
--- stderr
awf: the default export of wf.ts is not a workflow (it is an object without the mark of defineWorkflow)

hint: export the value of defineWorkflow({ meta: { name, description }, run }) as default
"#,
    );
}

#[test]
fn a_blank_meta_name_is_refused() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: " ", description: "Blank name." },
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
awf: defineWorkflow(spec): meta.name is blank; it names the run folder, e.g. "dead-code"
    at <anonymous> (wf.ts:1:1)
"#,
    );
}

#[test]
fn an_invalid_meta_name_is_refused() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "../escape", description: "A name with a slash." },
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
awf: defineWorkflow(spec): meta.name "../escape" is not a valid name; use 1 to 128 letters, digits, '.', '_' or '-', not starting with '.'
    at <anonymous> (wf.ts:1:1)
"#,
    );
}

#[test]
fn a_workflow_without_run_is_refused() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "norun", description: "No run." },
} as any);
"#,
    );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_text(
        &ran.snapshot(&project.path()),
        r#"exit: 2
--- stdout
--- stderr
awf: defineWorkflow(spec): spec.run must be a function: async run(wf, input) { ... }
    at <anonymous> (wf.ts:1:1)
"#,
    );
}

#[test]
fn a_date_in_the_result_fails_the_run() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "dated", description: "Returns a Date." },
  run: () => ({ when: new Date(0) }),
});
"#,
    );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_text(
        &ran.snapshot(&project.path()),
        r#"exit: 1
--- stdout
--- stderr
awf: run failed: run() returned a result that is not JSON: value.when is a Date, which is not JSON
awf: records in .awf/runs/dated/[RUN_ID]
"#,
    );
}

#[test]
fn a_class_instance_in_the_result_fails_the_run() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"class Finding {
  constructor(public file: string) {}
}
export default defineWorkflow({
  meta: { name: "instance", description: "Returns a class instance." },
  run: () => ({ findings: [new Finding("a.ts")] }),
});
"#,
    );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_text(
        &ran.snapshot(&project.path()),
        r#"exit: 1
--- stdout
--- stderr
awf: run failed: run() returned a result that is not JSON: value.findings[0] is an instance of class Finding, which is not JSON
awf: records in .awf/runs/instance/[RUN_ID]
"#,
    );
}

#[test]
fn a_cycle_in_the_result_fails_the_run() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "cycle", description: "Returns a cycle." },
  run: () => {
    const node: { name: string; children: unknown[] } = { name: "root", children: [] };
    node.children.push({ parent: node });
    return node;
  },
});
"#,
    );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_text(
        &ran.snapshot(&project.path()),
        r#"exit: 1
--- stdout
--- stderr
awf: run failed: run() returned a result that is not JSON: value.children[0].parent is a cycle back to value, which is not JSON
awf: records in .awf/runs/cycle/[RUN_ID]
"#,
    );
}

#[test]
fn a_function_in_the_result_fails_the_run() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "function", description: "Returns a function." },
  run: () => ({ ok: true, later: () => 1 }),
});
"#,
    );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_text(
        &ran.snapshot(&project.path()),
        r#"exit: 1
--- stdout
--- stderr
awf: run failed: run() returned a result that is not JSON: value.later is a function, which is not JSON
awf: records in .awf/runs/function/[RUN_ID]
"#,
    );
}

#[test]
fn an_unresolvable_relative_import_says_where_it_was_written() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"import { defineWorkflow } from "agentswf";
import type { Finding } from "./types";
import { helper } from "./helpers/missing";

export default defineWorkflow({
  meta: { name: "imports", description: "Imports a missing file." },
  run: () => helper(),
});
"#,
    );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_text(
        &ran.snapshot(&project.path()),
        r#"exit: 2
--- stdout
--- stderr
awf: cannot resolve "./helpers/missing" from wf.ts:3:24
 3 | import { helper } from "./helpers/missing";
   |                        ^^^^^^^^^^^^^^^^^^^

hint: no file ./helpers/missing, nor with .ts, .mts, .js, .mjs or .json added, nor ./helpers/missing/index.ts exists
"#,
    );
}

#[test]
fn a_misspelt_author_module_gets_a_suggestion() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"import { defineWorkflow } from "agentswf/workflw";

export default defineWorkflow({
  meta: { name: "typo", description: "Imports a misspelt module." },
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
awf: cannot resolve "agentswf/workflw" from wf.ts:1:32
 1 | import { defineWorkflow } from "agentswf/workflw";
   |                                ^^^^^^^^^^^^^^^^^^

hint: did you mean "agentswf/workflow"? awf serves agentswf, agentswf/testing, typebox, bun:test and Node's modules (node:fs, node:path, ...)
"#,
    );
}

#[test]
fn a_package_import_says_what_awf_serves() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"import chalk from "chalk";

export default defineWorkflow({
  meta: { name: "package", description: "Imports an npm package." },
  run: () => chalk.red("x"),
});
"#,
    );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_text(
        &ran.snapshot(&project.path()),
        r#"exit: 2
--- stdout
--- stderr
awf: cannot resolve "chalk" from wf.ts:1:19
 1 | import chalk from "chalk";
   |                   ^^^^^^^

hint: awf serves agentswf, agentswf/testing, typebox, bun:test and Node's modules (node:fs, node:path, ...); other packages are not installed for workflows, import files by relative path
"#,
    );
}

#[test]
fn a_throw_in_prepare_is_a_usage_error() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "prepare", description: "Needs a word." },
  prepare: ({ argv }) => {
    if (argv.length !== 1) throw new Error(`expected one directory, got ${argv.length} words`);
    return { dir: argv[0] };
  },
  run: (wf, input) => input,
});
"#,
    );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_text(
        &ran.snapshot(&project.path()),
        r#"exit: 2
--- stdout
--- stderr
awf: prepare() refused the input: expected one directory, got 0 words
    at prepare (wf.ts:4:75)

hint: prepare({ argv, cwd }) gets the words after `--`: awf run <file> -- <words>
awf: records in .awf/runs/prepare/[RUN_ID]
"#,
    );
}

#[test]
fn a_prepare_value_that_is_not_json_is_a_usage_error() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "prepjson", description: "prepare returns a Map." },
  prepare: () => new Map(),
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
awf: prepare() returned an input that is not JSON: value is a Map, which is not JSON
awf: records in .awf/runs/prepjson/[RUN_ID]
"#,
    );
}

#[test]
fn a_run_that_can_never_finish_is_reported_not_hung() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "stalls", description: "Awaits forever." },
  async run() {
    await new Promise(() => {});
  },
});
"#,
    );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_text(
        &ran.snapshot(&project.path()),
        r#"exit: 1
--- stdout
--- stderr
awf: run failed: run() can never finish: it awaits a promise that nothing will settle

hint: no timer, agent turn or I/O was pending; look for a promise that is never resolved, or an await on something that never happens
awf: records in .awf/runs/stalls/[RUN_ID]
"#,
    );
}

#[test]
fn a_decorator_is_refused_where_it_is_written() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"function logged<T>(method: T): T {
  return method;
}
class Reviewer {
  @logged
  review(): string {
    return "ok";
  }
}
export default defineWorkflow({
  meta: { name: "decorated", description: "Uses a decorator." },
  run: () => new Reviewer().review(),
});
"#,
    );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_text(
        &ran.snapshot(&project.path()),
        r#"exit: 2
--- stdout
--- stderr
awf: wf.ts:5:3: SyntaxError: decorators are not supported: awf's engine (QuickJS) cannot run them; call the decorating function on the class or method instead
 5 |   @logged
   |   ^
"#,
    );
}

#[test]
fn a_result_nested_too_deep_is_refused_not_a_crash() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "deep", description: "Returns a very deep value." },
  run() {
    let value: unknown = 1;
    for (let i = 0; i < 100_000; i++) value = { next: value };
    return value;
  },
});
"#,
    );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_text(
        &ran.snapshot(&project.path()),
        "exit: 1
--- stdout
--- stderr
awf: run failed: run() returned a result that is not JSON: value.next.next.next.next.next.next.next.next.next.next.next… is nested more than 127 levels deep, which is not JSON
awf: records in .awf/runs/deep/[RUN_ID]
",
    );
}
