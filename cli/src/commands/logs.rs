//! `awf logs`: a run's events, readable (or raw with --json), filtered by agent or tool.

use std::io::{IsTerminal, Write};

use anyhow::Context;
use awf_runtime::records::logs::{self, LogFilter, LogLine};
use awf_runtime::records::reader::read_events;
use console::Style;

use crate::args::{ColorChoice, LogsArgs};
use crate::failure::Failure;

pub fn run(args: LogsArgs, color: ColorChoice) -> i32 {
    let color = color.wanted(std::io::stdout().is_terminal());
    show(args, color).unwrap_or_else(Failure::report)
}

fn show(args: LogsArgs, color: bool) -> Result<i32, Failure> {
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
        } else if color {
            colored(&logs::parts(event))
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

/// A line with the time dimmed, who in bold, and refusals and failures in red.
fn colored(line: &LogLine) -> String {
    let what = if line.what.starts_with('✗')
        || line.what.contains(" failed")
        || line.what.starts_with("answer refused")
        || line.what.starts_with("blocked:")
        || line.what.starts_with("error:")
    {
        Style::new()
            .red()
            .force_styling(true)
            .apply_to(&line.what)
            .to_string()
    } else {
        line.what.clone()
    };
    let time = Style::new().dim().force_styling(true).apply_to(&line.time);
    if line.who.is_empty() {
        format!("{time}  {what}")
    } else {
        let who = Style::new().bold().force_styling(true).apply_to(&line.who);
        format!("{time}  {who}  {what}")
    }
}
