#!/usr/bin/env bash
# SessionStart (startup|clear): start the session's bookkeeping.
# Records HEAD as the session base (the file's mtime is the session start: evidence must be
# newer), forgets the evidence of earlier sessions and snapshots every Status line.
# aiup-smoke-ran survives: it holds content hashes of hooks smoke.sh proved, true in any session.
# shellcheck source=lib.sh disable=SC2154 # aiup_read_input sets the variables it names
. "${BASH_SOURCE[0]%/*}/lib.sh" 2>/dev/null || exit 0
aiup_fail_open
aiup_read_input source=source
aiup_open_project

# resume and compact continue a session; only a new one resets its evidence.
case $source in startup | clear | "") ;; *) exit 0 ;; esac

base_file=$AIUP_GIT_DIR/aiup-session-base
# The base is removed first, so a read-only leftover cannot keep an earlier session's base.
rm -rf "$base_file" "$AIUP_GIT_DIR/aiup-sensors-ran" "$AIUP_GIT_DIR/aiup-coverage-checked" \
    "$AIUP_GIT_DIR/aiup-coverage-running"
git rev-parse -q --verify HEAD >"$base_file" || : >"$base_file" # empty when HEAD is unborn
# Whole or not at all: a snapshot cut short (a full disk) would make every Status look new.
snapshot=$AIUP_GIT_DIR/aiup-spec-status
statuses=$(aiup_status_snapshot)
if ! { printf '%s\n' "$statuses" >"$snapshot.tmp" && mv -f "$snapshot.tmp" "$snapshot"; }; then
    rm -f "$snapshot.tmp" "$snapshot"
fi
exit 0
