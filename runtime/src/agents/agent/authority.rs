//! Who may speak for an agent: on its socket, a process of this user in the tree of the agent's
//! running process (its keeper), whose root is set while a process runs; or a process outside
//! awf's pid namespace (a container's, which the tree cannot place: podman's conmon or docker's
//! shim is its parent) that presents the agent's secret; or, in a test run, awf itself. Over TCP,
//! any connection that presents the agent's secret. A request that presents a wrong secret is
//! refused whoever sends it. Anything else is refused `forbidden` and recorded. A check that
//! cannot be made (awf cannot read `/proc` for want of descriptors or memory) is no verdict on
//! the process: it is refused `resource-error`, which the agent may retry, and recorded as such.

use std::io;

use super::{refused, Agent};
use crate::channel::refusal::Code;
use crate::channel::secret::Presented;
use crate::channel::server::{Caller, Peer};
use crate::channel::wire::Response;
use crate::os::proc::LineageError;
use crate::records::Event;

/// What the check found.
#[derive(Debug)]
enum Verdict {
    Allowed,
    /// Not the agent's: who it is instead.
    Forbidden(String),
    /// The check could not be made.
    Unchecked {
        pid: i32,
        uid: u32,
        error: LineageError,
    },
}

/// How to place a process: whether it descends from another (`descends(pid, root)`, walking its
/// parents up) and whether it lives in a pid namespace other than awf's (`contained(pid)`).
struct Lineage<D, C> {
    descends: D,
    contained: C,
}

/// Whether `caller`, presenting a secret judged `secret`, may speak for the agent `key`, whose
/// process tree starts at `root` (none while no process runs).
fn judge<D, C>(
    caller: &Caller,
    secret: Presented,
    key: &str,
    root: Option<i32>,
    scripted: bool,
    lineage: Lineage<D, C>,
) -> Verdict
where
    D: FnOnce(i32, i32) -> Result<bool, LineageError>,
    C: FnOnce(i32) -> io::Result<bool>,
{
    let peer = match caller {
        Caller::Network(from) => {
            return match secret {
                Presented::Right => Verdict::Allowed,
                Presented::Missing => Verdict::Forbidden(format!(
                    "a connection from {from} without the agent's secret"
                )),
                Presented::Wrong => {
                    Verdict::Forbidden(format!("a connection from {from} with a wrong secret"))
                }
            }
        }
        Caller::Process(peer) => peer,
    };
    // SAFETY: plain syscall.
    let me = unsafe { libc::geteuid() };
    let pid = match peer.pid {
        _ if peer.uid != me => {
            return Verdict::Forbidden(format!("a process of another user (uid {})", peer.uid))
        }
        None => return Verdict::Forbidden("a process awf cannot identify".to_string()),
        Some(pid) => pid,
    };
    if secret == Presented::Wrong {
        return Verdict::Forbidden(format!("process {pid} with a wrong secret"));
    }
    if scripted && pid == std::process::id() as i32 {
        return Verdict::Allowed;
    }
    let not_the_agents = match root {
        Some(root) => match (lineage.descends)(pid, root) {
            Ok(true) => return Verdict::Allowed,
            Ok(false) => format!("process {pid}, which is not one of agent \"{key}\"'s"),
            Err(error) => {
                return Verdict::Unchecked {
                    pid,
                    uid: peer.uid,
                    error,
                }
            }
        },
        None => format!("process {pid}, while agent \"{key}\" has no process running"),
    };
    if secret == Presented::Missing {
        return Verdict::Forbidden(not_the_agents);
    }
    match (lineage.contained)(pid) {
        Ok(true) => Verdict::Allowed,
        Ok(false) => Verdict::Forbidden(format!(
            "{not_the_agents}: the agent's secret speaks only for a process in a container, and              this one shares awf's pid namespace"
        )),
        Err(error) => Verdict::Forbidden(format!(
            "{not_the_agents}, whose pid namespace awf cannot read ({error})"
        )),
    }
}

/// Whether process `pid` lives in a pid namespace other than awf's (a container's).
fn contained(pid: i32) -> io::Result<bool> {
    let theirs = std::fs::read_link(format!("/proc/{pid}/ns/pid"))?;
    let ours = std::fs::read_link("/proc/self/ns/pid")?;
    Ok(theirs != ours)
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

    /// Whether `caller`, presenting a secret judged `secret`, may speak for this agent (see the
    /// module's doc). Anything else is refused `forbidden`, a check that cannot be made
    /// `resource-error`; both are recorded.
    pub(in crate::agents) fn authorize(
        &self,
        caller: &Caller,
        secret: Presented,
    ) -> Result<(), Response> {
        let root = self.state().process_root;
        let verdict = judge(
            caller,
            secret,
            &self.key,
            root,
            self.link.scripted.is_some(),
            Lineage {
                descends: crate::os::proc::descends_from,
                contained,
            },
        );
        let why = match verdict {
            Verdict::Allowed => return Ok(()),
            Verdict::Forbidden(why) => why,
            Verdict::Unchecked { pid, uid, error } => {
                self.record(&Event::ChannelCheckFailed {
                    agent: self.key.clone(),
                    pid,
                    uid,
                    errno: error.error.raw_os_error(),
                    error: lineage_failure(&error),
                });
                return Err(unchecked(&self.key, pid, &error));
            }
        };
        let (pid, uid, address) = match caller {
            Caller::Process(Peer { pid, uid }) => (*pid, Some(*uid), None),
            Caller::Network(from) => (None, None, Some(from.to_string())),
        };
        self.record(&Event::ChannelRefused {
            agent: Some(self.key.clone()),
            pid,
            uid,
            address,
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

    fn me() -> Caller {
        Caller::Process(Peer {
            pid: Some(4242),
            // SAFETY: plain syscall.
            uid: unsafe { libc::geteuid() },
        })
    }

    /// The verdict on a process placed by `descends` and `contained`.
    fn verdict(
        caller: &Caller,
        secret: Presented,
        root: Option<i32>,
        descends: bool,
        contained: bool,
    ) -> Verdict {
        let lineage = Lineage {
            descends: move |_, _| Ok(descends),
            contained: move |_| Ok(contained),
        };
        judge(caller, secret, "a", root, false, lineage)
    }

    #[test]
    fn a_parent_that_cannot_be_read_is_a_resource_error_not_a_refusal() {
        let emfile = Lineage {
            descends: |pid, _| {
                Err(LineageError {
                    pid,
                    error: std::io::Error::from_raw_os_error(libc::EMFILE),
                })
            },
            contained: |_| Ok(false),
        };
        let found = judge(&me(), Presented::Missing, "a", Some(1), false, emfile);
        let Verdict::Unchecked { pid, error, .. } = found else {
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
        let stranger = verdict(&me(), Presented::Missing, Some(1), false, false);
        assert!(
            matches!(&stranger, Verdict::Forbidden(why) if why == "process 4242, which is not one of agent \"a\"'s"),
            "{stranger:?}"
        );
        assert!(matches!(
            verdict(&me(), Presented::Missing, Some(1), true, false),
            Verdict::Allowed
        ));
        let Caller::Process(peer) = me() else {
            unreachable!()
        };
        let other_user = Caller::Process(Peer {
            uid: peer.uid.wrapping_add(1),
            ..peer
        });
        assert!(matches!(
            verdict(&other_user, Presented::Right, Some(1), true, true),
            Verdict::Forbidden(_)
        ));
        assert!(matches!(
            verdict(&me(), Presented::Missing, None, true, false),
            Verdict::Forbidden(_)
        ));
    }

    #[test]
    fn the_secret_speaks_for_a_contained_process_and_a_wrong_one_for_nobody() {
        // A container's process (another pid namespace), outside the agent's tree, with the secret.
        assert!(matches!(
            verdict(&me(), Presented::Right, Some(1), false, true),
            Verdict::Allowed
        ));
        assert!(matches!(
            verdict(&me(), Presented::Right, None, false, true),
            Verdict::Allowed
        ));
        // Without it, or beside awf (another agent that read this one's launcher file), not.
        assert!(matches!(
            verdict(&me(), Presented::Missing, Some(1), false, true),
            Verdict::Forbidden(_)
        ));
        let beside = verdict(&me(), Presented::Right, Some(1), false, false);
        assert!(
            matches!(&beside, Verdict::Forbidden(why) if why.ends_with("this one shares awf's pid namespace")),
            "{beside:?}"
        );
        // A wrong secret is refused even from the agent's own process.
        let wrong = verdict(&me(), Presented::Wrong, Some(1), true, false);
        assert!(
            matches!(&wrong, Verdict::Forbidden(why) if why == "process 4242 with a wrong secret"),
            "{wrong:?}"
        );
    }

    #[test]
    fn over_tcp_the_secret_alone_decides() {
        let from = Caller::Network("127.0.0.1:5000".parse().unwrap());
        assert!(matches!(
            verdict(&from, Presented::Right, None, false, false),
            Verdict::Allowed
        ));
        let missing = verdict(&from, Presented::Missing, Some(1), true, true);
        assert!(
            matches!(&missing, Verdict::Forbidden(why) if why == "a connection from 127.0.0.1:5000 without the agent's secret"),
            "{missing:?}"
        );
        let wrong = verdict(&from, Presented::Wrong, Some(1), true, true);
        assert!(
            matches!(&wrong, Verdict::Forbidden(why) if why == "a connection from 127.0.0.1:5000 with a wrong secret"),
            "{wrong:?}"
        );
    }

    #[test]
    fn this_process_shares_awfs_pid_namespace() {
        assert!(!contained(std::process::id() as i32).unwrap());
    }
}
