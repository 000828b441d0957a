//! `fake-model`: a scripted fake model server on 127.0.0.1 that drives the real agent CLIs
//! (codex, claude, gemini, pi, opencode) in awf's tests.
//!
//! ```text
//! fake-model --api responses|anthropic|chat|gemini --script FILE --log DIR [--port N]
//!            [--fail-auth] [--exit-on-stdin-eof]
//! ```
//!
//! The first line on stdout is `listening on http://127.0.0.1:PORT`. Every request is logged as
//! `DIR/NNN-<api>.json`. See `script.rs` for the script and `engine.rs` for how a reply is chosen.

mod anthropic;
mod chat;
mod engine;
mod gemini;
mod http;
mod responses;
mod script;
mod server;

use server::{Api, Server};
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

const USAGE: &str = "usage: fake-model --api responses|anthropic|chat|gemini --script FILE --log DIR [--port N] [--fail-auth] [--exit-on-stdin-eof]";

struct Options {
    api: Api,
    script: PathBuf,
    log: PathBuf,
    port: u16,
    fail_auth: bool,
    exit_on_stdin_eof: bool,
}

fn parse_options(args: &[String]) -> Result<Options, String> {
    let (mut api, mut script, mut log, mut port) = (None, None, None, 0);
    let (mut fail_auth, mut exit_on_stdin_eof) = (false, false);
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--api" => {
                let name = value()?;
                api = Some(Api::parse(name).ok_or(format!("unknown API {name:?}"))?);
            }
            "--script" => script = Some(PathBuf::from(value()?)),
            "--log" => log = Some(PathBuf::from(value()?)),
            "--port" => port = value()?.parse().map_err(|_| "--port: not a port number")?,
            "--fail-auth" => fail_auth = true,
            "--exit-on-stdin-eof" => exit_on_stdin_eof = true,
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(Options {
        api: api.ok_or("--api is required")?,
        script: script.ok_or("--script is required")?,
        log: log.ok_or("--log is required")?,
        port,
        fail_auth,
        exit_on_stdin_eof,
    })
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("fake-model: {e}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &[String]) -> Result<(), String> {
    let options = parse_options(args)?;
    let text = std::fs::read_to_string(&options.script)
        .map_err(|e| format!("cannot read {}: {e}", options.script.display()))?;
    let script =
        script::Script::parse(&text).map_err(|e| format!("{}: {e}", options.script.display()))?;
    std::fs::create_dir_all(&options.log)
        .map_err(|e| format!("cannot create {}: {e}", options.log.display()))?;
    let listener = TcpListener::bind(("127.0.0.1", options.port))
        .map_err(|e| format!("cannot listen: {e}"))?;
    let port = listener.local_addr().map_err(|e| e.to_string())?.port();
    let mut stdout = std::io::stdout();
    writeln!(stdout, "listening on http://127.0.0.1:{port}")
        .and_then(|()| stdout.flush())
        .map_err(|e| e.to_string())?;
    if options.exit_on_stdin_eof {
        std::thread::spawn(|| {
            let _ = std::io::copy(&mut std::io::stdin().lock().by_ref(), &mut std::io::sink());
            std::process::exit(0);
        });
    }
    let server = Server::new(options.api, script, options.log, options.fail_auth);
    server::serve(listener, Arc::new(server));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &str) -> Vec<String> {
        words.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn options() {
        let o = parse_options(&args(
            "--api chat --script s.json --log d --port 9 --fail-auth",
        ))
        .unwrap();
        assert_eq!(
            (o.api, o.port, o.fail_auth, o.exit_on_stdin_eof),
            (Api::Chat, 9, true, false)
        );
        assert_eq!(o.script, PathBuf::from("s.json"));
        assert_eq!(
            parse_options(&args("--api x")).err().unwrap(),
            "unknown API \"x\""
        );
        assert_eq!(
            parse_options(&args("--script s --log d")).err().unwrap(),
            "--api is required"
        );
        assert_eq!(
            parse_options(&args("--api chat --port")).err().unwrap(),
            "--port needs a value"
        );
    }
}
