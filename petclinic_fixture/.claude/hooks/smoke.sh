#!/usr/bin/env bash
# smoke.sh: proves the guard hooks in this directory against a throwaway git repository.
#
# It fires each Claude Code event the way ../settings.json registers it (matchers included),
# with real JSON on stdin, real git and Surefire reports it writes itself (no Maven). Every
# failed check is printed, the count comes last (AIUP_SMOKE_FAIL_FAST=1 stops at the first
# failure). When all pass it records the hooks it proved (content hashes) as aiup-smoke-ran in
# the project's git dir, which lets the Stop hook end a turn that changed a hook.
# Run: ./.claude/hooks/smoke.sh [GROUP...]   (a subset proves less and records nothing)
# The check groups and their helpers are called by name (group_$group), out of shellcheck's sight.
# shellcheck disable=SC2317
set -u

GROUPS_ALL=(settings session stdin evidence reports changes self guard check audit clients failopen worktree)
groups=("$@")
[ "$#" -gt 0 ] || groups=("${GROUPS_ALL[@]}")
for group in "${groups[@]}"; do
    case " ${GROUPS_ALL[*]} " in *" $group "*) ;; *)
        echo "smoke: no check group '$group'; choose from: ${GROUPS_ALL[*]}" >&2
        exit 1
        ;;
    esac
done

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P) || exit 1
for tool in jq git; do
    command -v "$tool" >/dev/null 2>&1 || {
        echo "smoke: $tool is not installed; the hooks stand down without it, nothing to prove" >&2
        exit 1
    }
done
# shellcheck source=lib.sh
. "$here/lib.sh" || exit 1

started=$(date +%s%N)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/aiup-smoke.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT
work=$scratch
passed=0
total=0
SCENARIO=setup
RC=0
OUT=""
ERR=""
FIRE_ENV=()

# --- checks -------------------------------------------------------------------------------

# ok DESCRIPTION COMMAND...: one check; prints a failure with the last hook's exit and stderr.
ok() {
    local what=$1
    shift
    # Another group failed first under fail fast: stop here (a killed group would leave its
    # running hooks writing into the scratch directory after it is removed).
    [ ! -e "$scratch/stop" ] || exit 1
    total=$((total + 1))
    if "$@" >/dev/null 2>&1; then
        passed=$((passed + 1))
    else
        printf 'FAIL [%s] %s (last hook exit %s%s)\n' "$SCENARIO" "$what" "$RC" \
            "${ERR:+; stderr: $(head -n 2 <<<"$ERR" | tr '\n' ' ')}"
        # Mutation tests only need to know that something fails.
        if [ -n "${AIUP_SMOKE_FAIL_FAST:-}" ]; then
            echo "smoke: stopped at the first failure ($passed/$total checks passed)"
            exit 1
        fi
    fi
}
blocks() { ok "$1" test "$RC" = 2; }
passes() { ok "$1" test "$RC" = 0; }
silent() { ok "$1" test "$RC" = 0 -a -z "$OUT$ERR"; }
says() { ok "$1: says '$2'" grep -qF -- "$2" <<<"$ERR"; }
exists() { ok "$1" test -e "$2"; }
absent() { ok "$1" test ! -e "$2"; }

# --- the throwaway project ----------------------------------------------------------------

# git for the throwaway repositories only, without the user's configuration.
g() {
    GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 git -C "$PROJECT" \
        -c user.name=smoke -c user.email=smoke@example.invalid -c commit.gpgsign=false \
        -c init.defaultBranch=main "$@"
}

# File timestamps move in kernel ticks (4 ms at HZ=250): wait so the next write is newer.
tick() { sleep 0.01; }

spec() { # spec FILE ID STATUS
    mkdir -p "$(dirname "$1")"
    printf '# Use Case: %s\n\n**Use Case ID:** %s\n**Status:** %s\n\n## Main Success Scenario\n1. Step\n' \
        "$2" "$2" "$3" >"$1"
}

make_project() {
    local src=src/main/java/ai/unifiedprocess/petclinic/owner
    mkdir -p "$PROJECT/$src" "$PROJECT/src/test/java/ai/unifiedprocess/petclinic" \
        "$PROJECT/docs/architecture/adr" "$PROJECT/.claude"
    cd "$PROJECT" || exit 1
    printf '<project><artifactId>petclinic</artifactId></project>\n' >pom.xml
    printf 'package ai.unifiedprocess.petclinic.owner;\nclass OwnerService {}\n' >"$src/OwnerService.java"
    printf 'package ai.unifiedprocess.petclinic.owner;\nclass Owner {}\n' >"$src/Owner.java"
    printf 'package ai.unifiedprocess.petclinic;\nclass ArchitectureTest {}\n' \
        >src/test/java/ai/unifiedprocess/petclinic/ArchitectureTest.java
    spec docs/use_cases/UC-003-register-new-owner.md UC-003 Done
    spec docs/use_cases/UC-005-edit-owner.md UC-005 Approved
    # "Draft" twice: only replace_all reaches the Status line.
    mkdir -p docs/test_cases
    printf '# Test Case: Draft owner registration\n\n**Test Case ID:** TC-001\n**Status:** Draft\n' \
        >docs/test_cases/TC-001-register-owner.md
    printf '# ADR-010\n\n**Status:** Accepted\n' >docs/architecture/adr/ADR-010-hooks.md
    printf 'PetClinic\n' >README.md
    printf 'target/\n' >.gitignore
    cp -R "$here" .claude/hooks
    cp "$here/../settings.json" .claude/settings.json 2>/dev/null
    g init -q && g add -A && g commit -q -m "fixture"
}

# Starts a scenario: the project as committed, no state, a fresh session.
scenario() {
    SCENARIO=$1
    cd "$PROJECT" || exit 1
    g reset -q --hard "$INITIAL"
    g clean -q -fdx
    rm -rf "$(state "")"*
    session_start
}

# --- events, fired as Claude Code would ---------------------------------------------------

# True when a settings.json matcher selects the target (tool name, source or agent type):
# empty or * match all; letters, digits, _ - space , | make an exact list; else a regex.
matches() {
    local matcher=$1 target=$2 alt
    case $matcher in "" | "*") return 0 ;; esac
    if [[ $matcher =~ ^[A-Za-z0-9_\ ,\|-]+$ ]]; then
        IFS='|,' read -ra alts <<<"$matcher"
        for alt in "${alts[@]}"; do
            alt=${alt// /}
            [ "$alt" = "$target" ] && return 0
        done
        return 1
    fi
    [[ $target =~ $matcher ]]
}

# Every registered hook as "event<US>matcher<US>timeout<US>command", read once.
load_registry() {
    REGISTRY=$(jq -r '.hooks | to_entries[] | .key as $event | .value[]?
        | (.matcher // "") as $matcher | .hooks[]?
        | [$event, $matcher, (.timeout // 600 | tostring), .command] | join("\u001f")' \
        "$PROJECT/.claude/settings.json" 2>/dev/null)
}

# on_socket COMMAND...: runs COMMAND with $AIUP_SMOKE_JSON on a Unix socket as its stdin, the
# way Claude Code hands a hook its event (a hook that can only read pipes fails open there).
# perl is part of every Debian and macOS base system; bash itself cannot make a socketpair.
# AF_UNIX and SOCK_STREAM are 1 on Linux and macOS. Loading Socket.pm for their names takes 8
# of the 11 ms perl needs for a fire, so it is loaded only where a socketpair with 1 fails.
on_socket() {
    perl -e '
        socketpair(my $ours, my $theirs, 1, 1, 0)
            or (require Socket and socketpair($ours, $theirs, Socket::AF_UNIX(),
                Socket::SOCK_STREAM(), Socket::PF_UNSPEC()))
            or exit 125;
        my $pid = fork() // exit 125;
        if (!$pid) { close $ours; open(STDIN, "<&", $theirs) or exit 125; close $theirs;
                     exec { $ARGV[0] } @ARGV; exit 127 }
        close $theirs;
        $SIG{PIPE} = "IGNORE";
        my $data = $ENV{AIUP_SMOKE_JSON} // "";
        while (length $data) { my $n = syswrite($ours, $data) or last; substr($data, 0, $n) = "" }
        shutdown($ours, 1);
        waitpid($pid, 0);
        exit(($? & 127) ? 128 + ($? & 127) : $? >> 8)' "$@"
}

# How fire hands over the event: socket (as Claude Code does), pipe or file.
STDIN_KIND=socket

# feed JSON COMMAND...: runs COMMAND with JSON on stdin, handed over as STDIN_KIND says.
feed() {
    local json=$1
    shift
    case $STDIN_KIND in
        socket) AIUP_SMOKE_JSON=$json on_socket "$@" ;;
        pipe) printf '%s\n' "$json" | "$@" ;;
        file) printf '%s\n' "$json" >"$work/event.json" && "$@" <"$work/event.json" ;;
    esac
}

# fire EVENT TARGET JSON: runs every hook registered for EVENT whose matcher selects TARGET,
# JSON on stdin, in the project. RC is 2 when any blocked; OUT and ERR collect their output.
fire() {
    local event=$1 target=$2 json=$3 kind matcher timeout command rc
    RC=0
    OUT=""
    ERR=""
    while IFS=$'\x1f' read -r kind matcher timeout command; do
        [ "$kind" = "$event" ] || continue
        [ "$event" = Stop ] || matches "$matcher" "$target" || continue
        (
            cd "$PROJECT" || exit 1
            export "CLAUDE_PROJECT_DIR=$PROJECT" "${FIRE_ENV[@]}"
            feed "$json" timeout "$timeout" bash -c "$command" >"$work/out" 2>"$work/err"
        )
        rc=$?
        OUT+=$(<"$work/out")
        ERR+=$(<"$work/err")
        if [ "$rc" = 2 ]; then RC=2; elif [ "$RC" = 0 ]; then RC=$rc; fi
    done <<<"$REGISTRY"
}

# js NAME TEXT: NAME (a variable of the caller) set to TEXT as a JSON string, by lib.sh's own
# code and without a subshell: a fork costs about a millisecond, and smoke.sh fires hundreds.
js() { aiup_json_string "$2" "$1"; }

# common EVENT: COMMON set to the fields every event carries.
common() {
    local cwd name
    js cwd "$PROJECT"
    js name "$1"
    COMMON="\"session_id\": \"smoke\", \"transcript_path\": \"/dev/null\", \"cwd\": $cwd, "
    COMMON+="\"permission_mode\": \"default\", \"hook_event_name\": $name"
}

session_start() {
    local source
    common SessionStart
    js source "${1:-startup}"
    fire SessionStart "${1:-startup}" "{$COMMON, \"source\": $source}"
}

stop() {
    common Stop
    fire Stop "" "{$COMMON, \"stop_hook_active\": ${1:-false}, \"last_assistant_message\": \"All done.\"}"
}

# bash_call COMMAND [STDOUT] [BACKGROUND]: PostToolUse of a Bash call that already ran.
bash_call() {
    local command stdout
    common PostToolUse
    js command "$1"
    js stdout "${2:-}"
    fire PostToolUse Bash "{$COMMON, \"tool_name\": \"Bash\", \"tool_use_id\": \"t1\",
        \"tool_input\": {\"command\": $command, \"description\": \"run\", \"run_in_background\": ${3:-false}},
        \"tool_response\": {\"stdout\": $stdout, \"stderr\": \"\", \"interrupted\": false}}"
}

# edit_call FILE OLD NEW [REPLACE_ALL]: PreToolUse of an Edit.
edit_call() {
    local path old new
    common PreToolUse
    js path "$PROJECT/$1"
    js old "$2"
    js new "$3"
    fire PreToolUse Edit "{$COMMON, \"tool_name\": \"Edit\", \"tool_use_id\": \"t2\",
        \"tool_input\": {\"file_path\": $path, \"old_string\": $old,
        \"new_string\": $new, \"replace_all\": ${4:-false}}}"
}

# write_call FILE CONTENT: PreToolUse of a Write.
write_call() {
    local path content
    common PreToolUse
    js path "$PROJECT/$1"
    js content "$2"
    fire PreToolUse Write "{$COMMON, \"tool_name\": \"Write\", \"tool_use_id\": \"t3\",
        \"tool_input\": {\"file_path\": $path, \"content\": $content}}"
}

# agent_transcript ASSIGNMENT LAST_MESSAGE STOP_REASON: writes the transcript of an agent that
# starts with the assignment and ends with its last message (without a stop_reason when
# STOP_REASON is empty), and prints its path.
agent_transcript() {
    local transcript=$work/agent.jsonl reason="" assignment last
    [ -z "$3" ] || { js reason "$3" && reason=", \"stop_reason\": $reason"; }
    js assignment "$1"
    js last "$2"
    {
        printf '{"type": "user", "message": {"role": "user", "content": %s}}\n' "$assignment"
        printf '{"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": "reading"}], "stop_reason": "tool_use"}}\n'
        printf '{"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": %s}]%s}}\n' \
            "$last" "$reason"
    } >"$transcript"
    printf '%s\n' "$transcript"
}

# subagent_stop AGENT_TYPE TRANSCRIPT LAST_MESSAGE [EVENT_STOP_REASON]: SubagentStop as a client
# sends it. Claude Code 2.1.332 sends no stop_reason (an empty EVENT_STOP_REASON leaves it out);
# an empty TRANSCRIPT leaves agent_transcript_path out.
subagent_stop() {
    local fields value
    js value "$1"
    fields="\"agent_id\": \"a1\", \"agent_type\": $value, \"stop_hook_active\": false"
    js value "$3"
    fields+=", \"last_assistant_message\": $value"
    [ -z "$2" ] || { js value "$2" && fields+=", \"agent_transcript_path\": $value"; }
    [ -z "${4:-}" ] || { js value "$4" && fields+=", \"stop_reason\": $value"; }
    common SubagentStop
    fire SubagentStop "$1" "{$COMMON, $fields}"
}

# audit AGENT_TYPE ASSIGNMENT LAST_MESSAGE [STOP_REASON]: SubagentStop as Claude Code sends it,
# the agent's transcript ending with STOP_REASON (end_turn by default).
audit() {
    subagent_stop "$1" "$(agent_transcript "$2" "$3" "${4:-end_turn}")" "$3"
}

# shell_call TOOL_NAME COMMAND: PostToolUse of a shell command as another client may send it;
# an empty TOOL_NAME leaves tool_name out. Fired where the Bash matcher selects it.
shell_call() {
    local name="" command
    [ -z "$1" ] || { js name "$1" && name="\"tool_name\": $name, "; }
    js command "$2"
    common PostToolUse
    fire PostToolUse Bash "{$COMMON, $name\"tool_input\": {\"command\": $command},
        \"tool_response\": {\"stdout\": \"\", \"stderr\": \"\", \"interrupted\": false}}"
}

# --- files a session changes --------------------------------------------------------------

SRC=src/main/java/ai/unifiedprocess/petclinic/owner/OwnerService.java
UC3=docs/use_cases/UC-003-register-new-owner.md
UC5=docs/use_cases/UC-005-edit-owner.md
TC1=docs/test_cases/TC-001-register-owner.md

edit() { # edit FILE: a change as Edit or Write would make it
    tick
    printf '// changed\n' >>"$PROJECT/$1"
    tick
}

# report NAME TESTS FAILURES ERRORS: one Surefire report, as the test JVM writes it.
report() {
    [ -d "$PROJECT/$AIUP_REPORT_DIR" ] || mkdir -p "$PROJECT/$AIUP_REPORT_DIR"
    # printf, not cat and a heredoc: smoke.sh writes hundreds of these.
    printf '%s\n' '<?xml version="1.0" encoding="UTF-8"?>' \
        '<testsuite xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"' \
        "    name=\"ai.unifiedprocess.petclinic.$1\" time=\"0.12\" tests=\"$2\" errors=\"$4\" skipped=\"0\"" \
        "    failures=\"$3\">" '  <properties/>' \
        "  <testcase name=\"rules\" classname=\"ai.unifiedprocess.petclinic.$1\" time=\"0.01\"/>" \
        '</testsuite>' >"$PROJECT/$(aiup_report_path "$1")"
}

# sensor_run [TESTS FAILURES ERRORS]: what ./mvnw -q test -Dgroups=sensor leaves behind: the
# old reports deleted, then one per sensor (the counts apply to UseCaseTraceabilityTest).
sensor_run() {
    local name
    tick
    rm -rf "${PROJECT:?}/$AIUP_REPORT_DIR"
    for name in "${AIUP_SENSORS[@]}"; do
        if [ "$name" = UseCaseTraceabilityTest ]; then
            report "$name" "${1:-3}" "${2:-0}" "${3:-0}"
        else
            report "$name" 4 0 0
        fi
    done
    tick
}

# record_smoke PROJECT: the record a green smoke.sh leaves, by lib.sh's own code.
record_smoke() {
    CLAUDE_PROJECT_DIR=$1 bash -c '. "$1" && aiup_open_project && aiup_record_smoke' _ "$here/lib.sh"
}

# A state file of the hooks in PROJECT. A plain .git directory is the git dir; a worktree
# (.git is a file) asks git.
state() {
    if [ -d "$PROJECT/.git" ]; then
        printf '%s/.git/aiup-%s\n' "$PROJECT" "$1"
    else
        printf '%s/aiup-%s\n' "$(g rev-parse --absolute-git-dir)" "$1"
    fi
}
marker() { printf '%s/%s\n' "$(state coverage-checked)" "$1"; }

# --- settings.json ----------------------------------------------------------------------
group_settings() {
    SCENARIO=settings
    # shellcheck disable=SC2016 # jq programs
    registered() { # registered EVENT MATCHER SCRIPT TIMEOUT
        jq -e --arg e "$1" --arg m "$2" --arg s "$3" --argjson t "$4" '.hooks[$e][]?
            | select((.matcher // "") == $m) | .hooks[]?
            | select(.type == "command" and .timeout == $t
                and .command == ("\"$CLAUDE_PROJECT_DIR/.claude/hooks/" + $s + "\""))' \
            "$settings" >/dev/null 2>&1
    }
    ok "settings.json is valid JSON" jq -e . "$settings"
    ok "SessionStart startup|clear runs session-start.sh" registered SessionStart "startup|clear" session-start.sh 10
    ok "PreToolUse Edit|Write runs guard-spec-status.sh" registered PreToolUse "Edit|Write" guard-spec-status.sh 10
    ok "PostToolUse Bash runs record-sensor-run.sh" registered PostToolUse Bash record-sensor-run.sh 10
    ok "PostToolUse (every tool) runs check-spec-status.sh" registered PostToolUse "" check-spec-status.sh 10
    ok "PostToolUseFailure (every tool) runs check-spec-status.sh" \
        registered PostToolUseFailure "" check-spec-status.sh 10
    ok "SubagentStop uc-coverage runs record-coverage-check.sh" \
        registered SubagentStop 'aiup-vaadin-jooq:uc-coverage$' record-coverage-check.sh 10
    ok "Stop runs require-sensors.sh with 15 s" registered Stop "" require-sensors.sh 15
    # shellcheck disable=SC2016
    # An Edit(path) rule covers every file tool; the client warns that Write(path) never matches.
    ok "permissions deny file edits in target/" jq -e '.permissions.deny | index("Edit(target/**)")' "$settings"
    # shellcheck disable=SC2016
    ok "permissions allow the sensor run and smoke.sh" jq -e '.permissions.allow as $a
        | ($a | index("Bash(./mvnw -q test -Dgroups=sensor)"))
          and ($a | index("Bash(./.claude/hooks/smoke.sh)"))' "$settings"
    for script in session-start guard-spec-status record-sensor-run check-spec-status \
        record-coverage-check require-sensors; do
        ok "$script.sh is executable" test -x "$PROJECT/.claude/hooks/$script.sh"
    done
}

# --- session start -------------------------------------------------------------------------
group_session() {
    scenario session-start
    silent "session start says nothing"
    ok "session base records HEAD" test "$(cat "$(state session-base)")" = "$INITIAL"
    ok "every Status line is snapshotted" grep -qF "$UC5	Approved" "$(state spec-status)"
    absent "no state in the work tree" "$PROJECT/aiup-session-base"
    mkdir -p "$(state coverage-checked)"
    : >"$(state coverage-checked)/UC-005"
    : >"$(state sensors-ran)"
    : >"$(state smoke-ran)"
    before=$(stat -c %.9Y "$(state session-base)")
    tick
    session_start resume
    ok "resume keeps the session base" test "$(stat -c %.9Y "$(state session-base)")" = "$before"
    session_start clear
    absent "clear drops the audit markers" "$(state coverage-checked)/UC-005"
    absent "clear drops the sensor record" "$(state sensors-ran)"
    exists "clear keeps the smoke record (content hashes stay true)" "$(state smoke-ran)"

    PROJECT=$work/unborn
    mkdir -p "$PROJECT"
    cp -R "$work/project/.claude" "$PROJECT/"
    g init -q
    session_start
    ok "an unborn HEAD gives an empty session base" test -f "$(state session-base)" -a ! -s "$(state session-base)"
    PROJECT=$work/project
}

# --- stdin: every hook reads its event however it is handed over ---------------------------
group_stdin() {
    local kind
    for kind in socket pipe file; do
        STDIN_KIND=$kind
        scenario "stdin-$kind"
        exists "session-start.sh records the base from a $kind" "$(state session-base)"
        edit "$SRC"
        stop
        blocks "require-sensors.sh blocks an unproven change, event on a $kind"
        edit_call "$UC5" "Approved" "Done"
        blocks "guard-spec-status.sh refuses Done without audit, event on a $kind"
        sed -i 's/^\*\*Status:\*\* Approved/**Status:** Done/' "$PROJECT/$UC5"
        bash_call "sed -i s/Approved/Done/ $UC5"
        blocks "check-spec-status.sh reports a sed to Done, event on a $kind"
        sensor_run
        bash_call "./mvnw -q test -Dgroups=sensor"
        exists "record-sensor-run.sh records a green run, event on a $kind" "$(state sensors-ran)"
        audit aiup-vaadin-jooq:uc-coverage "Check UC-005" "# Coverage report"
        exists "record-coverage-check.sh records the audit, event on a $kind" \
            "$(state coverage-checked)/UC-005"
    done
    STDIN_KIND=socket
    edit "$SRC"
    for script in session-start guard-spec-status record-sensor-run check-spec-status \
        record-coverage-check require-sensors; do
        RC=0
        OUT=$(cd "$PROJECT" && CLAUDE_PROJECT_DIR=$PROJECT "$PROJECT/.claude/hooks/$script.sh" \
            <&- 2>"$work/err") || RC=$?
        ERR=$(cat "$work/err")
        silent "$script.sh lets a closed stdin go silently"
    done
}

# --- the Stop hook: which runs count -------------------------------------------------------
group_evidence() {
    scenario no-changes
    stop
    silent "no changes: the turn may end"

    scenario no-run
    edit "$SRC"
    stop
    blocks "a change without a sensor run blocks"
    says "the message names the changed file" "$SRC"
    says "the message says what to run" "$AIUP_SENSOR_COMMAND"

    scenario clean-console
    edit "$SRC"
    bash_call "./mvnw -q test -Dgroups=sensor" "[INFO] BUILD SUCCESS"
    ok "a clean console without reports records nothing" test ! -e "$(state sensors-ran)"
    ok "and tells Claude the run does not count" grep -qF "does not count" <<<"$OUT"
    stop
    blocks "a clean console without reports blocks"

    scenario test-compile
    edit "$SRC"
    tick
    bash_call "./mvnw -q test-compile"
    stop
    blocks "test-compile only blocks"

    scenario green
    edit "$SRC"
    sensor_run
    bash_call "./mvnw -q test -Dgroups=sensor"
    exists "a green run is recorded in the git dir" "$(state sensors-ran)"
    ok "the record lists the change it covers" grep -qxF "$SRC" "$(state sensors-ran)"
    stop
    silent "fresh green reports let the turn end"
    g add -A && g commit -q -m "owner service"
    stop
    passes "committing after a green run keeps it green"

    scenario stale
    sensor_run
    bash_call "./mvnw -q test -Dgroups=sensor"
    edit "$SRC"
    stop
    blocks "a change after the last green run blocks"
    says "the message names the late change" "$SRC changed after"

    scenario before-session
    edit "$SRC"
    sensor_run
    tick
    session_start
    stop
    blocks "reports from before the session do not count"

    scenario mvn-clean
    edit "$SRC"
    sensor_run
    bash_call "./mvnw -q test -Dgroups=sensor"
    stop
    passes "green before mvn clean"
    rm -rf "$PROJECT/target"
    stop
    blocks "reports removed after a green run block again"

    scenario narrowed
    edit "$SRC"
    tick
    rm -rf "${PROJECT:?}/$AIUP_REPORT_DIR"
    report OwnerServiceTest 5 0 0
    bash_call "./mvnw -q test -Dtest=OwnerServiceTest"
    stop
    blocks "a run narrowed with -Dtest= leaves the sensors unproven"

    scenario narrowed-stale
    sensor_run
    edit "$SRC"
    report OwnerServiceTest 5 0 0
    bash_call "./mvnw -q surefire:test -Dtest=OwnerServiceTest"
    stop
    blocks "a narrowed run next to stale sensor reports blocks"

    scenario background
    edit "$SRC"
    bash_call "./mvnw -q test -Dgroups=sensor" "" true
    ok "a background run is explained" grep -qF "background" <<<"$OUT"
    stop
    blocks "a run still in the background blocks"

    scenario touch-marker
    edit "$SRC"
    touch "$(state sensors-ran)"
    stop
    blocks "a touched aiup-sensors-ran proves nothing"

    scenario stop-hook-active
    edit "$SRC"
    stop true
    passes "stop_hook_active lets the second stop through"
    ok "with a warning for the user" jq -e '.systemMessage | test("sensors")' <<<"$OUT"
}

# --- the Stop hook: what the reports must say ----------------------------------------------
group_reports() {
    scenario failed
    edit "$SRC"
    sensor_run 3 1 0
    bash_call "./mvnw -q test -Dgroups=sensor | tail -5" "Tests run: 3, Failures: 0"
    stop
    blocks "a failed sensor blocks (whatever the console piped through tail showed)"
    says "the message names the failure" "UseCaseTraceabilityTest failed"

    scenario errored
    edit "$SRC"
    sensor_run 3 0 2
    bash_call "./mvnw -q test -Dgroups=sensor || true"
    stop
    blocks "an errored sensor blocks, || true or not"

    scenario zero-tests
    edit "$SRC"
    sensor_run 0 0 0
    bash_call "./mvnw -q test -Dgroups=sensor > /dev/null"
    stop
    blocks "a report that counts no test blocks"
    says "the message says so" "counts no test"

    scenario cut-off
    edit "$SRC"
    sensor_run
    head -c 300 "$(aiup_report_path UseCaseTraceabilityTest)" >"$work/cut" &&
        mv "$work/cut" "$(aiup_report_path UseCaseTraceabilityTest)"
    bash_call "./mvnw -q test -Dgroups=sensor"
    stop
    blocks "a report cut off before </testsuite> blocks, green counts or not"

    scenario nul-byte
    edit "$SRC"
    sensor_run
    printf '\0' >>"$PROJECT/$(aiup_report_path UseCaseTraceabilityTest)"
    stop
    blocks "a report with a NUL byte is no Surefire report and blocks"

    scenario one-sensor
    edit "$SRC"
    tick
    rm -rf "${PROJECT:?}/$AIUP_REPORT_DIR"
    report ArchitectureTest 4 0 0
    stop
    blocks "a missing sensor report blocks"

    local sensor
    for sensor in "${AIUP_SENSORS[@]}"; do
        scenario "without-$sensor"
        edit "$SRC"
        sensor_run
        rm "$PROJECT/$(aiup_report_path "$sensor")"
        stop
        blocks "a run without the $sensor report blocks"
        says "the message names the missing report" "no $sensor report"
    done
}

# --- the Stop hook: what counts as a change ------------------------------------------------
group_changes() {
    scenario commit
    edit "$SRC"
    g add -A && g commit -q -m "change"
    stop
    blocks "a commit does not lift the guard"
    says "the committed file is named" "$SRC"

    scenario deletion
    sensor_run
    bash_call "./mvnw -q test -Dgroups=sensor"
    tick
    rm "$PROJECT/src/main/java/ai/unifiedprocess/petclinic/owner/Owner.java"
    stop
    blocks "a deletion after the green run blocks"
    says "the deleted file is named" "owner/Owner.java"

    scenario deletion-committed
    tick
    g rm -q "$SRC" && g commit -q -m "drop service"
    stop
    blocks "a committed deletion blocks"

    scenario pom
    edit pom.xml
    stop
    blocks "a pom.xml change blocks"

    scenario docs
    edit "$UC5"
    stop
    blocks "a docs/ change blocks"

    scenario untracked
    tick
    printf 'class Pet {}\n' >"$PROJECT/src/main/java/ai/unifiedprocess/petclinic/owner/Pet.java"
    stop
    blocks "a new untracked file blocks"
    says "the new file is named" "owner/Pet.java"

    scenario rename
    sensor_run
    bash_call "./mvnw -q test -Dgroups=sensor"
    tick
    g mv "$SRC" src/main/java/ai/unifiedprocess/petclinic/owner/OwnerRegistry.java
    stop
    blocks "a rename after the green run blocks"
    says "by its new name" "owner/OwnerRegistry.java"

    scenario outside
    edit README.md
    stop
    silent "a change outside src/, docs/, pom.xml lets the turn end"
}

# --- self-guarding -------------------------------------------------------------------------
group_self() {
    scenario hook-changed
    edit .claude/hooks/require-sensors.sh
    stop
    blocks "a changed hook holds the turn"
    says "the message says what to run" "$AIUP_SMOKE_COMMAND"
    touch "$(state smoke-ran)"
    stop
    blocks "a touched aiup-smoke-ran proves nothing"
    record_smoke "$PROJECT"
    ok "the smoke record fingerprints the changed hook" grep -qF ".claude/hooks/require-sensors.sh" "$(state smoke-ran)"
    stop
    silent "after a green smoke.sh the turn may end"
    touch "$PROJECT/.claude/hooks/require-sensors.sh"
    stop
    passes "touching a proved hook changes nothing"
    edit .claude/hooks/require-sensors.sh
    stop
    blocks "changing it again holds the turn again"

    scenario settings-changed
    tick
    jq '.permissions.allow += ["Bash(ls)"]' "$settings" >"$work/s.json" && cp "$work/s.json" "$settings"
    stop
    blocks "a changed settings.json holds the turn"
}

# --- the status guard (PreToolUse Edit|Write) ----------------------------------------------
group_guard() {
    scenario status-guard
    edit_call "$UC5" "**Status:** Approved" "**Status:** Done"
    blocks "Approved -> Done is refused"
    says "the message quotes the line" "would read \"**Status:** Done\""
    says "the message names the audit to run" "$AIUP_AUDIT_COMMAND UC-005"
    says "the message says to run the sensors next" "$AIUP_SENSOR_COMMAND"
    edit_call "$UC5" "Approved" "Done"
    blocks "a mid-line edit (Approved -> Done) is refused"
    edit_call "$TC1" "Draft" "Automated" true
    blocks "replace_all Draft -> Automated on a test case is refused"
    write_call docs/use_cases/UC-009-new-visit.md "$(printf '# Use Case: Visit\n\n**Status:** Done\n')"
    blocks "a new spec written as Done is refused"
    edit_call "$UC3" "**Status:** Done" "**Status:** Draft"
    passes "Done -> Draft passes"
    edit_call "$UC3" "1. Step" "1. The clerk opens the owner form"
    passes "an edit that leaves Done as it is passes"
    edit_call docs/architecture/adr/ADR-010-hooks.md "Accepted" "Done"
    passes "other documents pass"
    edit_call "$UC5" "no such text" "**Status:** Done"
    passes "an edit whose old_string is absent passes (the tool will fail)"
    audit aiup-vaadin-jooq:uc-coverage "Check the coverage of UC-005" "# Coverage report: UC-005"
    edit_call "$UC5" "Approved" "Done"
    passes "after an audit of UC-005 the edit passes"
    edit "$SRC"
    edit_call "$UC5" "Approved" "Done"
    blocks "an audit older than a src/ change is stale"
    says "the message says it is stale" "stale"
}

# --- the status check (PostToolUse, every tool) --------------------------------------------
group_check() {
    scenario status-check
    tick
    sed -i 's/^\*\*Status:\*\* Approved/**Status:** Done/' "$PROJECT/$UC5"
    bash_call "sed -i 's/Approved/Done/' $UC5"
    blocks "a sed to Done is reported"
    says "the report names the file" "$UC5"
    says "and the audit to run" "$AIUP_AUDIT_COMMAND UC-005"
    bash_call "git status"
    passes "the same change is reported once"
    printf '# Test Case: Find owner\n\n**Test Case ID:** TC-002\n**Status:** Automated\n' \
        >"$PROJECT/docs/test_cases/TC-002-find-owner.md"
    common PostToolUse
    fire PostToolUse Read "{$COMMON, \"tool_name\": \"Read\", \"tool_input\": {}}"
    blocks "a heredoc spec that claims Automated is reported, after any tool"
    local uc9=docs/use_cases/UC-009-cancel-visit.md
    printf '# Use Case: Cancel visit\n\n**Use Case ID:** UC-009\n**Status:** Draft\n' >"$PROJECT/$uc9"
    bash_call "git status"
    passes "a new Draft spec is not reported"
    sed -i 's/^\*\*Status:\*\* Draft/**Status:** Done/' "$PROJECT/$uc9"
    common PostToolUseFailure
    fire PostToolUseFailure Bash "{$COMMON, \"tool_name\": \"Bash\",
        \"tool_input\": {\"command\": \"sed -i s/Draft/Done/ $uc9; exit 1\"},
        \"tool_use_id\": \"t1\", \"error\": \"Exit code 1\", \"is_interrupt\": false}"
    blocks "a sed to Done in a command that then fails is reported (PostToolUseFailure)"
    sed -i 's/^\*\*Status:\*\* Done/**Status:** Draft/' "$PROJECT/$UC3"
    bash_call "sed -i 's/Done/Draft/' $UC3"
    passes "Done -> Draft via sed is not reported"
    audit aiup-vaadin-jooq:uc-coverage "Audit TC001 please" "# Coverage report: TC-001"
    sed -i 's/^\*\*Status:\*\* Draft/**Status:** Tested/' "$PROJECT/$TC1"
    bash_call "sed -i 's/Draft/Tested/' $TC1"
    passes "a sed to Tested after an audit is not reported"
}

# --- audit recording (SubagentStop) --------------------------------------------------------
group_audit() {
    scenario audit
    audit aiup-vaadin-jooq:uc-coverage "Run a coverage check of UC-005 against the code." "All flows covered."
    silent "the audit hook says nothing"
    exists "the assignment's id is recorded" "$(marker UC-005)"
    audit aiup-vaadin-jooq:uc-coverage "Check the spec you were given." "# Coverage report: UC-003"
    exists "the report heading's id is recorded" "$(marker UC-003)"
    audit aiup-vaadin-jooq:uc-coverage "Check uc 7 and TC001" "# Coverage report"
    exists "'uc 7' is normalised to UC-007" "$(marker UC-007)"
    exists "'TC001' is normalised to TC-001" "$(marker TC-001)"
    audit aiup-vaadin-jooq:uc-coverage "Check UC-008" "# Coverage report: UC-008 (partial" max_tokens
    absent "a cut-off agent records nothing" "$(marker UC-008)"
    audit general-purpose "Check UC-004" "# Coverage report: UC-004"
    absent "another agent records nothing" "$(marker UC-004)"
    audit other:aiup-vaadin-jooq:uc-coverage-x "Check UC-004" "# Coverage report: UC-004"
    absent "a look-alike agent type records nothing" "$(marker UC-004)"
    absent "markers stay out of the work tree" "$PROJECT/aiup-coverage-checked"
}

# --- other clients and older versions: input Claude Code 2.1.332 does not send -------------
# Each form is accepted without loosening what Claude Code itself is held to.
group_clients() {
    local gone=$work/no-such-transcript.jsonl assignment_only=$work/assignment-only.jsonl
    scenario tool-name-missing
    edit "$SRC"
    sensor_run
    shell_call "" "./mvnw -q test -Dgroups=sensor"
    exists "a command without a tool_name is taken for Bash: the green run is recorded" \
        "$(state sensors-ran)"
    stop
    silent "and the turn may end"
    rm -f "$(state sensors-ran)"
    shell_call Task "./mvnw -q test -Dgroups=sensor"
    absent "a named tool with a command is not taken for Bash" "$(state sensors-ran)"

    scenario audit-stop-reason
    audit_with() { # audit_with ID TRANSCRIPT_STOP_REASON EVENT_STOP_REASON [LAST_MESSAGE]
        subagent_stop aiup-vaadin-jooq:uc-coverage \
            "$(agent_transcript "Audit $1 against the code" "${4-# Coverage report: $1}" "$2")" \
            "${4-# Coverage report: $1}" "$3"
    }
    audit_with UC-011 end_turn end_turn
    silent "an event stop_reason says nothing"
    exists "an event stop_reason end_turn that agrees with the transcript records the audit" \
        "$(marker UC-011)"
    audit_with UC-012 end_turn max_tokens
    absent "an event stop_reason max_tokens records nothing, whatever the transcript says" \
        "$(marker UC-012)"
    audit_with UC-013 max_tokens end_turn
    exists "an event stop_reason end_turn decides, over a transcript's max_tokens" \
        "$(marker UC-013)"
    audit_with UC-023 "" end_turn
    exists "an event end_turn records the audit when the transcript's entry has no stop_reason" \
        "$(marker UC-023)"
    audit_with UC-014 end_turn "" ""
    exists "an empty last message still records the assignment's id" "$(marker UC-014)"
    printf '{"type": "user", "message": {"role": "user", "content": "Audit UC-015"}}\n' \
        >"$assignment_only"
    subagent_stop aiup-vaadin-jooq:uc-coverage "$assignment_only" "" end_turn
    exists "a transcript without an assistant entry takes the event's end_turn" "$(marker UC-015)"
    printf '{"type": "user", "message": {"role": "user", "content": "Audit UC-016"}}\n' \
        >"$assignment_only"
    subagent_stop aiup-vaadin-jooq:uc-coverage "$assignment_only" ""
    absent "and without a stop_reason from either, records nothing" "$(marker UC-016)"

    scenario audit-no-transcript
    subagent_stop aiup-vaadin-jooq:uc-coverage "$gone" \
        "$(printf '# Coverage report: UC-017\n\nUC-018 is out of scope.')" end_turn
    exists "without a readable transcript, an event end_turn records the report heading's id" \
        "$(marker UC-017)"
    absent "but not an id the report only mentions" "$(marker UC-018)"
    subagent_stop aiup-vaadin-jooq:uc-coverage "" "# Coverage report: UC-019" end_turn
    exists "without any agent_transcript_path, the same" "$(marker UC-019)"
    subagent_stop aiup-vaadin-jooq:uc-coverage "$gone" "# Coverage report: UC-020"
    absent "without a readable transcript and without a stop_reason nothing is recorded" \
        "$(marker UC-020)"
    subagent_stop aiup-vaadin-jooq:uc-coverage "$gone" "# Coverage report: UC-021" max_tokens
    absent "without a readable transcript a stop_reason max_tokens records nothing" \
        "$(marker UC-021)"
    subagent_stop other:aiup-vaadin-jooq:uc-coverage-x "$gone" "# Coverage report: UC-022" end_turn
    absent "a look-alike agent type records nothing, stop_reason or not" "$(marker UC-022)"

    scenario audit-namespaced-agent
    audit plugin:aiup-vaadin-jooq:uc-coverage "Audit UC-024" "# Coverage report: UC-024"
    exists "a namespaced type the matcher selects (plugin:aiup-vaadin-jooq:uc-coverage) records" \
        "$(marker UC-024)"
}

# --- fail open -----------------------------------------------------------------------------
group_failopen() {
    scenario fail-open
    edit "$SRC"
    mkdir -p "$work/nojq"
    IFS=: read -ra path_dirs <<<"$PATH"
    for dir in "${path_dirs[@]}"; do
        [ -d "$dir" ] && ln -s "$dir"/* "$work/nojq/" 2>/dev/null
    done
    rm -f "$work/nojq/jq"
    FIRE_ENV=(PATH="$work/nojq")
    stop
    silent "without jq the Stop hook lets go silently"
    edit_call "$UC5" "Approved" "Done"
    silent "without jq the status guard lets go silently"
    FIRE_ENV=()
    for script in session-start guard-spec-status record-sensor-run check-spec-status \
        record-coverage-check require-sensors; do
        RC=0
        OUT=$(cd "$PROJECT" && CLAUDE_PROJECT_DIR=$PROJECT "$PROJECT/.claude/hooks/$script.sh" \
            <<<'{"hook_event_name": "Stop", "stop_hook_active": fal' 2>"$work/err") || RC=$?
        ERR=$(cat "$work/err")
        silent "$script.sh lets garbage stdin go silently"
    done
    RC=0
    OUT=$(cd "$PROJECT" && CLAUDE_PROJECT_DIR=$PROJECT .claude/hooks/require-sensors.sh </dev/null 2>"$work/err") || RC=$?
    ERR=$(cat "$work/err")
    silent "empty stdin lets go silently"
    RC=0
    OUT=$(cd "$PROJECT" && env -u CLAUDE_PROJECT_DIR .claude/hooks/require-sensors.sh <<<'{"stop_hook_active": false}' 2>"$work/err") || RC=$?
    ERR=$(cat "$work/err")
    silent "a missing CLAUDE_PROJECT_DIR lets go silently"
    mkdir -p "$work/nogit"
    RC=0
    OUT=$(cd "$work/nogit" && GIT_CEILING_DIRECTORIES=$work CLAUDE_PROJECT_DIR=$work/nogit \
        "$PROJECT/.claude/hooks/require-sensors.sh" <<<'{"stop_hook_active": false}' 2>"$work/err") || RC=$?
    ERR=$(cat "$work/err")
    silent "outside a git repository the hook lets go silently"
    RC=0
    OUT=$(bash -c '. "$1"; aiup_fail_open; echo "boom" >&2; exit 3' _ "$PROJECT/.claude/hooks/lib.sh" 2>"$work/err") || RC=$?
    ERR=$(cat "$work/err")
    silent "the fail-open guard turns a crash into a silent exit 0"
    RC=0
    bash -c '. "$1"; aiup_fail_open; aiup_block' _ "$PROJECT/.claude/hooks/lib.sh" 2>/dev/null || RC=$?
    ok "while a deliberate block still exits 2" test "$RC" = 2
    FIRE_ENV=(AIUP_SMOKE_CANARY=canary-7f3a9 ANTHROPIC_API_KEY=canary-7f3a9)
    stop
    FIRE_ENV=()
    ok "a blocking message leaks no environment" test "$RC" = 2 -a -z "$(grep -F canary-7f3a9 <<<"$OUT$ERR")"
}

# --- worktrees -----------------------------------------------------------------------------
group_worktree() {
    scenario worktree
    g worktree add -q "$work/wt" -b wt 2>/dev/null
    PROJECT=$work/wt
    session_start
    wt_git=$(g rev-parse --absolute-git-dir)
    ok "a worktree has a git dir of its own" test "$wt_git" != "$GIT_DIR_MAIN"
    exists "its session base lives in the worktree's git dir" "$wt_git/aiup-session-base"
    absent "not in its work tree" "$work/wt/aiup-session-base"
    edit "$SRC"
    stop
    blocks "a change in the worktree blocks there"
    sensor_run
    bash_call "./mvnw -q test -Dgroups=sensor"
    exists "the worktree's run is recorded in its git dir" "$wt_git/aiup-sensors-ran"
    absent "not in the main git dir" "$GIT_DIR_MAIN/aiup-sensors-ran"
    stop
    passes "the worktree's own green reports let its turn end"
    PROJECT=$work/project
    g worktree remove --force "$work/wt"
}

# =========================================================================================

# prepare DIR: a fresh throwaway project in DIR; the checks that follow run against it.
prepare() {
    work=$1
    PROJECT=$work/project
    make_project
    INITIAL=$(g rev-parse HEAD)
    load_registry
    GIT_DIR_MAIN=$(g rev-parse --absolute-git-dir)
    settings=$PROJECT/.claude/settings.json
}

# Most of the time goes into starting processes, so the groups run side by side, one per CPU,
# each against its own project; their output is printed in group order. With
# AIUP_SMOKE_FAIL_FAST the first group to fail stops the others at their next check.
cpus=$(getconf _NPROCESSORS_ONLN 2>/dev/null) || cpus=1
stopped=""
# reap: waits for one group to end; under fail fast, a group that failed stops the run.
reap() {
    wait -n && return 0
    [ -z "${AIUP_SMOKE_FAIL_FAST:-}" ] || stopped=1
}
if [ "${cpus:-1}" -lt 2 ] || [ "${#groups[@]}" -lt 2 ]; then
    prepare "$scratch"
    for group in "${groups[@]}"; do
        "group_$group"
    done
else
    started_groups=()
    for group in "${groups[@]}"; do
        while [ -z "$stopped" ] && [ "$(jobs -pr | wc -l)" -ge "$cpus" ]; do reap; done
        [ -z "$stopped" ] || break
        started_groups+=("$group")
        (
            mkdir -p "$scratch/$group" && prepare "$scratch/$group" && "group_$group"
            echo "$passed $total" >"$scratch/$group.count"
        ) >"$scratch/$group.log" 2>&1 &
    done
    while [ -z "$stopped" ] && [ -n "$(jobs -pr)" ]; do reap; done
    [ -z "$stopped" ] || : >"$scratch/stop"
    wait
    for group in "${started_groups[@]}"; do
        cat "$scratch/$group.log"
        [ -z "$stopped" ] || continue
        if read -r group_passed group_total <"$scratch/$group.count" 2>/dev/null; then
            passed=$((passed + group_passed))
            total=$((total + group_total))
        else
            echo "FAIL [$group] the check group did not run to its end"
            total=$((total + 1))
        fi
    done
    [ -z "$stopped" ] || exit 1
fi

SCENARIO=result
elapsed=$((($(date +%s%N) - started) / 1000000))
echo "smoke: $passed/$total checks passed in $((elapsed / 1000)).$(printf '%03d' $((elapsed % 1000))) s"
[ "$passed" = "$total" ] || exit 1
if [ "${#groups[@]}" != "${#GROUPS_ALL[@]}" ]; then
    echo "smoke: only ${groups[*]} ran; nothing recorded"
    exit 0
fi

# Record what was proved, for the project these hooks belong to.
project=${CLAUDE_PROJECT_DIR:-$(cd "$here/../.." && pwd -P)}
if [ "$(cd "$project/.claude/hooks" 2>/dev/null && pwd -P)" != "$here" ]; then
    echo "smoke: proved $here, not the hooks of $project; nothing recorded"
elif [ "$(git -C "$project" rev-parse --is-inside-work-tree 2>/dev/null)" != true ]; then
    echo "smoke: $project is not a git repository; nothing recorded"
elif record_smoke "$project"; then
    echo "smoke: recorded in $(git -C "$project" rev-parse --absolute-git-dir)/aiup-smoke-ran"
fi
exit 0
