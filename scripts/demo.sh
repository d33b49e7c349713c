#!/usr/bin/env bash
# The workshop demo from a fresh machine: set up, provision a workspace, install the hooks and
# walk every lab on real Maven. Usage: scripts/demo.sh [WORKSPACE_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/bootstrap.sh
exec .venv/bin/lab demo "${1:-build/demo-workspace}"
