# shellcheck shell=bash
# lib.sh: what the guard hooks share. Sourced by every hook and by smoke.sh, never run.
#
# Hooks guard the session, sensor tests guard the repository (ADR-010). Every guard reads
# repository state and wants positive evidence (ADR-011): Surefire reports and audit markers,
# never console output or what the agent says. A hook that cannot read its input or its
# repository lets the session go: it exits 0 and says nothing (fail open). Only aiup_block
# ends a hook with exit 2.

# The hooks that source this file use these.
# shellcheck disable=SC2034
AIUP_SENSORS=(ArchitectureTest TestLayerConventionsTest UseCaseTraceabilityTest
    TestCaseTraceabilityTest BusinessRuleTraceabilityTest)
AIUP_REPORT_DIR=target/surefire-reports
AIUP_REPORT_PACKAGE=ai.unifiedprocess.petclinic
AIUP_SENSOR_COMMAND="./mvnw -q test -Dgroups=sensor"
AIUP_SMOKE_COMMAND="./.claude/hooks/smoke.sh"
AIUP_AUDIT_COMMAND="aiup-vaadin-jooq:coverage-check"
AIUP_COVERAGE_AGENT="aiup-vaadin-jooq:uc-coverage"
AIUP_LIST_CAP=10

# --- fail open ----------------------------------------------------------------------------

# Silences stray errors of the tools a hook calls (messages go to fd 3) and turns any exit
# other than a deliberate block into a quiet exit 0, so a broken hook never breaks a session.
aiup_fail_open() {
    # Associative arrays, mapfile and case changes need bash 4 (macOS ships 3.2).
    [ "${BASH_VERSINFO[0]:-0}" -ge 4 ] || exit 0
    exec 3>&2 2>/dev/null
    trap aiup_on_exit EXIT
}

aiup_on_exit() {
    local rc=$?
    if [ "$rc" = 2 ] && [ "${AIUP_BLOCKING:-}" = 1 ]; then exit 2; fi
    exit 0
}

# Ends the hook with exit 2: Claude Code shows the message (already on fd 3) to Claude.
aiup_block() {
    AIUP_BLOCKING=1
    exit 2
}

# Prints a message for Claude on stderr (fd 3 once aiup_fail_open ran).
aiup_say() {
    if { true >&3; } 2>/dev/null; then cat >&3; else cat >&2; fi
}

# --- the event on stdin -------------------------------------------------------------------

# The event fields the hooks read, parsed once: every jq start costs tens of milliseconds.
AIUP_EVENT_FIELDS=(source tool_name tool_input.command tool_input.file_path
    tool_input.run_in_background stop_hook_active agent_type agent_id agent_transcript_path
    last_assistant_message stop_reason cwd)

# Reads the event JSON from stdin into AIUP_INPUT and its fields into AIUP_EVENT. Without jq
# nothing can be read, and a terminal, a closed stdin, empty or garbage input is not an event:
# either way the hook lets the session go.
aiup_read_input() {
    local value count=0
    command -v jq >/dev/null 2>&1 || exit 0
    [ -t 0 ] && exit 0
    # A closed stdin is no event; $(cat) would get its own output pipe as fd 0 and wait forever.
    { exec 9<&0; } 2>/dev/null || exit 0
    exec 9<&-
    # Claude Code hands the event over a Unix socket. $(</dev/stdin) cannot open a socket
    # (ENXIO) and would fail open on every event; cat reads sockets, pipes and files alike.
    AIUP_INPUT=$(cat) || exit 0
    [ -n "$AIUP_INPUT" ] || exit 0
    declare -gA AIUP_EVENT=()
    while IFS= read -r -d '' value; do
        AIUP_EVENT[${AIUP_EVENT_FIELDS[count]}]=$value
        count=$((count + 1))
    done < <(jq -j --arg names "${AIUP_EVENT_FIELDS[*]}" '
        if type != "object" then error("not an event") else . end
        | . as $event | $names | split(" ")[] | split(".") as $path
        | ($event | try getpath($path) catch null) as $value
        | (if $value == null then "" elif ($value | type) == "string" then $value
           else $value | tostring end) + "\u0000"' <<<"$AIUP_INPUT" 2>/dev/null)
    [ "$count" = "${#AIUP_EVENT_FIELDS[@]}" ] || exit 0
}

# One field of the event as text ("" when missing or null), e.g. aiup_field tool_input.command.
aiup_field() {
    printf '%s' "${AIUP_EVENT[$1]-}"
}

# The tool a tool event is about. Claude Code always names it; some other clients and older
# versions leave tool_name out of a shell call, so a tool_input.command without a tool_name is
# taken for Bash. A named tool stays what it is named.
aiup_tool_name() {
    local name
    name=$(aiup_field tool_name)
    if [ -z "$name" ] && [ -n "$(aiup_field tool_input.command)" ]; then
        name=Bash
    fi
    printf '%s' "$name"
}

# aiup_json_string TEXT [NAME]: TEXT as a JSON string literal (for the few hooks that answer
# with JSON on stdout), printed, or put in the variable NAME (no subshell: smoke.sh builds
# hundreds of events with it).
aiup_json_string() {
    local text=$1
    text=${text//\\/\\\\}
    text=${text//\"/\\\"}
    text=${text//$'\n'/\\n}
    text=${text//$'\r'/\\r}
    text=${text//$'\t'/\\t}
    if [ -n "${2:-}" ]; then printf -v "$2" '"%s"' "$text"; else printf '"%s"' "$text"; fi
}

# --- the project and its state ------------------------------------------------------------

# Enters the project (CLAUDE_PROJECT_DIR) and finds its git dir.
# Without a project or a git work tree the hook lets the session go.
aiup_open_project() {
    [ -n "${CLAUDE_PROJECT_DIR:-}" ] || exit 0
    cd "$CLAUDE_PROJECT_DIR" 2>/dev/null || exit 0
    local facts inside
    facts=$(git rev-parse --is-inside-work-tree --absolute-git-dir --show-prefix 2>/dev/null) ||
        exit 0
    { read -r inside && read -r AIUP_GIT_DIR && IFS= read -r AIUP_PREFIX; } <<<"$facts"
    [ "$inside" = true ] && [ -n "$AIUP_GIT_DIR" ] || exit 0
    # (AIUP_PREFIX: a project nested in a bigger repository sees its own paths only.)
    # State lives in the git dir: it follows worktrees and never shows up as a change.
    AIUP_STATE_DIR=$AIUP_GIT_DIR
}

# Path of a state file: session-base, sensors-ran, smoke-ran, spec-status, coverage-checked.
# Printed, or put in the variable named by $2 (no subshell, like every "[NAME]" helper here:
# the Stop hook asks these for each of five reports, and a $(...) costs about a millisecond).
aiup_state() {
    aiup_put "${2:-}" '%s/aiup-%s' "$AIUP_STATE_DIR" "$1"
}

# aiup_put NAME FORMAT ARGS...: printf FORMAT into the variable NAME, or printed with a newline
# when NAME is empty. (No locals: one would hide a caller's variable of the same name.)
aiup_put() {
    # shellcheck disable=SC2059 # the format is the caller's
    if [ -n "$1" ]; then printf -v "$1" "$2" "${@:3}"; else printf "$2\n" "${@:3}"; fi
}

# HEAD at session start, "" when unknown or when HEAD was unborn.
aiup_session_base() {
    local file base
    file=$(aiup_state session-base)
    [ -f "$file" ] || return 0
    read -r base <"$file"
    [ -n "$base" ] || return 0
    git rev-parse -q --verify "$base^{commit}" 2>/dev/null
}

# --- what changed in this session ---------------------------------------------------------

# Every path changed in this session, relative to the project, sorted: uncommitted changes
# (untracked files one by one, renames by their new name, deletions included) plus everything
# committed since the session base, so that a commit does not lift a guard.
aiup_changed_paths() {
    local entry base
    {
        git status --porcelain -z --untracked-files=all -- . 2>/dev/null |
            while IFS= read -r -d '' entry; do
                aiup_project_path "${entry:3}"
                # -z puts a rename's old name after the new one; it is not a path of its own.
                case ${entry:0:1} in R | C) IFS= read -r -d '' entry ;; esac
            done
        base=$(aiup_session_base)
        if [ -n "$base" ]; then
            git diff --name-only -z --relative "$base" HEAD -- . 2>/dev/null |
                while IFS= read -r -d '' entry; do printf '%s\n' "$entry"; done
        fi
    } | sort -u
}

# git status speaks in paths from the repository root; the hooks speak from the project.
aiup_project_path() {
    case $1 in "$AIUP_PREFIX"*) printf '%s\n' "${1#"$AIUP_PREFIX"}" ;; esac
}

# The paths the sensors vote on, and the paths smoke.sh vouches for.
aiup_sensor_paths() { aiup_paths_matching '^(src/|docs/|pom\.xml$)'; }
aiup_hook_paths() { aiup_paths_matching '^\.claude/(hooks/|settings\.json$)'; }

# stdin: paths. Prints those that match the regex, in bash itself: the hooks run on every
# tool call and every stop, and each process they start costs milliseconds.
aiup_paths_matching() {
    local path
    while IFS= read -r path; do
        if [[ $path =~ $1 ]]; then printf '%s\n' "$path"; fi
    done
    return 0
}

# The file whose ctime tells when a path last changed: the path itself (ctime also moves on
# rename and on a backdating touch), or for a deleted path the nearest directory that still
# exists (removing an entry updates the directory). Stored in AIUP_WITNESS: no subshell.
aiup_change_witness() {
    local path=$1
    while [ ! -e "$path" ] && [ "$path" != . ]; do
        case $path in */*) path=${path%/*} ;; *) path=. ;; esac
    done
    AIUP_WITNESS=$path
}

# "<mtime ns> <ctime ns>" of files by path, filled by aiup_cache_times: each process a hook
# starts costs it milliseconds, so one stat answers for every file a decision needs.
declare -gA AIUP_TIMES=()

# Asks one stat for the times of every file given that is not cached yet. When any cannot be
# read (it vanished meanwhile) none is cached, and each is asked on its own later.
aiup_cache_times() {
    local file i
    local -a todo=() lines=()
    for file in "$@"; do
        [ -n "${AIUP_TIMES[$file]+set}" ] || todo+=("$file")
    done
    [ "${#todo[@]}" -gt 0 ] || return 0
    mapfile -t lines < <(stat -c '%.9Y %.9Z' -- "${todo[@]}" 2>/dev/null)
    [ "${#lines[@]}" = "${#todo[@]}" ] || return 0
    for i in "${!todo[@]}"; do
        AIUP_TIMES[${todo[i]}]=${lines[i]//./}
    done
}

# Sets AIUP_NS to the nanoseconds since the epoch of a file's mtime (Y) or ctime (Z).
aiup_time_ns() {
    local t
    if [ -n "${AIUP_TIMES[$1]+set}" ]; then
        t=${AIUP_TIMES[$1]}
    else
        t=$(stat -c '%.9Y %.9Z' -- "$1" 2>/dev/null) || return 1
        t=${t//./}
    fi
    case $2 in Y) AIUP_NS=${t% *} ;; *) AIUP_NS=${t#* } ;; esac
}

# aiup_first_change_since REFERENCE [NAME]. stdin: changed paths. Prints (or puts in NAME) the
# first one that did not change strictly before the mtime of the reference file (a report or
# an audit marker); returns 1 when all are older.
aiup_first_change_since() {
    local ref=$1 into=${2:-} ref_ns path changed_ns i
    local -a paths=() witnesses=()
    while IFS= read -r path; do
        [ -n "$path" ] || continue
        paths+=("$path")
        aiup_change_witness "$path"
        witnesses+=("$AIUP_WITNESS")
    done
    aiup_cache_times "$ref" "${witnesses[@]}"
    aiup_time_ns "$ref" Y || return 1
    ref_ns=$AIUP_NS
    for i in "${!paths[@]}"; do
        aiup_time_ns "${witnesses[i]}" Z || continue
        changed_ns=$AIUP_NS
        if [ "$changed_ns" -ge "$ref_ns" ]; then
            aiup_put "$into" '%s' "${paths[i]}"
            return 0
        fi
    done
    return 1
}

# True when file $1 was written after the session started (always true without a base).
aiup_after_session_start() {
    local start=""
    aiup_state session-base start
    [ -f "$start" ] || return 0
    [ "$1" -nt "$start" ]
}

# Prints paths indented, at most AIUP_LIST_CAP of them.
aiup_print_list() {
    awk -v cap="$AIUP_LIST_CAP" 'NF { n++; if (n <= cap) print "  " $0 }
        END { if (n > cap) printf "  ... and %d more\n", n - cap }'
}

# --- positive evidence: the sensors' Surefire reports -------------------------------------

# aiup_report_path SENSOR [NAME]: where Surefire writes the sensor's report.
aiup_report_path() {
    aiup_put "${2:-}" '%s/TEST-%s.%s.xml' "$AIUP_REPORT_DIR" "$AIUP_REPORT_PACKAGE" "$1"
}

# Reads a report into AIUP_REPORT without starting a process. Returns 1 when it cannot be
# read, or when it holds a NUL byte, which no Surefire report does.
aiup_load_report() {
    AIUP_REPORT=""
    [ -f "$1" ] && [ -r "$1" ] || return 1
    # read -d '' succeeds only when it meets a NUL; at the end of the file it returns 1.
    ! IFS= read -r -d '' AIUP_REPORT <"$1"
}

# aiup_suite_tag [NAME]: the loaded report's <testsuite ...> start tag on one line ("" when
# there is none). Bytes, not characters: a report's other text may be in any encoding.
aiup_suite_tag() {
    local LC_ALL=C pattern='<testsuite[[:space:]][^>]*>' found=""
    if [[ $AIUP_REPORT =~ $pattern ]]; then found=${BASH_REMATCH[0]}; fi
    aiup_put "${1:-}" '%s' "${found//$'\n'/ }"
}

# aiup_suite_attr TAG ATTRIBUTE [NAME]: a numeric attribute of a <testsuite> tag, "" when it
# has none.
aiup_suite_attr() {
    local found=""
    if [[ $1 =~ [[:space:]]$2=\"([0-9]+)\" ]]; then found=${BASH_REMATCH[1]}; fi
    aiup_put "${3:-}" '%s' "$found"
}

# True when the loaded report was written to its end. A run cut off (a full disk, a killed
# JVM) can leave a start tag with green counts and no closing tag: that is no evidence.
aiup_report_complete() {
    local LC_ALL=C end=$AIUP_REPORT
    [ "${#end}" -le 64 ] || end=${end: -64}
    end=${end//[[:space:]]/}
    [[ $end == *'</testsuite>' ]]
}

# stdin: the changed paths the run must postdate. Prints why the sensor reports are no
# evidence of a green run after those changes, or nothing when they are.
aiup_evidence_problem() {
    local changed="" name report tag tests failures errors late path
    local -a files=()
    IFS= read -r -d '' changed || true
    # The times the checks below compare, asked of one stat: the reports' and the changes'.
    for name in "${AIUP_SENSORS[@]}"; do
        aiup_report_path "$name" report
        [ ! -f "$report" ] || files+=("$report")
    done
    while IFS= read -r path; do
        [ -n "$path" ] || continue
        aiup_change_witness "$path"
        files+=("$AIUP_WITNESS")
    done <<<"$changed"
    aiup_cache_times "${files[@]}"
    for name in "${AIUP_SENSORS[@]}"; do
        aiup_report_path "$name" report
        if [ ! -f "$report" ]; then
            echo "there is no $name report ($report): the sensors did not run to the end"
            return
        fi
        if ! aiup_after_session_start "$report"; then
            echo "the $name report is from before this session"
            return
        fi
        tag=""
        aiup_load_report "$report" && aiup_suite_tag tag
        aiup_suite_attr "$tag" tests tests
        aiup_suite_attr "$tag" failures failures
        aiup_suite_attr "$tag" errors errors
        if [ -z "$tests" ] || [ -z "$failures" ] || [ -z "$errors" ]; then
            echo "the $name report cannot be read"
            return
        fi
        if ! aiup_report_complete; then
            echo "the $name report is cut off (no closing </testsuite>)"
            return
        fi
        if [ "$tests" -lt 1 ]; then
            echo "the $name report counts no test"
            return
        fi
        if [ "$failures" -gt 0 ]; then
            echo "$name failed ($failures failure(s) in $report)"
            return
        fi
        if [ "$errors" -gt 0 ]; then
            echo "$name broke ($errors error(s) in $report)"
            return
        fi
        if aiup_first_change_since "$report" late <<<"$changed"; then
            echo "$late changed after the last $name run"
            return
        fi
    done
}

# --- self-guarding: what smoke.sh proved --------------------------------------------------

# Every hook file that exists now.
aiup_hook_files() {
    {
        find .claude/hooks -type f 2>/dev/null
        [ -f .claude/settings.json ] && echo .claude/settings.json
    } | sort
}

# stdin: hook paths. Prints "<blob hash> <path>" each, "- <path>" for a deleted one. Content
# hashes, not times: touching the record or a hook proves nothing.
aiup_hook_fingerprints() {
    local path
    while IFS= read -r path; do
        [ -n "$path" ] || continue
        if [ -f "$path" ]; then
            printf '%s %s\n' "$(git hash-object --no-filters -- "$path")" "$path"
        else
            printf -- '- %s\n' "$path"
        fi
    done
}

# Records what smoke.sh has just proved: the fingerprints of every hook file and every
# changed hook path. Run from smoke.sh after all its checks passed.
aiup_record_smoke() {
    { aiup_hook_files; aiup_changed_paths | aiup_hook_paths; } | sort -u |
        aiup_hook_fingerprints >"$(aiup_state smoke-ran)"
}

# stdin: changed hook paths. Prints those whose current content smoke.sh has not proved.
aiup_unproven_hook_paths() {
    local record line path
    record=$(aiup_state smoke-ran)
    while IFS= read -r line; do
        [ -n "$line" ] || continue
        path=${line#* }
        if [ ! -f "$record" ] || ! grep -qxF -- "$line" "$record"; then
            printf '%s\n' "$path"
        fi
    done < <(aiup_hook_fingerprints)
}

# --- specs, their Status lines and audits -------------------------------------------------

# True for a use-case or test-case spec, given a project-relative path.
aiup_is_spec_path() {
    [[ $1 =~ ^docs/use_cases/UC-[^/]*\.md$ || $1 =~ ^docs/test_cases/TC-[^/]*\.md$ ]]
}

aiup_spec_files() {
    local file
    for file in docs/use_cases/UC-*.md docs/test_cases/TC-*.md; do
        [ -f "$file" ] && printf '%s\n' "$file"
    done
}

# The value of the first "**Status:** <value>" line of the text on stdin ("" when none).
aiup_status_of() {
    awk '/^[[:space:]]*(- )?\*\*Status(:\*\*|\*\*:)/ {
            sub(/^[[:space:]]*(- )?\*\*Status(:\*\*|\*\*:)[[:space:]]*/, "")
            sub(/[[:space:]]+$/, ""); print; exit }'
}

# "<path>\t<status>" for every spec with a Status line, the snapshot check-spec-status.sh
# compares against. One awk for all files: this runs after every tool call.
aiup_status_snapshot() {
    local files
    mapfile -t files < <(aiup_spec_files)
    [ "${#files[@]}" -gt 0 ] || return 0
    awk 'FNR == 1 { seen = 0 }
        !seen && /^[[:space:]]*(- )?\*\*Status(:\*\*|\*\*:)/ {
            value = $0
            sub(/^[[:space:]]*(- )?\*\*Status(:\*\*|\*\*:)[[:space:]]*/, "", value)
            sub(/[[:space:]]+$/, "", value)
            print FILENAME "\t" value
            seen = 1
        }' "${files[@]}"
}

# True when a Status value asserts coverage (Done, Tested, Automated; any case, any markup).
aiup_is_asserting() {
    local words word
    words=${1//[^[:alpha:][:space:]]/ }
    read -r word _ <<<"$words"
    case ${word,,} in done | tested | automated) return 0 ;; esac
    return 1
}

# stdin: text. Prints every use-case or test-case id it names, normalised and unique:
# "uc 7", "UC7", "uc-007" -> UC-007; "TC001" -> TC-001.
aiup_ids_in() {
    local token kind number
    grep -oiE '\b(uc|tc)[ _-]?[0-9]{1,4}\b' | while IFS= read -r token; do
        kind=${token:0:2}
        number=${token//[^0-9]/}
        printf '%s-%03d\n' "${kind^^}" "$((10#$number))"
    done | sort -u
}

# The id of a spec file from its name: docs/use_cases/UC-003-register-new-owner.md -> UC-003.
aiup_spec_id() {
    local name=${1##*/}
    [[ $name =~ ^((UC|TC)-?[0-9]+) ]] || return 1
    aiup_ids_in <<<"${BASH_REMATCH[1]}" | head -n 1
}

# True for the agent types the SubagentStop matcher "aiup-vaadin-jooq:uc-coverage$" selects. A
# matcher like it is a regex searched anywhere in agent_type, so a namespaced type
# (plugin:aiup-vaadin-jooq:uc-coverage, as some clients send it) is the coverage agent too.
aiup_is_coverage_agent() {
    [[ $1 == *"$AIUP_COVERAGE_AGENT" ]]
}

aiup_audit_marker() {
    printf '%s/%s\n' "$(aiup_state coverage-checked)" "$1"
}

# Prints why there is no fresh coverage audit for an id, or nothing when there is one: a
# marker written in this session after the last change under src/ (code and tests).
aiup_audit_problem() {
    local id=$1 marker late
    marker=$(aiup_audit_marker "$id")
    if [ ! -f "$marker" ] || ! aiup_after_session_start "$marker"; then
        echo "no coverage audit of $id has finished in this session"
        return
    fi
    if late=$(aiup_changed_paths | grep -E '^src/' | aiup_first_change_since "$marker"); then
        echo "the last coverage audit of $id is stale: $late changed after it"
    fi
}
