//! Child-process ops behind js/host/child_process.ts (`node:child_process`), and the registry
//! that makes sure no child outlives its run.
//!
//! Every child starts in its own process group. `spawn` hands JS an id; JS then reads stdout and
//! stderr chunk by chunk (`child_read`), writes stdin (`child_write`, `child_close_stdin`), waits
//! for the exit (`child_wait`) and signals the whole group (`child_kill`). `child_spawn_sync` runs
//! a child to its end on the JS thread, bounded by its `timeout` and by Ctrl-C or SIGTERM.
//!
//! `ProcessGroups` keeps the group of every child that may still have a live member (a leader
//! still running, or one that left background processes behind; child_groups.rs). When the host drops (the run
//! or test file ended, `process.exit`, Ctrl-C), every such group gets SIGTERM, then SIGKILL
//! after `limits::KILL_GRACE`: nothing a handler started is left running.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::os::fd::AsFd;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{ChildStderr, ChildStdin, ChildStdout};

use super::child_groups::{
    group_alive, signal_group, signal_name, signal_number, stop_groups, GroupSet,
};
use super::programs::{check_argv0, Launch};
use super::system_error::{errno_error, process_error, spawn_error};
use super::{gate, resources};
use crate::js::engine::{
    async_op, sync_op, Bytes, ConsoleTarget, HostState, OpCode, OpDecl, OpError, OpFuture, OpValue,
};
use crate::limits::KILL_GRACE;

pub const OPS: &[OpDecl] = &[
    sync_op!(child_spawn),
    async_op!(child_read),
    async_op!(child_write),
    sync_op!(child_close_stdin),
    async_op!(child_wait),
    sync_op!(child_kill),
    sync_op!(child_release),
    sync_op!(child_spawn_sync),
];

/// Largest chunk one `child_read` gives back.
const READ_CHUNK: usize = 64 * 1024;

/// The live children of one host and the groups they started; kills them all when dropped.
#[derive(Default)]
pub struct ProcessGroups {
    next_id: u64,
    children: HashMap<u64, ChildHandle>,
    groups: Arc<GroupSet>,
}

struct ChildHandle {
    pgid: i32,
    exited: Arc<AtomicBool>,
    child: Option<tokio::process::Child>,
    stdin: Option<Arc<tokio::sync::Mutex<Option<ChildStdin>>>>,
    stdout: Option<Arc<tokio::sync::Mutex<Option<ChildStdout>>>>,
    stderr: Option<Arc<tokio::sync::Mutex<Option<ChildStderr>>>>,
}

impl Drop for ProcessGroups {
    fn drop(&mut self) {
        self.children.clear();
        let groups = self.groups.take_all();
        stop_groups(&groups);
    }
}

/// What JS asks to start.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct SpawnRequest {
    file: String,
    args: Vec<String>,
    cwd: Option<String>,
    env: HashMap<String, String>,
    argv0: Option<String>,
    /// For fds 0, 1, 2: "pipe", "inherit" or "ignore".
    stdio: [String; 3],
    /// Sync only: stop the child after this many milliseconds.
    #[serde(default)]
    timeout_ms: Option<f64>,
    /// Sync only: the most bytes of stdout or stderr kept before the child is stopped.
    #[serde(default)]
    max_buffer: Option<f64>,
    /// Sync only: the signal for `timeout` and `max_buffer`.
    #[serde(default)]
    kill_signal: Option<String>,
}

impl SpawnRequest {
    /// The command the gate allows, started from the file it resolved (see programs.rs), with
    /// an environment it checked name by name; `syscall` names a failure as Node does.
    fn command(&self, state: &HostState, syscall: &str) -> Result<std::process::Command, OpError> {
        let gate = gate(state);
        let dir = state.cwd().join(self.cwd.as_deref().unwrap_or("."));
        let program = match gate.check_run(&self.file, &dir)? {
            Launch::AsNamed => PathBuf::from(&self.file),
            Launch::File(file) => {
                check_argv0(self.argv0.as_deref(), &file)?;
                file
            }
            Launch::NotFound => {
                let missing = std::io::Error::from_raw_os_error(libc::ENOENT);
                return Err(spawn_error(&missing, syscall, &self.file));
            }
        };
        for (name, value) in &self.env {
            gate.check_child_env(name, value)?;
        }
        let mut command = std::process::Command::new(program);
        command
            .arg0(self.argv0.as_deref().unwrap_or(&self.file))
            .args(&self.args)
            .env_clear()
            .envs(&self.env)
            .current_dir(dir)
            .process_group(0);
        command.stdin(stdio(&self.stdio[0], 0, state)?);
        command.stdout(stdio(&self.stdio[1], 1, state)?);
        command.stderr(stdio(&self.stdio[2], 2, state)?);
        Ok(command)
    }

    fn kill_signal(&self) -> Result<i32, OpError> {
        let name = self.kill_signal.as_deref().unwrap_or("SIGTERM");
        signal_number(name).ok_or_else(|| unknown_signal(name))
    }
}

fn unknown_signal(name: &str) -> OpError {
    OpError::new(OpCode::ErrUnknownSignal, format!("Unknown signal: {name}"))
}

/// One stdio slot. "inherit" of stdout follows the console: under `awf run`, stdout carries only
/// the workflow's result, so an inherited stdout is awf's stderr.
fn stdio(kind: &str, fd: i32, state: &HostState) -> Result<Stdio, OpError> {
    Ok(match kind {
        "pipe" => Stdio::piped(),
        "ignore" => Stdio::null(),
        "inherit" if fd == 1 && state.config.console == ConsoleTarget::Stderr => {
            let stderr = std::io::stderr()
                .as_fd()
                .try_clone_to_owned()
                .map_err(|e| {
                    errno_error(e.raw_os_error().unwrap_or(libc::EBADF), "dup", None, None)
                })?;
            Stdio::from(stderr)
        }
        "inherit" => Stdio::inherit(),
        other => {
            let message =
                format!("stdio \"{other}\" is not supported yet: use pipe, inherit or ignore");
            return Err(OpError::new(OpCode::ErrNotSupported, message));
        }
    })
}

fn shared<T>(value: T) -> Arc<tokio::sync::Mutex<Option<T>>> {
    Arc::new(tokio::sync::Mutex::new(Some(value)))
}

/// `child_spawn(request)` -> `{ id, pid }`; throws Node's spawn error (`spawn x ENOENT`).
fn child_spawn(state: &Rc<HostState>, request: SpawnRequest) -> Result<serde_json::Value, OpError> {
    let command = request.command(state, "spawn")?;
    let mut child = tokio::process::Command::from(command)
        .spawn()
        .map_err(|e| spawn_error(&e, "spawn", &request.file))?;
    let pid = child.id().unwrap_or(0) as i32;
    let resources = resources(state);
    let groups = &mut resources.borrow_mut().process_groups;
    groups.groups.add(pid);
    groups.next_id += 1;
    let id = groups.next_id;
    let handle = ChildHandle {
        pgid: pid,
        exited: Arc::new(AtomicBool::new(false)),
        stdin: child.stdin.take().map(shared),
        stdout: child.stdout.take().map(shared),
        stderr: child.stderr.take().map(shared),
        child: Some(child),
    };
    groups.children.insert(id, handle);
    Ok(json!({ "id": id, "pid": pid }))
}

fn no_child(id: u64) -> OpError {
    OpError::internal(format!("no child {id}"))
}

/// Which child, and which of its streams.
#[derive(Deserialize)]
struct ChildStream {
    id: u64,
    #[serde(default)]
    fd: Option<u8>,
}

/// `child_read({ id, fd })` -> the next chunk of stdout (1) or stderr (2), or undefined at its end.
fn child_read(
    state: &Rc<HostState>,
    ChildStream { id, fd }: ChildStream,
) -> Result<OpFuture, OpError> {
    let resources = resources(state);
    let resources = resources.borrow();
    let handle = resources
        .process_groups
        .children
        .get(&id)
        .ok_or_else(|| no_child(id))?;
    let future: OpFuture = if fd == Some(2) {
        let stream = handle.stderr.clone().ok_or_else(|| no_child(id))?;
        Box::pin(async move { read_chunk(&mut *stream.lock().await).await })
    } else {
        let stream = handle.stdout.clone().ok_or_else(|| no_child(id))?;
        Box::pin(async move { read_chunk(&mut *stream.lock().await).await })
    };
    Ok(future)
}

async fn read_chunk<R: tokio::io::AsyncRead + Unpin>(
    stream: &mut Option<R>,
) -> Result<OpValue, OpError> {
    let Some(reader) = stream.as_mut() else {
        return Ok(OpValue::Undefined);
    };
    let mut buffer = vec![0u8; READ_CHUNK];
    match reader.read(&mut buffer).await {
        Ok(0) | Err(_) => {
            // The end: close our side now rather than when the host drops.
            *stream = None;
            Ok(OpValue::Undefined)
        }
        Ok(n) => {
            buffer.truncate(n);
            Ok(OpValue::Bytes(buffer))
        }
    }
}

#[derive(Deserialize)]
struct ChildWrite(ChildStream, Option<Bytes>);

/// `child_write({ id }, bytes)`: resolves once the bytes are in the pipe; EPIPE if the child
/// closed its stdin.
fn child_write(
    state: &Rc<HostState>,
    ChildWrite(ChildStream { id, .. }, bytes): ChildWrite,
) -> Result<impl std::future::Future<Output = Result<(), OpError>>, OpError> {
    let stdin = resources(state)
        .borrow()
        .process_groups
        .children
        .get(&id)
        .and_then(|h| h.stdin.clone())
        .ok_or_else(|| no_child(id))?;
    let bytes = bytes.unwrap_or_default().0;
    Ok(async move {
        let mut stdin = stdin.lock().await;
        let Some(pipe) = stdin.as_mut() else {
            return Err(errno_error(libc::EPIPE, "write", None, None));
        };
        pipe.write_all(&bytes)
            .await
            .map_err(|e| errno_error(e.raw_os_error().unwrap_or(libc::EPIPE), "write", None, None))
    })
}

/// `child_close_stdin(id)`: the child reads end of input once pending writes are done.
fn child_close_stdin(state: &Rc<HostState>, id: u64) -> Result<(), OpError> {
    let stdin = resources(state)
        .borrow()
        .process_groups
        .children
        .get(&id)
        .and_then(|h| h.stdin.clone());
    if let Some(stdin) = stdin {
        // Queued behind any write in flight, which holds the lock.
        tokio::spawn(async move {
            stdin.lock().await.take();
        });
    }
    Ok(())
}

/// `child_wait({ id })` -> `{ code, signal }` once the child exited.
fn child_wait(
    state: &Rc<HostState>,
    ChildStream { id, .. }: ChildStream,
) -> Result<impl std::future::Future<Output = Result<serde_json::Value, OpError>>, OpError> {
    let resources = resources(state);
    let mut resources = resources.borrow_mut();
    let groups = resources.process_groups.groups.clone();
    let handle = resources
        .process_groups
        .children
        .get_mut(&id)
        .ok_or_else(|| no_child(id))?;
    let mut child = handle.child.take().ok_or_else(|| no_child(id))?;
    let exited = handle.exited.clone();
    let pgid = handle.pgid;
    Ok(async move {
        let status = child.wait().await;
        exited.store(true, Ordering::SeqCst);
        groups.leader_exited(pgid);
        match status {
            Ok(status) => Ok(exit_json(status)),
            Err(e) => Err(errno_error(
                e.raw_os_error().unwrap_or(libc::ECHILD),
                "waitpid",
                None,
                None,
            )),
        }
    })
}

fn exit_json(status: ExitStatus) -> serde_json::Value {
    match status.signal() {
        Some(signal) => json!({ "code": null, "signal": signal_name(signal) }),
        None => json!({ "code": status.code(), "signal": null }),
    }
}

#[derive(Deserialize)]
struct ChildKill(u64, String);

/// `child_kill(id, signal)` -> whether the signal was sent to the child's group.
fn child_kill(state: &Rc<HostState>, ChildKill(id, name): ChildKill) -> Result<bool, OpError> {
    let signal = signal_number(&name).ok_or_else(|| unknown_signal(&name))?;
    let resources = resources(state);
    let resources = resources.borrow();
    Ok(match resources.process_groups.children.get(&id) {
        Some(handle) if !handle.exited.load(Ordering::SeqCst) => signal_group(handle.pgid, signal),
        _ => false,
    })
}

/// `child_release(id)`: JS is done with a child that exited and whose output ended.
fn child_release(state: &Rc<HostState>, id: u64) -> Result<(), OpError> {
    resources(state)
        .borrow_mut()
        .process_groups
        .children
        .remove(&id);
    Ok(())
}

/// How a sync child ended, beside what it printed.
struct SyncOutcome {
    pid: u32,
    status: Option<ExitStatus>,
    stdout: Option<Vec<u8>>,
    stderr: Option<Vec<u8>>,
    error: Option<OpError>,
}

#[derive(Deserialize)]
struct SpawnSync(SpawnRequest, Option<Bytes>);

/// `child_spawn_sync(request, input)` -> `{ pid, status, signal, stdout, stderr, error }`, the
/// shape of Node's `spawnSync` result (output as bytes; JS decodes).
fn child_spawn_sync(
    state: &Rc<HostState>,
    SpawnSync(request, input): SpawnSync,
) -> Result<OpValue, OpError> {
    let input = input.map(|b| b.0);
    let outcome = match request
        .command(state, "spawnSync")
        .and_then(|command| run_sync(command, &request, input))
    {
        Ok(outcome) => {
            // What the child left running in its group lives until the host stops it.
            if outcome.pid != 0 && group_alive(outcome.pid as i32) {
                resources(state)
                    .borrow()
                    .process_groups
                    .groups
                    .add(outcome.pid as i32);
            }
            outcome
        }
        Err(error) => SyncOutcome {
            pid: 0,
            status: None,
            stdout: None,
            stderr: None,
            error: Some(error),
        },
    };
    let exit = outcome
        .status
        .map(exit_json)
        .unwrap_or(json!({ "code": null, "signal": null }));
    let bytes = |output: Option<Vec<u8>>| output.map_or(OpValue::Json(json!(null)), OpValue::Bytes);
    let mut fields = vec![
        ("pid", OpValue::Json(json!(outcome.pid))),
        ("status", OpValue::Json(exit["code"].clone())),
        ("signal", OpValue::Json(exit["signal"].clone())),
        ("stdout", bytes(outcome.stdout)),
        ("stderr", bytes(outcome.stderr)),
    ];
    if let Some(error) = outcome.error {
        let value = json!({ "code": error.code, "message": error.message, "data": error.data });
        fields.push(("error", OpValue::Json(value)));
    }
    Ok(OpValue::Fields(fields))
}

fn run_sync(
    mut command: std::process::Command,
    request: &SpawnRequest,
    input: Option<Vec<u8>>,
) -> Result<SyncOutcome, OpError> {
    let kill_signal = request.kill_signal()?;
    let max_buffer = request.max_buffer.map(|n| n.max(0.0) as usize);
    let deadline = request
        .timeout_ms
        .filter(|ms| *ms > 0.0)
        .map(|ms| Instant::now() + crate::duration::clamp_millis(ms));
    let mut child = command
        .spawn()
        .map_err(|e| spawn_error(&e, "spawnSync", &request.file))?;
    let pid = child.id();
    let pgid = pid as i32;
    let overflow = Arc::new(AtomicBool::new(false));
    if let Some(mut stdin) = child.stdin.take() {
        let input = input.unwrap_or_default();
        std::thread::spawn(move || {
            let _ = stdin.write_all(&input);
        });
    }
    let collect = |stream: Option<Box<dyn Read + Send>>| {
        let overflow = overflow.clone();
        stream.map(|mut s| {
            std::thread::spawn(move || {
                let mut kept = Vec::new();
                let mut buffer = vec![0u8; READ_CHUNK];
                while let Ok(n) = s.read(&mut buffer) {
                    if n == 0 {
                        break;
                    }
                    kept.extend_from_slice(&buffer[..n]);
                    if max_buffer.is_some_and(|max| kept.len() > max) {
                        overflow.store(true, Ordering::SeqCst);
                    }
                }
                kept
            })
        })
    };
    let stdout = collect(
        child
            .stdout
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
    );
    let stderr = collect(
        child
            .stderr
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
    );
    let mut stop = StopSignals::new();
    let mut error = None;
    let mut killed_at: Option<Instant> = None;
    let status = loop {
        if let Ok(Some(status)) = child.try_wait() {
            break Some(status);
        }
        if let Some(at) = killed_at {
            if at.elapsed() >= KILL_GRACE {
                signal_group(pgid, libc::SIGKILL);
                break child.wait().ok();
            }
        } else if deadline.is_some_and(|d| Instant::now() >= d) {
            error = Some(process_error(libc::ETIMEDOUT, "spawnSync", &request.file));
            signal_group(pgid, kill_signal);
            killed_at = Some(Instant::now());
        } else if overflow.load(Ordering::SeqCst) {
            error = Some(process_error(libc::ENOBUFS, "spawnSync", &request.file));
            signal_group(pgid, kill_signal);
            killed_at = Some(Instant::now());
        } else if stop.received() {
            signal_group(pgid, libc::SIGTERM);
            killed_at = Some(Instant::now());
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    Ok(SyncOutcome {
        pid,
        status,
        stdout: stdout.and_then(|t| t.join().ok()),
        stderr: stderr.and_then(|t| t.join().ok()),
        error,
    })
}

/// Ctrl-C and SIGTERM seen while a sync child runs: the JS thread is blocked, so it looks for
/// them itself (the run's own listener sees them too, once JS runs again).
struct StopSignals(Vec<tokio::signal::unix::Signal>);

impl StopSignals {
    fn new() -> StopSignals {
        use tokio::signal::unix::{signal, SignalKind};
        if tokio::runtime::Handle::try_current().is_err() {
            return StopSignals(Vec::new());
        }
        let kinds = [SignalKind::interrupt(), SignalKind::terminate()];
        StopSignals(kinds.into_iter().filter_map(|k| signal(k).ok()).collect())
    }

    fn received(&mut self) -> bool {
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        self.0
            .iter_mut()
            .any(|s| matches!(s.poll_recv(&mut cx), std::task::Poll::Ready(_)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signal_names_round_trip() {
        assert_eq!(signal_number("SIGTERM"), Some(libc::SIGTERM));
        assert_eq!(signal_name(libc::SIGKILL), "SIGKILL");
        assert_eq!(signal_number("SIGNOPE"), None);
    }

    #[test]
    fn dropping_the_registry_kills_groups_left_running() {
        let mut child = std::process::Command::new("/bin/sh")
            .args(["-c", "sleep 30"])
            .process_group(0)
            .spawn()
            .unwrap();
        let pgid = child.id() as i32;
        let groups = ProcessGroups::default();
        groups.groups.add(pgid);
        let started = Instant::now();
        drop(groups);
        let status = child.wait().unwrap();
        assert_eq!(status.signal(), Some(libc::SIGTERM));
        assert!(started.elapsed() < KILL_GRACE + Duration::from_secs(1));
    }
}
