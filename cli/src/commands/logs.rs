//! `awf logs`: a run's events, readable (or raw with --json), filtered by agent or tool.

use std::io::Write;

use awf_runtime::records::ending;
use awf_runtime::records::logs::{self, LogFilter};
use awf_runtime::records::reader::each_event;

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
        } else {
            logs::line(&event)
        };
        // A closed pipe (`awf logs | head`) is not an error: stop quietly.
        writeln!(out, "{text}").is_ok()
    });
    match streamed {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("awf: cannot read {}: {e}", path.display());
            1
        }
    }
}
