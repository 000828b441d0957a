//! `awf`: runs agent workflows written in TypeScript. Parses the command line and hands each
//! subcommand to `commands/`; the exit code comes from the command's ending.

mod args;
mod commands;
mod failure;
mod logging;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = args::Cli::parse();
    logging::init(cli.log_level.as_deref());
    let code = match cli.command {
        args::Command::Run(run) => commands::run::run(*run, cli.color),
        args::Command::Logs(logs) => commands::logs::run(logs, cli.color),
        args::Command::Runs(runs) => commands::runs::run(runs),
        args::Command::Answer(answer) => commands::answer::run(answer),
        args::Command::List(list) => commands::list::run(list),
        args::Command::Test(test) => commands::test::run(test, cli.color),
        args::Command::Doctor(doctor) => commands::doctor::run(doctor),
        args::Command::Init(init) => commands::init::run(init),
        args::Command::Typings(typings) => commands::typings::run(typings),
        args::Command::Completions(shell) => commands::shell::completions(shell),
        args::Command::Man => commands::shell::man(),
    };
    ExitCode::from(code.clamp(0, 255) as u8)
}
