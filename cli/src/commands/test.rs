//! `awf test`: run test files (runtime/src/testing), print bun's text report on stdout and,
//! when asked, write a JUnit file. Exit 0 when every test passed, 1 when one failed or none was
//! found, 2 on a usage error.

use std::io::{BufWriter, IsTerminal};
use std::path::{Path, PathBuf};
use std::time::Duration;

use awf_runtime::duration::{parse_duration, timeout_from_millis};
use awf_runtime::limits::DEFAULT_TEST_TIMEOUT;
use awf_runtime::testing::report::{JunitReporter, PrettyOptions, PrettyReporter, TestReporter};
use awf_runtime::testing::{TestOptions, TestRun};

use crate::args::TestArgs;

pub fn run(args: TestArgs) -> i32 {
    let cwd = match std::env::current_dir().and_then(std::fs::canonicalize) {
        Ok(cwd) => cwd,
        Err(e) => return usage_error(&format!("cannot read the current directory: {e}")),
    };
    let timeout = match args
        .timeout
        .as_deref()
        .map_or(Ok(DEFAULT_TEST_TIMEOUT), parse_timeout)
    {
        Ok(timeout) => timeout,
        Err(message) => return usage_error(&format!("--timeout: {message}")),
    };
    let jobs = args.jobs.map(usize::from).unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(usize::from)
            .unwrap_or(1)
    });
    let Some(runtime) = super::async_runtime() else {
        return 1;
    };
    let options = TestOptions {
        cwd: cwd.clone(),
        name_pattern: args.name_pattern.clone(),
        timeout,
        bail: args.bail,
        jobs,
    };
    let test_run = match TestRun::prepare(&args.paths, options, runtime.handle()) {
        Ok(test_run) => test_run,
        Err(e) => return usage_error(&e.to_string()),
    };
    if test_run.files().is_empty() {
        eprintln!(
            "awf: no test files found under {}\n\nhint: test files are named *.test.ts or *.spec.ts (or .mts, .js, .mjs); a file named on the command line runs whatever it is called",
            searched(&args.paths)
        );
        return 1;
    }
    let files = test_run.files().len();
    let terminal = std::io::stdout().is_terminal();
    let text = PrettyOptions {
        color: terminal && std::env::var_os("NO_COLOR").is_none(),
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
        if let Err(e) = write_report(path, &junit.xml()) {
            eprintln!(
                "awf: cannot write the JUnit report to {}: {e}",
                path.display()
            );
            return 1;
        }
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
    if totals.succeeded() {
        0
    } else {
        1
    }
}

/// `500ms`, `10s`, `2m`; a bare number is milliseconds (bun's `--timeout 5000`); 0 is no limit.
fn parse_timeout(text: &str) -> Result<Duration, String> {
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

fn usage_error(message: &str) -> i32 {
    eprintln!("awf: {message}");
    2
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
