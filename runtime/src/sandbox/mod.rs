//! Agent sandboxes: where an agent's process may read, write and connect, whatever its runtime.
//!
//! A sandbox is opened by `wf.sandboxes.open`, inline as an agent's `sandbox`, or for every agent
//! by `awf run --agent-sandbox FILE.json`. A provider (bubblewrap on Linux; containers later, behind
//! the same trait) turns an agent's `Launch` into the confined one. `network` owns the host-side
//! proxy and the in-box bridge that give a sandbox the hosts it was granted and nothing else.

pub mod network;
