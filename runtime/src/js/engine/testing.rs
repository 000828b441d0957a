//! Test helpers for the engine's parts: a host with awf's whole op table, and a call of a small
//! JS module's `main` on it.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::{CallEnd, ConsoleTarget, HostConfig, JsHost};

/// A tokio runtime on this thread, as `awf` runs a host.
pub fn current_thread() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

/// A host as `awf run` starts one, with console output on stderr.
pub fn host() -> JsHost {
    JsHost::new(HostConfig {
        cwd: std::env::temp_dir(),
        argv: Vec::new(),
        console: ConsoleTarget::Stderr,
    })
    .expect("a host starts")
}

/// Writes `source` (a JS module exporting `main`) to a file of its own and calls `main()`.
pub fn call_js(host: &mut JsHost, source: &str) -> CallEnd {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "awf-engine-test-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::SeqCst)
    ));
    std::fs::create_dir_all(&dir).expect("a temp folder");
    let file = dir.join("main.js");
    std::fs::write(&file, source).expect("the module is written");
    let end = current_thread().block_on(host.call(
        &file.display().to_string(),
        "main",
        serde_json::Value::Null,
    ));
    let _ = std::fs::remove_dir_all(&dir);
    end
}
