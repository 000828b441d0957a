//! The duration readers: any text to `parse_duration` and `parse_timeout`, any 8 bytes as the
//! milliseconds of `timeout_from_millis`. Never a panic; what is accepted is within
//! `MAX_DURATION`, a timeout is never zero, and a deadline from it never overflows.
#![no_main]

use std::time::{Duration, Instant};

use awf_runtime::duration::{
    clamp_millis, format_duration, parse_duration, parse_timeout, timeout_from_millis,
    MAX_DURATION,
};
use libfuzzer_sys::fuzz_target;

fn check(duration: Duration) {
    assert!(duration <= MAX_DURATION);
    let _ = Instant::now() + duration;
    let _ = format_duration(duration);
}

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(d) = parse_duration(text) {
            check(d);
        }
        if let Ok(d) = parse_timeout(text) {
            assert!(!d.is_zero());
            check(d);
        }
    }
    if let Ok(bytes) = <[u8; 8]>::try_from(data.get(..8).unwrap_or_default()) {
        let ms = f64::from_le_bytes(bytes);
        if let Ok(d) = timeout_from_millis(ms) {
            assert!(!d.is_zero());
            check(d);
        }
        check(clamp_millis(ms));
    }
});
