#!/usr/bin/env bash
# Issue 28's two size limits on the NT series (patches/series, between the
# hugetlb fix series and the perf series): at most 2,000 insertions by
# `git diff --shortstat`, and at most 20 deletions, over all its patches, of
# lines that an earlier patch of the series added (git blame of each
# deleted line in the patch's parent). Prints KTAP and one count line.
. "$(dirname "$0")/lib.sh"

[ -d "$SRC/.git" ] || die "no realised tree at $SRC (make realise)"
nh=$(hugetlb_series_files | wc -l) nk=$(series_files | wc -l)
all=$(git -C "$SRC" rev-list --reverse base..HEAD)
first=$(sed -n "$((nh + 1))p" <<<"$all") last=$(sed -n "$((nh + nk))p" <<<"$all")
[ -n "$first" ] && [ -n "$last" ] || die "cannot find the NT series in $SRC"
from=$first^
nt=$(git -C "$SRC" rev-list "$from..$last")
total=0 lines=""
for c in $(git -C "$SRC" rev-list --reverse "$from..$last"); do
	n=0
	while read -r f; do
		[ -n "$f" ] || continue
		for r in $(git -C "$SRC" diff -U0 "$c^" "$c" -- "$f" |
			sed -n 's/^@@ -\([0-9]*\)\(,\([0-9]*\)\)\? .*/\1,\3/p'); do
			s=${r%,*} k=${r#*,}
			[ -z "$k" ] && k=1
			[ "$k" = 0 ] && continue
			for src in $(git -C "$SRC" blame -l -L "$s,+$k" "$c^" -- "$f" | cut -c1-40); do
				grep -q "^$src" <<<"$nt" && n=$((n + 1))
			done
		done
	done < <(git -C "$SRC" diff --name-only "$c^" "$c")
	total=$((total + n))
	lines="$lines# $(git -C "$SRC" log -1 --format=%s "$c"): $n
"
done
ins=$(git -C "$SRC" diff --shortstat "$from" "$last" | sed -n 's/.* \([0-9]*\) insertion.*/\1/p')
echo "KTAP version 1"
echo "1..2"
p=0 f=0
if [ "${ins:-99999}" -le 2000 ]; then echo "ok 1 nt_series_insertions_at_most_2000"; p=$((p + 1))
else echo "not ok 1 nt_series_insertions_at_most_2000"; f=$((f + 1)); fi
echo "# $(git -C "$SRC" diff --shortstat "$from" "$last")"
if [ "$total" -le 20 ]; then echo "ok 2 deletions_of_earlier_series_lines_at_most_20"; p=$((p + 1))
else echo "not ok 2 deletions_of_earlier_series_lines_at_most_20"; f=$((f + 1)); fi
printf '%s' "$lines"
echo "# total: $total"
mkdir -p "$BUILD/results"
echo "$p $f 0" >"$BUILD/results/series-size.counts"
echo "series-size: $p passed, $f failed, 0 skipped"
[ "$f" = 0 ]
