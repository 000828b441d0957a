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

    /// Run agents that ask for runtime NAME with COMMAND instead (an executable and its
    /// arguments, split on spaces), e.g. --runtime codex=./agents/fake-codex.sh
    #[arg(long = "runtime", value_name = "NAME=COMMAND")]
    pub runtimes: Vec<String>,

    /// Words after `--` go to the workflow's prepare({ argv })
    #[arg(last = true, value_name = "WORDS")]
    pub words: Vec<String>,
}
