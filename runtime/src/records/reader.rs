//! Reading `events.jsonl` back: every whole line, in order; a torn last line (a crash while
//! appending) is skipped, never an error. `each_event` streams, so a big run's file is never
//! held whole in memory; `read_events` collects, for small files and tests; `reached_its_cap`
//! reads only the file's tail.

use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
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

/// Whether the events file at `path` holds its `events-capped` line (false when there is no
/// file). Past that line only the attempts' `run-ended` lines are written, so it is in the
/// file's last 64 KiB.
pub fn reached_its_cap(path: &Path) -> io::Result<bool> {
    let mut file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(e),
    };
    let len = file.metadata()?.len();
    file.seek(SeekFrom::Start(len.saturating_sub(64 * 1024)))?;
    let mut tail = Vec::new();
    file.read_to_end(&mut tail)?;
    let marker = br#""event":"events-capped""#;
    Ok(tail.windows(marker.len()).any(|w| w == marker))
}

/// Like `each_event`, then goes on reading what is appended, until `each` says stop or, at the
/// end of the file, the last event read ended the run (`run-ended`). While it waits it calls
/// `waiting` every `pause`, which may close a run whose awf died (so its end is read next).
pub fn follow_events(
    path: &Path,
    pause: std::time::Duration,
    mut waiting: impl FnMut(),
    mut each: impl FnMut(serde_json::Value) -> bool,
) -> io::Result<()> {
    let mut reader = BufReader::with_capacity(256 * 1024, std::fs::File::open(path)?);
    let mut line = Vec::new();
    let mut ended = false;
    loop {
        // A partial line stays in `line` until its newline is written.
        let read = reader.read_until(b'\n', &mut line)?;
        if read > 0 && line.last() == Some(&b'\n') {
            if let Ok(event) = serde_json::from_slice::<serde_json::Value>(&line) {
                ended = event.get("event").and_then(|e| e.as_str()) == Some("run-ended");
                if !each(event) {
                    return Ok(());
                }
            }
            line.clear();
            continue;
        }
        if ended {
            return Ok(());
        }
        waiting();
        std::thread::sleep(pause);
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

    #[test]
    fn following_reads_what_is_appended_until_the_run_ends() {
        use std::io::Write;
        let path = std::env::temp_dir().join(format!("awf-follow-{}.jsonl", std::process::id()));
        std::fs::write(&path, "{\"event\":\"run-ended\"}\n{\"event\":\"a\"}\n").unwrap();
        let writer = {
            let path = path.clone();
            std::thread::spawn(move || {
                let mut file = std::fs::OpenOptions::new().append(true).open(path).unwrap();
                std::thread::sleep(std::time::Duration::from_millis(50));
                // A line written in two parts is read once, whole.
                file.write_all(b"{\"event\":").unwrap();
                file.flush().unwrap();
                std::thread::sleep(std::time::Duration::from_millis(50));
                file.write_all(b"\"b\"}\n{\"event\":\"run-ended\"}\n")
                    .unwrap();
            })
        };
        let mut seen = Vec::new();
        let mut waits = 0;
        follow_events(
            &path,
            std::time::Duration::from_millis(5),
            || waits += 1,
            |e| {
                seen.push(e["event"].as_str().unwrap().to_string());
                true
            },
        )
        .unwrap();
        writer.join().unwrap();
        // An earlier attempt's end does not stop it: only an end that is the last event does.
        assert_eq!(seen, ["run-ended", "a", "b", "run-ended"]);
        assert!(waits > 0);
        std::fs::remove_file(path).unwrap();
    }
}
