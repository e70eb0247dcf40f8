# Sourced by the set-up scripts: apt_install PACKAGE... installs Debian packages quietly and
# non-interactively when we are root and apt-get exists; otherwise, or when apt fails (its log is
# printed), it returns 1.
apt_install() {
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    return 1
  fi
  local log
  log=$(mktemp)
  if { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@"; } >"$log" 2>&1; then
    rm -f "$log"
    return 0
  fi
  cat "$log" >&2
  rm -f "$log"
  return 1
}
