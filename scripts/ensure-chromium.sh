#!/usr/bin/env bash
# Makes sure Debian's Chromium is installed for the browser tests (test/dashboard) and the dashboard
# bench. Installs it from Debian's packages when /usr/bin/chromium is missing; fails loudly where it
# cannot (never lets the browser tests be skipped silently).
set -euo pipefail

CHROMIUM="${COLONY_CHROMIUM:-/usr/bin/chromium}"
if [ -x "$CHROMIUM" ]; then
  exit 0
fi

fail() {
  echo "ensure-chromium: $1" >&2
  echo "ensure-chromium: the browser tests need Chromium at $CHROMIUM." >&2
  echo "ensure-chromium: install it yourself (Debian/Ubuntu: sudo apt-get install -y chromium)" >&2
  echo "ensure-chromium: or point COLONY_CHROMIUM at a Chromium/Chrome binary." >&2
  exit 1
}

command -v apt-get >/dev/null 2>&1 || fail "Chromium is missing and this is not a Debian-like system (no apt-get)."

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO="sudo -n"
  else
    fail "Chromium is missing and installing it needs root (no passwordless sudo)."
  fi
fi

echo "ensure-chromium: installing Debian's chromium package (once)..." >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null || fail "apt-get update failed."
$SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null || fail "apt-get install chromium failed."
[ -x "$CHROMIUM" ] || fail "chromium was installed but $CHROMIUM is not there."
echo "ensure-chromium: $("$CHROMIUM" --version 2>/dev/null || echo chromium) installed." >&2
