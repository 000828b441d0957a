//! The seam between an agent's processes and the sandbox it runs in: every process an agent's
//! runtime starts (its turns, check-ins, forks, compactions) passes through `Confinement` when
//! the agent was opened with a sandbox. `crate::sandbox` implements it; a harness only asks
//! whether there is one (a CLI opens its own gate inside awf's box).

use super::Launch;

/// Where an agent's processes run: turns a launch into the one that runs it confined.
pub trait Confinement: Send + Sync {
    /// `launch` as started inside the sandbox: the provider's program, wrapping it.
    fn confine(&self, launch: Launch) -> Launch;
}
