#!/usr/bin/env bash
# SubagentStop (the uc-coverage agent): when the coverage agent ended normally, write an audit
# marker for every id it audited, taken from its assignment and from its report's headings.
# A marker says an audit happened, not that it found nothing; the sensors decide that.
# SubagentStart: note that an audit runs, so the status guard can say so until it ends.
# shellcheck source=lib.sh disable=SC2154 # aiup_read_input sets the variables it names
. "${BASH_SOURCE[0]%/*}/lib.sh" 2>/dev/null || exit 0
aiup_fail_open
aiup_read_input event=hook_event_name agent_type=agent_type agent=agent_id \
    transcript=agent_transcript_path event_reason=stop_reason
aiup_open_project

# The matcher "aiup-vaadin-jooq:uc-coverage$" is a regex searched anywhere in the agent type,
# so plugin:aiup-vaadin-jooq:uc-coverage is the coverage agent too.
[[ $agent_type == *"$AIUP_COVERAGE_AGENT" ]] || exit 0

# One file per running agent, named by its id; its end (normal or not) removes it.
running=$AIUP_GIT_DIR/aiup-coverage-running/${agent//\//_}
if [ "$event" = SubagentStart ]; then
    mkdir -p "${running%/*}" && : >"$running"
    exit 0
fi
rm -f "$running"

# read_transcript FILE REPORT: the agent's transcript, read once. Prints how its last
# assistant entry ended (its stop_reason, "none" when it has none, "" when there is no such
# entry; "handback" when it called SubagentHandback: an interactive Claude Code (2.1.332) runs
# the agent in the background and ends it so), then a line "UC 7" for each use case or test
# case ("uc 7", "UC7", "uc-007") named in its assignment (the first user entry) or in a heading
# of its report (REPORT, the event's last_assistant_message, or else the one it handed back).
read_transcript() {
    jq -n -R -r --arg report "$2" '
        def handbacks: .message.content[]? | select(.name? == "SubagentHandback");
        def text: if type == "string" then .
            elif type == "array" then map(.text? // empty) | join("\n") else "" end;
        [inputs | fromjson? | select(type == "object")] as $entries
        | [$entries[] | select(.type == "assistant")] as $said
        | ([$entries[] | select(.type == "user")] | first | .message.content? | text) as $assignment
        | (if $report != "" then $report
           else [$said[] | handbacks | .input.message? | strings] | last // "" end) as $report
        | ($said | last | if . == null then "" elif [handbacks] != [] then "handback"
            else .message.stop_reason // "none" end),
          ($assignment, ($report | split("\n")[] | select(test("^[[:space:]]*#")))
            | scan("(?i)\\b(uc|tc)[ _-]?([0-9]{1,4})\\b") | "\(.[0] | ascii_upcase) \(.[1])")
        ' "$1"
}

[ -n "$transcript" ] && [ -f "$transcript" ] && [ -r "$transcript" ] || transcript=/dev/null
found=$(read_transcript "$transcript" "$(aiup_field last_assistant_message)")
reason=${found%%$'\n'*}
ids=${found:${#reason}+1} # the lines after the first
# Only a normal end counts. The event's stop_reason decides when it has one (other clients
# send it: end_turn); Claude Code sends none, and then the transcript's decides (end_turn or a
# handback; no readable transcript, no audit).
if [ -n "$event_reason" ]; then [ "$event_reason" = end_turn ] || exit 0
elif [[ ! $reason =~ ^(end_turn|handback)$ ]]; then exit 0; fi
[ -n "$ids" ] || exit 0

dir=$AIUP_GIT_DIR/aiup-coverage-checked
[ -d "$dir" ] || mkdir -p "$dir" || exit 0
printf -v now '%(%Y-%m-%dT%H:%M:%S%z)T' -1
while read -r kind number; do
    printf -v id '%s-%03d' "$kind" "$((10#$number))" # UC 7 -> UC-007
    echo "coverage audit by ${agent:-$AIUP_COVERAGE_AGENT} at $now" >"$dir/$id"
done <<<"$ids"
exit 0
