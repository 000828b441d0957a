#!/usr/bin/env bash
# bench/startup.sh — start-up cost of one small workflow run: `awf run examples/hello/hello.ts`
# beside bun and deno running the same file (through bench/driver.ts and bench/shim.ts, which
# stand in for awf's author globals). Prints, for each, the median wall time (hyperfine, the
# tools taking turns over 6 rounds) and the median peak resident memory (GNU time's %M), then
# awf's ratios to bun and deno, and the share of CPU time a hypervisor stole meanwhile.
#
#   bench/startup.sh [runs]        runs: timed runs per tool (default 50)
#
# Needs: awf built (cargo build --release), npm (bun and deno come from the npm registry, into
# target/bench-tools/ once: packages `bun` and `deno`), hyperfine and /usr/bin/time (Debian:
# apt-get install -y hyperfine time). Targets: awf at most 0.7x bun's wall time, at most 12 MiB.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
runs="${1:-50}"
awf="${AWF_BIN_DIR:-$("$repo/scripts/bin-dir")}/awf"
tools="$repo/target/bench-tools"
hello="$repo/examples/hello/hello.ts"
bun_version=1.4.5
deno_version=2.9.6

[[ -x "$awf" ]] || { echo "startup.sh: no awf at $awf; run cargo build --release" >&2; exit 2; }
for need in npm hyperfine /usr/bin/time; do
  command -v "$need" >/dev/null || { echo "startup.sh: $need is missing (apt-get install -y hyperfine time; npm comes with node)" >&2; exit 2; }
done

# bun and deno from npm, each into its own folder, once.
install() {
  local package="$1" version="$2" dir="$tools/$1-$2"
  if [[ ! -f "$dir/.installed" ]]; then
    echo "installing $package@$version from npm into $dir" >&2
    rm -rf "$dir" && mkdir -p "$dir"
    npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "$package@$version" >&2
    touch "$dir/.installed"
  fi
}
install bun "$bun_version"
install deno "$deno_version"
bun="$tools/bun-$bun_version/node_modules/bun/bin/bun.exe"
# The npm `deno` package's launcher is a node script; time the native binary it starts.
deno="$(find "$tools/deno-$deno_version/node_modules/@deno" -maxdepth 3 -type f -name deno | head -n 1)"
[[ -x "$bun" ]] || { echo "startup.sh: no bun binary at $bun" >&2; exit 2; }
[[ -x "$deno" ]] || { echo "startup.sh: no deno binary under $tools/deno-$deno_version" >&2; exit 2; }

# Work left dirty by what ran before (a test run, the last run of this script) is flushed first,
# so that neither tool pays for its writeback. On ext4 without a journal, file creation stays
# slow for one to five minutes after many files were deleted (the inode allocator steps over
# recently freed inodes; docs/benchmarks.md): space runs of this script a minute apart.
sync
# Every tool runs in a scratch cwd (awf writes its records there), with caches kept warm; deno's
# cache (sqlite files it rewrites on every run) lives beside the tools, out of that cwd.
scratch="$(mktemp -d "${TMPDIR:-/tmp}/awf-bench.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
export DENO_DIR="$tools/deno-cache-$deno_version" DENO_NO_UPDATE_CHECK=1 NO_COLOR=1
cd "$scratch"

awf_cmd=("$awf" run "$hello" -- you)
bun_cmd=("$bun" "$repo/bench/driver.ts" "$hello" you)
deno_cmd=("$deno" run -A --no-check "$repo/bench/driver.ts" "$hello" you)

# The three print the same result.
for name in awf bun deno; do
  declare -n cmd="${name}_cmd"
  out="$("${cmd[@]}" 2>/dev/null)"
  expected=$'{\n  "message": "Hello, you!",\n  "words": 1\n}'
  [[ "$out" == "$expected" ]] || { echo "startup.sh: $name printed something else:" >&2; echo "$out" >&2; exit 1; }
done

# Median wall time in ms. The machine's load drifts, so the tools take turns: several rounds
# of hyperfine, each timing all three, and the median over every round's runs.
rounds=6
per_round=$(( (runs + rounds - 1) / rounds ))
quote() { printf '%q ' "$@"; }
# In a virtual machine the host may take the CPUs away (steal time, /proc/stat's eighth field):
# every tool slows then, awf's file writes more than the rest. The share stolen while timing is
# printed with the figures, so that such a run is told from a calm one.
cpu_ticks() { awk '$1 == "cpu" { print $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9, $9 }' /proc/stat; }
read -r total_before stolen_before < <(cpu_ticks)
for round in $(seq "$rounds"); do
  hyperfine --style none --warmup 2 --runs "$per_round" -N \
    --command-name awf "$(quote "${awf_cmd[@]}")" \
    --command-name bun "$(quote "${bun_cmd[@]}")" \
    --command-name deno "$(quote "${deno_cmd[@]}")" \
    --export-json "$scratch/times-$round.json" >/dev/null 2>&1
done
read -r total_after stolen_after < <(cpu_ticks)
stolen_percent="$(awk -v t=$(( total_after - total_before )) -v s=$(( stolen_after - stolen_before )) \
  'BEGIN { printf "%.1f", (t > 0 ? 100 * s / t : 0) }')"
median_ms() {
  node -e '
    const fs = require("fs");
    const [dir, rounds, name] = process.argv.slice(1);
    const times = [];
    for (let i = 1; i <= Number(rounds); i++) {
      const results = JSON.parse(fs.readFileSync(`${dir}/times-${i}.json`, "utf8")).results;
      times.push(...results.find((r) => r.command === name).times);
    }
    times.sort((a, b) => a - b);
    const mid = times.length / 2;
    const median = times.length % 2 ? times[Math.floor(mid)] : (times[mid - 1] + times[mid]) / 2;
    console.log((median * 1000).toFixed(1));' "$scratch" "$rounds" "$1"
}

# Median peak RSS in KiB over 15 runs.
median_kib() {
  declare -n cmd="$1_cmd"
  for _ in $(seq 15); do
    /usr/bin/time -f '%M' "${cmd[@]}" 2>&1 >/dev/null | tail -n 1
  done | sort -n | sed -n '8p'
}

declare -A ms kib
for name in awf bun deno; do
  ms[$name]="$(median_ms "$name")"
  kib[$name]="$(median_kib "$name")"
done

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
printf '%-6s %12s %14s\n' tool "median ms" "peak RSS MiB"
for name in awf bun deno; do
  printf '%-6s %12s %14s\n' "$name" "${ms[$name]}" "$(mib "${kib[$name]}")"
done
printf '\nawf / bun:  wall %sx, memory %sx\n' "$(ratio "${ms[awf]}" "${ms[bun]}")" "$(ratio "${kib[awf]}" "${kib[bun]}")"
printf 'awf / deno: wall %sx, memory %sx\n' "$(ratio "${ms[awf]}" "${ms[deno]}")" "$(ratio "${kib[awf]}" "${kib[deno]}")"
printf '(%s runs each in %s rounds; awf %s, bun %s, deno %s; %s)\n' "$(( per_round * rounds ))" "$rounds" \
  "$("$awf" --version | cut -d' ' -f2)" "$bun_version" "$deno_version" "$(uname -srm)"
printf 'CPU time stolen by the hypervisor while timing: %s%%%s\n' "$stolen_percent" \
  "$(awk -v p="$stolen_percent" 'BEGIN { if (p >= 2) printf " (a throttled run: the figures are not comparable)" }')"
