//! The wire decoder: any bytes as a request line and as a response line. Never a panic; a
//! request that decodes encodes and decodes back to itself.
#![no_main]

use awf_runtime::channel::wire::{Request, Response};
use libfuzzer_sys::fuzz_target;

const MAX: usize = 64 * 1024;

fuzz_target!(|data: &[u8]| {
    if let Ok(request) = Request::decode(data, MAX) {
        let line = request.encode(usize::MAX).expect("a decoded request encodes");
        assert_eq!(Request::decode(&line, usize::MAX), Ok(request));
    }
    if let Ok(response) = Response::decode(data, MAX) {
        let line = response.encode(usize::MAX).expect("a decoded response encodes");
        assert_eq!(Response::decode(&line, usize::MAX), Ok(response));
    }
});
