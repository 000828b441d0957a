#!/bin/sh
# A stand-in planner: it reads its prompt and answers the way the prompt teaches it, with the
# launcher awf gives it ($AWF_WFA) and the turn id ($AWF_TURN). Any executable can be an agent.
prompt=$(cat)
case "$prompt" in
  *"--title"*)
    # A typed turn: the prompt teaches flags; each value in single quotes.
    topic=$(printf '%s\n' "$prompt" | grep '^Plan ' | head -n 1 | sed -e 's/^Plan //' -e 's/\.$//')
    "$AWF_WFA" result "$AWF_TURN" --title "Notes on $topic" --sections '3'
    ;;
  *)
    "$AWF_WFA" result "$AWF_TURN" <<'WF_JSON'
Sound: three sections keep it short.
WF_JSON
    ;;
esac
