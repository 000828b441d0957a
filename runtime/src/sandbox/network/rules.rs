//! A sandbox's network grant as the author writes it (`network: ["api.github.com",
//! "*.npmjs.org", "127.0.0.1:8080"]`), checked entry by entry, and the question the proxy asks of
//! it: may this box reach `host:port`?
//!
//! - `api.github.com`: that host, ports 80 and 443;
//! - `*.npmjs.org`: its subdomains (`registry.npmjs.org`, `a.b.npmjs.org`), not `npmjs.org`
//!   itself (as agentswf), ports 80 and 443;
//! - `host:port`, `*.suffix:port`, `[::1]:port`: that port only.
//!
//! Hosts compare without case and without a trailing dot.

use crate::hint::Hint;

/// The ports a rule without one allows.
pub const WEB_PORTS: [u16; 2] = [80, 443];

/// Which hosts a rule names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HostPattern {
    /// One host (a name or an address, lowercase, IPv6 without brackets).
    Exact(String),
    /// Strictly below this domain (`*.npmjs.org` holds `npmjs.org`).
    Below(String),
}

/// One entry of a grant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    pub host: HostPattern,
    /// `None`: 80 and 443.
    pub port: Option<u16>,
}

/// The hosts a sandbox may reach through the proxy.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Grant {
    pub rules: Vec<Rule>,
}

/// An entry of `network` that is not a host awf can match.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("sandbox network entry {entry:?}: {why}")]
pub struct RuleError {
    pub entry: String,
    pub why: String,
    /// What to write instead.
    pub instead: String,
}

impl Hint for RuleError {
    fn hint(&self) -> Option<String> {
        Some(self.instead.clone())
    }
}

impl Grant {
    /// Reads each entry; the first bad one is refused, naming it and what to write.
    pub fn parse(entries: &[String]) -> Result<Grant, RuleError> {
        let rules = entries
            .iter()
            .map(|e| Rule::parse(e))
            .collect::<Result<_, _>>()?;
        Ok(Grant { rules })
    }

    /// Whether `host:port` is granted.
    pub fn allows(&self, host: &str, port: u16) -> bool {
        let host = normalize(host);
        self.rules.iter().any(|rule| rule.allows(&host, port))
    }
}

impl Rule {
    /// Reads one entry: `host`, `*.suffix`, either with `:port`, or `[v6]:port`.
    pub fn parse(entry: &str) -> Result<Rule, RuleError> {
        let refuse = |why: &str, instead: String| RuleError {
            entry: entry.to_string(),
            why: why.to_string(),
            instead,
        };
        let written = entry.trim();
        if written.is_empty() {
            return Err(refuse(
                "is empty",
                "write a host such as \"api.github.com\", or remove the entry".into(),
            ));
        }
        if let Some((_, rest)) = written.split_once("://") {
            let bare = rest.split('/').next().unwrap_or(rest);
            return Err(refuse(
                "is a URL; the grant names hosts",
                format!("write {bare:?} (the host, and :port if not 80/443)"),
            ));
        }
        if written == "*" {
            return Err(refuse(
                "would grant every host",
                "write network: true for the host's whole network".into(),
            ));
        }
        let (host, port) = split_port(written).map_err(|why| {
            refuse(
                &why,
                "write host:port with a port from 1 to 65535, e.g. \"127.0.0.1:8080\"".into(),
            )
        })?;
        if host.contains('/') || host.contains('@') || host.chars().any(char::is_whitespace) {
            let bare = host.split(['/', '@']).find(|p| !p.is_empty()).unwrap_or("");
            return Err(refuse(
                "holds a path, user or space; the grant names hosts",
                format!("write the host alone, e.g. {bare:?}"),
            ));
        }
        let pattern = match host.strip_prefix("*.") {
            Some(suffix) => HostPattern::Below(normalize(suffix)),
            None => HostPattern::Exact(normalize(host)),
        };
        let name = match &pattern {
            HostPattern::Exact(h) | HostPattern::Below(h) => h,
        };
        if name.is_empty() || name.contains('*') || name.starts_with('.') || name.contains("..") {
            return Err(refuse(
                "is not a host name",
                "a wildcard only starts a name: \"*.npmjs.org\" (its subdomains); otherwise write the exact host".into(),
            ));
        }
        Ok(Rule {
            host: pattern,
            port,
        })
    }

    fn allows(&self, host: &str, port: u16) -> bool {
        let port_ok = match self.port {
            Some(p) => p == port,
            None => WEB_PORTS.contains(&port),
        };
        port_ok
            && match &self.host {
                HostPattern::Exact(h) => h == host,
                HostPattern::Below(suffix) => host
                    .strip_suffix(suffix.as_str())
                    .is_some_and(|sub| sub.len() > 1 && sub.ends_with('.')),
            }
    }

    /// The loopback port this rule names, when it names one (`127.0.0.1:8080`, `localhost:3000`,
    /// `[::1]:9000`): the bridge listens on it inside the box, so a client that skips the proxy
    /// for loopback (`NO_PROXY`) still reaches it.
    pub fn loopback_port(&self) -> Option<u16> {
        match (&self.host, self.port) {
            (HostPattern::Exact(h), Some(port)) if is_loopback(h) => Some(port),
            _ => None,
        }
    }
}

/// Whether `host` is this machine's loopback.
pub fn is_loopback(host: &str) -> bool {
    let host = normalize(host);
    host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// Lowercase, without brackets or a trailing dot.
pub fn normalize(host: &str) -> String {
    host.trim_start_matches('[')
        .trim_end_matches(']')
        .trim_end_matches('.')
        .to_ascii_lowercase()
}

/// `host[:port]` or `[v6][:port]`; a bare IPv6 address has no port.
fn split_port(written: &str) -> Result<(&str, Option<u16>), String> {
    let (host, port) = if let Some(rest) = written.strip_prefix('[') {
        let (v6, after) = rest.split_once(']').ok_or("opens '[' without closing it")?;
        match after.strip_prefix(':') {
            Some(port) => (v6, Some(port)),
            None if after.is_empty() => (v6, None),
            None => return Err("has text after ']'".into()),
        }
    } else if written.matches(':').count() > 1 {
        (written, None)
    } else {
        match written.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (written, None),
        }
    };
    let port = match port {
        None => None,
        Some(text) => match text.parse::<u16>() {
            Ok(port) if port > 0 => Some(port),
            _ => return Err(format!("has port {text:?}, not a number from 1 to 65535")),
        },
    };
    Ok((host, port))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grant(entries: &[&str]) -> Grant {
        Grant::parse(&entries.iter().map(|e| e.to_string()).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn an_exact_host_is_that_host_on_the_web_ports() {
        let g = grant(&["api.github.com"]);
        assert!(g.allows("api.github.com", 443));
        assert!(g.allows("API.GitHub.com.", 80));
        assert!(!g.allows("api.github.com", 22));
        assert!(!g.allows("github.com", 443));
        assert!(!g.allows("x.api.github.com", 443));
        assert!(!g.allows("api.github.com.evil.org", 443));
    }

    #[test]
    fn a_wildcard_is_the_subdomains_only() {
        let g = grant(&["*.npmjs.org"]);
        assert!(g.allows("registry.npmjs.org", 443));
        assert!(g.allows("a.b.npmjs.org", 80));
        assert!(!g.allows("npmjs.org", 443));
        assert!(!g.allows("evilnpmjs.org", 443));
        assert!(!g.allows("registry.npmjs.org", 8443));
    }

    #[test]
    fn a_port_is_that_port_only() {
        let g = grant(&["127.0.0.1:8080", "[::1]:9000", "*.corp.example:8443"]);
        assert!(g.allows("127.0.0.1", 8080));
        assert!(!g.allows("127.0.0.1", 8081));
        assert!(!g.allows("127.0.0.1", 443));
        assert!(g.allows("::1", 9000));
        assert!(g.allows("[::1]", 9000));
        assert!(g.allows("git.corp.example", 8443));
        assert!(!g.allows("git.corp.example", 443));
        assert_eq!(g.rules[0].loopback_port(), Some(8080));
        assert_eq!(g.rules[1].loopback_port(), Some(9000));
        assert_eq!(g.rules[2].loopback_port(), None);
    }

    #[test]
    fn no_grant_allows_nothing() {
        assert!(!grant(&[]).allows("127.0.0.1", 80));
    }

    #[test]
    fn bad_entries_are_refused_naming_them_and_what_to_write() {
        let refuse = |entry: &str| Rule::parse(entry).unwrap_err();
        let url = refuse("https://api.github.com/repos");
        assert_eq!(url.entry, "https://api.github.com/repos");
        assert!(url.to_string().contains("is a URL"), "{url}");
        assert!(
            url.instead.contains("\"api.github.com\""),
            "{}",
            url.instead
        );
        assert!(refuse("*").instead.contains("network: true"));
        assert!(refuse("").to_string().contains("is empty"));
        let port = refuse("127.0.0.1:http");
        assert!(port.to_string().contains("\"http\""), "{port}");
        assert!(refuse("localhost:0").to_string().contains("1 to 65535"));
        assert!(refuse("localhost:70000").to_string().contains("1 to 65535"));
        assert!(refuse("api.*.com").instead.contains("*.npmjs.org"));
        assert!(refuse("*.").to_string().contains("not a host name"));
        assert!(refuse("github.com/foo").instead.contains("\"github.com\""));
        assert!(refuse("[::1").to_string().contains("'['"));
    }

    #[test]
    fn loopback_is_localhost_and_the_loopback_addresses() {
        assert!(is_loopback("localhost"));
        assert!(is_loopback("127.0.0.9"));
        assert!(is_loopback("[::1]"));
        assert!(!is_loopback("10.0.0.1"));
        assert!(!is_loopback("example.com"));
    }
}
