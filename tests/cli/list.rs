//! `awf list [DIR]`: the workflow files under a folder with their meta; helpers and tests left
//! out; a file that fails to load listed with its error (exit 1), never a crash; `--json`.

use serde_json::{json, Value};

use crate::util::{assert_has, TempProject};

#[test]
fn lists_workflows_with_their_meta_and_a_broken_file_with_its_error() {
    let project = TempProject::new();
    project
        .file(
            "flows/review.ts",
            r#"export default defineWorkflow({
  meta: { name: "review", description: "Reviews a diff.", whenToUse: "Before a merge.", version: "1.2.0" },
  async run() { return 1; },
});
"#,
        )
        .file(
            "flows/nested/fix.ts",
            "export default defineWorkflow({ meta: { name: \"fix\", description: \"Fixes tests.\" }, async run() {} });\n",
        )
        .file("flows/lib/helper.ts", "export const helper = 1;\n")
        .file("flows/review.test.ts", "test(\"x\", () => {});\n")
        .file(
            "flows/broken.ts",
            "export default defineWorkflow({ meta: { name: \"broken\" }, async run() {} });\n",
        );
    let ran = project.awf(&["list", "flows", "--json"]).run();
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);
    let listed: Value = serde_json::from_str(&ran.stdout).unwrap();
    let items = listed.as_array().unwrap();
    assert_eq!(items.len(), 3, "{listed:#}");
    assert_eq!(items[0]["file"], "broken.ts");
    assert_has(
        items[0]["error"].as_str().unwrap(),
        "defineWorkflow(spec): meta.description is blank; say in a sentence what the workflow does\n    at <anonymous> (broken.ts:1:1)",
    );
    assert_eq!(
        items[1],
        json!({ "file": "nested/fix.ts", "name": "fix", "description": "Fixes tests.", "whenToUse": null, "version": null })
    );
    assert_eq!(
        items[2],
        json!({ "file": "review.ts", "name": "review", "description": "Reviews a diff.", "whenToUse": "Before a merge.", "version": "1.2.0" })
    );

    let text = project.awf(&["list", "flows"]).run();
    assert_eq!(text.code, Some(1));
    assert_has(
        &text.stdout,
        "review 1.2.0  review.ts\n  Reviews a diff.\n  when to use: Before a merge.\n",
    );
    assert_has(
        &text.stdout,
        "broken.ts: does not load: defineWorkflow(spec): meta.description is blank",
    );

    project.file("flows/broken.ts", "export const fixed = true;\n");
    project.awf(&["list", "flows"]).run().assert_success();
    let missing = project.awf(&["list", "nowhere"]).run();
    assert_eq!(missing.code, Some(2));
    assert_has(&missing.stderr, "nowhere: no such folder");
}
