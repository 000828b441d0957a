//! The output op behind js/host/console.ts (and process.stdout/stderr): where text goes, as the
//! host's `ConsoleTarget` says.

use std::io::Write;
use std::rc::Rc;

use rquickjs::function::Rest;
use rquickjs::{Ctx, Value};

use crate::js::engine::{ConsoleTarget, HostState, OutputStream};
use crate::js::ops::{arg, number, string, Op, OpDecl};

pub const OPS: &[OpDecl] = &[OpDecl {
    name: "print",
    op: Op::Sync(print),
}];

fn print<'js>(
    ctx: &Ctx<'js>,
    state: &Rc<HostState>,
    args: Rest<Value<'js>>,
) -> rquickjs::Result<Value<'js>> {
    let fd = number(&arg(ctx, &args, 0)) as i32;
    let text = string(ctx, &arg(ctx, &args, 1), "text")?;
    let stream = if fd == 1 {
        OutputStream::Stdout
    } else {
        OutputStream::Stderr
    };
    let to_stdout = match &state.config.console {
        ConsoleTarget::Capture(sink) => {
            sink.write(stream, &text);
            return Ok(Value::new_undefined(ctx.clone()));
        }
        ConsoleTarget::Split => stream == OutputStream::Stdout,
        ConsoleTarget::Stderr => false,
    };
    // A closed pipe (`awf run wf.ts | head`) must not fail the workflow: output is best effort.
    if to_stdout {
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(text.as_bytes()).and_then(|_| out.flush());
    } else {
        let _ = std::io::stderr().lock().write_all(text.as_bytes());
    }
    Ok(Value::new_undefined(ctx.clone()))
}
