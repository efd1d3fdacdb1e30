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

# shellcheck source=lib/debian-install.sh
. "$(dirname "$0")/lib/debian-install.sh"
debian_sudo "Chromium"

echo "ensure-chromium: installing Debian's chromium package (once)..." >&2
debian_install chromium
[ -x "$CHROMIUM" ] || fail "chromium was installed but $CHROMIUM is not there."
echo "ensure-chromium: $("$CHROMIUM" --version 2>/dev/null || echo chromium) installed." >&2
