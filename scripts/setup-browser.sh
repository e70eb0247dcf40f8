#!/usr/bin/env bash
# Make headless Chromium available for the browser tests of the trajectory viewer.
# Installs Debian's chromium package (quietly, non-interactively) when /usr/bin/chromium is missing and
# prints the executable's path. The tests drive it through the Python playwright package, which never
# downloads a browser of its own here.
set -euo pipefail
. "$(dirname "$0")/apt-install.sh"

CHROMIUM=/usr/bin/chromium

if [ ! -x "$CHROMIUM" ] && ! apt_install chromium; then
  echo "chromium is missing and could not be installed: install Debian's chromium package" >&2
  exit 1
fi
echo "$CHROMIUM"
