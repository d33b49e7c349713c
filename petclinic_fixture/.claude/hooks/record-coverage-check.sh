#!/usr/bin/env bash
# SubagentStop (the uc-coverage agent): when the coverage agent ended normally, write an audit
# marker for every id it audited, taken from its assignment and from its report's headings.
# A marker says an audit happened, not that it found nothing; the sensors decide that.
# shellcheck source=lib.sh disable=SC2154 # aiup_read_input sets the variables it names
. "${BASH_SOURCE[0]%/*}/lib.sh" 2>/dev/null || exit 0
aiup_fail_open
aiup_read_input agent_type=agent_type last=last_assistant_message \
    transcript=agent_transcript_path event_reason=stop_reason agent=agent_id
aiup_open_project

# The matcher "aiup-vaadin-jooq:uc-coverage$" is a regex searched anywhere in the agent type,
# so plugin:aiup-vaadin-jooq:uc-coverage is the coverage agent too.
[[ $agent_type == *"$AIUP_COVERAGE_AGENT" ]] || exit 0

# The agent's transcript, read once: how its last assistant entry ended on the first line (its
# stop_reason, "none" when it has none, "" when there is no such entry; "handback" when it
# called SubagentHandback: an interactive Claude Code (2.1.332) runs the agent in the
# background and ends it so), then its assignment (the first user entry, whose content is a
# string or a list of text blocks).
read_transcript() {
    jq -n -R -r '[inputs | fromjson? | select(type == "object")] as $entries
        | ([$entries[] | select(.type == "assistant")] | last
            | if . == null then ""
              elif any(.message.content[]?; type == "object" and .name? == "SubagentHandback")
              then "handback" else .message.stop_reason // "none" end),
          ([$entries[] | select(.type == "user")] | first | .message.content?
            | if type == "string" then . elif type == "array" then map(.text? // empty)
              | join("\n") else "" end)' "$1"
}

# The report the agent handed back (the event's last_assistant_message is empty then).
transcript_handback() {
    jq -n -R -r '[inputs | fromjson? | select(type == "object" and .type == "assistant")
        | .message.content[]? | select(type == "object" and .name? == "SubagentHandback")
        | .input.message? | strings] | last // empty' "$1"
}

reason="" assignment=""
if [ -n "$transcript" ] && [ -f "$transcript" ] && [ -r "$transcript" ]; then
    found=$(read_transcript "$transcript")
    reason=${found%%$'\n'*}
    assignment=${found#"$reason"}
    [ -n "$last" ] || last=$(transcript_handback "$transcript")
fi
# Only a normal end counts. The event's stop_reason decides when it has one (other clients
# send it: end_turn); Claude Code sends none, and then the transcript's decides (end_turn or a
# handback; no readable transcript, no audit).
if [ -n "$event_reason" ]; then
    [ "$event_reason" = end_turn ] || exit 0
else
    case $reason in end_turn | handback) ;; *) exit 0 ;; esac
fi

ids=$({
    printf '%s\n' "$assignment"
    grep -E '^[[:space:]]*#' <<<"$last"
} | aiup_ids_in)
[ -n "$ids" ] || exit 0

dir=$(aiup_state coverage-checked)
mkdir -p "$dir" || exit 0
now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
while IFS= read -r id; do
    echo "coverage audit by ${agent:-$AIUP_COVERAGE_AGENT} at $now" >"$dir/$id"
done <<<"$ids"
exit 0
