//! A run's data and stages, below the engine: which run an attempt is of and its records
//! (attempt.rs), the stages it reuses (stages.rs), the source files it records (sources.rs),
//! the ending that picks the exit code (exit.rs), and `Run` (run.rs), the state the ops of `wf`
//! share. The run driver (crate::run) starts the engine and drives an attempt over these.

pub mod attempt;
pub mod exit;
pub mod run;
pub mod sources;
pub mod stages;

pub use attempt::ContinueWhich;
pub use exit::Ending;
