#!/bin/sh
# Times N calls of `wfa tool echo` and N runs of /bin/true from the same shell loop; answers
# with both totals in nanoseconds.
cat > /dev/null
n="$1"
ns() { date +%s%N; }
start=$(ns); i=0
while [ "$i" -lt "$n" ]; do /bin/true; i=$((i + 1)); done
floor=$(( $(ns) - start ))
start=$(ns); i=0
while [ "$i" -lt "$n" ]; do "$AWF_WFA" tool echo --text hello > /dev/null || exit 1; i=$((i + 1)); done
calls=$(( $(ns) - start ))
"$AWF_WFA" result "$AWF_TURN" <<WF_JSON
{"calls": $n, "trueNs": $floor, "wfaNs": $calls}
WF_JSON
