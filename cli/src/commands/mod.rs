//! One module per subcommand, `follow_up` (the commands `awf run` prints for after a run) and
//! `installed` (how this awf was installed, for `awf doctor`).

pub mod answer;
pub mod doctor;
mod follow_up;
pub mod init;
mod installed;
pub mod list;
pub mod logs;
pub mod run;
pub mod runs;
pub mod shell;
pub mod test;
pub mod typings;
mod waiting;

use anyhow::Context;

use crate::failure::Failure;

/// The tokio runtime a subcommand runs on.
fn async_runtime() -> Result<tokio::runtime::Runtime, Failure> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
        .map_err(Failure::failed)
}
