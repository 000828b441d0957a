//! TypeScript and module loading, one fixture per feature under tests/fixtures/ts/: each is a
//! workflow whose result shows the feature worked, run by `awf run` (records go to a temp cwd).

use serde_json::{json, Value};

use crate::util::{fixture, TempProject};

/// Runs tests/fixtures/ts/<file> with `words` after `--` and gives back its result.
fn result_of(file: &str, words: &[&str]) -> Value {
    let records = TempProject::new();
    let ran = records
        .awf(&["run"])
        .arg(fixture("ts").join(file))
        .arg("--")
        .args(words)
        .run();
    ran.assert_success();
    assert_eq!(ran.stderr, "", "{file} writes nothing on stderr");
    ran.json()
}

#[test]
fn type_syntax_is_stripped() {
    assert_eq!(
        result_of("types.ts", &[]),
        json!({
            "first": "a",
            "area": 9,
            "overloaded": ["s", 2],
            "isPoint": true,
            "greet": "hi impl",
            "direction": ["up", "down"],
            "pair": [1, 2],
            "nonNull": 3,
            "asNumber": 1,
            "cast": 1,
            "table": {"a": 1},
        })
    );
}

#[test]
fn enums_become_code() {
    assert_eq!(
        result_of("enums.ts", &[]),
        json!({
            "levels": [0, 5, 6],
            "reverse": "Mid",
            "colors": ["red", "green"],
            "flags": 3,
            "size": 1,
        })
    );
}

#[test]
fn parameter_properties_and_modifiers_work() {
    assert_eq!(
        result_of("classes.ts", &[]),
        json!({
            "owner": "ada",
            "name": "ada (savings)",
            "canSpend": [true, false],
            "secretLength": 6,
            "keys": ["owner", "balance", "limit", "note"],
        })
    );
}

#[test]
fn optional_chaining_and_nullish_operators_work() {
    assert_eq!(
        result_of("optional.ts", &[]),
        json!({
            "second": 2,
            "third": "none",
            "called": 42,
            "notCalled": "no call",
            "onNothing": null,
            "indexed": 2,
            "counts": {"misses": 5, "hits": 1},
        })
    );
}

#[test]
fn top_level_await_works_here_in_imports_and_with_dynamic_import() {
    assert_eq!(
        result_of("top-level-await.ts", &[]),
        json!({
            "waited": "timer",
            "ready": "imported module awaited",
            "data": {"name": "data", "list": [1, 2, 3], "nested": {"ok": true}},
        })
    );
}

#[test]
fn imports_resolve_with_or_without_extension_folders_json_and_author_modules() {
    assert_eq!(
        result_of("imports.ts", &[]),
        json!({
            "area": 4,
            "kinds": ["square", "circle"],
            "twice": 42,
            "fromIndex": "folder/index.ts",
            "viaIndex": "named index",
            "data": {"name": "data", "list": [1, 2, 3], "nested": {"ok": true}},
            "mts": "module.mts",
            "mjs": "module.mjs",
            "js": "module.js",
            "reexported": ["areaOf", "shapes", "twice"],
            "defaultGreeting": "hello from a default export",
            "greetingCount": 1,
            "sameAuthorValues": [true, true, true, true, true, true, true],
        })
    );
}

#[test]
fn plain_javascript_workflows_load_too() {
    assert_eq!(
        result_of("plain.js", &["w"]),
        json!({"language": "js", "twice": 4, "argv": ["w"]})
    );
    assert_eq!(
        result_of("plain.mjs", &[]),
        json!({"language": "mjs", "name": "data"})
    );
    assert_eq!(result_of("entry.mts", &[]), json!({"language": "mts"}));
}

#[test]
fn one_file_imported_by_several_names_is_one_module() {
    let project = TempProject::new();
    project
        .file(
            "counter.ts",
            "export const state = { loads: 0 };\nstate.loads++;\n",
        )
        .file(
            "wf.ts",
            r#"import { state as a } from "./counter";
import { state as b } from "./counter.ts";
import { state as c } from "./counter.js";
import { state as d } from "./sub/../counter";
export default defineWorkflow({
  meta: { name: "once", description: "One instance." },
  run: () => ({ same: a === b && b === c && c === d, loads: a.loads }),
});
"#,
        )
        .file("sub/.keep", "");
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_eq!(
        ran.assert_success().json(),
        json!({"same": true, "loads": 1})
    );
}

#[test]
fn a_file_compiled_once_runs_from_the_compile_cache_the_same_until_it_changes() {
    let project = TempProject::new();
    let cache = project.path().join("cache");
    let workflow = |answer: &str| {
        format!(
            r#"import {{ twice }} from "./lib.ts";
interface Shape {{ side: number }}
export default defineWorkflow({{
  meta: {{ name: "cached", description: "From the cache." }},
  run: () => {{
    const shape: Shape = {{ side: {answer} }};
    let at = "";
    try {{ twice(shape.side); }} catch (error) {{ at = String((error as Error).stack).split("\n")[1].trim(); }}
    return {{ value: shape.side, url: import.meta.filename.endsWith("wf.ts"), at }};
  }},
}});
"#
        )
    };
    project
        .file(
            "lib.ts",
            "type N = number;\nexport function twice(n: N): N {\n  throw new Error(`no ${n}`);\n}\n",
        )
        .file("wf.ts", &workflow("3"));
    let run_with = |switch: &str| {
        let ran = project
            .awf(&["run", "wf.ts"])
            .env("AWF_CACHE_DIR", &cache)
            .env("AWF_COMPILE_CACHE", switch)
            .run();
        ran.assert_success().json()
    };
    let run = || run_with("1");
    let expected = run_with("0");
    assert!(!cache.exists(), "AWF_COMPILE_CACHE=0 writes no cache");
    let lib = project.path().join("lib.ts").display().to_string();
    assert!(
        expected["at"]
            .as_str()
            .unwrap()
            .starts_with(&format!("at twice ({lib}:3:")),
        "{expected}"
    );
    assert_eq!(
        run(),
        expected,
        "the first run compiles and writes the cache"
    );
    let entries = std::fs::read_dir(cache.join("compiled")).unwrap().count();
    assert_eq!(entries, 2, "one entry for each of wf.ts and lib.ts");
    assert_eq!(run(), expected, "the second run reads both from the cache");
    project.file("wf.ts", &workflow("4"));
    assert_eq!(run()["value"], 4, "a changed file is compiled again");
}
