//! Integration tests that drive the built `awf` binary end to end. Build it first
//! (`cargo build --release`); `AWF_BIN_DIR` points elsewhere.

// Host APIs (node:fs, node:child_process, fetch, web globals, ...) through `awf run`, each
// workflow under tests/js/host/ against its expected JSON; the compatibility file against node.
mod host_apis;
