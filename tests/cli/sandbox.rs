//! `awf run --sandbox`: workflow code reaches files, the network, programs and environment
//! variables only as the `--allow-*` flags grant, a denial names the flag that would grant it,
//! and agents (separate processes) still run.

use serde_json::{json, Value};

use crate::util::TempProject;

/// Tries each kind of access once and says how each went.
const PROBE: &str = r#"import { readFileSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
export default defineWorkflow({
  meta: { name: "t", description: "Probes the sandbox." },
  async run() {
    const out: Record<string, string> = {};
    const attempt = async (name: string, work: () => unknown) => {
      try {
        await work();
        out[name] = "ok";
      } catch (e: any) {
        out[name] = e.code === "ERR_ACCESS_DENIED" ? `denied: ${e.message}; ${e.hint}` : "not denied";
      }
    };
    await attempt("read", () => readFileSync("data/in.txt", "utf8"));
    await attempt("write", () => writeFileSync("out/x.txt", "x"));
    // Nothing listens on port 9: a granted connection fails, but not as a denial.
    await attempt("net", () => fetch("http://127.0.0.1:9/"));
    await attempt("run", () => execFileSync("true"));
    await attempt("env", () => process.env.AWF_SANDBOX_PROBE);
    return out;
  },
});
"#;

fn probe(args: &[&str]) -> (Value, String) {
    let project = TempProject::new();
    project
        .file("data/in.txt", "in")
        .file("out/.keep", "")
        .file("wf.ts", PROBE);
    let mut all = vec!["run", "wf.ts"];
    all.extend_from_slice(args);
    let ran = project.awf(&all).env("AWF_SANDBOX_PROBE", "set").run();
    let value = ran.assert_success().json();
    (value, project.path().display().to_string())
}

#[test]
fn without_a_sandbox_everything_is_allowed() {
    let (value, _) = probe(&[]);
    assert_eq!(
        value,
        json!({ "read": "ok", "write": "ok", "net": "not denied", "run": "ok", "env": "ok" })
    );
}

#[test]
fn a_sandbox_denies_everything_and_names_the_flag_for_each() {
    let (value, dir) = probe(&["--sandbox"]);
    let text = value.to_string().replace(&dir, "[TMP]");
    let value: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        value,
        json!({
            "read": "denied: read access to \"[TMP]/data/in.txt\" is denied; run again with --allow-read=[TMP]/data/in.txt to grant it",
            "write": "denied: write access to \"[TMP]/out/x.txt\" is denied; run again with --allow-write=[TMP]/out/x.txt to grant it",
            "net": "denied: net access to \"127.0.0.1:9\" is denied; run again with --allow-net=127.0.0.1:9 to grant it",
            "run": "denied: run access to \"true\" is denied; run again with --allow-run=true to grant it",
            "env": "denied: env access to \"AWF_SANDBOX_PROBE\" is denied; run again with --allow-env=AWF_SANDBOX_PROBE to grant it",
        })
    );
}

#[test]
fn each_grant_allows_only_what_it_names() {
    let (value, _) = probe(&[
        "--allow-read=data",
        "--allow-write=out",
        "--allow-net=127.0.0.1:9",
        "--allow-run=true",
        "--allow-env=AWF_SANDBOX_PROBE",
    ]);
    assert_eq!(
        value,
        json!({ "read": "ok", "write": "ok", "net": "not denied", "run": "ok", "env": "ok" })
    );
    // A grant elsewhere grants nothing here; a grant without a list grants all of its kind.
    let (value, _) = probe(&["--allow-read=out", "--allow-write", "--allow-net=localhost"]);
    assert_eq!(
        value["read"].as_str().unwrap().split(':').next(),
        Some("denied")
    );
    assert_eq!(value["write"], "ok");
    assert_eq!(
        value["net"].as_str().unwrap().split(':').next(),
        Some("denied")
    );
    assert_eq!(
        value["run"].as_str().unwrap().split(':').next(),
        Some("denied")
    );
    assert_eq!(
        value["env"].as_str().unwrap().split(':').next(),
        Some("denied")
    );
}

#[test]
fn agents_run_and_call_tools_under_a_sandbox() {
    let project = TempProject::new();
    project
        .script(
            "agent.sh",
            "#!/bin/sh\ncat > /dev/null\n\"$AWF_WFA\" tool note --text hi > /dev/null\necho done | \"$AWF_WFA\" result \"$AWF_TURN\"\n",
        )
        .file(
            "wf.ts",
            r#"export default defineWorkflow({
  meta: { name: "t", description: "An agent under a sandbox." },
  async run(wf) {
    const notes: string[] = [];
    const note = tool({ description: "Note.", input: Type.Object({ text: Type.String() }), handler: ({ text }) => { notes.push(text); return "noted"; } });
    const a = await wf.agents.open({ key: "a", runtime: { command: ["./agent.sh"] }, tools: { note } });
    const turn = await a.run({ prompt: "Go." });
    return { outcome: turn.outcome.kind, notes };
  },
});
"#,
        );
    let ran = project.awf(&["run", "wf.ts", "--sandbox"]).run();
    assert_eq!(
        ran.assert_success().json(),
        json!({ "outcome": "answered", "notes": ["hi"] })
    );
}
