//! Durations as authors and agents write them (`"30s"`, `"20m"`, `"1h"`, `"1500ms"`, `"1h30m"`)
//! and as awf shows them. A leaf: it depends on nothing else in the crate.

use std::time::Duration;

/// Why a text is not a duration.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DurationError {
    #[error("a duration is empty; write it as 1500ms, 30s, 20m or 1h")]
    Empty,
    #[error("\"{0}\" has no unit; write it as 1500ms, 30s, 20m or 1h (a bare number means milliseconds only when given as a number)")]
    NoUnit(String),
    #[error("\"{0}\" is not a duration; write it as 1500ms, 30s, 20m, 1h or 1h30m")]
    NotADuration(String),
}

impl crate::hint::Hint for DurationError {
    /// The text already says how to write one.
    fn hint(&self) -> Option<String> {
        None
    }
}

/// Parses `"1500ms"`, `"30s"`, `"20m"`, `"2h"`, `"1h30m"`, `"1.5s"`.
pub fn parse_duration(text: &str) -> Result<Duration, DurationError> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(DurationError::Empty);
    }
    let not_a_duration = || DurationError::NotADuration(text.to_string());
    let mut total = Duration::ZERO;
    let mut rest = trimmed;
    while !rest.is_empty() {
        let number_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or_else(|| DurationError::NoUnit(text.to_string()))?;
        if number_len == 0 {
            return Err(not_a_duration());
        }
        let value: f64 = rest[..number_len].parse().map_err(|_| not_a_duration())?;
        rest = &rest[number_len..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let seconds_per_unit = match &rest[..unit_len] {
            "ms" => 0.001,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            _ => return Err(not_a_duration()),
        };
        rest = &rest[unit_len..];
        total +=
            Duration::try_from_secs_f64(value * seconds_per_unit).map_err(|_| not_a_duration())?;
    }
    Ok(total)
}

/// A duration for people: `1500ms`, `30s`, `20m`, `1h30m`.
pub fn format_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 || !ms.is_multiple_of(1000) {
        return if ms >= 1000 {
            format!("{:.1}s", d.as_secs_f64())
        } else {
            format!("{ms}ms")
        };
    }
    let secs = d.as_secs();
    let (h, m, s) = (secs / 3600, secs % 3600 / 60, secs % 60);
    let mut out = String::new();
    if h > 0 {
        out += &format!("{h}h");
    }
    if m > 0 {
        out += &format!("{m}m");
    }
    if s > 0 || out.is_empty() {
        out += &format!("{s}s");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_forms_authors_write() {
        assert_eq!(parse_duration("1500ms"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("20m"), Ok(Duration::from_secs(1200)));
        assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(parse_duration("1h30m"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse_duration(" 1.5s "), Ok(Duration::from_millis(1500)));
    }

    #[test]
    fn refuses_what_is_not_a_duration() {
        for bad in ["", "30", "abc", "10x", "m", "1.2.3s", "-5s"] {
            assert!(parse_duration(bad).is_err(), "{bad:?}");
        }
        assert!(parse_duration("30")
            .unwrap_err()
            .to_string()
            .contains("has no unit"));
    }

    #[test]
    fn formats_for_people() {
        assert_eq!(format_duration(Duration::from_millis(1500)), "1.5s");
        assert_eq!(format_duration(Duration::from_millis(250)), "250ms");
        assert_eq!(format_duration(Duration::from_secs(30)), "30s");
        assert_eq!(format_duration(Duration::from_secs(5400)), "1h30m");
    }
}
