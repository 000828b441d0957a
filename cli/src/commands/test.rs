//! `awf test`: run test files (runtime/src/testing), print bun's text report on stdout and,
//! when asked, write a JUnit file. Exit 0 when every test passed, 1 when one failed or none was
//! found, 2 on a usage error.

use std::io::{BufWriter, IsTerminal};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{anyhow, Context};
use awf_runtime::duration::{parse_duration, timeout_from_millis, DurationError};
use awf_runtime::limits::DEFAULT_TEST_TIMEOUT;
use awf_runtime::testing::report::{JunitReporter, PrettyOptions, PrettyReporter, TestReporter};
use awf_runtime::testing::{TestOptions, TestRun};

use crate::args::{ColorChoice, TestArgs};
use crate::failure::Failure;

pub fn run(args: TestArgs, color: ColorChoice) -> i32 {
    test(args, color).unwrap_or_else(Failure::report)
}

fn test(args: TestArgs, color: ColorChoice) -> Result<i32, Failure> {
    let cwd = std::env::current_dir()
        .and_then(std::fs::canonicalize)
        .context("cannot read the current directory")
        .map_err(Failure::usage)?;
    let timeout = args
        .timeout
        .as_deref()
        .map_or(Ok(DEFAULT_TEST_TIMEOUT), parse_timeout)
        .map_err(|e| Failure::usage(anyhow!("--timeout: {e}")))?;
    let jobs = args.jobs.map(usize::from).unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(usize::from)
            .unwrap_or(1)
    });
    let runtime = super::async_runtime()?;
    let options = TestOptions {
        cwd: cwd.clone(),
        name_pattern: args.name_pattern.clone(),
        timeout,
        bail: args.bail,
        jobs,
        update_snapshots: args.update_snapshots,
        ci: awf_runtime::testing::running_in_ci(|name| std::env::var(name).ok()),
    };
    let test_run = TestRun::prepare(&args.paths, options, runtime.handle())
        .map_err(|e| Failure::of(e.into(), 2))?;
    if test_run.files().is_empty() {
        return Err(Failure::failed(anyhow!(
            "no test files found under {}",
            searched(&args.paths)
        ))
        .with_hint("test files are named *.test.ts or *.spec.ts (or .mts, .js, .mjs); a file named on the command line runs whatever it is called"));
    }
    let files = test_run.files().len();
    let terminal = std::io::stdout().is_terminal();
    let text = PrettyOptions {
        color: color.wanted(terminal),
        live: terminal,
    };
    let mut pretty = PrettyReporter::new(
        Box::new(BufWriter::new(std::io::stdout())),
        Box::new(std::io::stderr()),
        text,
        &cwd,
    );
    let mut junit = args.reporter.map(|_| JunitReporter::new(&cwd));
    let totals = {
        let mut reporters: Vec<&mut dyn TestReporter> = vec![&mut pretty];
        if let Some(junit) = junit.as_mut() {
            reporters.push(junit);
        }
        test_run.run(runtime.handle(), &mut reporters)
    };
    // A test's leftovers (timers, ops) died with its host; do not wait for stragglers.
    runtime.shutdown_background();
    if let (Some(junit), Some(path)) = (&junit, &args.reporter_outfile) {
        write_report(path, &junit.xml())
            .with_context(|| format!("cannot write the JUnit report to {}", path.display()))
            .map_err(Failure::failed)?;
    }
    if totals.tests() == 0 && totals.errors == 0 {
        let plural = if files == 1 { "" } else { "s" };
        match &args.name_pattern {
            Some(pattern) => eprintln!(
                "awf: -t {pattern:?} matched none of the {} tests in {files} file{plural}",
                totals.filtered
            ),
            None => eprintln!("awf: no tests found in {files} test file{plural}"),
        }
    }
    Ok(if totals.succeeded() { 0 } else { 1 })
}

/// `500ms`, `10s`, `2m`; a bare number is milliseconds (bun's `--timeout 5000`); 0 is no limit.
fn parse_timeout(text: &str) -> Result<Duration, DurationError> {
    match text.trim().parse::<u64>() {
        Ok(0) => Ok(Duration::ZERO),
        Ok(ms) => timeout_from_millis(ms as f64),
        Err(_) => parse_duration(text),
    }
}

fn write_report(path: &Path, text: &str) -> std::io::Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(path, text)
}

fn searched(paths: &[PathBuf]) -> String {
    if paths.is_empty() {
        return "the current directory".to_string();
    }
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_read_as_bun_and_awf_write_them() {
        assert_eq!(parse_timeout("5000"), Ok(Duration::from_secs(5)));
        assert_eq!(parse_timeout("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_timeout("0"), Ok(Duration::ZERO));
        assert!(parse_timeout("soon").is_err());
    }
}
