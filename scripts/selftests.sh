#!/usr/bin/env bash
# Build tools/testing/selftests/mm/pf-hugetlb with the kselftest build of the
# realised tree (static, so that it runs in the busybox guest), stage it for
# the initramfs, and with "run" also run it on this host.
. "$(dirname "$0")/lib.sh"

[ -d "$SRC/.git" ] || die "no realised tree at $SRC (make realise)"
# OUT_DIR: build there only (the bisect stage), nothing staged or run.
out=${OUT_DIR:-$BUILD/selftests-mm}
hdr=${OUT_DIR:+$OUT_DIR/headers}
hdr=${hdr:-$BUILD/headers}
mkdir -p "$out" "$BUILD/guest-extra/bin" "$BUILD/results" "$BUILD/logs"
[ -f "$SRC/tools/testing/selftests/mm/pf-hugetlb.c" ] || die "the series has no pf-hugetlb.c yet"
# make headers, out of tree (again only when the tree's uapi changed)
stamp=$hdr/.nt-stamp
want=$(git -C "$SRC" log -1 --format=%H -- include/uapi arch/x86/include/uapi 2>/dev/null || echo none)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ] || [ ! -d "$hdr/usr/include" ]; then
	make -s -C "$SRC" O="$hdr" ARCH=x86_64 headers >/dev/null || die "make headers failed"
	echo "$want" >"$stamp"
fi
# Only our test, not all of mm/, whose other tests are not this series'
# business; its warnings fail the build.
blog=$out/build.log
make -C "$SRC/tools/testing/selftests/mm" OUTPUT="$out" \
	KHDR_INCLUDES="-isystem $hdr/usr/include" LDFLAGS=-static \
	"$out/pf-hugetlb" >"$blog" 2>&1 || { cat "$blog" >&2; die "pf-hugetlb build failed"; }
if grep -E 'pf-hugetlb\.c:[0-9]+:[0-9]+: warning' "$blog" >&2; then
	die "pf-hugetlb.c builds with warnings"
fi
[ -n "${OUT_DIR:-}" ] && exit 0
cp "$out/pf-hugetlb" "$BUILD/guest-extra/bin/pf-hugetlb"

[ "${1:-}" = run ] || exit 0
# On the host: 2 MiB pages, the host kernel's own clearing as a baseline.
log=$BUILD/logs/pf-hugetlb-host.log
rc=0
"$out/pf-hugetlb" -p 2M -s "${HOST_MIB:-1024}" -r "${HOST_REPS:-5}" 2>&1 | tee "$log" || rc=$?
read -r p f s < <(awk '
	/^ok [0-9]+ .*# SKIP/ { s++; next }
	/^ok [0-9]+ / { p++ }
	/^not ok [0-9]+ / { f++ }
	/^# SKIP|^1\.\.0 # SKIP/ { s++ }
	END { printf "%d %d %d\n", p, f, s }' "$log")
[ "$rc" = 0 ] || [ "$rc" = 4 ] || [ "$f" -gt 0 ] || f=1
echo "$p $f $s" >"$BUILD/results/selftests.counts"
echo "pf-hugetlb on the host: $p passed, $f failed, $s skipped"
[ "$f" = 0 ]
