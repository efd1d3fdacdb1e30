#!/usr/bin/env bash
# Makes sure `openssl` is installed: the fleet's TLS tests (test/fleet/tls-workers.test.ts,
# test/fleet/netns.test.ts) make a throwaway CA and server certificates with it. Installs Debian's
# openssl package when it is missing; fails loudly where it cannot (never lets a test be skipped).
set -euo pipefail

if command -v openssl >/dev/null 2>&1; then
  exit 0
fi

fail() {
  echo "ensure-openssl: $1" >&2
  echo "ensure-openssl: the fleet TLS tests need openssl on PATH." >&2
  echo "ensure-openssl: install it yourself (Debian/Ubuntu: sudo apt-get install -y openssl)." >&2
  exit 1
}

# shellcheck source=lib/debian-install.sh
. "$(dirname "$0")/lib/debian-install.sh"
debian_sudo "openssl"

echo "ensure-openssl: installing Debian's openssl package (once)..." >&2
debian_install openssl
command -v openssl >/dev/null 2>&1 || fail "openssl was installed but is not on PATH."
echo "ensure-openssl: $(openssl version) installed." >&2
