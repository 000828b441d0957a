//! `awf completions SHELL` and `awf man`: shell completions and the man page, generated from the
//! same clap definitions the command line is parsed with, so they never drift from it.

use std::io::Write;

use clap::CommandFactory;

use crate::args::{Cli, CompletionsArgs};

pub fn completions(args: CompletionsArgs) -> i32 {
    let mut command = Cli::command();
    clap_complete::generate(args.shell, &mut command, "awf", &mut std::io::stdout());
    0
}

pub fn man() -> i32 {
    let mut page = Vec::new();
    if let Err(e) = clap_mangen::Man::new(Cli::command()).render(&mut page) {
        eprintln!("awf: cannot render the man page: {e}");
        return 1;
    }
    let _ = std::io::stdout().write_all(&page);
    0
}
