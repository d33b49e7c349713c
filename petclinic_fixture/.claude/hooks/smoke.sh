#!/usr/bin/env bash
# smoke.sh: the hooks' own test. Run it after you change a hook:  ./.claude/hooks/smoke.sh
# It plays each hook's events against a throwaway git repository (real git, real JSON, Surefire
# reports it writes itself), one line per check. When all pass, it records content hashes of
# the hooks in this project's git dir (aiup-smoke-ran): after a hook change, the Stop hook lets
# a turn end only then. The workshop's own tests add the rest (session start, fail open, ...).
#   ./.claude/hooks/smoke.sh [GROUP...]    only those groups (then nothing is recorded)
#   AIUP_SMOKE_FAIL_FAST=1                 stop at the first failed check
set -u
GROUPS_ALL=(evidence reports changes self guard check audit)
groups=("${@:-${GROUPS_ALL[@]}}")
for group in "${groups[@]}"; do [[ " ${GROUPS_ALL[*]} " == *" $group "* ]] ||
    { echo "smoke: no check group '$group'; choose from: ${GROUPS_ALL[*]}" >&2 && exit 1; }; done
for tool in jq git; do command -v "$tool" >/dev/null ||
    { echo "smoke: no $tool: the hooks stand down without it; nothing to prove" >&2 && exit 1; }
done
hooks=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P) || exit 1
# shellcheck source=lib.sh
. "$hooks/lib.sh" || exit 1 # the names the hooks use: AIUP_SENSORS, AIUP_SENSOR_COMMAND, ...
started=$(date +%s%N)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/aiup-smoke.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0 code=0 out="" err=""
# --- checks ----------------------------------------------------------------------------------
# check NAME COMMAND...: one check, one line. A failure also shows how the last hook ended.
check() {
    local name=$1 && shift
    if "$@" >/dev/null 2>&1; then passed=$((passed + 1)) && echo "  ok   $name" && return; fi
    failed=$((failed + 1)) && echo "  FAIL $name"
    echo "       the last hook exited $code${err:+: $(head -n 1 <<<"$err" | cut -c 1-50)}"
    [ -z "${AIUP_SMOKE_FAIL_FAST:-}" ] ||
        { echo "smoke: stopped at the first failed check ($passed passed before it)" && exit 1; }
}
# blocks NAME EVENT...: fires EVENT (e.g. stop), wants exit 2; allows exit 0; silent 0, no word.
blocks() { "${@:2}"; check "$1" test "$code" = 2; }
allows() { "${@:2}"; check "$1" test "$code" = 0; }
silent() { "${@:2}"; check "$1" test "$code" = 0 -a -z "$out$err"; }
says() { check "$1" grep -qF -- "$2" <<<"$err"; }
exists() { check "$1" test -e "$2"; }
absent() { check "$1" test ! -e "$2"; }

# --- the throwaway project ----------------------------------------------------------------
project=$tmp/project
state=$project/.git/aiup # the hooks' state: $state-sensors-ran, $state-coverage-checked/...
SRC=src/main/java/ai/unifiedprocess/petclinic/owner/OwnerService.java
UC3=docs/use_cases/UC-003-register-new-owner.md
UC5=docs/use_cases/UC-005-add-visit.md
TC1=docs/test_cases/TC-001-register-owner.md
# git for the throwaway repository, without the user's own configuration.
g() { GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 git -C "$project" -c user.name=smoke \
    -c user.email=smoke@example.invalid "$@"; }
# File times move in kernel ticks (4 ms at HZ=250): wait so that the next write is newer.
tick() { sleep 0.01; }
change() { tick && echo "# changed" >>"$project/$1" && tick || exit 1; }
spec() { printf '# %s\n\n**Status:** %s\n\n1. Step\n' "$2" "$3" >"$project/$1"; }
make_project() {
    mkdir -p "$project/${SRC%/*}" "$project/docs/use_cases" "$project/docs/test_cases" \
        "$project/.claude" && cd "$project" || exit 1
    echo '<project/>' >pom.xml && echo 'class OwnerService {}' >"$SRC"
    spec "$UC3" "UC-003 Register new owner" Done && spec "$UC5" "UC-005 Add visit" Approved
    # "Draft" twice: only replace_all reaches the Status line.
    printf '# TC-001 Draft owner registration\n\n**Status:** Draft\n' >"$TC1"
    echo 'target/' >.gitignore && echo 'PetClinic' >README.md && cp -R "$hooks" .claude/hooks
    cp "$hooks/../settings.json" .claude/ 2>/dev/null
    g init -q -b main && g add -A && g commit -q -m fixture && initial=$(g rev-parse HEAD)
}
# fresh: the project as committed, no state, a new session.
fresh() { g reset -q --hard "$initial" && g clean -q -fdx && rm -rf "$state"-* && start; }
# report NAME TESTS FAILURES ERRORS: one Surefire report, as the test JVM writes it.
report() {
    printf '<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="ai.unifiedprocess.petclinic.%s" tests="%s" errors="%s" failures="%s">
  <testcase name="rule" classname="ai.unifiedprocess.petclinic.%s"/>
</testsuite>\n' "$1" "$2" "$4" "$3" "$1" \
        >"$project/$AIUP_REPORT_DIR/TEST-ai.unifiedprocess.petclinic.$1.xml"
}
# sensors [TESTS FAILURES ERRORS]: what ./mvnw -q test -Dgroups=sensor leaves: the old reports
# gone, one new report per sensor (the counts go to UseCaseTraceabilityTest's).
sensors() {
    tick && rm -rf "${project:?}/target" && mkdir -p "$project/$AIUP_REPORT_DIR"
    for name in "${AIUP_SENSORS[@]}"; do report "$name" 4 0 0; done
    report UseCaseTraceabilityTest "${1:-3}" "${2:-0}" "${3:-0}" && tick
}

# --- events, one hook each, with the JSON Claude Code sends ----------------------------------
# run HOOK JSON: the project's copy of HOOK, JSON on stdin, in the project. Sets code, out, err.
run() {
    code=0 && out=$(cd "$project" && CLAUDE_PROJECT_DIR=$project ".claude/hooks/$1" \
        2>"$tmp/err" <<<"$2") || code=$?
    err=$(<"$tmp/err")
}
# q TEXT: TEXT as a JSON string.
q() { local t=${1//\\/\\\\} && t=${t//\"/\\\"} && printf '"%s"' "${t//$'\n'/\\n}"; }
start() { run session-start.sh '{"source": "startup"}'; }
stop() { run require-sensors.sh '{"stop_hook_active": false}'; }
stop_again() { run require-sensors.sh '{"stop_hook_active": true}'; }
# ran COMMAND: PostToolUse of a Bash call, for record-sensor-run.sh.
ran() { run record-sensor-run.sh '{"tool_name": "Bash", "tool_input": {"command": '"$(q "$1")}}"; }
# after: a tool call ended (PostToolUse): check-spec-status.sh.
after() { run check-spec-status.sh '{"hook_event_name": "PostToolUse"}'; }
# edit FILE OLD NEW [REPLACE_ALL] and write FILE CONTENT: PreToolUse, for guard-spec-status.sh.
edit() {
    run guard-spec-status.sh "{\"tool_name\": \"Edit\", \"tool_input\": {\"file_path\":
        $(q "$project/$1"), \"old_string\": $(q "$2"), \"new_string\": $(q "$3"),
        \"replace_all\": ${4:-false}}}"
}
write() {
    run guard-spec-status.sh "{\"tool_name\": \"Write\", \"tool_input\": {
        \"file_path\": $(q "$project/$1"), \"content\": $(q "$2")}}"
}
# audit AGENT ASSIGNMENT REPORT [STOP_REASON]: SubagentStop of an agent whose transcript starts
# with ASSIGNMENT and ends with REPORT (end_turn unless told). Claude Code sends no stop_reason.
audit() {
    printf '{"type": "user", "message": {"content": %s}}\n' "$(q "$2")" >"$tmp/agent.jsonl"
    printf '{"type": "assistant", "message": {"stop_reason": "%s", "content": [%s]}}\n' \
        "${4:-end_turn}" "{\"type\": \"text\", \"text\": $(q "$3")}" >>"$tmp/agent.jsonl"
    run record-coverage-check.sh "{\"agent_type\": $(q "$1"), \"agent_id\": \"a1\",
        \"last_assistant_message\": $(q "$3"), \"agent_transcript_path\": \"$tmp/agent.jsonl\"}"
}
marker() { echo "$state-coverage-checked/$1"; } # an audit's marker, for the id $1

# --- the groups ----------------------------------------------------------------------------
group_evidence() {
    echo "-- the Stop hook: which sensor runs count"
    fresh && silent "no change: the turn may end" stop
    change "$SRC" && blocks "a change without a sensor run blocks" stop
    says "the message names the changed file" "$SRC"
    says "the message names the command to run" "$AIUP_SENSOR_COMMAND"
    allows "the second stop (stop_hook_active) lets the turn end" stop_again
    ran "$AIUP_SENSOR_COMMAND"
    check "a clean console without reports is no run" grep -qF "does not count" <<<"$out"
    blocks "a clean console without reports blocks" stop
    sensors && ran "$AIUP_SENSOR_COMMAND"
    check "a green run is recorded in the git dir" grep -qxF "$SRC" "$state-sensors-ran"
    silent "fresh, green reports let the turn end" stop
    touch "$state-sensors-ran" && rm -rf target
    blocks "reports removed (mvn clean) block again; the record proves nothing" stop
    fresh && sensors && change "$SRC" && blocks "a change after the last green run blocks" stop
    says "the message names the late change" "$SRC changed after"
    for name in "${AIUP_SENSORS[@]:0:4}"; do report "$name" 4 0 0; done
    blocks "one report older than the change blocks, however new the others" stop
    change "$SRC" && sensors && start && blocks "reports from before the session do not count" stop
    fresh && change "$SRC" && mkdir -p target/surefire-reports && report OwnerServiceTest 5 0 0
    blocks "a run narrowed with -Dtest= proves nothing" stop
}

group_reports() {
    echo "-- the Stop hook: what a Surefire report must say"
    fresh && change "$SRC" && sensors 3 1 0 && blocks "a failed sensor blocks" stop
    sensors 3 0 1 && blocks "an errored sensor blocks" stop
    sensors 0 0 0 && blocks "a report that counts no test blocks" stop
    sensors && rm "$project/$AIUP_REPORT_DIR"/*BusinessRuleTraceabilityTest.xml
    blocks "a run without the BusinessRuleTraceabilityTest report blocks" stop
    sensors && sed -i '$d' "$project/$AIUP_REPORT_DIR"/*UseCaseTraceabilityTest.xml
    blocks "a report cut off before </testsuite> blocks" stop
}

group_changes() {
    echo "-- the Stop hook: what counts as a change"
    fresh && change "$SRC" && sensors && g commit -q -am "owner service"
    allows "a commit after a green run keeps it green" stop
    change "$SRC" && g commit -q -am again && blocks "a commit does not lift the guard" stop
    for path in pom.xml "$UC5" src/main/java/New.java; do
        fresh && sensors && change "$path" && blocks "a change to $path after the run blocks" stop
    done
    fresh && sensors && tick && g rm -q "$SRC" && blocks "a deletion after the run blocks" stop
    fresh && sensors && tick && g mv "$SRC" src/R.java && blocks "a rename after it blocks" stop
    fresh && sensors && change README.md
    silent "a change outside src/, docs/ and pom.xml does not need the sensors" stop
}

group_self() {
    echo "-- self-guarding: a hook change holds the turn until smoke.sh is green"
    fresh && change .claude/hooks/session-start.sh && blocks "a changed hook blocks" stop
    says "the message names smoke.sh" "$AIUP_SMOKE_COMMAND"
    (cd "$project" && record_smoke) && silent "after smoke.sh recorded it, the turn may end" stop
    change .claude/hooks/session-start.sh && touch "$state-smoke-ran"
    blocks "a touched aiup-smoke-ran proves nothing" stop
    fresh && change .claude/settings.json && blocks "a changed settings.json blocks" stop
}

group_guard() {
    echo "-- the status guard (PreToolUse Edit|Write): no Done without an audit"
    fresh && blocks "Approved -> Done is refused" edit "$UC5" "Status:** Approved" "Status:** Done"
    says "the message quotes the line" "would read \"**Status:** Done\""
    says "the message names the audit to run" "$AIUP_AUDIT_COMMAND UC-005"
    blocks "a mid-line edit (Approved -> Done) is refused" edit "$UC5" Approved Done
    blocks "replace_all Draft -> Automated is refused" edit "$TC1" Draft Automated true
    blocks "a new spec written as Done is refused" \
        write docs/use_cases/UC-009-cancel-visit.md $'# UC-009\n\n**Status:** Done\n'
    allows "Done -> Draft passes" edit "$UC3" "**Status:** Done" "**Status:** Draft"
    allows "other files pass" edit README.md PetClinic "**Status:** Done"
    audit "$AIUP_COVERAGE_AGENT" "Check the coverage of UC-005" "# Coverage report: UC-005"
    allows "after an audit of UC-005 the edit passes" edit "$UC5" Approved Done
    change "$SRC" && blocks "an audit older than a src/ change is stale" edit "$UC5" Approved Done
    says "the message says so" stale
}

group_check() {
    echo "-- the status check (after every tool): a Done that slipped through"
    fresh && tick && sed -i 's/Approved/Done/' "$UC5" && blocks "a sed to Done is reported" after
    says "the report names the file" "$UC5"
    says "and the audit to run" "$AIUP_AUDIT_COMMAND UC-005"
    allows "the same change is reported once" after
    spec docs/test_cases/TC-002-find-owner.md TC-002 Automated
    blocks "a new spec that claims Automated is reported" after
    sed -i 's/Done/Draft/' "$UC3" && allows "Done -> Draft is not reported" after
    audit "$AIUP_COVERAGE_AGENT" "Audit UC-003" "# Coverage report: UC-003"
    sed -i 's/Draft/Tested/' "$UC3" && allows "Tested after an audit is not reported" after
}

group_audit() {
    local agent=$AIUP_COVERAGE_AGENT
    echo "-- audit markers (SubagentStop of the coverage agent)"
    fresh && silent "the audit hook says nothing" audit "$agent" "Check UC-005." "All covered."
    exists "the assignment's id is marked" "$(marker UC-005)"
    audit "$agent" "Check uc 7." "# Coverage report" && exists "'uc 7' is UC-007" "$(marker UC-007)"
    audit "$agent" "Check UC-008" "# Coverage report: UC-008 (part" max_tokens
    absent "an agent cut off (max_tokens) marks nothing" "$(marker UC-008)"
    audit general-purpose "Check UC-004" "# Coverage report: UC-004"
    absent "another agent marks nothing" "$(marker UC-004)"
}

# --- run the groups, then record what was proved ------------------------------------------
# The record a green smoke.sh leaves: every hook file and every changed hook path, hashed.
record_smoke() {
    CLAUDE_PROJECT_DIR=$PWD aiup_open_project # sets what aiup_changed_paths reads
    { find .claude/hooks -type f && ls .claude/settings.json
        aiup_changed_paths | aiup_hook_paths; } 2>/dev/null |
        sort -u | aiup_hook_fingerprints >"$AIUP_GIT_DIR/aiup-smoke-ran"
}

make_project
for group in "${groups[@]}"; do "group_$group"; done
elapsed=$((($(date +%s%N) - started) / 10000000)) # centiseconds
printf 'smoke: %d/%d checks passed in %d.%02d s\n' "$passed" $((passed + failed)) \
    $((elapsed / 100)) $((elapsed % 100))
[ "$failed" = 0 ] || exit 1
[ "${#groups[@]}" = "${#GROUPS_ALL[@]}" ] ||
    { echo "smoke: only ${groups[*]} ran; nothing recorded" && exit 0; }

# Record it for the project these hooks belong to.
home=${CLAUDE_PROJECT_DIR:-$(cd "$hooks/../.." && pwd -P)}
if [ "$(cd "$home/.claude/hooks" 2>/dev/null && pwd -P)" != "$hooks" ]; then
    echo "smoke: proved $hooks, not the hooks of $home; nothing recorded"
elif ! cd "$home" || [ "$(git rev-parse --is-inside-work-tree 2>/dev/null)" != true ]; then
    echo "smoke: $home is not a git repository; nothing recorded"
elif record_smoke; then
    echo "smoke: recorded in ${AIUP_GIT_DIR#"$PWD"/}/aiup-smoke-ran"
fi
