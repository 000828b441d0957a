//! Which run wfa reaches, and the secret it presents there: the socket named by `--channel` (no
//! secret), or what the launcher wfa was started by says: its launcher file (the secret, and a
//! TCP route if the agent reaches its run over TCP) and the socket beside it. Without either, wfa
//! was not started through a launcher and says so.

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

use crate::output::Output;
use crate::refusal::Exit;
use crate::wire::{self, LaunchFile, TcpRoute};

/// Where a request goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Socket(PathBuf),
    Tcp(TcpRoute),
}

impl Target {
    /// Where, for a message: the socket's path or the route's address.
    pub fn place(&self) -> String {
        match self {
            Target::Socket(path) => path.display().to_string(),
            Target::Tcp(route) => route.address.clone(),
        }
    }
}

/// Where wfa reaches its run, and the secret it presents on every request there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reach {
    pub target: Target,
    pub secret: Option<String>,
}

/// What the launcher wfa was started by says, when it was started by one: `<agent folder>/wfa`
/// beside `<agent folder>/launcher.json` and `<agent folder>/s.sock`. Started any other way
/// (`wfa` on PATH, the binary itself), none. A launcher file that cannot be read as one is an
/// error (exit 4) naming it.
pub fn beside(program: &Path) -> Result<Option<Reach>, Output> {
    let Some(dir) = program.parent().filter(|dir| !dir.as_os_str().is_empty()) else {
        return Ok(None);
    };
    let socket = dir.join(wire::SOCKET_NAME);
    let file = dir.join(wire::LAUNCH_FILE);
    let launch = match std::fs::read(&file) {
        Ok(bytes) => serde_json::from_slice::<LaunchFile>(&bytes)
            .map_err(|error| invalid_launcher(&file, &error.to_string()))?,
        // A launcher of an older awf, or a folder wfa may not even look at (another user's): the
        // socket beside it is still the one meant, and connecting says why it cannot be used.
        Err(_) if socket_exists(&socket) => {
            return Ok(Some(Reach {
                target: Target::Socket(socket),
                secret: None,
            }))
        }
        Err(_) => return Ok(None),
    };
    let target = match launch.tcp {
        Some(route) => Target::Tcp(route),
        None => Target::Socket(socket),
    };
    Ok(Some(Reach {
        target,
        secret: Some(launch.secret),
    }))
}

fn socket_exists(socket: &Path) -> bool {
    match std::fs::symlink_metadata(socket) {
        Ok(_) => true,
        Err(error) => error.kind() == io::ErrorKind::PermissionDenied,
    }
}

fn invalid_launcher(file: &Path, why: &str) -> Output {
    Output::stderr(
        Exit::Unreachable,
        format!(
            "wfa: the launcher file {} is not valid: {why}\n\nhint: it is written by awf when \
             the agent opens; use the launcher named in your current prompt ($AWF_WFA)\n",
            file.display()
        ),
    )
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
    fn started_by_a_launcher_path_wfa_reads_its_launcher_file() {
        let dir = std::env::temp_dir().join(format!("wfa-beside-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let launcher = dir.join("wfa");
        assert_eq!(beside(&launcher), Ok(None));
        // An older launcher: the socket alone, no secret.
        std::fs::write(dir.join(wire::SOCKET_NAME), "").unwrap();
        let socket = Target::Socket(dir.join(wire::SOCKET_NAME));
        assert_eq!(
            beside(&launcher),
            Ok(Some(Reach {
                target: socket.clone(),
                secret: None
            }))
        );
        std::fs::write(dir.join(wire::LAUNCH_FILE), r#"{"secret":"ab"}"#).unwrap();
        assert_eq!(
            beside(&launcher),
            Ok(Some(Reach {
                target: socket,
                secret: Some("ab".to_owned())
            }))
        );
        let tcp = r#"{"secret":"ab","tcp":{"address":"127.0.0.1:4100","name":"k2m3","pin":"cd"}}"#;
        std::fs::write(dir.join(wire::LAUNCH_FILE), tcp).unwrap();
        let reach = beside(&launcher).unwrap().unwrap();
        assert_eq!(reach.target.place(), "127.0.0.1:4100");
        std::fs::write(dir.join(wire::LAUNCH_FILE), r#"{"tcp":null}"#).unwrap();
        let invalid = beside(&launcher).unwrap_err();
        assert_eq!(invalid.exit, Exit::Unreachable);
        assert!(
            invalid
                .stderr
                .contains("launcher.json is not valid: missing field `secret`"),
            "{}",
            invalid.stderr
        );
        assert_eq!(beside(Path::new("wfa")), Ok(None));
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn the_hint_names_the_launcher_in_awf_wfa() {
        assert!(not_launched(Some(OsString::from("/tmp/awf-1/a1/wfa")))
            .stderr
            .ends_with("$AWF_WFA (/tmp/awf-1/a1/wfa)\n"));
    }
}
