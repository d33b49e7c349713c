#!/usr/bin/env bash
# Make a Docker engine and the lab's Maven image available on this machine (CI, lab hosts).
#
#   - installs docker.io (Debian/Ubuntu) when there is no docker client or daemon;
#   - starts dockerd in the background when no daemon answers, logging to $DOCKERD_LOG;
#   - waits for the daemon, then builds hooklab/maven-jdk17 unless it is present and current.
#
# Idempotent: a second run with the engine up and the image current does nothing.
# Usage: scripts/docker-up.sh [--no-image]
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DOCKERD_LOG=${DOCKERD_LOG:-/var/log/hooklab-dockerd.log}
WAIT_SECONDS=${DOCKER_UP_WAIT:-60}

build_image=true
for arg in "$@"; do
    case "$arg" in
        --no-image) build_image=false ;;
        -h | --help)
            sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
            exit 0
            ;;
        *)
            echo "docker-up.sh: unknown argument '$arg' (try --help)" >&2
            exit 2
            ;;
    esac
done

say() { printf 'docker-up: %s\n' "$*" >&2; }
die() {
    printf 'docker-up: %s\n' "$1" >&2
    [ -n "${2:-}" ] && printf '  fix: %s\n' "$2" >&2
    exit 1
}
as_root() {
    if [ "$(id -u)" = 0 ]; then
        "$@"
    elif command -v sudo >/dev/null; then
        sudo "$@"
    else
        die "'$*' needs root" "run this script as root"
    fi
}

if ! command -v docker >/dev/null || ! command -v dockerd >/dev/null; then
    command -v apt-get >/dev/null ||
        die "no docker here and no apt-get to install it" "install Docker Engine for your system"
    say "installing docker.io"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq docker.io >/dev/null
fi

if docker info >/dev/null 2>&1; then
    say "Docker engine is up ($(docker info -f '{{.ServerVersion}}' 2>/dev/null))"
else
    # Talk to the default socket only: a DOCKER_HOST pointing elsewhere is not ours to start.
    if [ -n "${DOCKER_HOST:-}" ] && [ "${DOCKER_HOST}" != unix:///var/run/docker.sock ]; then
        die "no Docker engine answers at DOCKER_HOST=$DOCKER_HOST" "start that engine, or unset DOCKER_HOST"
    fi
    if ! pgrep -x dockerd >/dev/null; then
        # A machine with an init system starts its own daemon; by hand only where there is none
        # (CI, containers), and only as root: the daemon must own its socket and data.
        [ "$(id -u)" = 0 ] ||
            die "no Docker daemon is running" "sudo systemctl start docker (or: sudo service docker start)"
        say "starting dockerd in the background (log: $DOCKERD_LOG)"
        mkdir -p "$(dirname "$DOCKERD_LOG")"
        # setsid + nohup: the daemon outlives this script and the shell that ran it.
        setsid nohup dockerd >>"$DOCKERD_LOG" 2>&1 </dev/null &
    else
        say "dockerd is running but not answering yet; waiting"
    fi
    for _ in $(seq "$WAIT_SECONDS"); do
        docker info >/dev/null 2>&1 && break
        sleep 1
    done
    if ! docker info >/dev/null 2>&1; then
        tail -n 15 "$DOCKERD_LOG" >&2 2>/dev/null || true
        if [ -S /var/run/docker.sock ] && [ ! -w /var/run/docker.sock ]; then
            die "permission denied on /var/run/docker.sock" \
                "sudo usermod -aG docker \$USER, then log in again"
        fi
        die "dockerd did not answer within ${WAIT_SECONDS} s (log: $DOCKERD_LOG)" \
            "read the log above; on a systemd machine: sudo systemctl start docker"
    fi
    say "Docker engine is up ($(docker info -f '{{.ServerVersion}}'))"
fi

if [ "$build_image" = true ]; then
    "$root/docker/build-image.sh"
fi
