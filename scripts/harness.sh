#!/usr/bin/env bash
# Run the realised tree's clear_page_64.S and copy_mc_64.S on this CPU, from
# userspace (harness/), called as the kernel calls them: correctness with
# guard pages for every routine, and the publish-after-routine ordering test
# (ORDER_TRIALS, 10^6 by default) for each non-temporal routine, with its
# own SFENCE only, and a control that must see stale data; then test 100:
# the harness's policy decision (the tree's nt_parts.c and its nt_decide(),
# included) for the synthetic CPUs of the KUnit suite's nt_decide_test is the
# one the suite expects.
. "$(dirname "$0")/lib.sh"

[ -d "$SRC/.git" ] || die "no realised tree at $SRC (make realise)"
out=$BUILD/harness
make -s -C "$TOP/harness" KSRC="$SRC" OUT="$out" >&2 || die "harness build failed"
log=$BUILD/logs/harness.log
mkdir -p "$BUILD/logs" "$BUILD/results"
rc=0
{
	grep -E '^(model name|cpu family|model|stepping|flags)[[:space:]]*:' /proc/cpuinfo | sort -u |
		sed -e 's/^/# /' -e 's/\(flags.\{200\}\).*/\1 .../'
	"$out/clearpage" correct && "$out/clearpage" order -n "${ORDER_TRIALS:-1000000}"
} >"$log" 2>&1 || rc=1
# The harness decides with the tree's own nt_parts.c (harness/routines.h
# includes it): its decision must be what the kernel's KUnit suite expects
# of nt_decide() for each synthetic CPU of nt_decide_test's NT_CASE() lines
# (nt_stores_test.c), those without nt_stores=off or clearcpuid=. Each line:
# NT_CASE(vendor, family, model, stepping, clzero, line, off, cleared,
#         clear, clear_order, copy_order, reason, part)
kt=$SRC/arch/x86/kernel/cpu/nt_stores_test.c
cases=$(awk '
	/^[[:space:]]*NT_CASE\(/ {
		l = $0; sub(/^[[:space:]]*NT_CASE\(/, "", l); sub(/\),?[[:space:]]*$/, "", l)
		n = split(l, q, "\"")
		split(q[1], f, /,[[:space:]]*/)
		if (f[7] != "0" || f[8] != "0") next
		part = n >= 5 ? " " q[4] : ""
		print f[1] " " f[2] " " f[3] " " f[4] " " f[5] " " f[6] "|" f[9] " " f[10] " " f[11] " " q[2] part
	}' "$kt" 2>/dev/null || true)
nc=0 bad=""
while IFS='|' read -r c w; do
	[ -n "$c" ] || continue
	nc=$((nc + 1))
	# shellcheck disable=SC2086
	g=$("$out/clearpage" policy -k $c 2>&1) || g="error: $g"
	[ "$g" = "$w" ] || bad="$bad
# $c: the harness decides '$g', nt_stores_test.c expects '$w'"
done <<<"$cases"
if [ $nc -ge 10 ] && [ -z "$bad" ]; then
	echo "ok 100 harness_policy_as_kunit" >>"$log"
	echo "# $nc cases of nt_decide_test: the harness's decision is the one expected" >>"$log"
else
	echo "not ok 100 harness_policy_as_kunit" >>"$log"
	[ $nc -ge 10 ] || echo "# only $nc cases read from $kt (want at least 10): has nt_decide_test's layout changed?" >>"$log"
	[ -z "$bad" ] || echo "${bad#?}" >>"$log"
fi
cat "$log"
read -r p f s < <(awk '
	/^ok [0-9]+ .*# SKIP/ { s++; next }
	/^ok [0-9]+ / { p++ }
	/^not ok [0-9]+ / { f++ }
	END { printf "%d %d %d\n", p, f, s }' "$log")
# A harness that crashed part-way reports fewer results than it planned.
[ $rc = 0 ] || [ "$f" -gt 0 ] || f=1
echo "$p $f $s" >"$BUILD/results/harness.counts"
echo "harness: $p passed, $f failed, $s skipped"
[ "$f" = 0 ]
