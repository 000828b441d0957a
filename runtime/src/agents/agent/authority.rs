//! Who may speak for an agent on its socket: a process of this user in the tree of the agent's
//! running process (its keeper), whose root is set while a process runs; or, in a test run, awf
//! itself. Anything else is refused `forbidden` and recorded.

use super::{refused, Agent};
use crate::channel::refusal::Code;
use crate::channel::server::Peer;
use crate::channel::wire::Response;
use crate::records::Event;

impl Agent {
    /// Sets (or clears) the root of the agent's process tree.
    pub(in crate::agents) fn set_process_root(&self, root: Option<i32>) {
        self.state().process_root = root;
    }

    /// Whether the process that connected (`peer`) may speak for this agent: a process of this
    /// user that descends from the agent's running process (its keeper), or, in a test run,
    /// awf itself, which plays the scripted agents. Anything else is refused `forbidden` and
    /// recorded.
    pub(in crate::agents) fn authorize(&self, peer: Peer) -> Result<(), Response> {
        // SAFETY: plain syscall.
        let me = unsafe { libc::geteuid() };
        let why = match peer.pid {
            _ if peer.uid != me => format!("a process of another user (uid {})", peer.uid),
            None => "a process awf cannot identify".to_string(),
            Some(pid) if self.link.scripted && pid == std::process::id() as i32 => return Ok(()),
            Some(pid) => match self.state().process_root {
                Some(root) if crate::os::proc::descends_from(pid, root) => return Ok(()),
                Some(_) => format!(
                    "process {pid}, which is not one of agent \"{}\"'s",
                    self.key
                ),
                None => format!(
                    "process {pid}, while agent \"{}\" has no process running",
                    self.key
                ),
            },
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
