//! `wfa __keep`: the keeper, the parent of every agent process awf starts.
//!
//! awf starts `<agent folder>/wfa __keep [--cgroup DIR] -- PROGRAM ARGS...` with a control socket
//! on fd 3. The keeper makes itself a child subreaper (so whatever the agent starts, a `setsid`
//! daemon too, stays its descendant when its own parent dies), starts the program in a process
//! group of its own, with `PR_SET_PDEATHSIG` (the agent dies if the keeper does) and, given
//! `--cgroup`, in that cgroup. It then reaps, reports and waits:
//!
//! - to awf: `started <pid> cgroup|tree`, `exited <wait status>` when the program itself ends,
//!   `clear` once a stop has left nothing of the agent alive; or `error <why>` and exit 1.
//! - from awf: `stop <grace ms>`: SIGTERM to everything of the agent, SIGKILL after the grace.
//!   The end of the socket (awf exited, crashed or was killed with -9) is a stop too: no agent
//!   process outlives the awf that started it. SIGTERM and SIGHUP to the keeper are a stop too.
//!
//! "Everything of the agent" is its cgroup (killed at once with `cgroup.kill`) where awf could
//! make one, and always every descendant of the keeper and the agent's process group.

use std::ffi::{CString, OsString};
use std::io::{Read, Write};
use std::os::fd::FromRawFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

// Shared with the runtime, which makes and reads the groups; the keeper only kills in them.
// from_runtime/ links to the runtime's files, so that the crate carries them when packaged.
#[allow(dead_code)]
#[path = "from_runtime/cgroup.rs"]
mod cgroup;
#[allow(dead_code)]
#[path = "from_runtime/proc.rs"]
mod proc;

use cgroup::Cgroup;

/// The control socket's descriptor, as awf sets it up.
const CONTROL_FD: i32 = 3;
/// How long SIGKILLs are repeated for processes that keep appearing (a fork loop) before the
/// keeper gives up and says what is left.
const KILL_BOUND: Duration = Duration::from_secs(5);

/// Runs the keeper; returns its exit status.
pub fn main(args: Vec<OsString>) -> u8 {
    // SAFETY: fd 3 was set up by awf for this process alone; nothing else owns it.
    let mut control = unsafe { UnixStream::from_raw_fd(CONTROL_FD) };
    match keep(args, &mut control) {
        Ok(()) => 0,
        Err(why) => {
            let _ = control.write_all(format!("error {why}\n").as_bytes());
            1
        }
    }
}

fn keep(args: Vec<OsString>, control: &mut UnixStream) -> Result<(), String> {
    let (cgroup, program) = parse(args)?;
    // SAFETY: plain syscalls on our own process and descriptors.
    let signals = unsafe {
        libc::fcntl(CONTROL_FD, libc::F_SETFD, libc::FD_CLOEXEC);
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
        block_signals()
    };
    let keeper = std::process::id() as i32;
    let join = cgroup
        .as_ref()
        .and_then(|c| CString::new(c.path().join("cgroup.procs").as_os_str().as_bytes()).ok());
    let mut command = Command::new(&program[0]);
    command.args(&program[1..]).process_group(0);
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        command.pre_exec(move || {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
            if libc::getppid() != keeper {
                libc::_exit(1);
            }
            if let Some(procs) = &join {
                let fd = libc::open(procs.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
                if fd >= 0 {
                    libc::write(fd, b"0".as_ptr().cast(), 1);
                    libc::close(fd);
                }
            }
            let mut none: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut none);
            libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
            Ok(())
        });
    }
    let child = command
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", PathBuf::from(&program[0]).display()))?;
    let agent = child.id() as i32;
    // The agent holds the pipes to awf now; the keeper lets go of its copies, so awf sees the
    // output end when the agent's processes end.
    release_stdio();
    let tracked = cgroup
        .as_ref()
        .filter(|c| c.procs().contains(&agent))
        .cloned();
    let mode = if tracked.is_some() { "cgroup" } else { "tree" };
    send(control, &format!("started {agent} {mode}"));
    let mut keeper = Keeper {
        me: keeper,
        agent,
        cgroup: tracked,
        signals,
        exited: false,
    };
    let grace = keeper.wait_for_stop(control);
    keeper.stop(control, grace);
    send(control, "clear");
    Ok(())
}

/// `[--cgroup DIR] -- PROGRAM ARGS...`
fn parse(args: Vec<OsString>) -> Result<(Option<Cgroup>, Vec<OsString>), String> {
    let mut args = args.into_iter();
    let mut cgroup = None;
    loop {
        match args.next() {
            Some(flag) if flag == "--cgroup" => {
                let dir = args.next().ok_or("--cgroup needs a folder")?;
                cgroup = Some(Cgroup::at(PathBuf::from(dir)));
            }
            Some(flag) if flag == "--" => break,
            other => return Err(format!("expected `--` before the program, got {other:?}")),
        }
    }
    let program: Vec<OsString> = args.collect();
    if program.is_empty() {
        return Err("no program after `--`".into());
    }
    Ok((cgroup, program))
}

fn send(control: &mut UnixStream, line: &str) {
    let _ = control.write_all(format!("{line}\n").as_bytes());
}

/// Blocks SIGCHLD, SIGTERM, SIGHUP and SIGINT and returns a signalfd that reads them. (SIGINT
/// is read and ignored: a Ctrl-C is awf's to handle, and awf tells the keeper.)
unsafe fn block_signals() -> i32 {
    let mut set: libc::sigset_t = std::mem::zeroed();
    libc::sigemptyset(&mut set);
    for signal in [libc::SIGCHLD, libc::SIGTERM, libc::SIGHUP, libc::SIGINT] {
        libc::sigaddset(&mut set, signal);
    }
    libc::sigprocmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
    libc::signalfd(-1, &set, libc::SFD_CLOEXEC | libc::SFD_NONBLOCK)
}

fn release_stdio() {
    let null = CString::new("/dev/null").expect("no NUL");
    // SAFETY: plain syscalls on our own descriptors.
    unsafe {
        let fd = libc::open(null.as_ptr(), libc::O_RDWR);
        if fd >= 0 {
            for target in 0..3 {
                libc::dup2(fd, target);
            }
            if fd > 2 {
                libc::close(fd);
            }
        }
    }
}

struct Keeper {
    me: i32,
    agent: i32,
    cgroup: Option<Cgroup>,
    signals: i32,
    exited: bool,
}

impl Keeper {
    /// Reaps and reports until awf asks for a stop (or goes away); returns the grace to give.
    fn wait_for_stop(&mut self, control: &mut UnixStream) -> Duration {
        let mut pending = Vec::new();
        loop {
            let mut fds = [
                libc::pollfd {
                    fd: CONTROL_FD,
                    events: libc::POLLIN,
                    revents: 0,
                },
                libc::pollfd {
                    fd: self.signals,
                    events: libc::POLLIN,
                    revents: 0,
                },
            ];
            // SAFETY: plain syscall on descriptors we own.
            unsafe { libc::poll(fds.as_mut_ptr(), 2, -1) };
            if fds[1].revents != 0 && self.read_signals() {
                return Duration::from_millis(1500);
            }
            self.reap(control);
            if fds[0].revents != 0 {
                let mut chunk = [0u8; 256];
                match control.read(&mut chunk) {
                    Ok(0) | Err(_) => return Duration::from_millis(1500),
                    Ok(n) => pending.extend_from_slice(&chunk[..n]),
                }
                if let Some(at) = pending.iter().position(|&b| b == b'\n') {
                    let line = String::from_utf8_lossy(&pending[..at]).into_owned();
                    let ms = line
                        .strip_prefix("stop ")
                        .and_then(|ms| ms.trim().parse().ok());
                    return Duration::from_millis(ms.unwrap_or(1500));
                }
            }
        }
    }

    /// Drains the signalfd; whether a SIGTERM or SIGHUP asked the keeper to stop.
    fn read_signals(&mut self) -> bool {
        let mut stop = false;
        loop {
            // SAFETY: the buffer is a signalfd_siginfo's size; the fd is non-blocking.
            let mut info: libc::signalfd_siginfo = unsafe { std::mem::zeroed() };
            let size = std::mem::size_of::<libc::signalfd_siginfo>();
            let read = unsafe {
                libc::read(
                    self.signals,
                    (&mut info as *mut libc::signalfd_siginfo).cast(),
                    size,
                )
            };
            if read != size as isize {
                return stop;
            }
            stop |= matches!(info.ssi_signo as i32, libc::SIGTERM | libc::SIGHUP);
        }
    }

    /// Reaps every child that ended; reports the agent's own end once.
    fn reap(&mut self, control: &mut UnixStream) {
        loop {
            let mut status = 0;
            // SAFETY: plain syscall.
            let pid = unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG) };
            if pid <= 0 {
                return;
            }
            if pid == self.agent && !self.exited {
                self.exited = true;
                send(control, &format!("exited {status}"));
            }
        }
    }

    /// What is left of the agent: its cgroup's processes and the keeper's descendants.
    fn left(&self) -> Vec<i32> {
        let mut left: Vec<i32> = proc::descendants(self.me, &proc::all())
            .iter()
            .map(|s| s.pid)
            .collect();
        if let Some(cgroup) = &self.cgroup {
            if cgroup.populated() {
                left.extend(cgroup.procs());
                left.push(-1);
            }
        }
        left
    }

    fn signal_all(&self, signal: i32) {
        if let Some(cgroup) = &self.cgroup {
            cgroup.signal(signal);
        }
        // SAFETY: plain syscalls; every pid is a descendant of this keeper.
        unsafe {
            libc::killpg(self.agent, signal);
            for pid in self.left().into_iter().filter(|pid| *pid > 0) {
                libc::kill(pid, signal);
            }
        }
    }

    /// SIGTERM to everything of the agent, SIGKILL to what is left after `grace`, until nothing
    /// is.
    fn stop(&mut self, control: &mut UnixStream, grace: Duration) {
        self.signal_all(libc::SIGTERM);
        let deadline = Instant::now() + grace;
        while Instant::now() < deadline {
            self.reap(control);
            if self.left().is_empty() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let bound = Instant::now() + KILL_BOUND;
        while Instant::now() < bound {
            self.signal_all(libc::SIGKILL);
            std::thread::sleep(Duration::from_millis(5));
            self.reap(control);
            if self.left().is_empty() {
                return;
            }
        }
        send(control, &format!("left {:?}", self.left()));
    }
}
