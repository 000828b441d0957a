//! The op of `awf test`'s file runner (js/test/file_runner.ts): each test result, as it
//! happens, to the file runner's sink (runtime/src/testing/file.rs).

use std::rc::Rc;

use crate::js::engine::{sync_op, HostState, OpDecl, OpError};
use crate::js::{link_error, JsError};
use crate::testing::event::{FileReport, FileReportSink, SourceLocation, TestFailure};

pub const OPS: &[OpDecl] = &[sync_op!(test_event)];

/// `test_event(json)`: one `FileReport`, tagged by `kind`, as JSON text (`JSON.stringify` in C
/// is cheaper than reading the object field by field, for a few events per test).
fn test_event(state: &Rc<HostState>, json: String) -> Result<(), OpError> {
    let report =
        FileReport::from_json_text(&json).map_err(|e| OpError::type_error(e.to_string()))?;
    let sink = state.get::<FileReportSink>().ok_or_else(|| {
        OpError::type_error("test results can only be reported from a file `awf test` runs")
    })?;
    let report = match report {
        FileReport::Error { origin, failure } => FileReport::Error {
            origin,
            failure: placed_at_import(state, failure),
        },
        other => other,
    };
    sink.report(report);
    Ok(())
}

/// A file's import of a name its module does not export, said as `awf run` says it: at the
/// import, with "did you mean" (link_error.rs), not in QuickJS's words.
fn placed_at_import(state: &HostState, failure: TestFailure) -> TestFailure {
    let quickjs = JsError::message(&failure.name, &failure.message);
    let placed = link_error::place(state, quickjs.clone());
    if placed == quickjs {
        return failure;
    }
    TestFailure {
        name: placed.name,
        message: placed.message,
        code: placed.code,
        hint: placed.hint,
        location: placed.location.map(|at| SourceLocation {
            file: at.file,
            line: at.line,
            col: at.col,
        }),
        ..TestFailure::default()
    }
}
