#!/usr/bin/env bash
# Make headless OpenGL available for MuJoCo: Mesa EGL (default) or OSMesa (fallback).
# Prints the MUJOCO_GL backend to use. Installs Debian packages only when a library is missing.
set -euo pipefail

have() { ldconfig -p 2>/dev/null | grep -q "$1"; }
apt_install() {
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@"; } >&2 || return 1
  else
    return 1
  fi
}

if [ "${MUJOCO_GL:-}" = "osmesa" ]; then
  have libOSMesa || apt_install libosmesa6 || { echo "OSMesa is missing: install libosmesa6" >&2; exit 1; }
  echo osmesa; exit 0
fi
if have libEGL_mesa || apt_install libegl1 libegl-mesa0 libgl1-mesa-dri; then
  echo egl; exit 0
fi
if have libOSMesa || apt_install libosmesa6; then
  echo osmesa; exit 0
fi
echo "no headless OpenGL: install libegl1 libegl-mesa0 libgl1-mesa-dri (or libosmesa6)" >&2
exit 1
