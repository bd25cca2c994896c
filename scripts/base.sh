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

# The mirror URI of the machine's own Debian sources (deb822 or one-line).
mirror=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
	awk '/^URIs:/ {print $2}' | grep -v -e security -e '^$' | head -1 || true)
[ -n "$mirror" ] || mirror=$(grep -hE '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
	grep -v security | awk '{for (i = 2; i <= NF; i++) if ($i ~ /:\/\//) {print $i; exit}}' || true)
[ -n "$mirror" ] || die "no Debian mirror in this machine's apt configuration; put $name in $BASE_DIR"

st=$(mktemp -d)
trap 'rm -rf "$st"' EXIT
mkdir -p "$st/lists/partial" "$st/cache/archives/partial" "$st/etc/preferences.d"
key=/usr/share/keyrings/debian-archive-keyring.gpg
echo "deb [signed-by=$key] $mirror $BASE_SUITE main" >"$st/etc/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$st/etc/sources.list" -o "Dir::Etc::SourceParts=-"
	-o "Dir::Etc::PreferencesParts=$st/etc/preferences.d"
	-o "Dir::State::Lists=$st/lists" -o "Dir::Cache=$st/cache"
	-o "Dir::State::Status=/var/lib/dpkg/status" -o "APT::Get::List-Cleanup=0")
note "base: fetching $BASE_PKG $BASE_VERSION from $BASE_SUITE (private apt state in $st)"
apt-get -qq "${apt_opts[@]}" update >"$st/update.log" 2>&1 ||
	die "apt-get update for $BASE_SUITE failed: $(tail -3 "$st/update.log")"
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
