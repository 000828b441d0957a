//! The built-in `typebox` builds the same JSON Schema as the npm package `typebox` 1.x: the
//! corpus in tests/fixtures/typebox/ is printed by node with the real package (installed once
//! into target/test-tools/) and by `awf run`, and every entry must match, keys in order.

use std::os::unix::fs::symlink;

use serde_json::Value;

use crate::util::{node_bin, npm_tool, AwfCommand, TempProject};

/// The typebox release the corpus was checked against.
const TYPEBOX_VERSION: &str = "1.4.3";

#[test]
fn the_corpus_matches_npm_typebox() {
    let typebox = npm_tool("typebox", TYPEBOX_VERSION);
    let project = TempProject::new();
    project.copy_fixture("typebox");
    // corpus.js imports "typebox": node finds the real one here; awf serves its own.
    symlink(
        typebox.join("node_modules"),
        project.path().join("node_modules"),
    )
    .unwrap();

    let node = AwfCommand::new(node_bin())
        .arg("print-node.mjs")
        .current_dir(&project.path())
        .run();
    node.assert_success();
    let awf = project.awf(&["run", "print-awf.ts"]).run();
    awf.assert_success();

    let expected = entries(&node.stdout);
    let actual = entries(&awf.stdout);
    assert!(
        expected.len() > 60,
        "the corpus has {} entries",
        expected.len()
    );
    let names = |list: &[(String, String)]| list.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    assert_eq!(
        names(&actual),
        names(&expected),
        "the same entries, in order"
    );
    let differences: Vec<String> = expected
        .iter()
        .zip(&actual)
        .filter(|(e, a)| e.1 != a.1)
        .map(|(e, a)| format!("{}\n  typebox: {}\n  awf:     {}", e.0, e.1, a.1))
        .collect();
    assert!(
        differences.is_empty(),
        "{} of {} schemas differ from typebox {TYPEBOX_VERSION}:\n{}",
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
