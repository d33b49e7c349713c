#!/usr/bin/env bash
# Stop: no end of turn while src/, docs/ or pom.xml changed after the last green sensor run,
# or a hook changed after the last green smoke.sh.
# Decides from the Surefire reports themselves: aiup-sensors-ran is a record, not evidence,
# so touching it lifts nothing. One enforced reminder per turn: on the second stop
# (stop_hook_active) it lets go with a warning for the user.
# shellcheck source=lib.sh disable=SC2154 # aiup_read_input sets the variables it names
. "${BASH_SOURCE[0]%/*}/lib.sh" 2>/dev/null || exit 0
aiup_fail_open
aiup_read_input active=stop_hook_active
aiup_open_project

changed=$(aiup_changed_paths)
sensor_changed=$(aiup_sensor_paths <<<"$changed")
hook_changed=$(aiup_hook_paths <<<"$changed")

# The paths on stdin on one line, three at most: a short reason names examples, not all.
some() {
    awk 'NF { n++; if (n <= 3) line = line (n > 1 ? ", " : "") $0 }
        END { printf "%s", line; if (n > 3) printf " ... and %d more", n - 3; print "" }'
}

problem=""
[ -n "$sensor_changed" ] && problem=$(aiup_evidence_problem <<<"$sensor_changed")
unproven=""
[ -n "$hook_changed" ] && unproven=$(aiup_unproven_hook_paths <<<"$hook_changed")
[ -z "$problem" ] && [ -z "$unproven" ] && exit 0

if [ "$active" = true ]; then
    warning="The turn ended without proof:"
    [ -n "$problem" ] && warning+=" $problem (run $AIUP_SENSOR_COMMAND)."
    [ -n "$unproven" ] &&
        warning+=" Hooks changed since the last green smoke.sh (run $AIUP_SMOKE_COMMAND)."
    jq -n --arg warning "$warning" '{systemMessage: $warning}'
    exit 0
fi

# A short reason (nine lines at most, as Lab 07's contract asks): what is missing, which
# changes need it, the command that earns the end of the turn.
message="You are not done yet."
if [ -n "$problem" ]; then
    message+="
Sensors: $problem.
Changed in this session or not yet committed: $(some <<<"$sensor_changed")
Run the sensors in the foreground and let them finish:
  $AIUP_SENSOR_COMMAND
Only fresh, green reports in $AIUP_REPORT_DIR/ count; console output does not."
fi
if [ -n "$unproven" ]; then
    message+="
Hooks changed after the last green smoke.sh: $(some <<<"$unproven")
Run the hooks' smoke test and make it pass:
  $AIUP_SMOKE_COMMAND"
fi
aiup_block "$message"
