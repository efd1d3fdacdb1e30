# Shared by scripts/ensure-*.sh (sourced): installing one Debian package as root, directly or through
# passwordless sudo. The caller defines fail() with its own message and remedy first.

# Sets SUDO ("" as root, "sudo -n" otherwise) or fails: $1 names what is missing.
debian_sudo() {
  command -v apt-get >/dev/null 2>&1 || fail "$1 is missing and this is not a Debian-like system (no apt-get)."
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      SUDO="sudo -n"
    else
      fail "$1 is missing and installing it needs root (no passwordless sudo)."
    fi
  fi
}

# apt-get update + install of package $1 with $SUDO (call debian_sudo first).
debian_install() {
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq >/dev/null || fail "apt-get update failed."
  $SUDO apt-get install -y -qq --no-install-recommends "$1" >/dev/null || fail "apt-get install $1 failed."
}
