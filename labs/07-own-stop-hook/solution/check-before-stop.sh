#!/usr/bin/env bash
# Stop hook: the sensors ran green after the last change.
#
# Claim:   the five sensors (ArchitectureTest, TestLayerConventionsTest, UseCaseTraceabilityTest,
#          TestCaseTraceabilityTest, BusinessRuleTraceabilityTest) ran green after the last
#          change to src/, docs/ or pom.xml.
# Check:   target/surefire-reports/TEST-ai.unifiedprocess.petclinic.<Sensor>.xml exists, counts
#          at least one test and no failure or error, and is newer than every file in src/,
#          docs/ and pom.xml.
# Success: exit 0.
# Block:   exit 2 with one short line on stderr naming the sensor and the command to run.
#          No environment, no log. On stop_hook_active: true let go with a systemMessage.
set -u

project=${CLAUDE_PROJECT_DIR:-}
[ -n "$project" ] && [ -d "$project" ] || exit 0   # not in a Claude Code project: fail open
cd "$project" || exit 0

input=$(cat 2>/dev/null || true)
if command -v jq >/dev/null 2>&1; then
    active=$(printf '%s' "$input" | jq -r '.stop_hook_active // false' 2>/dev/null || echo false)
else
    case "$input" in *'"stop_hook_active":true'* | *'"stop_hook_active": true'*) active=true ;;
        *) active=false ;;
    esac
fi

block() {
    if [ "$active" = "true" ]; then
        # One enforced reminder per turn: the second stop goes through, the user is told.
        printf '{"systemMessage": "Stop check still fails: %s. CI stays the boundary."}\n' "$1"
        exit 0
    fi
    printf 'Stop check blocked: %s\n' "$1" >&2
    exit 2
}

run_sensors='run ./mvnw -q test -Dgroups=sensor'
reports=target/surefire-reports

# The value of attribute $2 of the <testsuite> element in report $1 (empty when missing).
attr() {
    tr '\n' ' ' <"$1" | grep -o '<testsuite [^>]*>' | head -n 1 |
        sed -n "s/.* $2=\"\([0-9]*\)\".*/\1/p"
}

for sensor in ArchitectureTest TestLayerConventionsTest UseCaseTraceabilityTest \
    TestCaseTraceabilityTest BusinessRuleTraceabilityTest; do
    report="$reports/TEST-ai.unifiedprocess.petclinic.$sensor.xml"
    [ -s "$report" ] || block "no report for $sensor: $run_sensors"
    tests=$(attr "$report" tests)
    failures=$(attr "$report" failures)
    errors=$(attr "$report" errors)
    [ "${tests:-0}" -gt 0 ] || block "$sensor ran no test: $run_sensors"
    if [ "${failures:-1}" -ne 0 ] || [ "${errors:-1}" -ne 0 ]; then
        block "$sensor is red ($failures failures, $errors errors): fix it, then $run_sensors"
    fi
    newer=$(find src docs pom.xml -newer "$report" -type f -print -quit 2>/dev/null)
    [ -z "$newer" ] || block "$newer changed after the last $sensor run: $run_sensors"
done

exit 0
