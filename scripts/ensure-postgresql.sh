#!/usr/bin/env bash
# Makes sure Debian's PostgreSQL server binaries are installed: the external-Postgres tests
# (test/store/external-postgres.test.ts, docs/storage.md "A shared Postgres for a fleet") start a
# throwaway server from /usr/lib/postgresql/<version>/bin. Only the binaries are needed: the
# distribution's own cluster service is neither started nor used.
set -euo pipefail

have_initdb() {
  compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null
}

if have_initdb; then
  exit 0
fi

fail() {
  echo "ensure-postgresql: $1" >&2
  echo "ensure-postgresql: the external-Postgres tests need Debian's postgresql binaries (/usr/lib/postgresql/*/bin)." >&2
  echo "ensure-postgresql: install them yourself (Debian/Ubuntu: sudo apt-get install -y postgresql)." >&2
  exit 1
}

# shellcheck source=lib/debian-install.sh
. "$(dirname "$0")/lib/debian-install.sh"
debian_sudo "initdb"

echo "ensure-postgresql: installing Debian's postgresql package (once)..." >&2
# policy-rc.d exit 101 tells invoke-rc.d not to start services: the package's postinst would otherwise
# create and start the main cluster, which Colony never uses. Removed again whatever happens.
POLICY=/usr/sbin/policy-rc.d
ADDED_POLICY=""
if [ ! -e "$POLICY" ]; then
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$POLICY" >/dev/null && $SUDO chmod 755 "$POLICY" && ADDED_POLICY=1
fi
cleanup() {
  if [ -n "$ADDED_POLICY" ]; then $SUDO rm -f "$POLICY"; fi
}
trap cleanup EXIT
debian_install postgresql
have_initdb || fail "postgresql was installed but no /usr/lib/postgresql/*/bin/initdb exists."
echo "ensure-postgresql: $(ls -d /usr/lib/postgresql/*/bin/initdb | sort -V | tail -1) installed." >&2
