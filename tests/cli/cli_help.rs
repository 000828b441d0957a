//! The command line's own texts: version, help, and how a usage error is reported (clap's
//! conventions: help on stdout with exit 0, usage errors on stderr with exit 2); diagnostics on
//! stderr with --log-level or AWF_LOG.

use std::collections::BTreeSet;

use crate::util::{assert_has, assert_lacks, awf_bin, AwfCommand, TempProject};

fn awf(args: &[&str]) -> crate::util::Ran {
    AwfCommand::new(awf_bin()).args(args).run()
}

#[test]
fn version_prints_the_crate_version() {
    let ran = awf(&["--version"]);
    assert_eq!(ran.code, Some(0));
    assert_eq!(ran.stdout, format!("awf {}\n", env!("CARGO_PKG_VERSION")));
    // clap names a subcommand's version after it.
    assert_eq!(
        awf(&["run", "--version"]).stdout,
        format!("awf-run {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn help_lists_the_commands() {
    let ran = awf(&["--help"]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    for needle in [
        "Run agent workflows written in TypeScript.",
        "Usage: awf [OPTIONS] <COMMAND>",
        "Run a workflow file and print its result as JSON on stdout",
        "Check the agent CLIs awf drives",
        "Create a starter project",
        "wfa",
        "-V, --version",
    ] {
        assert!(
            ran.stdout.contains(needle),
            "{needle:?} in:\n{}",
            ran.stdout
        );
    }
    let short = awf(&["-h"]);
    assert_eq!(short.code, Some(0));
    assert!(short.stdout.len() < ran.stdout.len(), "-h is the summary");
}

#[test]
fn run_help_gives_flags_exit_codes_and_examples() {
    let ran = awf(&["run", "--help"]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    for needle in [
        "Usage: awf run [OPTIONS] <FILE> [-- <WORDS>...]",
        "--cwd <DIR>",
        "--json",
        "--timeout <DURATION>",
        "[default: 30m]",
        "Exit codes:\n  0      completed",
        "  2      usage error",
        "  128+N  cancelled by signal N",
        "awf run examples/hello/hello.ts -- world",
    ] {
        assert!(
            ran.stdout.contains(needle),
            "{needle:?} in:\n{}",
            ran.stdout
        );
    }
    assert_eq!(awf(&["help", "run"]).stdout, ran.stdout);
}

#[test]
fn usage_errors_exit_2_on_stderr() {
    for (args, needle) in [
        (&[][..], "Usage: awf [OPTIONS] <COMMAND>"),
        (
            &["run"][..],
            "the following required arguments were not provided:\n  <FILE>",
        ),
        (
            &["run", "wf.ts", "--bogus"][..],
            "unexpected argument '--bogus' found",
        ),
        (&["frobnicate"][..], "unrecognized subcommand 'frobnicate'"),
    ] {
        let ran = awf(args);
        assert_eq!(ran.code, Some(2), "{args:?}");
        assert_eq!(ran.stdout, "", "{args:?}");
        assert!(ran.stderr.contains(needle), "{args:?}: {}", ran.stderr);
    }
}

#[test]
fn a_bad_flag_value_is_a_usage_error_naming_the_flag() {
    let ran = awf(&["run", "wf.ts", "--timeout", "soon"]);
    assert_eq!(ran.code, Some(2));
    assert_eq!(
        ran.stderr,
        "awf: --timeout: \"soon\" is not a duration; write it as 1500ms, 30s, 20m, 1h or 1h30m\n"
    );
    let ran = awf(&["run", "wf.ts", "--cwd", "/no/such/dir"]);
    assert_eq!(ran.code, Some(2));
    assert_eq!(ran.stderr, "awf: --cwd /no/such/dir: no such directory\n");
}

#[test]
fn diagnostics_show_on_stderr_only_when_asked() {
    let project = TempProject::new();
    project.file(
        "hello.ts",
        r#"export default defineWorkflow({
  meta: { name: "hello", description: "Says hello." },
  run: () => ({ hello: "world" }),
});
"#,
    );
    let quiet = project.awf(&["run", "hello.ts"]).run();
    assert_eq!(quiet.code, Some(0), "{}", quiet.stderr);
    assert_lacks(&quiet.stderr, "DEBUG");
    let flag = project
        .awf(&["--log-level", "debug", "run", "hello.ts"])
        .run();
    assert_eq!(flag.code, Some(0), "{}", flag.stderr);
    assert_eq!(flag.stdout, quiet.stdout);
    assert_has(
        &flag.stderr,
        "awf: DEBUG awf_runtime::js::engine::host: JS host started",
    );
    // Inside the run, events carry its span.
    assert_has(
        &flag.stderr,
        "awf: DEBUG awf_runtime::js::engine::call run{id=",
    );
    let env = project
        .awf(&["run", "hello.ts"])
        .env("AWF_LOG", "awf_runtime::js=debug")
        .run();
    assert_has(
        &env.stderr,
        "call into JS module=\"awf:runner\" export=\"runWorkflow\"",
    );
    let bad = project
        .awf(&["run", "hello.ts"])
        .env("AWF_LOG", "nope[")
        .run();
    assert_eq!(bad.code, Some(0));
    assert_has(&bad.stderr, "awf: log level \"nope[\" is not a filter");
}

#[test]
fn awf_test_help_says_contexts_are_reused_and_reset_between_files() {
    let ran = awf(&["test", "--help"]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    let help = ran.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert_has(
        &help,
        "a thread reuses its JS context from one file to the next and resets it between files",
    );
    assert_lacks(&help, "its own JS context");
}

/// Every short and long option `awf <command> --help` lists, as written there.
fn options_of(command: &[&str]) -> Vec<(Option<String>, String)> {
    let mut args = command.to_vec();
    args.push("--help");
    let ran = awf(&args);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    // An option's line is indented 2 or 6 spaces; its description, when on lines of its own, more.
    ran.stdout
        .lines()
        .filter(|line| (2..=6).contains(&(line.len() - line.trim_start().len())))
        .map(str::trim_start)
        .filter(|line| line.starts_with('-'))
        .filter_map(|line| {
            let words: Vec<&str> = line
                .split([' ', ','])
                .filter(|w| w.starts_with('-'))
                .take(2)
                .collect();
            let long = words.iter().find(|w| w.starts_with("--"))?;
            let long = long.split(['=', '[', '<']).next()?.to_string();
            let short = words
                .iter()
                .find(|w| !w.starts_with("--"))
                .map(|w| w.to_string());
            Some((short, long))
        })
        .collect()
}

/// cli.md opens with a synopsis of every command; each flag `--help` lists is in it (by its long
/// or its short name), so a reader sees the whole command line there.
#[test]
fn cli_md_synopsis_names_every_flag_of_every_command() {
    let page = std::fs::read_to_string(crate::util::workspace().join("docs/cli.md")).unwrap();
    let synopsis = page
        .split("```text\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("cli.md opens with a text block");
    // A command's lines: those starting `awf <command>` and the indented ones that follow.
    let lines_of = |command: &str| {
        let mut text = String::new();
        let mut inside = false;
        for line in synopsis.lines() {
            if line.starts_with("awf ") {
                inside = line.starts_with(&format!("awf {command} "))
                    || line == format!("awf {command}");
            }
            if inside {
                text += line;
                text.push('\n');
            }
        }
        text
    };
    let words_of = |text: &str| -> Vec<String> {
        text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .filter(|w| w.starts_with('-'))
            .map(str::to_string)
            .collect()
    };
    let mut missing = Vec::new();
    let global: Vec<String> = options_of(&[]).into_iter().map(|(_, long)| long).collect();
    for command in [
        "run",
        "runs",
        "answer",
        "test",
        "logs",
        "doctor",
        "init",
        "typings",
        "completions",
        "man",
    ] {
        let text = lines_of(command);
        assert!(
            !text.is_empty(),
            "cli.md's synopsis has no `awf {command}` line"
        );
        let words = words_of(&text);
        for (short, long) in options_of(&[command]) {
            if ["--help", "--version"].contains(&long.as_str()) || global.contains(&long) {
                continue;
            }
            let named = words.contains(&long) || short.as_ref().is_some_and(|s| words.contains(s));
            if !named {
                missing.push(format!("awf {command} {long}"));
            }
        }
    }
    let everything = words_of(synopsis);
    for long in &global {
        if !["--help", "--version"].contains(&long.as_str()) && !everything.contains(long) {
            missing.push(format!("awf {long}"));
        }
    }
    assert!(
        missing.is_empty(),
        "cli.md's synopsis lacks: {}",
        missing.join(", ")
    );
}

/// tools.md's table of exit codes lists, for each exit, the codes `wfa --help` gives it.
#[test]
fn tools_md_exit_codes_are_wfa_helps() {
    let help = AwfCommand::new(crate::util::wfa_bin()).arg("--help").run();
    assert_eq!(help.code, Some(0), "{}", help.stderr);
    let mut from_help: std::collections::BTreeMap<String, BTreeSet<String>> = Default::default();
    let codes = help
        .stdout
        .split("codes, shown on standard error")
        .nth(1)
        .expect("wfa --help lists the codes");
    for line in codes.lines().skip(1) {
        let words: Vec<&str> = line.split_whitespace().collect();
        if let [code, "exit", exit, ..] = words[..] {
            from_help
                .entry(exit.to_string())
                .or_default()
                .insert(code.to_string());
        }
    }
    assert!(!from_help.is_empty(), "{}", help.stdout);
    let page = std::fs::read_to_string(crate::util::workspace().join("docs/tools.md")).unwrap();
    let section = page
        .split("## Exit codes and what the agent reads")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("tools.md has its exit codes section");
    let mut from_page: std::collections::BTreeMap<String, BTreeSet<String>> = Default::default();
    for line in section.lines().filter(|l| l.starts_with("| ")) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let (Some(exit), Some(codes)) = (cells.get(1), cells.get(3)) else {
            continue;
        };
        if !exit.chars().all(|c| c.is_ascii_digit()) || exit.is_empty() {
            continue;
        }
        let named: BTreeSet<String> = codes
            .split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect();
        if !named.is_empty() {
            from_page.insert(exit.to_string(), named);
        }
    }
    assert_eq!(
        from_page, from_help,
        "tools.md's exit-code table against wfa --help"
    );
}
