//! Unguessable words from the system's random source: the names of agents' folders, network
//! sockets and scripted turns, which must not be found by listing or guessing.

/// `n` random characters of `[a-z2-9]` (5 bits each) from the system's random source.
pub fn unguessable(n: usize) -> String {
    const ALPHABET: &[u8; 32] = b"abcdefghijkmnpqrstuvwxyz23456789";
    let mut bytes = vec![0u8; n];
    // The system's random source does not fail on Linux once booted; if it did, the time is a
    // weaker seed, and the peer check stays the authority.
    if getrandom::fill(&mut bytes).is_err() {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        for (i, byte) in bytes.iter_mut().enumerate() {
            *byte = (nanos >> (i % 16 * 8)) as u8 ^ i as u8;
        }
    }
    bytes
        .iter()
        .map(|b| ALPHABET[(*b % 32) as usize] as char)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unguessable_words_differ() {
        let words: std::collections::HashSet<String> = (0..100).map(|_| unguessable(8)).collect();
        assert_eq!(words.len(), 100);
    }
}
