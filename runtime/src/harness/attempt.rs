//! The loop every process-based harness shares, for one attempt of a turn.
//!
//! Launch the process (the harness says how; `environment.rs` says what it inherits), read its
//! output line by line as it comes and hand each line to the harness, whose events go to the
//! turn's records as they happen; wait for an accepted answer, the process's end, the turn's
//! deadline, the run's cancellation, or a report the harness calls hopeless (codex's sandbox
//! refusing the agent's commands). After an answer the process may wrap up (a CLI saves its
//! session and reports its usage as it ends), within bounds. Whatever ends the attempt, the
//! process group is stopped and its output kept; then the harness maps the end to an outcome.

use std::time::Instant;

use tokio::sync::mpsc;

use super::process::{describe_status, AgentProcess, Line};
use super::{
    environment, Attempt, AttemptEnd, AttemptReport, HarnessEvent, LineMemory, NativeSession,
    ProcessExit, ProcessHarness, Stream, TurnSink,
};
use crate::cancel::until_cancelled;
use crate::limits::ANSWERED_RELEASE_GRACE;
use crate::usage::UsageFold;

/// Runs one attempt of `harness` to its end.
pub async fn run<H: ProcessHarness + ?Sized>(harness: &H, attempt: Attempt<'_>) -> AttemptReport {
    let Attempt {
        launch: turn,
        deadline,
        env,
        native,
        mut cancelled,
        answered,
        sink,
        supervision,
        message,
        ..
    } = attempt;
    let launcher = turn.launcher;
    let mut launch = match harness.launch(&turn) {
        Ok(launch) => launch,
        Err(why) => return AttemptReport::ended(AttemptEnd::Failed(why.to_string())),
    };
    environment::prepare(&mut launch, &environment::TurnVars::of(&turn, message), env);
    if let Some(sandbox) = turn.sandbox {
        launch = sandbox.confine(launch);
    }
    let program = launch
        .program
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| launch.program.display().to_string());
    let (lines_in, mut lines) = mpsc::unbounded_channel();
    let mut process = match AgentProcess::spawn(&launch, launcher, supervision, lines_in).await {
        Ok(process) => process,
        Err(e) => {
            return AttemptReport::ended(AttemptEnd::Failed(format!(
                "cannot start {}: {e}",
                launch.program.display()
            )))
        }
    };
    sink.process(Some(process.root()));
    if let Some(container) = &launch.container {
        sink.container(container);
    }
    let mut reading = Reading::new(native, sink, turn.sandbox.is_some());
    let deadline_at = tokio::time::Instant::from_std(deadline);
    let stop = loop {
        tokio::select! {
            Some(line) = lines.recv() => {
                if reading.line(harness, line) {
                    break Stop::Hopeless;
                }
            }
            status = process.wait() => break Stop::Exited(status.ok()),
            _ = answered.notified() => break Stop::Answered,
            _ = tokio::time::sleep_until(deadline_at) => break Stop::TimedOut,
            _ = until_cancelled(&mut cancelled) => break Stop::Cancelled,
        }
    };
    let status = match stop {
        Stop::Exited(status) => status,
        Stop::Answered => {
            let release = (Instant::now() + ANSWERED_RELEASE_GRACE).min(deadline);
            let release = tokio::time::Instant::from_std(release);
            loop {
                tokio::select! {
                    // Past an answer, nothing is hopeless: the process only wraps up.
                    Some(line) = lines.recv() => {
                        reading.line(harness, line);
                    }
                    status = process.wait() => break status.ok(),
                    _ = tokio::time::sleep_until(release) => break None,
                    _ = until_cancelled(&mut cancelled) => break None,
                }
            }
        }
        Stop::TimedOut | Stop::Cancelled | Stop::Hopeless => None,
    };
    let ended = process.stop(status).await;
    sink.process(None);
    // The pumps are done: what they read last is waiting here.
    while let Ok(line) = lines.try_recv() {
        reading.line(harness, line);
    }
    let mut output = Vec::new();
    for (stream, captured) in [
        (Stream::Stdout, &ended.stdout),
        (Stream::Stderr, &ended.stderr),
    ] {
        if !captured.bytes.is_empty() {
            output.extend(sink.keep_output(stream, captured));
        }
    }
    let end = if sink.answered() {
        AttemptEnd::Answered
    } else {
        match stop {
            Stop::TimedOut => AttemptEnd::TimedOut(None),
            Stop::Cancelled => AttemptEnd::Cancelled,
            Stop::Exited(_) | Stop::Answered | Stop::Hopeless => harness.ended(&ProcessExit {
                program: &program,
                status: ended.status,
                stderr: &ended.stderr,
                errors: &reading.errors,
                session: reading.native.id.as_deref(),
            }),
        }
    };
    let usage = reading.fold.finish(&mut reading.native.reported);
    AttemptReport { end, usage, output }
}

/// What ended the wait.
#[derive(Clone, Copy)]
enum Stop {
    Exited(Option<std::process::ExitStatus>),
    Answered,
    TimedOut,
    Cancelled,
    /// The harness read a report that no later step can mend.
    Hopeless,
}

/// What the attempt's output said so far.
struct Reading<'a> {
    native: &'a mut NativeSession,
    sink: &'a dyn TurnSink,
    fold: UsageFold,
    errors: Vec<(String, bool)>,
    memory: LineMemory,
}

impl<'a> Reading<'a> {
    /// `confined`: the process runs inside awf's sandbox.
    fn new(native: &'a mut NativeSession, sink: &'a dyn TurnSink, confined: bool) -> Reading<'a> {
        Reading {
            native,
            sink,
            fold: UsageFold::default(),
            errors: Vec::new(),
            memory: LineMemory {
                confined,
                ..LineMemory::default()
            },
        }
    }

    /// Reads one line; `true` when it reported what leaves the attempt nothing to wait for.
    fn line<H: ProcessHarness + ?Sized>(&mut self, harness: &H, (stream, line): Line) -> bool {
        if stream == Stream::Stderr {
            self.sink.stderr_line(&line);
        }
        let mut hopeless = false;
        for event in harness.read_line(stream, &line, &mut self.memory) {
            hopeless |= harness.hopeless(&event);
            match &event {
                // A session of its own: its running totals start again.
                HarnessEvent::Session(id) if self.native.id.as_deref() != Some(id.as_str()) => {
                    *self.native = NativeSession {
                        id: Some(id.clone()),
                        ..NativeSession::default()
                    };
                }
                HarnessEvent::Usage { tokens, basis } => self.fold.tokens(*tokens, *basis),
                HarnessEvent::Cost { usd, basis } => self.fold.cost(*usd, *basis),
                HarnessEvent::Error { message, blocked } => {
                    self.errors.push((message.clone(), *blocked))
                }
                _ => {}
            }
            self.sink.activity(&event);
        }
        hopeless
    }
}

/// How a process's end reads when the harness has nothing to add: a clean exit without an
/// answer is silent (a check-in follows) unless the runtime said it is blocked; any other end
/// fails with the runtime's last error, or the last lines of its stderr.
pub fn default_end(exit: &ProcessExit<'_>) -> AttemptEnd {
    let program = exit.program;
    let blocked = exit.errors.iter().rev().find(|(_, blocked)| *blocked);
    if let Some((message, _)) = blocked {
        return AttemptEnd::Blocked(message.clone());
    }
    let status = match exit.status {
        Some(status) if status.success() => return AttemptEnd::ExitedSilent,
        Some(status) => describe_status(&status),
        None => "ended and its exit status could not be read".to_string(),
    };
    let said = match exit.errors.last() {
        Some((message, _)) => message.clone(),
        None => exit.stderr.last_lines(5),
    };
    if said.is_empty() {
        AttemptEnd::Failed(format!("{program} {status}"))
    } else {
        AttemptEnd::Failed(format!("{program} {status}: {said}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::Captured;
    use std::os::unix::process::ExitStatusExt;
    use std::process::ExitStatus;

    fn exit<'a>(
        program: &'a str,
        code: i32,
        stderr: &'a Captured,
        errors: &'a [(String, bool)],
    ) -> ProcessExit<'a> {
        ProcessExit {
            program,
            status: Some(ExitStatus::from_raw(code << 8)),
            stderr,
            errors,
            session: None,
        }
    }

    #[test]
    fn ends_read_from_status_errors_and_stderr() {
        let quiet = Captured::default();
        let noisy = Captured {
            bytes: b"one\n\ntwo\n".to_vec(),
            truncated: false,
        };
        assert_eq!(
            default_end(&exit("a", 0, &quiet, &[])),
            AttemptEnd::ExitedSilent
        );
        assert_eq!(
            default_end(&exit("agent.sh", 3, &noisy, &[])),
            AttemptEnd::Failed("agent.sh exited with code 3: one\ntwo".into())
        );
        assert_eq!(
            default_end(&exit("agent.sh", 3, &quiet, &[])),
            AttemptEnd::Failed("agent.sh exited with code 3".into())
        );
        let said = [("model overloaded".to_string(), false)];
        assert_eq!(
            default_end(&exit("codex", 1, &noisy, &said)),
            AttemptEnd::Failed("codex exited with code 1: model overloaded".into())
        );
        let login = [("401 Unauthorized: invalid api key".to_string(), true)];
        assert_eq!(
            default_end(&exit("codex", 0, &quiet, &login)),
            AttemptEnd::Blocked("401 Unauthorized: invalid api key".into())
        );
    }
}
