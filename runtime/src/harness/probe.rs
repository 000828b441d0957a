//! Running an agent CLI's program once for `awf doctor` (`<cli> --version`, `codex sandbox --
//! true`): in the current folder and environment, stdin closed, both pipes read as it writes,
//! and stopped if it takes longer than `BOUND`. `survey.rs` and the CLIs' own checks use it.

use std::io::Read;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// How long `<cli> --version` (or a check such as `codex sandbox -- true`) may take: a node CLI
/// starts slowly on a cold disk.
const BOUND: Duration = Duration::from_secs(20);

/// What a command `awf doctor` ran printed, and how it ended.
pub struct Ran {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

/// `<program> <args>` in the current folder and environment (with `env` set), stdin closed,
/// within `BOUND`; `Err` says why it could not run or did not end.
pub fn run_bounded(program: &Path, args: &[&str], env: &[(&str, &str)]) -> Result<Ran, String> {
    let shown = || format!("`{} {}`", program.display(), args.join(" "));
    let mut child = Command::new(program)
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", program.display()))?;
    // Read both pipes as the program writes, so a talkative one never fills a pipe and stalls.
    let mut stdout = child.stdout.take();
    let mut stderr = child.stderr.take();
    let out = std::thread::spawn(move || read_all(stdout.as_mut()));
    let err = std::thread::spawn(move || read_all(stderr.as_mut()));
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() < BOUND => std::thread::sleep(Duration::from_millis(20)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "{} gave no answer in {}s",
                    shown(),
                    BOUND.as_secs()
                ));
            }
        }
    };
    Ok(Ran {
        status,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    })
}

fn read_all(pipe: Option<&mut impl Read>) -> String {
    let mut text = String::new();
    if let Some(pipe) = pipe {
        let _ = pipe.read_to_string(&mut text);
    }
    text
}
