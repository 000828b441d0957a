//! `wfa`: the command an agent runs to reach its workflow run: list and call its tools, answer a
//! turn, ask for time.
//!
//! It owns the command line, reading standard input, one exchange on the agent's socket, and how
//! the response is printed and exited with. The run owns the rest: which tools exist, how flags
//! become JSON (the server has the schemas), whether an answer fits. The protocol (`wire/`), the
//! codes (`refusal.rs`) and the limits (`limits.rs`) come from the runtime by `#[path]`; wfa uses
//! only std, serde and serde_json (and rustls for the TCP transport alone) and no thread unless
//! it reads standard input, so a round trip costs well under a millisecond more than starting
//! `/bin/true`.
//!
//! An agent's launcher is `<agent folder>/wfa`, a link to this binary; started by that path, wfa
//! reads the launcher file in the same folder (the agent's secret, and a TCP route for an agent
//! that reaches its run over TCP) and connects to the socket there, or over TLS to the route
//! (`--channel <socket>` names a socket directly, for tests). It presents the secret on every
//! request: the run knows who asks by the connection and the secret, so wfa carries no other
//! identity.
//!
//! This file takes one invocation from its words to its exit; each step is a module:
//! - `args.rs`: the command line, read into an invocation or a usage error.
//! - `channel.rs`: where to reach the run, and the secret: `--channel`, or the launcher's file.
//! - `input.rs`: which requests take standard input, where it goes, whether to wait for it.
//! - `stdin.rs`: reading standard input without hanging on a pipe nobody writes or closes.
//! - `exchange.rs`: the one request and response, on the socket or over TLS (`tls.rs`).
//! - `output.rs`: what wfa prints and exits with.
//! - `hook.rs`: `wfa hook claude`; `keep.rs`: `wfa __keep`, the parent of every agent process;
//!   `bridge.rs`: `wfa __bridge`, a sandboxed agent's network, inside its box.

use std::ffi::OsString;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

// Shared with the runtime, which uses the server half of each; wfa compiles them whole but uses
// only the client half. from_runtime/ links to the runtime's files, so that the crate carries them
// when packaged.
#[allow(dead_code)]
#[path = "from_runtime/limits.rs"]
mod limits;
#[allow(dead_code)]
#[path = "from_runtime/refusal.rs"]
mod refusal;
#[allow(dead_code, unused_imports)]
#[path = "from_runtime/wire/mod.rs"]
mod wire;

mod args;
mod bridge;
mod channel;
mod exchange;
mod hook;
mod input;
mod keep;
mod output;
mod stdin;
mod tls;

use args::{help, parse, utf8_words, Invocation};
use channel::{beside, not_launched, split_channel, Reach, Target};
use exchange::exchange;
use input::{expects_request, nothing_to_send, stdin_slot};
use output::{refused_locally, render, Output};
use refusal::Code;
use wire::{Request, Response};

fn main() -> ExitCode {
    let mut args = std::env::args_os();
    let program = args.next().map(PathBuf::from);
    // awf starts every agent process under a keeper (keep.rs); an agent has no use for it.
    let mut args = args.peekable();
    if args.peek().is_some_and(|first| first == "__keep") {
        args.next();
        return ExitCode::from(keep::main(args.collect()));
    }
    // A sandboxed agent's parent inside its box (bridge.rs).
    if args.peek().is_some_and(|first| first == "__bridge") {
        args.next();
        return ExitCode::from(bridge::main(args.collect()));
    }
    let output = run(program.as_deref(), args.collect());
    // A reader that went away (`wfa tool | head -1`) is not an error worth reporting.
    let _ = io::stdout().lock().write_all(output.stdout.as_bytes());
    let _ = io::stderr().lock().write_all(output.stderr.as_bytes());
    ExitCode::from(output.exit.status())
}

fn run(program: Option<&Path>, args: Vec<OsString>) -> Output {
    // Claude Code's hook (an agent CLI calls it, not an agent): decides, sends nothing.
    if args.len() == 2 && args[0] == "hook" && args[1] == "claude" {
        let launcher = program.map(|p| p.display().to_string()).unwrap_or_default();
        return Output::stdout(hook::decide(&launcher, &hook::read_input()));
    }
    let (channel, words) = split_channel(args);
    let invocation = match utf8_words(words).and_then(parse) {
        Ok(invocation) => invocation,
        Err(usage) => return usage.render(),
    };
    let (subject, mut request) = match invocation {
        Invocation::Help => return Output::stdout(help()),
        Invocation::Version => {
            return Output::stdout(format!(
                "wfa {} (wire protocol {})\n",
                env!("CARGO_PKG_VERSION"),
                wire::VERSION
            ))
        }
        Invocation::Send { subject, request } => (subject, request),
    };
    let reach = match (channel, program) {
        (Some(socket), _) => Some(Reach {
            target: Target::Socket(socket),
            secret: None,
        }),
        (None, Some(program)) => match beside(program) {
            Ok(reach) => reach,
            Err(invalid) => return invalid,
        },
        (None, None) => None,
    };
    let Some(Reach { target, secret }) = reach else {
        return not_launched(std::env::var_os("AWF_WFA"));
    };
    let encode = |request: &Request| match &secret {
        Some(secret) => request.encode_presenting(secret, limits::MAX_REQUEST_BYTES),
        None => request.encode(limits::MAX_REQUEST_BYTES),
    };
    let question = expects_request(&request);
    let sending = matches!(request, Request::Send { .. });
    let wants_json = matches!(request, Request::Send { data: Some(_), .. });
    if let Some(slot) = stdin_slot(&mut request) {
        // Asked only when standard input is open and silent: is a slow producer worth waiting
        // for? Only when the input is taught as JSON, or the answer is text; a message's stdin
        // is all it has, so always.
        let waits = || {
            if sending {
                return Some(true);
            }
            let line = encode(question.as_ref()?).ok()?;
            match exchange(&target, &line).ok()? {
                Response::Ok { stdout } => Some(matches!(stdout.trim(), "json" | "text")),
                _ => None,
            }
        };
        match stdin::read(waits) {
            Ok(payload) => *slot = payload,
            Err(error) => return error.render(&subject),
        }
        if let Some(refusal) = nothing_to_send(&request, wants_json) {
            return refusal;
        }
    }
    let line = match encode(&request) {
        Ok(line) => line,
        Err(oversized) => {
            let message = format!("the request is {oversized}");
            return refused_locally(&subject, Code::RequestTooLarge, &message);
        }
    };
    match exchange(&target, &line) {
        Ok(response) => render(&subject, response),
        Err(unreachable) => unreachable.render(&target.place()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use refusal::Exit;

    #[test]
    fn help_and_version_need_no_run() {
        let output = run(None, vec![OsString::from("--help")]);
        assert_eq!(output.exit, Exit::Done);
        assert!(output
            .stdout
            .contains("  4  the workflow run cannot be reached"));
        assert!(output.stdout.contains("  may-have-run         exit 1  "));
        let output = run(None, vec![OsString::from("--version")]);
        assert_eq!(
            output.stdout,
            format!("wfa {} (wire protocol 1)\n", env!("CARGO_PKG_VERSION"))
        );
    }

    #[test]
    fn arguments_that_are_not_utf8_are_a_usage_error() {
        use std::os::unix::ffi::OsStringExt;
        let args = vec![OsString::from("tool"), OsString::from_vec(vec![0xff])];
        let output = run(None, args);
        assert_eq!(output.exit, Exit::Usage);
        assert!(output
            .stderr
            .starts_with("wfa: argument \"\\xFF\" is not UTF-8 text\n"));
    }

    #[test]
    fn without_a_launcher_there_is_no_run_to_reach() {
        let output = run(None, vec![OsString::from("tool")]);
        assert_eq!(output.exit, Exit::Unreachable);
        assert!(output.stderr.starts_with(
            "wfa: no workflow run to reach: wfa must be run through an agent's launcher\n\nhint: "
        ));
    }
}
