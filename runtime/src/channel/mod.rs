//! The agent channel: each agent's Unix socket and launcher, and the wire protocol `wfa` speaks.
//!
//! A run has one control folder under /tmp (short socket paths), mode 0700, with a marker saying
//! whose run it is (`sweep.rs` removes those of dead runs); inside it each agent has a folder of
//! its own, named by a random word (the key never appears in a path), holding its socket `s.sock`,
//! its launcher `wfa` and the launcher file `launcher.json` (`launcher.rs`: the agent's secret,
//! `secret.rs`). The connection is the authority: the socket a request comes in on says which
//! agent it is for, and the connecting process (`SO_PEERCRED`) must be one of that agent's own,
//! or a container's presenting the agent's secret (`server.rs`, agents/agent/authority.rs), so
//! nothing secret goes into a prompt and a path alone grants nothing. A run started with
//! `--channel tcp` also listens on TCP with TLS (`tcp.rs`, `tls.rs`), where the secret is
//! required.
//!
//! `wire/` and `refusal.rs` depend on nothing but serde, because the `wfa` binary includes
//! them by path.

pub mod client;
pub mod launcher;
pub mod refusal;
pub mod secret;
pub mod server;
pub mod sweep;
pub mod tcp;
pub mod tls;
pub mod wire;

use std::collections::HashMap;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use crate::os::proc::Identity;
use crate::records::RunDir;
use tcp::TcpChannel;

/// The file in a control folder that says whose run it is (`sweep.rs` reads it).
pub const MARKER: &str = "run.json";

/// What a control folder's marker records: the awf process that owns it, the run's records
/// and cgroup, so that a later awf can tell a dead run's leftovers and clean them up.
pub struct RunMarker<'a> {
    pub records: &'a Path,
    pub cgroup: Option<&'a Path>,
}

/// A run's control folder; removed when dropped.
#[derive(Debug)]
pub struct ControlDir {
    path: PathBuf,
    next_agent: AtomicU32,
    /// Each agent folder's number, for names that must stay short and stable (`AWF_SESSION`).
    numbers: Mutex<HashMap<PathBuf, u32>>,
    /// The run's TCP listener, when the run asked for one; bound at the first agent's open.
    tcp: OnceLock<Result<TcpChannel, String>>,
}

impl ControlDir {
    /// Makes `/tmp/awf-XXXXXX`, readable by its owner only, with its marker.
    pub fn create(marker: &RunMarker<'_>) -> io::Result<ControlDir> {
        let path = crate::paths::make_temp_dir(Path::new("/tmp"), "awf-")?;
        let me = Identity::current();
        let text = serde_json::json!({
            "pid": me.pid,
            "start": me.start,
            "records": marker.records.display().to_string(),
            "cgroup": marker.cgroup.map(|c| c.display().to_string()),
        });
        // Whole but not flushed: the marker matters only while this machine is up.
        crate::records::write_whole(&path.join(MARKER), text.to_string().as_bytes())?;
        Ok(ControlDir {
            path,
            next_agent: AtomicU32::new(1),
            numbers: Mutex::default(),
            tcp: OnceLock::new(),
        })
    }

    /// The run's TCP listener when the run asked for one (`tcp::configured`), bound at first
    /// use; refusals of connections that reach no agent are recorded in `records`. Needs a tokio
    /// runtime.
    pub fn tcp(&self, records: &Arc<RunDir>) -> io::Result<Option<&TcpChannel>> {
        let Some(listen) = tcp::configured() else {
            return Ok(None);
        };
        let bound = self
            .tcp
            .get_or_init(|| TcpChannel::bind(&listen, records.clone()).map_err(|e| e.to_string()));
        bound
            .as_ref()
            .map(Some)
            .map_err(|e| io::Error::other(e.clone()))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A new agent folder, mode 0700, named by a random word: one agent's folder says nothing
    /// of where another's is.
    pub fn agent_dir(&self) -> io::Result<PathBuf> {
        let n = self.next_agent.fetch_add(1, Ordering::SeqCst);
        let dir = self.path.join(crate::os::random::unguessable(12));
        std::fs::create_dir(&dir)?;
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))?;
        self.numbers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(dir.clone(), n);
        Ok(dir)
    }

    /// `a1`, `a2`, ...: the order in which an agent folder was made.
    pub fn agent_number(&self, dir: &Path) -> String {
        let numbers = self.numbers.lock().unwrap_or_else(|e| e.into_inner());
        format!("a{}", numbers.get(dir).copied().unwrap_or(0))
    }
}

impl Drop for ControlDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;

    #[test]
    fn folders_are_private_unguessable_and_removed_with_the_run() {
        let control = ControlDir::create(&RunMarker {
            records: Path::new("/nowhere"),
            cgroup: None,
        })
        .unwrap();
        let path = control.path().to_path_buf();
        assert!(path.starts_with("/tmp"));
        assert_eq!(std::fs::metadata(&path).unwrap().mode() & 0o777, 0o700);
        let marker: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path.join(MARKER)).unwrap()).unwrap();
        assert_eq!(marker["pid"], std::process::id());
        let a = control.agent_dir().unwrap();
        let b = control.agent_dir().unwrap();
        assert_eq!(std::fs::metadata(&a).unwrap().mode() & 0o777, 0o700);
        let name = a.file_name().unwrap().to_str().unwrap();
        assert_eq!(name.len(), 12);
        assert_ne!(a, b);
        assert_eq!(control.agent_number(&a), "a1");
        assert_eq!(control.agent_number(&b), "a2");
        drop(control);
        assert!(!path.exists());
    }
}
