//! What awf guarantees when things go wrong (docs/reliability.md): agents and everything they
//! start die with their turn and with awf (`kill -9` too), with cgroups and without; a later awf
//! cleans up a dead run; only an agent's own processes may use its socket; one agent cannot
//! starve the run; durations and sizes are checked at the edge.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

use crate::util::{assert_has, awf_bin, fixture, process_running, wait_for_file, TempProject};

const BOUND: Duration = Duration::from_secs(20);

/// A workflow with one agent `a` running `./agent.sh`, one text turn, and a tool `slow` whose
/// handler waits until aborted.
const ONE_AGENT: &str = r#"export default defineWorkflow({
  meta: { name: "t", description: "One agent." },
  async run(wf) {
    const slow = tool({ description: "Wait.", timeout: false, handler: (_, call) => new Promise((resolve) => call.signal.addEventListener("abort", () => resolve("stopped"))) });
    const a = await wf.agents.open({ key: "a", runtime: { command: ["./agent.sh"] }, tools: { slow } });
    return (await a.run({ prompt: "Go." })).outcome;
  },
});
"#;

fn start_awf(project: &TempProject, extra_env: &[(&str, &str)]) -> Child {
    let mut command = Command::new(awf_bin());
    command
        .args(["run", "wf.ts", "--timeout", "120s"])
        .current_dir(project.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in extra_env {
        command.env(k, v);
    }
    command.spawn().unwrap()
}

fn pid_in(project: &TempProject, file: &str) -> i32 {
    wait_for_file(&project.path().join(file), BOUND);
    let mut text = String::new();
    while !text.ends_with('\n') {
        text = project.read(file);
    }
    text.trim().parse().unwrap()
}

/// Waits (bounded) for `pid` to be gone.
fn wait_gone(pid: i32, what: &str) {
    let start = std::time::Instant::now();
    while process_running(pid) {
        assert!(start.elapsed() < BOUND, "{what} (pid {pid}) still runs");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// An agent that starts a `setsid` grandchild, writes both pids, then does `then`.
fn agent_with_grandchild(then: &str) -> String {
    format!(
        "#!/bin/sh\ncat > /dev/null\nsetsid sh -c 'echo $$ > gc.tmp; mv gc.tmp gc.pid; exec sleep 300' &\necho $$ > agent.tmp; mv agent.tmp agent.pid\nwhile [ ! -e gc.pid ]; do sleep 0.01; done\n{then}\n"
    )
}

fn setsid_grandchild_dies_with_its_turn(tracking: &str) {
    let project = TempProject::new();
    project
        .script(
            "agent.sh",
            &agent_with_grandchild("\"$AWF_WFA\" result \"$AWF_TURN\" <<'WF_JSON'\ndone\nWF_JSON"),
        )
        .file("wf.ts", ONE_AGENT);
    let ran = project
        .awf(&["run", "wf.ts"])
        .env("AWF_PROCESS_TRACKING", tracking)
        .run();
    assert_eq!(ran.assert_success().json()["value"], "done");
    let grandchild = pid_in(&project, "gc.pid");
    wait_gone(grandchild, "the setsid grandchild");
    let run: Value = serde_json::from_str(
        &std::fs::read_to_string(project.only_run_dir("t").join("run.json")).unwrap(),
    )
    .unwrap();
    let _ = run;
    let opened = &project.events_of("t", "agent-opened")[0];
    assert_eq!(opened["tracking"], tracking, "{opened}");
}

#[test]
fn a_setsid_grandchild_dies_with_its_turn_in_a_cgroup() {
    let cgroup_ok = Path::new("/proc/self/cgroup").exists();
    assert!(
        cgroup_ok,
        "this test needs cgroup v2 (Linux 5.2+); hint: run as root or in a delegated user slice"
    );
    setsid_grandchild_dies_with_its_turn("cgroup");
}

#[test]
fn a_setsid_grandchild_dies_with_its_turn_without_a_cgroup() {
    setsid_grandchild_dies_with_its_turn("subreaper");
}

fn kill_9_leaves_nothing(tracking: &str) {
    let project = TempProject::new();
    project
        .script("agent.sh", &agent_with_grandchild("sleep 300"))
        .file("wf.ts", ONE_AGENT);
    let mut awf = start_awf(&project, &[("AWF_PROCESS_TRACKING", tracking)]);
    let agent = pid_in(&project, "agent.pid");
    let grandchild = pid_in(&project, "gc.pid");
    let launcher = project.events_of("t", "agent-opened")[0]["launcher"]
        .as_str()
        .unwrap()
        .to_string();
    let control = PathBuf::from(&launcher)
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .to_path_buf();
    // SAFETY: plain syscall on our own child.
    unsafe { libc::kill(awf.id() as i32, libc::SIGKILL) };
    awf.wait().unwrap();
    wait_gone(agent, "the agent");
    wait_gone(grandchild, "the agent's setsid grandchild");
    // The control folder is left until a later awf sweeps it: `awf logs` here, or the awf of
    // another test running beside this one (any awf sweeps every dead run), so it is not
    // looked for before the sweep.
    // A later awf: `awf logs` sweeps dead runs and shows this one interrupted.
    let logs = project.awf(&["logs"]).run();
    logs.assert_success();
    assert_has(
        &logs.stdout,
        "run ended interrupted: awf ended without closing the run",
    );
    assert!(!control.exists(), "{} was not removed", control.display());
    let output: Value = serde_json::from_str(&project.read(&format!(
        ".awf/runs/t/{}/output.json",
        project.only_run_dir("t").file_name().unwrap().to_str().unwrap()
    )))
    .unwrap();
    assert_eq!(output["outcome"], "interrupted");
}

#[test]
fn kill_9_of_awf_kills_its_agents_and_grandchildren_in_a_cgroup() {
    kill_9_leaves_nothing("cgroup");
}

#[test]
fn kill_9_of_awf_kills_its_agents_and_grandchildren_without_a_cgroup() {
    kill_9_leaves_nothing("subreaper");
}

/// Two agents; `a` writes its launcher's path, `b` tries it (and a's socket by path) and
/// reports how it went, then both answer.
#[test]
fn an_agent_cannot_use_another_agents_launcher_or_socket() {
    let project = TempProject::new();
    project
        .script(
            "a.sh",
            "#!/bin/sh\ncat > /dev/null\nprintf %s \"$AWF_WFA\" > a.tmp; mv a.tmp a.launcher\nwhile [ ! -e b.done ]; do sleep 0.02; done\n\"$AWF_WFA\" result \"$AWF_TURN\" <<'WF_JSON'\na\nWF_JSON\n",
        )
        .script(
            "b.sh",
            "#!/bin/sh\ncat > /dev/null\nwhile [ ! -e a.launcher ]; do sleep 0.02; done\nA=$(cat a.launcher)\n\"$A\" tool secret > b.out 2>&1; echo \"exit=$?\" >> b.out\n\"$A\" result t1 <<'WF_JSON' >> b.out 2>&1\nforged\nWF_JSON\necho \"exit=$?\" >> b.out\n\"$(dirname \"$AWF_WFA\")/wfa\" --channel \"$(dirname \"$A\")/s.sock\" tool secret >> b.out 2>&1; echo \"exit=$?\" >> b.out\ntouch b.done\n\"$AWF_WFA\" result \"$AWF_TURN\" <<'WF_JSON'\nb\nWF_JSON\n",
        )
        .file(
            "wf.ts",
            r#"export default defineWorkflow({
  meta: { name: "t", description: "Two agents." },
  async run(wf) {
    const secret = tool({ description: "A's alone.", handler: (_, call) => `ran for ${call.agent}` });
    const a = await wf.agents.open({ key: "a", runtime: { command: ["./a.sh"] }, tools: { secret } });
    const b = await wf.agents.open({ key: "b", runtime: { command: ["./b.sh"] } });
    const [ra, rb] = await Promise.all([a.run({ prompt: "A." }), b.run({ prompt: "B." })]);
    return [ra.outcome.value, rb.outcome.value];
  },
});
"#,
        );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_eq!(ran.assert_success().json(), json!(["a", "b"]));
    let out = project.read("b.out");
    assert_eq!(out.matches("refused (forbidden)").count(), 3, "{out}");
    assert_eq!(out.matches("exit=2").count(), 3, "{out}");
    assert!(project.events_of("t", "tool-called").is_empty());
    assert_eq!(project.events_of("t", "channel-refused").len(), 3);
}

/// A run whose agent waits for `go`; the test reads its launcher's folder.
fn held_run(project: &TempProject) -> (Child, PathBuf) {
    project
        .script(
            "agent.sh",
            "#!/bin/sh\ncat > /dev/null\necho \"$(dirname \"$AWF_WFA\")\" > dir.tmp && mv dir.tmp dir.txt\nwhile [ ! -e go ]; do sleep 0.02; done\n\"$AWF_WFA\" result \"$AWF_TURN\" <<'WF_JSON'\nfine\nWF_JSON\n",
        )
        .file("wf.ts", ONE_AGENT);
    let child = start_awf(project, &[]);
    wait_for_file(&project.path().join("dir.txt"), BOUND);
    (child, PathBuf::from(project.read("dir.txt").trim()))
}

fn finish(project: &TempProject, mut child: Child) -> Value {
    std::fs::write(project.path().join("go"), "").unwrap();
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    assert!(child.wait().unwrap().success());
    serde_json::from_str(&stdout).unwrap()
}

#[test]
fn a_process_outside_the_agent_and_another_user_are_refused() {
    let project = TempProject::new();
    let (child, dir) = held_run(&project);
    let wfa = dir.join("wfa");
    // This test process is not the agent's: refused before anything runs.
    let outside = Command::new(&wfa).args(["tool", "slow"]).output().unwrap();
    assert_eq!(outside.status.code(), Some(2));
    assert_has(
        &String::from_utf8_lossy(&outside.stderr),
        "refused (forbidden)",
    );
    // Another user cannot reach the folder at all (0700).
    let setpriv = crate::util::which("setpriv").expect(
        "setpriv is not on PATH; hint: apt-get install -y util-linux (it runs a command as another uid)",
    );
    let nobody = |socket_open: bool| {
        let mut command = Command::new(&setpriv);
        command.args(["--reuid=65534", "--regid=65534", "--clear-groups"]);
        command.arg(&wfa).args(["tool", "slow"]);
        let _ = socket_open;
        command.output().unwrap()
    };
    let other = nobody(false);
    assert_eq!(other.status.code(), Some(4), "{other:?}");
    assert_has(&String::from_utf8_lossy(&other.stderr), "permission denied");
    // With the folder opened up by hand (as root), the kernel's peer check still refuses it.
    use std::os::unix::fs::PermissionsExt;
    let open = |path: &Path, mode| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap()
    };
    open(dir.parent().unwrap(), 0o755);
    open(&dir, 0o755);
    open(&dir.join("s.sock"), 0o777);
    let other = nobody(true);
    assert_eq!(other.status.code(), Some(2), "{other:?}");
    assert_has(
        &String::from_utf8_lossy(&other.stderr),
        "a process of another user (uid 65534)",
    );
    assert_eq!(finish(&project, child)["value"], "fine");
    // After the run, its launcher is gone, and its socket reaches nothing.
    assert!(!wfa.exists());
    let stale = Command::new(crate::util::wfa_bin())
        .arg("--channel")
        .arg(dir.join("s.sock"))
        .args(["tool", "slow"])
        .output()
        .unwrap();
    assert_eq!(stale.status.code(), Some(4));
}

#[test]
fn a_guessed_socket_path_is_refused_and_turn_ids_are_not_guessable() {
    let project = TempProject::new();
    let (child, dir) = held_run(&project);
    let name = dir.file_name().unwrap().to_str().unwrap().to_string();
    assert_eq!(name.len(), 12, "{name}");
    let turn = project.events_of("t", "turn-started")[0]["turn"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(turn.starts_with("t1-") && turn.len() == 9, "{turn}");
    let guessed = Command::new(crate::util::wfa_bin())
        .arg("--channel")
        .arg(dir.join("s.sock"))
        .args(["result", &turn])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(guessed.status.code(), Some(2));
    assert_has(
        &String::from_utf8_lossy(&guessed.stderr),
        "refused (forbidden)",
    );
    assert_eq!(finish(&project, child)["value"], "fine");
}

/// One agent holding connections or unfinished bytes: `hold.js` opens them, and the agent's next
/// `wfa` call must be refused `busy`. The server drops a connection that has not sent its
/// request line within `REQUEST_READ_TIMEOUT` (10 s), which frees what it held; on a loaded
/// machine a phase can take that long, and then its `wfa` call was (rightly) served. Such an
/// attempt is discarded, not judged: each phase is tried until one attempt ends within 8 s of
/// its connections opening (at most 4 tries), and only those attempts are asserted on.
const HOLDING_AGENT: &str = r#"#!/bin/sh
cat > /dev/null
S="$(dirname "$AWF_WFA")/s.sock"
now() { date +%s%N; }
# phase NAME ARGS...: hold.js with ARGS, then one wfa call (the rest of the phase's command
# in $CALL), written to NAME.out with its exit code and how long the connections had been held.
phase() {
  name=$1; shift
  for try in 1 2 3 4; do
    rm -f "$S.held"
    started=$(now)
    node HOLD "$S" "$@" &
    holder=$!
    waited=0
    while [ ! -e "$S.held" ] && [ $waited -lt 1500 ]; do sleep 0.02; waited=$((waited + 1)); done
    sh -c "$CALL" > "$name.out" 2>&1; echo "exit=$?" >> "$name.out"
    held_ms=$(( ($(now) - started) / 1000000 ))
    kill $holder; wait $holder 2>/dev/null
    echo "held_ms=$held_ms try=$try" >> "$name.out"
    [ $held_ms -lt 8000 ] && return
    sleep 1
  done
}
CALL='"$AWF_WFA" tool' phase conn 40 8
CALL='head -c 100000 /dev/zero | tr "\0" a | timeout 20 "$AWF_WFA" tool served' phase bytes 4 1 2090000
"$AWF_WFA" result "$AWF_TURN" <<'WF_JSON'
fine
WF_JSON
"#;

#[test]
fn one_agent_cannot_hold_the_runs_connections_or_memory() {
    let project = TempProject::new();
    let hold = fixture("helpers/hold.js");
    project
        .script(
            "agent.sh",
            &HOLDING_AGENT.replace("HOLD", &hold.display().to_string()),
        )
        .file(
            "wf.ts",
            r#"export default defineWorkflow({
  meta: { name: "t", description: "One agent holding connections." },
  async run(wf) {
    const served = tool({ description: "Answers at once.", handler: () => "served" });
    const a = await wf.agents.open({ key: "a", runtime: { command: ["./agent.sh"] }, tools: { served } });
    return (await a.run({ prompt: "Go." })).outcome;
  },
});
"#,
        );
    let ran = project
        .awf(&["run", "wf.ts"])
        .bound(Duration::from_secs(240))
        .run();
    assert_eq!(ran.assert_success().json()["value"], "fine");
    for (file, refusal) in [
        (
            "conn.out",
            "refused (busy): this agent's socket already serves 32 connections",
        ),
        (
            "bytes.out",
            "refused (busy): this agent's connections hold 6 MiB of unfinished requests",
        ),
    ] {
        let out = project.read(file);
        let held_ms: u64 = out
            .split("held_ms=")
            .nth(1)
            .and_then(|rest| rest.split(' ').next())
            .and_then(|ms| ms.parse().ok())
            .unwrap_or_else(|| panic!("{file} says how long the connections were held: {out}"));
        assert!(
            held_ms < 8000,
            "no attempt held its connections for less than 8 s (the machine is too loaded to judge): {out}"
        );
        assert_has(&out, refusal);
    }
}

#[test]
fn the_soft_open_file_limit_is_raised_at_start() {
    let project = TempProject::new();
    project
        .script(
            "agent.sh",
            "#!/bin/sh\ncat > /dev/null\ngrep 'Max open files' /proc/$PPID/limits > /dev/null\nawk '/Max open files/ {print $4, $5}' /proc/$(cat /proc/$PPID/stat | cut -d' ' -f4)/limits > limits.txt\n\"$AWF_WFA\" result \"$AWF_TURN\" <<'WF_JSON'\nok\nWF_JSON\n",
        )
        .file("wf.ts", ONE_AGENT);
    let ran = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -Sn 256; exec {} run wf.ts",
            awf_bin().display()
        ))
        .current_dir(project.path())
        .output()
        .unwrap();
    assert!(ran.status.success(), "{ran:?}");
    let limits = project.read("limits.txt");
    let (soft, hard) = limits.trim().split_once(' ').unwrap();
    assert_eq!(soft, hard, "awf's soft limit was not raised: {limits}");
}

#[test]
fn a_run_past_its_events_cap_says_so_and_keeps_working() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "t", description: "Logs a lot." },
  async run(wf) {
    for (let i = 0; i < 200; i++) wf.log(`line ${i} ${"x".repeat(50)}`);
    return "still here";
  },
});
"#,
    );
    let ran = project
        .awf(&["run", "wf.ts", "--json"])
        .env("AWF_MAX_EVENTS_BYTES", "4000")
        .run();
    let record = ran.assert_success().json();
    assert_eq!(record["value"], "still here");
    let dropped = record["eventsDropped"].as_u64().unwrap();
    assert!(dropped > 100, "{record}");
    let events = project.events("t");
    assert_eq!(
        events
            .iter()
            .filter(|e| e["event"] == "events-capped")
            .count(),
        1
    );
    assert_eq!(events.last().unwrap()["event"], "run-ended");
    let logs = project.awf(&["logs"]).run();
    assert_has(&logs.stdout, "events file reached its cap of 3.9 KiB");
}

#[test]
fn run_folders_and_records_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let project = TempProject::new();
    project.file(
        "wf.ts",
        "export default defineWorkflow({ meta: { name: \"t\", description: \"d\" }, run: () => 1 });\n",
    );
    project.awf(&["run", "wf.ts"]).run().assert_success();
    let dir = project.only_run_dir("t");
    let mode = |p: PathBuf| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(dir.clone()), 0o700);
    assert_eq!(mode(dir.join("attempts")), 0o700);
    for file in ["run.json", "events.jsonl", "output.json", "attempts/1.json"] {
        assert_eq!(mode(dir.join(file)), 0o600, "{file}");
    }
}

#[test]
fn an_agent_can_be_kept_from_inheriting_credentials() {
    let project = TempProject::new();
    project
        .script(
            "agent.sh",
            "#!/bin/sh\ncat > /dev/null\nprintf '%s|%s|%s|%s\\n' \"${SECRET_TOKEN:-none}\" \"${PLAIN:-none}\" \"${KEEP_ME:-none}\" \"${PATH:+path}\" >> env.txt\n\"$AWF_WFA\" result \"$AWF_TURN\" <<'WF_JSON'\nok\nWF_JSON\n",
        )
        .file(
            "wf.ts",
            r#"export default defineWorkflow({
  meta: { name: "t", description: "Env." },
  async run(wf) {
    const deny = await wf.agents.open({ key: "deny", runtime: { command: ["./agent.sh"] }, env: { withhold: ["SECRET_*"] } });
    await deny.run({ prompt: "1" });
    const only = await wf.agents.open({ key: "only", runtime: { command: ["./agent.sh"] }, env: { inherit: ["KEEP_ME"] } });
    await only.run({ prompt: "2" });
    return "ok";
  },
});
"#,
        );
    project
        .awf(&["run", "wf.ts"])
        .env("SECRET_TOKEN", "s3cret")
        .env("PLAIN", "plain")
        .env("KEEP_ME", "kept")
        .run()
        .assert_success();
    assert_eq!(
        project.read("env.txt"),
        "none|plain|kept|path\nnone|none|kept|path\n"
    );
}

#[test]
fn durations_out_of_range_are_usage_errors() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        "export default defineWorkflow({ meta: { name: \"t\", description: \"d\" }, run: () => 1 });\n",
    );
    for timeout in ["4000000000000000h", "0s", "0"] {
        let ran = project.awf(&["run", "wf.ts", "--timeout", timeout]).run();
        assert_eq!(ran.code, Some(2), "{timeout}: {}", ran.stderr);
        assert_has(&ran.stderr, "awf: --timeout: ");
    }
    // One number and one unit, or parts from the largest unit to the smallest, each once.
    for (timeout, why) in [
        (
            "1h1h",
            "a unit comes twice or out of order; give each unit once, the largest first",
        ),
        (
            "30m1h",
            "a unit comes twice or out of order; give each unit once, the largest first",
        ),
        (" 1s", "it has a space; write it without"),
    ] {
        let ran = project.awf(&["run", "wf.ts", "--timeout", timeout]).run();
        assert_eq!(ran.code, Some(2), "{timeout}: {}", ran.stderr);
        assert_has(
            &ran.stderr,
            &format!("awf: --timeout: \"{timeout}\" is not a duration: {why}"),
        );
    }
    assert_eq!(
        project
            .awf(&["run", "wf.ts", "--timeout", "1h30m"])
            .run()
            .code,
        Some(0)
    );
}

#[test]
fn a_timeout_that_is_not_a_number_and_a_tool_named_proto_are_refused_by_their_rules() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "t", description: "d" },
  async run(wf) {
    const out = [];
    const attempt = async (work) => { try { await work(); out.push("accepted"); } catch (e) { out.push(e.message); } };
    const t = tool({ description: "x", timeout: NaN, handler: () => 1 });
    await attempt(() => wf.agents.open({ key: "a", runtime: { command: ["sh"] }, tools: { t } }));
    const proto = tool({ description: "x", handler: () => 1 });
    await attempt(() => wf.agents.open({ key: "b", runtime: { command: ["sh"] }, tools: { ["__proto__"]: proto } }));
    const c = await wf.agents.open({ key: "c", runtime: { command: ["sh"] } });
    await attempt(() => c.run({ prompt: "x", timeout: NaN }));
    await attempt(() => wf.receive({ timeout: Infinity }));
    return out;
  },
});
"#,
    );
    let ran = project.awf(&["run", "wf.ts"]).run();
    let said = ran.assert_success().json_strings();
    let must = "timeout must be a positive number of milliseconds or a duration such as \"30s\" or \"20m\"";
    assert_eq!(
        said[0],
        format!("agent \"a\": tool \"t\": {must}, or false, not NaN")
    );
    assert_eq!(
        said[1],
        "agent \"b\": tool \"__proto__\": __proto__ sets a JavaScript object's prototype rather than a property, so a tool may not be named so; give it another name (e.g. add_finding)"
    );
    assert_eq!(
        said[2],
        format!("agent \"c\": run({{ timeout }}): {must}, not NaN")
    );
    assert_eq!(
        said[3],
        format!("wf.receive(options?): {must}, not Infinity")
    );
}

#[test]
fn a_tool_timeout_out_of_range_is_refused_when_the_agent_opens() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "t", description: "d" },
  async run(wf) {
    const out = [];
    for (const timeout of ["4000000000000000h", "0s", 1e300]) {
      const t = tool({ description: "x", timeout, handler: () => 1 });
      try { await wf.agents.open({ key: `a${out.length}`, runtime: { command: ["sh"] }, tools: { t } }); out.push("opened"); }
      catch (e) { out.push(e.message); }
    }
    return out;
  },
});
"#,
    );
    let ran = project.awf(&["run", "wf.ts"]).run();
    let said = ran.assert_success().json_strings();
    assert_has(&said[0], "longer than awf takes");
    assert_has(&said[1], "no time at all");
    assert_has(&said[2], "longer than awf takes");
}

#[test]
fn a_call_cut_by_ctrl_c_is_recorded_cancelled() {
    let project = TempProject::new();
    project
        .script(
            "agent.sh",
            "#!/bin/sh\ncat > /dev/null\n\"$AWF_WFA\" tool slow\n",
        )
        .file("wf.ts", ONE_AGENT);
    let mut awf = start_awf(&project, &[]);
    let events = project.path().join(".awf/runs/t");
    let start = std::time::Instant::now();
    loop {
        let called = std::fs::read_dir(&events)
            .ok()
            .and_then(|mut d| d.next())
            .and_then(|e| std::fs::read_to_string(e.ok()?.path().join("events.jsonl")).ok())
            .is_some_and(|t| t.contains("\"tool-called\""));
        if called {
            break;
        }
        assert!(start.elapsed() < BOUND, "no tool call");
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: plain syscall on our own child.
    unsafe { libc::kill(awf.id() as i32, libc::SIGINT) };
    assert_eq!(awf.wait().unwrap().code(), Some(130));
    let settled = project.events_of("t", "tool-settled");
    assert_eq!(settled[0]["outcome"], "cancelled", "{settled:?}");
}

#[test]
fn wfa_reads_piped_json_from_a_slow_producer_and_refuses_a_silent_pipe() {
    let project = TempProject::new();
    project
        .script(
            "agent.sh",
            "#!/bin/sh\ncat > /dev/null\n(sleep 0.5; echo '{\"labels\": [\"a\"]}') | \"$AWF_WFA\" tool label > slow.out 2>&1; echo \"exit=$?\" >> slow.out\nsleep 8 | \"$AWF_WFA\" tool label > silent.out 2>&1; echo \"exit=$?\" >> silent.out\nsleep 8 | \"$AWF_WFA\" tool plain > plain.out 2>&1; echo \"exit=$?\" >> plain.out\n(sleep 0.5; echo 'the answer') | \"$AWF_WFA\" result \"$AWF_TURN\"\n",
        )
        .file(
            "wf.ts",
            r#"export default defineWorkflow({
  meta: { name: "t", description: "Stdin." },
  async run(wf) {
    const label = tool({ description: "Label.", input: Type.Object({ labels: Type.Array(Type.String()) }), handler: ({ labels }) => `got ${labels.join(",")}` });
    const plain = tool({ description: "No input.", handler: () => "plain" });
    const a = await wf.agents.open({ key: "a", runtime: { command: ["./agent.sh"] }, tools: { label, plain } });
    return (await a.run({ prompt: "Go." })).outcome.value;
  },
});
"#,
        );
    let ran = project
        .awf(&["run", "wf.ts"])
        .bound(Duration::from_secs(60))
        .run();
    assert_eq!(ran.assert_success().json(), "the answer");
    assert_eq!(project.read("slow.out"), "got a\nexit=0\n");
    let silent = project.read("silent.out");
    assert_has(
        &silent,
        "refused (invalid-input): nothing arrived on standard input within 5 s",
    );
    assert_has(&silent, "<<'WF_JSON'");
    assert_has(&silent, "exit=2");
    assert_eq!(project.read("plain.out"), "plain\nexit=0\n");
}

/// A workflow whose `run()` marks that it started, then spins without ever yielding.
const SPINS: &str = r#"import { writeFileSync } from "node:fs";
export default defineWorkflow({
  meta: { name: "t", description: "Spins." },
  async run() {
    writeFileSync("started", "");
    while (true) {}
  },
});
"#;

/// Starts `awf run wf.ts` with `args`, waits until the workflow wrote `started`.
fn start_spinning(project: &TempProject, args: &[&str]) -> Child {
    let child = Command::new(awf_bin())
        .args(["run", "wf.ts"])
        .args(args)
        .current_dir(project.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_file(&project.path().join("started"), BOUND);
    child
}

/// Waits (bounded) for `child` to exit; its code and output.json's outcome.
fn ended(project: &TempProject, mut child: Child) -> (Option<i32>, Value) {
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > BOUND {
            let _ = child.kill();
            panic!("awf did not exit while its workflow spun");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let output = project.only_run_dir("t").join("output.json");
    let record: Value = serde_json::from_str(&std::fs::read_to_string(output).unwrap()).unwrap();
    (status.code(), record)
}

#[test]
fn the_run_deadline_stops_code_that_never_yields() {
    let project = TempProject::new();
    project.file("wf.ts", SPINS);
    let awf = start_spinning(&project, &["--timeout", "1s"]);
    let (code, record) = ended(&project, awf);
    assert_eq!(code, Some(1));
    assert_eq!(record["outcome"], "timed-out", "{record}");
}

#[test]
fn ctrl_c_and_sigterm_stop_code_that_never_yields() {
    for (signal, code) in [(libc::SIGINT, 130), (libc::SIGTERM, 143)] {
        let project = TempProject::new();
        project.file("wf.ts", SPINS);
        let awf = start_spinning(&project, &["--timeout", "1h"]);
        // SAFETY: plain syscall on our own child.
        unsafe { libc::kill(awf.id() as i32, signal) };
        let (exit, record) = ended(&project, awf);
        assert_eq!(exit, Some(code));
        assert_eq!(record["outcome"], "cancelled", "{record}");
    }
}

#[test]
fn a_handler_that_never_yields_is_stopped_at_its_own_budget_and_the_run_goes_on() {
    // Before its first await, and after one: the async context says whose code it is.
    for spin in [
        "() => { while (true) {} }",
        "async () => { await null; while (true) {} }",
    ] {
        a_spinning_handler_is_stopped_at_its_budget(spin);
    }
}

fn a_spinning_handler_is_stopped_at_its_budget(handler: &str) {
    let project = TempProject::new();
    project
        .script(
            "agent.sh",
            "#!/bin/sh\ncat > /dev/null\n\"$AWF_WFA\" tool spin > spin.out 2>&1\n\"$AWF_WFA\" tool ok > ok.out 2>&1\necho done | \"$AWF_WFA\" result \"$AWF_TURN\"\n",
        )
        .file(
            "wf.ts",
            &r#"export default defineWorkflow({
  meta: { name: "t", description: "A handler spins past its budget." },
  async run(wf) {
    const spin = tool({ description: "Spin.", timeout: "1s", handler: HANDLER });
    const ok = tool({ description: "Answer.", handler: async () => "still here" });
    const a = await wf.agents.open({ key: "a", runtime: { command: ["./agent.sh"] }, tools: { spin, ok } });
    return (await a.run({ prompt: "Go." })).outcome;
  },
});
"#
            .replace("HANDLER", handler),
        );
    // Without the stop, the spin holds JS until this deadline ends the run as timed-out.
    let ran = project.awf(&["run", "wf.ts", "--timeout", "30s"]).run();
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert_eq!(ran.json()["answered"], true, "{}", ran.stdout);
    let spin = project.read("spin.out");
    assert_has(&spin, "timed-out");
    assert_has(
        &spin,
        "its handler was running code that never yielded, and was stopped there",
    );
    assert_has(&project.read("ok.out"), "still here");
    let events = std::fs::read_to_string(project.only_run_dir("t").join("events.jsonl")).unwrap();
    let settled: Vec<Value> = events
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["event"] == "tool-settled")
        .collect();
    assert_eq!(settled.len(), 2, "{events}");
    assert_eq!(settled[0]["tool"], "spin");
    assert_eq!(settled[0]["outcome"], "timed-out", "{}", settled[0]);
    assert_eq!(settled[1]["outcome"], "result", "{}", settled[1]);
}
