//! Ops of `awf test`'s JS half: js/test/file_runner.ts.

pub mod file_runner;
pub mod module_mock;
pub mod snapshot;
