//! The output op behind js/host/console.ts (and process.stdout/stderr): where text goes, as the
//! host's `ConsoleTarget` says.

use std::io::Write;
use std::rc::Rc;

use serde::Deserialize;

use crate::js::engine::{sync_op, ConsoleTarget, HostState, OpDecl, OpError, OutputStream};

pub const OPS: &[OpDecl] = &[sync_op!(print)];

#[derive(Deserialize)]
struct Print(i32, String);

/// `print(fd, text)`: text to stdout (1) or stderr (2), without a newline.
fn print(state: &Rc<HostState>, Print(fd, text): Print) -> Result<(), OpError> {
    let stream = if fd == 1 {
        OutputStream::Stdout
    } else {
        OutputStream::Stderr
    };
    let to_stdout = match &state.config.console {
        ConsoleTarget::Capture(sink) => {
            sink.write(stream, &text);
            return Ok(());
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
    Ok(())
}
