//! `Hint`: what the user can do about an error, when awf knows. Each concern's error types
//! implement it beside their texts; the CLI prints it after a blank line as `hint: ...`.
//! `closest` finds the "did you mean" of a misspelt option name.

/// What the user can do about an error, when awf knows.
pub trait Hint {
    fn hint(&self) -> Option<String>;
}

/// The known name nearest `word` (at most two edits away), for "did you mean".
pub fn closest<'a>(word: &str, known: &[&'a str]) -> Option<&'a str> {
    known
        .iter()
        .map(|k| (edits(word, k), *k))
        .filter(|(d, _)| *d <= 2)
        .min()
        .map(|(_, k)| k)
}

/// Levenshtein distance.
fn edits(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let here = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb))
                .min(row[j] + 1)
                .min(here + 1);
            prev = here;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::closest;

    #[test]
    fn closest_allows_two_edits() {
        let known = ["network", "write", "labels"];
        assert_eq!(closest("netwrk", &known), Some("network"));
        assert_eq!(closest("label", &known), Some("labels"));
        assert_eq!(closest("zzzzzz", &known), None);
    }
}
