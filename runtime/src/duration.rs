//! Durations as authors and agents write them (`"30s"`, `"20m"`, `"1h"`, `"1500ms"`; parts
//! with the largest unit first, each unit once: `"1h30m"`) and as awf shows them, range-checked
//! where they are given: at most `MAX_DURATION`, so that `Instant + duration` never overflows,
//! and a time limit is never zero. A leaf but for the `Hint` trait.

use std::time::Duration;

/// The longest duration awf takes: 366 days. Anything longer is refused where it is given, so
/// `Instant + duration` never overflows; a run or call that long has no limit in practice.
pub const MAX_DURATION: Duration = Duration::from_secs(366 * 24 * 3600);

/// Why a text or a number is not a duration awf takes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DurationError {
    #[error("a duration is empty; write it as 1500ms, 30s, 20m or 1h")]
    Empty,
    #[error("\"{0}\" has no unit; write it as 1500ms, 30s, 20m or 1h (a bare number means milliseconds only when given as a number)")]
    NoUnit(String),
    #[error("\"{0}\" is not a duration; write it as 1500ms, 30s, 20m, 1h or 1h30m")]
    NotADuration(String),
    #[error("\"{0}\" is not a duration: it has a space; write it without, as 1500ms, 30s, 20m, 1h or 1h30m")]
    Spaces(String),
    #[error("\"{0}\" is not a duration: a unit comes twice or out of order; give each unit once, the largest first, as 1h30m or 2m30s")]
    UnitOrder(String),
    /// `{0}` is the value as it was given, quoted or with its unit.
    #[error("{0} is longer than awf takes (8784h); give a shorter time")]
    TooLong(String),
    #[error("\"{0}\" is no time at all; give at least 1ms, e.g. 30s or 20m")]
    Zero(String),
    #[error("{0} is not a positive number of milliseconds; give e.g. 1500 or \"30s\"")]
    NotPositive(String),
}

impl crate::hint::Hint for DurationError {
    /// The text already says what to write instead.
    fn hint(&self) -> Option<String> {
        None
    }
}

/// A time limit as text: a duration (see [`parse_duration`]) that is not zero. Zero is refused,
/// written `"0s"` as much as `0`: a limit of nothing would end the work before it starts.
pub fn parse_timeout(text: &str) -> Result<Duration, DurationError> {
    match parse_duration(text)? {
        Duration::ZERO => Err(DurationError::Zero(text.to_string())),
        duration => Ok(duration),
    }
}

/// A time limit given as a number of milliseconds (JS's `timeout: 1500`): positive, finite and
/// at most [`MAX_DURATION`].
pub fn timeout_from_millis(ms: f64) -> Result<Duration, DurationError> {
    if !ms.is_finite() || ms <= 0.0 {
        return Err(DurationError::NotPositive(ms.to_string()));
    }
    match Duration::try_from_secs_f64(ms / 1000.0) {
        Ok(duration) if duration <= MAX_DURATION => Ok(duration.max(Duration::from_nanos(1))),
        _ => Err(DurationError::TooLong(format!("{ms:e}ms"))),
    }
}

/// Milliseconds from JS where a bad value has a meaning of its own rather than an error: below
/// zero or not a number reads as zero, past [`MAX_DURATION`] as `MAX_DURATION`.
pub fn clamp_millis(ms: f64) -> Duration {
    if ms.is_nan() || ms <= 0.0 {
        return Duration::ZERO;
    }
    Duration::try_from_secs_f64(ms / 1000.0)
        .unwrap_or(MAX_DURATION)
        .min(MAX_DURATION)
}

/// The units a duration is written in, largest first: each part of a duration uses one, and
/// the parts go from the largest unit to the smallest, each unit once (`1h30m`).
const UNITS: [(&str, f64); 4] = [("h", 3600.0), ("m", 60.0), ("s", 1.0), ("ms", 0.001)];

/// Parses `"1500ms"`, `"30s"`, `"20m"`, `"2h"`, `"1.5s"`, or parts from the largest unit to the
/// smallest, each once (`"1h30m"`, `"2m30s"`), up to [`MAX_DURATION`]. Nothing else: no spaces,
/// no unit twice (`"1h1h"`), none out of order (`"30m1h"`).
pub fn parse_duration(text: &str) -> Result<Duration, DurationError> {
    if text.is_empty() {
        return Err(DurationError::Empty);
    }
    if text.contains(char::is_whitespace) {
        return Err(DurationError::Spaces(text.to_string()));
    }
    let not_a_duration = || DurationError::NotADuration(text.to_string());
    let too_long = || DurationError::TooLong(format!("\"{text}\""));
    let mut total = Duration::ZERO;
    let mut rest = text;
    // The parts may use only units smaller than the one before.
    let mut units = &UNITS[..];
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
        let unit = &rest[..unit_len];
        let Some(at) = units.iter().position(|(name, _)| *name == unit) else {
            return Err(if UNITS.iter().any(|(name, _)| *name == unit) {
                DurationError::UnitOrder(text.to_string())
            } else {
                not_a_duration()
            });
        };
        let seconds_per_unit = units[at].1;
        units = &units[at + 1..];
        rest = &rest[unit_len..];
        let part = Duration::try_from_secs_f64(value * seconds_per_unit).map_err(|_| too_long())?;
        total = total
            .checked_add(part)
            .filter(|total| *total <= MAX_DURATION)
            .ok_or_else(too_long)?;
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
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(
            parse_duration("2m30s500ms"),
            Ok(Duration::from_millis(150_500))
        );
    }

    #[test]
    fn one_number_and_one_unit_per_part_largest_first() {
        for repeated in ["1h1h", "30m1h", "1s1m", "1ms1s", "1s1s"] {
            let error = parse_duration(repeated).unwrap_err();
            assert_eq!(
                error,
                DurationError::UnitOrder(repeated.into()),
                "{repeated}"
            );
            assert!(error
                .to_string()
                .contains("give each unit once, the largest first"));
        }
        for spaced in [" 1s", "1s ", "1h 30m", "1\ts"] {
            let error = parse_duration(spaced).unwrap_err();
            assert_eq!(error, DurationError::Spaces(spaced.into()), "{spaced:?}");
            assert!(error.to_string().contains("it has a space"));
        }
        assert_eq!(
            parse_duration("1d").unwrap_err(),
            DurationError::NotADuration("1d".into())
        );
    }

    #[test]
    fn refuses_what_is_not_a_duration() {
        for bad in ["", "30", "abc", "10x", "m", "1.2.3s", "-5s", " ", "1hh"] {
            assert!(parse_duration(bad).is_err(), "{bad:?}");
        }
        assert!(parse_duration("30")
            .unwrap_err()
            .to_string()
            .contains("has no unit"));
    }

    #[test]
    fn durations_past_the_range_are_refused_not_overflowed() {
        for huge in [
            "4000000000000000h",
            "4000000000000000h4000000000000000h",
            "367d",
            "8785h",
            "1e300s",
        ] {
            assert!(parse_duration(huge).is_err(), "{huge}");
        }
        assert_eq!(
            parse_duration("4000000000000000h").unwrap_err().to_string(),
            "\"4000000000000000h\" is longer than awf takes (8784h); give a shorter time"
        );
        assert_eq!(parse_duration("8784h"), Ok(MAX_DURATION));
    }

    #[test]
    fn a_timeout_of_zero_is_refused_however_written() {
        for zero in ["0s", "0ms", "0h0m", "0.0s"] {
            assert!(
                parse_timeout(zero)
                    .unwrap_err()
                    .to_string()
                    .contains("no time at all"),
                "{zero}"
            );
        }
        assert_eq!(parse_timeout("1ms"), Ok(Duration::from_millis(1)));
        assert!(timeout_from_millis(0.0).is_err());
        assert!(timeout_from_millis(-1.0).is_err());
        assert!(timeout_from_millis(f64::NAN).is_err());
        assert!(timeout_from_millis(f64::INFINITY).is_err());
        assert!(timeout_from_millis(1e300)
            .unwrap_err()
            .to_string()
            .contains("longer than awf takes"));
        assert_eq!(timeout_from_millis(1500.0), Ok(Duration::from_millis(1500)));
        assert_eq!(timeout_from_millis(1e-9), Ok(Duration::from_nanos(1)));
    }

    #[test]
    fn the_longest_duration_reads_as_its_message_says() {
        assert_eq!(format_duration(MAX_DURATION), "8784h");
    }

    #[test]
    fn clamped_millis_stay_in_range() {
        assert_eq!(clamp_millis(-5.0), Duration::ZERO);
        assert_eq!(clamp_millis(f64::NAN), Duration::ZERO);
        assert_eq!(clamp_millis(1e300), MAX_DURATION);
        assert_eq!(clamp_millis(f64::INFINITY), MAX_DURATION);
        assert_eq!(clamp_millis(250.0), Duration::from_millis(250));
    }

    #[test]
    fn formats_for_people() {
        assert_eq!(format_duration(Duration::from_millis(1500)), "1.5s");
        assert_eq!(format_duration(Duration::from_millis(250)), "250ms");
        assert_eq!(format_duration(Duration::from_secs(30)), "30s");
        assert_eq!(format_duration(Duration::from_secs(5400)), "1h30m");
    }
}
