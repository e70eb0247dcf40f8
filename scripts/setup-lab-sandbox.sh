#!/usr/bin/env bash
# Make the lab suite's agent sandbox available: Debian's bubblewrap and slirp4netns (for run-agent's
# --network model-api), installed quietly when missing and we are root, and the agents' Python (a separate
# environment with the client's dependencies, never actloop).
# Prints the agents' Python directory.
set -euo pipefail
. "$(dirname "$0")/apt-install.sh"

if ! command -v bwrap >/dev/null 2>&1 && ! apt_install bubblewrap; then
  echo "bubblewrap is missing and could not be installed: install Debian's bubblewrap package" >&2
  exit 1
fi
if ! command -v slirp4netns >/dev/null 2>&1 && ! apt_install slirp4netns; then
  echo "slirp4netns is missing and could not be installed: install Debian's slirp4netns package" >&2
  exit 1
fi
"$(dirname "$0")/../.venv/bin/python" -c "from actloop.suites.lab.sandbox import ensure_agent_python; print(ensure_agent_python())"
