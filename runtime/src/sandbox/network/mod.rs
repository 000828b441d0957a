//! A sandbox's network: none by default; the hosts it was granted (`host`, `*.suffix`,
//! `host:port`) through a proxy awf runs on the host, reached from inside the box over a Unix
//! socket bridged to a loopback port (`wfa __bridge`); `network: true` is the host's network.
//!
//! - `rules.rs`: the grant as written, checked, and whether it allows `host:port`;
//! - `proxy.rs`: the proxy on the host, and what the box needs to reach it (`Inside`);
//! - `model.rs`: where each agent CLI reaches its model, always let through.

pub mod model;
pub mod proxy;
pub mod rules;

pub use model::model_urls;
pub use proxy::{Inside, Proxy};
pub use rules::{Grant, RuleError};
