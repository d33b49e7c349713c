#!/usr/bin/env bash
# SubagentStop (the uc-coverage agent): when the coverage agent ended normally, write an audit
# marker for every id it audited, taken from its assignment and from its report's headings.
# A marker says an audit happened, not that it found nothing; the sensors decide that.
#
# How the agent ended: the event's stop_reason decides when the event carries one (other
# clients and older versions send it), and it must say end_turn. Claude Code (2.1.332) sends
# none: then the agent's transcript decides, by its last assistant entry's stop_reason. Without
# a readable transcript the ids come from the report headings alone.
# shellcheck source=lib.sh
. "${BASH_SOURCE[0]%/*}/lib.sh" 2>/dev/null || exit 0
aiup_fail_open
aiup_read_input
aiup_open_project

aiup_is_coverage_agent "$(aiup_field agent_type)" || exit 0
last=$(aiup_field last_assistant_message)
transcript=$(aiup_field agent_transcript_path)
event_reason=$(aiup_field stop_reason)

# The stop_reason of the transcript's last assistant entry ("none" when that entry has none,
# "" when the transcript holds no assistant entry at all): only end_turn is a normal end. An
# interactive Claude Code (2.1.332) runs the agent in the background and has it end by calling
# SubagentHandback with its report; that entry reads "handback", a normal end too.
transcript_stop_reason() {
    jq -R -r 'fromjson? | select(type == "object" and .type == "assistant")
        | if any(.message.content[]?; type == "object" and .name? == "SubagentHandback")
          then "handback" else .message.stop_reason // "none" end' "$1" | tail -n 1
}

# The report the agent handed back (the event's last_assistant_message is empty then).
transcript_handback() {
    jq -n -R -r '[inputs | fromjson? | select(type == "object" and .type == "assistant")
        | .message.content[]? | select(type == "object" and .name? == "SubagentHandback")
        | .input.message? | strings] | last // empty' "$1"
}

# The assignment: the first user entry; its content is a string or a list of text blocks.
transcript_assignment() {
    jq -n -R -r 'first(inputs | fromjson? | select(type == "object" and .type == "user"))
        | .message.content
        | if type == "string" then . elif type == "array" then map(.text? // empty) | join("\n")
          else "" end' "$1"
}

readable=false
[ -n "$transcript" ] && [ -f "$transcript" ] && [ -r "$transcript" ] && readable=true
if [ -n "$event_reason" ]; then
    [ "$event_reason" = end_turn ] || exit 0
elif ! $readable; then
    exit 0
else
    case $(transcript_stop_reason "$transcript") in end_turn | handback) ;; *) exit 0 ;; esac
fi
assignment=""
if $readable; then
    assignment=$(transcript_assignment "$transcript")
    [ -n "$last" ] || last=$(transcript_handback "$transcript")
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
