//! The library's errors: one `Error` for the fallible calls the CLI makes outside a run (a
//! run's own failures are `JsError`s in its `RunReport`). Each concern words its errors at the
//! variant (thiserror), subject first, lowercase, no final period; `Hint` adds what to do next
//! where awf knows something useful (hint.rs). The CLI prints them in one place (cli/src/failure.rs):
//! `awf: <error>`, its causes indented below, then a blank line and `hint: ...`.

use crate::duration::DurationError;
use crate::hint::Hint;
use crate::records::logs::LogsError;
use crate::testing::event::ReportError;
use crate::testing::TestError;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Duration(#[from] DurationError),
    #[error(transparent)]
    Logs(#[from] LogsError),
    #[error(transparent)]
    Test(#[from] TestError),
    #[error(transparent)]
    Report(#[from] ReportError),
}

impl Hint for Error {
    fn hint(&self) -> Option<String> {
        match self {
            Error::Duration(e) => e.hint(),
            Error::Logs(e) => e.hint(),
            Error::Test(e) => e.hint(),
            Error::Report(_) => None,
        }
    }
}
