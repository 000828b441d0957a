//! Time stamps in records (UTC, RFC 3339 with milliseconds) and sortable run ids.
//!
//! Written by hand rather than with a date crate: records need one format, and the civil-date
//! arithmetic is a few lines (Howard Hinnant's days-from-civil algorithm, inverted).

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::time::{SystemTime, UNIX_EPOCH};

/// `2026-11-29T18:30:58.123Z`
pub fn rfc3339(at: SystemTime) -> String {
    let (date, time, millis) = split(at);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        date.0, date.1, date.2, time.0, time.1, time.2
    )
}

/// A new run id: `20261129-183058-k3f9`, sortable by start time, unique in practice.
pub fn new_run_id(at: SystemTime) -> String {
    let (date, time, _) = split(at);
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u128(
        at.duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    hasher.write_u32(std::process::id());
    let suffix: String = (0..4)
        .scan(hasher.finish(), |bits, _| {
            let c = b"abcdefghijkmnpqrstuvwxyz23456789"[(*bits % 32) as usize] as char;
            *bits /= 32;
            Some(c)
        })
        .collect();
    format!(
        "{:04}{:02}{:02}-{:02}{:02}{:02}-{suffix}",
        date.0, date.1, date.2, time.0, time.1, time.2
    )
}

/// Milliseconds since the Unix epoch.
pub fn unix_millis(at: SystemTime) -> u64 {
    at.duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// Milliseconds since the Unix epoch of a time stamp `rfc3339` wrote; `None` for other text.
pub fn parse_rfc3339(text: &str) -> Option<u64> {
    let b = text.as_bytes();
    if b.len() != 24 || b[4] != b'-' || b[10] != b'T' || b[23] != b'Z' {
        return None;
    }
    let num = |from: usize, to: usize| text.get(from..to)?.parse::<i64>().ok();
    let days = days_from_civil(num(0, 4)?, num(5, 7)?, num(8, 10)?);
    let secs = days * 86_400 + num(11, 13)? * 3600 + num(14, 16)? * 60 + num(17, 19)?;
    u64::try_from(secs * 1000 + num(20, 23)?).ok()
}

fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let yoe = year.rem_euclid(400);
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

type Date = (i64, u32, u32);
type Time = (u32, u32, u32);

fn split(at: SystemTime) -> (Date, Time, u32) {
    let since = at.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs() as i64;
    let days = secs.div_euclid(86_400);
    let rest = secs.rem_euclid(86_400) as u32;
    (
        civil_from_days(days),
        (rest / 3600, rest % 3600 / 60, rest % 60),
        since.subsec_millis(),
    )
}

fn civil_from_days(days: i64) -> Date {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn formats_known_instants() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let at = UNIX_EPOCH + Duration::from_millis(1_795_977_058_123);
        assert_eq!(rfc3339(at), "2026-11-29T18:30:58.123Z");
        let leap = UNIX_EPOCH + Duration::from_secs(951_782_400);
        assert_eq!(rfc3339(leap), "2000-02-29T00:00:00.000Z");
    }

    #[test]
    fn parses_what_it_formats() {
        for millis in [0, 951_782_400_000, 1_795_977_058_123] {
            let at = UNIX_EPOCH + Duration::from_millis(millis);
            assert_eq!(parse_rfc3339(&rfc3339(at)), Some(millis));
        }
        assert_eq!(parse_rfc3339("yesterday"), None);
    }

    #[test]
    fn run_ids_sort_by_time_and_differ() {
        let at = UNIX_EPOCH + Duration::from_millis(1_795_977_058_123);
        let a = new_run_id(at);
        assert!(a.starts_with("20261129-183058-"), "{a}");
        assert_eq!(a.len(), "20261129-183058-".len() + 4);
        let b = new_run_id(at + Duration::from_secs(1));
        assert!(b > a);
    }
}
