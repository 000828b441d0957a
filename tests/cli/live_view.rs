//! What `awf run` shows while it works and when it ends: in a real terminal (tmux, its pane
//! captured while two agents are mid-call and after), one plain line per change when stderr is
//! not a terminal, nothing but the result with --quiet, agents' stderr with --verbose, and the
//! closing summary with each agent's turns, calls and the failed calls' errors and positions.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::util::{assert_has, assert_lacks, awf_bin, TempProject};

/// A tmux server of the test's own (its own socket), killed when dropped.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn start(dir: &Path, command: &str) -> Tmux {
        let socket = format!(
            "awf-test-{}-{}",
            std::process::id(),
            dir.display().to_string().len()
        );
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
