#!/usr/bin/env bash
# make deb: Debian packages (make bindeb-pkg) of the realised tree for the
# machine this runs on, to boot the series on real hardware.
#   DEB_CONFIG=   (default) the running kernel's configuration
#                 (/boot/config-$(uname -r), else /proc/config.gz, else the
#                 base's x86_64_defconfig), trimmed by localmodconfig to the
#                 modules loaded now (LSMOD=<file> for another list)
#   DEB_CONFIG=full   the same without localmodconfig (hours on 2 cores)
#   DEB_CONFIG=tiny   the workshop's guest kernel (tinyconfig +
#                 config/nt.config), for tests: boots under QEMU, no modules;
#                 packaged from the build stage's own tree (build/obj),
#                 built with the same release and build number (kmake): the
#                 package's make rebuilds nothing
#   DEB_CONFIG=<path> that configuration file
# On top: Debian's trusted-key settings cleared (they name certificates
# that only Debian's build has), no debug info (half the build time, no
# -dbg package), and what the series and make bench-kernel need (DEBUG_FS,
# HUGETLBFS, TRANSPARENT_HUGEPAGE, no forced lockdown: a locked-down kernel
# restricts debugfs); the local version names the series
# (LOCALVERSION=-nt-v5 on make's command line, CONFIG_LOCALVERSION empty).
# The packages go to build/deb/; the object tree is build/deb/obj-<config>
# (build/obj for tiny).
. "$(dirname "$0")/lib.sh"

[ -d "$SRC/.git" ] || die "no realised tree at $SRC (make realise)"
for c in dpkg-buildpackage fakeroot dh_testdir rsync; do
	command -v $c >/dev/null || die "$c not found: apt-get install dpkg-dev fakeroot debhelper rsync (make deps)"
done
# "[PATCH v5 00/11]" -> v5, -nt-v5 (lib.sh; kmake passes it too)
# shellcheck disable=SC2153 # LOCALVER: lib.sh's
ver=$SERIES_VER localver=$LOCALVER
kind=${DEB_CONFIG:-local}
case $kind in
local | full | tiny) ;;
*) [ -f "$kind" ] || die "DEB_CONFIG=$kind: not local, full, tiny or a configuration file" ;;
esac
tag=$kind
[ -f "$kind" ] && tag=file
out=$BUILD/deb
obj=$out/obj-$tag
[ "$kind" = tiny ] && obj=$OBJ
mkdir -p "$obj" "$out" "$BUILD/logs"
log=$BUILD/logs/deb-$tag.log
kd() { make -C "$SRC" O="$obj" ARCH=x86_64 "$@"; }

# The starting configuration
case $kind in
tiny)
	# The build stage's tree and configuration, as they are (a copy of the
	# tree would rebuild everything: objtool's paths are absolute).
	"$TOP/scripts/build.sh" >/dev/null 2>&1 || die "the build stage's kernel does not build (make build)"
	src="tinyconfig + config/nt.config (the build stage's $OBJ)" ;;
local | full)
	if [ -f "/boot/config-$(uname -r)" ]; then
		cp "/boot/config-$(uname -r)" "$obj/.config"
		src="/boot/config-$(uname -r)"
	elif [ -r /proc/config.gz ]; then
		zcat /proc/config.gz >"$obj/.config"
		src="/proc/config.gz ($(uname -r))"
	else
		kd -s x86_64_defconfig >/dev/null
		src="x86_64_defconfig (no configuration of the running kernel found)"
	fi
	kd -s olddefconfig >/dev/null
	if [ "$kind" = local ] && [ -z "${LSMOD:-}" ] && [ ! -e /proc/modules ]; then
		note "the running kernel has no module support: nothing for localmodconfig to trim"
	elif [ "$kind" = local ]; then
		lsmod=${LSMOD:-/proc/modules}
		note "localmodconfig: keeping the $(wc -l <"$lsmod") modules loaded now ($lsmod)"
		# yes dies of SIGPIPE when make is done: not a failure (pipefail)
		{ yes '' || true; } | kd -s LSMOD="$lsmod" localmodconfig >/dev/null 2>&1 ||
			die "localmodconfig failed (LSMOD=$lsmod)"
		src="$src, localmodconfig"
	fi ;;
*)
	cp "$kind" "$obj/.config"
	src=$kind ;;
esac
cfg() { "$SRC/scripts/config" --file "$obj/.config" "$@"; }
if [ "$kind" != tiny ]; then
	cfg --set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS "" \
		--set-str LOCALVERSION "" --disable LOCALVERSION_AUTO \
		--enable DEBUG_FS --enable HUGETLBFS --enable HUGETLB_PAGE --enable TRANSPARENT_HUGEPAGE \
		--disable DEBUG_INFO --disable DEBUG_INFO_DWARF5 \
		--disable DEBUG_INFO_DWARF4 --disable DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT \
		--disable DEBUG_INFO_BTF --enable DEBUG_INFO_NONE \
		--disable LOCK_DOWN_KERNEL_FORCE_INTEGRITY --disable LOCK_DOWN_KERNEL_FORCE_CONFIDENTIALITY \
		--enable LOCK_DOWN_KERNEL_FORCE_NONE
	kd -s olddefconfig >/dev/null
fi
for o in DEBUG_FS HUGETLBFS TRANSPARENT_HUGEPAGE; do
	grep -q "^CONFIG_$o=y" "$obj/.config" || die "CONFIG_$o did not take in $obj/.config"
done
grep -q '^CONFIG_LOCALVERSION=""' "$obj/.config" && ! grep -q '^CONFIG_LOCALVERSION_AUTO=y' "$obj/.config" ||
	die "$obj/.config: CONFIG_LOCALVERSION must be empty and LOCALVERSION_AUTO off"
# So the release is exactly the version and LOCALVERSION.
krel=$(kd -s kernelversion)$localver
note "configuration: $src; release $krel; build log $log"

# Build, with a progress line every 30 s (objects compiled so far).
start=$(date +%s)
rm -f "$out"/linux-*.deb "$out"/linux-upstream_* "$(dirname "$obj")"/linux-*.deb "$(dirname "$obj")"/linux-upstream_*
# DPKG_FLAGS=-d: the build dependencies that mkdebian lists (libdw-dev,
# python3, ...) serve configurations other than this one; what the build
# needs is checked by make deps (dpkg-dev, fakeroot, debhelper, rsync).
kd -j"$JOBS" LOCALVERSION="$localver" KDEB_PKGVERSION="${krel}-$DEB_BUILD_NUM" DPKG_FLAGS=-d bindeb-pkg >"$log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null' INT TERM
# A look every second (the build's end is seen at once), a line every 30.
next=30
while kill -0 $pid 2>/dev/null; do
	sleep 1 & wait $!
	t=$(($(date +%s) - start))
	if [ $t -lt $next ] || ! kill -0 $pid 2>/dev/null; then continue; fi
	next=$(((t / 30 + 1) * 30))
	printf '>> %d min %02d s: %d objects compiled, last: %s\n' $((t / 60)) $((t % 60)) \
		"$(grep -c '^  CC ' "$log")" "$(tail -n 1 "$log" | cut -c1-60)" >&2
done
wait $pid || { tail -n 30 "$log" >&2; die "bindeb-pkg failed (log: $log)"; }
trap - INT TERM
t=$(($(date +%s) - start))
# dpkg-buildpackage writes into the object tree's parent.
[ "$(dirname "$obj")" = "$out" ] || mv "$(dirname "$obj")"/linux-*"$krel"* "$out"/
[ "$(cat "$obj/include/config/kernel.release")" = "$krel" ] ||
	die "built $(cat "$obj/include/config/kernel.release"), not $krel"
img=$(ls "$out"/linux-image-"$krel"_*.deb 2>/dev/null | grep -v -- -dbg_ | head -n 1)
[ -n "$img" ] || die "no linux-image-$krel package in $out"
echo "$krel" >"$out/release-$tag"
cat <<EOF
>> built in $((t / 60)) min $((t % 60)) s: $(cd "$out" && ls linux-*"$krel"*.deb | tr '\n' ' ')
Packages of the series ($ver) for $(uname -m), release $krel, in $out:
  install:   dpkg -i $out/linux-image-${krel}_*.deb    # and linux-headers-* if you build modules
             (update-initramfs and update-grub run from the package's hooks)
  boot once: grub-reboot "Advanced options for Debian GNU/Linux>Debian GNU/Linux, with Linux $krel"
             reboot       # grub-reboot needs GRUB_DEFAULT=saved in /etc/default/grub (then update-grub);
                          # the next boot after that is your default kernel again
  1 GiB pages for make bench-kernel's 1G rows: add "hugepagesz=1G hugepages=8" to that boot's
             command line (at the GRUB menu: e), or GRUB_CMDLINE_LINUX in /etc/default/grub
  Secure Boot: this kernel is not signed; with Secure Boot on (mokutil --sb-state) shim refuses
             it: turn Secure Boot off in the firmware for the test, or sign it with your MOK
  then, as root in that kernel: make bench-kernel [REPORT=docs/measurements/<name>.md]
  go back:   reboot (the default entry is unchanged); dpkg -r linux-image-$krel removes it
EOF
