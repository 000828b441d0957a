//! The launcher file, `<agent folder>/launcher.json` (mode 0600): what `wfa`, started by the
//! agent's launcher path, needs beyond the socket beside it. The agent's secret, which wfa
//! presents on every request, and, for an agent that reaches its run over TCP, where to connect,
//! the TLS server name that says which agent it is, and the SHA-256 of the run's certificate,
//! which wfa pins. The run writes it (`channel/launcher.rs`); wfa reads it
//! (cli/src/bin/wfa/channel.rs).

use serde::{Deserialize, Serialize};

/// The launcher file's name in an agent's folder, beside `wfa` and `s.sock`.
pub const LAUNCH_FILE: &str = "launcher.json";

/// What an agent's launcher carries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaunchFile {
    /// The agent's secret: 256 bits from the system's random source, as 64 lowercase hex digits.
    pub secret: String,
    /// Set when the agent reaches its run over TCP and TLS instead of the socket beside it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcp: Option<TcpRoute>,
}

/// How wfa reaches its run over TCP.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TcpRoute {
    /// `host:port` of the run's listener.
    pub address: String,
    /// The TLS server name wfa asks for: the agent folder's name, which routes the connection
    /// to the agent (it proves nothing; the secret does).
    pub name: String,
    /// The SHA-256 of the run's certificate (DER), as 64 lowercase hex digits: wfa talks to no
    /// other server.
    pub pin: String,
}

/// A certificate's `pin`: the SHA-256 of its DER, as 64 lowercase hex digits (the run makes it,
/// wfa checks the listener's certificate against it).
pub fn pin_of(der: &[u8]) -> String {
    ring::digest::digest(&ring::digest::SHA256, der)
        .as_ref()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_launch_file_reads_back_and_a_socket_agent_has_no_route() {
        let socket_agent = LaunchFile {
            secret: "ab".repeat(32),
            tcp: None,
        };
        let text = serde_json::to_string(&socket_agent).unwrap();
        assert_eq!(text, format!("{{\"secret\":\"{}\"}}", "ab".repeat(32)));
        assert_eq!(
            serde_json::from_str::<LaunchFile>(&text).unwrap(),
            socket_agent
        );
        let tcp_agent = LaunchFile {
            tcp: Some(TcpRoute {
                address: "127.0.0.1:4100".to_owned(),
                name: "k2m3n4p5q6r7".to_owned(),
                pin: "cd".repeat(32),
            }),
            ..socket_agent
        };
        let text = serde_json::to_string(&tcp_agent).unwrap();
        assert_eq!(
            serde_json::from_str::<LaunchFile>(&text).unwrap(),
            tcp_agent
        );
    }
}
