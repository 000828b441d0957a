//! Who may speak for an agent on its socket: a process of this user in the tree of the agent's
//! running process (its keeper), whose root is set while a process runs; or, in a test run, awf
//! itself. Anything else is refused `forbidden` and recorded. A check that cannot be made (awf
//! cannot read `/proc` for want of descriptors or memory) is no verdict on the process: it is
//! refused `resource-error`, which the agent may retry, and recorded as such.

use super::{refused, Agent};
use crate::channel::refusal::Code;
use crate::channel::server::Peer;
use crate::channel::wire::Response;
use crate::os::proc::LineageError;
use crate::records::Event;

/// What the peer check found.
#[derive(Debug)]
enum Verdict {
    Allowed,
    /// Not the agent's: who it is instead.
    Forbidden(String),
    /// The check could not be made.
    Unchecked {
        pid: i32,
        error: LineageError,
    },
}

/// Whether the process that connected (`peer`) may speak for the agent `key`, whose process tree
/// starts at `root` (none while no process runs); `descends` walks a process's parents up.
fn judge(
    peer: Peer,
    key: &str,
    root: Option<i32>,
    scripted: bool,
    descends: impl FnOnce(i32, i32) -> Result<bool, LineageError>,
) -> Verdict {
    // SAFETY: plain syscall.
    let me = unsafe { libc::geteuid() };
    match peer.pid {
        _ if peer.uid != me => {
            Verdict::Forbidden(format!("a process of another user (uid {})", peer.uid))
        }
        None => Verdict::Forbidden("a process awf cannot identify".to_string()),
        Some(pid) if scripted && pid == std::process::id() as i32 => Verdict::Allowed,
        Some(pid) => match root {
            Some(root) => match descends(pid, root) {
                Ok(true) => Verdict::Allowed,
                Ok(false) => Verdict::Forbidden(format!(
                    "process {pid}, which is not one of agent \"{key}\"'s"
                )),
                Err(error) => Verdict::Unchecked { pid, error },
            },
            None => Verdict::Forbidden(format!(
                "process {pid}, while agent \"{key}\" has no process running"
            )),
        },
    }
}

/// The usual name of an errno a failed check meets, for the agent's message and the records.
fn errno_name(errno: i32) -> Option<&'static str> {
    Some(match errno {
        libc::EMFILE => "EMFILE",
        libc::ENFILE => "ENFILE",
        libc::ENOMEM => "ENOMEM",
        libc::EAGAIN => "EAGAIN",
        libc::EINTR => "EINTR",
        libc::EIO => "EIO",
        libc::EACCES => "EACCES",
        libc::EPERM => "EPERM",
        _ => return None,
    })
}

/// What went wrong reading `/proc`, with the errno's name: `reading /proc/7/stat failed: Too
/// many open files (os error 24, EMFILE)`.
fn lineage_failure(error: &LineageError) -> String {
    let text = error.to_string();
    match (
        error.error.raw_os_error().and_then(errno_name),
        text.strip_suffix(')'),
    ) {
        (Some(name), Some(open)) => format!("{open}, {name})"),
        _ => text,
    }
}

/// The refusal of a request whose sender could not be checked.
fn unchecked(key: &str, pid: i32, error: &LineageError) -> Response {
    refused(
        Code::ResourceError,
        &format!(
            "awf could not check that process {pid} is one of agent \"{key}\"'s: {}; nothing ran",
            lineage_failure(error)
        ),
        vec![],
        Some("awf is short of open files or memory: call again in a moment; if it keeps happening, raise the open-file limit awf starts with (`ulimit -Hn`)"),
    )
}

impl Agent {
    /// Sets (or clears) the root of the agent's process tree.
    pub(in crate::agents) fn set_process_root(&self, root: Option<i32>) {
        self.state().process_root = root;
    }

    /// Whether the process that connected (`peer`) may speak for this agent: a process of this
    /// user that descends from the agent's running process (its keeper), or, in a test run,
    /// awf itself, which plays the scripted agents. Anything else is refused `forbidden`, a
    /// check that cannot be made `resource-error`; both are recorded.
    pub(in crate::agents) fn authorize(&self, peer: Peer) -> Result<(), Response> {
        let root = self.state().process_root;
        let verdict = judge(
            peer,
            &self.key,
            root,
            self.link.scripted.is_some(),
            crate::os::proc::descends_from,
        );
        let why = match verdict {
            Verdict::Allowed => return Ok(()),
            Verdict::Forbidden(why) => why,
            Verdict::Unchecked { pid, error } => {
                self.record(&Event::ChannelCheckFailed {
                    agent: self.key.clone(),
                    pid,
                    uid: peer.uid,
                    errno: error.error.raw_os_error(),
                    error: lineage_failure(&error),
                });
                return Err(unchecked(&self.key, pid, &error));
            }
        };
        self.record(&Event::ChannelRefused {
            agent: self.key.clone(),
            pid: peer.pid,
            uid: peer.uid,
            why: why.clone(),
        });
        Err(refused(
            Code::Forbidden,
            &format!("this launcher belongs to agent \"{}\" and was used by {why}", self.key),
            vec![],
            Some("use the launcher named in your own prompt ($AWF_WFA); only the agent it was made for may use it"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn me() -> Peer {
        Peer {
            pid: Some(4242),
            // SAFETY: plain syscall.
            uid: unsafe { libc::geteuid() },
        }
    }

    #[test]
    fn a_parent_that_cannot_be_read_is_a_resource_error_not_a_refusal() {
        let emfile = |pid, _| {
            Err(LineageError {
                pid,
                error: std::io::Error::from_raw_os_error(libc::EMFILE),
            })
        };
        let Verdict::Unchecked { pid, error } = judge(me(), "a", Some(1), false, emfile) else {
            panic!("an unreadable /proc is not a verdict on the process");
        };
        assert_eq!(pid, 4242);
        let refusal = unchecked("a", pid, &error);
        let Response::Refused {
            code,
            message,
            hint,
            ..
        } = refusal
        else {
            panic!("{refusal:?}");
        };
        assert_eq!(code, Code::ResourceError);
        assert!(code.is_refusal());
        assert!(
            message.contains("reading /proc/4242/stat failed"),
            "{message}"
        );
        assert!(
            message.contains("(os error 24, EMFILE); nothing ran"),
            "{message}"
        );
        assert!(hint.is_some_and(|h| h.contains("call again")));
    }

    #[test]
    fn a_stranger_is_forbidden_and_a_descendant_allowed() {
        let stranger = judge(me(), "a", Some(1), false, |_, _| Ok(false));
        assert!(
            matches!(&stranger, Verdict::Forbidden(why) if why == "process 4242, which is not one of agent \"a\"'s"),
            "{stranger:?}"
        );
        assert!(matches!(
            judge(me(), "a", Some(1), false, |_, _| Ok(true)),
            Verdict::Allowed
        ));
        let other_user = Peer {
            uid: me().uid.wrapping_add(1),
            ..me()
        };
        assert!(matches!(
            judge(other_user, "a", Some(1), false, |_, _| Ok(true)),
            Verdict::Forbidden(_)
        ));
        assert!(matches!(
            judge(me(), "a", None, false, |_, _| Ok(true)),
            Verdict::Forbidden(_)
        ));
    }
}
