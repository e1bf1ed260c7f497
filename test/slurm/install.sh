#!/usr/bin/env bash
# Installs the Debian packages of the single-node SLURM test cluster when any is missing; a no-op
# (a few dpkg-query calls, well under a second) when all are there. Safe to run repeatedly.
#
# Exit codes the global setup tells apart: 0 installed, 10 not root, 11 no apt-get, 12 apt failed.
set -uo pipefail

PACKAGES=(slurmctld slurmd slurm-client slurmdbd munge mariadb-server lua5.1)

# One dpkg-query for all packages: each process start is slow on sandboxed kernels (gVisor).
installed=$(dpkg-query -W -f='${Package} ${db:Status-Status}\n' "${PACKAGES[@]}" 2>/dev/null || true)
missing=()
for package in "${PACKAGES[@]}"; do
  [[ $'\n'"$installed"$'\n' == *$'\n'"$package installed"$'\n'* ]] || missing+=("$package")
done
[ "${#missing[@]}" -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "install.sh: not root, cannot install: ${missing[*]}" >&2
  exit 10
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install.sh: no apt-get, cannot install: ${missing[*]}" >&2
  exit 11
fi

# Maintainer scripts would start the system's own munge/mariadb/slurm services on their default
# ports and sockets; the harness runs private copies, so forbid service starts while installing.
# An existing policy (e.g. a container image's) is left alone.
policy=/usr/sbin/policy-rc.d
own_policy=0
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy" && own_policy=1
fi
cleanup() { [ "$own_policy" -eq 1 ] && rm -f "$policy"; }
trap cleanup EXIT

export DEBIAN_FRONTEND=noninteractive
apt_options=(-o DPkg::Lock::Timeout=300 -q)
echo "install.sh: installing ${missing[*]}" >&2
if ! apt-get "${apt_options[@]}" update >&2; then
  echo "install.sh: apt-get update failed" >&2
  exit 12
fi
if ! apt-get "${apt_options[@]}" install --no-install-recommends -y "${PACKAGES[@]}" >&2; then
  echo "install.sh: apt-get install failed" >&2
  exit 12
fi
exit 0
