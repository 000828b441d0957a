//! Integration tests that drive the built `awf` and `wfa` binaries end to end. Build them first
//! (`cargo build --release`, or `scripts/test`, which does both); `AWF_BIN_DIR` points elsewhere.

// Shared helpers: binaries, TempProject, AwfCommand, output filters, npm tools.
mod util;
// Shared by the live tests: the agent CLIs from npm (cached), the fake model server, each CLI's
// environment.
mod live;

// `awf --version`, `awf --help`, `awf run --help` and usage errors, as clap prints them;
// --log-level and AWF_LOG.
mod cli_help;
// `awf run`: result on stdout, --json, --cwd, --timeout, prepare and argv, wf.log, exit codes.
mod run;
// What `awf run` prints for after the run (`awf logs`, `--continue`) works typed in the same
// shell; `awf runs` shows a short run's time.
mod after_run;
// A workflow that cannot be used or fails: syntax, throw, default export, meta, non-JSON
// results, imports; one clear message each, with its exit code (snapshots).
mod run_errors;
// TypeScript and module loading: each feature a fixture under tests/fixtures/ts/.
mod typescript;
// Host globals: console, timers, queueMicrotask, structuredClone, process; stalls reported.
mod host;
// The run folder: run.json, events.jsonl, output.json, the .gitignore.
mod records;
// Stages, wf.stop, run ids, --continue and its refusals, `awf runs`, kill -9 mid-stage.
mod stages;
// present and report: what awf run prints, report.md on every ending, hooks that go wrong.
mod present_report;
// awf list: the workflows under a folder, a broken file listed with its error, --json.
mod list;
// typed(): compile once, refuse an invalid schema, field-level error lines; tool() checks.
mod typed;
// The built-in typebox against the real npm typebox 1.x (node), on tests/fixtures/typebox.
mod typebox;
// The typings under typings/ with the real TypeScript compiler over the examples and the spec.
mod typings;
// Every code block of README.md and docs/: TypeScript type-checked, commands checked against
// awf's own --help, agent CLI command lines against the harnesses' source.
mod docs;
// Agents and turns with the command runtime: outcomes, check-ins, deadlines, process groups,
// queueing, concurrency, reopen and close, Ctrl-C, the variables agents get.
mod agents;
// What turns used: `outcome.usage`, `wf.usage()`, `awf runs`' cost, real CLIs against the fake.
mod usage;
// Budgets: an agent's and the run's, hard and soft, live against the fake model.
mod budgets;
// Runtime aliases from the config files: doctor, a workflow using them, a bad file.
mod aliases;
// A turn's checkIn (off, the author's sentence, its own timeout, the opener's default) and label.
mod check_ins;
// agent.fork, compact and set with command agents.
mod forks;
// The channel against a real run: bad answers, malformed requests, silent and many connections.
mod channel;
// Authority that travels: the agent's secret on the socket (a process in a pid namespace of its
// own), the TCP transport with TLS (`--channel tcp`), forged and stale launchers refused.
mod channel_tls;
// Workflow tools: the spec's example and its tests, teaching, refusals, failures, budgets,
// joins, records.
mod tools;
// The spec's tool rules that need no composition feature: close, compact, set, fork and send
// from a handler, reopen rules, timeout: false past 30 s, unique call ids, `awf logs --agent`
// over two agents.
mod tool_rules;
// wf.parallel, wf.race, wf.select: scripted and command agents.
mod composition;
// Host APIs (node:fs, node:child_process, fetch, web globals, ...) through `awf run`, each
// workflow under tests/js/host/ against its expected JSON; the compatibility file against node.
mod host_apis;
// Messages: `wfa send`, `wf.receive`, `agent.send` and message turns, with command agents and
// live with codex and claude.
mod messages;
// wf.ask and awf answer: choices, typed values, text, timeouts, two questions, kill -9 and
// --continue, stages, and the scripted form under awf test (issue 29).
mod ask;
// `wfa` against a fake run: the wire request it sends, its output and exit codes.
mod wfa_wire;
// `awf test`: exit codes, discovery, filters, time-outs, output, JUnit, bun conformance.
mod test_command;
// agentswf/testing: testWorkflow's scripts, replies, lists, patterns and TestRun.
mod testing;
// awf init, typings, completions and man: a starter that runs, is tested and type-checks.
mod init;
// The npm packages (scripts/npm-pack) installed offline: npx awf init, run, test, doctor, an
// agent through the packaged wfa, tsc on the packaged typings; the launcher's errors.
mod npm_install;
// What awf run shows: the live view in tmux, plain lines off a terminal, --quiet, --verbose,
// the closing summary.
mod live_view;
// The five agent CLIs as agents, live against the fake model: tool calls, refusals, typed
// answers, resumed sessions, usage; codex's impatience; refused keys; lost sessions; doctor.
mod agent_clis;
// Forks, compaction and settings with real agent CLIs against the fake model.
mod agent_cli_forks;
// What awf guarantees when things go wrong: no orphan (kill -9, setsid), authority of the
// socket, caps under abuse, private records, withheld credentials, durations at the edge.
mod reliability;

// What agentswf's authors write: options refused with "did you mean", agentswf's spellings.
mod parity;

// awf short of descriptors: a check it cannot make is a retriable resource-error.
mod resources;

// `awf run --sandbox` and its `--allow-*` grants.
mod sandbox;
// Agents in bubblewrap sandboxes: writes confined, credentials masked, shared boxes (issue 26).
mod agent_sandbox;
// codex, claude and pi live in a sandbox, each with its own CLI home (issue 26).
mod agent_sandbox_live;
// A sandbox's network: the proxy on the host, `wfa __bridge` inside bubblewrap, curl as the agent.
mod sandbox_network;
// A sandboxed agent's network through a workflow: a granted port, none, a bad entry (issue 26).
mod agent_sandbox_network;
// `awf run --agent-sandbox FILE`: every agent in the operator's sandbox, a workflow's own refused (issue 26).
mod agent_sandbox_operator;
// Agent worktrees: kept and removed as asked, swept after kill -9 (issue 26).
mod worktrees;
// What a boxed agent cannot reach (a peer's socket, other runs, its run's records); a boxed
// worktree agent commits; awf logs says where it ran (issue 26).
mod sandbox_authority;
// Sandboxes under awf test (run.agentOf(key).sandbox) and in the typings (issue 26).
mod sandbox_surface;
// Skills given to agents: reaching claude, codex and pi, recorded with digests (issue 27).
mod skills;
// wf.agents.stop against a real agent process (issue 27 item 6).
mod agent_stop;
// Agents in podman containers: two turns and tools from inside, the write grant, nothing left,
// kill -9 swept, a missing image refused, live codex (its musl build) through the proxy (issue 28).
mod containers;
