#!/bin/sh
# A stand-in for codex, so the example runs offline: it reads the backlog through the tools and
# labels each item by keywords. The label_item call sends JSON on stdin, as its prompt teaches.
cat > /dev/null

count=0
for id in $("$AWF_WFA" tool list_items | cut -d' ' -f1); do
  item=$("$AWF_WFA" tool read_item --id "$id")
  labels='"bug"'
  case "$item" in *"cron job"*) labels="$labels, \"cron\"" ;; esac
  case "$item" in *"build host"*) labels='"ops"' ;; esac
  case "$item" in *screen*) labels="$labels, \"ui\"" ;; esac
  "$AWF_WFA" tool label_item <<WF_JSON
{"id": "$id", "labels": [$labels]}
WF_JSON
  count=$((count + 1))
done

"$AWF_WFA" result "$AWF_TURN" --labelled "$count" --note 'Labelled by keywords in each item.'
