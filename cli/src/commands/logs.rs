//! `awf logs`: a run's events, readable (or raw with --json), filtered by agent or tool.

use std::io::Write;

use awf_runtime::records::logs::{self, LogFilter};
use awf_runtime::records::reader::read_events;

use crate::args::LogsArgs;

pub fn run(args: LogsArgs) -> i32 {
    let cwd = match args.cwd.map(Ok).unwrap_or_else(std::env::current_dir) {
        Ok(cwd) => cwd,
        Err(e) => {
            eprintln!("awf: cannot read the current directory: {e}");
            return 2;
        }
    };
    let dir = match logs::find_run(&cwd, args.run.as_deref()) {
        Ok(dir) => dir,
        Err(message) => {
            eprintln!("awf: {message}");
            return 2;
        }
    };
    let path = dir.join("events.jsonl");
    let events = match read_events(&path) {
        Ok(events) => events,
        Err(e) => {
            eprintln!("awf: cannot read {}: {e}", path.display());
            return 1;
        }
    };
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
            return 0;
        }
    }
    0
}
