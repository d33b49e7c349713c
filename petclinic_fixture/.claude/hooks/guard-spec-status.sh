#!/usr/bin/env bash
# PreToolUse (Edit|Write): refuse an edit that would make a use-case or test-case spec assert
# coverage (Status Done, Tested or Automated) without a fresh coverage audit of that id.
# It judges the file the tool would produce, so a mid-line edit ("Approved" -> "Done") and a
# new spec written as Done are caught as well as a whole-line edit.
# shellcheck source=lib.sh disable=SC2154 # aiup_read_input sets the variables it names
. "${BASH_SOURCE[0]%/*}/lib.sh" 2>/dev/null || exit 0
aiup_fail_open
aiup_read_input tool=tool_name file=tool_input.file_path cwd=cwd all=tool_input.replace_all
aiup_open_project

case $tool in Edit | Write | MultiEdit) ;; *) exit 0 ;; esac
[ -n "$file" ] || exit 0
case $file in /*) ;; *) file=$cwd/$file ;; esac
project=$(pwd -P) || exit 0
file=$(realpath -m -- "$file") || exit 0
case $file in "$project"/*) rel=${file#"$project"/} ;; *) exit 0 ;; esac
[[ $rel =~ ^docs/(use_cases/UC|test_cases/TC)-[^/]*\.md$ ]] || exit 0

# The spec now: "" for a new one; one the hook cannot read lets the session go.
text=""
[ ! -f "$rel" ] || text=$(<"$rel") || exit 0

# The spec after the tool call. apply OLD NEW [true] replaces the first OLD in it with NEW
# (every one with true); an empty OLD only fills an empty file. Quoted, OLD and NEW are plain
# text, never patterns.
apply() {
    if [ -z "$1" ]; then next=${next:-$2}
    elif [ "${3:-}" = true ]; then next=${next//"$1"/"$2"}
    else next=${next/"$1"/"$2"}; fi
}
edit() { # edit FIELD ALL: the edit at FIELD in the event (tool_input, or one of MultiEdit's)
    apply "$(aiup_field "$1.old_string")" "$(aiup_field "$1.new_string")" "$2"
}
next=$text
case $tool in
    Write) next=$(aiup_field tool_input.content) ;;
    Edit) edit tool_input "$all" ;;
    MultiEdit) # other clients: its edits in turn
        n=$(aiup_field 'tool_input.edits | length')
        for ((i = 0; i < n; i++)); do
            edit "tool_input.edits[$i]" "$(aiup_field "tool_input.edits[$i].replace_all")"
        done ;;
esac
next=$(aiup_status_of <<<"$next")
aiup_is_asserting "$next" || exit 0
current=$(aiup_status_of <<<"$text")
[ "$next" = "$current" ] && exit 0
id=$(aiup_spec_id "$rel") || exit 0
problem=$(aiup_audit_problem "$id")
[ -n "$problem" ] || exit 0

todo="First run the coverage audit:

  $AIUP_AUDIT_COMMAND $id

If it finds no gaps, make this edit again"
aiup_audit_running && todo="The coverage audit is still running (its report can come before
its end). Once Claude Code shows Agent \"…\" finished, and if it found
no gaps, make this edit again"

aiup_block "Refused: $rel would read \"**Status:** $next\".

A Status of $next is an assertion the traceability sensors act on, not a label,
and $problem.
$todo and then run the sensors
($AIUP_SENSOR_COMMAND) so the rule it switches on actually votes.
If it finds gaps, close them or leave the Status as it is${current:+ ($current)}."
