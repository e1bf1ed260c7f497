#!/usr/bin/env bash
# Installs the Debian packages of servers the tests run for real, when missing: one apt-get at a
# time (a lock shared with the other installers of the tests), the packages' own services kept from
# starting. A few dpkg-query calls when everything is there.
#
#   debian-servers.sh <package>...
#
# Exit codes: 0 installed, 10 not root, 11 no apt-get, 12 apt failed.
set -uo pipefail

missing=()
for package in "$@"; do
  status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
  [ "$status" = "install ok installed" ] || missing+=("$package")
done
[ "${#missing[@]}" -eq 0 ] && exit 0

[ "$(id -u)" -eq 0 ] || { echo "debian-servers.sh: not root, cannot install ${missing[*]}" >&2; exit 10; }
command -v apt-get >/dev/null 2>&1 || { echo "debian-servers.sh: no apt-get, cannot install ${missing[*]}" >&2; exit 11; }

exec 9>/var/lock/jobsight-test-apt.lock
flock -w 900 9 || { echo "debian-servers.sh: another installer held the apt lock for 15 minutes" >&2; exit 12; }

policy=/usr/sbin/policy-rc.d
own_policy=0
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy" && own_policy=1
fi
cleanup() { [ "$own_policy" -eq 1 ] && rm -f "$policy"; return 0; }
trap cleanup EXIT

export DEBIAN_FRONTEND=noninteractive
apt_options=(-o DPkg::Lock::Timeout=300 -q)
echo "debian-servers.sh: installing ${missing[*]}" >&2
if ! apt-get "${apt_options[@]}" install --no-install-recommends -y "${missing[@]}" >&2; then
  apt-get "${apt_options[@]}" update >&2 || { echo "debian-servers.sh: apt-get update failed" >&2; exit 12; }
  apt-get "${apt_options[@]}" install --no-install-recommends -y "${missing[@]}" >&2 || exit 12
fi
exit 0
