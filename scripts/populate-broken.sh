#!/usr/bin/env bash
# make populate-broken: shows that the series' in-tree tests fail when mm
# wires the cold clear wrong. Four throwaway changes, one at a time:
# "nopop", faultin_page() no longer turns FOLL_ZERO_COLD into
# FAULT_FLAG_ZERO_COLD (MADV_POPULATE_WRITE, mlock() and MAP_POPULATE clear
# cached); "allcold", folio_zero_user_fault() clears cold for every fault
# (a user's write fault cold too); "nogate", populate_is_cold() ignores the
# size gate (a populate below it cold too); "noalloc", booted with
# init_on_alloc=1, the page allocator ignores ALLOC_ZERO_COLD (THP
# populates clear cached). Each is booted on EPYC-Milan with thp-zero run
# (nt_thp_zero=1) beside pf-hugetlb and the KUnit suites; its console must
# show an in-tree test failing: a KUnit case ("not ok N ..._test") or a
# selftest's (zero-<way>), not only the workshop's kprobe
# check populate_cold (lib.sh's broken_boots).
. "$(dirname "$0")/lib.sh"

[ -d "$SRC/.git" ] || die "no realised tree at $SRC (make realise)"
# the guest image with populate-cold and the selftests
"$TOP/scripts/selftests.sh" >/dev/null || die "could not build the guest's test programs"
break_nopop() { sed -i 's/^\t\tfault_flags |= FAULT_FLAG_ZERO_COLD;$/\t\t;/' "$SRC/mm/gup.c"; }
break_allcold() { sed -i 's/^\tif (flags & FAULT_FLAG_ZERO_COLD)$/\tif (1)/' "$SRC/mm/internal.h"; }
break_nogate() { sed -i 's/ && bytes >= arch_populate_cold_min();$/;/' "$SRC/include/linux/mm.h"; }
break_noalloc() {
	sed -i 's/^\treturn (alloc_flags \& ALLOC_ZERO_COLD) \&\& order < BITS_PER_LONG \&\&$/\treturn false \&\& order < BITS_PER_LONG \&\&/' \
		"$SRC/mm/page_alloc.c"
	broken_append="$broken_append init_on_alloc=1"
}
broken_base=nt_thp_zero=1
# every in-tree failure of the boot, on one line
explain() {
	grep -E "$check" "$1" | sed 's/^ *//' | sort -u | tr '\n' ';' | cut -c1-300
}
broken_boots populate-broken '^ *not ok [0-9]+ ([a-z_]+_test|zero-[a-z]+ )' \
	"mm/gup.c mm/internal.h include/linux/mm.h mm/page_alloc.c" nopop allcold nogate noalloc
