#!/usr/bin/env bash
# Find the base tarball (Debian's linux-source-7.3 at the version recorded in
# patches/base-version) and print its path. In order:
#  1. $BASE_DIR/<pkg>_<version>.tar.xz, fetched or copied earlier;
#  2. ../shared/bases/<pkg>_<version>.tar.xz, checked against its .sha256;
#  3. the package from Debian's archive: apt with a private sources list and
#     state directory that reuse the mirror URI of this machine's own apt
#     configuration with the $BASE_SUITE suite (the system's sources are not
#     changed, nothing is upgraded), unpacked with dpkg-deb -x.
# If none gives the recorded version, it lists what the archive has and fails.
. "$(dirname "$0")/lib.sh"

name=${BASE_PKG}_${BASE_VERSION}.tar.xz
want=$BASE_DIR/$name
[ "$BASE_VERSION" != unknown ] || die "patches/base-version is missing"
mkdir -p "$BASE_DIR"
if [ -f "$want" ]; then
	echo "$want"; exit 0
fi

shared=$SHARED_BASES/$name
if [ -f "$shared" ]; then
	if [ -f "$shared.sha256" ]; then
		sum=$(awk '{print $1}' "$shared.sha256")
		got=$(sha256sum "$shared" | awk '{print $1}')
		[ "$sum" = "$got" ] || die "$shared: sha256 $got, expected $sum"
	fi
	note "base: $shared"
	cp "$shared" "$want.tmp" && mv "$want.tmp" "$want"
	echo "$want"; exit 0
fi

st=$(mktemp -d)
trap 'rm -rf "$st"' EXIT
note "base: fetching $BASE_PKG $BASE_VERSION from $BASE_SUITE (private apt state in $st)"
apt_private "$st" deb "$BASE_SUITE" || die "put $name in $BASE_DIR"
have=$(apt-cache "${apt_opts[@]}" madison "$BASE_PKG" 2>/dev/null | awk -F'|' '{gsub(/ /, "", $2); print $2}')
grep -qxF "$BASE_VERSION" <<<"$have" ||
	die "$BASE_PKG $BASE_VERSION (patches/base-version) is not in $BASE_SUITE; available: ${have:-none}
Refresh the series against one of these, or put $name in $BASE_DIR."
(cd "$st" && apt-get -qq "${apt_opts[@]}" download "$BASE_PKG=$BASE_VERSION") >"$st/dl.log" 2>&1 ||
	die "apt-get download $BASE_PKG=$BASE_VERSION failed: $(tail -3 "$st/dl.log")"
deb=$(ls "$st"/*.deb)
sum=$(grep -F "_${BASE_VERSION}_" "$SHARED_BASES/deb.sha256" 2>/dev/null | awk '{print $1}' || true)
if [ -n "$sum" ]; then
	[ "$(sha256sum "$deb" | awk '{print $1}')" = "$sum" ] || die "$deb: sha256 differs from $SHARED_BASES/deb.sha256"
fi
dpkg-deb -x "$deb" "$st/x"
tb=$(ls "$st"/x/usr/src/linux-source-*.tar.xz)
mv "$tb" "$want.tmp" && mv "$want.tmp" "$want"
echo "$want"
