//! A sandboxed agent's network through a workflow (issue 26): `network: ["127.0.0.1:PORT"]`
//! reaches that port and no other, `network: false` reaches nothing yet still talks to awf, and a
//! bad entry is refused at open at the author's line. What reached the host is read from the
//! servers' own logs, never from the box.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::json;

use crate::sandbox_network::Server;
use crate::util::{assert_has, TempProject};

/// The agent: fetches the granted and the other port (curl's exit codes into files), then
/// answers through its launcher.
fn agent(granted: u16, other: u16) -> String {
    format!(
        r#"#!/bin/sh
cat > /dev/null
curl -sS -m 5 http://127.0.0.1:{granted}/granted > granted.txt 2> granted-err.txt
printf '%s' "$?" > granted-exit.txt
curl -sS -m 5 http://127.0.0.1:{other}/other > other.txt 2> other-err.txt
printf '%s' "$?" > other-exit.txt
curl -sS -m 5 -x "$HTTP_PROXY" --noproxy '' http://127.0.0.1:{other}/other-proxied > /dev/null 2>&1
"$AWF_WFA" result "$AWF_TURN" <<'WF_JSON'
done
WF_JSON
"#
    )
}

/// `work` outside /tmp (which the box replaces) holding `agent.sh`, and `wf.ts` opening agent
/// `a` there with `sandbox` (a JS expression) for one turn.
fn project(granted: u16, other: u16, sandbox: &str) -> (TempProject, PathBuf) {
    let project = TempProject::new();
    let work = project.outside_temp().join("work");
    fs::create_dir_all(&work).unwrap();
    let script = work.join("agent.sh");
    fs::write(&script, agent(granted, other)).unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
    project.file(
        "wf.ts",
        &format!(
            r#"export default defineWorkflow({{
  meta: {{ name: "t", description: "A sandboxed agent on the network." }},
  async run(wf) {{
    const agent = await wf.agents.open({{ key: "a", runtime: {{ command: ["./agent.sh"] }}, cwd: {cwd:?}, sandbox: {sandbox} }});
    return (await agent.run({{ prompt: "Fetch." }})).outcome.value;
  }},
}});
"#,
            cwd = work.display().to_string()
        ),
    );
    (project, work)
}

fn read(work: &Path, name: &str) -> String {
    fs::read_to_string(work.join(name)).unwrap_or_default()
}

#[test]
fn a_granted_port_is_reached_and_another_is_not() {
    let granted = Server::start();
    let other = Server::start();
    let sandbox = format!("{{ network: [\"127.0.0.1:{}\"] }}", granted.port);
    let (project, work) = project(granted.port, other.port, &sandbox);
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_eq!(ran.assert_success().json(), json!("done"));
    assert_eq!(
        read(&work, "granted.txt"),
        "hello",
        "{}",
        read(&work, "granted-err.txt")
    );
    assert_eq!(read(&work, "granted-exit.txt"), "0");
    assert_eq!(granted.log(), vec!["GET /granted HTTP/1.1"]);
    assert_ne!(read(&work, "other-exit.txt"), "0");
    assert!(other.log().is_empty(), "{:?}", other.log());
    let opened = &project.events_of("t", "agent-opened")[0];
    assert_eq!(
        opened["sandbox"]["network"],
        json!([format!("127.0.0.1:{}", granted.port)])
    );
}

#[test]
fn without_network_nothing_is_reached_but_awf_is() {
    let server = Server::start();
    let (project, work) = project(server.port, server.port, "{ network: false }");
    let ran = project.awf(&["run", "wf.ts"]).run();
    // The answer came back through the launcher's socket: the box still talks to awf.
    assert_eq!(ran.assert_success().json(), json!("done"));
    assert_ne!(read(&work, "granted-exit.txt"), "0");
    assert_ne!(read(&work, "other-exit.txt"), "0");
    assert!(server.log().is_empty(), "{:?}", server.log());
}

#[test]
fn a_bad_entry_is_refused_at_open_at_the_authors_line() {
    let server = Server::start();
    let (project, work) = project(
        server.port,
        server.port,
        "{ network: [\"https://api.github.com/repos\"] }",
    );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_ne!(ran.code, Some(0), "{}", ran.stderr);
    assert_has(
        &ran.stderr,
        "sandbox network entry \"https://api.github.com/repos\"",
    );
    assert_has(&ran.stderr, "is a URL; the grant names hosts");
    assert_has(&ran.stderr, "wf.ts:4:");
    assert_has(&ran.stderr, "hint: write \"api.github.com\"");
    assert!(!work.join("granted-exit.txt").exists(), "the agent ran");
}
