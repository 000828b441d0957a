//! The op of `awf test`'s file runner (js/test/file_runner.ts): each test result, as it
//! happens, to the file runner's sink (runtime/src/testing/file.rs).

use std::rc::Rc;

use rquickjs::function::Rest;
use rquickjs::{Ctx, Value};

use super::{arg, string, type_error, Op, OpDecl};
use crate::js::engine::HostState;
use crate::testing::event::{FileReport, FileReportSink};

pub const OPS: &[OpDecl] = &[OpDecl {
    name: "test_event",
    op: Op::Sync(test_event),
}];

/// `test_event(json)`: one `FileReport`, tagged by `kind`, as JSON text (`JSON.stringify` in C
/// is cheaper than reading the object field by field, for a few events per test).
fn test_event<'js>(
    ctx: &Ctx<'js>,
    state: &Rc<HostState>,
    args: Rest<Value<'js>>,
) -> rquickjs::Result<Value<'js>> {
    let json = string(ctx, &arg(ctx, &args, 0), "a test report")?;
    let report = FileReport::from_json_text(&json).map_err(|e| type_error(ctx, &e))?;
    let sink = state.get::<FileReportSink>().ok_or_else(|| {
        type_error(
            ctx,
            "test results can only be reported from a file `awf test` runs",
        )
    })?;
    sink.report(report);
    Ok(Value::new_undefined(ctx.clone()))
}
