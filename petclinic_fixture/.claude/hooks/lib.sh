# shellcheck shell=bash
# lib.sh: what the guard hooks share. Every hook sources it; it is never run on its own.
# Hooks guard the session, sensor tests guard the repository (ADR-010). A guard reads the
# state of the repository and wants positive evidence (ADR-011): the sensors' Surefire
# reports and the coverage audit's markers, never console output or what the agent says.
#
# The hooks keep their state in the git dir, so it follows a worktree and is never a change:
#   aiup-session-base       HEAD when the session started; the file's mtime is the start
#   aiup-sensors-ran        the changes the last green sensor run covered (a record only)
#   aiup-smoke-ran          content hashes of the hooks the last green smoke.sh proved
#   aiup-spec-status        every spec's Status line as last seen
#   aiup-coverage-checked/  one marker per UC/TC id whose coverage audit finished

# shellcheck disable=SC2034 # the hooks that source this file use these
AIUP_SENSORS=(ArchitectureTest TestLayerConventionsTest UseCaseTraceabilityTest
    TestCaseTraceabilityTest BusinessRuleTraceabilityTest)
AIUP_REPORT_DIR=target/surefire-reports
AIUP_SENSOR_COMMAND="./mvnw -q test -Dgroups=sensor"
AIUP_SMOKE_COMMAND="./.claude/hooks/smoke.sh"
AIUP_AUDIT_COMMAND="aiup-vaadin-jooq:coverage-check"
AIUP_COVERAGE_AGENT="aiup-vaadin-jooq:uc-coverage"

# --- fail open ----------------------------------------------------------------------------
# A hook runs in every session: a broken hook must never break one. So a hook that cannot
# read its event or its repository lets the session go: exit 0, not a word. Only aiup_block
# ends a hook with exit 2, the code Claude Code reads as "no, and here is why".
# aiup_fail_open hides the stray errors of the tools a hook calls (the hook's own message
# goes to fd 3) and turns every exit but a deliberate block into a quiet exit 0.
aiup_fail_open() {
    [ "${BASH_VERSINFO[0]:-0}" -ge 4 ] || exit 0 # ${x,,} needs bash 4 (macOS ships 3.2)
    exec 3>&2 2>/dev/null
    trap aiup_on_exit EXIT
}

aiup_on_exit() {
    if [ $? = 2 ] && [ "${AIUP_BLOCKING:-}" = 1 ]; then exit 2; else exit 0; fi
}

aiup_block() {
    AIUP_BLOCKING=1
    exit 2
}

# Prints the text on stdin for Claude: Claude Code shows a blocking hook's stderr to Claude.
aiup_say() { cat >&3; }

# --- the event on stdin -------------------------------------------------------------------
# aiup_read_input NAME=FIELD...: reads the event (JSON) and sets the variable NAME to each
# FIELD ("" when the event has none): aiup_read_input command=tool_input.command sets $command.
# Without jq nothing can be read; a terminal, a closed stdin, empty input or anything but a
# JSON object is no event: the hook lets the session go.
aiup_read_input() {
    local fields
    command -v jq >/dev/null || exit 0
    [ -t 0 ] && exit 0
    # A closed stdin: $(cat) would be handed its own output pipe as stdin and wait forever.
    { exec 9<&0; } 2>/dev/null || exit 0
    exec 9<&-
    # Claude Code hands the event over a Unix socket: cat reads it, $(</dev/stdin) cannot.
    AIUP_INPUT=$(cat) && [ -n "$AIUP_INPUT" ] || exit 0
    # One jq for every field; @sh quotes each value, so eval only ever assigns it.
    fields=$(jq -r --args 'if type != "object" then error("no event") else . as $event
        | $ARGS.positional[] | capture("^(?<name>\\w+)=(?<path>.+)$") as $f
        | "\($f.name)=\(($event | try getpath($f.path | split(".")) catch null) // ""
            | tostring | @sh)" end' "$@" <<<"$AIUP_INPUT") || exit 0
    eval "$fields"
}

# --- the project and what changed in this session -----------------------------------------
# Enters the project (CLAUDE_PROJECT_DIR). No project, no git work tree: the session goes on.
aiup_open_project() {
    local inside
    [ -n "${CLAUDE_PROJECT_DIR:-}" ] || exit 0
    cd "$CLAUDE_PROJECT_DIR" || exit 0
    {
        read -r inside
        read -r AIUP_GIT_DIR     # where the hooks keep their state
        IFS= read -r AIUP_PREFIX # where the project sits in the repository ("" at its root)
        read -r AIUP_HEAD        # "" in a new repository: git fails there after the others
    } < <(git rev-parse --is-inside-work-tree --absolute-git-dir --show-prefix -q --verify HEAD)
    [ "$inside" = true ] || exit 0
}

# True when file $1 was written after the session started (always, when no start is known).
aiup_after_session_start() {
    local start=$AIUP_GIT_DIR/aiup-session-base
    [ ! -f "$start" ] || [ "$1" -nt "$start" ]
}

# Every changed path, relative to the project: what git status shows, from before the session too
# (new files one by one, a rename by its new name, deletions) and everything committed since
# the session started, so that a commit does not lift a guard.
aiup_changed_paths() {
    local entry base=""
    read -r base <"$AIUP_GIT_DIR/aiup-session-base" # "" when unknown, or HEAD was unborn
    {
        git status --porcelain -z --untracked-files=all -- . |
            while IFS= read -r -d '' entry; do
                # "XY path", from the repository's root; a rename's old name follows it.
                case ${entry:0:1} in R | C) IFS= read -r -d '' _ ;; esac
                entry=${entry:3}
                printf '%s\n' "${entry#"$AIUP_PREFIX"}"
            done
        # Commits since the base (a commit id, never an option for git diff), if HEAD moved.
        if [[ $base =~ ^[0-9a-f]+$ ]] && [ "$base" != "$AIUP_HEAD" ]; then
            git -c core.quotePath=false diff --name-only --relative "$base" HEAD
        fi
    } | sort -u
}

# The changed paths the sensors vote on, and those smoke.sh vouches for.
aiup_sensor_paths() { grep -E '^(src/|docs/|pom\.xml$)'; }
aiup_hook_paths() { grep -E '^\.claude/(hooks/|settings\.json$)'; }

# Prints "<nanoseconds> <path>" for the newest change among the paths on stdin. A change's
# time is the path's ctime, which a rename or a backdating touch moves too; a deleted path's
# is that of its nearest folder still there (removing a file changes its folder).
aiup_newest_change() {
    local path where ns newest=0 newest_path=""
    while IFS= read -r path; do
        [ -n "$path" ] || continue
        where=$path
        while [ ! -e "$where" ]; do where=$(dirname "$where"); done
        ns=$(stat -c %.9Z -- "$where") || continue
        ns=${ns/./}
        if [ "$ns" -gt "$newest" ]; then newest=$ns newest_path=$path; fi
    done
    [ -z "$newest_path" ] || printf '%s %s\n' "$newest" "$newest_path"
}

# aiup_late NEWEST FILE: true when NEWEST (aiup_newest_change) is not older than FILE.
aiup_late() {
    local written
    [ -n "$1" ] && written=$(stat -c %.9Y -- "$2") || return 1
    [ "${1%% *}" -ge "${written/./}" ]
}

# --- positive evidence: the sensors' Surefire reports -------------------------------------
# stdin: the changed paths a run must postdate. Prints why the five sensor reports are no
# evidence of a green run after those changes, or nothing when they are.
aiup_evidence_problem() {
    local LC_ALL=C newest name report text tag tests failures errors oldest="" oldest_name
    local suite='<testsuite[[:space:]][^>]*>' end='</testsuite>[[:space:]]*$'
    for name in "${AIUP_SENSORS[@]}"; do
        report=$AIUP_REPORT_DIR/TEST-ai.unifiedprocess.petclinic.$name.xml
        # The whole report. read -d '' stops early only at a NUL byte, which the test JVM
        # never writes: such a file is no report.
        text=""
        [ -f "$report" ] && IFS= read -r -d '' text <"$report" && text=""
        # The counts in the report's <testsuite ...> start tag ("" when it has none).
        tag="" tests="" failures="" errors=""
        if [[ $text =~ $suite ]]; then tag=${BASH_REMATCH[0]}; fi
        if [[ $tag =~ [[:space:]]tests=\"([0-9]+)\" ]]; then tests=${BASH_REMATCH[1]}; fi
        if [[ $tag =~ [[:space:]]failures=\"([0-9]+)\" ]]; then failures=${BASH_REMATCH[1]}; fi
        if [[ $tag =~ [[:space:]]errors=\"([0-9]+)\" ]]; then errors=${BASH_REMATCH[1]}; fi
        if [ ! -f "$report" ]; then
            echo "there is no $name report ($report): the sensors did not run to the end"
        elif ! aiup_after_session_start "$report"; then
            echo "the $name report is from before this session"
        elif [ -z "$tests" ] || [ -z "$failures" ] || [ -z "$errors" ]; then
            echo "the $name report cannot be read"
        elif ! [[ $text =~ $end ]]; then # cut off (a full disk, a killed JVM): no evidence
            echo "the $name report is cut off (no closing </testsuite>)"
        elif [ "$tests" -lt 1 ]; then
            echo "the $name report counts no test"
        elif [ "$failures" -gt 0 ]; then
            echo "$name failed ($failures failure(s) in $report)"
        elif [ "$errors" -gt 0 ]; then
            echo "$name broke ($errors error(s) in $report)"
        else
            # Green. Whether the run came after the changes, the oldest report tells.
            if [ -z "$oldest" ] || [ "$oldest" -nt "$report" ]; then
                oldest=$report oldest_name=$name
            fi
            continue
        fi
        return
    done
    newest=$(aiup_newest_change)
    if aiup_late "$newest" "$oldest"; then
        echo "${newest#* } changed after the last $oldest_name run"
    fi
}

# --- self-guarding: what smoke.sh proved --------------------------------------------------
# stdin: hook paths. Prints "<content hash> <path>" each, "- <path>" for a deleted one:
# hashes, not times, so touching the record or a hook proves nothing.
aiup_hook_fingerprints() {
    local path
    while IFS= read -r path; do
        if [ -f "$path" ]; then echo "$(git hash-object --no-filters -- "$path") $path"
        elif [ -n "$path" ]; then echo "- $path"; fi
    done
}

# stdin: changed hook paths. Prints those whose content now is not what smoke.sh proved.
aiup_unproven_hook_paths() {
    local record=$AIUP_GIT_DIR/aiup-smoke-ran
    [ -f "$record" ] || record=/dev/null # no record: nothing is proved
    aiup_hook_fingerprints | grep -vxF -f "$record" | cut -d ' ' -f 2-
}

# --- specs, their Status lines and coverage audits ----------------------------------------
# "<file>\t<status>" for each file given that has a "**Status:** <status>" line (the first).
aiup_status_lines() {
    awk 'FNR == 1 { found = 0 }
        !found && sub(/^[[:space:]]*(- )?\*\*Status(:\*\*|\*\*:)[[:space:]]*/, "") {
            sub(/[[:space:]]+$/, ""); print FILENAME "\t" $0; found = 1 }' "$@"
}

# The status of the spec text on stdin, "" when it has no Status line.
aiup_status_of() { aiup_status_lines - | cut -f 2-; }

# The Status lines of all use cases and test cases (awk passes over a pattern with no match).
aiup_status_snapshot() {
    aiup_status_lines docs/use_cases/UC-*.md docs/test_cases/TC-*.md 2>/dev/null
}

# True when a Status asserts coverage: Done, Tested or Automated (any case, any markup).
aiup_is_asserting() {
    local word
    read -r word _ <<<"${1//[^[:alpha:][:space:]]/ }"
    [[ ${word,,} =~ ^(done|tested|automated)$ ]]
}

# The id in a spec's file name, as the markers name it: docs/use_cases/UC-3-edit.md -> UC-003.
aiup_spec_id() {
    [[ ${1##*/} =~ ^(UC|TC)-?([0-9]{1,4})([^[:alnum:]_]|$) ]] || return 1
    printf '%s-%03d\n' "${BASH_REMATCH[1]}" "$((10#${BASH_REMATCH[2]}))"
}

# True while a coverage agent of this session runs (a session's start clears the notes): in
# the background (Claude Code 2.1.332) it hands its report back before its end writes the marker.
aiup_audit_running() { compgen -G "$AIUP_GIT_DIR/aiup-coverage-running/*" >/dev/null; }

# Prints why there is no fresh coverage audit of an id, or nothing when there is one: a
# marker written in this session after the last change under src/ (code and tests).
aiup_audit_problem() {
    local marker newest
    marker=$AIUP_GIT_DIR/aiup-coverage-checked/$1
    if [ ! -f "$marker" ] || ! aiup_after_session_start "$marker"; then
        echo "no coverage audit of $1 has finished in this session"
        return
    fi
    newest=$(aiup_changed_paths | grep '^src/' | aiup_newest_change)
    if aiup_late "$newest" "$marker"; then
        echo "the last coverage audit of $1 is stale: ${newest#* } changed after it"
    fi
}
