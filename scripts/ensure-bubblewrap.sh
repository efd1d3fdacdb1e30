#!/usr/bin/env bash
# Makes sure bubblewrap (bwrap) is installed: every command an agent starts runs in its sandbox
# (docs/sandbox.md), and the tests run real sandboxes. Installs Debian's bubblewrap package when bwrap
# is missing; fails loudly where it cannot (never lets the sandbox tests be skipped silently).
set -euo pipefail

if command -v bwrap >/dev/null 2>&1; then
  exit 0
fi

fail() {
  echo "ensure-bubblewrap: $1" >&2
  echo "ensure-bubblewrap: Colony's sandbox and its tests need bwrap on PATH." >&2
  echo "ensure-bubblewrap: install it yourself (Debian/Ubuntu: sudo apt-get install -y bubblewrap)." >&2
  exit 1
}

# shellcheck source=lib/debian-install.sh
. "$(dirname "$0")/lib/debian-install.sh"
debian_sudo "bwrap"

echo "ensure-bubblewrap: installing Debian's bubblewrap package (once)..." >&2
debian_install bubblewrap
command -v bwrap >/dev/null 2>&1 || fail "bubblewrap was installed but bwrap is not on PATH."
echo "ensure-bubblewrap: $(bwrap --version) installed." >&2
