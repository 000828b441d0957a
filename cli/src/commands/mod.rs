//! One module per subcommand.

pub mod doctor;
pub mod logs;
pub mod run;
pub mod test;

/// The tokio runtime a subcommand runs on; `None` (after saying why) when the system refuses
/// its threads.
fn async_runtime() -> Option<tokio::runtime::Runtime> {
    match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => Some(runtime),
        Err(e) => {
            eprintln!("awf: cannot start the async runtime: {e}");
            None
        }
    }
}
