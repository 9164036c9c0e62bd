#!/usr/bin/env bash
# Install what maat needs to build and test, from Debian packages only.
# Run as root (or with sudo).  Installs nothing that is already present.
set -euo pipefail
pkgs=(meson ninja-build pkg-config gcc clang libclang-rt-14-dev
      libzmq3-dev libmsgpack-dev libjansson-dev libsodium-dev libseccomp-dev
      python3 python3-zmq python3-msgpack jq procps parallel bubblewrap valgrind
      chromium)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: everything is installed"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing ${missing[*]}; run this script as root" >&2
  exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
