#!/bin/sh
# One agent of bench/load.sh: $CALLS calls of the `work` tool, each timed in nanoseconds into
# lat/<agent>.txt, then the answer.
cat > /dev/null
i=0
: > "lat/$AWF_AGENT.txt"
while [ "$i" -lt "$CALLS" ]; do
  s=$(date +%s%N)
  "$AWF_WFA" tool work --n "$i" > /dev/null || echo "call $i failed" >> errors.txt
  e=$(date +%s%N)
  echo $((e - s)) >> "lat/$AWF_AGENT.txt"
  i=$((i + 1))
done
"$AWF_WFA" result "$AWF_TURN" <<'WF_JSON'
done
WF_JSON
