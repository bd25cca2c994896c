#!/usr/bin/env bash
# make kunit-broken: shows that the KUnit case cold_copy_fault_test
# (x86_cold_pages, arch/x86/lib/cold_pages_kunit.c) fails when
# copy_mc_movnti() computes its residue wrongly. Two throwaway changes to
# its exception path (.E_movnti in arch/x86/lib/copy_mc_64.S), one at a
# time: "shift5", the blocks left times 32 instead of 64 (shlq $5); "zero",
# a residue of 0 (the count of blocks never moved into %rax). For each, the
# guest kernel is rebuilt (build/obj, incremental) and booted on qemu64,
# whose console must show "not ok ... cold_copy_fault_test". Then the
# file is restored and the kernel rebuilt as it was.
. "$(dirname "$0")/lib.sh"

f=arch/x86/lib/copy_mc_64.S
[ -d "$SRC/.git" ] || die "no realised tree at $SRC (make realise)"
[ -z "$(tree_dirty)" ] || die "$SRC has uncommitted edits; commit them first"
grep -q '^\.E_movnti:$' "$SRC/$f" || die "no .E_movnti in $f"
res=$BUILD/results logs=$BUILD/logs
mkdir -p "$res" "$logs"
restore() {
	git -C "$SRC" checkout -q -- "$f"
	touch "$SRC/$f"
	"$TOP/scripts/build.sh" >/dev/null 2>&1 || echo "# kunit-broken: rebuilding the restored tree failed" >&2
}
trap restore EXIT

pass=0 fail=0 n=0
echo "KTAP version 1"
echo "1..2"
for v in shift5 zero; do
	n=$((n + 1))
	git -C "$SRC" checkout -q -- "$f"
	case $v in
	shift5) sed -i '/^\.E_movnti:$/,/RET/ s/^\tshlq\t\$6, %rax$/\tshlq\t$5, %rax/' "$SRC/$f" ;;
	zero) sed -i '/^\.E_movnti:$/,/RET/ s/^\tmovq\t%rcx, %rax$/\txorl\t%eax, %eax/' "$SRC/$f" ;;
	esac
	log=$logs/kunit-broken-$v.log
	ok=0 why=""
	if git -C "$SRC" diff --quiet -- "$f"; then
		why="the change did not apply: has .E_movnti changed?"
	elif ! "$TOP/scripts/build.sh" >"$log.build" 2>&1; then
		why="the broken tree did not build: $(tail -3 "$log.build")"
	else
		"$TOP/scripts/initramfs.sh" "$BUILD/initramfs.cpio" >/dev/null 2>&1 || true
		"$TOP/scripts/boot.sh" -q -l "$log" qemu64 || true
		if grep -qE '^ +not ok [0-9]+ cold_copy_fault_test' "$log"; then
			ok=1 why="$(grep -m2 -E 'cold_copy_fault_test|Expected ret ==' "$log" | tr -s ' ' | tr '\n' ';')"
		else
			why="no 'not ok ... cold_copy_fault_test' in $log"
		fi
	fi
	if [ $ok = 1 ]; then
		pass=$((pass + 1)); echo "ok $n kunit_fault_test_catches_$v"; echo "# $why"
	else
		fail=$((fail + 1)); echo "not ok $n kunit_fault_test_catches_$v"; echo "# $why"
	fi
done
echo "$pass $fail 0" >"$res/kunit-broken.counts"
echo "kunit-broken: $pass passed, $fail failed, 0 skipped"
[ $fail = 0 ]
