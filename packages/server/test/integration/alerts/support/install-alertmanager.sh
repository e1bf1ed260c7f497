#!/usr/bin/env bash
# Installs Debian's prometheus-alertmanager when it is missing (a no-op when it is there), through
# the tests' one Debian installer. Exit codes: 0 installed, 10 not root, 11 no apt-get, 12 apt failed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bash "$here/../../../../../../test/services/debian-servers.sh" prometheus-alertmanager || exit $?
[ -x /usr/bin/prometheus-alertmanager ] || { echo "install-alertmanager.sh: /usr/bin/prometheus-alertmanager missing after install" >&2; exit 12; }
