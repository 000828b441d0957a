//! The agent channel: each agent's Unix socket and launcher, and the wire protocol `wfa` speaks.
//!
//! A run has one control folder under /tmp (short socket paths), mode 0700; inside it each agent
//! has a folder of its own (`a1`, `a2`, ...; the key never appears in a path) holding its socket
//! `s.sock` and its launcher `wfa`. The connection is the authority: the socket a request comes
//! in on says which agent sent it, so nothing secret goes into a prompt.
//!
//! `wire.rs` and `refusal.rs` depend on nothing but serde, because the `wfa` binary includes
//! them by path.

pub mod client;
pub mod launcher;
pub mod refusal;
pub mod server;
pub mod wire;

use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

/// A run's control folder; removed when dropped.
#[derive(Debug)]
pub struct ControlDir {
    path: PathBuf,
    next_agent: AtomicU32,
}

impl ControlDir {
    /// Makes `/tmp/awf-XXXXXX`, readable by its owner only.
    pub fn create() -> io::Result<ControlDir> {
        let path = crate::paths::make_temp_dir(Path::new("/tmp"), "awf-")?;
        Ok(ControlDir {
            path,
            next_agent: AtomicU32::new(1),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A new agent folder, mode 0700.
    pub fn agent_dir(&self) -> io::Result<PathBuf> {
        let n = self.next_agent.fetch_add(1, Ordering::SeqCst);
        let dir = self.path.join(format!("a{n}"));
        std::fs::create_dir(&dir)?;
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))?;
        Ok(dir)
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
    fn folders_are_private_and_removed_with_the_run() {
        let control = ControlDir::create().unwrap();
        let path = control.path().to_path_buf();
        assert!(path.starts_with("/tmp"));
        assert_eq!(std::fs::metadata(&path).unwrap().mode() & 0o777, 0o700);
        let agent = control.agent_dir().unwrap();
        assert_eq!(agent, path.join("a1"));
        assert_eq!(std::fs::metadata(&agent).unwrap().mode() & 0o777, 0o700);
        assert_eq!(control.agent_dir().unwrap(), path.join("a2"));
        drop(control);
        assert!(!path.exists());
    }
}
