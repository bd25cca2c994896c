#!/usr/bin/env bash
# Build the guest's initramfs: busybox-static and guest/init, as a newc cpio.
. "$(dirname "$0")/lib.sh"

out=${1:-$BUILD/initramfs.cpio}
bb=$(command -v busybox || true)
[ -x /bin/busybox ] && bb=/bin/busybox
[ -n "$bb" ] || die "busybox not found: install busybox-static (make deps)"
file -L "$bb" 2>/dev/null | grep -q 'statically linked' ||
	ldd "$bb" 2>&1 | grep -q 'not a dynamic' ||
	die "$bb is not static: install busybox-static"

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,dev,proc,sys,tmp}
cp "$bb" "$root/bin/busybox"
ln -s busybox "$root/bin/sh"
install -m 755 "$TOP/guest/init" "$root/init"
# Extra guest payload (test binaries) staged by other targets; GUEST_EXTRA
# names another folder (the mmtests stage's image).
# The default payload always has the populate_cold check's program, so that
# make's own guest runs it.
extra=${GUEST_EXTRA:-$BUILD/guest-extra}
[ -n "${GUEST_EXTRA:-}" ] || populate_cold_bin "$extra" || die "populate-cold build failed"
[ -d "$extra" ] && cp -a "$extra/." "$root/"
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) >"$out.tmp"
mv "$out.tmp" "$out"
