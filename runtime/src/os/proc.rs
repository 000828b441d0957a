//! Processes as `/proc` shows them: a process's parent, group, state and start time; whether a
//! process (by pid and start time, so a reused pid is not mistaken for it) still runs; a
//! process's descendants. Std and libc only (compiled into `wfa` too).

use std::fs;
use std::io;

/// One line of `/proc/<pid>/stat`, the fields awf reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stat {
    pub pid: i32,
    pub ppid: i32,
    pub pgid: i32,
    /// `R`, `S`, `D`, `Z` (a zombie: exited, not yet reaped), `X`, ...
    pub state: char,
    /// When the process started, in clock ticks since boot: with the pid, it names one process.
    pub start: u64,
}

impl Stat {
    /// Whether it still runs: a zombie has exited.
    pub fn running(&self) -> bool {
        !matches!(self.state, 'Z' | 'X')
    }
}

/// Reads `/proc/<pid>/stat`: after the command in parentheses come the state, the parent, the
/// group and, 19 fields on from the state, the start time.
pub fn parse_stat(pid: i32, text: &str) -> Option<Stat> {
    let after_command = &text[text.rfind(')')? + 1..];
    let fields: Vec<&str> = after_command.split_whitespace().collect();
    Some(Stat {
        pid,
        state: fields.first()?.chars().next()?,
        ppid: fields.get(1)?.parse().ok()?,
        pgid: fields.get(2)?.parse().ok()?,
        start: fields.get(19)?.parse().ok()?,
    })
}

/// The process `pid`, if it exists (a zombie too).
pub fn stat(pid: i32) -> Option<Stat> {
    parse_stat(pid, &fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// Every process on the machine (those that can be read).
pub fn all() -> Vec<Stat> {
    let Ok(entries) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(stat)
        .collect()
}

/// A process named so that a reused pid is not taken for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Identity {
    pub pid: i32,
    pub start: u64,
}

impl Identity {
    /// This process.
    pub fn current() -> Identity {
        let pid = std::process::id() as i32;
        Identity {
            pid,
            start: stat(pid).map_or(0, |s| s.start),
        }
    }

    /// Whether this very process still runs.
    pub fn alive(&self) -> bool {
        stat(self.pid).is_some_and(|s| s.running() && s.start == self.start)
    }
}

/// The running descendants of `root` among `processes`, parents before children.
pub fn descendants(root: i32, processes: &[Stat]) -> Vec<Stat> {
    let mut found: Vec<Stat> = Vec::new();
    let mut frontier = vec![root];
    while let Some(parent) = frontier.pop() {
        for child in processes
            .iter()
            .filter(|p| p.ppid == parent && p.pid != root)
        {
            if !found.iter().any(|f| f.pid == child.pid) {
                found.push(*child);
                frontier.push(child.pid);
            }
        }
    }
    found.retain(Stat::running);
    found
}

/// The process `pid` as `/proc` shows it: `None` when there is no such process (it exited, or
/// exits as it is read). A file that is there but cannot be read (out of file descriptors or
/// memory) is an error: the question could not be asked, which is not a "no".
pub fn read_stat(pid: i32) -> io::Result<Option<Stat>> {
    let path = format!("/proc/{pid}/stat");
    match fs::read_to_string(&path) {
        Ok(text) => parse_stat(pid, &text).map(Some).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{path} is not a stat line"),
            )
        }),
        Err(e) if e.kind() == io::ErrorKind::NotFound || e.raw_os_error() == Some(libc::ESRCH) => {
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// Why [`descends_from`] could not tell: `/proc/<pid>/stat` of a process on the way up could not
/// be read.
#[derive(Debug)]
pub struct LineageError {
    pub pid: i32,
    pub error: io::Error,
}

impl std::fmt::Display for LineageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "reading /proc/{}/stat failed: {}", self.pid, self.error)
    }
}

/// Whether `pid` is `ancestor` or one of its descendants, by walking parents up from `pid`; an
/// error when a parent on the way could not be read.
pub fn descends_from(pid: i32, ancestor: i32) -> Result<bool, LineageError> {
    descends_from_by(pid, ancestor, read_stat)
}

/// [`descends_from`], reading each process with `read`.
fn descends_from_by(
    pid: i32,
    ancestor: i32,
    mut read: impl FnMut(i32) -> io::Result<Option<Stat>>,
) -> Result<bool, LineageError> {
    let mut at = pid;
    // A chain of parents is short; the bound only guards against a loop read mid-change.
    for _ in 0..512 {
        if at == ancestor {
            return Ok(true);
        }
        match read(at).map_err(|error| LineageError { pid: at, error })? {
            Some(s) if s.ppid > 0 && s.ppid != at => at = s.ppid,
            _ => return Ok(false),
        }
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_fields_of_a_stat_line() {
        let line =
            "123 (sh (odd) name) S 1 456 456 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 98765 0 0";
        assert_eq!(
            parse_stat(123, line),
            Some(Stat {
                pid: 123,
                ppid: 1,
                pgid: 456,
                state: 'S',
                start: 98765
            })
        );
        assert_eq!(parse_stat(1, "garbage"), None);
    }

    #[test]
    fn this_process_is_alive_and_a_reused_pid_is_not_it() {
        let me = Identity::current();
        assert!(me.start > 0);
        assert!(me.alive());
        let reused = Identity {
            start: me.start + 1,
            ..me
        };
        assert!(!reused.alive());
    }

    #[test]
    fn descendants_are_found_through_every_generation() {
        let p = |pid, ppid, state| Stat {
            pid,
            ppid,
            pgid: pid,
            state,
            start: 1,
        };
        let table = [
            p(10, 1, 'S'),
            p(11, 10, 'S'),
            p(12, 11, 'S'),
            p(13, 11, 'Z'),
            p(20, 1, 'S'),
        ];
        let found: Vec<i32> = descendants(10, &table).iter().map(|s| s.pid).collect();
        assert_eq!(found, vec![11, 12]);
        let me = std::process::id() as i32;
        assert!(descends_from(me, me).unwrap());
        assert!(descends_from(me, 1).unwrap() || stat(1).is_none());
        assert!(!descends_from(1, me).unwrap());
    }

    #[test]
    fn a_parent_that_cannot_be_read_is_an_error_not_a_stranger() {
        let p = |pid, ppid| Stat {
            pid,
            ppid,
            pgid: pid,
            state: 'S',
            start: 1,
        };
        // 30 -> 20 -> 10; /proc/20/stat cannot be opened: out of file descriptors.
        let read = |pid| match pid {
            30 => Ok(Some(p(30, 20))),
            20 => Err(io::Error::from_raw_os_error(libc::EMFILE)),
            _ => Ok(Some(p(pid, 1))),
        };
        let error = descends_from_by(30, 10, read).unwrap_err();
        assert_eq!(error.pid, 20);
        assert_eq!(error.error.raw_os_error(), Some(libc::EMFILE));
        assert!(
            error
                .to_string()
                .starts_with("reading /proc/20/stat failed: "),
            "{error}"
        );
        // A process that is gone is an answer: not a descendant.
        let gone = |pid| {
            if pid == 30 {
                Ok(None)
            } else {
                Ok(Some(p(pid, 1)))
            }
        };
        assert!(!descends_from_by(30, 10, gone).unwrap());
        assert!(read_stat(i32::MAX).unwrap().is_none());
    }
}
