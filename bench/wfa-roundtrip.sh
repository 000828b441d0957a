#!/usr/bin/env bash
# bench/wfa-roundtrip.sh — the cost of one `wfa tool` call from an agent's shell: N calls of an
# echo tool from one agent script, against N runs of /bin/true from the same loop (the floor of
# any launcher). Also awf's own CPU per call: the user+sys time of the awf process itself
# (not its children) while the calls ran, read by the agent from /proc, over N.
#
#   bench/wfa-roundtrip.sh [calls] [repeats]     defaults: 500 calls, 5 repeats (medians shown)
#
# Needs awf and wfa built (cargo build --release) and node (to read the JSON result).
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
calls="${1:-500}"
repeats="${2:-5}"
awf="${AWF_BIN_DIR:-$("$repo/scripts/bin-dir")}/awf"
[[ -x "$awf" ]] || { echo "wfa-roundtrip.sh: no awf at $awf; run cargo build --release" >&2; exit 2; }

scratch="$(mktemp -d "${TMPDIR:-/tmp}/awf-bench.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT

# One run: prints "trueNs wfaNs awfCpuSeconds".
measure() {
  local out
  out="$("$awf" run "$repo/bench/wfa/echo.ts" --cwd "$scratch" -- "$1" 2>/dev/null)"
  node -e 'const r = JSON.parse(process.argv[1]); console.log(r.trueNs, r.wfaNs, r.awfTicks / r.ticksPerSecond)' "$out"
}

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

: > "$scratch/runs"
for _ in $(seq "$repeats"); do measure "$calls" >> "$scratch/runs"; done

true_ns="$(awk '{ print $1 }' "$scratch/runs" | median)"
wfa_ns="$(awk '{ print $2 }' "$scratch/runs" | median)"
cpu="$(awk '{ print $3 }' "$scratch/runs" | median)"

awk -v n="$calls" -v t="$true_ns" -v w="$wfa_ns" -v c="$cpu" 'BEGIN {
  printf "calls per run:            %d (median of runs)\n", n
  printf "/bin/true from the loop:  %.3f ms per run\n", t / n / 1e6
  printf "wfa tool echo round trip: %.3f ms per call\n", w / n / 1e6
  printf "ratio to the floor:       %.2fx (target: at most 3x)\n", w / t
  printf "awf CPU per call:         %.3f ms (user+sys of the awf process alone)\n", c / n * 1000
}'
