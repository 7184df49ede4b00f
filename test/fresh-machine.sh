#!/usr/bin/env bash
# CI as a machine that never had the test's system packages runs it: those packages (and libsecret,
# which the old keychain binding compiled against) are purged, the repository is cloned clean (no
# node_modules, no build) into a temporary folder, and .ci/run runs there with CI=true and no stdin,
# so `npm install` and `npm test` take the real setup path from nothing. It changes this machine (as
# root, with apt), which is why it is a script to run by hand and not a test.
#   bash test/fresh-machine.sh   # ends with .ci/run's line "N passed, N failed"
set -euo pipefail
[ "$(id -u)" = 0 ] || { echo "fresh-machine: run as root (it purges system packages with apt)" >&2; exit 2; }
repo="$(cd "$(dirname "$0")/.." && pwd)"
export DEBIAN_FRONTEND=noninteractive

apt-get purge -y -qq gnome-keyring dbus-x11 chromium curl jq libsecret-1-dev libsecret-1-0 >/dev/null
apt-get autoremove -y -qq --purge >/dev/null
for package in gnome-keyring dbus-x11 chromium curl jq libsecret-1-dev libsecret-1-0; do
  if dpkg -s "$package" >/dev/null 2>&1; then echo "fresh-machine: $package is still installed" >&2; exit 1; fi
done
echo "fresh-machine: purged gnome-keyring, dbus-x11, chromium, curl, jq, libsecret"

clone="$(mktemp -d)/coffer"
git clone -q "$repo" "$clone"
echo "fresh-machine: clean clone of $(git -C "$clone" rev-parse --short HEAD) in $clone"
cd "$clone"
CI=true bash .ci/run </dev/null
