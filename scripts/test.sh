#!/usr/bin/env bash
# The whole test suite from a fresh machine: set up, start Docker with the local Maven image,
# then lint, tests (JUnit XML at build/test-results/pytest.xml; the differential suite plays every
# case on the emulator and the real Claude Code) and the lab proofs on both engines.
set -euo pipefail
sudo=()
cd "$(dirname "$0")/.."
./scripts/bootstrap.sh
# The trainer tests push over ssh:// to a real sshd they start on loopback. Only the tests need
# it, so it is installed here, not by bootstrap; the package must not start a daemon on port 22.
if [ ! -x /usr/sbin/sshd ]; then
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  policy=/usr/sbin/policy-rc.d
  made_policy=""
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | "${sudo[@]}" tee "$policy" >/dev/null
    "${sudo[@]}" chmod +x "$policy"
    made_policy=1
    trap '"${sudo[@]}" rm -f "$policy"' EXIT
  fi
  echo "test: installing openssh-server (for the ssh:// trainer tests)"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends openssh-server >/dev/null
  if [ -n "$made_policy" ]; then
    "${sudo[@]}" rm -f "$policy"
    trap - EXIT
  fi
fi
# The fixture's .mvn/java-abi.awk is proven on the One True AWK too, the awk macOS ships
# (Debian's own is mawk). Only the tests need it.
if ! command -v original-awk >/dev/null 2>&1; then
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  echo "test: installing original-awk (macOS's awk, for the fixture's awk tests)"
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq original-awk >/dev/null ||
    { "${sudo[@]}" apt-get update -qq &&
      "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq original-awk >/dev/null; }
fi
# The trainer tests run a participant's lab on a laptop clock that is off (libfaketime), and
# lab trainer verify runs submissions in bubblewrap (the guide asks trainers to install it), and
# lab simulate, replay and verify-hook confine their tool calls in it.
trainer_packages=()
[ -e /usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 ] || trainer_packages+=(faketime)
command -v bwrap >/dev/null 2>&1 || trainer_packages+=(bubblewrap)
if [ "${#trainer_packages[@]}" -gt 0 ] && command -v apt-get >/dev/null 2>&1; then
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  echo "test: installing ${trainer_packages[*]} (for the trainer tests)"
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${trainer_packages[@]}" \
    >/dev/null ||
    { "${sudo[@]}" apt-get update -qq &&
      "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        "${trainer_packages[@]}" >/dev/null; }
fi
./scripts/docker-up.sh
mkdir -p build/test-results
# The whole run's time, from the start of this script, is kept for `nox -s bench` (the figure
# for a machine that already ran it once: packages and image present), with the count of tests
# pytest ran (from its report, null without one): a faster run must not be a smaller one.
started=build/test-results/.test-sh-started
touch "$started"
status=0
# Each session on its own, timed: its seconds and the CPU-seconds of what it ran (the user and
# system time of its processes, as bash's `times` counts them), so a run says how much of the
# two cores each left idle: the figure that decides whether two sessions could overlap.
phases=""
cpu_so_far() { # sets cpu: the CPU-seconds of this shell's finished children so far
  times >"$started.times" # here: in a subshell, $(times) among them, the count starts at zero
  cpu=$(awk 'NR == 2 { s = 0; for (i = 1; i <= NF; i++) { split($i, t, /[ms]/)
    s += t[1] * 60 + t[2] }; printf "%.1f", s }' "$started.times")
}
for session in lint tests labs; do
  began=$SECONDS && cpu_so_far && before=$cpu
  .venv/bin/nox -s "$session" || status=$?
  cpu_so_far
  phases+="${phases:+, }\"$session\": {\"seconds\": $((SECONDS - began)), \"cpu_seconds\": "
  phases+="$(awk -v a="$before" -v b="$cpu" 'BEGIN { printf "%.1f", b - a }')}"
done
report=build/test-results/pytest.xml
count() { # count ATTRIBUTE: that attribute of this run's report's <testsuite>, else null
  local found=""
  [ "$report" -nt "$started" ] && found=$(grep -o "<testsuite [^>]*" "$report" | head -1 |
    sed -n "s/.* $1=\"\([0-9]*\)\".*/\1/p")
  echo "${found:-null}"
}
{
  printf '{"seconds": %s, "exit": %s, "finished": "%s", "cpus": %s' \
    "$SECONDS" "$status" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(nproc)"
  printf ', "tests": %s, "failures": %s, "errors": %s, "skipped": %s' \
    "$(count tests)" "$(count failures)" "$(count errors)" "$(count skipped)"
  printf ', "sessions": {%s}}\n' "$phases"
} >build/test-results/test-sh.json
rm -f "$started" "$started.times"
exit "$status"
