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
    after_help = "Agents answer turns and call tools with `wfa`, the launcher each agent's prompt names (`wfa --help`).\nRun `awf run --help` for the flags and exit codes of a run; the docs are in the docs/ folder of awf's source (start with docs/getting-started.md).",
    propagate_version = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,

    /// What awf says about its own work on stderr: error, warn (the default), info, debug or
    /// trace, or tracing's filter syntax (awf_runtime::js=debug); AWF_LOG says the same
    #[arg(long, global = true, value_name = "LEVEL")]
    pub log_level: Option<String>,

    /// Colour in what awf prints: auto (on a terminal, unless NO_COLOR is set), always or never
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

/// `--color`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    /// Whether to colour a stream that is (or is not) a terminal; `NO_COLOR` turns auto off.
    pub fn wanted(self, terminal: bool) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            }
        }
    }
}

/// Each subcommand's arguments are defined only when it is the one invoked (or when help,
/// completions or the man page need them all): building every subcommand's arguments was a
/// tenth of `awf run`'s instructions before the engine starts.
#[derive(Subcommand, Debug)]
#[command(defer = true)]
pub enum Command {
    /// Run a workflow file and print its result as JSON on stdout
    Run(Box<RunArgs>),
    /// Show a run's events: agents, turns, answers, tool calls, logs
    Logs(LogsArgs),
    /// List the runs under the current directory: status, attempts, stage, and how to continue
    Runs(RunsArgs),
    /// Answer a question a run asks (wf.ask): a choice, text, or a typed value as JSON
    Answer(AnswerArgs),
    /// List the workflow files under a folder: name, description, when to use, version
    List(ListArgs),
    /// Run test files (*.test.ts, *.spec.ts) with the bun:test API
    Test(TestArgs),
    /// Check the agent CLIs awf drives: installed, version, login or endpoint, capabilities
    Doctor(DoctorArgs),
    /// Create a starter project: a workflow with a tool and an offline agent, its test, typings
    Init(InitArgs),
    /// Write the typings of agentswf, agentswf/testing, typebox and bun:test for an editor
    Typings(TypingsArgs),
    /// Print shell completions for awf (bash, zsh, fish, elvish, powershell)
    Completions(CompletionsArgs),
    /// Print awf's man page (roff)
    Man,
}

#[derive(Args, Debug)]
#[command(
    after_help = "Then: cd DIR && awf run workflow.ts -- \"a topic\" && awf test\n\nNothing is overwritten: a file already there stops awf init, naming it."
)]
pub struct InitArgs {
    /// The folder to create the project in (made if needed)
    #[arg(default_value = ".")]
    pub dir: PathBuf,
}

#[derive(Args, Debug)]
pub struct TypingsArgs {
    /// The folder to write the .d.ts files into (made if needed; files there are replaced)
    #[arg(default_value = "typings")]
    pub dir: PathBuf,
}

#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  awf completions bash > ~/.local/share/bash-completion/completions/awf\n  awf completions zsh > ~/.zfunc/_awf\n  awf completions fish > ~/.config/fish/completions/awf.fish"
)]
pub struct CompletionsArgs {
    /// The shell to complete for
    pub shell: clap_complete::Shell,
}

#[derive(Args, Debug)]
#[command(
    long_about = "Check the agent CLIs awf drives (codex, claude, gemini, pi, opencode): whether each is installed on PATH, its version against the one awf is tested with, whether it looks able to reach a model (a key, a login or an endpoint; no model is called), and what awf can do with it. For codex also the model it will ask for (from its config.toml; a warning when a provider of your own has no model) and whether its own sandbox can run a command here (`codex sandbox -- true`).\n\nExits 0 when every installed CLI is the tested version, ready and passes its checks, 1 otherwise."
)]
pub struct DoctorArgs {
    /// Print the report as JSON
    #[arg(long)]
    pub json: bool,
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

    /// Only this turn's events and its tool calls (a turn id, e.g. t1-fmvike)
    #[arg(long, value_name = "TURN")]
    pub turn: Option<String>,

    /// Keep showing what the run records until it ends (a run whose awf died ends interrupted)
    #[arg(long, short)]
    pub follow: bool,
}

#[derive(Args, Debug)]
#[command(
    long_about = "Answer a question a run asks (wf.ask): the oldest it has open, or the one --question names.\n\nThe value is checked against the question: one of its choices, a value of its schema, or text. A running run takes it at once; a run that is not running (stopped, killed) takes it when `awf run FILE --continue RUN` asks the question again.",
    after_help = "Exit codes:\n  0  the run took the answer, or will take it when continued\n  1  the run's records cannot be read or written\n  2  no such run, no open question, an answer already given, or a value the question does not take (the reasons are printed; the run keeps waiting)\n\nExamples:\n  awf answer 20261203-131500-ab12 yes\n  awf answer PROJ-12 --question plan --json '{\"approved\": true}'\n  echo 'Mention the new flag.' | awf answer PROJ-12 --question notes"
)]
pub struct AnswerArgs {
    /// The run that asks: its id, or the path of its folder
    pub run: String,

    /// The answer [default: read from standard input]
    pub value: Option<String>,

    /// The value is JSON (a typed answer); a typed question also reads a value that parses as JSON
    #[arg(long)]
    pub json: bool,

    /// Which open question: its key (or its words) [default: the oldest open question]
    #[arg(long, value_name = "KEY")]
    pub question: Option<String>,

    /// Where to look for .awf/runs [default: the current directory]
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<std::path::PathBuf>,
}

#[derive(Args, Debug)]
pub struct ListArgs {
    /// The folder to look in (its subfolders too)
    #[arg(default_value = ".")]
    pub dir: PathBuf,

    /// Print the list as JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
#[command(
    long_about = "List the runs recorded under <cwd>/.awf/runs, the latest attempted first: workflow, run id, status (running, completed, failed, stopped, cancelled, timed-out, interrupted), attempts, the stage reached, when it started, the time its attempts took, and the command that continues it.\n\nThe status is read from the run's records and whether the awf running it is alive: an attempt whose awf died (kill -9, a crash) shows interrupted.",
    after_help = "Examples:\n  awf runs\n  awf runs --json | jq '.[] | select(.status == \"failed\") | .continue'"
)]
pub struct RunsArgs {
    /// Where to look for .awf/runs [default: the current directory]
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,

    /// Print the list as JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
#[command(
    long_about = "Run a workflow file and print its result as JSON on stdout.\n\nThe file's default export is defineWorkflow({ meta, prepare?, run }). prepare({ argv, cwd }) turns the words after `--` into run's input (without prepare the input is { argv }). Logs and console output go to stderr; the run is recorded in <cwd>/.awf/runs/<meta.name>/<run-id>/.",
    after_help = "Exit codes:\n  0      completed; the result is on stdout\n  1      failed (run threw, or returned a value that is not JSON) or timed out\n  2      usage error, refused (--continue of a running run, ...), or the file is not a usable workflow (syntax, imports, default export, meta)\n  3      stopped by the workflow (wf.stop)\n  N      the workflow called process.exit(N)\n  128+N  cancelled by signal N (130 for Ctrl-C)\n\nExamples:\n  awf run examples/hello/hello.ts -- world\n  awf run review.ts --cwd ../repo --timeout 1h --json\n  awf run review.ts --continue            the latest run of review.ts here, from its first unfinished stage\n  awf run review.ts --continue PROJ-12 --from-stage test"
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

    /// Show only the result and errors: no live view, no wf.log lines, no closing summary
    #[arg(long, short, conflicts_with = "verbose")]
    pub quiet: bool,

    /// Also show what each agent writes on stderr and what it says, as it comes
    #[arg(long, short)]
    pub verbose: bool,

    /// The new run's id (letters, digits, '.', '_', '-') [default: the workflow's id(input), else
    /// a sortable generated one]
    #[arg(long, value_name = "ID", conflicts_with = "continue_run")]
    pub id: Option<String>,

    /// Start a new attempt of run ID (alone: the latest run of this workflow here), with its
    /// input and cwd; stages it finished are reused
    #[arg(long = "continue", value_name = "ID", num_args = 0..=1, default_missing_value = "")]
    pub continue_run: Option<String>,

    /// With --continue: redo from this stage on, reusing only the stages before it
    #[arg(long, value_name = "STAGE", requires = "continue_run")]
    pub from_stage: Option<String>,

    /// With --continue: reuse no stage, run every one again
    #[arg(long, requires = "continue_run", conflicts_with = "from_stage")]
    pub fresh_stages: bool,

    /// How agents reach the run: `socket` (each its own Unix socket) or also `tcp` (TLS on
    /// 127.0.0.1, a port the system picks) or `tcp:HOST:PORT`, for agents that cannot see their
    /// socket; each launcher then pins the run's certificate and carries its agent's secret
    #[arg(long, value_name = "CHANNEL", default_value = "socket")]
    pub channel: String,

    /// With --channel tcp:HOST:PORT: what the agents' launchers dial, when it is not the bound
    /// address (a name on their network; 0.0.0.0 binds every interface but is no address to
    /// dial): HOST, with the bound port, or HOST:PORT
    #[arg(long, value_name = "ADDRESS")]
    pub channel_address: Option<String>,

    /// Run workflow and handler code deny-by-default: files, network, child processes and
    /// environment variables only as the --allow-* flags grant (any --allow-* implies it);
    /// agents are separate processes with their own authority
    #[arg(long, help_heading = "Sandbox")]
    pub sandbox: bool,

    /// Let workflow code read these paths and what is under them (comma-separated; all without
    /// a list)
    #[arg(long, value_name = "PATHS", num_args = 0..=1, require_equals = true, help_heading = "Sandbox")]
    pub allow_read: Option<Option<String>>,

    /// Let workflow code create, change and remove these paths and what is under them
    #[arg(long, value_name = "PATHS", num_args = 0..=1, require_equals = true, help_heading = "Sandbox")]
    pub allow_write: Option<Option<String>>,

    /// Let workflow code connect to these hosts (`name` or `name:port`, comma-separated)
    #[arg(long, value_name = "HOSTS", num_args = 0..=1, require_equals = true, help_heading = "Sandbox")]
    pub allow_net: Option<Option<String>>,

    /// Let workflow code start these programs (as it names them: `git`, `./build.sh`)
    #[arg(long, value_name = "PROGRAMS", num_args = 0..=1, require_equals = true, help_heading = "Sandbox")]
    pub allow_run: Option<Option<String>>,

    /// Let workflow code read these environment variables
    #[arg(long, value_name = "NAMES", num_args = 0..=1, require_equals = true, help_heading = "Sandbox")]
    pub allow_env: Option<Option<String>>,

    /// Run every agent in the sandbox this JSON file describes (the fields of an inline
    /// `sandbox`: write, read, network; paths relative to the file's folder); a workflow that
    /// opens a sandbox of its own is refused. --continue keeps the one the run had
    #[arg(long, value_name = "FILE", help_heading = "Sandbox")]
    pub agent_sandbox: Option<PathBuf>,

    /// The most tokens (input and output) the run's agents may use, this and earlier attempts
    /// together; hard: every agent stops when passed. Replaces the workflow's wf.budget figure
    #[arg(long, value_name = "N", help_heading = "Budget")]
    pub budget_tokens: Option<u64>,

    /// The most dollars (reported, else estimated at list prices) the run's agents may spend,
    /// this and earlier attempts together; hard, as --budget-tokens
    #[arg(long, value_name = "USD", help_heading = "Budget")]
    pub budget_usd: Option<f64>,

    /// Words for the workflow, after `--`: prepare({ argv }) gets them
    #[arg(last = true, value_name = "WORDS")]
    pub words: Vec<String>,
}

#[derive(Args, Debug)]
#[command(
    after_help = "Finds *.test.ts and *.spec.ts (and .mts, .js, .mjs) under the current directory or the given folders, skipping node_modules, .git, target and .awf; a file given by name runs whatever it is called. Files run in parallel, one thread per core (--jobs); a thread reuses its JS context from one file to the next and resets it between files (globals, built-ins, module state, timers and mocks put back), so no file sees what another did.\n\nExit codes: 0 all tests passed, 1 a test failed or no test was found, 2 usage error.\n\nExample:\n  awf test examples/ -t \"parses flags\" --timeout 10s"
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

    /// Rewrite the snapshot files (__snapshots__/*.snap) from what the tests give now, dropping
    /// obsolete snapshots; also writes new ones in CI
    #[arg(short = 'u', long)]
    pub update_snapshots: bool,
}

/// Report formats beside the text on stdout.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReporterFormat {
    /// JUnit XML, as bun writes it
    Junit,
}
