#!/usr/bin/env bash
# PreToolUse (Bash): refuse a command that removes recursively and by force: rm -rf and its
# other spellings (-fr, -r -f, -Rf, --recursive --force, options after the paths).
# A refusal is exit 2 with the reason on stderr: Claude Code does not run the command and
# shows Claude the reason. Anything the hook cannot read lets the call go (exit 0): a broken
# guard must never stop a session.
command -v jq >/dev/null || exit 0
input=$(cat) || exit 0
command=$(jq -r 'if .tool_name == "Bash" then .tool_input.command // "" else "" end' \
    <<<"$input" 2>/dev/null) || exit 0
[ -n "$command" ] || exit 0

# The command's words, with ; & | ( ) and line ends as words of their own: each ends an rm.
spaced=$(sed -E 's/([;&|()])/ \1 /g' <<<"$command" | tr '\n' ';')
read -ra words <<<"${spaced//;/ ; }"

# An rm is a command word: the first of its part, or after a word that runs the next one
# (sudo, env, xargs, ...) or sets a variable. "echo rm -rf" only prints.
in_rm=0 first=1 recursive=0 force=0
for word in "${words[@]}"; do
    case $word in
        ';' | '&' | '|' | '(' | ')') in_rm=0 first=1 ;;
        *)
            if [ "$in_rm" = 0 ]; then
                case ${word##*/} in
                    rm) [ "$first" = 1 ] && in_rm=1 recursive=0 force=0 ;;
                    sudo | env | command | exec | nice | nohup | time | xargs | *=*) ;;
                    *) first=0 ;;
                esac
                continue
            fi
            case $word in
                --) in_rm=2 ;; # what follows are paths, even when they start with -
                --recursive) [ "$in_rm" = 1 ] && recursive=1 ;;
                --force) [ "$in_rm" = 1 ] && force=1 ;;
                --*) ;;
                -*)
                    [ "$in_rm" = 1 ] || continue
                    [[ $word == *[rR]* ]] && recursive=1
                    [[ $word == *f* ]] && force=1
                    ;;
            esac
            ;;
    esac
    if [ "$recursive" = 1 ] && [ "$force" = 1 ]; then
        echo "rm -rf is refused here: remove the files by name, or ask the person to do it." >&2
        exit 2
    fi
done
exit 0
