//! Where a host's console and `process.stdout`/`stderr` text goes.

use std::rc::Rc;

/// Where console output goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConsoleTarget {
    /// log/info/debug to stdout, warn/error to stderr (tests, scripts).
    Split,
    /// Everything to stderr: stdout carries only a workflow's result.
    Stderr,
    /// As `Split`, but each write goes to this sink with its stream, in order, instead of the
    /// process's stdout and stderr: `awf test` keeps a file's output with its results.
    Capture(OutputSink),
}

/// The stream a write was meant for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputStream {
    Stdout,
    Stderr,
}

/// Receives a host's console and process.stdout/stderr text (`ConsoleTarget::Capture`).
#[derive(Clone)]
pub struct OutputSink(Rc<WriteOutput>);

type WriteOutput = dyn Fn(OutputStream, &str);

impl OutputSink {
    pub fn new(write: impl Fn(OutputStream, &str) + 'static) -> OutputSink {
        OutputSink(Rc::new(write))
    }

    pub fn write(&self, stream: OutputStream, text: &str) {
        (self.0)(stream, text)
    }
}

impl std::fmt::Debug for OutputSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OutputSink")
    }
}

impl PartialEq for OutputSink {
    fn eq(&self, other: &OutputSink) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for OutputSink {}
