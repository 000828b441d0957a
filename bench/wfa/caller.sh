#!/bin/sh
# Times N calls of `wfa tool echo` and N runs of /bin/true from the same shell loop, and reads
# how much CPU awf itself spent during the calls from /proc/<pid>/stat (utime + stime, in
# clock ticks); answers with the totals. awf is this script's grandparent: the parent is the
# agent's keeper (`wfa __keep`).
cat > /dev/null
n="$1"
ns() { date +%s%N; }
awf_pid=$(awk '{ print $4 }' "/proc/$PPID/stat")
[ "$(cat "/proc/$awf_pid/comm")" = awf ] || { echo "caller.sh: process $awf_pid is not awf" >&2; exit 1; }
awf_ticks() { awk '{ print $14 + $15 }' "/proc/$awf_pid/stat"; }
start=$(ns); i=0
while [ "$i" -lt "$n" ]; do /bin/true; i=$((i + 1)); done
floor=$(( $(ns) - start ))
ticks=$(awf_ticks); start=$(ns); i=0
while [ "$i" -lt "$n" ]; do "$AWF_WFA" tool echo --text hello > /dev/null || exit 1; i=$((i + 1)); done
calls=$(( $(ns) - start )); ticks=$(( $(awf_ticks) - ticks ))
"$AWF_WFA" result "$AWF_TURN" <<WF_JSON
{"calls": $n, "trueNs": $floor, "wfaNs": $calls, "awfTicks": $ticks, "ticksPerSecond": $(getconf CLK_TCK)}
WF_JSON
