//! `awf run`: run a workflow file, print its result (or its output record), exit by its ending.

use std::io::Write;
use std::path::PathBuf;

use awf_runtime::duration::parse_timeout;
use awf_runtime::harness::RuntimeOverrides;
use awf_runtime::workflow::{self, Ending, RunOptions};

use crate::args::RunArgs;

pub fn run(args: RunArgs) -> i32 {
    let cwd = match resolve_cwd(args.cwd) {
        Ok(cwd) => cwd,
        Err(message) => return usage_error(&message),
    };
    let timeout = match parse_timeout(&args.timeout) {
        Ok(t) => t,
        Err(message) => return usage_error(&format!("--timeout: {message}")),
    };
    let overrides = match runtime_overrides(&args.runtimes) {
        Ok(o) => o,
        Err(message) => return usage_error(&message),
    };
    let options = RunOptions {
        file: args.file,
        cwd: cwd.clone(),
        words: args.words,
        timeout,
        overrides,
    };
    // Many agents, each with connections and pipes, need more than a 1024-file default.
    awf_runtime::os::raise_open_files_limit();
    // Leftovers of runs whose awf died: their control folders, cgroups, unended records.
    awf_runtime::channel::sweep::sweep_dead_runs();
    let Some(runtime) = super::async_runtime() else {
        return 1;
    };
    let report = runtime.block_on(workflow::run_file(options));
    print_report(&report, args.json, &cwd);
    // Agent processes and their pumps live on the runtime; do not wait for stragglers.
    runtime.shutdown_background();
    report.ending.exit_code()
}

/// `--runtime NAME=COMMAND` flags, the command split on whitespace.
fn runtime_overrides(flags: &[String]) -> Result<RuntimeOverrides, String> {
    let mut overrides = RuntimeOverrides::default();
    for flag in flags {
        let Some((name, command)) = flag.split_once('=') else {
            return Err(format!(
                "--runtime {flag}: expected NAME=COMMAND, e.g. --runtime codex=./fake-codex.sh"
            ));
        };
        let argv: Vec<String> = command.split_whitespace().map(str::to_string).collect();
        if name.is_empty() || argv.is_empty() {
            return Err(format!(
                "--runtime {flag}: both the name and the command are needed"
            ));
        }
        overrides.by_name.insert(name.to_string(), argv);
    }
    Ok(overrides)
}

fn resolve_cwd(cwd: Option<PathBuf>) -> Result<PathBuf, String> {
    let dir = match cwd {
        Some(dir) => dir,
        None => std::env::current_dir()
            .map_err(|e| format!("cannot read the current directory: {e}"))?,
    };
    match std::fs::canonicalize(&dir) {
        Ok(path) if path.is_dir() => Ok(path),
        Ok(_) => Err(format!("--cwd {}: not a directory", dir.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Err(format!("--cwd {}: no such directory", dir.display()))
        }
        Err(e) => Err(format!("--cwd {}: {e}", dir.display())),
    }
}

fn usage_error(message: &str) -> i32 {
    eprintln!("awf: {message}");
    2
}

fn print_report(report: &workflow::RunReport, json: bool, cwd: &std::path::Path) {
    let mut stdout = std::io::stdout().lock();
    if json {
        if let Some(record) = &report.record {
            let _ = writeln!(stdout, "{}", pretty(record));
        }
    } else if let Some(value) = &report.value {
        let _ = writeln!(stdout, "{}", pretty(value));
    }
    let _ = stdout.flush();
    if let Some(error) = &report.error {
        let prefix = match report.ending {
            Ending::Failed => "run failed: ",
            Ending::TimedOut => "run timed out: ",
            _ => "",
        };
        eprintln!("awf: {prefix}{}", error.render(cwd));
    }
    for (agent, usage) in &report.usage {
        eprintln!("awf: agent \"{agent}\" used {}", usage.summary());
    }
    match report.ending {
        Ending::Cancelled(_) => eprintln!("awf: run cancelled"),
        Ending::Exited(code) => eprintln!("awf: the workflow called process.exit({code})"),
        _ => {}
    }
    if report.ending != Ending::Completed {
        if let Some(dir) = &report.run_dir {
            let shown = dir.strip_prefix(cwd).unwrap_or(dir);
            eprintln!("awf: records in {}", shown.display());
        }
    }
}

fn pretty(value: &serde_json::Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}
