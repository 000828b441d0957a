//! `awf logs`: a run's events, readable (or raw with --json), filtered by agent, tool or turn,
//! and followed (`--follow`) until the run ends.

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::time::Duration;

use anyhow::Context;
use awf_runtime::records::ending;
use awf_runtime::records::logs::{self, LogFilter, LogLine};
use awf_runtime::records::reader::{each_event, follow_events};
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
        agent: args.agent.clone(),
        tool: args.tool,
        turn: args.turn,
    };
    let mut out = std::io::stdout().lock();
    // Whether the run opened the agent `--agent` names, seen in the same pass.
    let mut agent_opened = false;
    let mut show = |event: serde_json::Value| {
        if event.get("event").and_then(|e| e.as_str()) == Some("agent-opened") {
            agent_opened |= event.get("agent").and_then(|a| a.as_str()) == filter.agent.as_deref();
        }
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
        // A closed pipe (`awf logs | head`) is not an error: stop quietly. Stdout is
        // line-buffered, so a followed line shows when it is written.
        writeln!(out, "{text}").is_ok()
    };
    let streamed = if args.follow {
        follow_events(
            &path,
            FOLLOW_PAUSE,
            || {
                let _ = ending::close_if_orphaned(&dir);
            },
            show,
        )
    } else {
        each_event(&path, &mut show)
    };
    streamed
        .with_context(|| format!("cannot read {}", path.display()))
        .map_err(Failure::failed)?;
    match &args.agent {
        // An agent the run did not open is a mistake, not an empty log; a followed run may
        // open it later.
        Some(agent) if !agent_opened && !args.follow => unknown_agent(&dir, &path, agent),
        _ => Ok(0),
    }
}

/// How often `--follow` looks for more events.
const FOLLOW_PAUSE: Duration = Duration::from_millis(200);

/// The error for `--agent KEY` of an agent the run did not open, naming those it did.
fn unknown_agent(dir: &Path, events: &Path, agent: &str) -> Result<i32, Failure> {
    let agents = logs::agents_of(events)
        .with_context(|| format!("cannot read {}", events.display()))
        .map_err(Failure::failed)?;
    let run = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Err(Failure::of(
        logs::LogsError::NoSuchAgent {
            run,
            agent: agent.to_string(),
            agents,
        }
        .into(),
        2,
    ))
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
