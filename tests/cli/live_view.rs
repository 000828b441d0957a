//! What `awf run` shows while it works and when it ends: in a real terminal (tmux, its pane
//! captured while two agents are mid-call and after), one plain line per change when stderr is
//! not a terminal, nothing but the result with --quiet, agents' stderr with --verbose, and the
//! closing summary with each agent's turns, calls and the failed calls' errors and positions.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::util::{assert_has, assert_lacks, awf_bin, stable_ids, TempProject};

/// A tmux server of the test's own (its own socket), killed when dropped.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn start(dir: &Path, command: &str) -> Tmux {
        // One server per test: tests run in parallel, each in a temporary folder of its own.
        let folder = dir
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        let socket = format!("awf-test-{}-{folder}", std::process::id());
        let tmux = Tmux { socket };
        let started = tmux
            .command()
            .args(["new-session", "-d", "-x", "120", "-y", "30", "-c"])
            .arg(dir)
            .arg(command)
            .status()
            .unwrap_or_else(|e| {
                panic!(
                    "cannot start tmux: {e}\n\nhint: install it (Debian: apt-get install -y tmux)"
                )
            });
        assert!(started.success(), "tmux new-session failed");
        tmux
    }

    fn command(&self) -> Command {
        let mut command = Command::new("tmux");
        command
            .args(["-L", &self.socket])
            .env("TERM", "xterm-256color");
        command
    }

    /// What the pane shows now.
    fn pane(&self) -> String {
        let out = self
            .command()
            .args(["capture-pane", "-p", "-t", "0"])
            .output()
            .expect("tmux capture-pane");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Waits (bounded) until the pane shows what `wanted` looks for; the pane as it was then.
    fn wait_until(&self, what: &str, wanted: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let pane = self.pane();
            if wanted(&pane) {
                return pane;
            }
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "the pane never showed {what}:\n{pane}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.command().arg("kill-server").status();
    }
}

#[test]
fn a_terminal_shows_each_agent_live_then_the_summary() {
    let project = TempProject::new();
    project.copy_fixture("live-view");
    // The pane keeps its last screen: the shell waits after awf exits.
    let command = format!(
        "{} run wf.ts; echo \"[exit $?]\"; sleep 60",
        awf_bin().display()
    );
    let tmux = Tmux::start(&project.path(), &command);
    let during = tmux.wait_until("both agents calling", |pane| {
        pane.matches("calling tool slow").count() == 2
    });
    assert_has(&during, "both agents open count=2");
    let rows: Vec<&str> = during
        .lines()
        .filter(|l| l.contains("calling tool slow"))
        .collect();
    assert_eq!(
        rows.len(),
        2,
        "a row per agent, redrawn in place:\n{during}"
    );
    assert!(
        rows[0].starts_with("alpha ") && rows[1].starts_with("beta "),
        "{during}"
    );

    std::fs::write(project.path().join("go"), "").unwrap();
    let after = tmux.wait_until("awf's exit", |pane| pane.contains("[exit "));
    assert_has(&after, "[exit 0]");
    assert_lacks(&after, "calling tool slow");
    assert_has(&after, "awf: run completed in ");
    assert_has(
        &after,
        "  alpha (command agent.sh): 1 turn (answered); tools 1 ok, 0 refused, 0 failed",
    );
    assert_has(&after, "  beta (command agent.sh): 1 turn (answered)");
    assert_has(&after, "`awf logs ");
    assert_has(&after, "\"answered\"");
}

/// Off a terminal: one plain line per change, no escape codes.
#[test]
fn off_a_terminal_each_change_is_one_plain_line() {
    let project = TempProject::new();
    project.copy_fixture("live-view");
    project.file("go", "");
    let ran = project.awf(&["run", "wf.ts"]).run();
    ran.assert_success();
    assert_lacks(&ran.stderr, "\u{1b}[");
    for line in [
        "alpha (command agent.sh): open",
        "alpha: working on t",
        "alpha: calling tool slow",
        "both agents open count=2",
        "awf: run completed in ",
    ] {
        assert_has(&ran.stderr, line);
    }
    assert_lacks(&ran.stderr, "is done");
}

#[test]
fn quiet_shows_only_the_result_and_verbose_shows_what_agents_print() {
    let project = TempProject::new();
    project.copy_fixture("live-view");
    project.file("go", "");
    let quiet = project.awf(&["run", "--quiet", "wf.ts"]).run();
    quiet.assert_success();
    assert_eq!(quiet.stderr, "", "--quiet prints nothing but errors");
    assert_eq!(quiet.json(), serde_json::json!(["answered", "answered"]));
    let verbose = project.awf(&["run", "--verbose", "wf.ts"]).run();
    verbose.assert_success();
    assert_has(&verbose.stderr, "alpha stderr: agent alpha is done");
    assert_has(&verbose.stderr, "beta stderr: agent beta is done");
}

/// A handler that throws: the summary names the call, its error and where it threw.
#[test]
fn the_summary_lists_failed_calls_with_their_error_and_position() {
    let project = TempProject::new();
    project
        .script(
            "agent.sh",
            "#!/bin/sh\ncat > /dev/null\n\"$AWF_WFA\" tool boom\n\"$AWF_WFA\" result \"$AWF_TURN\" <<'WF_JSON'\nok\nWF_JSON\n",
        )
        .file(
            "wf.ts",
            r#"export default defineWorkflow({
  meta: { name: "boom", description: "A tool that throws." },
  async run(wf) {
    const agent = await wf.agents.open({
      key: "a",
      runtime: { command: ["./agent.sh"] },
      tools: {
        boom: tool({
          description: "Throws.",
          handler: () => {
            throw new Error("the disk is full");
          },
        }),
      },
    });
    return (await agent.run({ prompt: "Go." })).outcome.kind;
  },
});
"#,
        );
    let ran = project.awf(&["run", "wf.ts"]).run();
    ran.assert_success();
    assert_has(
        &ran.stderr,
        "  a (command agent.sh): 1 turn (answered); tools 0 ok, 0 refused, 1 failed",
    );
    // The throw is on line 11 (QuickJS puts the column inside the throw statement).
    assert_has(
        &ran.stderr,
        "    ✗ boom handler-failed: the disk is full (at wf.ts:11:",
    );
}

/// A handler whose value is not JSON: the summary places it at the handler, with the fix.
#[test]
fn the_summary_places_a_result_that_is_not_json_at_its_handler_with_the_fix() {
    let project = TempProject::new();
    project
        .script(
            "agent.sh",
            "#!/bin/sh\ncat > /dev/null\n\"$AWF_WFA\" tool when\n\"$AWF_WFA\" result \"$AWF_TURN\" <<'WF_JSON'\nok\nWF_JSON\n",
        )
        .file(
            "wf.ts",
            r#"export default defineWorkflow({
  meta: { name: "dates", description: "A tool that returns a Date." },
  async run(wf) {
    const agent = await wf.agents.open({
      key: "a",
      runtime: { command: ["./agent.sh"] },
      tools: {
        when: tool({
          description: "Says when.",
          handler: () => new Date(0) as any,
        }),
      },
    });
    return (await agent.run({ prompt: "Go." })).outcome.kind;
  },
});
"#,
        );
    let ran = project.awf(&["run", "wf.ts"]).run();
    ran.assert_success();
    assert_has(
        &ran.stderr,
        "    ✗ when result-not-json: when returned a value that is not JSON: value is a Date, which is not JSON; fix the handler: return date.toISOString() (handler at wf.ts:10:20)",
    );
}

/// The seconds a row or the header shows (`... 12s`, its last word).
fn clock(line: &str) -> u64 {
    let word = line.split_whitespace().last().unwrap_or_default();
    word.strip_suffix('s')
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no clock at the end of {line:?}"))
}

/// The line of the pane that contains `what`.
fn line_with<'a>(pane: &'a str, what: &str) -> &'a str {
    pane.lines()
        .find(|l| l.contains(what))
        .unwrap_or_else(|| panic!("no line with {what:?}:\n{pane}"))
}

/// A turn's clock runs from the turn's start, through its tool calls; the header above the rows
/// gives the run's time and totals.
#[test]
fn a_turn_s_clock_runs_from_its_start_and_a_header_gives_the_totals() {
    let project = TempProject::new();
    // alpha calls `quick`, works until the test creates go1, then calls `slow` (which waits for
    // go); beta answers at once.
    project
        .script(
            "agent.sh",
            "#!/bin/sh\ncat > /dev/null\nif [ \"$AWF_AGENT\" = alpha ]; then\n  \"$AWF_WFA\" tool quick > /dev/null\n  while [ ! -f go1 ]; do sleep 0.05; done\n  \"$AWF_WFA\" tool slow > /dev/null\nfi\n\"$AWF_WFA\" result \"$AWF_TURN\" <<'WF_JSON'\ndone\nWF_JSON\n",
        )
        .file(
            "wf.ts",
            r#"import { existsSync } from "node:fs";

export default defineWorkflow({
  meta: { name: "clock", description: "A long turn with tool calls." },
  async run(wf) {
    const tools = {
      quick: tool({ description: "Answers at once.", handler: () => "ok" }),
      slow: tool({
        description: "Waits for the go file.",
        timeout: "2m",
        handler: () =>
          new Promise<string>((resolve) => {
            const timer = setInterval(() => {
              if (existsSync("go")) {
                clearInterval(timer);
                resolve("went");
              }
            }, 20);
          }),
      }),
    };
    const [a, b] = await Promise.all([
      wf.agents.open({ key: "alpha", runtime: { command: ["./agent.sh"] }, tools }),
      wf.agents.open({ key: "beta", runtime: { command: ["./agent.sh"] } }),
    ]);
    const outcomes = await Promise.all([a.run({ prompt: "Work." }), b.run({ prompt: "Answer." })]);
    return outcomes.map(({ outcome }) => outcome.kind);
  },
});
"#,
        );
    let command = format!(
        "{} run wf.ts; echo \"[exit $?]\"; sleep 60",
        awf_bin().display()
    );
    let tmux = Tmux::start(&project.path(), &command);
    let working = tmux.wait_until("alpha working for 3s after a call", |pane| {
        pane.lines().any(|l| {
            l.starts_with("alpha ")
                && l.contains("working on t")
                && l.contains(" · 1 call ")
                && clock(l) >= 3
        })
    });
    let header = line_with(&working, "run clock · ");
    assert!(
        header.ends_with(" · 2 agents: 1 working, 1 done · 1 call · 0 tokens"),
        "{working}"
    );
    let run_clock: u64 = header
        .split(" · ")
        .nth(1)
        .and_then(|t| t.strip_suffix('s'))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no run clock in {header:?}"));
    // The run started before the turn; each line's clock is rounded when drawn.
    let turn_clock = clock(line_with(&working, "working on t"));
    assert!(run_clock + 1 >= turn_clock, "{working}");

    std::fs::write(project.path().join("go1"), "").unwrap();
    let calling = tmux.wait_until("alpha calling slow", |pane| {
        pane.contains("calling tool slow")
    });
    let row = line_with(&calling, "calling tool slow");
    assert!(
        clock(row) >= 3,
        "the turn's clock went on from its start:\n{calling}"
    );

    std::fs::write(project.path().join("go"), "").unwrap();
    let after = tmux.wait_until("awf's exit", |pane| pane.contains("[exit "));
    assert_has(&after, "[exit 0]");
    assert_lacks(&after, "run clock · ");
}

/// Off a terminal, a turn's ending is written whole; the summary gives every failed turn's
/// reason: the exit code and the last line its agent wrote on stderr.
#[test]
fn failed_turns_are_written_whole_and_summed_up_with_their_reason() {
    let project = TempProject::new();
    let long = format!("the model server refused the request: {}", "x".repeat(90));
    project
        .script(
            "agent.sh",
            &format!(
                "#!/bin/sh\ncat > /dev/null\ncase \"$AWF_AGENT\" in\n  fails) echo 'starting' >&2; echo '{long}' >&2; exit 3 ;;\n  silent) echo 'nothing to say' >&2; exit 0 ;;\n  slow) echo 'waiting for the network' >&2; exec sleep 30 ;;\nesac\n"
            ),
        )
        .file(
            "wf.ts",
            r#"export default defineWorkflow({
  meta: { name: "failing", description: "Turns that end without an answer." },
  async run(wf) {
    const agents = await Promise.all(
      ["fails", "silent", "slow"].map((key) => wf.agents.open({ key, runtime: { command: ["./agent.sh"] } })),
    );
    const outcomes = await Promise.all(agents.map((agent) => agent.run({ prompt: "Go.", timeout: "1s" })));
    return outcomes.map(({ outcome }) => outcome.kind);
  },
});
"#,
        );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_eq!(
        ran.assert_success().json(),
        serde_json::json!(["failed", "unanswered", "timed-out"])
    );
    let stderr = stable_ids(&ran.stderr);
    assert_has(
        &stderr,
        &format!("fails: t1 failed: agent.sh exited with code 3: starting\\n{long}\n"),
    );
    assert_lacks(&stderr, "…");
    assert_has(
        &stderr,
        &format!(
            "    ✗ t1 failed: agent.sh exited with code 3: starting; last stderr line: {long}\n"
        ),
    );
    assert_has(
        &stderr,
        "    ✗ t2 unanswered: the agent's process exited with code 0 without an accepted answer, and again after a check-in; last stderr line: nothing to say\n",
    );
    assert_has(
        &stderr,
        "    ✗ t3 timed-out: the turn's deadline passed before an answer was accepted; last stderr line: waiting for the network\n",
    );
}

/// A sandboxed agent's row is marked with its sandbox's provider and its worktree's branch.
#[test]
fn a_sandboxed_worktree_agents_row_shows_its_box_and_branch() {
    let project = TempProject::new();
    project
        .script(
            "agent.sh",
            "#!/bin/sh\ncat > /dev/null\nwhile [ ! -e go ]; do sleep 0.05; done\n\"$AWF_WFA\" result \"$AWF_TURN\" <<'WF_JSON'\nok\nWF_JSON\n",
        )
        .file(
            "wf.ts",
            r#"export default defineWorkflow({
  meta: { name: "boxed", description: "A boxed agent in a worktree." },
  async run(wf) {
    const a = await wf.agents.open({ key: "a", runtime: { command: ["./agent.sh"] }, workspace: { worktree: { branch: "fix/a" } }, sandbox: {} });
    return (await a.run({ prompt: "Wait." })).outcome.kind;
  },
});
"#,
        );
    for args in [
        &["init", "--quiet", "-b", "main"][..],
        &["add", "."],
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "--quiet",
            "-m",
            "first",
        ],
    ] {
        let done = Command::new("git")
            .arg("-C")
            .arg(project.path())
            .args(args)
            .status()
            .unwrap();
        assert!(done.success(), "git {args:?}");
    }
    let command = format!(
        "{} run wf.ts; echo \"[exit $?]\"; sleep 60",
        awf_bin().display()
    );
    let tmux = Tmux::start(&project.path(), &command);
    let during = tmux.wait_until("the boxed agent working", |pane| {
        pane.contains("working on")
    });
    assert_has(&during, "a [bwrap] on fix/a");
    let runs = project.path().join(".awf/runs/boxed");
    let run = std::fs::read_dir(&runs)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    std::fs::write(run.join("worktrees/a/go"), "").unwrap();
    let after = tmux.wait_until("awf's exit", |pane| pane.contains("[exit "));
    assert_has(&after, "[exit 0]");
}

/// An agent's row shows its labels (`agents.open({ labels })`), and the turn under way by its
/// label (`agent.run({ label })`) instead of its id.
#[test]
fn a_row_shows_the_agents_labels_and_the_turns_label() {
    let project = TempProject::new();
    project
        .script(
            "agent.sh",
            "#!/bin/sh\ncat > /dev/null\nwhile [ ! -e go ]; do sleep 0.05; done\n\"$AWF_WFA\" result \"$AWF_TURN\" <<'WF_JSON'\nok\nWF_JSON\n",
        )
        .file(
            "wf.ts",
            r#"export default defineWorkflow({
  meta: { name: "labelled", description: "A labelled agent on a labelled turn." },
  async run(wf) {
    const a = await wf.agents.open({ key: "a", runtime: { command: ["./agent.sh"] }, labels: { team: "red", tier: 1 } });
    return (await a.run({ prompt: "Wait.", label: "review src/" })).outcome.kind;
  },
});
"#,
        );
    let command = format!(
        "{} run wf.ts; echo \"[exit $?]\"; sleep 60",
        awf_bin().display()
    );
    let tmux = Tmux::start(&project.path(), &command);
    let during = tmux.wait_until("the labelled agent working", |pane| {
        pane.contains("working on")
    });
    let row = line_with(&during, "working on");
    assert!(
        row.starts_with("a {team=red tier=1} "),
        "the row starts with the agent and its labels:\n{during}"
    );
    assert_has(row, "working on review src/");
    assert_lacks(row, "working on t1");
    std::fs::write(project.path().join("go"), "").unwrap();
    let after = tmux.wait_until("awf's exit", |pane| pane.contains("[exit "));
    assert_has(&after, "[exit 0]");
}
