#!/usr/bin/env bash
# Make headless Chromium available for the browser tests of the trajectory viewer.
# Installs Debian's chromium package (quietly, non-interactively) when /usr/bin/chromium is missing and
# prints the executable's path. The tests drive it through the Python playwright package, which never
# downloads a browser of its own here.
set -euo pipefail

CHROMIUM=/usr/bin/chromium

if [ ! -x "$CHROMIUM" ]; then
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "chromium is missing: install Debian's chromium package (apt-get install chromium)" >&2
    exit 1
  fi
  log=$(mktemp)
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium; } >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    echo "installing chromium failed" >&2
    exit 1
  fi
  rm -f "$log"
fi
echo "$CHROMIUM"
