#!/bin/sh
# A stand-in for codex, so the example runs offline: it "reviews" src/ with grep and records each
# finding through the workflow's tools, exactly as a real agent is taught to in its prompt.
#   awf run examples/dead-code/tools.ts --runtime codex=examples/dead-code/reviewer.sh --cwd examples/dead-code
cat > /dev/null   # the prompt; this stand-in knows its task

for name in formatDate unusedHelper; do
  file=$(grep -rln "function $name" src | head -n 1)
  line=$(grep -n "function $name" "$file" | head -n 1 | cut -d: -f1)
  # Called nowhere but where it is defined?
  if [ "$(grep -rn "$name" src | wc -l)" -eq 1 ]; then
    "$AWF_WFA" tool add_finding --file "$file" --line "$line" --problem "$name is never called"
  fi
done

# Recording the same finding twice is refused by the workflow's handler; the agent reads why.
"$AWF_WFA" tool add_finding --file src/report.ts --line 11 --problem "duplicate" || true

"$AWF_WFA" tool list_findings

"$AWF_WFA" result "$AWF_TURN" <<'WF_JSON'
Recorded every dead function I found in src/.
WF_JSON
