//! The op of `awf test`'s file runner (js/test/file_runner.ts): each test result, as it
//! happens, to the file runner's sink (runtime/src/testing/file.rs).

use std::rc::Rc;

use rquickjs::function::Rest;
use rquickjs::{Ctx, Value};

use super::{arg, type_error, Op, OpDecl};
use crate::js::convert;
use crate::js::engine::HostState;
use crate::testing::event::{FileReport, FileReportSink};

pub const OPS: &[OpDecl] = &[OpDecl {
    name: "test_event",
    op: Op::Sync(test_event),
}];

/// `test_event(report)`: one `FileReport` object, tagged by `kind`.
fn test_event<'js>(
    ctx: &Ctx<'js>,
    state: &Rc<HostState>,
    args: Rest<Value<'js>>,
) -> rquickjs::Result<Value<'js>> {
    let json = convert::to_json_or_throw(ctx, &arg(ctx, &args, 0))?;
    let report = FileReport::from_json(json).map_err(|e| type_error(ctx, &e))?;
    let sink = state.get::<FileReportSink>().ok_or_else(|| {
        type_error(
            ctx,
            "test results can only be reported from a file `awf test` runs",
        )
    })?;
    sink.report(report);
    Ok(Value::new_undefined(ctx.clone()))
}
