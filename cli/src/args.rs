//! The command line, as clap sees it. Values are checked here only as far as their form goes;
//! `commands/` resolves them.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(
    name = "awf",
    version,
    about = "Run agent workflows written in TypeScript",
    long_about = "Run agent workflows written in TypeScript.\n\nA workflow file default-exports defineWorkflow({ meta, run }); its run(wf) opens agents, gives them turns and hands them tools.",
    propagate_version = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run a workflow file and print its result as JSON on stdout
    Run(RunArgs),
    /// Run test files (*.test.ts, *.spec.ts) with the bun:test API
    Test(TestArgs),
}

#[derive(Args, Debug)]
#[command(
    after_help = "Exit codes: 0 completed, 1 failed or timed out, 2 invalid workflow or usage, 128+N stopped by signal N.\n\nExample:\n  awf run examples/hello/hello.ts -- world"
)]
pub struct RunArgs {
    /// The workflow file (.ts, .mts, .js or .mjs)
    pub file: PathBuf,

    /// Directory the workflow and its agents work in [default: the current directory]
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,

    /// Print the whole output record (output.json) instead of the result
    #[arg(long)]
    pub json: bool,

    /// The run's deadline, e.g. 90s, 20m, 1h
    #[arg(long, value_name = "DURATION", default_value = "30m")]
    pub timeout: String,

    /// Words after `--` go to the workflow's prepare({ argv })
    #[arg(last = true, value_name = "WORDS")]
    pub words: Vec<String>,
}

#[derive(Args, Debug)]
#[command(
    after_help = "Finds *.test.ts and *.spec.ts (and .mts, .js, .mjs) under the current directory or the given folders, skipping node_modules, .git, target and .awf; a file given by name runs whatever it is called. Each file runs in its own JS context, files in parallel.\n\nExit codes: 0 all tests passed, 1 a test failed or no test was found, 2 usage error.\n\nExample:\n  awf test examples/ -t \"parses flags\" --timeout 10s"
)]
pub struct TestArgs {
    /// Test files, or folders to search [default: the current directory]
    #[arg(value_name = "PATHS")]
    pub paths: Vec<PathBuf>,

    /// Run only tests whose describe names and own name, joined by spaces, match this regular
    /// expression
    #[arg(short = 't', long = "test-name-pattern", value_name = "PATTERN")]
    pub name_pattern: Option<String>,

    /// Time limit of a test or hook that sets none, e.g. 500ms, 10s; a bare number is
    /// milliseconds, as in bun; 0 is no limit [default: 5s]
    #[arg(long, value_name = "DURATION")]
    pub timeout: Option<String>,

    /// Stop after the first failure, or after N with --bail=N
    #[arg(long, value_name = "N", num_args = 0..=1, require_equals = true, default_missing_value = "1")]
    pub bail: Option<usize>,

    /// Also write a report in this format (to --reporter-outfile)
    #[arg(long, value_enum, value_name = "FORMAT", requires = "reporter_outfile")]
    pub reporter: Option<ReporterFormat>,

    /// Where --reporter writes its report
    #[arg(long, value_name = "FILE", requires = "reporter")]
    pub reporter_outfile: Option<PathBuf>,

    /// How many files run at once [default: the number of cores]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
}

/// Report formats beside the text on stdout.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReporterFormat {
    /// JUnit XML, as bun writes it
    Junit,
}
