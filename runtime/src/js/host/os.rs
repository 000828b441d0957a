//! The facts behind js/host/os.ts (`node:os`): host name, home, temp folder, CPUs, kernel.

use std::rc::Rc;

use serde_json::json;

use crate::js::engine::{sync_op, HostState, OpDecl, OpError};

pub const OPS: &[OpDecl] = &[sync_op!(os_info)];

fn os_info(_: &Rc<HostState>, _: ()) -> Result<serde_json::Value, OpError> {
    let (sysname, release, machine) = uname();
    let cpus = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    Ok(json!({
        "hostname": hostname(),
        "homedir": homedir(),
        "tmpdir": tmpdir(),
        "cpus": cpus,
        "type": sysname,
        "release": release,
        "machine": machine,
        "endianness": if cfg!(target_endian = "little") { "LE" } else { "BE" },
    }))
}

fn hostname() -> String {
    let mut buffer = [0u8; 256];
    // SAFETY: the buffer's length is passed; gethostname NUL-terminates within it.
    let ok = unsafe { libc::gethostname(buffer.as_mut_ptr().cast(), buffer.len()) } == 0;
    if !ok {
        return String::new();
    }
    let end = buffer.iter().position(|b| *b == 0).unwrap_or(buffer.len());
    String::from_utf8_lossy(&buffer[..end]).into_owned()
}

fn uname() -> (String, String, String) {
    // SAFETY: utsname is plain data; uname fills it with NUL-terminated fields.
    let mut names: libc::utsname = unsafe { std::mem::zeroed() };
    if unsafe { libc::uname(&mut names) } != 0 {
        return (String::new(), String::new(), String::new());
    }
    let field = |chars: &[libc::c_char]| {
        let bytes: Vec<u8> = chars
            .iter()
            .take_while(|c| **c != 0)
            .map(|c| *c as u8)
            .collect();
        String::from_utf8_lossy(&bytes).into_owned()
    };
    (
        field(&names.sysname),
        field(&names.release),
        field(&names.machine),
    )
}

/// `$HOME`, else the password database's entry, as libuv does.
fn homedir() -> String {
    if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        return home.to_string_lossy().into_owned();
    }
    // SAFETY: getpwuid returns null or a pointer to static data valid until the next call.
    unsafe {
        let entry = libc::getpwuid(libc::getuid());
        if entry.is_null() || (*entry).pw_dir.is_null() {
            return String::new();
        }
        std::ffi::CStr::from_ptr((*entry).pw_dir)
            .to_string_lossy()
            .into_owned()
    }
}

/// `$TMPDIR`, `$TMP` or `$TEMP`, else /tmp; without a trailing slash, as Node gives it.
fn tmpdir() -> String {
    let dir = ["TMPDIR", "TMP", "TEMP"]
        .iter()
        .find_map(|k| std::env::var(k).ok().filter(|v| !v.is_empty()))
        .unwrap_or_else(|| "/tmp".to_string());
    match dir.strip_suffix('/') {
        Some(trimmed) if !trimmed.is_empty() => trimmed.to_string(),
        _ => dir,
    }
}
