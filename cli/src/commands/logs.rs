//! `awf logs`: a run's events, readable (or raw with --json), filtered by agent or tool.

use std::io::{IsTerminal, Write};

use anyhow::Context;
use awf_runtime::records::ending;
use awf_runtime::records::logs::{self, LogFilter, LogLine};
use awf_runtime::records::reader::each_event;
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
    // A run whose awf died (kill -9, a crash) is closed as interrupted before it is shown.
    awf_runtime::channel::sweep::sweep_dead_runs();
    let _ = ending::close_if_orphaned(&dir);
    let path = dir.join("events.jsonl");
    let filter = LogFilter {
        agent: args.agent,
        tool: args.tool,
    };
    let mut out = std::io::stdout().lock();
    let streamed = each_event(&path, |event| {
        if !filter.keeps(&event) {
            return true;
        }
        let text = if args.json {
            event.to_string()
        } else if color {
            colored(&logs::parts(&event))
        } else {
            logs::line(&event)
        };
        // A closed pipe (`awf logs | head`) is not an error: stop quietly.
        writeln!(out, "{text}").is_ok()
    });
    streamed
        .with_context(|| format!("cannot read {}", path.display()))
        .map_err(Failure::failed)?;
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
