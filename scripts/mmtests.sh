#!/usr/bin/env bash
# The kernel's own mm selftests against the cold paths: the build stage's
# guest kernel (config/nt.config holds what they need, so that no second
# kernel is built: build/obj), the tests of $MMTESTS built statically from the
# realised tree and carried in an initramfs of their own (guest/mmtests runs
# them), booted on each row of $MMTESTS_ROWS: "cold", every large
# folio cleared and copied cold where mm uses the sets (nt_knobs=0x403fc,0x40200:
# every order each debugfs set takes, which the guest sets before
# the tests: populated folios cleared cold, every CoW copy of a large
# folio cold), and, on the first
# row only, "off" (nt_stores=off, the kernel clears and copies as mainline
# on every row). A test fails on any "not ok" case or a bad exit in the cold run,
# and on any case that passes off but not cold; the totals of both runs are
# printed side by side. A failure of the off run alone (the base kernel's)
# is reported, not counted.
#
# MMTESTS_BROKEN=1 (make mmtests-broken) shows that it can fail: it makes
# each cold copy batch (mm/memory.c, copy_contig_highpages()) flip one byte
# of its source, as a copy with a wrong store address would, builds, runs
# cow cold on the first row, which must report "not ok", then restores the
# tree and rebuilds. (A wrong byte in the destination cow cannot see: in
# every cow case the writer that takes the copy overwrites all of it at
# once. pf-hugetlb checks every byte of the copy: the matrix and debug
# stages.)
. "$(dirname "$0")/lib.sh"

# Why each test is in (docs/checks.md has the list and the ones left out):
# cow: CoW of base pages, every mTHP size, PMD THP and hugetlb, swapped out
#   or not, with GUP pins: folio_zero_user() on every THP fault,
#   copy_user_large_folio() on every hugetlb CoW;
# hugetlb-fork, hugetlb-exclusive (the hugetlb fix series,
#   patches/hugetlb/): fork() shares a private hugetlb page with the
#   child; smaps and pagemap report a private page private (here 2 MiB
#   pages; the 1 GiB pages their fixes are about: the matrix's
#   Icelake-Server row and HUGETLB_BROKEN=1 below);
# hugetlb-mmap, hugetlb-shm, hugetlb-madvise, hugetlb-mremap,
#   hugetlb_madv_vs_map, thuge-gen: hugetlb pages through memfd, SysV
#   shm, MAP_HUGETLB, mremap and madvise, data checked (hugetlb-madvise
#   populates and copies cold; the others' user faults clear cached);
# madv_populate: MADV_POPULATE_WRITE of anonymous memory, which
#   populates THPs with the cold clear;
# thp-zero (the series): every THP and mTHP size populated (MADV_POPULATE_WRITE,
#   mlock(), MAP_POPULATE) and write-faulted reads zero after dirty folios
#   were given back: the cold clear, or with init_on_alloc (the +debian row)
#   the allocator's cold leg;
# transhuge-stress, folio_split_race_test, mkdirty: anonymous THP faults
#   (folio_zero_user()'s fault ranges, patch 4) and splits, contents
#   checked; a user's fault clears cached in both boots, so these reach no
#   cold routine (each test's "cold calls" say so).
# Which tests must reach which cold routine in the cold boot, so that the
#   stage cannot pass without testing the cold paths: $reach below.
# Not split_huge_page_test: it reaches no cold routine either (its THPs
#   are fault-cleared), and in the cold boot of the whole list it failed
#   now and then (4 of 25 runs, 0 of 20 alone, 0 of 10 off; a folio left
#   unsplit, cause not found: docs/findings.md).
# Not khugepaged: under TCG it fails now and then in both modes (its
#   collapse_max_ptes_swap finds fewer pages swapped out than it asked
#   for, 2 of 12 cold runs; "Bail out! Unexpected huge page", 2 of 8 runs
#   with nt_stores=off), and collapse copies with copy_mc_user_highpage(),
#   not through the cold paths.
tests=${MMTESTS:-"cow hugetlb-fork hugetlb-exclusive hugetlb-mmap hugetlb-shm hugetlb-madvise hugetlb-mremap hugetlb_madv_vs_map thuge-gen madv_populate thp-zero transhuge-stress folio_split_race_test mkdirty"}
# <test>:<routine>[,<routine>]: the cold routines (clear: clear_pages_cold(),
# copy: copy_mc_pages_cold()) each of these tests calls in the cold boot.
reach="cow:clear,copy hugetlb-madvise:clear,copy madv_populate:clear thp-zero:clear"
# One NT-good Intel row and one AMD row (matrix.tsv), and the AMD row with
# Debian's kernel options (config/debian.config: init_on_alloc, so the
# page allocator zeroes THP populates cold).
rows=${MMTESTS_ROWS:-"GraniteRapids-X EPYC-Milan EPYC-Milan+debian"}
# MMTESTS_COLD_ARGS: the cold boot's command line (default: the sets the debug stage uses).
cold_args=${MMTESTS_COLD_ARGS:-"nt_knobs=0x403fc,0x40200,0"}
off_args="nt_stores=off"

res=$BUILD/results
logs=$BUILD/logs
mobj=$OBJ
sel=$BUILD/mmtests-sel
extra=$BUILD/mmtests-extra
initrd=$BUILD/mmtests-initramfs.cpio
mkdir -p "$res" "$logs"
pass=0 fail=0 skip=0 n=0

mbuild() {
	OBJ=$mobj "$TOP/scripts/build.sh" 2>"$logs/mmtests-build.log"
}

# The tests, static, against the tree's own uapi headers; then the image.
mimage() {
	local t
	uapi_headers || return 1
	mkdir -p "$sel"
	make -C "$SRC/tools/testing/selftests/mm" OUTPUT="$sel" \
		KHDR_INCLUDES="-isystem $UAPI_OBJ/usr/include" LDFLAGS=-static \
		$(for t in $tests; do echo "$sel/$t"; done) >"$logs/mmtests-sel.log" 2>&1 || return 1
	rm -rf "$extra"
	mkdir -p "$extra/bin/mm"
	for t in $tests; do cp "$sel/$t" "$extra/bin/mm/"; done
	install -m 755 "$TOP/guest/mmtests" "$extra/bin/mmtests"
	GUEST_EXTRA=$extra "$TOP/scripts/initramfs.sh" "$initrd"
}

# mboot <row> <cold|off> <tests>: boot it, the console in $logs/mmtests-<row>-<mode>.log
mboot() {
	local a=$cold_args
	[ "$2" = off ] && a=$off_args
	OBJ=$mobj INITRD=$initrd BOOT_HUGE= BOOT_MEM=4G BOOT_TIMEOUT=${BOOT_TIMEOUT:-1200} \
		"$TOP/scripts/boot.sh" -q -l "$logs/mmtests-$1-$2.log" \
		-a "$a nt_mmtests=$(echo "$3" | tr ' ' ',')" "$1"
}

# cases <log> <test>: "<pass|fail|skip|xfail> <description>" per case of
# that test's section (descriptions made unique by their occurrence), then
# "exit <rc>" (none: "exit none").
cases() {
	awk -v t="$2" '
	$0 == "# mmtest begin " t { on = 1; next }
	on && index($0, "# mmtest end " t ": exit ") == 1 {
		split(substr($0, length("# mmtest end " t ": exit ") + 1), a, ",")
		rc = a[1]; on = 0; next }
	!on { next }
	/^(not )?ok [0-9]+/ {
		st = /^not ok/ ? "fail" : "pass"
		d = $0; sub(/^(not )?ok [0-9]+ */, "", d)
		if (st == "pass" && d ~ /# *[Ss][Kk][Ii][Pp]/) st = "skip"
		if (st == "pass" && d ~ /# *[Xx][Ff][Aa][Ii][Ll]/) st = "xfail"
		sub(/ *#.*$/, "", d)
		k = d; seen[d]++; if (seen[d] > 1) k = d " [" seen[d] "]"
		print st, k }
	END { print "exit", (rc == "" ? "none" : rc) }' "$1"
}

# coldcalls <log> <test>: "<clears> <copies>" of that test (kprobe hits in
# the guest), none if the guest could not count them.
coldcalls() {
	sed -n "s/^# mmtest cold $2: clear \([0-9]*\) copy \([0-9]*\)\$/\1 \2/p" "$1"
}

# totals <cases>: "P pass, F fail, X xfail, S skip"
totals() {
	awk '$1 == "pass" {p++} $1 == "fail" {f++} $1 == "xfail" {x++} $1 == "skip" {s++}
	END {printf "%d pass, %d fail, %d xfail, %d skip", p, f, x, s}' <<<"$1"
}

# judge <row> <test>: one result from both runs' logs.
judge() {
	local c o rc orc why="" ok=1 lost nf cc oc need got
	c=$(cases "$logs/mmtests-$1-cold.log" "$2")
	o=$(cases "$logs/mmtests-$offrow-off.log" "$2")
	rc=$(sed -n 's/^exit //p' <<<"$c") orc=$(sed -n 's/^exit //p' <<<"$o")
	printf '# %-16s %-22s cold: %-40s off: %s\n' "$1" "$2" "$(totals "$c") (exit $rc)" "$(totals "$o") (exit $orc)"
	# the cold routines it reached: the ones $reach names, and none off
	cc=$(coldcalls "$logs/mmtests-$1-cold.log" "$2") oc=$(coldcalls "$logs/mmtests-$offrow-off.log" "$2")
	echo "# $1 $2: cold calls (clear copy): cold ${cc:-uncounted}, off ${oc:-uncounted}"
	for need in $(sed -n "s/.*\(^\| \)$2:\([a-z,]*\).*/\2/p" <<<"$reach" | tr ',' ' '); do
		case $need in clear) got=${cc% *} ;; copy) got=${cc#* } ;; esac
		[ -n "$cc" ] && [ "$got" -gt 0 ] || { ok=0 why="$why reached no cold $need;"; }
	done
	case ${oc:-0 0} in "0 0") ;; *) ok=0 why="$why the off boot reached a cold routine;" ;; esac
	# kselftest exit codes: 0 pass, 4 skip
	case $rc in 0|4) ;; *) ok=0 why="$why cold run exit $rc;" ;; esac
	grep -q '^\(pass\|fail\|xfail\|skip\) ' <<<"$c" || { ok=0; why="$why no cases in the cold run;"; }
	nf=$(grep -c '^fail ' <<<"$c" || true)
	if [ "$nf" -gt 0 ]; then
		ok=0 why="$why $nf not ok cold;"
		grep -m5 '^fail ' <<<"$c" | sed 's/^fail /# not ok cold: /'
	fi
	# every case that passes off passes cold
	lost=$(comm -23 <(grep '^pass ' <<<"$o" | sort || true) <(grep '^pass ' <<<"$c" | sort || true))
	if [ -n "$lost" ]; then
		ok=0 why="$why $(wc -l <<<"$lost") pass off but not cold;"
		head -5 <<<"$lost" | sed 's/^pass /# passes off, not cold: /'
	fi
	case $orc in 0|4) ;; *) echo "# $1 $2: the off run (nt_stores=off) failed too: exit $orc (not counted: the base's)" ;; esac
	ktap $ok "$1 $2" "$why"
}

# The hugetlb fix series' tests on 1 GiB pages (make hugetlb-broken, make
# hugetlb-stable): hugetlb-fork and hugetlb-exclusive, in guests
# ($HUGETLB_ROW, default Icelake-Server: pdpe1gb, 5-level paging; 8 GiB,
# two 1 GiB pages reserved at boot) of kernels built from worktrees (config/
# nt.config: the options a tree lacks are left out), out of tree: a rerun
# rebuilds only what changed.
#
# hworktree <repo> <commit> <dir>: a worktree of <repo> at <commit>
hworktree() {
	if [ -e "$3/.git" ]; then
		git -C "$3" checkout -q --detach "$2"
	else
		rm -rf "$3"
		git -C "$1" worktree prune
		git -C "$1" worktree add -q --detach "$3" "$2"
	fi
}
# hbuild <src> <obj> <label>: build <src> in <obj> (no -nt-v<N> in its
# release: not the series)
hbuild() {
	SRC=$1 OBJ=$2 LOCALVER='' "$TOP/scripts/build.sh" 2>"$logs/$3-build.log" ||
		die "$3: the kernel did not build (log: $logs/$3-build.log)"
}
# hrun <obj> <label>: boot it once, the console in $logs/<label>.log;
# prints, per test, "<test> <pass|fail|none> <count> <exit>": the 1 GiB
# case's result and its count (children that lost the page; rounds that
# reported the private page shared; 0 when it passed)
hrun() {
	local l=$logs/$2.log t c g k
	# 8G, as the matrix boots it: with 4G no 1 GiB page is left at boot.
	OBJ=$1 INITRD=$initrd BOOT_MEM=8G BOOT_TIMEOUT=${BOOT_TIMEOUT:-1200} \
		"$TOP/scripts/boot.sh" -q -l "$l" -a "nt_mmtests=$(echo $tests | tr ' ' ',')" "$row" || true
	for t in $tests; do
		c=$(cases "$l" "$t")
		g=$(grep -m1 '^\(pass\|fail\) 1048576 kB' <<<"$c" || true)
		k=$(awk -v t="$t" '$0 == "# mmtest begin " t {on = 1; next}
			on && index($0, "# mmtest end " t) == 1 {on = 0}
			on && /^# 1048576 kB: [0-9]+ of [0-9]+ (children lost|rounds reported)/ {print $4; exit}' "$l")
		echo "$t ${g%% *} ${k:-0} $(sed -n 's/^exit //p' <<<"$c")" | sed 's/^\([^ ]*\)  /\1 none /'
	done
}

# HUGETLB_BROKEN=1 (make hugetlb-broken): on the base kernel, without the
# fixes, both tests must fail on 1 GiB pages; on the base with the hugetlb
# series alone (patches/hugetlb/), both must pass. Worktrees of the realised
# tree, build/hugetlb-{base,fix}-src, built in build/hugetlb-{base,fix}-obj.
if [ "${HUGETLB_BROKEN:-0}" = 1 ]; then
	row=${HUGETLB_ROW:-Icelake-Server}
	nh=$(hugetlb_series_files | wc -l)
	[ "$nh" -gt 0 ] || die "no hugetlb series (patches/hugetlb/series)"
	[ "$(git -C "$SRC" rev-list --count base..HEAD)" -gt "$nh" ] || die "$SRC lacks the hugetlb series"
	htop=$(git -C "$SRC" rev-list --reverse base..HEAD | sed -n "${nh}p")
	tests="hugetlb-fork hugetlb-exclusive"
	mimage || die "the tests did not build (log: $logs/mmtests-sel.log)"
	pass=0 fail=0 n=0
	for v in base fix; do
		want=base
		[ $v = fix ] && want=$htop
		wt=$BUILD/hugetlb-$v-src
		hworktree "$SRC" "$want" "$wt"
		note "$v: $(git -C "$wt" log -1 --format='%h %s')"
		hbuild "$wt" "$BUILD/hugetlb-$v-obj" "hugetlb-$v"
		while read -r t g k rc; do
			awk -v t="$t" '$0 == "# mmtest begin " t {on = 1; next}
				on && index($0, "# mmtest end " t) == 1 {on = 0}
				on && /^# [0-9]+ kB: / {print "#   " substr($0, 3)}' "$logs/hugetlb-$v-$row.log"
			if [ $v = base ]; then
				ok=0; [ "$g" = fail ] && ok=1
				ktap $ok "without the fixes (base): $t fails on 1 GiB pages" "1 GiB case: $g, count $k (no 1 GiB case: no 1 GiB page?)" "console log: $logs/hugetlb-$v-$row.log"
			else
				ok=0; [ "$g" = pass ] && [ "$rc" = 0 ] && ok=1
				ktap $ok "with the hugetlb series: $t passes" "1 GiB case: $g, exit $rc" "console log: $logs/hugetlb-$v-$row.log"
			fi
		done < <(hrun "$BUILD/hugetlb-$v-obj" "hugetlb-$v-$row")
	done
	echo "hugetlb-broken: $pass passed, $fail failed"
	[ "$fail" = 0 ]
	exit
fi

# HUGETLB_STABLE=1 (make hugetlb-stable): the same tests on the kernels
# Debian 12 runs, $STABLE_TREES (default "6.1 6.12": linux-source-6.1 and
# linux-source-6.12 of bookworm-security, at the versions pinned in
# patches/hugetlb/stable-<v>/debian-version, else the archive's), each
# realised as a git tree (build/stable/<v>/linux, one commit tagged base)
# with the backports of patches/hugetlb/stable-<v>/ applied by git am on
# branch fix; both kernels built (build/stable/<v>/{base,fix}-obj) and
# booted $STABLE_RUNS times (default 3). The count of each run is printed
# (children that lost the page; rounds that reported the private page
# shared). Fails on a fixed kernel whose 1 GiB case does not pass with 0
# in every run; the base's counts are reported, not judged: whether a tree
# has each bug is read from its source (docs/checks.md).
if [ "${HUGETLB_STABLE:-0}" = 1 ]; then
	row=${HUGETLB_ROW:-Icelake-Server}
	runs=${STABLE_RUNS:-3}
	tests="hugetlb-fork hugetlb-exclusive"
	mimage || die "the tests did not build (log: $logs/mmtests-sel.log)"
	pass=0 fail=0 n=0
	for ver in ${STABLE_TREES:-6.1 6.12}; do
		repo=$("$TOP/scripts/stable-tree.sh" "$ver") || die "linux-source-$ver: no tree"
		for v in base fix; do
			wt=$BUILD/stable/$ver/$v-src
			hworktree "$repo" "$v" "$wt"
			note "$ver $v: $(git -C "$wt" log -1 --format='%h %s')"
			FRAGMENTS="$TOP/config/nt.config $TOP/config/stable.config" \
				hbuild "$wt" "$BUILD/stable/$ver/$v-obj" "stable-$ver-$v"
			declare -A sum=()
			for r in $(seq 1 "$runs"); do
				while read -r t g k rc; do
					echo "# $ver $v run $r: $t 1 GiB case $g, count $k, exit $rc"
					sum[$t]="${sum[$t]:-}${sum[$t]:+, }$k"
					if [ $v = fix ]; then
						ok=0; [ "$g" = pass ] && [ "$k" = 0 ] && [ "$rc" = 0 ] && ok=1
						ktap $ok "$ver with the backports, run $r: $t passes on 1 GiB pages" \
							"1 GiB case: $g, count $k, exit $rc" "console log: $logs/stable-$ver-$v-$r.log"
					fi
				done < <(hrun "$BUILD/stable/$ver/$v-obj" "stable-$ver-$v-$r")
			done
			for t in $tests; do
				echo "# $ver $([ $v = base ] && echo "without the backports" || echo "with the backports"): $t counts ${sum[$t]:-none}"
			done
			unset sum
		done
	done
	echo "hugetlb-stable: $pass passed, $fail failed"
	[ "$fail" = 0 ]
	exit
fi

if [ "${MMTESTS_BROKEN:-0}" = 1 ]; then
	f=mm/memory.c
	[ -z "$(tree_dirty)" ] || die "$SRC has uncommitted edits; commit them first"
	grep -q '^static int copy_contig_highpages(' "$SRC/$f" || die "no copy_contig_highpages() in $f"
	trap 'git -C "$SRC" checkout -q -- "$f"; touch "$SRC/$f"' EXIT
	# After each cold batch: flip the first byte of its first source page.
	sed -i '/^static int copy_contig_highpages(/,/^}$/ {
		/^\t\t\t\t\t\t\t  vma, count);$/ a\
		if (cold) {\
			u8 *p = kmap_local_page(folio_page(src, idx));\
\
			p[0] ^= 1;\
			kunmap_local(p);\
		}
	}' "$SRC/$f"
	git -C "$SRC" diff --stat
	git -C "$SRC" diff | grep -q 'p\[0\] ^= 1' || die "the break did not apply"
	mbuild || die "the broken tree did not build (log: $logs/mmtests-build.log)"
	tests=cow mimage || die "the tests did not build (log: $logs/mmtests-sel.log)"
	row=${rows%% *}
	mboot "$row" cold cow || true
	git -C "$SRC" checkout -q -- "$f" && touch "$SRC/$f"
	trap - EXIT
	mbuild || die "the restored tree did not build"
	c=$(cases "$logs/mmtests-$row-cold.log" cow)
	echo "# $row cow, each cold copy batch flipping one byte of its source: $(totals "$c")"
	grep -m5 '^fail ' <<<"$c" | sed 's/^fail /# not ok: /'
	if grep -q '^fail ' <<<"$c"; then
		echo "ok broken_cold_copy_fails_cow (console log: $logs/mmtests-$row-cold.log)"
		exit 0
	fi
	echo "not ok broken_cold_copy_fails_cow"
	exit 1
fi

ok=0
mbuild && ok=1
ktap $ok mmtests_kernel_builds "$(tail -5 "$logs/mmtests-build.log")"
case " $rows" in
*+debian*)
	dok=0
	debian_kernel && grep -qx CONFIG_INIT_ON_ALLOC_DEFAULT_ON=y "$DEBIAN_OBJ/.config" && dok=1
	ktap $dok mmtests_debian_kernel_builds "$(tail -5 "$BUILD/logs/debian-build.log")"
	[ $dok = 1 ] || ok=0 ;;
esac
for o in ADVISE_SYSCALLS PROC_PAGE_MONITOR SWAP ZRAM GUP_TEST THP_SWAP TRANSPARENT_HUGEPAGE HUGETLBFS; do
	grep -qx "CONFIG_$o=y" "$mobj/.config" 2>/dev/null || { ok=0; echo "# CONFIG_$o is not set"; }
done
if [ $ok = 1 ]; then
	ok=0
	mimage && ok=1
	ktap $ok mmtests_build "$(grep -E 'error|warning' "$logs/mmtests-sel.log" | head -5)"
fi
if [ $ok = 0 ]; then
	echo "$pass $((fail + 1)) $skip" >"$res/mmtests.counts"
	echo "mmtests: $pass passed, $((fail + 1)) failed, $skip skipped"
	exit 1
fi

# The off run (nt_stores=off: mainline's clear and copy, whatever the
# vendor) once, on the first row; each row's cold run is judged against it.
offrow=${rows%% *}
for row in $rows; do
	modes=cold
	[ "$row" = "$offrow" ] && modes="cold off"
	for mode in $modes; do
		t0=$(date +%s)
		r=0; mboot "$row" $mode "$tests" || r=1
		l=$logs/mmtests-$row-$mode.log
		# the run is what it says: all cold at 8K, or NT off
		st=$(grep -m1 '^# mmtests: nt_good=' "$l" || true)
		case $mode in
		cold) # the sets its nt_knobs= wrote, as debugfs prints them
			k=$(sed -n 's/.*nt_knobs=\([^ ]*\).*/\1/p' <<<"$cold_args")
			kr=${k#*,}
			want="nt_good=1 ${k:+populate_orders=$(printf '0x%x' "${k%%,*}") copy_orders=$(printf '0x%x' "${kr%%,*}")}" ;;
		off) want='nt_good=0 ' ;;
		esac
		ok=0; [ $r = 0 ] && grep -q "$want" <<<"$st" && ok=1
		ktap $ok "$row $mode boot" "$(tail -3 "$l")" "${st:-no status line}, want $want"
		echo "# $row $mode: $(( $(date +%s) - t0 )) s; ${st#\# mmtests: }"
	done
	for t in $tests; do judge "$row" "$t"; done
	grep -h '^# mmtests: swap\|^# mmtests: [0-9]* hugetlb' "$logs/mmtests-$row-cold.log" | sed "s/^# mmtests:/# $row:/" || true
done

echo "$pass $fail $skip" >"$res/mmtests.counts"
echo "mmtests: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
