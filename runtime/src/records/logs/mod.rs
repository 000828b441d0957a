//! What `awf logs` shows: finding a run's folder, filtering its events, one readable line each.
//!
//! A line is the time, who (the agent, and its turn or call), then what happened; values are
//! compact JSON, folded when long. `--json` prints the raw lines instead (`reader.rs`).
//!
//! - `find.rs`: the run `awf logs [RUN]` means, and the agents it opened.
//! - `filter.rs`: which events `--agent`, `--tool` and `--turn` keep.
//! - `line.rs`: one event as a line, in its three parts.
//! - `place.rs`: where an agent ran: its sandbox's grants, its worktree and how it ended.
//! - `values.rs`: how the values in a line read: folded JSON, sizes, durations, token counts.

mod filter;
mod find;
mod line;
mod place;
mod values;

pub use filter::LogFilter;
pub use find::{agents_of, find_run, LogsError};
pub use line::{line, parts, LogLine};
