//! Which run wfa reaches: the socket named by `--channel`, or the one beside the launcher wfa was
//! started by; without either, wfa was not started through a launcher and says so.

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

use crate::output::Output;
use crate::refusal::Exit;
use crate::wire;

/// The agent's socket when wfa was started by an agent's launcher: `<agent folder>/wfa` beside
/// `<agent folder>/s.sock`. Started any other way (`wfa` on PATH, the binary itself), none.
pub fn socket_beside(program: &Path) -> Option<PathBuf> {
    let dir = program.parent().filter(|dir| !dir.as_os_str().is_empty())?;
    let socket = dir.join(wire::SOCKET_NAME);
    // A socket wfa may not even look at (another user's folder) is still the one meant: connecting
    // then says why it cannot be reached.
    match std::fs::symlink_metadata(&socket) {
        Ok(_) => Some(socket),
        Err(error) if error.kind() == io::ErrorKind::PermissionDenied => Some(socket),
        Err(_) => None,
    }
}

/// Takes `--channel <socket>` off the front of the arguments.
pub fn split_channel(mut args: Vec<OsString>) -> (Option<PathBuf>, Vec<OsString>) {
    if args.len() >= 2 && args[0] == "--channel" {
        let rest = args.split_off(2);
        (Some(PathBuf::from(args.swap_remove(1))), rest)
    } else {
        (None, args)
    }
}

/// Run without `--channel`: not through a launcher, so wfa cannot know which run to reach.
pub fn not_launched(launcher: Option<OsString>) -> Output {
    let launcher = match launcher {
        Some(path) => format!(" ({})", PathBuf::from(path).display()),
        None => String::new(),
    };
    Output::stderr(
        Exit::Unreachable,
        format!(
            "wfa: no workflow run to reach: wfa must be run through an agent's launcher\n\n\
             hint: run the launcher named in your prompt; its path is also in $AWF_WFA{launcher}\n"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_channel_comes_off_the_front() {
        let args = ["--channel", "/tmp/awf-1/a1/s.sock", "tool", "x"].map(OsString::from);
        let (channel, rest) = split_channel(args.to_vec());
        assert_eq!(channel, Some(PathBuf::from("/tmp/awf-1/a1/s.sock")));
        assert_eq!(rest, ["tool", "x"].map(OsString::from));
        let (channel, rest) = split_channel(vec![OsString::from("--channel")]);
        assert_eq!(channel, None);
        assert_eq!(rest.len(), 1);
        let args = ["tool", "--channel", "/x"].map(OsString::from);
        assert_eq!(split_channel(args.to_vec()).0, None);
    }

    #[test]
    fn started_by_a_launcher_path_wfa_finds_the_socket_beside_it() {
        let dir = std::env::temp_dir().join(format!("wfa-beside-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert_eq!(socket_beside(&dir.join("wfa")), None);
        std::fs::write(dir.join(wire::SOCKET_NAME), "").unwrap();
        assert_eq!(
            socket_beside(&dir.join("wfa")),
            Some(dir.join(wire::SOCKET_NAME))
        );
        assert_eq!(socket_beside(Path::new("wfa")), None);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn the_hint_names_the_launcher_in_awf_wfa() {
        assert!(not_launched(Some(OsString::from("/tmp/awf-1/a1/wfa")))
            .stderr
            .ends_with("$AWF_WFA (/tmp/awf-1/a1/wfa)\n"));
    }
}
