//! An agent's secret: 256 bits from the system's random source, made when the agent opens and
//! written only to its launcher file (`launcher.rs`), never to a prompt, a record or a log. A
//! request that presents it proves it comes from a process that could read the agent's own
//! folder: a container's, which the peer check cannot place, or a remote one over TCP.

use std::fmt;
use std::io;

/// The number of random bytes in a secret.
const BYTES: usize = 32;

/// One agent's secret. Its `Debug` shows nothing of it.
pub struct Secret([u8; BYTES]);

/// What a request presented, judged against the agent's secret.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Presented {
    Missing,
    Right,
    Wrong,
}

impl Secret {
    /// A new secret from the system's random source; an error when the source fails (there is
    /// no weaker fallback: a guessable secret would be worse than none).
    pub fn generate() -> io::Result<Secret> {
        let mut bytes = [0u8; BYTES];
        getrandom::fill(&mut bytes).map_err(|e| io::Error::other(e.to_string()))?;
        Ok(Secret(bytes))
    }

    /// As it goes in the launcher file: 64 lowercase hex digits.
    pub fn to_hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Judges a presented secret, in time that does not depend on how much of it is right.
    pub fn judge(&self, presented: Option<&str>) -> Presented {
        let Some(presented) = presented else {
            return Presented::Missing;
        };
        let mut given = [0u8; BYTES];
        if !decode_hex(presented, &mut given) {
            return Presented::Wrong;
        }
        let difference = self
            .0
            .iter()
            .zip(given.iter())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b));
        if std::hint::black_box(difference) == 0 {
            Presented::Right
        } else {
            Presented::Wrong
        }
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(..)")
    }
}

/// Reads exactly `out.len()` bytes of hex digits (either case) from `text`.
fn decode_hex(text: &str, out: &mut [u8]) -> bool {
    let text = text.as_bytes();
    if text.len() != out.len() * 2 {
        return false;
    }
    let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    for (byte, pair) in out.iter_mut().zip(text.chunks_exact(2)) {
        match (digit(pair[0]), digit(pair[1])) {
            (Some(high), Some(low)) => *byte = high << 4 | low,
            _ => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_is_256_random_bits_and_only_itself_is_right() {
        let secret = Secret::generate().unwrap();
        let hex = secret.to_hex();
        assert_eq!(hex.len(), 64);
        assert!(hex
            .bytes()
            .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c)));
        assert_ne!(hex, Secret::generate().unwrap().to_hex());
        assert_eq!(secret.judge(Some(&hex)), Presented::Right);
        assert_eq!(secret.judge(Some(&hex.to_uppercase())), Presented::Right);
        assert_eq!(secret.judge(None), Presented::Missing);
        let mut flipped = hex.clone().into_bytes();
        flipped[63] = if flipped[63] == b'0' { b'1' } else { b'0' };
        assert_eq!(
            secret.judge(Some(std::str::from_utf8(&flipped).unwrap())),
            Presented::Wrong
        );
        assert_eq!(secret.judge(Some(&hex[..62])), Presented::Wrong);
        assert_eq!(
            secret.judge(Some(&format!("{}zz", &hex[..62]))),
            Presented::Wrong
        );
        assert_eq!(secret.judge(Some("")), Presented::Wrong);
        assert_eq!(format!("{secret:?}"), "Secret(..)");
    }
}
