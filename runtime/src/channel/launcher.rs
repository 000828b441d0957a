//! Each agent's launcher: a tiny shell script in its folder that starts the `wfa` binary on the
//! agent's socket. Prompts name it by absolute path, since an agent CLI's tool shell may not
//! inherit PATH.

use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::env::AWF_WFA_BIN;

/// The `wfa` binary: `$AWF_WFA_BIN`, else `wfa` beside the running `awf`.
pub fn wfa_binary() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os(AWF_WFA_BIN) {
        return Ok(PathBuf::from(path));
    }
    let exe = std::env::current_exe().map_err(|e| format!("cannot find awf's own path: {e}"))?;
    let beside = exe.with_file_name("wfa");
    if beside.is_file() {
        Ok(beside)
    } else {
        Err(format!(
            "no wfa binary beside awf at {}; install awf and wfa together, or set {AWF_WFA_BIN}",
            beside.display()
        ))
    }
}

/// Writes `<dir>/wfa`, mode 0500, which runs `wfa` on `<dir>/s.sock`.
pub fn write(dir: &Path, wfa: &Path, socket: &Path) -> io::Result<PathBuf> {
    let path = dir.join("wfa");
    let script = format!(
        "#!/bin/sh\nexec {} --channel {} \"$@\"\n",
        shell_quote(&wfa.display().to_string()),
        shell_quote(&socket.display().to_string())
    );
    std::fs::write(&path, script)?;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o500))?;
    Ok(path)
}

/// Single-quotes a word for sh: `'` becomes `'\''`.
pub fn shell_quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', "'\\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_for_sh() {
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
    }

    #[test]
    fn the_launcher_execs_wfa_on_the_socket() {
        let dir = std::env::temp_dir().join(format!("awf-launcher-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = write(&dir, Path::new("/opt/awf/wfa"), &dir.join("s.sock")).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text,
            format!(
                "#!/bin/sh\nexec '/opt/awf/wfa' --channel '{}/s.sock' \"$@\"\n",
                dir.display()
            )
        );
        assert_eq!(
            std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o500
        );
        std::fs::remove_dir_all(dir).unwrap();
    }
}
