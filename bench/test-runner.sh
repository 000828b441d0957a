#!/usr/bin/env bash
# bench/test-runner.sh — `awf test` against `bun test` on the same generated test files.
#
# Generates FILES files of plain bun:test tests (describe, hooks, toBe/toEqual/toMatchObject/
# toThrow, an async test; no workflow) into a scratch folder, runs each runner RUNS times on
# the whole folder, and prints each runner's median wall time and the ratio awf/bun.
#
# Usage: bench/test-runner.sh [--files N] [--tests N] [--runs N]
#   AWF: the awf binary (default "$(scripts/bin-dir)/awf", built if missing)
#   BUN: the bun binary (default: target/test-tools/bun-1.4.5, installed from npm if missing,
#        as the conformance test does; or `bun` on PATH)
set -euo pipefail

FILES=50
TESTS=20
RUNS=7
while [ $# -gt 0 ]; do
  case "$1" in
    --files) FILES="$2"; shift 2 ;;
    --tests) TESTS="$2"; shift 2 ;;
    --runs) RUNS="$2"; shift 2 ;;
    *) echo "usage: $0 [--files N] [--tests N] [--runs N]" >&2; exit 2 ;;
  esac
done

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
AWF="${AWF:-$("$ROOT/scripts/bin-dir")/awf}"
if [ ! -x "$AWF" ]; then
  (cd "$ROOT" && cargo build --release --bin awf)
fi
BUN_VERSION=1.4.5
if [ -z "${BUN:-}" ]; then
  TOOLS="$ROOT/target/test-tools/bun-$BUN_VERSION"
  BUN="$TOOLS/node_modules/.bin/bun"
  if [ ! -x "$BUN" ]; then
    if command -v npm >/dev/null; then
      npm install --no-save --no-audit --no-fund --prefix "$TOOLS" "bun@$BUN_VERSION" >&2
    elif command -v bun >/dev/null; then
      BUN="$(command -v bun)"
    else
      echo "bench: no bun: install npm (to fetch bun@$BUN_VERSION) or set BUN" >&2
      exit 2
    fi
  fi
fi

SCRATCH="$(mktemp -d "${TMPDIR:-/tmp}/awf-bench-XXXXXX")"
trap 'rm -rf "$SCRATCH"' EXIT

# One test file: a describe with hooks and TESTS tests of the usual matchers.
generate() {
  local n="$1"
  {
    echo 'import { beforeEach, describe, expect, test } from "bun:test";'
    echo
    echo "interface Item { id: number; name: string; tags: string[] }"
    echo "const make = (id: number): Item => ({ id, name: \"item-\" + id, tags: [\"a\", \"b\", String(id % 3)] });"
    echo
    echo "describe(\"file $n\", () => {"
    echo "  let items: Item[] = [];"
    echo "  beforeEach(() => { items = Array.from({ length: 50 }, (_, i) => make(i)); });"
    for t in $(seq 1 "$TESTS"); do
      case $((t % 5)) in
        0) echo "  test(\"equal $t\", () => { expect(items[$t]).toEqual({ id: $t, name: \"item-$t\", tags: [\"a\", \"b\", \"$((t % 3))\"] }); });" ;;
        1) echo "  test(\"sum $t\", () => { expect(items.reduce((s, i) => s + i.id, 0)).toBe(1225); });" ;;
        2) echo "  test(\"match $t\", () => { expect({ list: items.slice(0, 3) }).toMatchObject({ list: [{ id: 0 }, { id: 1 }, { id: 2 }] }); });" ;;
        3) echo "  test(\"throws $t\", () => { expect(() => JSON.parse(\"{\")).toThrow(); });" ;;
        4) echo "  test(\"async $t\", async () => { const v = await Promise.resolve(items.length); expect(v).toBeGreaterThan(10); });" ;;
      esac
    done
    echo "});"
  } > "$SCRATCH/file_$n.test.ts"
}
for n in $(seq 1 "$FILES"); do generate "$n"; done

# Milliseconds of one run; the run must pass.
time_run() {
  local start end
  start=$(date +%s%N)
  if ! "$@" >/dev/null 2>&1; then
    echo "bench: $* failed" >&2
    "$@" 2>&1 | tail -20 >&2
    exit 1
  fi
  end=$(date +%s%N)
  echo $(( (end - start) / 1000000 ))
}

median() {
  sort -n | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

cd "$SCRATCH"
# One warm-up run each (file cache, bun's transpiler cache), then RUNS timed runs, alternating.
time_run "$BUN" test >/dev/null
time_run "$AWF" test >/dev/null
BUN_TIMES=()
AWF_TIMES=()
for _ in $(seq 1 "$RUNS"); do
  BUN_TIMES+=("$(time_run "$BUN" test)")
  AWF_TIMES+=("$(time_run "$AWF" test)")
done
BUN_MEDIAN=$(printf '%s\n' "${BUN_TIMES[@]}" | median)
AWF_MEDIAN=$(printf '%s\n' "${AWF_TIMES[@]}" | median)

echo "$FILES files x $TESTS tests, $RUNS runs each, $(nproc) cores"
echo "bun $("$BUN" --version): ${BUN_TIMES[*]} ms -> median $BUN_MEDIAN ms"
echo "awf $("$AWF" --version | awk '{print $2}'): ${AWF_TIMES[*]} ms -> median $AWF_MEDIAN ms"
awk -v a="$AWF_MEDIAN" -v b="$BUN_MEDIAN" 'BEGIN { printf "awf/bun: %.2f\n", a / b }'
