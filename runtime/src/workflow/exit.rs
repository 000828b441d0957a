//! How a run ended, and the exit code of `awf run` for each ending (ARCHITECTURE.md).

/// The ending of a run, as recorded in output.json (`outcome`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    Completed,
    Failed,
    TimedOut,
    /// The workflow file could not be used (syntax, imports, default export, meta), or its
    /// prepare() refused the command line.
    Invalid,
    /// The workflow called `wf.stop(reason)`.
    Stopped,
    /// `process.exit(code)`.
    Exited(i32),
    /// Stopped by a signal (SIGINT, SIGTERM).
    Cancelled(i32),
}

impl Ending {
    pub fn outcome(self) -> &'static str {
        match self {
            Ending::Completed => "completed",
            Ending::Failed => "failed",
            Ending::TimedOut => "timed-out",
            Ending::Invalid => "invalid",
            Ending::Stopped => "stopped",
            Ending::Exited(_) => "exited",
            Ending::Cancelled(_) => "cancelled",
        }
    }

    /// 0 completed; 1 failed or timed out; 2 invalid workflow; 3 stopped; 128+signal when cancelled;
    /// `process.exit`'s own code.
    pub fn exit_code(self) -> i32 {
        match self {
            Ending::Completed => 0,
            Ending::Failed | Ending::TimedOut => 1,
            Ending::Invalid => 2,
            Ending::Stopped => 3,
            Ending::Exited(code) => code,
            Ending::Cancelled(signal) => 128 + signal,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_follow_the_contract() {
        assert_eq!(Ending::Completed.exit_code(), 0);
        assert_eq!(Ending::Failed.exit_code(), 1);
        assert_eq!(Ending::TimedOut.exit_code(), 1);
        assert_eq!(Ending::Invalid.exit_code(), 2);
        assert_eq!(Ending::Stopped.exit_code(), 3);
        assert_eq!(Ending::Cancelled(2).exit_code(), 130);
        assert_eq!(Ending::Exited(7).exit_code(), 7);
    }
}
