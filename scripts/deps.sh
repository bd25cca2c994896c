#!/usr/bin/env bash
# Install what the workshop needs from Debian's archive (as root), or say
# what is missing.
. "$(dirname "$0")/lib.sh"

PKGS="qemu-system-x86 busybox-static build-essential flex
bison bc libelf-dev libssl-dev cpio xz-utils python3 perl git
libnuma-dev libcap-dev python3-ply python3-git file gnuplot-nox
gcc-aarch64-linux-gnu python3-sphinx python3-yaml dpkg-dev fakeroot kmod debhelper rsync ccache"

missing=()
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	die "missing Debian packages: ${missing[*]}
  install them as root: apt-get install --no-install-recommends ${missing[*]}"
fi
note "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq || die "apt-get update failed"
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
	die "apt-get install ${missing[*]} failed"
