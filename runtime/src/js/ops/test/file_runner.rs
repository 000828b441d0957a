//! The op of `awf test`'s file runner (js/test/file_runner.ts): each test result, as it
//! happens, to the file runner's sink (runtime/src/testing/file.rs).

use std::rc::Rc;

use crate::js::engine::{sync_op, HostState, OpDecl, OpError};
use crate::testing::event::{FileReport, FileReportSink};

pub const OPS: &[OpDecl] = &[sync_op!(test_event)];

/// `test_event(json)`: one `FileReport`, tagged by `kind`, as JSON text (`JSON.stringify` in C
/// is cheaper than reading the object field by field, for a few events per test).
fn test_event(state: &Rc<HostState>, json: String) -> Result<(), OpError> {
    let report =
        FileReport::from_json_text(&json).map_err(|e| OpError::type_error(e.to_string()))?;
    let sink = state.get::<FileReportSink>().ok_or_else(|| {
        OpError::type_error("test results can only be reported from a file `awf test` runs")
    })?;
    sink.report(report);
    Ok(())
}
