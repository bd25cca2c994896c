#!/usr/bin/env bash
# Run checkpatch --strict on every patch of the series; count the patches
# that are clean.
. "$(dirname "$0")/lib.sh"

[ -x "$SRC/scripts/checkpatch.pl" ] || die "no realised tree at $SRC (make realise)"
pass=0 fail=0
for p in $(series_files); do
	out=$(cd "$SRC" && PATH=/usr/bin:$PATH ./scripts/checkpatch.pl --strict -q --showfile "$p" 2>&1) && ok=1 || ok=0
	# checkpatch exits 0 with CHECKs; --strict findings count as failures.
	grep -qE '^(ERROR|WARNING|CHECK):|^[^ ]+:[0-9]+: (ERROR|WARNING|CHECK):' <<<"$out" && ok=0
	if [ $ok = 1 ]; then
		pass=$((pass + 1)); echo "ok $(basename "$p")"
	else
		fail=$((fail + 1)); echo "not ok $(basename "$p")"; sed 's/^/    # /' <<<"$out"
	fi
done
mkdir -p "$BUILD/results"
echo "$pass $fail 0" >"$BUILD/results/checkpatch.counts"
echo "checkpatch: $pass passed, $fail failed"
[ $fail = 0 ]
