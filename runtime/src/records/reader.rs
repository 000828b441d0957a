//! Reading `events.jsonl` back: every whole line, in order; a torn last line (a crash while
//! appending) is skipped, never an error.

use std::io;
use std::path::Path;

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
        std::fs::remove_file(path).unwrap();
    }
}
