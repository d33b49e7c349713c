#!/usr/bin/env bash
# PermissionRequest (Bash): answer the permission prompt for the person. Read-only git
# commands are allowed, a force push is denied with the reason, anything else is left to the
# person (no output: the client shows its prompt). Unreadable input leaves it to the person.
command -v jq >/dev/null || exit 0
input=$(cat) || exit 0
command=$(jq -r 'if .tool_name == "Bash" then .tool_input.command // "" else "" end' \
    <<<"$input" 2>/dev/null) || exit 0

answer() { # behavior [message]
    jq -n --arg b "$1" --arg m "${2:-}" '{hookSpecificOutput: {
        hookEventName: "PermissionRequest",
        decision: ({behavior: $b} + (if $m == "" then {} else {message: $m} end))
    }}'
    exit 0
}

case $command in
    "git push"*--force* | "git push"*" -f"*)
        answer deny "No force pushes from a session: push normally, or ask the person." ;;
    "git status"* | "git log"* | "git diff"* | "git show"*) answer allow ;;
esac
exit 0
