#!/usr/bin/env bash
# Stop hook. Claim: every use-case spec has a **Status:** line.
# Check: grep the specs. Success: exit 0. Block: exit 2, one short reason on stderr.
input=$(cat 2>/dev/null || true)
active=false
if command -v jq >/dev/null 2>&1; then
    active=$(jq -r '.stop_hook_active // false' <<<"$input" 2>/dev/null || echo false)
fi
cd "${CLAUDE_PROJECT_DIR:-.}" 2>/dev/null || exit 0

missing=$(grep -L '^\*\*Status:\*\*' docs/use_cases/UC-*.md 2>/dev/null | head -3 | tr '\n' ' ')
[ -z "$missing" ] && exit 0

reason="use-case specs without a Status line: ${missing% }"
if [ "$active" = true ]; then
    # Second stop in this turn: let go, tell the user, leave the rest to CI.
    printf '{"systemMessage": "Stop check still fails: %s. CI remains required."}\n' "$reason"
    exit 0
fi
echo "Stop check blocked: $reason. Add the **Status:** line back." >&2
exit 2
