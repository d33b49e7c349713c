#!/usr/bin/env bash
# Build the lab's Maven image without pulling anything from an image registry.
#
#   1. debootstrap a minimal Debian root from the apt mirror this machine is configured with
#      (read from /etc/apt at run time), import it as hooklab/maven-jdk17:base;
#   2. docker build docker/Dockerfile on top of it (apt-get install JDK 17 + Maven + the
#      offline Maven repository), tagged hooklab/maven-jdk17:latest.
#
# The image carries a label with a hash of the files in docker/: when it matches, nothing is
# rebuilt; when the inputs change, the image is rebuilt (the base only with --rebuild-base).
#
# Usage: docker/build-image.sh [--force] [--rebuild-base] [--inputs-hash]
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=hooklab/maven-jdk17
image="$repo:latest"
base="$repo:base"
suite=${HOOKLAB_DEBIAN_SUITE:-bookworm}
label=org.hooklab.inputs

force=false
rebuild_base=false
print_hash=false
for arg in "$@"; do
    case "$arg" in
        --inputs-hash) print_hash=true ;;
        --force) force=true ;;
        --rebuild-base) rebuild_base=true force=true ;;
        -h | --help)
            sed -n '2,12p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
            exit 0
            ;;
        *)
            echo "build-image.sh: unknown argument '$arg' (try --help)" >&2
            exit 2
            ;;
    esac
done

say() { printf 'build-image: %s\n' "$*" >&2; }
die() {
    printf 'build-image: %s\n' "$1" >&2
    [ -n "${2:-}" ] && printf '  fix: %s\n' "$2" >&2
    exit 1
}

# Same definition as harness.maven.image.inputs_hash: the regular files of docker/, sorted by
# name, contents concatenated.
inputs_hash() {
    (
        cd "$here"
        find . -maxdepth 1 -type f -printf '%P\n' | LC_ALL=C sort | while IFS= read -r f; do
            cat -- "$f"
        done
    ) | sha256sum | cut -c1-16
}

# The first plain "deb" URI that serves $suite, from deb822 .sources or one-line .list files.
host_mirror() {
    local f found=""
    for f in /etc/apt/sources.list.d/*.sources; do
        if [ ! -f "$f" ] || [ -n "$found" ]; then continue; fi
        found=$(awk -v suite="$suite" '
            function flush() {
                if (types ~ /(^| )deb( |$)/ && (" " suites " ") ~ (" " suite " ") && enabled != "no" && uris != "") {
                    split(uris, u, " "); print u[1]; done = 1
                }
                types = ""; suites = ""; uris = ""; enabled = ""
            }
            done { next }
            /^[ \t]*#/ { next }
            /^[ \t]*$/ { flush(); next }
            tolower($1) == "types:"   { $1 = ""; types = $0 }
            tolower($1) == "uris:"    { $1 = ""; uris = $0; sub(/^ +/, "", uris) }
            tolower($1) == "suites:"  { $1 = ""; suites = $0; gsub(/^ +| +$/, "", suites) }
            tolower($1) == "enabled:" { enabled = tolower($2) }
            END { if (!done) flush() }
        ' "$f")
    done
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        if [ ! -f "$f" ] || [ -n "$found" ]; then continue; fi
        # deb [options] URI suite components...
        found=$(sed -E 's/\[[^]]*\]//' "$f" |
            awk -v suite="$suite" '!done && $1 == "deb" && $3 == suite { print $2; done = 1 }')
    done
    [ -n "$found" ] && printf '%s\n' "$found"
}

current=$(inputs_hash)
if [ "$print_hash" = true ]; then
    echo "$current"
    exit 0
fi
if [ "$force" = false ] &&
    [ "$(docker image inspect -f "{{ index .Config.Labels \"$label\" }}" "$image" 2>/dev/null)" = "$current" ]; then
    say "$image is up to date (inputs $current); nothing to do"
    exit 0
fi

command -v docker >/dev/null || die "docker is not installed" "run scripts/docker-up.sh"
docker info >/dev/null 2>&1 || die "the Docker daemon is not reachable" "run scripts/docker-up.sh"

started=$(date +%s)
if [ "$rebuild_base" = true ] || ! docker image inspect "$base" >/dev/null 2>&1; then
    [ "$(id -u)" = 0 ] || die "debootstrap needs root" "sudo $0 $*"
    if ! command -v debootstrap >/dev/null; then
        say "installing debootstrap"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
    fi
    mirror=$(host_mirror) || die "no apt source for Debian '$suite' in /etc/apt/sources.list{,.d/}" \
        "add a 'deb <mirror> $suite main' line, or set HOOKLAB_DEBIAN_SUITE"
    # apt may reach the mirror through a proxy; debootstrap fetches with wget, which reads the
    # environment instead.
    eval "$(apt-config shell http_proxy Acquire::http::Proxy https_proxy Acquire::https::Proxy)"
    export http_proxy="${http_proxy:-}" https_proxy="${https_proxy:-}"
    [ "$http_proxy" = DIRECT ] && http_proxy=""
    [ "$https_proxy" = DIRECT ] && https_proxy=""

    rootfs=$(mktemp -d "${TMPDIR:-/var/tmp}/hooklab-rootfs.XXXXXX")
    trap 'rm -rf "$rootfs"' EXIT
    say "debootstrap $suite (minbase) into $rootfs"
    keyring=()
    [ -f /usr/share/keyrings/debian-archive-keyring.gpg ] &&
        keyring=(--keyring=/usr/share/keyrings/debian-archive-keyring.gpg)
    debootstrap --variant=minbase "${keyring[@]}" "$suite" "$rootfs" "$mirror" \
        >"$rootfs.log" 2>&1 || die "debootstrap failed; last lines of $rootfs.log: $(tail -n3 "$rootfs.log")"
    rm -f "$rootfs.log"
    # The host's apt proxy settings, so apt-get inside the image goes the same way.
    for conf in /etc/apt/apt.conf.d/*proxy*; do
        [ -f "$conf" ] && cp -- "$conf" "$rootfs/etc/apt/apt.conf.d/"
    done
    rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
    say "importing the root as $base"
    tar --numeric-owner -C "$rootfs" -c . |
        docker import --change "LABEL org.hooklab.suite=$suite" - "$base" >/dev/null
    rm -rf "$rootfs"
    trap - EXIT
fi

say "building $image on $base"
# The classic builder: no BuildKit frontend image to pull. --network host: reach the apt mirror
# the way the host does. Never --pull: the base exists only here.
log=$(mktemp "${TMPDIR:-/tmp}/hooklab-image-build.XXXXXX.log")
if ! DOCKER_BUILDKIT=0 docker build --network host \
    --label "$label=$current" --build-arg "BASE=$base" \
    -t "$image" "$here" 2>&1 | tee "$log" | grep --line-buffered '^Step ' >&2; then
    : # judged below by the label, not by the pipeline's status
fi
if ! docker image inspect -f "{{ index .Config.Labels \"$label\" }}" "$image" 2>/dev/null |
    grep -qx "$current"; then
    tail -n 20 "$log" >&2
    die "docker build failed; full log: $log" "check the apt mirror in /etc/apt/sources.list.d, then re-run $0"
fi
rm -f "$log"
# The image this one replaced is now untagged; drop it (only ours, by label).
docker image prune -f --filter "label=$label" >/dev/null 2>&1 || true
say "built $image in $(($(date +%s) - started)) s"
