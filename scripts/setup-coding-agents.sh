#!/usr/bin/env bash
# Install the coding agents' command-line programs the lab suite runs (Claude Code, Codex CLI) at their pinned
# versions from the npm registry, with Debian's Node and npm when they are missing and we are root.
# Prints the directory they are installed in.
set -euo pipefail
. "$(dirname "$0")/apt-install.sh"

for tool in node:nodejs npm:npm; do
  if ! command -v "${tool%%:*}" >/dev/null 2>&1 && ! apt_install "${tool#*:}"; then
    echo "${tool%%:*} is missing and could not be installed: install Debian's ${tool#*:} package" >&2
    exit 1
  fi
done
"$(dirname "$0")/../.venv/bin/python" -c "
from actloop.suites.lab.coding_agents import AGENTS, tools_dir
for agent in AGENTS.values():
    agent.prepare()
print(tools_dir())"
