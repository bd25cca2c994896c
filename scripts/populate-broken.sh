#!/usr/bin/env bash
# make populate-broken: shows that the guest's populate_cold check fails
# when mm wires the cold clear wrong. Two throwaway changes, one at a time:
# "nopop", faultin_page() no longer turns FOLL_POPULATE into
# FAULT_FLAG_POPULATE (MADV_POPULATE_WRITE, mlock() and MAP_POPULATE clear
# cached); "allcold", folio_zero_user_fault() clears cold for every fault
# (a user's write fault cold too). For each, the guest kernel is rebuilt
# (build/obj, incremental) and booted on qemu64, whose console must show
# "not ok ... populate_cold". Then the files are restored and the kernel
# rebuilt as it was.
. "$(dirname "$0")/lib.sh"

[ -d "$SRC/.git" ] || die "no realised tree at $SRC (make realise)"
[ -z "$(tree_dirty)" ] || die "$SRC has uncommitted edits; commit them first"
files="mm/gup.c mm/internal.h"
res=$BUILD/results logs=$BUILD/logs
mkdir -p "$res" "$logs"
restore() {
	git -C "$SRC" checkout -q -- $files
	(cd "$SRC" && touch $files)
	"$TOP/scripts/build.sh" >/dev/null 2>&1 || echo "# populate-broken: rebuilding the restored tree failed" >&2
}
trap restore EXIT
# the guest image with populate-cold (and the selftests)
"$TOP/scripts/selftests.sh" >/dev/null || die "could not build the guest's test programs"

pass=0 fail=0 n=0
echo "KTAP version 1"
echo "1..2"
for v in nopop allcold; do
	n=$((n + 1))
	git -C "$SRC" checkout -q -- $files
	case $v in
	nopop) sed -i 's/^\t\tfault_flags |= FAULT_FLAG_POPULATE;$/\t\t;/' "$SRC/mm/gup.c" ;;
	allcold) sed -i 's/^\tif (flags & FAULT_FLAG_POPULATE)$/\tif (1)/' "$SRC/mm/internal.h" ;;
	esac
	log=$logs/populate-broken-$v.log
	ok=0 why=""
	if git -C "$SRC" diff --quiet -- $files; then
		why="the change did not apply: has the source changed?"
	elif ! "$TOP/scripts/build.sh" >"$log.build" 2>&1; then
		why="the broken tree did not build: $(tail -3 "$log.build")"
	else
		"$TOP/scripts/initramfs.sh" "$BUILD/initramfs.cpio" >/dev/null 2>&1 || true
		"$TOP/scripts/boot.sh" -q -l "$log" qemu64 || true
		if grep -qE '^not ok [0-9]+ populate_cold' "$log"; then
			ok=1 why="$(grep -A1 -E '^not ok [0-9]+ populate_cold' "$log" | tail -n 1 | cut -c1-300)"
		else
			why="no 'not ok ... populate_cold' in $log"
		fi
	fi
	if [ $ok = 1 ]; then
		pass=$((pass + 1)); echo "ok $n populate_cold_catches_$v"; echo "$why"
	else
		fail=$((fail + 1)); echo "not ok $n populate_cold_catches_$v"; echo "# $why"
	fi
done
echo "$pass $fail 0" >"$res/populate-broken.counts"
echo "populate-broken: $pass passed, $fail failed, 0 skipped"
[ $fail = 0 ]
