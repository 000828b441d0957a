//! Reading `events.jsonl` back: every whole line, in order; a torn last line (a crash while
//! appending) is skipped, never an error. `each_event` streams, so a big run's file is never
//! held whole in memory; `read_events` collects, for small files and tests.

use std::io::{self, BufRead, BufReader};
use std::path::Path;

/// Calls `each` with every whole, parseable line of the events file at `path`, in order; stops
/// early when `each` returns false.
pub fn each_event(path: &Path, mut each: impl FnMut(serde_json::Value) -> bool) -> io::Result<()> {
    let mut reader = BufReader::with_capacity(256 * 1024, std::fs::File::open(path)?);
    let mut line = Vec::new();
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line)? == 0 || line.last() != Some(&b'\n') {
            // The end, or a torn last line.
            return Ok(());
        }
        if let Ok(event) = serde_json::from_slice(&line) {
            if !each(event) {
                return Ok(());
            }
        }
    }
}

pub fn read_events(path: &Path) -> io::Result<Vec<serde_json::Value>> {
    let text = std::fs::read_to_string(path)?;
    let complete = match text.rfind('\n') {
        Some(end) => &text[..end],
        None => "",
    };
    Ok(complete
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_torn_last_line_is_skipped() {
        let path = std::env::temp_dir().join(format!("awf-reader-{}.jsonl", std::process::id()));
        std::fs::write(&path, "{\"a\":1}\n{\"b\":2}\n{\"c\":").unwrap();
        let events = read_events(&path).unwrap();
        assert_eq!(
            events,
            vec![serde_json::json!({"a": 1}), serde_json::json!({"b": 2})]
        );
        let mut streamed = Vec::new();
        each_event(&path, |e| {
            streamed.push(e);
            true
        })
        .unwrap();
        assert_eq!(streamed, events);
        std::fs::remove_file(path).unwrap();
    }
}
