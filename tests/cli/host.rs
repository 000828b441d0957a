//! The host globals a workflow sees: console (Node's formatting, all on stderr under `awf run`),
//! timers and their order, queueMicrotask, structuredClone, process; and the event loop's rule:
//! pending work keeps the run alive, and a run nothing can settle is reported, not hung.

use serde_json::json;

use crate::util::{assert_text, TempProject};

fn run_file(source: &str) -> crate::util::Ran {
    let project = TempProject::new();
    project.file("wf.ts", source);
    project.awf(&["run", "wf.ts"]).run()
}

#[test]
fn console_formats_values_as_node_does_and_writes_to_stderr() {
    let ran = run_file(
        r#"class Point { constructor(public x: number, public y: number) {} }
const cyclic: any = { name: "loop" };
cyclic.self = cyclic;
export default defineWorkflow({
  meta: { name: "console", description: "Prints." },
  run() {
    console.log("text", 42, true, null, undefined);
    console.log({ a: 1, nested: { deep: { deeper: { deepest: 1 } } }, list: [1, "two", [3]] });
    console.info("%s has %d items costing %i, %j", "cart", 3, 4.5, { ok: true });
    console.warn(new Map([["k", { v: 1 }]]), new Set([1, 2]));
    console.error(new Point(1, 2), cyclic);
    console.debug([undefined, null, -0, 1n, Symbol("s")], () => 1, function named() {});
    console.log("long", { alpha: "aaaaaaaaaaaaaaaa", beta: "bbbbbbbbbbbbbbbbbb", gamma: "cccccccccccccccccccc", delta: 1 });
    console.log(new Date(0), /re/g, "quote's", ["quote's"]);
    return "printed";
  },
});
"#,
    );
    // The same text node prints for these calls (checked with node 20).
    assert_text(
        &format!("{}\n{}", ran.stdout, ran.stderr),
        r#""printed"

text 42 true null undefined
{
  a: 1,
  nested: { deep: { deeper: [Object] } },
  list: [ 1, 'two', [ 3 ] ]
}
cart has 3 items costing 4, {"ok":true}
Map(1) { 'k' => { v: 1 } } Set(2) { 1, 2 }
Point { x: 1, y: 2 } <ref *1> { name: 'loop', self: [Circular *1] }
[ undefined, null, -0, 1n, Symbol(s) ] [Function (anonymous)] [Function: named]
long {
  alpha: 'aaaaaaaaaaaaaaaa',
  beta: 'bbbbbbbbbbbbbbbbbb',
  gamma: 'cccccccccccccccccccc',
  delta: 1
}
1970-01-01T00:00:00.000Z /re/g quote's [ "quote's" ]
"#,
    );
}

#[test]
fn an_error_logged_shows_its_stack_at_ts_lines() {
    let ran = run_file(
        r#"type Unused = { a: string };
interface AlsoUnused {
  b: number;
}
export default defineWorkflow({
  meta: { name: "logs-error", description: "Logs an error." },
  run() {
    console.error(new RangeError("out of range"));
  },
});
"#,
    );
    ran.assert_success();
    let first_two: Vec<&str> = ran.stderr.lines().take(2).collect();
    assert_eq!(first_two[0], "RangeError: out of range");
    assert!(
        first_two[1].starts_with("    at run (") && first_two[1].ends_with("/wf.ts:8:23)"),
        "{}",
        ran.stderr
    );
}

#[test]
fn timers_microtasks_and_immediates_run_in_order() {
    let ran = run_file(
        r#"export default defineWorkflow({
  meta: { name: "timers", description: "Orders callbacks." },
  async run() {
    const order: string[] = [];
    setTimeout(() => order.push("timeout 20"), 20);
    setTimeout(() => order.push("timeout 0"), 0);
    setTimeout((a: string, b: string) => order.push(`args ${a} ${b}`), 5, "x", "y");
    setImmediate(() => order.push("immediate"));
    queueMicrotask(() => order.push("microtask"));
    Promise.resolve().then(() => order.push("promise"));
    const cancelled = setTimeout(() => order.push("cancelled"), 1);
    clearTimeout(cancelled);
    let ticks = 0;
    await new Promise<void>((done) => {
      const interval = setInterval(() => {
        ticks++;
        if (ticks === 3) {
          clearInterval(interval);
          // A timer started from a timer callback runs too.
          setTimeout(done, 1);
        }
      }, 2);
    });
    await new Promise((resolve) => setTimeout(resolve, 30));
    order.push("sync end");
    return { order, ticks };
  },
});
"#,
    );
    assert_eq!(
        ran.assert_success().json(),
        json!({
            "order": ["microtask", "promise", "timeout 0", "immediate", "args x y", "timeout 20", "sync end"],
            "ticks": 3,
        })
    );
}

#[test]
fn timer_objects_convert_to_ids_and_can_be_unref_ed() {
    let ran = run_file(
        r#"export default defineWorkflow({
  meta: { name: "timer-objects", description: "Timer handles." },
  async run() {
    const timer = setTimeout(() => {}, 1);
    const id = +timer;
    clearTimeout(id);
    const unrefd = setInterval(() => {}, 1000).unref();
    return { idIsNumber: typeof id === "number" && id > 0, hasRef: unrefd.hasRef(), again: unrefd.ref().hasRef() };
  },
});
"#,
    );
    assert_eq!(
        ran.assert_success().json(),
        json!({"idIsNumber": true, "hasRef": false, "again": true})
    );
}

#[test]
fn a_pending_timer_keeps_the_run_alive() {
    let ran = run_file(
        r#"export default defineWorkflow({
  meta: { name: "waits", description: "Waits for a timer." },
  run: () => new Promise((resolve) => setTimeout(() => resolve("after 300ms"), 300)),
});
"#,
    );
    assert_eq!(ran.assert_success().json(), json!("after 300ms"));
    assert!(ran.elapsed.as_millis() >= 300, "{:?}", ran.elapsed);
}

#[test]
fn an_unref_ed_timer_does_not_keep_a_stuck_run_alive() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "stuck", description: "Awaits forever beside an unref'd interval." },
  async run() {
    setInterval(() => {}, 5).unref();
    await new Promise(() => {});
  },
});
"#,
    );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_text(
        &ran.snapshot(&project.path()),
        "exit: 1
--- stdout
--- stderr
awf: run failed: run() can never finish: it awaits a promise that nothing will settle

hint: no timer, agent turn or I/O was pending; look for a promise that is never resolved, or an await on something that never happens
awf: records in .awf/runs/stuck/[RUN_ID]
awf: to go on: awf run wf.ts --continue [RUN_ID]
",
    );
}

#[test]
fn a_throw_in_a_timer_callback_fails_the_run() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "timer-throws", description: "A timer callback throws." },
  async run() {
    setTimeout(() => {
      throw new RangeError("thrown in a timer");
    }, 1);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    return "unreachable";
  },
});
"#,
    );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_text(
        &ran.snapshot(&project.path()),
        "exit: 1
--- stdout
--- stderr
awf: run failed: RangeError: thrown in a timer
    at <anonymous> (wf.ts:5:17)
awf: records in .awf/runs/timer-throws/[RUN_ID]
awf: to go on: awf run wf.ts --continue [RUN_ID]
",
    );
    assert!(
        ran.elapsed.as_millis() < 1000,
        "ends at the throw: {:?}",
        ran.elapsed
    );
}

#[test]
fn structured_clone_copies_deeply_and_refuses_functions() {
    let ran = run_file(
        r#"export default defineWorkflow({
  meta: { name: "clone", description: "Clones." },
  run() {
    const shared = { n: 1 };
    const original: any = { when: new Date(5), map: new Map([["k", shared]]), set: new Set([1]), list: [shared, shared], bytes: new Uint8Array([1, 2]) };
    original.self = original;
    const copy = structuredClone(original);
    let refused = "";
    try {
      structuredClone({ f() {} });
    } catch (error) {
      refused = (error as Error).name;
    }
    return {
      distinct: copy !== original && copy.list[0] !== shared,
      sharedKept: copy.list[0] === copy.list[1] && copy.map.get("k") === copy.list[0],
      cycleKept: copy.self === copy,
      date: copy.when instanceof Date && copy.when.getTime() === 5,
      set: copy.set.has(1),
      bytes: Array.from(copy.bytes),
      refused,
    };
  },
});
"#,
    );
    assert_eq!(
        ran.assert_success().json(),
        json!({
            "distinct": true,
            "sharedKept": true,
            "cycleKept": true,
            "date": true,
            "set": true,
            "bytes": [1, 2],
            "refused": "DataCloneError",
        })
    );
}

#[test]
fn process_gives_argv_env_and_cwd() {
    let project = TempProject::new();
    project.file("sub/.keep", "").file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "process", description: "Reads process." },
  run: () => ({
    argv: process.argv.slice(2),
    argv0: process.argv[0],
    file: process.argv[1].endsWith("/wf.ts"),
    env: process.env.AWF_TEST_VALUE,
    unset: process.env.AWF_TEST_UNSET ?? null,
    cwd: process.cwd(),
    platform: process.platform,
  }),
});
"#,
    );
    let ran = project
        .awf(&["run", "wf.ts", "--cwd", "sub", "--", "one", "two"])
        .env("AWF_TEST_VALUE", "from the environment")
        .run();
    assert_eq!(
        ran.assert_success().json(),
        json!({
            "argv": ["one", "two"],
            "argv0": "awf",
            "file": true,
            "env": "from the environment",
            "unset": null,
            "cwd": project.path().join("sub").display().to_string(),
            "platform": "linux",
        })
    );
}

#[test]
fn process_exit_without_a_code_uses_exit_code() {
    let ran = run_file(
        r#"export default defineWorkflow({
  meta: { name: "exit-code", description: "Sets exitCode." },
  run() {
    process.exitCode = 4;
    process.exit();
  },
});
"#,
    );
    assert_eq!(ran.code, Some(4), "{}", ran.stderr);
}
