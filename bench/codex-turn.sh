#!/usr/bin/env bash
# bench/codex-turn.sh — what awf adds to a codex turn: `awf run` of a workflow whose one agent
# (codex) answers one typed turn, against the same `codex exec` run by hand with the same prompt
# and flags, both against the project's fake model server (tests/fake-model) on 127.0.0.1
# scripted to make codex run the answer command and then say "Done.". By hand, the answer
# command is a stub launcher that only prints what wfa would; under awf it is the real one.
# Prints the median wall time of each (hyperfine, the two taking turns over 5 rounds) and their
# ratio.
#
#   bench/codex-turn.sh [runs]      runs: timed runs of each (default 10)
#
# Needs: awf, wfa and fake-model built (cargo build --release --workspace), hyperfine (Debian:
# apt-get install -y hyperfine), node and npm (codex comes from the npm registry at the version
# awf pins, into the same cache the live tests use: $AWF_AGENT_CLI_CACHE, else
# ~/.cache/awf/agent-clis). Target: awf at most 1.05x the hand-run turn.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
runs="${1:-10}"
bin="${AWF_BIN_DIR:-$("$repo/scripts/bin-dir")}"
for built in awf wfa fake-model; do
  [[ -x "$bin/$built" ]] || { echo "codex-turn.sh: no $built in $bin; run cargo build --release --workspace" >&2; exit 2; }
done
for need in hyperfine node npm; do
  command -v "$need" >/dev/null || { echo "codex-turn.sh: $need is missing (apt-get install -y hyperfine; node and npm from nodejs)" >&2; exit 2; }
done

# codex at the pinned version, from the live tests' cache (installed there if missing).
read -r package version < <("$bin/awf" doctor --json | node -e '
  const clis = JSON.parse(require("fs").readFileSync(0, "utf8"));
  const codex = clis.find((c) => c.name === "codex");
  console.log(codex.package, codex.testedVersion);')
cache="${AWF_AGENT_CLI_CACHE:-$HOME/.cache/awf/agent-clis}/${package//\//+}@$version"
if [[ ! -f "$cache/.installed" ]]; then
  echo "installing $package@$version from npm into $cache" >&2
  rm -rf "$cache" && mkdir -p "$cache"
  npm install --prefix "$cache" --no-audit --no-fund --loglevel=error "$package@$version" >&2
  touch "$cache/.installed"
fi
codex="$cache/node_modules/.bin/codex"

scratch="$(mktemp -d "${TMPDIR:-/tmp}/awf-bench.XXXXXX")"
fake_pid=""
trap '[[ -n "$fake_pid" ]] && kill "$fake_pid" 2>/dev/null; rm -rf "$scratch"' EXIT
cd "$scratch"

cat > script.json <<'EOF'
{"prompts": [{"steps": [{"shell": "{wfa} result {turn} --ok 'true'"}, {"text": "Done."}]}]}
EOF
mkfifo fake-out
"$bin/fake-model" --api responses --script script.json --log fake-log > fake-out 2>/dev/null &
fake_pid=$!
read -r listening < fake-out
port="${listening##*:}"
cat fake-out > /dev/null &

export HOME="$scratch/home" CODEX_HOME="$scratch/codex-home" FAKE_API_KEY=dummy NO_COLOR=1
mkdir -p "$HOME" "$CODEX_HOME"
cat > "$CODEX_HOME/config.toml" <<EOF
model_provider = "fake"
check_for_update_on_startup = false
[model_providers.fake]
name = "fake"
base_url = "http://127.0.0.1:$port/v1"
wire_api = "responses"
env_key = "FAKE_API_KEY"
supports_websockets = false
request_max_retries = 0
stream_max_retries = 0
EOF

cat > turn.ts <<'EOF'
export default defineWorkflow({
  meta: { name: "codex-turn", description: "One codex turn." },
  async run(wf) {
    const agent = await wf.agents.open({ key: "a", runtime: { harness: "codex", model: "fake-model" } });
    const { outcome } = await agent.run({ prompt: "Say whether it worked.", schema: typed(Type.Object({ ok: Type.Boolean() })) });
    return outcome.kind;
  },
});
EOF
export PATH="$(dirname "$codex"):$PATH"
awf_cmd=("$bin/awf" run turn.ts)
[[ "$("${awf_cmd[@]}" 2>/dev/null)" == '"answered"' ]] || { echo "codex-turn.sh: the awf turn was not answered" >&2; "${awf_cmd[@]}" >&2; exit 1; }

# By hand: the prompt awf composed, its launcher replaced by a stub that answers as wfa does.
mkdir -p stub/a1
printf '#!/bin/sh\necho "answer accepted for turn t1"\n' > stub/a1/wfa
chmod +x stub/a1/wfa
node -e '
  const fs = require("fs");
  const lines = fs.readFileSync(process.argv[1], "utf8").trim().split("\n").map(JSON.parse);
  const started = lines.find((e) => e.event === "turn-started");
  const opened = lines.find((e) => e.event === "agent-opened");
  fs.writeFileSync("prompt.txt", started.prompt.split(opened.launcher).join(process.argv[2]));
' "$(ls -d .awf/runs/codex-turn/*/ | head -n 1)events.jsonl" "$scratch/stub/a1/wfa"
hand_cmd="$codex exec --json --skip-git-repo-check -c allow_login_shell=false -c sandbox_mode=\"workspace-write\" -c sandbox_workspace_write.network_access=true -m fake-model - < prompt.txt > /dev/null"
awf_line="$(printf '%q ' "${awf_cmd[@]}") > /dev/null 2>&1"

# The machine's load drifts, so the two take turns: rounds of hyperfine, each timing both, and
# the median over every round's runs.
rounds=5
per_round=$(( (runs + rounds - 1) / rounds ))
for round in $(seq "$rounds"); do
  hyperfine --style none --warmup 1 --runs "$per_round" \
    --command-name awf "$awf_line" \
    --command-name "codex exec by hand" "$hand_cmd" \
    --export-json "times-$round.json" >/dev/null 2>&1
done
node -e '
  const fs = require("fs");
  const times = { awf: [], hand: [] };
  for (let round = 1; round <= Number(process.argv[1]); round++) {
    const { results } = JSON.parse(fs.readFileSync(`times-${round}.json`, "utf8"));
    times.awf.push(...results[0].times);
    times.hand.push(...results[1].times);
  }
  const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor((s.length - 1) / 2)] * 1000; };
  console.log(`codex turn by hand:  ${median(times.hand).toFixed(0)} ms (median of ${times.hand.length})`);
  console.log(`the same under awf:  ${median(times.awf).toFixed(0)} ms (median of ${times.awf.length})`);
  console.log(`ratio:               ${(median(times.awf) / median(times.hand)).toFixed(3)}x (target: at most 1.05x)`);
' "$rounds"
