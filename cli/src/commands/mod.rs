//! One module per subcommand.

pub mod logs;
pub mod run;
