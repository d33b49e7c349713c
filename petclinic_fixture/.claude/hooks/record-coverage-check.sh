#!/usr/bin/env bash
# SubagentStop (the uc-coverage agent): when the coverage agent ended normally, write an audit
# marker for every id it audited, taken from its assignment and from its report's headings.
# A marker says an audit happened, not that it found nothing; the sensors decide that.
# shellcheck source=lib.sh
. "${BASH_SOURCE[0]%/*}/lib.sh" 2>/dev/null || exit 0
aiup_fail_open
aiup_read_input
aiup_open_project

[ "$(aiup_field agent_type)" = "$AIUP_COVERAGE_AGENT" ] || exit 0
last=$(aiup_field last_assistant_message)
[ -n "${last//[[:space:]]/}" ] || exit 0
transcript=$(aiup_field agent_transcript_path)
[ -f "$transcript" ] || exit 0

# Ended normally: the transcript's last assistant entry stopped at end_turn (not max_tokens).
stop_reason=$(jq -R -r 'fromjson? | select(type == "object" and .type == "assistant")
    | .message.stop_reason // "none"' "$transcript" | tail -n 1)
[ "$stop_reason" = end_turn ] || exit 0

# The assignment is the first user entry; its content is a string or a list of blocks.
assignment=$(jq -n -R -r 'first(inputs | fromjson? | select(type == "object" and .type == "user"))
    | .message.content
    | if type == "string" then . elif type == "array" then map(.text? // empty) | join("\n") else "" end' \
    "$transcript")

ids=$({
    printf '%s\n' "$assignment"
    grep -E '^[[:space:]]*#' <<<"$last"
} | aiup_ids_in)
[ -n "$ids" ] || exit 0

dir=$(aiup_state coverage-checked)
mkdir -p "$dir" || exit 0
agent=$(aiup_field agent_id)
while IFS= read -r id; do
    printf 'coverage audit by %s at %s\n' "${agent:-$AIUP_COVERAGE_AGENT}" \
        "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$dir/$id"
done <<<"$ids"
exit 0
