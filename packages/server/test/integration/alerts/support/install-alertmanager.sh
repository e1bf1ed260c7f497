#!/usr/bin/env bash
# Installs Debian's prometheus-alertmanager when it is missing; a no-op when it is there.
# Exit codes: 0 installed, 10 not root, 11 no apt-get, 12 apt failed.
set -uo pipefail

BINARY=/usr/bin/prometheus-alertmanager
[ -x "$BINARY" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "install-alertmanager.sh: not root, cannot install prometheus-alertmanager" >&2
  exit 10
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-alertmanager.sh: no apt-get, cannot install prometheus-alertmanager" >&2
  exit 11
fi

# The package's maintainer scripts would start the system's own Alertmanager on port 9093; the
# tests run private ones, so forbid service starts while installing (an existing policy stays).
policy=/usr/sbin/policy-rc.d
own_policy=0
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy" && own_policy=1
fi
cleanup() { [ "$own_policy" -eq 1 ] && rm -f "$policy"; }
trap cleanup EXIT

export DEBIAN_FRONTEND=noninteractive
apt_options=(-o DPkg::Lock::Timeout=300 -q)
apt-get "${apt_options[@]}" update >&2 || exit 12
apt-get "${apt_options[@]}" install -y --no-install-recommends prometheus-alertmanager >&2 || exit 12
[ -x "$BINARY" ] || { echo "install-alertmanager.sh: $BINARY missing after install" >&2; exit 12; }
