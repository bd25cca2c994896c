#!/usr/bin/env bash
# Build the series' mm selftests, tools/testing/selftests/mm/pf-hugetlb,
# thp-zero, hugetlb-fork and hugetlb-exclusive, with the kselftest build of the
# realised tree (static, so that they run in the busybox guest), stage them
# for the initramfs, and with "run" also run pf-hugetlb on this host
# (hugetlb-fork and hugetlb-exclusive only in guests: this host's 6.18
# kernel has the bugs that the hugetlb fix series fixes, and the host is
# not under test).
. "$(dirname "$0")/lib.sh"

[ -e "$SRC/.git" ] || die "no realised tree at $SRC (make realise)"
# OUT_DIR: build there only (the bisect stage), nothing staged or run.
out=${OUT_DIR:-$BUILD/selftests-mm}
mkdir -p "$out" "$BUILD/guest-extra/bin" "$BUILD/results" "$BUILD/logs"
# The series' mm selftests that this tree has.
tests=""
for t in pf-hugetlb thp-zero hugetlb-fork hugetlb-exclusive; do
	if [ -f "$SRC/tools/testing/selftests/mm/$t.c" ]; then tests="$tests $t"; fi
done
[ -n "$tests" ] || die "the series has no pf-hugetlb.c nor hugetlb-fork.c yet"
uapi_headers || die "make headers failed"
# Only our tests, not all of mm/, whose other tests are not this series'
# business (the mmtests stage runs those); their warnings fail the build.
blog=$out/build.log
make -C "$SRC/tools/testing/selftests/mm" OUTPUT="$out" \
	KHDR_INCLUDES="-isystem $UAPI_OBJ/usr/include" LDFLAGS=-static \
	$(for t in $tests; do echo "$out/$t"; done) >"$blog" 2>&1 ||
	{ cat "$blog" >&2; die "$tests build failed"; }
if grep -E '(pf-hugetlb|thp-zero|hugetlb-fork|hugetlb-exclusive)\.c:[0-9]+:[0-9]+: warning' "$blog" >&2; then
	die "$tests: builds with warnings"
fi
[ -n "${OUT_DIR:-}" ] && exit 0
for t in $tests; do cp "$out/$t" "$BUILD/guest-extra/bin/$t"; done
# The guest's populate_cold check
populate_cold_bin "$BUILD/guest-extra" || die "populate-cold build failed"
[ -f "$out/pf-hugetlb" ] || die "no pf-hugetlb in this tree"

[ "${1:-}" = run ] || exit 0
# On the host: the host kernel's clear and copy (pf-hugetlb reserves two
# pages of each huge page size and gives them back). Only the 2 MiB
# results count: the host kernel is not under test, and without the
# hugetlb fix series a 1 GiB CoW loses the child's page now and then
# (docs/findings.md); where the host can reserve 1 GiB pages at all (a
# freshly booted VM can), those results are printed, not counted. The
# guests run the 1 GiB checks on the series' kernel (the matrix).
log=$BUILD/logs/pf-hugetlb-host.log
rc=0
"$out/pf-hugetlb" 2>&1 | tee "$log" || rc=$?
read -r p f s o < <(awk '
	/^(not )?ok [0-9]+ / && !/ 2048kB( |$)/ { o++; next }
	/^ok [0-9]+ .*# SKIP/ { s++; next }
	/^ok [0-9]+ / { p++ }
	/^not ok [0-9]+ / { f++ }
	/^# SKIP|^1\.\.0 # SKIP/ { s++ }
	END { printf "%d %d %d %d\n", p, f, s, o }' "$log")
[ "$o" = 0 ] || echo "# $o results for other huge page sizes than 2 MiB: not counted (the host kernel's)"
[ $((p + f + s)) -gt 0 ] || f=1	# no 2 MiB result at all
# A crash or a bad exit (not a failed or skipped case) still fails.
[ "$rc" = 0 ] || [ "$rc" = 4 ] || grep -q '^not ok ' "$log" || f=1
echo "$p $f $s" >"$BUILD/results/selftests.counts"
echo "pf-hugetlb on the host: $p passed, $f failed, $s skipped"
[ "$f" = 0 ]
