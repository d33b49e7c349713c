#!/usr/bin/env bash
# Set up a fresh machine for Hook Lab: Debian packages for offline Maven and the hooks, then a
# Python venv with the harness installed, then the pinned Claude Code client from npm (for the
# claude-code engine). Safe to run again: it only adds what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

apt_packages=(
  openjdk-17-jdk-headless maven junit5 libsurefire-java libmaven-compiler-plugin-java
  libmaven-resources-plugin-java libmaven-jar-plugin-java libmaven-install-plugin-java
  jq git bash shellcheck tmux python3-venv
  # Trainer tests: real git servers on loopback (git daemon, git http-backend ship with git)
  # and the cohort page rendered in headless Chromium.
  chromium
)
# Node and npm install the real Claude Code client; a machine that has them keeps its own.
command -v npm >/dev/null 2>&1 || apt_packages+=(nodejs npm)
missing=()
for pkg in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$pkg")
done
if ((${#missing[@]})); then
  echo "bootstrap: installing ${missing[*]}"
  sudo_cmd=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "bootstrap: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
    sudo_cmd=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ ! -x .venv/bin/python ]; then
  echo "bootstrap: creating .venv"
  python3 -m venv .venv
fi
stamp=.venv/.hooklab-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  echo "bootstrap: installing the harness into .venv"
  .venv/bin/python -m pip install -q --disable-pip-version-check -e '.[dev]'
  touch "$stamp"
fi
if ! .venv/bin/python -m harness.claude.client.install | sed 's/^/bootstrap: /'; then
  # CI proves the labs on the real client; a participant can work on the emulator meanwhile.
  [ -z "${CI:-}" ] || exit 1
  echo "bootstrap: continuing without Claude Code (the emulator engine needs none; lab doctor --fix retries)"
fi
# Put `lab` on the PATH of every new terminal, so the guides' bare `lab` works as printed:
# a link in /usr/local/bin for root, else in ~/.local/bin (Debian's ~/.profile adds it to PATH
# at login once it exists). HOOKLAB_BIN_DIR picks another directory.
lab_entry="$PWD/.venv/bin/lab"
if [ -n "${HOOKLAB_BIN_DIR:-}" ]; then
  bin_dir=$HOOKLAB_BIN_DIR
elif [ "$(id -u)" -eq 0 ]; then
  bin_dir=/usr/local/bin
else
  bin_dir=$HOME/.local/bin
fi
link="$bin_dir/lab"
current=$(readlink "$link" 2>/dev/null || true)
if { [ -e "$link" ] || [ -L "$link" ]; } && [[ $current != */.venv/bin/lab ]]; then
  # Not a link an earlier bootstrap made: someone else's lab. Leave it alone.
  echo "bootstrap: ready ($("$lab_entry" --version)), but $link is not Hook Lab's; left as it is."
  echo "  Run Hook Lab as $lab_entry, or remove $link and run ./scripts/bootstrap.sh again."
  exit 0
fi
mkdir -p "$bin_dir"
ln -sfn "$lab_entry" "$link"

# Which `lab` does a new login shell find? Ask one, with nothing inherited from this shell.
found=$(env -i HOME="$HOME" USER="${USER:-$(id -un)}" TERM="${TERM:-dumb}" \
  bash -lc 'command -v lab' 2>/dev/null </dev/null | tail -n 1 || true)
echo "bootstrap: ready ($("$lab_entry" --version)); lab is $link"
if [ "$found" != "$link" ]; then
  if [ -n "$found" ]; then
    echo "bootstrap: new terminals find another lab first: $found"
  else
    echo "bootstrap: new terminals do not find $link yet."
  fi
  # shellcheck disable=SC2016 # the $PATH in the advice is for the reader's shell to expand
  cat <<MSG
Put $bin_dir first on your PATH, then open a new terminal:
  echo 'export PATH="$bin_dir:\$PATH"' >> ~/.profile
MSG
elif [ "$(command -v lab 2>/dev/null || true)" != "$link" ]; then
  echo "bootstrap: new terminals find lab; in this one, run first:"
  echo "  export PATH=\"$bin_dir:\$PATH\""
fi
