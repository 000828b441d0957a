//! `awf runs`: the runs under a cwd, the latest attempted first, with their derived status,
//! attempts, the stage reached, start, time taken and the command that continues each; under
//! the table, each run's budgets against their spend, the questions runs wait on (`wf.ask`) and
//! how to answer each, then each record that cannot be read, named, with what to do.

use std::io::Write;
use std::time::Duration;

use anyhow::Context;
use awf_runtime::duration::format_duration;
use awf_runtime::records::status::{self, RunStatus};

use super::waiting;
use crate::args::RunsArgs;
use crate::failure::Failure;

pub fn run(args: RunsArgs) -> i32 {
    list(args).unwrap_or_else(Failure::report)
}

fn list(args: RunsArgs) -> Result<i32, Failure> {
    let cwd = match args.cwd {
        Some(cwd) => std::fs::canonicalize(&cwd)
            .with_context(|| format!("--cwd {}", cwd.display()))
            .map_err(Failure::usage)?,
        None => std::env::current_dir()
            .context("cannot read the current directory")
            .map_err(Failure::usage)?,
    };
    let runs = status::list(&cwd);
    let mut out = std::io::stdout().lock();
    if args.json {
        let all: Vec<_> = runs
            .iter()
            .map(|r| {
                let mut json = r.to_json(&cwd);
                json["questions"] = waiting::questions_json(r);
                json
            })
            .collect();
        let text = serde_json::to_string_pretty(&all).unwrap_or_default();
        let _ = writeln!(out, "{text}");
        return Ok(0);
    }
    if runs.is_empty() {
        eprintln!(
            "awf: no runs under {}; `awf run FILE` starts one",
            cwd.join(awf_runtime::records::RUNS_DIR).display()
        );
        return Ok(0);
    }
    let rows: Vec<[String; 9]> = runs.iter().map(|r| row(r, &cwd)).collect();
    let header = [
        "WORKFLOW", "RUN", "STATUS", "ATTEMPTS", "STAGE", "STARTED", "TOOK", "COST", "CONTINUE",
    ]
    .map(str::to_string);
    let mut widths = header.clone().map(|h| h.len());
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    for row in std::iter::once(&header).chain(&rows) {
        let cells: Vec<String> = row
            .iter()
            .zip(widths)
            .enumerate()
            .map(|(i, (cell, width))| match i {
                8 => cell.clone(),
                _ => format!("{cell:<width$}"),
            })
            .collect();
        // A closed pipe (`awf runs | head`) is not an error.
        if writeln!(out, "{}", cells.join("  ").trim_end()).is_err() {
            break;
        }
    }
    list_budgets(&runs, &mut out);
    waiting::list(&runs, &mut out);
    report_problems(&runs, &cwd);
    Ok(0)
}

/// Under the table: each run's budgets against their spend (its latest attempt that had any).
fn list_budgets(runs: &[RunStatus], out: &mut impl Write) {
    for run in runs.iter().filter(|r| !r.budgets.is_empty()) {
        let _ = writeln!(out, "\nrun {} of {}:", run.id, run.workflow);
        for budget in &run.budgets {
            let _ = writeln!(
                out,
                "  budget of {}: {}",
                budget["of"].as_str().unwrap_or_default(),
                budget["words"].as_str().unwrap_or_default()
            );
        }
    }
}

/// Under the table, on stderr: each record that cannot be read, and what to do about it.
fn report_problems(runs: &[RunStatus], cwd: &std::path::Path) {
    for run in runs {
        let Some(problem) = &run.problem else {
            continue;
        };
        let file = std::path::Path::new(&run.file);
        let shown = match file.strip_prefix(cwd).unwrap_or(file).display().to_string() {
            shown if shown.is_empty() => "FILE".to_string(),
            shown => shown,
        };
        eprintln!(
            "awf: run {} of {}: {problem}\nhint: {}",
            run.id,
            run.workflow,
            status::repair_hint(&run.dir, &shown, run.broken.as_deref())
        );
    }
}

fn row(run: &RunStatus, cwd: &std::path::Path) -> [String; 9] {
    let stage = match &run.stage {
        Some((name, outcome)) => format!("{name} ({outcome})"),
        None => "-".to_string(),
    };
    // 2026-12-01T14:30:05.123Z -> 2026-12-01 14:30:05
    let started = run
        .started_at
        .get(..19)
        .map(|t| t.replace('T', " "))
        .unwrap_or_else(|| "-".to_string());
    [
        run.workflow.clone(),
        run.id.clone(),
        run.status.clone(),
        run.attempts.to_string(),
        stage,
        started,
        took(run.duration_ms),
        cost(&run.usage),
        run.continue_command(cwd).unwrap_or_else(|| "-".to_string()),
    ]
}

/// The COST column: the agents' dollars, reported or estimated; `unpriced` for tokens without
/// a price, `-` for a run whose agents used nothing (or that has not ended an attempt).
fn cost(usage: &awf_runtime::usage::Usage) -> String {
    match usage.cost_usd {
        Some(usd) => format!("${usd:.4}"),
        None if usage.is_empty() => "-".to_string(),
        None => "unpriced".to_string(),
    }
}

/// The TOOK column: milliseconds under a second (a quick run is not `0ms`), else whole seconds,
/// rounded.
fn took(ms: u64) -> String {
    let shown = if ms < 1000 {
        ms
    } else {
        (ms + 500) / 1000 * 1000
    };
    format_duration(Duration::from_millis(shown))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn took_shows_milliseconds_under_a_second_and_rounds_seconds() {
        assert_eq!(took(57), "57ms");
        assert_eq!(took(0), "0ms");
        assert_eq!(took(1499), "1s");
        assert_eq!(took(1500), "2s");
        assert_eq!(took(63_200), "1m3s");
    }

    #[test]
    fn cost_shows_dollars_or_says_why_there_are_none() {
        use awf_runtime::usage::{Tokens, Usage};
        let tokens = Tokens {
            input_tokens: 10,
            ..Tokens::default()
        };
        let priced = Usage {
            tokens,
            cost_usd: Some(0.01234),
        };
        assert_eq!(cost(&priced), "$0.0123");
        assert_eq!(
            cost(&Usage {
                tokens,
                cost_usd: None
            }),
            "unpriced"
        );
        assert_eq!(cost(&Usage::default()), "-");
    }
}
