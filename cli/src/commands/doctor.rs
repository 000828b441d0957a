//! `awf doctor`: how this awf was installed (installed.rs), then each agent CLI awf drives, as
//! found on this machine (harness/survey.rs does the looking), printed as a short report, or as
//! JSON (`{ clis, aliases }`: the CLIs and the runtime aliases). It exits 1 when an installed CLI is not the tested version, cannot reach
//! a model or fails one of its own checks (codex: a custom model provider with no model, a
//! sandbox that cannot run a command). The text report ends with the runtime aliases of the
//! config files (harness/aliases.rs) and the file each came from; a config file awf cannot use
//! is reported there, and exits 1 too.

use std::io::Write;

use awf_runtime::harness::aliases;
use awf_runtime::harness::survey::{survey, CliSurvey};

use super::installed::Installed;
use crate::args::DoctorArgs;

pub fn run(args: DoctorArgs) -> i32 {
    let found = survey();
    let mut out = std::io::stdout().lock();
    let cwd = std::env::current_dir().unwrap_or_default();
    let loaded = aliases::load(&cwd);
    if let Err(e) = &loaded {
        eprintln!("awf: runtime aliases: {e}\nhint: {}", aliases::CONFIG_HINT);
    }
    if args.json {
        let clis: Vec<_> = found.iter().map(CliSurvey::to_json).collect();
        // A config file awf cannot use lists no alias (its error is on stderr, the exit 1).
        let listed: Vec<_> = loaded
            .as_ref()
            .map(|found| found.iter().map(|(name, a)| a.to_json(name)).collect())
            .unwrap_or_default();
        let report = serde_json::json!({ "clis": clis, "aliases": listed });
        let text = serde_json::to_string_pretty(&report).unwrap_or_default();
        let _ = writeln!(out, "{text}");
    } else {
        let _ = writeln!(out, "{}", install_line());
        for cli in &found {
            let _ = write!(out, "{}", describe(cli));
        }
        if let Ok(found) = &loaded {
            let _ = writeln!(out, "{}", describe_aliases(found));
        }
    }
    let aliases_ok = loaded.is_ok();
    let _ = out.flush();
    let healthy = found
        .iter()
        .filter(|cli| cli.program.is_some())
        .all(|cli| cli.tested_version() && cli.readiness.ready && cli.checks.iter().all(|c| c.ok));
    if healthy && aliases_ok {
        0
    } else {
        1
    }
}

/// `aliases:` and a line per alias: `  fast: claude, model haiku, effort low (from <file>)`.
fn describe_aliases(found: &aliases::Aliases) -> String {
    if found.is_empty() {
        return "aliases: none (define them in ~/.config/awf/config.json or ./.awf/config.json)"
            .into();
    }
    let mut text = "aliases:".to_string();
    for (name, alias) in found {
        text += &format!("\n  {name}: {}", alias.runtime);
        if let Some(model) = &alias.model {
            text += &format!(", model {model}");
        }
        if let Some(effort) = &alias.effort {
            text += &format!(", effort {effort}");
        }
        text += &format!(" (from {})", alias.from.display());
    }
    text
}

/// `awf <version>: <how it was installed> (<path>)`.
fn install_line() -> String {
    let version = env!("CARGO_PKG_VERSION");
    match std::env::current_exe() {
        Ok(exe) => Installed::of(&exe).line(version, &exe),
        Err(why) => format!("awf {version}: cannot find its own path ({why})"),
    }
}

/// A few lines about one CLI.
fn describe(cli: &CliSurvey) -> String {
    let info = cli.info;
    let mut text = match (&cli.program, &cli.version) {
        (None, _) => format!(
            "{}: not installed\n  install: {}\n",
            info.name,
            info.install_hint()
        ),
        (Some(program), Ok(version)) => {
            let tested = if cli.tested_version() {
                "the version awf is tested with".to_string()
            } else {
                format!(
                    "awf is tested with {}: {}",
                    info.tested,
                    info.install_hint()
                )
            };
            format!(
                "{}: {version} ({tested})\n  program: {}\n",
                info.name,
                program.display()
            )
        }
        (Some(program), Err(why)) => format!(
            "{}: installed at {}, but {why}\n",
            info.name,
            program.display()
        ),
    };
    let ready = if cli.readiness.ready {
        "ready"
    } else {
        "not ready"
    };
    text += &format!("  model access: {ready}: {}\n", cli.readiness.how);
    for check in &cli.checks {
        let warning = if check.ok { "" } else { "warning: " };
        text += &format!("  {}: {warning}{}\n", check.name, check.said);
        if let Some(hint) = &check.hint {
            text += &format!("    hint: {hint}\n");
        }
    }
    let can = info.capabilities;
    text += &format!(
        "  resume: {}; usage: {}\n  shell commands: {}\n",
        yes_no(can.resume),
        yes_no(can.usage),
        can.shell_limit
    );
    text
}

fn yes_no(can: awf_runtime::harness::Can) -> &'static str {
    if can.given() {
        "yes"
    } else {
        "no"
    }
}
