#!/usr/bin/env bash
# Run the realised tree's clear_page_64.S and copy_mc_64.S on this CPU, from
# userspace (harness/), called as the kernel calls them: correctness with
# guard pages for every routine, and the publish-after-routine ordering test
# (ORDER_TRIALS, 10^6 by default) for each non-temporal routine, with its
# own SFENCE only, and a control that must see stale data.
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
