//! `awf run`: run a workflow file, print its result (or its output record), exit by its ending.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::anyhow;
use awf_runtime::budget::Budget;
use awf_runtime::channel::sweep;
use awf_runtime::channel::tcp::ChannelChoice;
use awf_runtime::duration::parse_timeout;
use awf_runtime::harness::{aliases, RuntimeOverrides};
use awf_runtime::js::{Grant, Permissions, SandboxGrants};
use awf_runtime::progress::{summary, LiveView, ViewOptions};
use awf_runtime::run::{self, ContinueWhich, Ending, RunOptions};
use awf_runtime::sandbox::operator::{self, OperatorSandbox};
use awf_runtime::sandbox::{self, user_home};
use awf_runtime::Hint;

use super::follow_up::FollowUp;
use crate::args::{ColorChoice, RunArgs};
use crate::failure::Failure;

pub fn run(args: RunArgs, color: ColorChoice) -> i32 {
    start(args, color).unwrap_or_else(Failure::report)
}

fn start(args: RunArgs, color: ColorChoice) -> Result<i32, Failure> {
    let cwd_given = args.cwd.is_some();
    let follow_up = FollowUp::new(&args.file, args.cwd.as_deref());
    let cwd = resolve_cwd(args.cwd.clone())?;
    let permissions = sandbox(&args, &cwd);
    let channel: ChannelChoice = (args.channel.parse())
        .map_err(|e: String| Failure::usage(anyhow!("--channel {}: {e}", args.channel)))?;
    let advertise = match &args.channel_address {
        None => None,
        Some(_) if channel.tcp.is_none() => {
            return Err(Failure::usage(anyhow!(
            "--channel-address is where agents dial the run's TCP listener, and this run has none"
        ))
            .with_hint("add --channel tcp:HOST:PORT (or --channel tcp)"))
        }
        Some(text) => Some(
            awf_runtime::channel::tcp::check_advertised(text)
                .map_err(|e| Failure::usage(anyhow!("--channel-address: {e}")))?,
        ),
    };
    if let Some(bind) = channel.tcp {
        awf_runtime::channel::tcp::listen_on(awf_runtime::channel::tcp::Listen { bind, advertise });
    }
    let continue_run = args.continue_run.map(|id| match id.as_str() {
        "" => ContinueWhich::Latest,
        _ => ContinueWhich::Id(id),
    });
    let timeout =
        parse_timeout(&args.timeout).map_err(|e| Failure::usage(anyhow!("--timeout: {e}")))?;
    let mut overrides = runtime_overrides(&args.runtimes)?;
    overrides.aliases = aliases::load(&cwd).map_err(|e| {
        Failure::usage(anyhow!("runtime aliases: {e}")).with_hint(aliases::CONFIG_HINT)
    })?;
    let agent_sandbox = agent_sandbox(args.agent_sandbox.as_deref(), &cwd)?;
    let budget = budget(args.budget_tokens, args.budget_usd)?;
    let terminal = std::io::stderr().is_terminal();
    let view = (!args.quiet).then(|| {
        Arc::new(LiveView::new(ViewOptions {
            terminal,
            color: color.wanted(terminal),
            verbose: args.verbose,
        }))
    });
    let options = RunOptions {
        file: args.file,
        cwd: cwd.clone(),
        words: args.words,
        timeout,
        overrides,
        permissions,
        observer: view
            .clone()
            .map(|view| view as Arc<dyn awf_runtime::records::RunObserver>),
        process_exits_after: true,
        id: args.id,
        continue_run,
        cwd_given,
        from_stage: args.from_stage,
        fresh_stages: args.fresh_stages,
        agent_sandbox,
        budget,
    };
    // Many agents, each with connections and pipes, need more than a 1024-file default.
    awf_runtime::os::raise_open_files_limit();
    // Leftovers of runs whose awf died: their control folders, cgroups, unended records. A new
    // run sweeps while it starts; a continue first, since the attempt it follows may have left
    // agents whose sessions it is about to resume.
    let sweep = if options.continue_run.is_some() {
        sweep::sweep_dead_runs();
        None
    } else {
        Some(sweep::SweepBehind::start())
    };
    let started = Instant::now();
    // The async runtime (its threads, its I/O driver) is built beside the engine's start, on a
    // thread of its own: the JS host needs none of it until the workflow is loaded.
    let (runtime, host) = std::thread::scope(|scope| {
        let building = std::thread::Builder::new()
            .name("awf-runtime".into())
            .spawn_scoped(scope, super::async_runtime);
        let host = run::start_host(&options);
        let runtime = match building {
            Ok(building) => building
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(_) => super::async_runtime(),
        };
        (runtime, host)
    });
    let runtime = runtime?;
    let report = match host {
        Ok(host) => runtime.block_on(run::run_started(options, host)),
        Err(report) => report,
    };
    drop(sweep);
    let board = view.map(|view| view.finish());
    print_report(&report, args.json, &cwd);
    // A run that opened agents ends with its summary and where its records are, with the
    // command that shows them; one that did not says where they are only when it did not
    // complete.
    let summary = board.zip(report.run_dir.as_ref()).and_then(|(board, _)| {
        summary::summary(&board, report.ending.outcome(), started.elapsed(), &cwd)
    });
    if let Some(dir) = &report.run_dir {
        let records = follow_up.records(dir);
        match summary {
            Some(text) => {
                let id = dir
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                eprint!("{text}");
                for line in budget_lines(report.record.as_ref()) {
                    eprintln!("{line}");
                }
                eprintln!(
                    "awf: records in {records}; `{}` shows them",
                    follow_up.logs(&id)
                );
            }
            None if report.ending != Ending::Completed => eprintln!("awf: records in {records}"),
            None => {}
        }
    }
    // A completed run has nothing to go on with: its records need not be read back.
    if let Some(status) = report
        .run_dir
        .as_deref()
        .filter(|_| report.ending != Ending::Completed)
        .and_then(awf_runtime::records::status::status_of)
        .filter(|status| status.can_continue())
    {
        eprintln!("awf: to go on: {}", follow_up.continue_run(&status.id));
    }
    // Agent processes and their pumps live on the runtime; do not wait for stragglers.
    runtime.shutdown_background();
    Ok(report.ending.exit_code())
}

/// `--runtime NAME=COMMAND` flags, the command split on whitespace.
fn runtime_overrides(flags: &[String]) -> Result<RuntimeOverrides, Failure> {
    let mut overrides = RuntimeOverrides::default();
    for flag in flags {
        let Some((name, command)) = flag.split_once('=') else {
            return Err(
                Failure::usage(anyhow!("--runtime {flag}: expected NAME=COMMAND"))
                    .with_hint("map a runtime to a command, e.g. --runtime codex=./fake-codex.sh"),
            );
        };
        let argv: Vec<String> = command.split_whitespace().map(str::to_string).collect();
        if name.is_empty() || argv.is_empty() {
            return Err(Failure::usage(anyhow!(
                "--runtime {flag}: both the name and the command are needed"
            )));
        }
        overrides.by_name.insert(name.to_string(), argv);
    }
    Ok(overrides)
}

/// `--sandbox` and its `--allow-*` grants; `None` (everything allowed) when none is given.
fn sandbox(args: &RunArgs, cwd: &Path) -> Option<Permissions> {
    let grant = |flag: &Option<Option<String>>| {
        flag.as_ref().map(|list| match list {
            None => Grant::All,
            Some(list) => Grant::Only(
                list.split(',')
                    .map(str::trim)
                    .filter(|item| !item.is_empty())
                    .map(str::to_string)
                    .collect(),
            ),
        })
    };
    let grants = SandboxGrants {
        read: grant(&args.allow_read),
        write: grant(&args.allow_write),
        net: grant(&args.allow_net),
        run: grant(&args.allow_run),
        env: grant(&args.allow_env),
    };
    let sandboxed = args.sandbox || grants != SandboxGrants::default();
    sandboxed.then(|| Permissions::sandbox(cwd, grants))
}

/// `--agent-sandbox FILE`, read and checked before the run starts (a path relative to the
/// current directory), with its provider (bubblewrap, or the container engine it names) found
/// able to confine here.
fn agent_sandbox(file: Option<&Path>, cwd: &Path) -> Result<Option<OperatorSandbox>, Failure> {
    let Some(file) = file else {
        return Ok(None);
    };
    let operator = OperatorSandbox::read(file, cwd, user_home().as_deref()).map_err(|e| {
        let hint = e.hint.clone();
        Failure::usage(e).with_hint(hint)
    })?;
    sandbox::provider_for(&operator.spec, operator::KEY).map_err(|e| {
        Failure::usage(anyhow!("--agent-sandbox {}: {e}", file.display()))
            .with_hint(e.hint().unwrap_or_default())
    })?;
    Ok(Some(operator))
}

/// The closing summary's budget lines: each budget output.json holds, against what was spent
/// (`  budget of agent a: 1,234 tokens of 1,000 (hard, passed)`).
fn budget_lines(record: Option<&serde_json::Value>) -> Vec<String> {
    let Some(budgets) = record.and_then(|r| r["budgets"].as_array()) else {
        return Vec::new();
    };
    budgets
        .iter()
        .map(|b| {
            format!(
                "  budget of {}: {}",
                b["of"].as_str().unwrap_or_default(),
                b["words"].as_str().unwrap_or_default()
            )
        })
        .collect()
}

fn resolve_cwd(cwd: Option<PathBuf>) -> Result<PathBuf, Failure> {
    let dir = match cwd {
        Some(dir) => dir,
        None => std::env::current_dir()
            .map_err(|e| Failure::usage(anyhow!("cannot read the current directory: {e}")))?,
    };
    match std::fs::canonicalize(&dir) {
        Ok(path) if path.is_dir() => Ok(path),
        Ok(_) => Err(Failure::usage(anyhow!(
            "--cwd {}: not a directory",
            dir.display()
        ))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(Failure::usage(anyhow!(
            "--cwd {}: no such directory",
            dir.display()
        ))),
        Err(e) => Err(Failure::usage(anyhow!("--cwd {}: {e}", dir.display()))),
    }
}

fn print_report(report: &run::RunReport, json: bool, cwd: &std::path::Path) {
    let mut stdout = std::io::stdout().lock();
    if json {
        if let Some(record) = &report.record {
            let _ = writeln!(stdout, "{}", pretty(record));
        }
    } else if let Some(text) = &report.closing.presented {
        let _ = write!(stdout, "{text}");
        if !text.ends_with('\n') {
            let _ = writeln!(stdout);
        }
    } else if let Some(value) = &report.value {
        let _ = writeln!(stdout, "{}", pretty(value));
    }
    let _ = stdout.flush();
    if let Some(error) = &report.error {
        let prefix = match report.ending {
            Ending::Failed => "run failed: ",
            Ending::TimedOut => "run timed out: ",
            Ending::Stopped => "the workflow stopped: ",
            _ => "",
        };
        eprintln!("awf: {prefix}{}", error.render(cwd));
    }
    match report.ending {
        Ending::Cancelled(_) => eprintln!("awf: run cancelled"),
        Ending::Exited(code) => eprintln!("awf: the workflow called process.exit({code})"),
        _ => {}
    }
    // The workflow's present and report: what failed in them, and where the report is.
    for error in &report.closing.errors {
        eprintln!("awf: {}", error.render(cwd));
    }
    if let Some(path) = &report.closing.report {
        eprintln!("awf: report in {}", shown_path(path, cwd));
    }
}

/// `path` relative to the cwd when it lies under it.
fn shown_path(path: &Path, cwd: &Path) -> String {
    path.strip_prefix(cwd).unwrap_or(path).display().to_string()
}

fn pretty(value: &serde_json::Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}

/// `--budget-tokens` and `--budget-usd`, read as a budget.
fn budget(tokens: Option<u64>, usd: Option<f64>) -> Result<Option<Budget>, Failure> {
    if tokens.is_none() && usd.is_none() {
        return Ok(None);
    }
    let figures = serde_json::json!({ "tokens": tokens, "usd": usd });
    Budget::from_json(&figures).map(Some).map_err(|problem| {
        Failure::usage(anyhow!(
            "--budget-tokens/--budget-usd: the budget {problem}"
        ))
        .with_hint("give a whole number of tokens or dollars above 0, e.g. --budget-usd 5")
    })
}
