//! Agents in containers (issue 28), end to end with real podman: a command agent in a busybox
//! container takes two turns and calls tools through `wfa` from inside, writes what its grant
//! gives and nothing else, and leaves no container behind; `kill -9` of awf (and the agent's
//! keeper) leaves a running container that the next awf removes; a missing image is refused at
//! open with what to do; a live codex (its musl build) edits its cwd, calls a tool and answers
//! the fake model through the sandbox's proxy. What the agent did is read on the host (files,
//! records, podman, the fake's log), never from the agent's word.
//!
//! The image is made here: a root filesystem of the host's static busybox, `podman import`ed (no
//! registry is reachable from our machines; `wfa` is mounted in by awf). The engine's settings
//! come from `containers.conf` through `CONTAINERS_CONF`, as docs/agents.md says such a host
//! needs: runc (hybrid cgroups), cgroupfs, and limits under the hard open-file limit.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::live::{environment, installed, state_dir, Cli, FakeModel, LIVE_BOUND};
use crate::util::{assert_has, wait_for_file, which, TempProject};

/// The test image: busybox alone (`/bin/sh`, `sleep`, ...; `/bin/bash` is its sh).
const IMAGE: &str = "localhost/awf-test-busybox:latest";

/// What podman needs on a host with hybrid cgroups and a hard open-file limit of 20000.
const CONTAINERS_CONF: &str = r#"[containers]
default_ulimits = ["nofile=10000:10000", "nproc=4096:4096"]

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
"#;

/// The `containers.conf` the tests and their awf give podman, written once per test process.
fn containers_conf() -> PathBuf {
    static CONF: OnceLock<PathBuf> = OnceLock::new();
    CONF.get_or_init(|| {
        let path = std::env::temp_dir().join("awf-test-containers.conf");
        let staged = path.with_extension(format!("{}.tmp", std::process::id()));
        fs::write(&staged, CONTAINERS_CONF).unwrap();
        fs::rename(&staged, &path).unwrap();
        path
    })
    .clone()
}

/// `podman args...` with the tests' settings; its stdout, after it succeeded.
fn podman(args: &[&str]) -> String {
    let program = which("podman").expect(
        "podman is not on PATH, and these tests run agents in real containers\n\nhint: \
         `apt-get install podman runc busybox-static` (.ci/run installs them)",
    );
    let out = Command::new(program)
        .args(args)
        .env("CONTAINERS_CONF", containers_conf())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "podman {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).to_string()
}

/// Imports the busybox image once per test process.
fn busybox_image() -> &'static str {
    static IMPORTED: OnceLock<()> = OnceLock::new();
    IMPORTED.get_or_init(|| {
        let busybox = which("busybox").expect(
            "busybox is not on PATH; the test image is made of it\n\nhint: `apt-get install \
             busybox-static`",
        );
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("rootfs");
        for folder in ["bin", "usr/bin", "tmp", "etc"] {
            fs::create_dir_all(root.join(folder)).unwrap();
        }
        fs::copy(&busybox, root.join("bin/busybox")).unwrap();
        fs::set_permissions(root.join("tmp"), fs::Permissions::from_mode(0o1777)).unwrap();
        let listed = Command::new(&busybox).arg("--list").output().unwrap();
        for applet in String::from_utf8_lossy(&listed.stdout).split_whitespace() {
            if applet != "busybox" {
                std::os::unix::fs::symlink("busybox", root.join("bin").join(applet)).unwrap();
                std::os::unix::fs::symlink("/bin/busybox", root.join("usr/bin").join(applet))
                    .unwrap();
            }
        }
        fs::write(root.join("etc/passwd"), "root:x:0:0:root:/root:/bin/sh\n").unwrap();
        // codex runs its commands with /bin/bash -c; busybox's sh takes them.
        fs::write(
            root.join("bin/bash"),
            "#!/bin/busybox sh\nexec /bin/busybox sh \"$@\"\n",
        )
        .unwrap();
        fs::set_permissions(root.join("bin/bash"), fs::Permissions::from_mode(0o755)).unwrap();
        let tar = dir.path().join("rootfs.tar");
        let made = Command::new("tar")
            .arg("-C")
            .arg(&root)
            .arg("-cf")
            .arg(&tar)
            .arg(".")
            .status()
            .unwrap();
        assert!(made.success(), "tar of the image's root filesystem failed");
        podman(&["import", "--quiet", &tar.display().to_string(), IMAGE]);
    });
    IMAGE
}

/// The containers (running or not) labelled with the run `run_id`.
fn containers_of(run_id: &str) -> Vec<String> {
    podman(&[
        "ps",
        "--all",
        "--format",
        "{{.Names}} {{.Status}}",
        "--filter",
        &format!("label=awf.run={run_id}"),
    ])
    .lines()
    .map(str::to_string)
    .collect()
}

/// The agent: each turn notes where it runs, writes its grant and tries its cwd, calls `note`
/// through wfa, and answers what the tool said.
const AGENT: &str = r#"#!/bin/sh
cat > /dev/null
n="$AWF_TURN_NUMBER"
test -e /run/.containerenv && printf podman > "out/where-$n.txt"
printf 'turn %s' "$n" > "out/turn-$n.txt"
printf cwd > "cwd-$n.txt" 2>/dev/null
printf '%s' "$?" > "out/cwd-exit-$n.txt"
said=$("$AWF_WFA" tool note --text "from turn $n")
"$AWF_WFA" result "$AWF_TURN" <<WF_JSON
$said
WF_JSON
"#;

/// A workflow whose agent `a` runs `./agent.sh` in `work` with `sandbox` (a JS expression;
/// empty: none of its own), for two turns; it returns both answers and the notes its tool took.
fn two_turns(sandbox: &str) -> String {
    let sandbox = if sandbox.is_empty() {
        String::new()
    } else {
        format!(", sandbox: {sandbox}")
    };
    format!(
        r#"export default defineWorkflow({{
  meta: {{ name: "t", description: "An agent in a container." }},
  async run(wf) {{
    const notes: string[] = [];
    const note = tool({{
      description: "Note a line.",
      input: typed(Type.Object({{ text: Type.String() }})),
      handler: ({{ text }}) => {{ notes.push(text); return `noted ${{notes.length}}`; }},
    }});
    const agent = await wf.agents.open({{ key: "a", runtime: {{ command: ["./agent.sh"] }}, cwd: "work", tools: {{ note }}{sandbox} }});
    const one = (await agent.run({{ prompt: "One." }})).outcome.value;
    const two = (await agent.run({{ prompt: "Two." }})).outcome.value;
    return {{ answers: [one, two], notes }};
  }},
}});
"#
    )
}

/// `work/agent.sh` (the agent) and `work/out` (its write grant).
fn layout(project: &TempProject, agent: &str) -> PathBuf {
    let work = project.path().join("work");
    fs::create_dir_all(work.join("out")).unwrap();
    fs::write(work.join("agent.sh"), agent).unwrap();
    fs::set_permissions(work.join("agent.sh"), fs::Permissions::from_mode(0o755)).unwrap();
    work
}

/// `AGENT`'s two turns ran in podman: both answered through `wfa`, each wrote its grant `out`
/// and could not write its read-only cwd.
fn two_turns_ran_in_podman(ran: &crate::util::Ran, work: &Path) {
    assert_eq!(
        ran.assert_success().json(),
        json!({ "answers": ["noted 1", "noted 2"], "notes": ["from turn 1", "from turn 2"] })
    );
    for n in [1, 2] {
        let read = |name: &str| fs::read_to_string(work.join("out").join(name)).unwrap();
        assert_eq!(
            read(&format!("where-{n}.txt")),
            "podman",
            "turn {n} ran on the host"
        );
        assert_eq!(read(&format!("turn-{n}.txt")), format!("turn {n}"));
        assert_ne!(
            read(&format!("cwd-exit-{n}.txt")),
            "0",
            "turn {n} wrote its read-only cwd"
        );
        assert!(!work.join(format!("cwd-{n}.txt")).exists());
    }
}

fn run_id(project: &TempProject) -> String {
    run_id_of(project, "t")
}

fn run_id_of(project: &TempProject, workflow: &str) -> String {
    project
        .only_run_dir(workflow)
        .file_name()
        .unwrap()
        .to_string_lossy()
        .to_string()
}

#[test]
fn a_command_agent_in_a_container_takes_two_turns_calls_tools_and_writes_only_its_grant() {
    let image = busybox_image();
    let project = TempProject::new();
    let work = layout(&project, AGENT);
    let sandbox = format!(r#"{{ podman: {{ image: "{image}" }}, write: ["out"] }}"#);
    project.file("wf.ts", &two_turns(&sandbox));
    let ran = project
        .awf(&["run", "wf.ts"])
        .env("CONTAINERS_CONF", containers_conf())
        .run();
    two_turns_ran_in_podman(&ran, &work);
    let opened = &project.events_of("t", "agent-opened")[0];
    assert_eq!(opened["sandbox"]["provider"], "podman");
    assert_eq!(
        opened["sandbox"]["container"],
        json!({ "engine": "podman", "image": image, "args": [] })
    );
    assert_eq!(
        opened["sandbox"]["spec"]["podman"],
        json!({ "image": image, "args": [] })
    );
    // Each turn's process had a container of its own, recorded with the turn.
    let turns: Vec<Value> = project
        .events_of("t", "turn-started")
        .iter()
        .map(|e| e["turn"].clone())
        .collect();
    let placed = project.events_of("t", "agent-container");
    assert_eq!(
        placed.iter().map(|e| e["turn"].clone()).collect::<Vec<_>>(),
        turns
    );
    let names: Vec<&str> = placed
        .iter()
        .map(|e| e["container"].as_str().unwrap())
        .collect();
    assert!(
        names.iter().all(|n| n.starts_with("awf-")) && names[0] != names[1],
        "{names:?}"
    );
    let run = run_id(&project);
    assert_eq!(containers_of(&run), Vec::<String>::new(), "left behind");
    let logs = project.awf(&["logs", &run]).run();
    assert_has(
        &logs.stdout,
        &format!("in podman sandbox \"agent:a\" (image {image}): writes"),
    );
    assert_has(&logs.stdout, &format!("runs in container {}", names[1]));
}

/// `awf run --agent-sandbox FILE.json` with a container provider: the operator's sandbox puts
/// the workflow's agent in podman, with the file's write grant, and records where it came from.
#[test]
fn the_operators_agent_sandbox_can_be_a_container() {
    let image = busybox_image();
    let project = TempProject::new();
    let work = layout(&project, AGENT);
    project.file("wf.ts", &two_turns("")).file(
        "box.json",
        &format!(r#"{{ "podman": {{ "image": "{image}" }}, "write": ["work/out"] }}"#),
    );
    let ran = project
        .awf(&["run", "wf.ts", "--agent-sandbox", "box.json"])
        .env("CONTAINERS_CONF", containers_conf())
        .run();
    two_turns_ran_in_podman(&ran, &work);
    let opened = &project.events_of("t", "agent-opened")[0];
    assert_eq!(opened["sandbox"]["key"], "operator");
    assert_eq!(opened["sandbox"]["provider"], "podman");
    assert_eq!(opened["sandbox"]["container"]["image"], image);
    assert!(opened["sandbox"]["from"]
        .as_str()
        .unwrap()
        .ends_with("box.json"));
    assert_eq!(project.events_of("t", "agent-container").len(), 2);
    assert_eq!(
        containers_of(&run_id(&project)),
        Vec::<String>::new(),
        "left behind"
    );
}

#[test]
fn containers_left_by_a_killed_awf_are_removed_by_the_next_awf() {
    let image = busybox_image();
    let project = TempProject::new();
    let work = layout(
        &project,
        "#!/bin/sh\ncat > /dev/null\ntouch out/started\nsleep 300\n",
    );
    let sandbox = format!(r#"{{ podman: {{ image: "{image}" }}, write: ["out"] }}"#);
    project.file("wf.ts", &two_turns(&sandbox));
    let mut awf = Command::new(crate::util::awf_bin())
        .args(["run", "wf.ts"])
        .current_dir(project.path())
        .env("CONTAINERS_CONF", containers_conf())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for_file(&work.join("out/started"), Duration::from_secs(30));
    let run = run_id(&project);
    let running = containers_of(&run);
    assert_eq!(running.len(), 1, "{running:?}");
    assert_has(&running[0], "Up");
    // awf and the agent's keeper die at once (the OOM killer, a machine's kill -9 of the tree):
    // nothing of awf's is left to stop the container.
    let awf_pid = awf.id() as i32;
    for keeper in children(awf_pid) {
        unsafe { libc::kill(keeper, libc::SIGKILL) };
    }
    unsafe { libc::kill(awf_pid, libc::SIGKILL) };
    awf.wait().unwrap();
    let empty = project.path().join("empty");
    fs::create_dir_all(&empty).unwrap();
    fs::write(
        empty.join("e.ts"),
        r#"export default defineWorkflow({ meta: { name: "e", description: "Nothing." }, async run() { return 1; } });"#,
    )
    .unwrap();
    let next = crate::util::AwfCommand::new(crate::util::awf_bin())
        .args(&["run", "e.ts"])
        .current_dir(&empty)
        .env("CONTAINERS_CONF", containers_conf())
        .run();
    next.assert_success();
    let deadline = Instant::now() + Duration::from_secs(20);
    while !containers_of(&run).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(containers_of(&run), Vec::<String>::new(), "not swept");
}

#[test]
fn a_missing_image_is_refused_at_open_with_what_to_do() {
    busybox_image();
    let project = TempProject::new();
    layout(&project, AGENT);
    project.file(
        "wf.ts",
        &two_turns(r#"{ podman: { image: "localhost/awf-no-such-image" } }"#),
    );
    let ran = project
        .awf(&["run", "wf.ts"])
        .env("CONTAINERS_CONF", containers_conf())
        .run();
    assert_ne!(ran.code, Some(0), "{}", ran.stderr);
    assert_has(
        &ran.stderr,
        "sandbox \"agent:a\": podman cannot run the image \"localhost/awf-no-such-image\"",
    );
    assert_has(
        &ran.stderr,
        "hint: `podman pull localhost/awf-no-such-image`",
    );
    assert_has(&ran.stderr, "wf.ts:10:");
    project.file("wf.ts", &two_turns(r#"{ podman: { imag: "x" } }"#));
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_has(
        &ran.stderr,
        "podman: unknown option `imag`; did you mean `image`?",
    );
}

/// codex from npm, its musl build (a static binary) run in the busybox image: the sandbox
/// reads its folder (`read` paths are mounted read-only at their own paths), and PATH finds it
/// first as `codex`. Against the fake model on the host's loopback, reached through the
/// sandbox's proxy (the container has no network of its own), it edits its cwd, calls a tool
/// through wfa and answers.
#[test]
fn codex_in_a_container_edits_its_cwd_calls_a_tool_and_answers() {
    let image = busybox_image();
    let project = TempProject::new();
    let npm_bin = installed(Cli::Codex);
    let musl = fs::canonicalize(
        npm_bin.join("../@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex"),
    )
    .expect("codex's npm package holds its musl binary");
    let first = project.outside_temp().join("codex-first");
    fs::create_dir_all(&first).unwrap();
    std::os::unix::fs::symlink(&musl, first.join("codex")).unwrap();
    let work = project.path().join("work");
    fs::create_dir_all(&work).unwrap();
    project.file(
        "boxed.ts",
        r#"export default defineWorkflow({
  meta: { name: "boxed", description: "codex in a container." },
  prepare: ({ argv }) => JSON.parse(argv[0]) as { runtime: object; sandbox: object },
  async run(wf, input) {
    const notes: string[] = [];
    const note = tool({
      description: "Note a line.",
      input: typed(Type.Object({ text: Type.String() })),
      handler: ({ text }) => { notes.push(text); return "noted"; },
    });
    const agent = await wf.agents.open({ key: "a", runtime: input.runtime as never, cwd: "work", tools: { note }, sandbox: input.sandbox as never });
    const turn = await agent.run({
      prompt: "Write notes.txt, note it, then answer.",
      schema: typed(Type.Object({ ok: Type.Boolean() })),
      timeout: "2m",
    });
    // A fork's process (codex app-server, no model call) runs in a container of its own too.
    const forked = await agent.fork({ key: "b" });
    return { outcome: turn.outcome.kind, value: turn.outcome.value, notes, forked: forked.key };
  },
});
"#,
    );
    let script = json!({"prompts": [{"steps": [
        {"shell": "printf 'edited in a container' > notes.txt; test -e /run/.containerenv && echo podman > where.txt"},
        {"shell": "{wfa} tool note --text 'from codex'"},
        {"shell": "{wfa} result {turn} --ok 'true'"},
        {"text": "Done."},
    ]}]});
    let fake = FakeModel::start(&project, Cli::Codex.api(), &script, false);
    let read: Vec<String> = [musl.parent().unwrap(), first.as_path()]
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    let input = json!({
        "runtime": Cli::Codex.runtime(),
        "sandbox": { "podman": { "image": image }, "read": read, "write": ["."] },
    });
    let home = project.path().join("home");
    fs::create_dir_all(&home).unwrap();
    let mut awf = project.awf(&["run", "boxed.ts", "--timeout", "4m", "--"]);
    awf.arg(input.to_string())
        .bound(LIVE_BOUND)
        .env("CONTAINERS_CONF", containers_conf())
        .env("HOME", &home)
        .env(
            "PATH",
            format!(
                "{}:{}",
                first.display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        );
    for (name, value) in environment(Cli::Codex, fake.port, &state_dir(&project)) {
        awf.env(&name, value);
    }
    let ran = awf.run();
    assert_eq!(
        ran.assert_success().json(),
        json!({ "outcome": "answered", "value": { "ok": true }, "notes": ["from codex"], "forked": "b" })
    );
    // The turn's container and the fork's, each recorded with its operation, by distinct names.
    let contained: Vec<(String, String)> = project
        .events_of("boxed", "agent-container")
        .iter()
        .map(|e| {
            (
                e["turn"].as_str().unwrap_or_default().to_string(),
                e["container"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    assert_eq!(contained.len(), 2, "{contained:?}");
    assert!(contained[0].0.starts_with("t1-"), "{contained:?}");
    assert!(contained[1].0.starts_with('f'), "{contained:?}");
    assert_ne!(contained[0].1, contained[1].1, "{contained:?}");
    assert_eq!(
        fs::read_to_string(work.join("notes.txt")).unwrap(),
        "edited in a container"
    );
    assert_eq!(
        fs::read_to_string(work.join("where.txt")).unwrap(),
        "podman\n"
    );
    let opened = &project.events_of("boxed", "agent-opened")[0];
    assert_eq!(opened["sandbox"]["provider"], "podman");
    assert!(fake.requests().len() >= 4, "{}", fake.requests().len());
    assert_eq!(
        containers_of(&run_id_of(&project, "boxed")),
        Vec::<String>::new()
    );
}

/// The pids whose parent is `pid`.
fn children(pid: i32) -> Vec<i32> {
    let mut found = Vec::new();
    for entry in fs::read_dir("/proc").unwrap().flatten() {
        let Ok(child) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(stat) = fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        let after = stat.rsplit(')').next().unwrap_or_default();
        let parent = after.split_whitespace().nth(1).and_then(|p| p.parse().ok());
        if parent == Some(pid) {
            found.push(child);
        }
    }
    found
}
