#!/usr/bin/env bash
# Installs what the TimescaleDB flavour's tests and benchmark run on, when missing: Debian's
# postgresql-15 (apt-get) and TimescaleDB 2.28.3 from the shared folder's tarball (checked against
# its sha256, see that folder's README). A no-op (a dpkg-query and file tests) when both are there.
#
# The tarball was built against bookworm-security's 15.20, whose server exports symbols it links
# to (heap_datum_check): on bookworm's own 15.18 the library fails to load ("undefined symbol"),
# so an older postgresql-15 is upgraded.
#
#   timescale-install.sh <folder holding the tarball>
#
# Exit codes the caller tells apart: 0 installed, 10 not root, 11 no apt-get, 12 apt failed,
# 13 tarball missing or damaged, 14 extraction failed.
set -uo pipefail

FOLDER=${1:?usage: timescale-install.sh <timescaledb folder>}
TARBALL=timescaledb-2.28.3-pg15-debian12-amd64.tar.gz
SHA256=d60041710ee9214f2e24f7cbb31df72ac26d0f9e1cfffb6d8936cf80d8452e18
POSTGRES=/usr/lib/postgresql/15/bin/postgres
CONTROL=/usr/share/postgresql/15/extension/timescaledb.control
LIBRARY=/usr/lib/postgresql/15/lib/timescaledb-2.28.3.so
MIN_POSTGRES=15.20-0+deb12u1

installed=$(dpkg-query -W -f='${Version}' postgresql-15 2>/dev/null || true)
postgres_ok=0
if [ -x "$POSTGRES" ]; then
  # Not from a Debian package (no version): trusted as it is.
  if [ -z "$installed" ] || dpkg --compare-versions "$installed" ge "$MIN_POSTGRES"; then postgres_ok=1; fi
fi
[ "$postgres_ok" -eq 1 ] && [ -f "$CONTROL" ] && [ -f "$LIBRARY" ] && exit 0

own_policy=0
stage=""
cleanup() {
  [ "$own_policy" -eq 1 ] && rm -f /usr/sbin/policy-rc.d
  [ -n "$stage" ] && rm -rf "$stage"
  return 0
}
trap cleanup EXIT

if [ "$(id -u)" -ne 0 ]; then
  echo "timescale-install.sh: not root, cannot install postgresql-15 and TimescaleDB" >&2
  exit 10
fi

# One apt-get at a time among the tests' installers (the projects' global setups run together).
exec 9>/var/lock/jobsight-test-apt.lock
flock -w 900 9 || { echo "timescale-install.sh: another installer held the apt lock for 15 minutes" >&2; exit 12; }

if [ "$postgres_ok" -eq 0 ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "timescale-install.sh: no apt-get, cannot install postgresql-15" >&2
    exit 11
  fi
  # The package would create and start its own cluster on port 5432; the tests run private ones.
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d && own_policy=1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt_options=(-o DPkg::Lock::Timeout=300 -q)
  echo "timescale-install.sh: installing postgresql-15 >= $MIN_POSTGRES (have: ${installed:-none})" >&2
  # Update only when the package lists do not offer a recent enough one (a fresh image has none).
  candidate=$(apt-cache policy postgresql-15 2>/dev/null | sed -n 's/^ *Candidate: *//p')
  if [ -z "$candidate" ] || [ "$candidate" = "(none)" ] || dpkg --compare-versions "$candidate" lt "$MIN_POSTGRES"; then
    apt-get "${apt_options[@]}" update >&2 || { echo "timescale-install.sh: apt-get update failed" >&2; exit 12; }
  fi
  if ! apt-get "${apt_options[@]}" install --no-install-recommends -y postgresql-15 >&2; then
    echo "timescale-install.sh: apt-get install postgresql-15 failed" >&2
    exit 12
  fi
fi

if [ ! -f "$CONTROL" ] || [ ! -f "$LIBRARY" ]; then
  if [ ! -f "$FOLDER/$TARBALL" ]; then
    echo "timescale-install.sh: $FOLDER/$TARBALL not found (set JOBSIGHT_TIMESCALEDB_DIR to the folder holding it)" >&2
    exit 13
  fi
  if ! echo "$SHA256  $FOLDER/$TARBALL" | sha256sum --check --status; then
    echo "timescale-install.sh: $FOLDER/$TARBALL does not have the sha256 $SHA256" >&2
    exit 13
  fi
  # Unpacked aside, then each file renamed into place: a run installing at the same moment never
  # sees half a library.
  stage=$(mktemp -d)
  if ! tar xzf "$FOLDER/$TARBALL" -C "$stage"; then
    echo "timescale-install.sh: cannot unpack $FOLDER/$TARBALL" >&2
    exit 14
  fi
  echo "timescale-install.sh: installing TimescaleDB 2.28.3 from $FOLDER" >&2
  (cd "$stage" && find usr -type f) | while read -r file; do
    install -D -m 0644 "$stage/$file" "/$file.tmp.$$" && mv -f "/$file.tmp.$$" "/$file" || exit 14
  done || { echo "timescale-install.sh: cannot install the TimescaleDB files" >&2; exit 14; }
fi
exit 0
