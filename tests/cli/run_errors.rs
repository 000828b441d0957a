//! A workflow that cannot be used, or fails: each mistake gives one message a user can act on
//! (where, what, a code frame or the .ts frames, a hint) and its exit code: 2 when the file is
//! not a usable workflow or prepare() refuses the command line, 1 when run() fails.
//!
//! The cases are data: each is a folder under tests/specs/run_errors/ holding the project's
//! files (`wf.ts`, and what it imports) and `expected.out`, the snapshot of `awf run wf.ts`
//! there: exit code, stdout and stderr, with run ids and temp paths filtered. The table below
//! makes one test of each; a folder missing from it fails `every_case_folder_is_in_the_table`.

use std::path::{Path, PathBuf};

use crate::util::{assert_text, workspace, TempProject};

/// The snapshot of each case, beside its files.
const EXPECTED: &str = "expected.out";

/// One `#[test]` per case folder, and the list of them all.
macro_rules! cases {
    ($($case:ident),* $(,)?) => {
        $(
            #[test]
            fn $case() {
                check(stringify!($case));
            }
        )*
        const CASES: &[&str] = &[$(stringify!($case)),*];
    };
}

cases![
    // Syntax and data that do not parse: the position, with a code frame.
    a_syntax_error_shows_where_with_a_code_frame,
    a_syntax_error_in_an_imported_file_names_that_file,
    invalid_json_data_shows_where,
    a_decorator_is_refused_where_it_is_written,
    // Throws and rejections: the message and the .ts frames.
    an_uncaught_throw_shows_the_message_and_ts_frames,
    a_thrown_non_error_is_described,
    an_unhandled_rejection_fails_the_run,
    a_throw_while_loading_is_an_invalid_workflow,
    // The default export and its meta.
    a_file_without_a_default_export_is_refused,
    a_default_export_that_is_not_a_workflow_is_refused,
    a_blank_meta_name_is_refused,
    an_invalid_meta_name_is_refused,
    a_workflow_without_run_is_refused,
    // Results that are not JSON.
    a_date_in_the_result_fails_the_run,
    a_class_instance_in_the_result_fails_the_run,
    a_cycle_in_the_result_fails_the_run,
    a_function_in_the_result_fails_the_run,
    a_result_nested_too_deep_is_refused_not_a_crash,
    // Imports that resolve to nothing, with a hint.
    an_unresolvable_relative_import_says_where_it_was_written,
    a_misspelt_author_module_gets_a_suggestion,
    a_package_import_says_what_awf_serves,
    // Imported names a module does not export: at the import, with "did you mean".
    a_misspelt_imported_name_is_placed_with_a_suggestion,
    a_missing_export_of_a_local_file_is_placed_with_its_names,
    // prepare() refusing the command line.
    a_throw_in_prepare_is_a_usage_error,
    a_prepare_value_that_is_not_json_is_a_usage_error,
    // A run nothing can finish.
    a_run_that_can_never_finish_is_reported_not_hung,
    // An awf function refusing a call whose arguments span lines: where the call is written.
    an_open_spanning_lines_points_at_the_call,
    a_tool_spanning_lines_points_at_the_call,
    a_bad_schema_points_at_its_property,
    // A call of something that is not a function: the name as the author wrote it.
    calling_a_misspelt_method_names_what_was_called,
];

fn specs() -> PathBuf {
    workspace().join("tests/specs/run_errors")
}

/// Runs `awf run wf.ts` in a copy of the case's files and compares with its snapshot.
fn check(case: &str) {
    let dir = specs().join(case);
    let project = TempProject::new();
    copy_case(&dir, &project.path());
    let expected = std::fs::read_to_string(dir.join(EXPECTED))
        .unwrap_or_else(|e| panic!("{}: {e}", dir.join(EXPECTED).display()));
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_text(&ran.snapshot(&project.path()), &expected);
}

/// The case's files, its snapshot left out.
fn copy_case(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).expect("a case folder") {
        let entry = entry.expect("a case file");
        if entry.file_name() != EXPECTED {
            std::fs::copy(entry.path(), to.join(entry.file_name())).expect("a case file copies");
        }
    }
}

#[test]
fn every_case_folder_is_in_the_table() {
    let mut folders: Vec<String> = std::fs::read_dir(specs())
        .expect("tests/specs/run_errors")
        .map(|entry| {
            entry
                .expect("a case")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    folders.sort();
    let mut listed: Vec<String> = CASES.iter().map(|case| case.to_string()).collect();
    listed.sort();
    assert_eq!(folders, listed);
}
