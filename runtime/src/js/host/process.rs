//! Process ops behind js/host/process.ts: argv, env, cwd, exit.
use std::rc::Rc;

use rquickjs::function::Rest;
use rquickjs::{Ctx, Value};

use crate::js::convert;

use crate::js::engine::HostState;
use crate::js::ops::{arg, number, string, Op, OpDecl};

pub const OPS: &[OpDecl] = &[
    OpDecl {
        name: "process_info",
        op: Op::Sync(process_info),
    },
    OpDecl {
        name: "process_exit",
        op: Op::Sync(process_exit),
    },
    OpDecl {
        name: "process_chdir",
        op: Op::Sync(process_chdir),
    },
];

fn process_info<'js>(
    ctx: &Ctx<'js>,
    state: &Rc<HostState>,
    _: Rest<Value<'js>>,
) -> rquickjs::Result<Value<'js>> {
    // Variables the permission gate denies are left out of `process.env`.
    let env: serde_json::Map<String, serde_json::Value> = std::env::vars()
        .filter(|(k, _)| state.permissions.check_env(k).is_ok())
        .map(|(k, v)| (k, serde_json::Value::String(v)))
        .collect();
    let exe = std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let info = serde_json::json!({
        "argv": state.config.argv,
        "cwd": state.cwd().display().to_string(),
        "env": env,
        "pid": std::process::id(),
        "platform": std::env::consts::OS,
        "arch": node_arch(),
        "execPath": exe,
        "version": env!("CARGO_PKG_VERSION"),
    });
    convert::to_js(ctx, &info)
}

fn process_exit<'js>(
    ctx: &Ctx<'js>,
    state: &Rc<HostState>,
    args: Rest<Value<'js>>,
) -> rquickjs::Result<Value<'js>> {
    let code = number(&arg(ctx, &args, 0)) as i32;
    state.request_exit(code);
    Err(rquickjs::Exception::throw_internal(
        ctx,
        &format!("process.exit({code})"),
    ))
}

fn process_chdir<'js>(
    ctx: &Ctx<'js>,
    state: &Rc<HostState>,
    args: Rest<Value<'js>>,
) -> rquickjs::Result<Value<'js>> {
    let dir = string(ctx, &arg(ctx, &args, 0), "directory")?;
    let target = state.cwd().join(&dir);
    match std::fs::canonicalize(&target) {
        Ok(path) if path.is_dir() => {
            state.set_cwd(path);
            Ok(Value::new_undefined(ctx.clone()))
        }
        _ => Err(crate::js::loader::throw_located(
            ctx,
            "Error",
            "ENOENT",
            &format!("ENOENT: no such file or directory, chdir '{dir}'"),
            None,
            None,
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
