#!/usr/bin/env bash
# Install the system libraries docbench needs, when missing and when we may (root + apt).
# Usage: scripts/provision.sh [extra Debian packages...]
set -eu
# libcairo2: cairosvg. libfribidi0: Pillow's bundled libraqm loads it to set the font picker's
# right-to-left and complex-script samples (without it Pillow lays text out unshaped).
packages=(libcairo2 libfribidi0 "$@")
missing=()
for pkg in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "docbench needs these system packages: ${missing[*]} (install them with your package manager)" >&2
  exit 1
fi
echo "installing system packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
