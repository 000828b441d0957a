//! `wfa`: the command an agent runs to reach its workflow run: list and call its tools, answer a
//! turn, ask for time.
//!
//! It owns the command line, reading standard input, one exchange on the agent's socket, and how
//! the response is printed and exited with. The run owns the rest: which tools exist, how flags
//! become JSON (the server has the schemas), whether an answer fits. The protocol (`wire.rs`), the
//! codes (`refusal.rs`) and the limits (`limits.rs`) come from the runtime by `#[path]`; wfa uses
//! only std, serde and serde_json and no thread unless it reads standard input, so a round trip
//! costs well under a millisecond more than starting `/bin/true`.
//!
//! An agent's launcher is `<agent folder>/wfa`, a link to this binary; started by that path, wfa
//! connects to the socket in the same folder (`--channel <socket>` names one directly, for
//! tests). The socket is the agent's own: the run knows who asks by the connection, so wfa
//! carries no identity.

use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::net::Shutdown;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

// Shared with the runtime, which uses the server half of each; wfa compiles them whole but uses
// only the client half.
#[allow(dead_code)]
#[path = "../../../../runtime/src/limits.rs"]
mod limits;
#[allow(dead_code)]
#[path = "../../../../runtime/src/channel/refusal.rs"]
mod refusal;
#[allow(dead_code)]
#[path = "../../../../runtime/src/channel/wire.rs"]
mod wire;

mod hook;
mod keep;
mod stdin;

use refusal::{Code, Exit};
use wire::{Request, Response};

/// How long wfa waits for a response. The server bounds every call by the call's and the turn's
/// time and answers or closes when the run ends, so this only stops a wedged run from holding
/// the agent for ever; a call cut off here keeps running, and calling again with the same input
/// joins it.
const RESPONSE_BOUND: Duration = Duration::from_secs(2 * 60 * 60);

const USAGE: &str = "\
usage: wfa tool                                   list your tools, their limits and the codes
       wfa tool <name> [--<option> <value>]...    call a tool (JSON input: on standard input)
       wfa tool <name> --help                     how to call that tool
       wfa result <turn> [--<field> <value>]...   answer a turn (a JSON answer: on standard input)
       wfa waiting <turn> --reason <text> [--timeout <duration>]
                                                  say you still work on the turn and need time
       wfa send '<text>'                          send the workflow a message (no words: text on
                                                  standard input)
       wfa send [<text>] --json                   send data: JSON on standard input
       wfa --help | --version
";

fn main() -> ExitCode {
    let mut args = std::env::args_os();
    let program = args.next().map(PathBuf::from);
    // awf starts every agent process under a keeper (keep.rs); an agent has no use for it.
    let mut args = args.peekable();
    if args.peek().is_some_and(|first| first == "__keep") {
        args.next();
        return ExitCode::from(keep::main(args.collect()));
    }
    let output = run(program.as_deref(), args.collect());
    // A reader that went away (`wfa tool | head -1`) is not an error worth reporting.
    let _ = io::stdout().lock().write_all(output.stdout.as_bytes());
    let _ = io::stderr().lock().write_all(output.stderr.as_bytes());
    ExitCode::from(output.exit.status())
}

/// Everything wfa prints and how it exits: built without side effects, written once by `main`.
#[derive(Debug, PartialEq)]
struct Output {
    stdout: String,
    stderr: String,
    exit: Exit,
}

impl Output {
    fn stdout(text: String) -> Output {
        Output {
            stdout: text,
            stderr: String::new(),
            exit: Exit::Done,
        }
    }

    fn stderr(exit: Exit, text: String) -> Output {
        Output {
            stdout: String::new(),
            stderr: text,
            exit,
        }
    }
}

fn run(program: Option<&Path>, args: Vec<OsString>) -> Output {
    // Claude Code's hook (an agent CLI calls it, not an agent): decides, sends nothing.
    if args.len() == 2 && args[0] == "hook" && args[1] == "claude" {
        let launcher = program.map(|p| p.display().to_string()).unwrap_or_default();
        return Output::stdout(hook::decide(&launcher, &hook::read_input()));
    }
    let (channel, words) = split_channel(args);
    let channel = channel.or_else(|| socket_beside(program?));
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
    let Some(socket) = channel else {
        return not_launched(std::env::var_os("AWF_WFA"));
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
            let line = question.as_ref()?.encode(limits::MAX_REQUEST_BYTES).ok()?;
            match exchange(&socket, &line).ok()? {
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
    let line = match request.encode(limits::MAX_REQUEST_BYTES) {
        Ok(line) => line,
        Err(oversized) => {
            let message = format!("the request is {oversized}");
            return refused_locally(&subject, Code::RequestTooLarge, &message);
        }
    };
    match exchange(&socket, &line) {
        Ok(response) => render(&subject, response),
        Err(unreachable) => unreachable.render(&socket),
    }
}

/// The agent's socket when wfa was started by an agent's launcher: `<agent folder>/wfa` beside
/// `<agent folder>/s.sock`. Started any other way (`wfa` on PATH, the binary itself), none.
fn socket_beside(program: &Path) -> Option<PathBuf> {
    let dir = program.parent().filter(|dir| !dir.as_os_str().is_empty())?;
    let socket = dir.join(wire::SOCKET_NAME);
    // A socket wfa may not even look at (another user's folder) is still the one meant: connecting
    // then says why it cannot be reached.
    match std::fs::symlink_metadata(&socket) {
        Ok(_) => Some(socket),
        Err(error) if error.kind() == io::ErrorKind::PermissionDenied => Some(socket),
        Err(_) => None,
    }
}

/// Takes `--channel <socket>` off the front of the arguments.
fn split_channel(mut args: Vec<OsString>) -> (Option<PathBuf>, Vec<OsString>) {
    if args.len() >= 2 && args[0] == "--channel" {
        let rest = args.split_off(2);
        (Some(PathBuf::from(args.swap_remove(1))), rest)
    } else {
        (None, args)
    }
}

/// What the command line asks for.
#[derive(Debug, PartialEq)]
enum Invocation {
    Help,
    Version,
    /// One request to the run; `subject` names it in messages: the tool, or the turn.
    Send {
        subject: String,
        request: Request,
    },
}

/// A command line wfa cannot read: exit 3, nothing sent.
#[derive(Debug, PartialEq)]
struct UsageError {
    /// The command the error is about, when there is one.
    subject: Option<String>,
    message: String,
}

impl UsageError {
    fn new(subject: &str, message: String) -> UsageError {
        UsageError {
            subject: Some(subject.to_owned()),
            message,
        }
    }

    fn render(&self) -> Output {
        let subject = match &self.subject {
            Some(subject) => format!("{subject}: "),
            None => String::new(),
        };
        Output::stderr(
            Exit::Usage,
            format!("wfa: {subject}{}\n\n{USAGE}", self.message),
        )
    }
}

fn utf8_words(words: Vec<OsString>) -> Result<Vec<String>, UsageError> {
    words
        .into_iter()
        .map(|word| {
            word.into_string().map_err(|word| UsageError {
                subject: None,
                message: format!("argument {word:?} is not UTF-8 text"),
            })
        })
        .collect()
}

fn parse(words: Vec<String>) -> Result<Invocation, UsageError> {
    let mut words = words.into_iter();
    let Some(command) = words.next() else {
        return Err(UsageError {
            subject: None,
            message: "no command given".to_owned(),
        });
    };
    match command.as_str() {
        "-h" | "--help" => Ok(Invocation::Help),
        "--version" => Ok(Invocation::Version),
        "tool" => match words.next() {
            None => Ok(Invocation::Send {
                subject: "tool".to_owned(),
                request: Request::Tools {},
            }),
            Some(name) if name == "-h" || name == "--help" => Ok(Invocation::Help),
            Some(name) if name.starts_with('-') => Err(UsageError::new(
                "tool",
                format!("expected a tool name before `{name}`"),
            )),
            Some(name) => {
                let args: Vec<String> = words.collect();
                // `wfa tool <name> --help` asks how to call the tool; a tool takes no `help` flag.
                let request = if matches!(args.as_slice(), [flag] if flag == "--help" || flag == "-h")
                {
                    Request::ToolHelp { name: name.clone() }
                } else {
                    Request::Tool {
                        name: name.clone(),
                        args,
                        stdin: None,
                    }
                };
                Ok(Invocation::Send {
                    subject: name,
                    request,
                })
            }
        },
        "result" => {
            let turn = turn_id("result", words.next())?;
            Ok(Invocation::Send {
                subject: turn.clone(),
                request: Request::Result {
                    turn,
                    args: words.collect(),
                    stdin: None,
                },
            })
        }
        "waiting" => parse_waiting(words),
        "send" => parse_send(words),
        _ => Err(UsageError::new(&command, "unknown command".to_owned())),
    }
}

fn turn_id(command: &str, word: Option<String>) -> Result<String, UsageError> {
    match word {
        None => Err(UsageError::new(command, "missing the turn id".to_owned())),
        Some(word) if word.starts_with('-') => Err(UsageError::new(
            command,
            format!("expected the turn id before `{word}`"),
        )),
        Some(turn) => Ok(turn),
    }
}

/// `waiting <turn> --reason <text> [--timeout <duration>]`, flags as `--x v` or `--x=v`. The
/// duration is checked by the run, which owns the duration syntax.
fn parse_waiting(mut words: impl Iterator<Item = String>) -> Result<Invocation, UsageError> {
    let turn = turn_id("waiting", words.next())?;
    let mut reason = None;
    let mut timeout = None;
    while let Some(word) = words.next() {
        let (flag, inline) = match word.split_once('=') {
            Some((flag, value)) => (flag, Some(value)),
            None => (word.as_str(), None),
        };
        let slot = match flag {
            "--reason" => &mut reason,
            "--timeout" => &mut timeout,
            _ => {
                let message = format!("unexpected `{word}`; expected --reason or --timeout");
                return Err(UsageError::new("waiting", message));
            }
        };
        if slot.is_some() {
            return Err(UsageError::new("waiting", format!("{flag} given twice")));
        }
        let value = match inline {
            Some(value) => value.to_owned(),
            None => words
                .next()
                .ok_or_else(|| UsageError::new("waiting", format!("{flag} needs a value")))?,
        };
        *slot = Some(value);
    }
    let Some(reason) = reason else {
        return Err(UsageError::new(
            "waiting",
            "--reason is required".to_owned(),
        ));
    };
    if reason.trim().is_empty() {
        return Err(UsageError::new("waiting", "--reason is empty".to_owned()));
    }
    if reason.len() > limits::MAX_WAITING_REASON_BYTES {
        let message = format!(
            "--reason is {} bytes, over the limit of {}",
            reason.len(),
            limits::MAX_WAITING_REASON_BYTES
        );
        return Err(UsageError::new("waiting", message));
    }
    Ok(Invocation::Send {
        subject: turn.clone(),
        request: Request::Waiting {
            turn,
            reason,
            timeout,
        },
    })
}

/// `send [<text>...] [--json]`: the words are the text (joined by spaces; `--` ends the flags,
/// so a text may start with `-`); `--json` takes data on standard input. Without words or
/// `--json`, the text comes on standard input.
fn parse_send(words: impl Iterator<Item = String>) -> Result<Invocation, UsageError> {
    let mut json = false;
    let mut text: Vec<String> = Vec::new();
    let mut flags = true;
    for word in words {
        match word.as_str() {
            "--" if flags => flags = false,
            "--json" if flags => json = true,
            "-h" | "--help" if flags => return Ok(Invocation::Help),
            flag if flags && flag.starts_with("--") => {
                let message = format!("unexpected `{flag}`; the only option is --json (put a text that starts with - after --)");
                return Err(UsageError::new("send", message));
            }
            _ => text.push(word),
        }
    }
    let text = (!text.is_empty()).then(|| text.join(" "));
    let data = json.then(String::new);
    Ok(Invocation::Send {
        subject: "send".to_owned(),
        request: Request::Send { text, data },
    })
}

/// The question whose answer says whether `request`'s input may come slowly on stdin.
fn expects_request(request: &Request) -> Option<Request> {
    match request {
        Request::Tool { name, .. } => Some(Request::Expects {
            tool: Some(name.clone()),
            turn: None,
        }),
        Request::Result { turn, .. } => Some(Request::Expects {
            tool: None,
            turn: Some(turn.clone()),
        }),
        _ => None,
    }
}

/// Where standard input goes, for a request that may take it: `tool <name>` and
/// `result <turn>` with no words after them.
fn stdin_slot(request: &mut Request) -> Option<&mut Option<String>> {
    match request {
        Request::Tool { args, stdin, .. } | Request::Result { args, stdin, .. }
            if args.is_empty() =>
        {
            Some(stdin)
        }
        // `send --json`: the data (a placeholder until stdin fills it); `send` alone: the text.
        Request::Send { text, data } => {
            if data.is_some() {
                Some(data)
            } else if text.is_none() {
                Some(text)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// `send --json` whose standard input brought no JSON, or `send` with neither words nor text on
/// standard input: a usage error, nothing sent.
fn nothing_to_send(request: &Request, wants_json: bool) -> Option<Output> {
    let message = match request {
        Request::Send { data: None, .. } if wants_json => {
            "--json takes the data on standard input, and none came; send it in a quoted heredoc:\n\n  wfa send --json <<'WF_JSON'\n  {\"key\": \"value\"}\n  WF_JSON".to_owned()
        }
        Request::Send {
            data: None,
            text: None,
        } => "give the text as a word, send '<text>', or on standard input".to_owned(),
        _ => return None,
    };
    Some(UsageError::new("send", message).render())
}

/// Why the run could not be reached: exit 4.
#[derive(Debug, PartialEq)]
struct Unreachable {
    why: String,
}

impl Unreachable {
    fn render(&self, socket: &Path) -> Output {
        Output::stderr(
            Exit::Unreachable,
            format!(
                "wfa: cannot reach the workflow run at {}: {}\n\nhint: the run has ended, or this \
                 launcher is stale: a launcher belongs to one run; use the one named in your \
                 current prompt\n",
                socket.display(),
                self.why
            ),
        )
    }
}

/// One exchange: connect, send the request line, half-close, read the response line.
///
/// Connecting to a Unix socket succeeds or fails at once (it waits only while the server's
/// backlog is full). The server takes a request within [`limits::REQUEST_READ_TIMEOUT`] or drops
/// it, so writing is bounded by the same time. The response may take as long as the call
/// (minutes), up to [`RESPONSE_BOUND`].
fn exchange(socket: &Path, line: &[u8]) -> Result<Response, Unreachable> {
    let mut stream = UnixStream::connect(socket).map_err(|error| Unreachable {
        why: describe(&error),
    })?;
    let sent = stream
        .set_write_timeout(Some(limits::REQUEST_READ_TIMEOUT))
        .and_then(|()| stream.write_all(line))
        .and_then(|()| stream.shutdown(Shutdown::Write));
    // Read even when sending failed: a server that refused the request early (too large) has
    // answered before closing, and that answer says more than the broken pipe.
    let received = read_response(&mut stream);
    let bytes = match (sent, received) {
        (_, Ok(bytes)) if !bytes.is_empty() => bytes,
        (Err(error), _) => {
            let why = format!("cannot send the request: {}", describe(&error));
            return Err(Unreachable { why });
        }
        (Ok(()), Err(error)) if is_timeout(&error) => {
            let why = format!(
                "no response within {} hours; the request was sent, so it may have been \
                 carried out",
                RESPONSE_BOUND.as_secs() / 3600
            );
            return Err(Unreachable { why });
        }
        (Ok(()), Err(error)) => {
            let why = format!(
                "cannot read the response: {}; the request was sent, so it may have been \
                 carried out",
                describe(&error)
            );
            return Err(Unreachable { why });
        }
        (Ok(()), Ok(_)) => {
            let why = "the run closed the connection without a response; the request was \
                       sent, so it may have been carried out"
                .to_owned();
            return Err(Unreachable { why });
        }
    };
    Response::decode(&bytes, limits::MAX_RESPONSE_BYTES).map_err(|error| Unreachable {
        why: format!("malformed response: {error}"),
    })
}

/// Reads up to the first newline or the end, and no more than one byte past the response limit
/// (decoding then reports the size).
fn read_response(stream: &mut UnixStream) -> io::Result<Vec<u8>> {
    let deadline = Instant::now() + RESPONSE_BOUND;
    let mut bytes = Vec::new();
    let mut chunk = [0u8; 16 * 1024];
    while bytes.len() <= limits::MAX_RESPONSE_BYTES {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::ErrorKind::TimedOut.into());
        }
        stream.set_read_timeout(Some(left))?;
        let read = match stream.read(&mut chunk) {
            Ok(0) => break,
            Ok(read) => read,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
        };
        let newline = chunk[..read].iter().position(|&b| b == b'\n');
        bytes.extend_from_slice(&chunk[..newline.map_or(read, |at| at + 1)]);
        if newline.is_some() {
            break;
        }
    }
    Ok(bytes)
}

fn is_timeout(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    )
}

/// An I/O error as lowercase text for a message.
fn describe(error: &io::Error) -> String {
    let text = match error.kind() {
        io::ErrorKind::NotFound => "no socket at that path",
        io::ErrorKind::ConnectionRefused => "nothing listens on the socket",
        io::ErrorKind::PermissionDenied => "permission denied",
        io::ErrorKind::BrokenPipe | io::ErrorKind::ConnectionReset => {
            "the run closed the connection"
        }
        _ => {
            let text = error.to_string();
            let mut chars = text.chars();
            return match chars.next() {
                Some(first) => first.to_lowercase().chain(chars).collect(),
                None => text,
            };
        }
    };
    text.to_owned()
}

/// What wfa prints for the run's response, and its exit.
fn render(subject: &str, response: Response) -> Output {
    match response {
        Response::Ok { mut stdout } => {
            if !stdout.is_empty() && !stdout.ends_with('\n') {
                stdout.push('\n');
            }
            Output::stdout(stdout)
        }
        Response::Refused {
            code,
            message,
            details,
            hint,
        } => Output::stderr(
            code.exit(),
            report(
                subject,
                "refused",
                code,
                &message,
                &details,
                hint.as_deref(),
            ),
        ),
        Response::Failed {
            code,
            message,
            hint,
        } => Output::stderr(
            code.exit(),
            report(subject, "failed", code, &message, &[], hint.as_deref()),
        ),
    }
}

/// A refusal wfa makes itself, before sending anything.
fn refused_locally(subject: &str, code: Code, message: &str) -> Output {
    Output::stderr(
        code.exit(),
        report(subject, "refused", code, message, &[], None),
    )
}

/// `wfa: <subject>: <verdict> (<code>): <message>`, each detail indented two spaces, then a
/// blank line and the hint. Lines after the first of a message, detail or hint are indented under
/// it, so a multi-line handler error stays readable as one block.
fn report(
    subject: &str,
    verdict: &str,
    code: Code,
    message: &str,
    details: &[String],
    hint: Option<&str>,
) -> String {
    let mut text = format!("wfa: {subject}: {verdict} ({code}): ");
    push_indented(&mut text, message, "  ");
    for detail in details {
        text.push_str("  ");
        push_indented(&mut text, detail, "    ");
    }
    if let Some(hint) = hint {
        text.push_str("\nhint: ");
        push_indented(&mut text, hint, "      ");
    }
    text
}

/// Appends `block` and a newline, with every line after the first prefixed by `indent`.
fn push_indented(text: &mut String, block: &str, indent: &str) {
    for (index, line) in block.trim_end().lines().enumerate() {
        if index > 0 {
            text.push_str(indent);
        }
        text.push_str(line);
        text.push('\n');
    }
    if block.trim_end().is_empty() {
        text.push('\n');
    }
}

/// Run without `--channel`: not through a launcher, so wfa cannot know which run to reach.
fn not_launched(launcher: Option<OsString>) -> Output {
    let launcher = match launcher {
        Some(path) => format!(" ({})", PathBuf::from(path).display()),
        None => String::new(),
    };
    Output::stderr(
        Exit::Unreachable,
        format!(
            "wfa: no workflow run to reach: wfa must be run through an agent's launcher\n\n\
             hint: run the launcher named in your prompt; its path is also in $AWF_WFA{launcher}\n"
        ),
    )
}

fn help() -> String {
    format!(
        "wfa: call your workflow's tools and answer its turns\n\n{USAGE}\nRun it through the \
         launcher named in your prompt (its path is also in $AWF_WFA).\n\n{}",
        refusal::codes_help()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    fn strings(words: &[&str]) -> Vec<String> {
        words.iter().map(|word| word.to_string()).collect()
    }

    fn usage_error(line: &str) -> String {
        let error = parse(words(line)).expect_err(line);
        let output = error.render();
        assert_eq!(output.exit, Exit::Usage);
        assert!(output.stderr.ends_with(USAGE));
        output.stderr.lines().next().unwrap().to_owned()
    }

    #[test]
    fn tool_name_help_asks_how_to_call_it() {
        let words = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            parse(words(&["tool", "add", "--help"])),
            Ok(Invocation::Send {
                subject: "add".into(),
                request: Request::ToolHelp { name: "add".into() },
            })
        );
        assert!(matches!(
            parse(words(&["tool", "add", "--help", "--x", "1"])),
            Ok(Invocation::Send {
                request: Request::Tool { .. },
                ..
            })
        ));
    }

    #[test]
    fn the_channel_comes_off_the_front() {
        let args = ["--channel", "/tmp/awf-1/a1/s.sock", "tool", "x"].map(OsString::from);
        let (channel, rest) = split_channel(args.to_vec());
        assert_eq!(channel, Some(PathBuf::from("/tmp/awf-1/a1/s.sock")));
        assert_eq!(rest, ["tool", "x"].map(OsString::from));
        let (channel, rest) = split_channel(vec![OsString::from("--channel")]);
        assert_eq!(channel, None);
        assert_eq!(rest.len(), 1);
        let args = ["tool", "--channel", "/x"].map(OsString::from);
        assert_eq!(split_channel(args.to_vec()).0, None);
    }

    #[test]
    fn tool_alone_lists_the_tools() {
        assert_eq!(
            parse(words("tool")),
            Ok(Invocation::Send {
                subject: "tool".to_owned(),
                request: Request::Tools {}
            })
        );
    }

    #[test]
    fn a_tool_call_passes_its_words_as_typed() {
        let line = strings(&[
            "tool",
            "add_finding",
            "--file",
            "src/a.ts",
            "--line=41",
            "a b",
        ]);
        assert_eq!(
            parse(line),
            Ok(Invocation::Send {
                subject: "add_finding".to_owned(),
                request: Request::Tool {
                    name: "add_finding".to_owned(),
                    args: strings(&["--file", "src/a.ts", "--line=41", "a b"]),
                    stdin: None,
                }
            })
        );
    }

    #[test]
    fn a_result_takes_a_turn_and_its_words() {
        assert_eq!(
            parse(words("result t3 --verdict ok")),
            Ok(Invocation::Send {
                subject: "t3".to_owned(),
                request: Request::Result {
                    turn: "t3".to_owned(),
                    args: strings(&["--verdict", "ok"]),
                    stdin: None,
                }
            })
        );
    }

    #[test]
    fn waiting_takes_a_reason_and_maybe_a_timeout() {
        let expected = |timeout: Option<&str>| {
            Ok(Invocation::Send {
                subject: "t3".to_owned(),
                request: Request::Waiting {
                    turn: "t3".to_owned(),
                    reason: "tests run".to_owned(),
                    timeout: timeout.map(String::from),
                },
            })
        };
        let line = strings(&["waiting", "t3", "--reason", "tests run"]);
        assert_eq!(parse(line), expected(None));
        let line = strings(&["waiting", "t3", "--timeout=2m", "--reason=tests run"]);
        assert_eq!(parse(line), expected(Some("2m")));
        let line = strings(&["waiting", "t3", "--reason", "tests run", "--timeout", "2m"]);
        assert_eq!(parse(line), expected(Some("2m")));
    }

    #[test]
    fn help_and_version_need_no_run() {
        assert_eq!(parse(words("--help")), Ok(Invocation::Help));
        assert_eq!(parse(words("-h tool")), Ok(Invocation::Help));
        assert_eq!(parse(words("tool --help")), Ok(Invocation::Help));
        assert_eq!(parse(words("--version")), Ok(Invocation::Version));
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
    fn usage_errors_name_the_command() {
        assert_eq!(usage_error(""), "wfa: no command given");
        assert_eq!(usage_error("peers"), "wfa: peers: unknown command");
        assert_eq!(
            usage_error("send --to b hi"),
            "wfa: send: unexpected `--to`; the only option is --json (put a text that starts with - after --)"
        );
        assert_eq!(
            usage_error("tool --file a"),
            "wfa: tool: expected a tool name before `--file`"
        );
        assert_eq!(usage_error("result"), "wfa: result: missing the turn id");
        assert_eq!(
            usage_error("result --verdict ok"),
            "wfa: result: expected the turn id before `--verdict`"
        );
        assert_eq!(usage_error("waiting"), "wfa: waiting: missing the turn id");
        assert_eq!(
            usage_error("waiting t3"),
            "wfa: waiting: --reason is required"
        );
        assert_eq!(
            usage_error("waiting t3 --timeout 2m"),
            "wfa: waiting: --reason is required"
        );
        assert_eq!(
            usage_error("waiting t3 --reason"),
            "wfa: waiting: --reason needs a value"
        );
        assert_eq!(
            usage_error("waiting t3 --reason="),
            "wfa: waiting: --reason is empty"
        );
        assert_eq!(
            usage_error("waiting t3 --reason a --reason b"),
            "wfa: waiting: --reason given twice"
        );
        assert_eq!(
            usage_error("waiting t3 --reason a soon"),
            "wfa: waiting: unexpected `soon`; expected --reason or --timeout"
        );
    }

    #[test]
    fn a_reason_over_the_limit_is_a_usage_error() {
        let fits = "r".repeat(limits::MAX_WAITING_REASON_BYTES);
        let line = vec![
            "waiting".to_owned(),
            "t3".to_owned(),
            "--reason".to_owned(),
            fits,
        ];
        assert!(parse(line.clone()).is_ok());
        let mut over = line;
        over[3].push('r');
        let error = parse(over).unwrap_err();
        assert_eq!(
            error.message,
            format!(
                "--reason is {} bytes, over the limit of {}",
                limits::MAX_WAITING_REASON_BYTES + 1,
                limits::MAX_WAITING_REASON_BYTES
            )
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
    fn started_by_a_launcher_path_wfa_finds_the_socket_beside_it() {
        let dir = std::env::temp_dir().join(format!("wfa-beside-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert_eq!(socket_beside(&dir.join("wfa")), None);
        std::fs::write(dir.join(wire::SOCKET_NAME), "").unwrap();
        assert_eq!(
            socket_beside(&dir.join("wfa")),
            Some(dir.join(wire::SOCKET_NAME))
        );
        assert_eq!(socket_beside(Path::new("wfa")), None);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn without_a_launcher_there_is_no_run_to_reach() {
        let output = run(None, vec![OsString::from("tool")]);
        assert_eq!(output.exit, Exit::Unreachable);
        assert!(output.stderr.starts_with(
            "wfa: no workflow run to reach: wfa must be run through an agent's launcher\n\nhint: "
        ));
        assert!(not_launched(Some(OsString::from("/tmp/awf-1/a1/wfa")))
            .stderr
            .ends_with("$AWF_WFA (/tmp/awf-1/a1/wfa)\n"));
    }

    #[test]
    fn only_a_call_without_words_reads_stdin() {
        let takes = |line: &str| match parse(words(line)).unwrap() {
            Invocation::Send { mut request, .. } => stdin_slot(&mut request).is_some(),
            _ => unreachable!(),
        };
        assert!(takes("tool label_item"));
        assert!(takes("result t3"));
        assert!(!takes("tool"));
        assert!(!takes("tool add_finding --line 3"));
        assert!(!takes("result t3 --verdict ok"));
        assert!(!takes("waiting t3 --reason r"));
        assert!(takes("send"));
        assert!(takes("send --json"));
        assert!(takes("send found --json"));
        assert!(!takes("send found it"));
    }

    #[test]
    fn send_takes_its_words_as_the_text_and_json_on_stdin() {
        let request = |line: &[&str]| match parse(strings(line)).unwrap() {
            Invocation::Send { request, .. } => request,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            request(&["send", "found", "3 problems"]),
            Request::Send {
                text: Some("found 3 problems".into()),
                data: None
            }
        );
        assert_eq!(
            request(&["send", "--json"]),
            Request::Send {
                text: None,
                data: Some(String::new())
            }
        );
        assert_eq!(
            request(&["send", "--", "--x"]),
            Request::Send {
                text: Some("--x".into()),
                data: None
            }
        );
        assert_eq!(parse(strings(&["send", "--help"])), Ok(Invocation::Help));
        let missing = Request::Send {
            text: Some("t".into()),
            data: None,
        };
        let output = nothing_to_send(&missing, true).unwrap();
        assert_eq!(output.exit, Exit::Usage);
        assert!(output
            .stderr
            .starts_with("wfa: send: --json takes the data on standard input"));
        assert_eq!(nothing_to_send(&missing, false), None);
    }

    #[test]
    fn ok_prints_stdout_ending_in_one_newline() {
        let ok = |text: &str| {
            render(
                "x",
                Response::Ok {
                    stdout: text.to_owned(),
                },
            )
        };
        assert_eq!(ok(""), Output::stdout(String::new()));
        assert_eq!(ok("Recorded."), Output::stdout("Recorded.\n".to_owned()));
        assert_eq!(ok("a\nb\n"), Output::stdout("a\nb\n".to_owned()));
        assert_eq!(ok("a\n\n"), Output::stdout("a\n\n".to_owned()));
    }

    #[test]
    fn a_refusal_prints_code_details_and_hint() {
        let output = render(
            "add_finding",
            Response::Refused {
                code: Code::InvalidInput,
                message: "the input does not fit the tool's schema".to_owned(),
                details: strings(&["/line: must be >= 1, got 0", "/problem: required, missing"]),
                hint: Some(
                    "call again with the input fixed; `wfa tool` alone lists each tool's flags"
                        .to_owned(),
                ),
            },
        );
        assert_eq!(output.exit, Exit::Refused);
        assert_eq!(output.stdout, "");
        assert_eq!(
            output.stderr,
            "wfa: add_finding: refused (invalid-input): the input does not fit the tool's schema
  /line: must be >= 1, got 0
  /problem: required, missing

hint: call again with the input fixed; `wfa tool` alone lists each tool's flags
"
        );
    }

    #[test]
    fn a_refusal_without_details_or_hint_is_one_line() {
        let output = render(
            "t3",
            Response::Refused {
                code: Code::ClosedTurn,
                message: "turn t3 is answered".to_owned(),
                details: Vec::new(),
                hint: None,
            },
        );
        assert_eq!(output.exit, Exit::Refused);
        assert_eq!(
            output.stderr,
            "wfa: t3: refused (closed-turn): turn t3 is answered\n"
        );
    }

    #[test]
    fn a_failure_exits_1_and_indents_a_multi_line_message() {
        let output = render(
            "add_finding",
            Response::Failed {
                code: Code::HandlerFailed,
                message: "src/a.ts:3 is already recorded\nsee list_findings\n".to_owned(),
                hint: Some("record another line".to_owned()),
            },
        );
        assert_eq!(output.exit, Exit::Failed);
        assert_eq!(
            output.stderr,
            "wfa: add_finding: failed (handler-failed): src/a.ts:3 is already recorded
  see list_findings

hint: record another line
"
        );
        let empty = render(
            "x",
            Response::Failed {
                code: Code::TimedOut,
                message: String::new(),
                hint: None,
            },
        );
        assert_eq!(empty.stderr, "wfa: x: failed (timed-out): \n");
    }

    #[test]
    fn a_local_refusal_looks_like_the_run_s() {
        let output = stdin::StdinError::TooLarge.render("label_item");
        assert_eq!(output.exit, Exit::Refused);
        assert_eq!(
            output.stderr,
            format!(
                "wfa: label_item: refused (request-too-large): standard input is over the limit \
                 of {} bytes\n",
                limits::MAX_PAYLOAD_BYTES
            )
        );
        assert_eq!(stdin::StdinError::NotUtf8.render("t3").exit, Exit::Usage);
    }

    #[test]
    fn unreachable_says_where_and_why() {
        let output = Unreachable {
            why: "nothing listens on the socket".to_owned(),
        }
        .render(Path::new("/tmp/awf-1/a1/s.sock"));
        assert_eq!(output.exit, Exit::Unreachable);
        assert!(output.stderr.starts_with(
            "wfa: cannot reach the workflow run at /tmp/awf-1/a1/s.sock: nothing listens on the \
             socket\n\nhint: the run has ended, or this launcher is stale"
        ));
    }

    #[test]
    fn io_errors_read_in_lowercase() {
        let error = io::Error::from(io::ErrorKind::ConnectionRefused);
        assert_eq!(describe(&error), "nothing listens on the socket");
        let error = io::Error::other("Odd failure");
        assert_eq!(describe(&error), "odd failure");
    }
}
