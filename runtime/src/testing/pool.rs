//! The processes test files run in: the runner loads the test framework into one host
//! (`FileHost`), then forks itself once per file, up to `jobs` at a time, the next file as
//! soon as one ends. A fork starts at once from the loaded engine (no module is read or
//! evaluated again) and shares its memory with the runner until it writes to it; whatever the
//! file changes, even built-in prototypes, dies with its process, so files never see each other.
//!
//! A file's process sends its `FileMessage`s back on a pipe, one JSON line each, and exits.
//! The runner counts `--bail`'s failures over every file as the messages come in; at the limit
//! it drops what comes after, kills the files still running and starts no more. A process that
//! ends before its file did (a crash, a signal) is reported as an error of that file.

use std::io::Write;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

use super::event::{TestEvent, TestFailure, TestFile};
use super::file::{self, FileHost, FileMessage, FileSettings};
use super::fork_memory::{self, Heap};
use crate::js::JsError;

/// Bytes read from a file's pipe at a time.
const READ_CHUNK: usize = 64 * 1024;

/// Runs `files` on up to `jobs` processes; hands each file's messages to `deliver` (file index,
/// messages) as they come, `End` or `NotRun` last. True when `--bail` stopped the run.
pub(super) fn run_files(
    files: &[TestFile],
    settings: &FileSettings,
    jobs: usize,
    deliver: &mut dyn FnMut(usize, Vec<FileMessage>),
) -> bool {
    let template = match FileHost::start(settings) {
        Ok(template) => template,
        Err(error) => {
            for index in 0..files.len() {
                deliver(index, file::engine_failed(&error));
            }
            return false;
        }
    };
    let heap = fork_memory::prepare_forks();
    let mut pool = Pool {
        running: Vec::new(),
        failures: 0,
        limit: settings.bail,
        stopped: false,
    };
    let mut next = 0;
    loop {
        while pool.running.len() < jobs && next < files.len() && !pool.stopped {
            match spawn(&files[next], settings, &template, &heap) {
                Ok(child) => pool.running.push(Running::new(next, child)),
                Err(error) => deliver(next, file::engine_failed(&error)),
            }
            next += 1;
        }
        if pool.running.is_empty() {
            break;
        }
        pool.wait_for_output(deliver);
    }
    for index in next..files.len() {
        deliver(index, vec![FileMessage::NotRun]);
    }
    // The runner exits soon: its copy of the engine goes with the process.
    std::mem::forget(template);
    pool.stopped
}

/// A file's process and the read end of its pipe.
struct Child {
    pid: libc::pid_t,
    pipe: OwnedFd,
}

/// Forks a process that runs `file` in (its copy of) `template`.
fn spawn(
    file: &TestFile,
    settings: &FileSettings,
    template: &FileHost,
    heap: &Heap,
) -> Result<Child, JsError> {
    let (read, write) = pipe().map_err(|e| os_error("cannot make a pipe for a test file", e))?;
    // SAFETY: the child only runs the file on this thread (the runner's other threads are not
    // copied; it takes no lock they could hold) and ends with `_exit`, never returning here.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(os_error(
            "cannot start a process for a test file",
            std::io::Error::last_os_error(),
        ));
    }
    if pid == 0 {
        heap.populate();
        drop(read);
        // SAFETY: this process's copy of the template is moved out once, here; the process ends
        // with `_exit` below, so nothing reads or drops the original copy after.
        let host = unsafe { std::ptr::read(template) };
        let status = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            // SAFETY: plain system calls; the file's process dies with the runner.
            unsafe {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
            }
            let out = std::fs::File::from(write);
            file::run_file(file, settings, host, move |batch| {
                let mut text = Vec::new();
                for message in batch {
                    if serde_json::to_writer(&mut text, &message).is_ok() {
                        text.push(b'\n');
                    }
                }
                let _ = (&out).write_all(&text);
            });
        }))
        .map_or(101, |_| 0);
        // SAFETY: ends the process without running the runner's exit handlers or destructors.
        unsafe { libc::_exit(status) };
    }
    drop(write);
    Ok(Child { pid, pipe: read })
}

fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors pipe2 writes.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: pipe2 just made both, and nothing else owns them.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

fn os_error(what: &str, error: std::io::Error) -> JsError {
    JsError::internal(&format!("{what}: {error}"))
}

/// A file whose process runs.
struct Running {
    index: usize,
    child: Child,
    /// Bytes read but not yet a whole line.
    partial: Vec<u8>,
    /// The file's `End` came.
    ended: bool,
    /// `--bail` stopped the run: what the file sends from now on is dropped.
    cut: bool,
}

impl Running {
    fn new(index: usize, child: Child) -> Running {
        Running {
            index,
            child,
            partial: Vec::new(),
            ended: false,
            cut: false,
        }
    }
}

struct Pool {
    running: Vec<Running>,
    failures: usize,
    limit: Option<usize>,
    stopped: bool,
}

impl Pool {
    /// Waits until a file's process wrote or ended, and handles what it wrote.
    fn wait_for_output(&mut self, deliver: &mut dyn FnMut(usize, Vec<FileMessage>)) {
        let mut polled: Vec<libc::pollfd> = self
            .running
            .iter()
            .map(|file| libc::pollfd {
                fd: file.child.pipe.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            })
            .collect();
        // SAFETY: `polled` holds `polled.len()` pollfd structs.
        let ready = unsafe { libc::poll(polled.as_mut_ptr(), polled.len() as libc::nfds_t, -1) };
        if ready < 0 {
            // Interrupted by a signal: poll again.
            return;
        }
        let mut chunk = vec![0u8; READ_CHUNK];
        let mut finished = Vec::new();
        for (slot, poll) in polled.iter().enumerate() {
            if poll.revents == 0 {
                continue;
            }
            // SAFETY: reads into `chunk`, which has `chunk.len()` bytes.
            let read = unsafe {
                libc::read(
                    poll.fd,
                    chunk.as_mut_ptr().cast::<libc::c_void>(),
                    chunk.len(),
                )
            };
            match read {
                n if n > 0 => self.received(slot, &chunk[..n as usize], deliver),
                0 => finished.push(slot),
                _ if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted => {}
                _ => finished.push(slot),
            }
        }
        for slot in finished.into_iter().rev() {
            let file = self.running.swap_remove(slot);
            let status = reap(file.child.pid);
            if !file.ended {
                let mut last = Vec::new();
                if !file.cut {
                    last.push(died(status));
                }
                last.push(FileMessage::End {
                    expect_calls: 0,
                    filtered: 0,
                });
                deliver(file.index, last);
            }
        }
    }

    /// Handles the bytes file `slot` wrote: each whole line is one message.
    fn received(
        &mut self,
        slot: usize,
        bytes: &[u8],
        deliver: &mut dyn FnMut(usize, Vec<FileMessage>),
    ) {
        let file = &mut self.running[slot];
        file.partial.extend_from_slice(bytes);
        let Some(last_newline) = file.partial.iter().rposition(|b| *b == b'\n') else {
            return;
        };
        let rest = file.partial.split_off(last_newline + 1);
        let lines = std::mem::replace(&mut file.partial, rest);
        let index = file.index;
        let mut batch = Vec::new();
        for line in lines.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
            let message = serde_json::from_slice::<FileMessage>(line).unwrap_or_else(|e| {
                FileMessage::Event(Box::new(TestEvent::UncaughtError {
                    origin: "the file's process".into(),
                    failure: TestFailure::message(
                        "Error",
                        format!("awf could not read what the file's process sent: {e}"),
                    ),
                }))
            });
            let file = &mut self.running[slot];
            if matches!(message, FileMessage::End { .. }) {
                file.ended = true;
                batch.push(message);
                continue;
            }
            if file.cut {
                continue;
            }
            let failure = message.is_failure();
            batch.push(message);
            if failure && self.count_failure() {
                self.bail();
            }
        }
        if !batch.is_empty() {
            deliver(index, batch);
        }
    }

    /// Counts one failure; true when it is the one that stops the run.
    fn count_failure(&mut self) -> bool {
        self.failures += 1;
        let last = self.limit == Some(self.failures);
        if last {
            self.stopped = true;
        }
        last
    }

    /// `--bail`'s limit is reached: nothing more is reported, the running files are stopped.
    fn bail(&mut self) {
        for file in &mut self.running {
            file.cut = true;
            if !file.ended {
                // SAFETY: a plain system call, to a process of ours not yet reaped.
                unsafe { libc::kill(file.child.pid, libc::SIGKILL) };
            }
        }
    }
}

/// Waits for the process `pid` to end; its wait status.
fn reap(pid: libc::pid_t) -> libc::c_int {
    let mut status = 0;
    loop {
        // SAFETY: `status` is where waitpid writes.
        let done = unsafe { libc::waitpid(pid, &mut status, 0) };
        if done >= 0 || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            return status;
        }
    }
}

/// The error of a file whose process ended before the file did.
fn died(status: libc::c_int) -> FileMessage {
    let how = if libc::WIFSIGNALED(status) {
        format!("was killed by signal {}", libc::WTERMSIG(status))
    } else {
        format!("exited with status {}", libc::WEXITSTATUS(status))
    };
    FileMessage::Event(Box::new(TestEvent::UncaughtError {
        origin: "the file's process".into(),
        failure: TestFailure {
            hint: Some("awf runs each test file in a process of its own; one that crashes or is killed takes only its own file's remaining tests with it".into()),
            ..TestFailure::message(
                "Error",
                format!("the process running this file {how} before the file's tests ended"),
            )
        },
    }))
}
