#!/bin/sh
# A stand-in agent: it reads its prompt on stdin and does what the prompt teaches, through the
# launcher awf gives it ($AWF_WFA) for the turn it works on ($AWF_TURN). Any executable can be
# an agent; a real one is a model in a CLI (runtime: "codex", "claude", ...).
cat > /dev/null
"$AWF_WFA" tool add_note --text 'awf runs workflows written in TypeScript'
"$AWF_WFA" tool add_note --text 'agents call the workflow'\''s tools with wfa'
"$AWF_WFA" result "$AWF_TURN" --title 'Two notes' --notes '2'
