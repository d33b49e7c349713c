#!/usr/bin/env bash
# SubagentStop (the uc-coverage agent): when the coverage agent ended normally, write an audit
# marker for every id it audited, taken from its assignment and from its report's headings.
# A marker says an audit happened, not that it found nothing; the sensors decide that.
#
# Claude Code (2.1.332) sends no stop_reason: the agent's transcript tells how it ended, and
# while that transcript is readable it stays the authority. Other clients and older versions
# may send a stop_reason with the event; when they do, it must say end_turn too. Without a
# readable transcript only an event stop_reason of end_turn counts, and the ids come from the
# report headings alone.
# shellcheck source=lib.sh
. "${BASH_SOURCE[0]%/*}/lib.sh" 2>/dev/null || exit 0
aiup_fail_open
aiup_read_input
aiup_open_project

[ "$(aiup_field agent_type)" = "$AIUP_COVERAGE_AGENT" ] || exit 0
last=$(aiup_field last_assistant_message)
transcript=$(aiup_field agent_transcript_path)
event_reason=$(aiup_field stop_reason)

# Any source that says the agent was cut off (max_tokens, a refusal) wins.
[ -z "$event_reason" ] || [ "$event_reason" = end_turn ] || exit 0

# The stop_reason of the transcript's last assistant entry ("none" when that entry has none,
# "" when the transcript holds no assistant entry at all).
transcript_stop_reason() {
    jq -R -r 'fromjson? | select(type == "object" and .type == "assistant")
        | .message.stop_reason // "none"' "$1" | tail -n 1
}

# The assignment: the first user entry; its content is a string or a list of text blocks.
transcript_assignment() {
    jq -n -R -r 'first(inputs | fromjson? | select(type == "object" and .type == "user"))
        | .message.content
        | if type == "string" then . elif type == "array" then map(.text? // empty) | join("\n")
          else "" end' "$1"
}

assignment=""
if [ -n "$transcript" ] && [ -f "$transcript" ] && [ -r "$transcript" ]; then
    transcript_reason=$(transcript_stop_reason "$transcript")
    if [ -n "$transcript_reason" ]; then
        [ "$transcript_reason" = end_turn ] || exit 0
    else
        [ "$event_reason" = end_turn ] || exit 0
    fi
    assignment=$(transcript_assignment "$transcript")
else
    [ "$event_reason" = end_turn ] || exit 0
fi

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
