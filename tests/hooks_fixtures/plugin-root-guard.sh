#!/usr/bin/env bash
# A guard written for a plugin, registered in settings.json: it reads its list of refused
# words from ${CLAUDE_PLUGIN_ROOT}, which only a plugin's hooks/hooks.json sets. Elsewhere
# `set -u` stops it at the unset variable: exit 1, "unbound variable", on every call. The
# client shows a hook error and runs the command anyway: verify-hook must fail it.
set -u
refused="$CLAUDE_PLUGIN_ROOT/hooks/refused-words.txt"
input=$(cat)
command=$(jq -r '.tool_input.command // ""' <<<"$input")
while read -r word; do
    if [[ $command == *"$word"* ]]; then
        echo "'$word' is refused here." >&2
        exit 2
    fi
done <"$refused"
exit 0
