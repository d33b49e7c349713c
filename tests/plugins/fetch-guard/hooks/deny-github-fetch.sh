#!/usr/bin/env bash
# PreToolUse (Bash, WebFetch): deny a curl command or a WebFetch that goes to GitHub
# (github.com, its subdomains, githubusercontent.com). The answer is JSON on stdout with
# permissionDecision "deny" and a reason, exit 0: Claude Code does not make the call and shows
# Claude the reason. Anything else, and anything the hook cannot read, lets the call go.
command -v jq >/dev/null || exit 0
input=$(cat) || exit 0
tool=$(jq -r '.tool_name // ""' <<<"$input" 2>/dev/null) || exit 0
case $tool in
    Bash)
        target=$(jq -r '.tool_input.command // ""' <<<"$input" 2>/dev/null) || exit 0
        [[ $target =~ (^|[^[:alnum:]_.-])curl([^[:alnum:]_.-]|$) ]] || exit 0
        ;;
    WebFetch) target=$(jq -r '.tool_input.url // ""' <<<"$input" 2>/dev/null) || exit 0 ;;
    *) exit 0 ;;
esac

# A host name ends at a character no host name holds, so notgithub.com and
# github.com.example.org are other hosts.
host='(^|[^[:alnum:].-])([[:alnum:]-]+\.)*(github|githubusercontent)\.com([^[:alnum:].-]|$)'
[[ ${target,,} =~ $host ]] || exit 0

jq -n --arg tool "$tool" '{hookSpecificOutput: {
    hookEventName: "PreToolUse",
    permissionDecision: "deny",
    permissionDecisionReason: ("No \($tool) calls to GitHub here: use the gh command, which the person has signed in.")
}}'
