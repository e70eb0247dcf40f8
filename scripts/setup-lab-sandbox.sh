#!/usr/bin/env bash
# Make the lab suite's agent sandbox available: Debian's bubblewrap (installed quietly when missing and we
# are root) and the agents' Python (a separate environment with the client's dependencies, never actloop).
# Prints the agents' Python directory.
set -euo pipefail

if ! command -v bwrap >/dev/null 2>&1; then
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "bubblewrap is missing: install Debian's bubblewrap package (apt-get install bubblewrap)" >&2
    exit 1
  fi
  log=$(mktemp)
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends bubblewrap; } >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    echo "installing bubblewrap failed" >&2
    exit 1
  fi
  rm -f "$log"
fi
"$(dirname "$0")/../.venv/bin/python" -c "from actloop.suites.lab.sandbox import ensure_agent_python; print(ensure_agent_python())"
