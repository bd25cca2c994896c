#!/usr/bin/env bash
# make kunit-broken: shows that the KUnit case cold_copy_fault_test
# (x86_cold_pages, arch/x86/lib/cold_pages_kunit.c) fails when
# __copy_mc_movnti() computes its residue wrongly. Two throwaway changes to
# its exception path (.E_movnti in arch/x86/lib/copy_mc_64.S), one at a
# time: "shift5", the blocks left times 32 instead of 64 (shlq $5); "zero",
# a residue of 0 (the count of blocks never moved into %rax). Each is
# booted on EPYC-Milan, whose console must show "not ok ...
# cold_copy_fault_test" (lib.sh's broken_boots).
. "$(dirname "$0")/lib.sh"

f=arch/x86/lib/copy_mc_64.S
[ -d "$SRC/.git" ] || die "no realised tree at $SRC (make realise)"
grep -q '^\.E_movnti:$' "$SRC/$f" || die "no .E_movnti in $f"
break_shift5() { sed -i '/^\.E_movnti:$/,/RET/ s/^\tshlq\t\$6, %rax$/\tshlq\t$5, %rax/' "$SRC/$f"; }
break_zero() { sed -i '/^\.E_movnti:$/,/RET/ s/^\tmovq\t%rcx, %rax$/\txorl\t%eax, %eax/' "$SRC/$f"; }
# what KUnit said: the case's result and the expectation that failed
explain() { grep -m2 -E 'cold_copy_fault_test|Expected ret ==' "$1" | tr -s ' ' | tr '\n' ';'; }
broken_boots kunit-broken '^ +not ok [0-9]+ cold_copy_fault_test' "$f" shift5 zero
