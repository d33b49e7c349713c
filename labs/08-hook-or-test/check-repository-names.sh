#!/usr/bin/env bash
# PreToolUse (Write): refuse a new file in the repository package whose name does not end in
# Repository. Written as a hook by a colleague; it only binds Claude Code sessions.
input=$(cat 2>/dev/null) || exit 0
command -v jq >/dev/null 2>&1 || exit 0
file=$(jq -r '.tool_input.file_path // empty' <<<"$input" 2>/dev/null) || exit 0
case "$file" in
    */src/main/java/ai/unifiedprocess/petclinic/repository/*Repository.java) exit 0 ;;
    */src/main/java/ai/unifiedprocess/petclinic/repository/*/*) exit 0 ;;
    */src/main/java/ai/unifiedprocess/petclinic/repository/*.java)
        echo "Refused: ${file##*/} is in the repository package; name it ...Repository." >&2
        exit 2 ;;
esac
exit 0
