//! awf's side of the keeper (`wfa __keep`, cli/src/bin/wfa/keep.rs), the parent of every agent
//! process: starting it with its control socket, reading what it reports, telling it to stop.
//!
//! What is guaranteed where (docs/reliability.md says the same):
//! - Everywhere: the agent runs in its own process group with `PR_SET_PDEATHSIG` (it dies if
//!   its keeper does); the keeper is a child subreaper, so every process the agent starts stays
//!   the keeper's descendant, `setsid` and double forks included, and is killed with the turn.
//!   When awf ends in any way (`kill -9`, a crash, the OOM killer), the keeper's control socket
//!   closes and it kills all of them.
//! - With cgroup v2 where awf may make groups (root; a delegated user slice): each agent process
//!   also runs in a cgroup of its own under the run's, killed at once with `cgroup.kill`, and
//!   awf kills it itself should its keeper be killed. Elsewhere the subreaper alone tracks them.
//! - Not: a process that asks another service to start something (`systemd-run`, a daemon's
//!   socket), or one that kills its own keeper first, escapes; agents are the user's programs.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::UnixStream;
use tokio::process::{Child, Command};

use super::Launch;
use crate::limits::KILL_GRACE;
use crate::os::cgroup::Cgroup;

/// How a run's agent processes are tracked: the run's cgroup when awf could make one.
#[derive(Debug)]
pub struct Supervision {
    run_cgroup: Option<Cgroup>,
    next: AtomicU64,
}

impl Supervision {
    /// Makes the run's cgroup (`awf-<run id>` under awf's own) if the machine lets awf, unless
    /// `$AWF_PROCESS_TRACKING` is `subreaper` (the fallback, chosen by hand).
    pub fn new(run_id: &str) -> Supervision {
        let chosen = std::env::var(crate::env::AWF_PROCESS_TRACKING).unwrap_or_default();
        let run_cgroup = (chosen != "subreaper")
            .then(Cgroup::own)
            .flatten()
            .and_then(|own| own.make_child(&format!("awf-{run_id}")).ok());
        Supervision {
            run_cgroup,
            next: AtomicU64::new(1),
        }
    }

    /// Tracking by process tree only (for tests of the fallback, and runs without agents).
    pub fn without_cgroup() -> Supervision {
        Supervision {
            run_cgroup: None,
            next: AtomicU64::new(1),
        }
    }

    /// `cgroup` or `subreaper`: what tracks the run's agent processes.
    pub fn tracking(&self) -> &'static str {
        if self.run_cgroup.is_some() {
            "cgroup"
        } else {
            "subreaper"
        }
    }

    /// The run's cgroup, if there is one.
    pub fn run_cgroup(&self) -> Option<&Cgroup> {
        self.run_cgroup.as_ref()
    }

    fn agent_cgroup(&self) -> Option<Cgroup> {
        let n = self.next.fetch_add(1, Ordering::SeqCst);
        self.run_cgroup.as_ref()?.make_child(&format!("p{n}")).ok()
    }
}

impl Drop for Supervision {
    fn drop(&mut self) {
        if let Some(cgroup) = &self.run_cgroup {
            cgroup.signal(libc::SIGKILL);
            let _ = cgroup.remove();
        }
    }
}

/// A started keeper and the agent process under it.
pub struct Kept {
    pub child: Child,
    /// The agent process's pid, which is also its process group.
    pub agent: i32,
    /// The keeper's pid: the agent's processes are its descendants.
    pub keeper: i32,
    reports: BufReader<OwnedReadHalf>,
    orders: OwnedWriteHalf,
    cgroup: Option<Cgroup>,
    exit: Option<ExitStatus>,
}

/// Starts `launch` under the keeper `wfa` (`wfa __keep`), stdout and stderr piped.
pub async fn start(launch: &Launch, wfa: &Path, supervision: &Supervision) -> io::Result<Kept> {
    let (ours, theirs) = socket_pair()?;
    let cgroup = supervision.agent_cgroup();
    let mut command = Command::new(wfa);
    command.arg("__keep");
    if let Some(cgroup) = &cgroup {
        command.arg("--cgroup").arg(cgroup.path());
    }
    command
        .arg("--")
        .arg(&launch.program)
        .args(&launch.args)
        .current_dir(&launch.cwd);
    for name in &launch.env_remove {
        command.env_remove(name);
    }
    let theirs_fd = theirs.as_raw_fd();
    command
        .envs(launch.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdin(if launch.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own group: a Ctrl-C at the terminal is awf's to handle, not the keeper's.
        .process_group(0);
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        command.pre_exec(move || {
            if theirs_fd == 3 {
                libc::fcntl(3, libc::F_SETFD, 0);
            } else if libc::dup2(theirs_fd, 3) < 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let spawned = command.spawn();
    drop(theirs);
    let child = match spawned {
        Ok(child) => child,
        Err(e) => {
            remove(cgroup.as_ref());
            return Err(e);
        }
    };
    let keeper = child.id().map_or(0, |id| id as i32);
    let std_stream = std::os::unix::net::UnixStream::from(ours);
    std_stream.set_nonblocking(true)?;
    let (read, orders) = UnixStream::from_std(std_stream)?.into_split();
    let mut kept = Kept {
        child,
        agent: 0,
        keeper,
        reports: BufReader::new(read),
        orders,
        cgroup,
        exit: None,
    };
    match kept.report().await {
        Some(Report::Started(pid)) => {
            kept.agent = pid;
            Ok(kept)
        }
        Some(Report::Error(why)) => {
            kept.finish().await;
            Err(io::Error::other(why))
        }
        _ => {
            kept.finish().await;
            Err(io::Error::other(format!(
                "its keeper ({}) ended without starting it",
                wfa.display()
            )))
        }
    }
}

/// A line from the keeper.
enum Report {
    Started(i32),
    Exited(ExitStatus),
    Clear,
    Error(String),
    Other,
}

impl Kept {
    async fn report(&mut self) -> Option<Report> {
        use std::os::unix::process::ExitStatusExt;
        let mut line = String::new();
        match self.reports.read_line(&mut line).await {
            Ok(0) | Err(_) => return None,
            Ok(_) => {}
        }
        let (word, rest) = line
            .trim_end()
            .split_once(' ')
            .unwrap_or((line.trim_end(), ""));
        Some(match word {
            "started" => Report::Started(rest.split(' ').next()?.parse().ok()?),
            "exited" => Report::Exited(ExitStatus::from_raw(rest.parse().ok()?)),
            "clear" => Report::Clear,
            "error" => Report::Error(rest.to_string()),
            _ => Report::Other,
        })
    }

    /// Waits for the agent process itself to exit (its other processes may live on).
    pub async fn wait(&mut self) -> io::Result<ExitStatus> {
        if let Some(status) = self.exit {
            return Ok(status);
        }
        loop {
            match self.report().await {
                Some(Report::Exited(status)) => {
                    self.exit = Some(status);
                    return Ok(status);
                }
                Some(_) => {}
                None => return Err(io::Error::other("the agent's keeper ended")),
            }
        }
    }

    /// The agent's exit status, if it is known.
    pub fn exit_status(&self) -> Option<ExitStatus> {
        self.exit
    }

    /// Stops everything of the agent: SIGTERM, SIGKILL after the grace; waits for the keeper to
    /// say nothing is left (bounded), then for the keeper itself.
    pub async fn stop(&mut self) {
        let order = format!("stop {}\n", KILL_GRACE.as_millis());
        let _ = self.orders.write_all(order.as_bytes()).await;
        let bound = KILL_GRACE + Duration::from_secs(7);
        let cleared = tokio::time::timeout(bound, async {
            loop {
                match self.report().await {
                    Some(Report::Clear) => return true,
                    Some(Report::Exited(status)) => self.exit = Some(status),
                    Some(_) => {}
                    None => return false,
                }
            }
        })
        .await;
        if cleared != Ok(true) {
            // The keeper was killed or is wedged: kill what can be found from here.
            if let Some(cgroup) = &self.cgroup {
                cgroup.signal(libc::SIGKILL);
            }
            // SAFETY: plain syscall on the agent's own group.
            unsafe { libc::killpg(self.agent, libc::SIGKILL) };
        }
        self.finish().await;
    }

    async fn finish(&mut self) {
        let _ = self.orders.shutdown().await;
        if tokio::time::timeout(Duration::from_secs(2), self.child.wait())
            .await
            .is_err()
        {
            let _ = self.child.kill().await;
        }
        remove(self.cgroup.as_ref());
    }
}

fn remove(cgroup: Option<&Cgroup>) {
    if let Some(cgroup) = cgroup {
        if cgroup.populated() {
            cgroup.signal(libc::SIGKILL);
        }
        let _ = cgroup.remove();
    }
}

/// A connected pair of Unix stream sockets, both close-on-exec.
fn socket_pair() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: plain syscall filling an array we own; the fds are ours from here on.
    let made = unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_STREAM | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        )
    };
    if made != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just made and are owned by nothing else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}
