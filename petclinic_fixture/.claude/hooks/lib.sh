# shellcheck shell=bash
# lib.sh: what the guard hooks share. Hooks guard the session, sensor tests the repository
# (ADR-010). A guard reads the repository and wants positive evidence (ADR-011): the sensors'
# Surefire reports and the coverage audit's markers, never the console or the agent's word.
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
aiup_fail_open() {
    [ "${BASH_VERSINFO[0]:-0}" -ge 4 ] || exit 0 # ${x,,} needs bash 4 (macOS ships 3.2)
    exec 3>&2 2>/dev/null # stray errors (a read-only .git) go nowhere; aiup_block writes to fd 3
    trap 'exit 0' EXIT # any end but aiup_block's, a crash too, is a quiet exit 0
}

# aiup_block MESSAGE: tells Claude why not (Claude Code shows it a blocking hook's stderr).
aiup_block() { printf '%s\n' "$1" >&3; trap - EXIT; exit 2; }

# --- the event on stdin -------------------------------------------------------------------
# aiup_read_input NAME=FIELD...: reads the event (JSON), sets each variable NAME to a one-line
# FIELD (a name, a path, true), "" when it has none: tool=tool_name sets $tool. No jq or no
# event (a terminal, a closed stdin, empty input, no JSON object): the session goes on.
aiup_read_input() {
    local pair fields="" values
    # A terminal carries no event; from a closed stdin, $(cat) would read its own pipe forever.
    if [ -t 0 ] || [ ! -e /dev/stdin ]; then exit 0; fi
    # Claude Code hands the event over a Unix socket: cat reads it, $(</dev/stdin) cannot.
    AIUP_INPUT=$(cat) && [ -n "$AIUP_INPUT" ] || exit 0
    for pair in "$@"; do fields+=".${pair#*=}, "; done # tool=tool_name -> .tool_name,
    values=$(jq -r "if type == \"object\" then [${fields}empty][] | . // \"\" else error end" \
        <<<"$AIUP_INPUT") || exit 0
    for pair in "$@"; do IFS= read -r "${pair%%=*}"; done <<<"$values" # one value a line
}

# aiup_field FIELD: a field that may span lines, "" when it has none: $(aiup_field prompt)
aiup_field() { jq -r ".$1 // \"\"" <<<"$AIUP_INPUT"; }

# --- the project and what changed in this session -----------------------------------------
# Enters the project (CLAUDE_PROJECT_DIR). No project, no git work tree: the session goes on.
aiup_open_project() {
    local inside
    [ -n "${CLAUDE_PROJECT_DIR:-}" ] && cd "$CLAUDE_PROJECT_DIR" || exit 0
    # "true" in a work tree, then the git dir, where the state lives (it follows a worktree).
    { read -r inside; read -r AIUP_GIT_DIR; } < <(git rev-parse --is-inside-work-tree --git-dir)
    [ "$inside" = true ] || exit 0
    AIUP_START=$AIUP_GIT_DIR/aiup-session-base # its mtime is the session's start
}

# True when file $1 was written after the session started (always, when no start is known).
aiup_after_session_start() { [ ! -f "$AIUP_START" ] || [ "$1" -nt "$AIUP_START" ]; }

# Every changed path, relative to the project: new files one by one, edits, deletions and
# renames (by the new name), uncommitted ones from before the session too, and everything
# committed since the session started, so that a commit does not lift a guard.
aiup_changed_paths() {
    local base # HEAD when no session start was kept (a full disk), "" in a new repository
    base=$(cat "$AIUP_START")
    [[ $base =~ ^[0-9a-f]+$ ]] || base=$(git rev-parse -q --verify HEAD)
    {
        git -c core.quotePath=false ls-files --others --exclude-standard
        if [[ $base =~ ^[0-9a-f]+$ ]]; then # a commit id, never an option for git diff
            git -c core.quotePath=false diff --name-only --relative "$base"
        else # HEAD was unborn: every file is new
            git -c core.quotePath=false ls-files --cached
        fi
    } | sort -u
}

# The changed paths the sensors vote on, and those smoke.sh vouches for.
aiup_sensor_paths() { grep -E '^(src/|docs/|pom\.xml$)'; }
aiup_hook_paths() { grep -E '^\.claude/(hooks/|settings\.json$)'; }

# stdin: paths. Prints the first one that changed after file $1 was written. A change's time is
# the path's ctime, which a rename or a backdating touch (touch -d) moves too; a deleted path's
# is that of its nearest folder still there (removing a file changes its folder).
aiup_changed_after() {
    local path where
    while IFS= read -r path; do
        [ -n "$path" ] || continue
        where=$path
        while [ ! -e "$where" ]; do where=$(dirname "$where"); done
        [ -z "$(find "./$where" -maxdepth 0 -cnewer "$1")" ] || { echo "$path" && return; }
    done
}

# --- positive evidence: the sensors' Surefire reports -------------------------------------
# aiup_report_problem NAME: why the report of sensor NAME is no evidence of a green run in
# this session, or nothing when it is.
aiup_report_problem() {
    local report=$AIUP_REPORT_DIR/TEST-ai.unifiedprocess.petclinic.$1.xml
    local suite='<testsuite[[:space:]][^>]*>' text="" tag="" tests="" failures="" errors=""
    # A NUL byte, which no test JVM writes, becomes a \001 that bash keeps: no report then.
    [ -f "$report" ] && text=$(tr '\000' '\001' <"$report")
    # The counts in its <testsuite ...> start tag (over several lines, too).
    [[ $text =~ $suite ]] && tag=${BASH_REMATCH[0]}
    [[ $tag =~ [[:space:]]tests=\"([0-9]+)\" ]] && tests=${BASH_REMATCH[1]}
    [[ $tag =~ [[:space:]]failures=\"([0-9]+)\" ]] && failures=${BASH_REMATCH[1]}
    [[ $tag =~ [[:space:]]errors=\"([0-9]+)\" ]] && errors=${BASH_REMATCH[1]}
    if [ ! -f "$report" ]; then
        echo "there is no $1 report ($report): the sensors did not run to the end"
    elif ! aiup_after_session_start "$report"; then
        echo "the $1 report is from before this session"
    elif [ -z "$tests" ] || [ -z "$failures" ] || [ -z "$errors" ] || [[ $text == *$'\001'* ]]; then
        echo "the $1 report cannot be read"
    elif [[ $text != *"</testsuite>"* ]]; then # a full disk, a killed JVM: no evidence
        echo "the $1 report is cut off (no closing </testsuite>)"
    elif [ "$tests" -lt 1 ]; then
        echo "the $1 report counts no test"
    elif [ "$failures" -gt 0 ]; then
        echo "$1 failed ($failures failure(s) in $report)"
    elif [ "$errors" -gt 0 ]; then
        echo "$1 broke ($errors error(s) in $report)"
    fi
}

# stdin: the changed paths a run must postdate. Prints why the sensor reports are no evidence
# of a green run after them, or nothing when they are.
aiup_evidence_problem() {
    local changed name report problem oldest="" sensor late
    changed=$(cat)
    for name in "${AIUP_SENSORS[@]}"; do
        problem=$(aiup_report_problem "$name")
        [ -z "$problem" ] || { echo "$problem" && return; }
        # Green. Whether the run came after the changes, the oldest report tells.
        report=$AIUP_REPORT_DIR/TEST-ai.unifiedprocess.petclinic.$name.xml
        if [ -z "$oldest" ] || [ "$oldest" -nt "$report" ]; then oldest=$report sensor=$name; fi
    done
    late=$(aiup_changed_after "$oldest" <<<"$changed")
    [ -z "$late" ] || echo "$late changed after the last $sensor run"
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
aiup_status_snapshot() { aiup_status_lines docs/use_cases/UC-*.md docs/test_cases/TC-*.md; }

# True when a Status asserts coverage: Done, Tested or Automated (any case, any markup).
aiup_is_asserting() { [[ ${1,,} =~ ^[^[:alpha:]]*(done|tested|automated)([^[:alpha:]]|$) ]]; }

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
    local marker=$AIUP_GIT_DIR/aiup-coverage-checked/$1 late
    if [ ! -f "$marker" ] || ! aiup_after_session_start "$marker"; then
        echo "no coverage audit of $1 has finished in this session" && return
    fi
    late=$(aiup_changed_paths | grep '^src/' | aiup_changed_after "$marker")
    [ -z "$late" ] || echo "the last coverage audit of $1 is stale: $late changed after it"
}
