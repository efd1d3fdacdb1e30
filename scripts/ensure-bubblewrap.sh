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

command -v apt-get >/dev/null 2>&1 || fail "bwrap is missing and this is not a Debian-like system (no apt-get)."

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO="sudo -n"
  else
    fail "bwrap is missing and installing it needs root (no passwordless sudo)."
  fi
fi

echo "ensure-bubblewrap: installing Debian's bubblewrap package (once)..." >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null || fail "apt-get update failed."
$SUDO apt-get install -y -qq --no-install-recommends bubblewrap >/dev/null || fail "apt-get install bubblewrap failed."
command -v bwrap >/dev/null 2>&1 || fail "bubblewrap was installed but bwrap is not on PATH."
echo "ensure-bubblewrap: $(bwrap --version) installed." >&2
