//! `awf run --sandbox`: workflow code reaches files, the network, programs and environment
//! variables only as the `--allow-*` flags grant, a denial names the flag that would grant it,
//! and agents (separate processes) still run.

use serde_json::{json, Value};

use crate::util::{assert_has, TempProject};

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

/// A workflow that makes each attempt of `body` (`await attempt("name", () => ...)` lines, with
/// `fs`, `cp`, `process` and `dir` (the project folder) in scope) and returns how each went:
/// `ok: <value>`, `denied: <message>; <hint>` or `failed: <code>`.
fn attempts(body: &str) -> String {
    format!(
        r#"import * as fs from "node:fs";
import * as cp from "node:child_process";
export default defineWorkflow({{
  meta: {{ name: "t", description: "Tries to get out of the sandbox." }},
  async run() {{
    const dir = process.cwd();
    const out: Record<string, string> = {{}};
    const attempt = async (name: string, work: () => unknown) => {{
      try {{
        const value = await work();
        out[name] = `ok: ${{value === undefined ? "" : String(value).trim()}}`;
      }} catch (e: any) {{
        out[name] = e.code === "ERR_ACCESS_DENIED" ? `denied: ${{e.message}}; ${{e.hint}}` : `failed: ${{e.code ?? e.message}}`;
      }}
    }};
{body}
    return out;
  }},
}});
"#
    )
}

/// Runs `wf.ts` of `project` with `args`, and its result with the project's path as `[TMP]`.
fn outcomes(project: &TempProject, args: &[&str]) -> Value {
    let mut all = vec!["run", "wf.ts"];
    all.extend_from_slice(args);
    let ran = project.awf(&all).env("AWF_SANDBOX_PROBE", "hidden").run();
    let text = ran
        .assert_success()
        .json()
        .to_string()
        .replace(&project.path().display().to_string(), "[TMP]");
    serde_json::from_str(&text).unwrap()
}

#[test]
fn a_write_through_a_symlink_does_not_leave_the_write_set() {
    let project = TempProject::new();
    project
        .file("allowed/src.txt", "src")
        .file("allowed/inside.txt", "inside")
        .file("denied/.keep", "")
        .file(
            "wf.ts",
            &attempts(
                r#"    await attempt("writeFileSync", () => fs.writeFileSync("allowed/dangling", "x"));
    await attempt("appendFileSync", () => fs.appendFileSync("allowed/dangling", "x"));
    await attempt("promises.writeFile", () => fs.promises.writeFile("allowed/dangling", "x"));
    await attempt("copyFileSync", () => fs.copyFileSync("allowed/src.txt", "allowed/dangling"));
    await attempt("into a linked folder", () => fs.writeFileSync("allowed/away/file.txt", "x"));
    await attempt("mkdirSync -p", () => fs.mkdirSync("allowed/away/made/deeper", { recursive: true }));
    await attempt("chmodSync", () => fs.chmodSync("allowed/keep", 0o777));
    await attempt("a link that stays inside", () => fs.writeFileSync("allowed/inlink", "changed"));
    await attempt("unlink the link itself", () => fs.unlinkSync("allowed/unlinked"));"#,
            ),
        );
    let path = project.path();
    let link = |target: &str, at: &str| std::os::unix::fs::symlink(target, path.join(at)).unwrap();
    link("../denied/created.txt", "allowed/dangling");
    link("../denied", "allowed/away");
    link("../denied/.keep", "allowed/keep");
    link("inside.txt", "allowed/inlink");
    link("../denied/.keep", "allowed/unlinked");
    let value = outcomes(&project, &["--allow-write=allowed", "--allow-read=allowed"]);
    let denied = |to: &str| {
        format!(
            "denied: write access to \"[TMP]/{to}\" is denied; run again with --allow-write=[TMP]/{to} to grant it"
        )
    };
    assert_eq!(
        value,
        json!({
            "writeFileSync": denied("allowed/dangling"),
            "appendFileSync": denied("allowed/dangling"),
            "promises.writeFile": denied("allowed/dangling"),
            "copyFileSync": denied("allowed/dangling"),
            "into a linked folder": denied("allowed/away/file.txt"),
            "mkdirSync -p": denied("allowed/away/made/deeper"),
            "chmodSync": denied("allowed/keep"),
            "a link that stays inside": "ok: ",
            "unlink the link itself": "ok: ",
        })
    );
    let left: Vec<String> = std::fs::read_dir(path.join("denied"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, vec![".keep"], "nothing was made in denied/");
    let keep = std::fs::metadata(path.join("denied/.keep")).unwrap();
    use std::os::unix::fs::PermissionsExt;
    assert_ne!(keep.permissions().mode() & 0o777, 0o777);
    assert_eq!(project.read("allowed/inside.txt"), "changed");
}

/// An `echo` that is not the one on awf's PATH.
const IMPOSTOR: &str = "#!/bin/sh\necho impostor\n";

#[test]
fn a_granted_program_name_runs_the_file_found_on_awfs_path_at_start() {
    let project = TempProject::new();
    project.script("bin/echo", IMPOSTOR).file(
        "wf.ts",
        &attempts(
            r#"    const bin = `${dir}/bin`;
    await attempt("plain", () => cp.execFileSync("echo", ["real"], { encoding: "utf8" }));
    await attempt("env.PATH", () => cp.execFileSync("echo", ["real"], { encoding: "utf8", env: { PATH: bin } }));
    await attempt("spawnSync", () => cp.spawnSync("echo", ["real"], { encoding: "utf8", env: { PATH: bin } }).stdout);
    await attempt("spawn", () => new Promise((resolve, reject) => {
      const child = cp.spawn("echo", ["real"], { env: { PATH: bin } });
      let text = "";
      child.stdout.on("data", (chunk: any) => (text += chunk));
      child.on("error", reject);
      child.on("close", () => resolve(text));
    }));
    await attempt("argv0", () => cp.execFileSync("echo", ["real"], { encoding: "utf8", argv0: "sh" }));
    process.env.PATH = bin;
    await attempt("process.env.PATH", () => cp.execFileSync("echo", ["real"], { encoding: "utf8" }));
    process.env.PATH = ".";
    process.chdir("bin");
    await attempt("PATH . after chdir", () => cp.execFileSync("echo", ["real"], { encoding: "utf8" }));"#,
        ),
    );
    let value = outcomes(&project, &["--allow-run=echo", "--allow-env"]);
    assert_eq!(
        value,
        json!({
            "plain": "ok: real",
            "env.PATH": "ok: real",
            "spawnSync": "ok: real",
            "spawn": "ok: real",
            "argv0": "denied: run access to \"sh\" is denied; argv0 decides what a multi-call program such as busybox runs: leave it out, or run again with --allow-run (without a list) to start programs under any name",
            "process.env.PATH": "ok: real",
            "PATH . after chdir": "ok: real",
        })
    );
}

#[test]
fn a_relative_program_grant_is_the_one_file_it_named_at_start() {
    let project = TempProject::new();
    project
        .script("build.sh", "#!/bin/sh\necho granted\n")
        .script("other/build.sh", "#!/bin/sh\necho other\n")
        .file(
            "wf.ts",
            &attempts(
                r#"    await attempt("as granted", () => cp.execFileSync("./build.sh", { encoding: "utf8" }));
    await attempt("by its full path", () => cp.execFileSync(`${dir}/build.sh`, { encoding: "utf8" }));
    await attempt("cwd: other", () => cp.execFileSync("./build.sh", { encoding: "utf8", cwd: "other" }));
    process.chdir("other");
    await attempt("after chdir", () => cp.execFileSync("./build.sh", { encoding: "utf8" }));
    await attempt("back up", () => cp.execFileSync("../build.sh", { encoding: "utf8" }));"#,
            ),
        );
    let value = outcomes(&project, &["--allow-run=./build.sh"]);
    let denied = "denied: run access to \"./build.sh\" is denied; run again with --allow-run=[TMP]/other/build.sh to grant it";
    assert_eq!(
        value,
        json!({
            "as granted": "ok: granted",
            "by its full path": "ok: granted",
            "cwd: other": denied,
            "after chdir": denied,
            "back up": "ok: granted",
        })
    );
}

#[test]
fn a_childs_environment_is_checked_and_loader_variables_need_naming() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        &attempts(
            r#"    const run = (env: Record<string, string>) => () => cp.execFileSync("env", [], { encoding: "utf8", env });
    await attempt("LD_PRELOAD", run({ LD_PRELOAD: `${dir}/evil.so` }));
    await attempt("LD_LIBRARY_PATH", run({ LD_LIBRARY_PATH: dir }));
    await attempt("LD_AUDIT", run({ LD_AUDIT: `${dir}/evil.so` }));
    await attempt("GCONV_PATH", run({ GCONV_PATH: dir }));
    await attempt("via process.env", () => {
      process.env.LD_PRELOAD = `${dir}/evil.so`;
      try {
        return cp.execFileSync("env", [], { encoding: "utf8" }).includes("LD_PRELOAD");
      } finally {
        delete process.env.LD_PRELOAD;
      }
    });
    await attempt("spawn", () => new Promise((resolve, reject) => {
      const child = cp.spawn("env", [], { env: { LD_PRELOAD: `${dir}/evil.so` } });
      child.on("error", reject);
      child.on("close", resolve);
    }));
    await attempt("a granted name", run({ AWF_SANDBOX_PROBE: "given" }));
    await attempt("an ungranted name", run({ OTHER: "x" }));"#,
        ),
    );
    let loader = |name: &str| {
        format!(
            "denied: env access to \"{name}\" is denied; {name} makes a program load other code, so only naming it grants it: run again with --allow-env={name} to grant it"
        )
    };
    let listed = outcomes(
        &project,
        &["--allow-run=env", "--allow-env=AWF_SANDBOX_PROBE"],
    );
    assert_eq!(
        listed,
        json!({
            "LD_PRELOAD": loader("LD_PRELOAD"),
            "LD_LIBRARY_PATH": loader("LD_LIBRARY_PATH"),
            "LD_AUDIT": loader("LD_AUDIT"),
            "GCONV_PATH": loader("GCONV_PATH"),
            "via process.env": loader("LD_PRELOAD"),
            "spawn": loader("LD_PRELOAD"),
            "a granted name": "ok: AWF_SANDBOX_PROBE=given",
            "an ungranted name": "denied: env access to \"OTHER\" is denied; run again with --allow-env=OTHER to grant it",
        })
    );
    // Every name granted still leaves the loader's out; naming one grants it.
    let all = outcomes(&project, &["--allow-run=env", "--allow-env"]);
    assert_eq!(all["LD_PRELOAD"], loader("LD_PRELOAD"));
    assert_eq!(all["GCONV_PATH"], loader("GCONV_PATH"));
    assert_eq!(all["an ungranted name"], "ok: OTHER=x");
    let named = outcomes(&project, &["--allow-run=env", "--allow-env=LD_PRELOAD"]);
    assert_eq!(
        named["LD_PRELOAD"],
        format!("ok: LD_PRELOAD={}/evil.so", "[TMP]")
    );
    assert_eq!(named["via process.env"], "ok: true");
}

#[test]
fn imports_pass_the_read_gate_but_the_entrys_folder_and_built_ins() {
    let project = TempProject::new();
    project
        .file("flows/lib.ts", "export const name = \"lib\";\n")
        .file("secret/data.json", "{ \"token\": \"s3cret\" }\n")
        .file("secret/code.js", "globalThis.ran = \"yes\";\nexport const v = 1;\n")
        .file("secret/notes.txt", "TOPSECRET and more\n")
        .file(
            "flows/static.ts",
            "import { v } from \"../secret/code.js\";\nexport default defineWorkflow({ meta: { name: \"s\", description: \"d\" }, run: () => v });\n",
        )
        .file(
            "flows/wf.ts",
            &attempts(
                r#"    await attempt("own folder", async () => (await import("./lib.ts")).name);
    await attempt("built-in", async () => (await import("node:path")).join("a", "b"));
    await attempt("json", async () => (await import("../secret/data.json")).default.token);
    await attempt("code", async () => (await import("../secret/code.js")).v);
    await attempt("code ran", () => (globalThis as any).ran ?? "no");
    await attempt("text", async () => await import("../secret/notes.txt"));
    await attempt("absolute", async () => (await import(`${dir}/secret/data.json`)).default.token);"#,
            ),
        );
    let run = |args: &[&str]| {
        let mut all = vec!["run", "flows/wf.ts", "--sandbox"];
        all.extend_from_slice(args);
        let text = project.awf(&all).run().assert_success().json().to_string();
        serde_json::from_str::<Value>(&text.replace(&project.path().display().to_string(), "[TMP]"))
            .unwrap()
    };
    let denied = |file: &str| {
        format!("denied: read access to \"[TMP]/secret/{file}\" is denied; run again with --allow-read=[TMP]/secret/{file} to grant it")
    };
    assert_eq!(
        run(&[]),
        json!({
            "own folder": "ok: lib",
            "built-in": "ok: a/b",
            "json": denied("data.json"),
            "code": denied("code.js"),
            "code ran": "ok: no",
            "text": denied("notes.txt"),
            "absolute": denied("data.json"),
        })
    );
    let granted = run(&["--allow-read=secret"]);
    assert_eq!(granted["json"], "ok: s3cret");
    assert_eq!(granted["code ran"], "ok: yes");
    // A static import is refused where it is written, before any of the module runs.
    let ran = project.awf(&["run", "flows/static.ts", "--sandbox"]).run();
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
    let stderr = ran
        .stderr
        .replace(&project.path().display().to_string(), "[TMP]");
    assert_has(&stderr, "read access to \"[TMP]/secret/code.js\" is denied");
    assert_has(&stderr, "flows/static.ts:1:19");
    assert_has(
        &stderr,
        "run again with --allow-read=[TMP]/secret/code.js to grant it",
    );
}

#[test]
fn proc_environ_is_denied_unless_every_variable_is_granted() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        &attempts(
            r#"    const leaks = (text: unknown) => String(text).includes("AWF_SANDBOX_PROBE=hidden");
    await attempt("self", () => leaks(fs.readFileSync("/proc/self/environ")));
    await attempt("own pid", () => leaks(fs.readFileSync(`/proc/${process.pid}/environ`)));
    await attempt("thread-self", () => leaks(fs.readFileSync("/proc/thread-self/environ")));
    await attempt("task", () => leaks(fs.readFileSync(`/proc/self/task/${process.pid}/environ`)));
    await attempt("promises", async () => leaks(await fs.promises.readFile("/proc/self/environ")));
    await attempt("other files of /proc", () => fs.readFileSync("/proc/self/status", "utf8").startsWith("Name:"));"#,
        ),
    );
    let denied = |path: &str| {
        format!("denied: read access to \"{path}\" is denied; a process's environment holds all its variables: run again with --allow-env (without a list) to grant it")
    };
    let pid_path = "/proc/[PID]/environ";
    let value = outcomes(&project, &["--allow-read", "--allow-env=HOME"]);
    let value: Value = serde_json::from_str(&pids_hidden(&value.to_string())).unwrap();
    assert_eq!(
        value,
        json!({
            "self": denied("/proc/self/environ"),
            "own pid": denied(pid_path),
            "thread-self": denied("/proc/thread-self/environ"),
            "task": denied("/proc/self/task/[PID]/environ"),
            "promises": denied("/proc/self/environ"),
            "other files of /proc": "ok: true",
        })
    );
    let value = outcomes(&project, &["--allow-read", "--allow-env"]);
    for name in ["self", "own pid", "thread-self", "task", "promises"] {
        assert_eq!(value[name], "ok: true", "{name}");
    }
}

/// `text` with the numbers of `/proc/<n>/` and `/task/<n>/` as `[PID]`.
fn pids_hidden(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = ["/proc/", "/task/"]
        .iter()
        .filter_map(|p| rest.find(p).map(|i| i + p.len()))
        .min()
    {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        if digits > 0 {
            out.push_str("[PID]");
            rest = &rest[digits..];
        }
    }
    out.push_str(rest);
    out
}
