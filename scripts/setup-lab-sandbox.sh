#!/usr/bin/env bash
# Make the lab suite's agent sandbox available: Debian's bubblewrap, and slirp4netns and iproute2 (for
# run-agent's --network model-api), installed quietly when missing and we are root, and the agents' Python
# (a separate environment with the client's dependencies, never actloop).
# Prints the agents' Python directory.
set -euo pipefail
. "$(dirname "$0")/apt-install.sh"

if ! command -v bwrap >/dev/null 2>&1 && ! apt_install bubblewrap; then
  echo "bubblewrap is missing and could not be installed: install Debian's bubblewrap package" >&2
  exit 1
fi
for tool in slirp4netns:slirp4netns ip:iproute2; do
  if ! command -v "${tool%%:*}" >/dev/null 2>&1 && ! apt_install "${tool#*:}"; then
    echo "${tool%%:*} is missing and could not be installed: install Debian's ${tool#*:} package" >&2
    exit 1
  fi
done
"$(dirname "$0")/../.venv/bin/python" -c "from actloop.suites.lab.sandbox import ensure_agent_python; print(ensure_agent_python())"
