#!/bin/sh
# A stand-in writer: answers text turns through a quoted heredoc, as its prompt teaches.
prompt=$(cat)
case "$prompt" in
  Write*)
    title=$(printf '%s\n' "$prompt" | head -n 1 | sed -e 's/^Write "//' -e 's/" in .*//')
    "$AWF_WFA" result "$AWF_TURN" <<WF_JSON
# $title

One. Two. Three.
WF_JSON
    ;;
  *)
    "$AWF_WFA" result "$AWF_TURN" <<'WF_JSON'
Nothing; it is already short.
WF_JSON
    ;;
esac
