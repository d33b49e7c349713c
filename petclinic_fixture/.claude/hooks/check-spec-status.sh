#!/usr/bin/env bash
# PostToolUse and PostToolUseFailure (every tool): re-read every Status line and report one
# that changed to an asserting value (Done, Tested, Automated) without a fresh coverage audit,
# whatever tool made the change (sed, a heredoc, a script), even one that then exited non-zero.
# Each change is reported once: the snapshot moves on.
# shellcheck source=lib.sh
. "${BASH_SOURCE[0]%/*}/lib.sh" 2>/dev/null || exit 0
aiup_fail_open
# shellcheck disable=SC2119 # no field: this hook reads the specs, not the event
aiup_read_input
aiup_open_project

snapshot=$AIUP_GIT_DIR/aiup-spec-status
now=$(aiup_status_snapshot)
if [ ! -f "$snapshot" ]; then
    # No session start seen: this snapshot is the baseline (whole or not at all).
    if ! { printf '%s\n' "$now" >"$snapshot.tmp" && mv -f "$snapshot.tmp" "$snapshot"; }; then
        rm -f "$snapshot.tmp"
    fi
    exit 0
fi

# The snapshot as a table: file -> Status before (a file's first line counts).
declare -A status_before=()
while IFS= read -r line; do
    file=${line%%$'\t'*}
    if [ -n "$file" ] && [ "$file" != "$line" ] && [ -z "${status_before[$file]+set}" ]; then
        status_before[$file]=${line#*$'\t'}
    fi
done <"$snapshot"

reports=""
while IFS=$'\t' read -r file status; do
    [ -n "$file" ] || continue
    before=${status_before[$file]-}
    [ "$status" = "$before" ] && continue
    aiup_is_asserting "$status" || continue
    id=$(aiup_spec_id "$file") || continue
    problem=$(aiup_audit_problem "$id")
    [ -n "$problem" ] || continue
    reports+="  $file now reads \"**Status:** $status\" "
    reports+="(was \"${before:-no Status}\"): $problem."$'\n'
    ids+=" $id"
done <<<"$now"

printf '%s\n' "$now" >"$snapshot.tmp" && mv -f "$snapshot.tmp" "$snapshot"
[ -n "$reports" ] || exit 0

aiup_block "A Status line changed to an assertion without a coverage audit:
${reports}Set it back, or audit first and then make the change again:

$(for id in $ids; do echo "  $AIUP_AUDIT_COMMAND $id"; done)

then run the sensors ($AIUP_SENSOR_COMMAND)."
