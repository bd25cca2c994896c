#!/usr/bin/env bash
# Run checkpatch --strict on every patch of the series (the hugetlb fix
# series in patches/hugetlb/ and its stable backports, the kernel series in
# patches/, the perf series in patches/perf/); count the patches that are
# clean. New files need no MAINTAINERS change when existing entries cover
# them (the series adds no entry of its own): checkpatch's FILE_PATH_CHANGES
# reminder is replaced by a check that get_maintainer.pl finds a subsystem
# other than THE REST for every file a patch adds. UNKNOWN_COMMIT_ID is
# ignored: the realised tree is Debian's tarball with no upstream history,
# so checkpatch cannot look up the upstream commits that a Fixes: tag or a
# message names (it still checks their form, GIT_COMMIT_ID); the ids are
# upstream's (the hugetlb fixes': mainline 14967a9c7d24 and ca1a47cd3f5f).
. "$(dirname "$0")/lib.sh"

[ -x "$SRC/scripts/checkpatch.pl" ] || die "no realised tree at $SRC (make realise)"
# One patch ($1): its report in $2, and $2.ok when it is clean.
check_one() {
	local p=$1 out ok f subs
	out=$(cd "$SRC" && PATH=/usr/bin:$PATH ./scripts/checkpatch.pl --strict -q --showfile \
		--ignore FILE_PATH_CHANGES,UNKNOWN_COMMIT_ID "$p" 2>&1) && ok=1 || ok=0
	# checkpatch exits 0 with CHECKs; --strict findings count as failures.
	grep -qE '^(ERROR|WARNING|CHECK):|^[^ ]+:[0-9]+: (ERROR|WARNING|CHECK):' <<<"$out" && ok=0
	for f in $(awk '/^--- \/dev\/null/ { getline; sub(/^\+\+\+ b\//, ""); print }' "$p"); do
		subs=$(cd "$SRC" && perl scripts/get_maintainer.pl --no-git --no-git-fallback \
			--subsystem --no-email --no-l --no-m --no-r -f "$f" 2>/dev/null | grep -v '^THE REST$' || true)
		if [ -z "$subs" ]; then
			ok=0
			out="$out
$f: no MAINTAINERS entry covers this new file"
		fi
	done
	if [ $ok = 1 ]; then
		echo "ok ${p#"$PATCHES"/}" >"$2"; touch "$2.ok"
	else
		{ echo "not ok ${p#"$PATCHES"/}"; sed 's/^/    # /' <<<"$out"; } >"$2"
	fi
}

# $JOBS patches at a time (each checkpatch.pl is one process), the reports
# printed in the series' order.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
i=0
for p in $(hugetlb_series_files) $(series_files) $(perf_series_files) $(workshop_series_files) $(stable_series_files); do
	i=$((i + 1))
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || true; done
	check_one "$p" "$tmp/$i" &
done
wait
pass=0 fail=0
for k in $(seq 1 $i); do
	cat "$tmp/$k"
	if [ -f "$tmp/$k.ok" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done
mkdir -p "$BUILD/results"
echo "$pass $fail 0" >"$BUILD/results/checkpatch.counts"
echo "checkpatch: $pass passed, $fail failed"
[ $fail = 0 ]
