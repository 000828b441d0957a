//! Each agent's launcher: `<agent folder>/wfa`, a symbolic link to the `wfa` binary. Started by
//! that path, wfa finds the agent's socket beside it (`wire::SOCKET_NAME`;
//! cli/src/bin/wfa/channel.rs), so a call costs one exec (a shell script that exec'd wfa cost a
//! shell start more, about 0.6 ms). Prompts name it by absolute path, since an agent CLI's tool
//! shell may not inherit PATH.

use std::io;
use std::path::{Path, PathBuf};

use crate::env::AWF_WFA_BIN;

/// Why there is no `wfa` for an agent's launcher.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WfaNotFound {
    #[error("cannot find awf's own path: {0}")]
    NoOwnPath(String),
    #[error("no wfa binary beside awf at {}", .0.display())]
    NotBeside(PathBuf),
}

impl crate::hint::Hint for WfaNotFound {
    fn hint(&self) -> Option<String> {
        Some(format!(
            "install awf and wfa together (`cargo install --path cli` does), or set {AWF_WFA_BIN}"
        ))
    }
}

/// The `wfa` binary: `$AWF_WFA_BIN`, else `wfa` beside the running `awf`.
pub fn wfa_binary() -> Result<PathBuf, WfaNotFound> {
    if let Some(path) = std::env::var_os(AWF_WFA_BIN) {
        return Ok(PathBuf::from(path));
    }
    let exe = std::env::current_exe().map_err(|e| WfaNotFound::NoOwnPath(e.to_string()))?;
    let beside = exe.with_file_name("wfa");
    if beside.is_file() {
        Ok(beside)
    } else {
        Err(WfaNotFound::NotBeside(beside))
    }
}

/// Links `<dir>/wfa` to the `wfa` binary (absolute, so the link works from any cwd).
pub fn write(dir: &Path, wfa: &Path) -> io::Result<PathBuf> {
    let path = dir.join("wfa");
    let target = std::path::absolute(wfa)?;
    std::os::unix::fs::symlink(target, &path)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_launcher_links_to_wfa() {
        let dir = std::env::temp_dir().join(format!("awf-launcher-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = write(&dir, Path::new("/opt/awf/wfa")).unwrap();
        assert_eq!(path, dir.join("wfa"));
        assert_eq!(
            std::fs::read_link(&path).unwrap(),
            Path::new("/opt/awf/wfa")
        );
        std::fs::remove_dir_all(dir).unwrap();
    }
}
