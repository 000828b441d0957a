//! The agent channel: each agent's Unix socket and launcher, and the wire protocol `wfa` speaks.
//!
//! `wire.rs` and `refusal.rs` depend on nothing but serde, because the `wfa` binary includes
//! them by path.

pub mod refusal;
pub mod wire;
