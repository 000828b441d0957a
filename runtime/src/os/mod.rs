//! What awf asks of Linux for the processes it starts: `/proc` (parents, start times,
//! descendants), cgroup v2 (one group per agent process, where the machine lets awf make one),
//! and the open-file limit.
//!
//! `proc.rs` and `cgroup.rs` use std and libc only: the `wfa` binary's keeper (the parent of every
//! agent process, cli/src/bin/wfa/keep.rs) compiles them by `#[path]`.

pub mod cgroup;
pub mod proc;
pub mod random;

/// Raises the soft limit on open files to the hard limit, so that many agents and their
/// connections do not run awf out of descriptors ("Too many open files") under a 1024 default.
/// Returns the soft limit now in force.
pub fn raise_open_files_limit() -> u64 {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: plain syscalls on a struct we own.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return 0;
        }
        if limit.rlim_cur < limit.rlim_max {
            let raised = libc::rlimit {
                rlim_cur: limit.rlim_max,
                rlim_max: limit.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                limit = raised;
            }
        }
    }
    limit.rlim_cur
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_soft_file_limit_is_raised_to_the_hard_one() {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: plain syscalls on a struct we own.
        unsafe {
            libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit);
            let lowered = libc::rlimit {
                rlim_cur: 256.min(limit.rlim_max),
                rlim_max: limit.rlim_max,
            };
            libc::setrlimit(libc::RLIMIT_NOFILE, &lowered);
        }
        assert_eq!(super::raise_open_files_limit(), limit.rlim_max);
    }
}
