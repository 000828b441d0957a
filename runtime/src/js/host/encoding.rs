//! Byte and text conversion ops behind js/host/encoding.ts (`TextEncoder`, `TextDecoder`) and
//! `Buffer`: UTF-8 both ways, base64 (and base64url), hex and latin1.
//!
//! Decoding follows the standards JS code expects: invalid UTF-8 becomes U+FFFD per maximal
//! subpart (WHATWG Encoding), or a TypeError when `fatal`; base64 input is read as leniently as
//! Node reads it (either alphabet, whitespace and padding ignored); hex stops at the first pair
//! that is not hex, as Node's does.

use std::rc::Rc;

use serde::Deserialize;

use crate::js::engine::{sync_op, Bytes, HostState, OpDecl, OpError};

pub const OPS: &[OpDecl] = &[
    sync_op!(utf8_encode),
    sync_op!(utf8_decode),
    sync_op!(bytes_to_text),
    sync_op!(text_to_bytes),
];

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const BASE64_URL: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// `utf8_encode(text)` -> its UTF-8 bytes (JS makes the text well-formed first).
fn utf8_encode(_: &Rc<HostState>, text: String) -> Result<Vec<u8>, OpError> {
    Ok(text.into_bytes())
}

#[derive(Deserialize)]
struct Utf8Decode(Option<Bytes>, Option<bool>);

/// `utf8_decode(bytes, fatal)` -> the text.
fn utf8_decode(_: &Rc<HostState>, Utf8Decode(bytes, fatal): Utf8Decode) -> Result<String, OpError> {
    let bytes = bytes.unwrap_or_default().0;
    if fatal.unwrap_or(false) {
        String::from_utf8(bytes)
            .map_err(|_| OpError::type_error("The encoded data was not valid for encoding utf-8"))
    } else {
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }
}

#[derive(Deserialize)]
struct BytesToText(Option<Bytes>, String);

/// `bytes_to_text(bytes, encoding)` for base64, base64url, hex and latin1.
fn bytes_to_text(
    _: &Rc<HostState>,
    BytesToText(bytes, encoding): BytesToText,
) -> Result<String, OpError> {
    let bytes = bytes.unwrap_or_default().0;
    Ok(match encoding.as_str() {
        "base64" => base64_encode(&bytes, BASE64, true),
        "base64url" => base64_encode(&bytes, BASE64_URL, false),
        "hex" => bytes.iter().map(|b| format!("{b:02x}")).collect(),
        "latin1" => bytes.iter().map(|b| *b as char).collect(),
        other => return Err(OpError::type_error(format!("Unknown encoding: {other}"))),
    })
}

#[derive(Deserialize)]
struct TextToBytes(String, String);

/// `text_to_bytes(text, encoding)`, the way back.
fn text_to_bytes(
    _: &Rc<HostState>,
    TextToBytes(text, encoding): TextToBytes,
) -> Result<Vec<u8>, OpError> {
    Ok(match encoding.as_str() {
        "base64" | "base64url" => base64_decode(&text),
        "hex" => hex_decode(&text),
        "latin1" => text.chars().map(|c| c as u32 as u8).collect(),
        other => return Err(OpError::type_error(format!("Unknown encoding: {other}"))),
    })
}

fn base64_encode(bytes: &[u8], alphabet: &[u8; 64], pad: bool) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.len();
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let v = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= n {
                out.push(alphabet[((v >> (18 - 6 * i)) & 63) as usize] as char);
            } else if pad {
                out.push('=');
            }
        }
    }
    out
}

fn base64_value(c: u8) -> Option<u32> {
    match c {
        b'A'..=b'Z' => Some(u32::from(c - b'A')),
        b'a'..=b'z' => Some(u32::from(c - b'a') + 26),
        b'0'..=b'9' => Some(u32::from(c - b'0') + 52),
        b'+' | b'-' => Some(62),
        b'/' | b'_' => Some(63),
        _ => None,
    }
}

fn base64_decode(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let mut acc = 0u32;
    let mut bits = 0;
    for c in text.bytes() {
        if c == b'=' {
            break;
        }
        let Some(v) = base64_value(c) else { continue };
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    out
}

fn hex_decode(text: &str) -> Vec<u8> {
    let digits = text.as_bytes();
    let mut out = Vec::with_capacity(digits.len() / 2);
    for pair in digits.chunks_exact(2) {
        let high = (pair[0] as char).to_digit(16);
        let low = (pair[1] as char).to_digit(16);
        match (high, low) {
            (Some(h), Some(l)) => out.push((h * 16 + l) as u8),
            _ => break,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips_and_reads_leniently() {
        assert_eq!(base64_encode(b"hello!?", BASE64, true), "aGVsbG8hPw==");
        assert_eq!(base64_encode(&[0xfb, 0xff], BASE64_URL, false), "-_8");
        assert_eq!(base64_decode("aGVsbG8hPw=="), b"hello!?");
        assert_eq!(base64_decode("aGVs bG8h\nPw"), b"hello!?");
        assert_eq!(base64_decode("-_8"), vec![0xfb, 0xff]);
    }

    #[test]
    fn hex_stops_at_the_first_bad_pair() {
        assert_eq!(hex_decode("00ff7a"), vec![0, 255, 0x7a]);
        assert_eq!(hex_decode("01zz02"), vec![1]);
        assert_eq!(hex_decode("abc"), vec![0xab]);
    }
}
