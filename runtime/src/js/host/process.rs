//! Process ops behind js/host/process.ts: argv, env, cwd, exit.

use std::rc::Rc;

use super::gate;
use crate::js::engine::{sync_op, HostState, OpCode, OpDecl, OpError};

pub const OPS: &[OpDecl] = &[
    sync_op!(process_info),
    sync_op!(process_env),
    sync_op!(process_exit),
    sync_op!(process_chdir),
];

/// `process_env()`: `{ env, denied }`, the variables the permission gate grants and the names of
/// those it denies (reading one throws, naming the flag that would grant it). It is asked on
/// first use of `process.env`, after the run has set the gate.
fn process_env(state: &Rc<HostState>, _: ()) -> Result<serde_json::Value, OpError> {
    let gate = gate(state);
    let mut env = serde_json::Map::new();
    let mut denied = Vec::new();
    for (name, value) in std::env::vars() {
        match gate.check_env(&name) {
            Ok(()) => {
                env.insert(name, serde_json::Value::String(value));
            }
            Err(_) => denied.push(name),
        }
    }
    Ok(serde_json::json!({ "env": env, "denied": denied }))
}

fn process_info(state: &Rc<HostState>, _: ()) -> Result<serde_json::Value, OpError> {
    let exe = std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    Ok(serde_json::json!({
        "argv": state.argv(),
        "cwd": state.cwd().display().to_string(),
        "pid": std::process::id(),
        "platform": std::env::consts::OS,
        "arch": node_arch(),
        "execPath": exe,
        "version": env!("CARGO_PKG_VERSION"),
    }))
}

/// `process_exit(code)`: the host stops running JS; the internal error unwinds what runs now.
fn process_exit(state: &Rc<HostState>, code: Option<f64>) -> Result<(), OpError> {
    let code = code.unwrap_or(0.0) as i32;
    state.request_exit(code);
    Err(OpError::internal(format!("process.exit({code})")))
}

fn process_chdir(state: &Rc<HostState>, dir: String) -> Result<(), OpError> {
    let target = state.cwd().join(&dir);
    match std::fs::canonicalize(&target) {
        Ok(path) if path.is_dir() => {
            state.set_cwd(path);
            Ok(())
        }
        _ => Err(OpError::new(
            OpCode::Enoent,
            format!("ENOENT: no such file or directory, chdir '{dir}'"),
        )),
    }
}

/// Node's names for CPU architectures.
fn node_arch() -> &'static str {
    match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        "x86" => "ia32",
        other => other,
    }
}
