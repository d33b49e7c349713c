#!/usr/bin/env bash
# PostToolUse (Bash): after a Maven test run, read the sensor reports (never the console).
# When every one is green and fresh, record the change list they cover in aiup-sensors-ran;
# otherwise drop the record and tell Claude why the run does not count.
# shellcheck source=lib.sh disable=SC2154 # aiup_read_input sets the variables it names
. "${BASH_SOURCE[0]%/*}/lib.sh" 2>/dev/null || exit 0
aiup_fail_open
aiup_read_input tool=tool_name background=tool_input.run_in_background
aiup_open_project
command=$(aiup_field tool_input.command) # it may span lines

# A Maven call (mvnw or mvn) that reaches the test phase; test-compile does not.
# (Newlines are [[:space:]]: a multi-line command is judged line by line in effect.)
maven='(^|[[:space:];&|(])(\./)?(mvnw|mvn)([[:space:]]|$)'
phase='(^|[[:space:]])(test|verify|package|install)([[:space:];&|)]|$)'
[[ $command =~ $maven ]] || exit 0
[[ $command =~ $phase ]] || exit 0
# Claude Code always names the tool; some other clients leave tool_name out of a shell call,
# so a command without a tool name is taken for Bash.
if [ -z "$tool" ] && [ -n "$command" ]; then tool=Bash; fi
[ "$tool" = Bash ] || exit 0

changed=$(aiup_changed_paths)
problem=$(aiup_sensor_paths <<<"$changed" | aiup_evidence_problem)
record=$AIUP_GIT_DIR/aiup-sensors-ran
if [ -z "$problem" ]; then
    {
        printf '# sensor reports green and fresh at %(%Y-%m-%dT%H:%M:%S%z)T; changes covered:\n' -1
        printf '%s\n' "$changed"
    } >"$record"
    exit 0
fi

rm -f "$record"
note="This run does not count as sensor evidence: $problem."
if [ "$background" = true ]; then
    note+=" It runs in the background, so its reports are not written yet."
fi
note+=" Run $AIUP_SENSOR_COMMAND in the foreground; only its reports count."
jq -n --arg note "$note" \
    '{hookSpecificOutput: {hookEventName: "PostToolUse", additionalContext: $note}}'
exit 0
