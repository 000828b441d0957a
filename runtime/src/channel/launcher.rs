//! Each agent's launcher: `<agent folder>/wfa`, a symbolic link to the `wfa` binary, and beside
//! it the launcher file `launcher.json` (`wire::LAUNCH_FILE`, mode 0600: the agent's secret and,
//! for an agent that reaches its run over TCP, the route). Started by that path, wfa reads the
//! file and finds the agent's socket beside it (`wire::SOCKET_NAME`; cli/src/bin/wfa/channel.rs),
//! so a call costs one exec and one small read (a shell script that exec'd wfa with the secret
//! cost a shell start more, about 0.6 ms). Prompts name it by absolute path, since an agent CLI's
//! tool shell may not inherit PATH.

use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use super::secret::Secret;
use super::wire::{LaunchFile, TcpRoute, LAUNCH_FILE};
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

/// Links `<dir>/wfa` to the `wfa` binary (absolute, so the link works from any cwd) and writes
/// the launcher file beside it: the agent's `secret`, and `tcp` when it reaches its run over TCP.
pub fn write(
    dir: &Path,
    wfa: &Path,
    secret: &Secret,
    tcp: Option<TcpRoute>,
) -> io::Result<PathBuf> {
    let file = LaunchFile {
        secret: secret.to_hex(),
        tcp,
    };
    let text = serde_json::to_vec(&file).map_err(io::Error::other)?;
    // Created readable by its owner alone from the start: the secret is never readable by others,
    // not even for a moment.
    let mut launch = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(dir.join(LAUNCH_FILE))?;
    launch.write_all(&text)?;
    let path = dir.join("wfa");
    let target = std::path::absolute(wfa)?;
    std::os::unix::fs::symlink(target, &path)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::os::unix::fs::MetadataExt;

    #[test]
    fn the_launcher_links_to_wfa_beside_a_private_file_with_the_secret() {
        let dir = std::env::temp_dir().join(format!("awf-launcher-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let secret = Secret::generate().unwrap();
        let path = write(&dir, Path::new("/opt/awf/wfa"), &secret, None).unwrap();
        assert_eq!(path, dir.join("wfa"));
        assert_eq!(
            std::fs::read_link(&path).unwrap(),
            Path::new("/opt/awf/wfa")
        );
        let launch = dir.join(LAUNCH_FILE);
        assert_eq!(std::fs::metadata(&launch).unwrap().mode() & 0o777, 0o600);
        let file: LaunchFile = serde_json::from_slice(&std::fs::read(&launch).unwrap()).unwrap();
        assert_eq!(
            secret.judge(Some(&file.secret)),
            super::super::secret::Presented::Right
        );
        assert_eq!(file.tcp, None);
        // An agent folder gets one launcher: a second write does not replace the secret.
        assert!(write(&dir, Path::new("/opt/awf/wfa"), &secret, None).is_err());
        std::fs::remove_dir_all(dir).unwrap();
    }
}
