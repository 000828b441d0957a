//! `wfa __bridge`: the network of a sandboxed agent, run inside its box as the agent's parent.
//!
//! A box without a network of its own (bwrap `--unshare-net`) has only its loopback. awf starts
//! `wfa __bridge --listen 127.0.0.1:PORT=SOCKET ... -- PROGRAM ARGS...` there: the bridge
//! listens on each loopback address and forwards each connection, byte for byte, to its Unix
//! socket, which the run's proxy serves on the host (runtime/src/sandbox/network/). Then it runs
//! the program as its child: the child dies with it (`PR_SET_PDEATHSIG`), it dies with its own
//! parent, it passes on SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2, and it ends as
//! the program ended (its exit status, or the same signal).

use std::ffi::OsString;
use std::io::{self};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::os::unix::net::UnixStream;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicI32, Ordering};
use std::thread;

/// The program's pid, for the signal handler.
static CHILD: AtomicI32 = AtomicI32::new(0);
/// What the bridge passes on to the program.
const PASSED_ON: [i32; 6] = [
    libc::SIGTERM,
    libc::SIGINT,
    libc::SIGHUP,
    libc::SIGQUIT,
    libc::SIGUSR1,
    libc::SIGUSR2,
];
/// The status for the bridge's own failure (before the program ran), as `env` uses.
const FAILED: u8 = 125;

/// Runs the bridge; returns the exit status (after the program's end by a signal, it has
/// already died of the same).
pub fn main(args: Vec<OsString>) -> u8 {
    match bridge(args) {
        Ok(status) => status,
        Err(why) => {
            eprintln!("wfa __bridge: {why}");
            FAILED
        }
    }
}

fn bridge(args: Vec<OsString>) -> Result<u8, String> {
    let (listens, program) = parse(args)?;
    // SAFETY: a plain syscall on our own process.
    unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) };
    for (address, socket) in listens {
        let listener = TcpListener::bind(&address)
            .map_err(|e| format!("cannot listen on {address} inside the sandbox: {e}"))?;
        thread::spawn(move || {
            for client in listener.incoming().flatten() {
                let socket = socket.clone();
                thread::spawn(move || forward(client, &socket));
            }
        });
    }
    let mut command = Command::new(&program[0]);
    command.args(&program[1..]);
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        command.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
            Ok(())
        });
    }
    let mut child = command
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", PathBuf::from(&program[0]).display()))?;
    CHILD.store(child.id() as i32, Ordering::SeqCst);
    // SAFETY: the handler only reads an atomic and calls kill, which is async-signal-safe.
    unsafe {
        for signal in PASSED_ON {
            libc::signal(signal, pass_on as *const () as libc::sighandler_t);
        }
    }
    let status = loop {
        match child.wait() {
            Ok(status) => break status,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(format!("waiting for the program: {e}")),
        }
    };
    if let Some(signal) = status.signal() {
        // SAFETY: plain syscalls on our own process: die of the signal the program died of.
        unsafe {
            libc::signal(signal, libc::SIG_DFL);
            libc::kill(libc::getpid(), signal);
        }
        return Ok(128 + signal as u8);
    }
    Ok(status.code().unwrap_or(1) as u8)
}

extern "C" fn pass_on(signal: i32) {
    let child = CHILD.load(Ordering::SeqCst);
    if child > 0 {
        // SAFETY: kill is async-signal-safe; the pid is our own child's.
        unsafe { libc::kill(child, signal) };
    }
}

/// One connection, both ways, to the socket.
fn forward(client: TcpStream, socket: &Path) {
    let Ok(upstream) = UnixStream::connect(socket) else {
        let _ = client.shutdown(Shutdown::Both);
        return;
    };
    let (Ok(mut client_read), Ok(mut upstream_write)) = (client.try_clone(), upstream.try_clone())
    else {
        return;
    };
    let outgoing = thread::spawn(move || {
        let _ = io::copy(&mut client_read, &mut upstream_write);
        let _ = upstream_write.shutdown(Shutdown::Write);
    });
    let (mut upstream_read, mut client_write) = (upstream, client);
    let _ = io::copy(&mut upstream_read, &mut client_write);
    let _ = client_write.shutdown(Shutdown::Write);
    let _ = outgoing.join();
}

/// A loopback address to listen on inside the box, and the socket its connections go to.
type Listen = (String, PathBuf);

/// `(--listen ADDRESS=SOCKET)* -- PROGRAM ARGS...`
fn parse(args: Vec<OsString>) -> Result<(Vec<Listen>, Vec<OsString>), String> {
    let mut args = args.into_iter();
    let mut listens = Vec::new();
    loop {
        match args.next() {
            Some(flag) if flag == "--listen" => {
                let pair = args
                    .next()
                    .and_then(|p| p.into_string().ok())
                    .ok_or("--listen needs ADDRESS=SOCKET, e.g. 127.0.0.1:3128=/run/p.sock")?;
                let (address, socket) = pair.split_once('=').ok_or_else(|| {
                    format!(
                        "--listen {pair:?}: write ADDRESS=SOCKET, e.g. 127.0.0.1:3128=/run/p.sock"
                    )
                })?;
                listens.push((address.to_string(), PathBuf::from(socket)));
            }
            Some(flag) if flag == "--" => break,
            other => {
                return Err(format!(
                    "expected --listen or `--` before the program, got {other:?}"
                ))
            }
        }
    }
    let program: Vec<OsString> = args.collect();
    if program.is_empty() {
        return Err("no program after `--`".into());
    }
    Ok((listens, program))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<OsString> {
        line.split(' ').map(OsString::from).collect()
    }

    #[test]
    fn reads_each_listener_and_the_program() {
        let (listens, program) = parse(words(
            "--listen 127.0.0.1:3128=/r/p.sock --listen 127.0.0.1:80=/r/f=80.sock -- curl -s x",
        ))
        .unwrap();
        assert_eq!(
            listens,
            vec![
                ("127.0.0.1:3128".to_string(), PathBuf::from("/r/p.sock")),
                ("127.0.0.1:80".to_string(), PathBuf::from("/r/f=80.sock")),
            ]
        );
        assert_eq!(program, words("curl -s x"));
    }

    #[test]
    fn refuses_what_it_cannot_read() {
        assert!(parse(words("--listen 127.0.0.1:3128 -- x"))
            .unwrap_err()
            .contains("ADDRESS=SOCKET"));
        assert!(parse(words("--listen"))
            .unwrap_err()
            .contains("--listen needs"));
        assert!(parse(words("curl"))
            .unwrap_err()
            .contains("expected --listen"));
        assert!(parse(words("--")).unwrap_err().contains("no program"));
    }
}
