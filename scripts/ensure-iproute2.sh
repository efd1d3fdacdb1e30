#!/usr/bin/env bash
# Makes sure `ip` (iproute2) is installed: the multi-host fleet test (test/fleet/netns.test.ts) makes
# network namespaces, veth pairs and a bridge with it. Installs Debian's iproute2 package when ip is
# missing; fails loudly where it cannot (never lets the multi-host test be skipped silently).
set -euo pipefail

if command -v ip >/dev/null 2>&1; then
  exit 0
fi

fail() {
  echo "ensure-iproute2: $1" >&2
  echo "ensure-iproute2: the multi-host fleet test needs ip (iproute2) on PATH, and root." >&2
  echo "ensure-iproute2: install it yourself (Debian/Ubuntu: sudo apt-get install -y iproute2)." >&2
  exit 1
}

# shellcheck source=lib/debian-install.sh
. "$(dirname "$0")/lib/debian-install.sh"
debian_sudo "ip"

echo "ensure-iproute2: installing Debian's iproute2 package (once)..." >&2
debian_install iproute2
command -v ip >/dev/null 2>&1 || fail "iproute2 was installed but ip is not on PATH."
echo "ensure-iproute2: $(ip -V) installed." >&2
