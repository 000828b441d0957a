//! The built-in `typebox` builds the same JSON Schema as the npm package `typebox` 1.x, and its
//! `typebox/value` gives the same results: each corpus in tests/fixtures/typebox/ is printed by
//! node with the real package (installed once into target/test-tools/) and by `awf run`, and
//! every entry must match, keys in order.

use std::os::unix::fs::symlink;

use serde_json::Value;

use crate::util::{node_bin, npm_tool, AwfCommand, TempProject};

/// The typebox release the corpus was checked against.
const TYPEBOX_VERSION: &str = "1.4.3";

#[test]
fn the_corpus_matches_npm_typebox() {
    let (expected, actual) = print_both("print-node.mjs", "print-awf.ts");
    assert!(
        expected.len() > 60,
        "the corpus has {} entries",
        expected.len()
    );
    assert_same(&expected, &actual, "schemas");
}

#[test]
fn value_gives_npm_typebox_results_on_the_value_corpus() {
    // Check, Errors, Default, Clean, Convert and Parse on every (schema, value) pair, and
    // Create on every schema: value-results.js.
    let (expected, actual) = print_both("print-value-node.mjs", "print-value-awf.ts");
    assert!(
        expected.len() > 1000,
        "the value corpus has {} entries",
        expected.len()
    );
    assert_same(&expected, &actual, "Value results");
}

/// What a script printed: (name, result) lines.
type Entries = Vec<(String, String)>;

/// The entries `node_script` prints with npm typebox and `awf_script` prints with awf's built-in.
fn print_both(node_script: &str, awf_script: &str) -> (Entries, Entries) {
    let typebox = npm_tool("typebox", TYPEBOX_VERSION);
    let project = TempProject::new();
    project.copy_fixture("typebox");
    // The corpus imports "typebox": node finds the real one here; awf serves its own.
    symlink(
        typebox.join("node_modules"),
        project.path().join("node_modules"),
    )
    .unwrap();

    let node = AwfCommand::new(node_bin())
        .arg(node_script)
        .current_dir(&project.path())
        .run();
    node.assert_success();
    let awf = project.awf(&["run", awf_script]).run();
    awf.assert_success();
    (entries(&node.stdout), entries(&awf.stdout))
}

/// Every entry the same, in the same order; otherwise each difference, typebox's beside awf's.
fn assert_same(expected: &[(String, String)], actual: &[(String, String)], what: &str) {
    let names = |list: &[(String, String)]| list.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    assert_eq!(names(actual), names(expected), "the same entries, in order");
    let differences: Vec<String> = expected
        .iter()
        .zip(actual)
        .filter(|(e, a)| e.1 != a.1)
        .map(|(e, a)| format!("{}\n  typebox: {}\n  awf:     {}", e.0, e.1, a.1))
        .collect();
    assert!(
        differences.is_empty(),
        "{} of {} {what} differ from typebox {TYPEBOX_VERSION}:\n{}",
        differences.len(),
        expected.len(),
        differences.join("\n")
    );
}

/// Each entry of the printed corpus, with its schema as compact JSON (key order kept).
fn entries(printed: &str) -> Vec<(String, String)> {
    let value: Value = serde_json::from_str(printed)
        .unwrap_or_else(|e| panic!("the corpus printout is not JSON ({e}):\n{printed}"));
    let Value::Object(map) = value else {
        panic!("the corpus printout is not an object:\n{printed}");
    };
    map.into_iter()
        .map(|(name, schema)| (name, schema.to_string()))
        .collect()
}
