#!/usr/bin/env bash
# Set up a machine for Hook Lab: the system packages (with apt, dnf or Homebrew, whichever is
# here), then a Python venv with the harness installed, then the pinned Claude Code client from
# npm (for the claude-code engine). Without a package manager it knows, or without root, it does
# what needs no root and prints the exact packages still missing. Safe to run again: it only
# adds what is missing. Keeps to bash 3.2 outside the apt and dnf branches (macOS's /bin/bash).
set -euo pipefail
cd "$(dirname "$0")/.."

# One table of needs and their packages per system, shared with lab doctor.
table=harness/doctor/system-packages.txt
kernel=$(uname -s)
manager=""
for candidate in apt-get:apt dnf:dnf brew:brew; do
  if command -v "${candidate%%:*}" >/dev/null 2>&1; then
    manager=${candidate#*:}
    break
  fi
done
case $manager in
  apt) system_label="Debian/Ubuntu (apt)" ;;
  dnf) system_label="Fedora/RHEL (dnf)" ;;
  brew) system_label="Homebrew (brew)" ;;
  *) if [ "$kernel" = Darwin ]; then system_label="macOS without Homebrew"
     else system_label="$kernel without apt, dnf or Homebrew"; fi ;;
esac

# A Python 3.11 or newer with venv, under any of its usual names.
find_python() {
  local candidate
  for candidate in python3 python3.13 python3.12 python3.11; do
    if command -v "$candidate" >/dev/null 2>&1 \
      && "$candidate" -c 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 11))' \
        2>/dev/null; then
      echo "$candidate"
      return 0
    fi
  done
  return 1
}

# Is NEED (a row of the table, checked by the command it provides) absent or too old here?
# lab doctor applies the same minimums.
need_missing() {
  case $1 in
    java)
      local major
      major=$(java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1 || true)
      [ "${major:-0}" -lt 17 ] ;;
    bash) ! bash -c '[ "${BASH_VERSINFO[0]}" -ge 4 ]' 2>/dev/null ;;
    python) ! find_python >/dev/null ;;
    *) ! command -v "$2" >/dev/null 2>&1 ;;
  esac
}

missing_needs() {
  local need command rest
  while read -r need command rest; do
    case $need in '' | '#'*) continue ;; esac
    if need_missing "$need" "$command"; then printf '%s ' "$need"; fi
  done <"$table"
}

# MANAGER NEED...: that manager's packages for these needs, each once, in the table's order.
packages_for() {
  local which=$1
  shift
  awk -v manager="$which" -v wanted=" $* " '
    /^#/ || NF == 0 { next }
    index(wanted, " " $1 " ") {
      column = manager == "apt" ? 3 : manager == "dnf" ? 4 : 5
      count = split($column, names, ",")
      for (i = 1; i <= count; i++)
        if (names[i] != "-" && !(names[i] in seen)) {
          seen[names[i]] = 1
          out = out (out == "" ? "" : " ") names[i]
        }
    }
    END { print out }' "$table"
}

# NEED...: "what it is (command)", for a system whose package names we do not know.
describe_needs() {
  awk -v wanted=" $* " '
    /^#/ || NF == 0 { next }
    index(wanted, " " $1 " ") {
      what = $6
      for (i = 7; i <= NF; i++) what = what " " $i
      out = out (out == "" ? "" : ", ") what " (" $2 ")"
    }
    END { print out }' "$table"
}

# NEED...: the one line that installs them here; lab doctor's "system packages" row says the same.
install_command() {
  local packages verb
  if [ -n "$manager" ]; then
    packages=$(packages_for "$manager" "$@")
    case $manager in apt) verb="apt-get install" ;; dnf) verb="dnf install" ;; *) verb="brew install" ;; esac
    if [ -n "$packages" ]; then
      echo "$verb $packages"
      return
    fi
  fi
  if [ "$kernel" = Darwin ]; then
    echo "install Homebrew (https://brew.sh), then: brew install $(packages_for brew "$@")"
  else
    echo "install with your system's package manager: $(describe_needs "$@")"
  fi
}

# What the system still lacks, printed last so that it is what stays on the screen. Fails when
# the hooks cannot run (jq, git, bash 4) or Maven can run neither here nor in a container.
report_missing() {
  local status=0 needs
  needs=" $(missing_needs)"
  if [ -n "${apt_still_missing:-}" ]; then
    echo "bootstrap: still missing on $system_label; as root, run:"
    echo "  $apt_still_missing"
  elif [ -n "${needs// /}" ]; then
    echo "bootstrap: still missing on $system_label:${needs% }"
    # shellcheck disable=SC2086 # one word per need
    echo "bootstrap: to install what is missing: $(install_command $needs)"
  fi
  if [ "$manager" = brew ] && [[ $needs == *" java "* ]]; then
    # shellcheck disable=SC2016 # for the reader's shell to expand
    echo 'bootstrap: Homebrew keeps openjdk@17 off the PATH; once it is installed, run: export PATH="$(brew --prefix openjdk@17)/bin:$PATH"'
  fi
  case $needs in *" jq "* | *" git "* | *" bash "*) status=1 ;; esac
  case $needs in
    *" java "* | *" maven "*)
      if docker info >/dev/null 2>&1; then
        echo "bootstrap: no Java 17 or no Maven here, but Docker runs: the sensors can run in a container:"
      else
        echo "bootstrap: no Java 17 or no Maven here; with Docker (Docker Desktop on macOS) the sensors run in a container:"
        status=1
      fi
      echo "  scripts/docker-up.sh             # builds the Maven image (on Debian it installs Docker too)"
      echo "  lab init ws --backend docker"
      ;;
  esac
  return "$status"
}

# The last line of FILE with words in it, without its indent (a progress bar's \r too).
last_line() {
  awk '{ gsub(/\r/, "") } NF { last = $0 } END { sub(/^[ \t]+/, "", last); print last }' "$1"
}

# with_progress WHAT COMMAND...: run COMMAND, its output kept in a log, saying at least every
# 2 s that it is still at WHAT, with the last line it wrote: pip and npm are silent for a
# minute or more, and a terminal that says nothing looks hung. On a terminal the line is
# rewritten in place; in a pipe or CI, a line each time. A failure shows the log's end.
# Sets progress_last to the command's last line.
with_progress() {
  local what=$1 log pid status=0 started=$SECONDS line text width=80
  shift
  [ ! -t 1 ] || width=$(tput cols 2>/dev/null || echo 80)
  log=$(mktemp "${TMPDIR:-/tmp}/hooklab-bootstrap.XXXXXX") || return 1
  echo "bootstrap: $what"
  "$@" >"$log" 2>&1 </dev/null &
  pid=$!
  # A background job ignores Ctrl-C in a script: take it down with us.
  trap 'kill "$pid" 2>/dev/null; rm -f "$log"; exit 130' INT TERM
  # A second's sleep (POSIX) and one awk a line: on a loaded machine still under 2 s a line.
  while sleep 1 && kill -0 "$pid" 2>/dev/null; do
    line=$(last_line "$log")
    text="bootstrap: $what, $((SECONDS - started)) s${line:+: ${line:0:60}}"
    if [ -t 1 ] && [ -z "${CI:-}" ]; then
      printf '\r%s\033[K' "${text:0:$((width - 1))}"
    else
      echo "$text"
    fi
  done
  wait "$pid" || status=$?
  trap - INT TERM
  [ ! -t 1 ] || [ -n "${CI:-}" ] || printf '\r\033[K'
  progress_last=$(last_line "$log")
  if [ "$status" -eq 0 ]; then
    echo "bootstrap: $what: done in $((SECONDS - started)) s"
  else
    echo "bootstrap: $what failed (exit $status); the end of its output:"
    tail -n 20 "$log" | sed 's/^/  /'
  fi
  rm -f "$log"
  return "$status"
}

# How to run the package manager as root: nothing when we are root, sudo when there is one.
root_cmd=""
have_root=true
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then root_cmd=sudo; else have_root=false; fi
fi

if [ "$manager" = apt ]; then
  apt_packages=(
    openjdk-17-jdk-headless maven junit5 libsurefire-java libmaven-compiler-plugin-java
    libmaven-resources-plugin-java libmaven-jar-plugin-java libmaven-install-plugin-java
    jq git bash shellcheck tmux python3-venv
    # lab simulate, replay and verify-hook run what they play in a bubblewrap jail.
    bubblewrap
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
  if ((${#missing[@]})) && ! $have_root; then
    # No root: the rest still needs none; the packages are named at the end.
    echo "bootstrap: not root and no sudo: cannot install ${missing[*]}"
    apt_still_missing="apt-get install ${missing[*]}"
  elif ((${#missing[@]})); then
    echo "bootstrap: installing ${missing[*]}"
    sudo_cmd=()
    [ -z "$root_cmd" ] || sudo_cmd=("$root_cmd")
    export DEBIAN_FRONTEND=noninteractive
    "${sudo_cmd[@]}" apt-get update -qq
    "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
else
  needed=$(missing_needs)
  if [ -n "$needed" ] && [ -n "$manager" ]; then
    # shellcheck disable=SC2086 # one word per need
    packages=$(packages_for "$manager" $needed)
    if [ "$manager" = brew ]; then
      echo "bootstrap: installing with Homebrew: $packages"
      # shellcheck disable=SC2086 # one word per package
      brew install $packages || echo "bootstrap: brew install failed; see its messages above"
    elif $have_root; then
      echo "bootstrap: installing with dnf: $packages"
      # shellcheck disable=SC2086 # one word per package; root_cmd is empty or sudo
      $root_cmd dnf install -y -q $packages || echo "bootstrap: dnf install failed; see above"
    else
      echo "bootstrap: not root and no sudo: cannot install $packages"
    fi
  fi
fi

python_cmd=$(find_python || true)
if [ -z "$python_cmd" ]; then
  echo "bootstrap: no Python 3.11 or newer with venv here, so no .venv yet" >&2
  report_missing || true
  exit 1
fi

if [ ! -x .venv/bin/python ]; then
  echo "bootstrap: creating .venv"
  "$python_cmd" -m venv .venv
fi
stamp=.venv/.hooklab-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  with_progress "installing the harness into .venv" \
    .venv/bin/python -m pip install --disable-pip-version-check --progress-bar off -e '.[dev]'
  touch "$stamp"
fi
# The harness is installed editable, so pip compiled none of it. Every `lab` command imports it
# anew, and where PYTHONDONTWRITEBYTECODE is set (as on some CI images) nothing is ever cached:
# a third of each start went into compiling. Only what changed is compiled again.
.venv/bin/python -m compileall -q harness >/dev/null
if ! command -v npm >/dev/null 2>&1 && [ -z "${CI:-}" ]; then
  echo "bootstrap: no npm, so no Claude Code yet (the emulator engine needs none; lab doctor --fix installs it once npm is there)"
elif with_progress "looking for Claude Code (npm installs it when it is missing)" \
  .venv/bin/python -u -m harness.claude.client.install; then
  echo "bootstrap: $progress_last"
else
  # CI proves the labs on the real client; a participant can work on the emulator meanwhile.
  [ -z "${CI:-}" ] || exit 1
  echo "bootstrap: continuing without Claude Code (the emulator engine needs none; lab doctor --fix retries)"
fi
# Put `lab` on the PATH of every new terminal, so the guides' bare `lab` works as printed:
# a link in /usr/local/bin for root, else in ~/.local/bin (Debian's ~/.profile adds it to PATH
# at login once it exists). HOOKLAB_BIN_DIR picks another directory; HOOKLAB_KEEP_LAB_LINK=1
# keeps a link that runs another checkout's lab (else it is named, then re-pointed).
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
  report_missing
  exit
fi
if [ -n "$current" ] && [ "$current" != "$lab_entry" ] && [ -e "$current" ]; then
  # Another checkout's lab, maybe in use by someone else on this machine: say so before
  # re-pointing it, ask on a terminal, and keep it when told to.
  other=${current%/.venv/bin/lab}
  echo "bootstrap: $link runs the lab of another checkout: $other"
  keep=${HOOKLAB_KEEP_LAB_LINK:-}
  if [ -z "$keep" ] && [ -t 0 ] && [ -t 1 ] && [ -z "${CI:-}" ]; then
    printf 'bootstrap: point it at this checkout (%s) instead? [Y/n] ' "$PWD"
    read -r answer || answer=n
    case $answer in [nN]*) keep=1 ;; esac
  fi
  if [ -n "$keep" ]; then
    echo "bootstrap: ready ($("$lab_entry" --version)); $link left pointing at $other."
    echo "  Run this checkout's Hook Lab as $lab_entry"
    report_missing
    exit
  fi
  echo "bootstrap: replacing it: $link now runs $lab_entry"
  echo "  (the other checkout's is $current; HOOKLAB_KEEP_LAB_LINK=1 keeps a link as it is)"
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
report_missing
