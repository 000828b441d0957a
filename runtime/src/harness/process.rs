//! Agent processes: each in its own process group, its output kept (bounded), and the whole
//! group killed when its turn is over — SIGTERM, then SIGKILL after a grace. No orphans.
//!
//! Every live group is also in `LIVE_GROUPS`, so that a second Ctrl-C (which exits at once)
//! can still kill them all synchronously on its way out.

use std::collections::HashSet;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::Mutex;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, Command};
use tokio::task::JoinHandle;

use crate::limits::{KILL_GRACE, MAX_AGENT_OUTPUT_BYTES};

static LIVE_GROUPS: Mutex<Option<HashSet<i32>>> = Mutex::new(None);

fn track(pgid: i32, live: bool) {
    let mut groups = LIVE_GROUPS.lock().unwrap_or_else(|e| e.into_inner());
    let set = groups.get_or_insert_with(HashSet::new);
    if live {
        set.insert(pgid);
    } else {
        set.remove(&pgid);
    }
}

/// SIGKILLs every agent process group still alive; for exiting at once.
pub fn kill_all_now() {
    let groups = LIVE_GROUPS.lock().unwrap_or_else(|e| e.into_inner());
    for pgid in groups.iter().flatten() {
        unsafe {
            libc::killpg(*pgid, libc::SIGKILL);
        }
    }
}

/// What to start.
#[derive(Clone, Debug)]
pub struct Launch {
    pub program: PathBuf,
    pub args: Vec<String>,
    pub cwd: PathBuf,
    /// Variables set on top of the inherited environment.
    pub env: Vec<(String, String)>,
    /// Written to stdin, which is then closed.
    pub stdin: String,
}

/// Output kept from one stream: its first bytes up to the bound, and whether more came.
#[derive(Clone, Debug, Default)]
pub struct Captured {
    pub bytes: Vec<u8>,
    pub truncated: bool,
}

impl Captured {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes).into_owned()
    }

    /// The last `n` non-empty lines, for failure details.
    pub fn last_lines(&self, n: usize) -> String {
        let text = self.text();
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        lines[lines.len().saturating_sub(n)..].join("\n")
    }
}

/// A started agent process and its group.
pub struct AgentProcess {
    child: Child,
    pgid: i32,
    stdout: JoinHandle<Captured>,
    stderr: JoinHandle<Captured>,
}

/// How a process ended, with its output.
#[derive(Debug)]
pub struct Ended {
    pub status: Option<ExitStatus>,
    pub stdout: Captured,
    pub stderr: Captured,
}

impl AgentProcess {
    pub fn spawn(launch: &Launch) -> std::io::Result<AgentProcess> {
        let mut command = Command::new(&launch.program);
        command
            .args(&launch.args)
            .current_dir(&launch.cwd)
            .envs(launch.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        let mut child = command.spawn()?;
        let pgid = child.id().map(|id| id as i32).unwrap_or(0);
        track(pgid, true);
        let stdout = tokio::spawn(capture(child.stdout.take()));
        let stderr = tokio::spawn(capture(child.stderr.take()));
        if let Some(mut stdin) = child.stdin.take() {
            let prompt = launch.stdin.clone().into_bytes();
            // The agent may never read its prompt; writing must not hold the turn up.
            tokio::spawn(async move {
                let _ = stdin.write_all(&prompt).await;
                let _ = stdin.shutdown().await;
            });
        }
        Ok(AgentProcess {
            child,
            pgid,
            stdout,
            stderr,
        })
    }

    /// Waits for the process itself to exit (its group may live on).
    pub async fn wait(&mut self) -> std::io::Result<ExitStatus> {
        self.child.wait().await
    }

    /// Kills the whole group (SIGTERM, then SIGKILL after the grace) and collects the output.
    pub async fn stop(mut self, status: Option<ExitStatus>) -> Ended {
        let status = match status {
            Some(s) => Some(s),
            None => self.child.try_wait().ok().flatten(),
        };
        kill_group(self.pgid, &mut self.child).await;
        let status = match status {
            Some(s) => Some(s),
            None => self.child.wait().await.ok(),
        };
        track(self.pgid, false);
        // The pumps end when every holder of the pipes is gone, which the kill ensured; bound
        // the wait anyway: a process outside the group may have inherited the pipe.
        let stdout = join_capture(self.stdout).await;
        let stderr = join_capture(self.stderr).await;
        Ended {
            status,
            stdout,
            stderr,
        }
    }
}

async fn join_capture(handle: JoinHandle<Captured>) -> Captured {
    let abort = handle.abort_handle();
    match tokio::time::timeout(Duration::from_millis(500), handle).await {
        Ok(Ok(captured)) => captured,
        _ => {
            abort.abort();
            Captured {
                bytes: b"(output not collected: a process outside the agent's group kept its pipe open)".to_vec(),
                truncated: true,
            }
        }
    }
}

/// SIGTERM to the group; if anything of it is left after the grace, SIGKILL.
async fn kill_group(pgid: i32, child: &mut Child) {
    if pgid <= 0 {
        let _ = child.kill().await;
        return;
    }
    if !group_alive(pgid) {
        return;
    }
    unsafe {
        libc::killpg(pgid, libc::SIGTERM);
    }
    let deadline = tokio::time::Instant::now() + KILL_GRACE;
    while tokio::time::Instant::now() < deadline {
        // Reap our own child so it does not count as alive while a zombie.
        let _ = child.try_wait();
        if !group_alive(pgid) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    unsafe {
        libc::killpg(pgid, libc::SIGKILL);
    }
    let _ = child.wait().await;
}

/// Whether any process of the group still runs. A zombie does not count: an orphaned child
/// that died waits for init to reap it, which some inits (in containers) do late or never.
pub fn group_alive(pgid: i32) -> bool {
    if unsafe { libc::killpg(pgid, 0) } != 0 {
        return false;
    }
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return true;
    };
    entries
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
        })
        .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
        .any(|stat| stat_in_group_and_running(&stat, pgid))
}

/// Reads `/proc/<pid>/stat`: after the command in parentheses come the state and, two fields
/// on, the process group.
fn stat_in_group_and_running(stat: &str, pgid: i32) -> bool {
    let Some(after_command) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
        return false;
    };
    let fields: Vec<&str> = after_command.split_whitespace().collect();
    matches!((fields.first(), fields.get(2)), (Some(state), Some(group)) if *state != "Z" && *state != "X" && group.parse() == Ok(pgid))
}

async fn capture(stream: Option<impl AsyncRead + Unpin>) -> Captured {
    let Some(mut stream) = stream else {
        return Captured::default();
    };
    let mut captured = Captured::default();
    let mut buffer = [0u8; 8192];
    loop {
        match stream.read(&mut buffer).await {
            Ok(0) | Err(_) => return captured,
            Ok(n) => {
                let room = MAX_AGENT_OUTPUT_BYTES.saturating_sub(captured.bytes.len());
                captured.bytes.extend_from_slice(&buffer[..n.min(room)]);
                if n > room {
                    captured.truncated = true;
                }
            }
        }
    }
}

/// The exit code or the signal, in words: `exited with code 3`, `killed by signal 9`.
pub fn describe_status(status: &ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with code {code}"),
        (None, Some(signal)) => format!("killed by signal {signal}"),
        _ => "ended".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_state_and_group_from_stat() {
        let stat = "123 (sh (odd) name) S 1 456 456 0 -1 4194560";
        assert!(stat_in_group_and_running(stat, 456));
        assert!(!stat_in_group_and_running(stat, 457));
        assert!(!stat_in_group_and_running("123 (sleep) Z 1 456 456 0", 456));
    }

    #[tokio::test]
    async fn stopping_kills_what_the_process_left_in_the_background() {
        let dir = std::env::temp_dir();
        let launch = Launch {
            program: "/bin/sh".into(),
            args: vec!["-c".into(), "sleep 300 & echo $!; sleep 300".into()],
            cwd: dir,
            env: vec![],
            stdin: String::new(),
        };
        let mut process = AgentProcess::spawn(&launch).unwrap();
        let pgid = process.pgid;
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(group_alive(pgid));
        assert!(
            tokio::time::timeout(Duration::from_millis(50), process.wait())
                .await
                .is_err()
        );
        let ended = process.stop(None).await;
        assert!(!group_alive(pgid), "the background sleep survived");
        let background: i32 = ended.stdout.text().trim().parse().unwrap();
        let state = std::fs::read_to_string(format!("/proc/{background}/stat")).unwrap_or_default();
        assert!(state.is_empty() || state.contains(") Z "), "{state}");
    }
}
