#!/usr/bin/env bash
# UserPromptSubmit: refuse a prompt that pastes a secret (an AWS key id, a private key, a
# password=... pair), so it never reaches the model or the transcript. A refusal is exit 2
# with the reason on stderr: the client erases the prompt and shows the person the reason.
# Anything the hook cannot read lets the prompt through (exit 0).
command -v jq >/dev/null || exit 0
input=$(cat) || exit 0
prompt=$(jq -r '.prompt // ""' <<<"$input" 2>/dev/null) || exit 0

if [[ $prompt =~ AKIA[0-9A-Z]{16} ]] || [[ $prompt == *"PRIVATE KEY-----"* ]] ||
    [[ ${prompt,,} =~ (password|passwd|secret)[[:space:]]*[=:][[:space:]]*[^[:space:]]+ ]]; then
    echo "That prompt holds a secret: it was not sent. Put the secret in a vault, not a chat." >&2
    exit 2
fi
exit 0
