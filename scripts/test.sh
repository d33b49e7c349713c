#!/usr/bin/env bash
# The whole test suite from a fresh machine: set up, start Docker with the local Maven image,
# then lint, tests (JUnit XML at build/test-results/pytest.xml; the differential suite plays every
# case on the emulator and the real Claude Code) and the lab proofs on both engines.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/bootstrap.sh
./scripts/docker-up.sh
mkdir -p build/test-results
exec .venv/bin/nox -s lint tests labs
