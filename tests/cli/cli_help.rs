//! The command line's own texts: version, help, and how a usage error is reported (clap's
//! conventions: help on stdout with exit 0, usage errors on stderr with exit 2); diagnostics on
//! stderr with --log-level or AWF_LOG.

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
