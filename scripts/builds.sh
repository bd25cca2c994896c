#!/usr/bin/env bash
# The series on other architectures, as the build robots build it:
#  - i386 (ARCH=i386): tinyconfig + config/i386.config (HUGETLBFS),
#    $I386_TARGETS (default: the directories the series touches,
#    arch/x86/{kernel/cpu,mm,lib}/ and mm/; I386_TARGETS=vmlinux links the
#    whole kernel, 4 more minutes on 2 cores);
#  - arm64 (Debian's gcc-aarch64-linux-gnu): tinyconfig + config/arm64.config
#    (THP, HUGETLBFS), $ARM64_TARGETS (default: mm/, the generic code the
#    series changes, with the generic fallbacks of highmem.h).
# Each: it builds; no compiler warning in a file the series touches; no
# object built refers to a symbol of the series' 64-bit code (what would
# fail the link: the cpu.h stubs, the generic fallbacks); and the
# cold path compiles away: mm/memory.o has none of its functions and the
# text of the base's mm/memory.c built beside it with the same flags (as
# mm/memory__ntbase.o), less folio_zero_user_cold() (folio_zero_user()
# there), give or take $TEXT_SLACK bytes (default 32: folio_zero_user(),
# whose ranges now come from folio_fault_ranges(), compiles a few bytes
# differently, and GCC may outline a helper differently; the functions
# that differ are listed).
. "$(dirname "$0")/lib.sh"

[ -d "$SRC/.git" ] || die "no realised tree at $SRC (make realise)"
res=$BUILD/results
mkdir -p "$res" "$BUILD/logs"
pass=0 fail=0 n=0
touched=$(git -C "$SRC" diff --name-only base..HEAD -- '*.c' '*.h' '*.S' | grep -v '^tools/' || true)
slack=${TEXT_SLACK:-32}

build_arch() { # build_arch <arch> <cross prefix> <fragment> <targets>
	local arch=$1 cross=$2 frag=$3 targets=$4 obj=$BUILD/$1-obj log ok w f opt val got
	local amake=(make -C "$SRC" O="$obj" ARCH="$arch" CROSS_COMPILE="$cross" -j"$JOBS")
	log=$BUILD/logs/builds-$arch.log
	mkdir -p "$obj"
	note "builds: $arch: $targets"
	ok=1
	{ "${amake[@]}" -s tinyconfig &&
		(cd "$SRC" && ARCH=$arch scripts/kconfig/merge_config.sh -m -O "$obj" "$obj/.config" "$frag") &&
		"${amake[@]}" -s olddefconfig; } >"$log" 2>&1 || ok=0
	while IFS= read -r line; do
		case "$line" in CONFIG_*=*) ;; *) continue ;; esac
		opt=${line%%=*} val=${line#*=}
		got=$(grep -E "^$opt=" "$obj/.config" | cut -d= -f2- || true)
		[ "$val" = n ] && [ -z "$got" ] && continue
		[ "$got" = "$val" ] || { ok=0; echo "  $arch: $opt wanted $val, got ${got:-unset}" >>"$log"; }
	done <"$frag"
	# shellcheck disable=SC2086
	[ $ok = 1 ] && { "${amake[@]}" $targets >>"$log" 2>&1 || ok=0; }
	ktap $ok "${arch}_builds" "$(grep -E 'error|wanted' "$log" | head -5)"
	[ $ok = 1 ] || return 0
	w=""
	for f in $touched; do
		w="$w$(grep -E "(^|/)$f:[0-9]+:[0-9]+: warning:" "$log" || true)"
	done
	ktap "$([ -z "$w" ] && echo 1 || echo 0)" "${arch}_no_warning_in_the_series_files" "$w"
	local und="" d o
	for d in $targets; do
		[ -d "$obj/${d%/}" ] || continue
		for o in $(find "$obj/${d%/}" -name '*.o' ! -name '*.mod.o'); do
			u=$("${cross}nm" -u "$o" 2>/dev/null | awk '{print $2}' |
				grep -E '^(nt_|x86_(populate|copy)_cold_orders|clear_pages_cold|copy_mc_pages_cold|(__)?copy_mc_movnti|__clear_pages_(movnti|clzero))' || true)
			[ -z "$u" ] || und="$und ${o#"$obj"/}: $(echo $u)"
		done
	done
	[ "$targets" = vmlinux ] && und=""	# linked: the link itself checked it
	ktap "$([ -z "$und" ] && echo 1 || echo 0)" "${arch}_no_reference_to_the_series_64_bit_code" "$und"

	# The cold path compiles away: no function of it in mm/memory.o, and
	# the same text as the base's mm/memory.c built with the same flags.
	git -C "$SRC" show base:mm/memory.c >"$SRC/mm/memory__ntbase.c"
	local built=1
	"${amake[@]}" mm/memory.o mm/memory__ntbase.o >>"$log" 2>&1 || built=0
	rm -f "$SRC/mm/memory__ntbase.c"
	local syms hs bs diff
	syms=$("${cross}nm" "$obj/mm/memory.o" 2>/dev/null |
		grep -E ' (copy_user_large_folio_cold|copy_contig_highpages|clear_user_highpages_cold|copy_mc_user_highpages_cold)$' || true)
	hs=$("${cross}size" -A "$obj/mm/memory.o" 2>/dev/null | awk '$1 == ".text" {print $2}')
	bs=$("${cross}size" -A "$obj/mm/memory__ntbase.o" 2>/dev/null | awk '$1 == ".text" {print $2}')
	# name and size of each function (numbered switch tables left out)
	funcs() { "${cross}nm" -S "$1" 2>/dev/null | awk '$3 ~ /^[tT]$/ {print $4, $2}' |
		while read -r name size; do echo "$name $((16#$size))"; done | sort; }
	diff=$(diff <(funcs "$obj/mm/memory__ntbase.o") <(funcs "$obj/mm/memory.o") |
		sed -n 's/^< /base: /p; s/^> /head: /p' || true)
	rm -f "$obj/mm/memory__ntbase.o" "$obj/mm/.memory__ntbase.o.cmd"
	# folio_zero_user_cold() is there, as folio_zero_user() (its cold leg
	# gone): its size is not the cold path's
	local zc
	zc=$("${cross}nm" -S "$obj/mm/memory.o" 2>/dev/null | awk '$4 == "folio_zero_user_cold" {print $2}')
	[ -z "$hs" ] || hs=$((hs - 16#${zc:-0}))
	ok=0
	[ $built = 1 ] && [ -z "$syms" ] && [ -n "$hs" ] && [ -n "$bs" ] &&
		[ $((hs - bs)) -le "$slack" ] && [ $((bs - hs)) -le "$slack" ] && ok=1
	ktap $ok "${arch}_cold_path_compiles_away (mm/memory.o .text $hs bytes, base $bs; $(tr '\n' ';' <<<"$diff"))" "$syms"
}

build_arch i386 "" "$TOP/config/i386.config" "${I386_TARGETS:-arch/x86/kernel/cpu/ arch/x86/mm/ arch/x86/lib/ mm/}"
command -v aarch64-linux-gnu-gcc >/dev/null ||
	die "no aarch64-linux-gnu-gcc (make deps installs gcc-aarch64-linux-gnu)"
build_arch arm64 aarch64-linux-gnu- "$TOP/config/arm64.config" "${ARM64_TARGETS:-mm/}"

echo "$pass $fail 0" >"$res/builds.counts"
echo "builds: $pass passed, $fail failed"
[ $fail = 0 ]
