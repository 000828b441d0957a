//! The command line, as clap sees it. Values are checked here only as far as their form goes;
//! `commands/` resolves them.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(
    name = "awf",
    version,
    about = "Run agent workflows written in TypeScript",
    long_about = "Run agent workflows written in TypeScript.\n\nA workflow file default-exports defineWorkflow({ meta, run }); its run(wf) opens agents, gives them turns and hands them tools. awf strips the types and runs the file; agentswf, typebox and the author globals are served to any folder, nothing installed.",
    after_help = "Run `awf run --help` for the flags and exit codes of a run.",
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
    /// Show a run's events: agents, turns, answers, tool calls, logs
    Logs(LogsArgs),
}

#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  awf logs                      the latest run under the current directory\n  awf logs --tool add_finding   only that tool's calls\n  awf logs 20261129-183058-k3f9 --json"
)]
pub struct LogsArgs {
    /// A run id, or the path of a run folder [default: the latest run]
    pub run: Option<String>,

    /// Where to look for .awf/runs [default: the current directory]
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,

    /// Print the raw events.jsonl lines
    #[arg(long)]
    pub json: bool,

    /// Only the events of this agent
    #[arg(long, value_name = "KEY")]
    pub agent: Option<String>,

    /// Only the calls of this tool
    #[arg(long, value_name = "NAME")]
    pub tool: Option<String>,
}

#[derive(Args, Debug)]
#[command(
    long_about = "Run a workflow file and print its result as JSON on stdout.\n\nThe file's default export is defineWorkflow({ meta, prepare?, run }). prepare({ argv, cwd }) turns the words after `--` into run's input (without prepare the input is { argv }). Logs and console output go to stderr; the run is recorded in <cwd>/.awf/runs/<meta.name>/<run-id>/.",
    after_help = "Exit codes:\n  0      completed; the result is on stdout\n  1      failed (run threw, or returned a value that is not JSON) or timed out\n  2      usage error, or the file is not a usable workflow (syntax, imports, default export, meta)\n  N      the workflow called process.exit(N)\n  128+N  cancelled by signal N (130 for Ctrl-C)\n\nExamples:\n  awf run examples/hello/hello.ts -- world\n  awf run review.ts --cwd ../repo --timeout 1h --json"
)]
pub struct RunArgs {
    /// The workflow file (.ts, .mts, .js or .mjs)
    pub file: PathBuf,

    /// Where the workflow and its agents work, and where .awf/runs is [default: the current
    /// directory]
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,

    /// Print the whole output record (output.json) instead of only the result
    #[arg(long)]
    pub json: bool,

    /// The run's deadline: 1500ms, 90s, 20m, 1h or 1h30m; past it, run() has 5s more to return
    #[arg(long, value_name = "DURATION", default_value = "30m")]
    pub timeout: String,

    /// Run agents that ask for runtime NAME with COMMAND instead (an executable and its
    /// arguments, split on spaces), e.g. --runtime codex=./agents/fake-codex.sh
    #[arg(long = "runtime", value_name = "NAME=COMMAND")]
    pub runtimes: Vec<String>,

    /// Words for the workflow, after `--`: prepare({ argv }) gets them
    #[arg(last = true, value_name = "WORDS")]
    pub words: Vec<String>,
}
