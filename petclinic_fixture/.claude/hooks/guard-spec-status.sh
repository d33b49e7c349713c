#!/usr/bin/env bash
# PreToolUse (Edit|Write): refuse an edit that would make a use-case or test-case spec assert
# coverage (Status Done, Tested or Automated) without a fresh coverage audit of that id.
# It judges the file the tool would produce, so a mid-line edit ("Approved" -> "Done") and a
# new spec written as Done are caught as well as a whole-line edit.
# shellcheck source=lib.sh disable=SC2154 # aiup_read_input sets the variables it names
. "${BASH_SOURCE[0]%/*}/lib.sh" 2>/dev/null || exit 0
aiup_fail_open
aiup_read_input tool=tool_name file=tool_input.file_path cwd=cwd
aiup_open_project

case $tool in Edit | Write | MultiEdit) ;; *) exit 0 ;; esac
[ -n "$file" ] || exit 0
case $file in /*) ;; *) file=$cwd/$file ;; esac
project=$(realpath -m -- "$PWD") || exit 0
file=$(realpath -m -- "$file") || exit 0
case $file in "$project"/*) rel=${file#"$project"/} ;; *) exit 0 ;; esac
[[ $rel =~ ^docs/(use_cases/UC|test_cases/TC)-[^/]*\.md$ ]] || exit 0

current_file=/dev/null
[ -f "$rel" ] && current_file=$rel

# The content after the tool call: Write replaces it; Edit replaces the first occurrence of
# old_string (every one with replace_all). split/join instead of index arithmetic keeps
# multi-byte text intact.
next=$(jq -r --rawfile current "$current_file" '
    def apply($text; $old; $new; $all):
        if $old == "" then (if $text == "" then $new else $text end)
        elif $all then $text | split($old) | join($new)
        else ($text | split($old)) as $parts
            | if ($parts | length) < 2 then $text
              else $parts[0] + $new + ($parts[1:] | join($old)) end
        end;
    .tool_input as $in
    | if .tool_name == "Write" then $in.content // ""
      elif .tool_name == "Edit" then
          apply($current; $in.old_string // ""; $in.new_string // ""; $in.replace_all // false)
      else reduce ($in.edits // [])[] as $e ($current;
          apply(.; $e.old_string // ""; $e.new_string // ""; $e.replace_all // false))
      end' <<<"$AIUP_INPUT" | aiup_status_of) || exit 0

aiup_is_asserting "$next" || exit 0
current=$(aiup_status_of <"$current_file")
[ "$next" = "$current" ] && exit 0
id=$(aiup_spec_id "$rel") || exit 0
problem=$(aiup_audit_problem "$id")
[ -n "$problem" ] || exit 0

aiup_say <<MSG
Refused: $rel would read "**Status:** $next".

A Status of $next is an assertion the traceability sensors act on, not a label,
and $problem.
First run the coverage audit:

  $AIUP_AUDIT_COMMAND $id

If it finds no gaps, make this edit again and then run the sensors
($AIUP_SENSOR_COMMAND) so the rule it switches on actually votes.
If it finds gaps, close them or leave the Status as it is${current:+ ($current)}.
MSG
aiup_block
