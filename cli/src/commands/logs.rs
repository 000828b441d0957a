//! `awf logs`: a run's events, readable (or raw with --json), filtered by agent or tool.

use std::io::Write;

use anyhow::Context;
use awf_runtime::records::logs::{self, LogFilter};
use awf_runtime::records::reader::read_events;

use crate::args::LogsArgs;
use crate::failure::Failure;

pub fn run(args: LogsArgs) -> i32 {
    show(args).unwrap_or_else(Failure::report)
}

fn show(args: LogsArgs) -> Result<i32, Failure> {
    let cwd = match args.cwd {
        Some(cwd) => cwd,
        None => std::env::current_dir()
            .context("cannot read the current directory")
            .map_err(Failure::usage)?,
    };
    let dir = logs::find_run(&cwd, args.run.as_deref()).map_err(|e| Failure::of(e.into(), 2))?;
    let path = dir.join("events.jsonl");
    let events = read_events(&path)
        .with_context(|| format!("cannot read {}", path.display()))
        .map_err(Failure::failed)?;
    let filter = LogFilter {
        agent: args.agent,
        tool: args.tool,
    };
    let mut out = std::io::stdout().lock();
    for event in events.iter().filter(|e| filter.keeps(e)) {
        let text = if args.json {
            event.to_string()
        } else {
            logs::line(event)
        };
        if writeln!(out, "{text}").is_err() {
            // A closed pipe (`awf logs | head`) is not an error.
            return Ok(0);
        }
    }
    Ok(0)
}
