#!/usr/bin/env bash
# bench/load.sh — the load benchmark (not a test): AGENTS command agents at once, CALLS tool calls
# each to a handler doing a little async work (bench/load/). Prints calls/s, p50/p99 call latency
# as the agents saw it (wfa start to exit), awf's own CPU per call and its peak memory (VmHWM),
# and checks the records: every call recorded once (tool-called = tool-settled = AGENTS*CALLS),
# every answer accepted once (AGENTS).
#
#   bench/load.sh [agents] [calls]     defaults: 200 agents, 50 calls
#
# Needs awf and wfa built (cargo build --release) and node.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
agents="${1:-200}"
calls="${2:-50}"
awf="${AWF_BIN_DIR:-$("$repo/scripts/bin-dir")}/awf"
[[ -x "$awf" ]] || { echo "load.sh: no awf at $awf; run cargo build --release" >&2; exit 2; }

scratch="$(mktemp -d "${TMPDIR:-/tmp}/awf-load.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
cp "$repo/bench/load/load.ts" "$repo/bench/load/agent.sh" "$scratch/"
mkdir "$scratch/lat"

out="$(cd "$scratch" && "$awf" run load.ts --timeout 30m -- "$agents" "$calls" 2>"$scratch/stderr")" || {
  cat "$scratch/stderr" >&2
  exit 1
}
events="$(ls -d "$scratch"/.awf/runs/load/*/)events.jsonl"
node -e '
const r = JSON.parse(process.argv[1]);
const lines = require("fs").readFileSync(process.argv[2], "utf8").trim().split("\n").map(JSON.parse);
const count = (kind, pred = () => true) => lines.filter((e) => e.event === kind && pred(e)).length;
const called = count("tool-called"), settled = count("tool-settled", (e) => e.outcome === "result");
const accepted = count("answer-submitted", (e) => e.accepted);
const ids = new Set(lines.filter((e) => e.event === "tool-called").map((e) => e.call));
console.log(`agents x calls:        ${r.agents} x ${r.callsPerAgent}`);
console.log(`wall time:             ${r.seconds.toFixed(1)} s`);
console.log(`calls/s:               ${r.callsPerSecond.toFixed(0)}`);
console.log(`call latency p50/p99:  ${r.p50ms.toFixed(2)} ms / ${r.p99ms.toFixed(2)} ms`);
console.log(`awf CPU per call:      ${r.awfCpuMsPerCall.toFixed(3)} ms`);
console.log(`awf peak memory:       ${r.peakMiB.toFixed(0)} MiB`);
console.log(`recorded: ${called} calls (${ids.size} distinct), ${settled} results, ${accepted} answers accepted`);
const want = r.agents * r.callsPerAgent;
if (called !== want || ids.size !== want || settled !== want || accepted !== r.agents || r.answered !== r.agents) {
  console.error("load.sh: records do not match: every call once, every answer once");
  process.exit(1);
}
' "$out" "$events"
[[ ! -s "$scratch/errors.txt" ]] || { echo "load.sh: failed calls:" >&2; cat "$scratch/errors.txt" >&2; exit 1; }
