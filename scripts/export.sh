#!/usr/bin/env bash
# Export the realised tree's commits (base..HEAD) back to patches/ as
# git format-patch output with stable names and contents: the hugetlb fix
# series, the first commits after base, as many as patches/hugetlb/series
# names (HUGETLB_PATCHES=<n> after adding or dropping one), in
# patches/hugetlb/ (for linux-mm and stable: it applies to the base alone);
# the kernel series on top of it in patches/ (with patches/series and a
# cover letter generated from patches/cover-letter.txt); and the perf
# series, the commits on top that touch only tools/perf/, in patches/perf/
# (its own series file and cover letter, from patches/perf/cover-letter.txt),
# since it goes to the perf tree; and the workshop's own patches (test
# knobs, never posted), the last commits, as many as patches/workshop/series
# names (WORKSHOP_PATCHES=<n> after adding or dropping one), in
# patches/workshop/. Each folder's cover letter comes from its
# cover-letter.txt.
. "$(dirname "$0")/lib.sh"

[ -d "$SRC/.git" ] || die "no realised tree at $SRC"
dirty=$(tree_dirty)
[ -z "$dirty" ] || die "$SRC has uncommitted edits; commit them first (git -C $SRC commit), then export:
$dirty"
n=$(git -C "$SRC" rev-list --count base..HEAD)
[ "$n" -gt 0 ] || die "no commits on top of base in $SRC; nothing to export"

# The hugetlb fix series: the first $nh commits after base, an explicit
# boundary (its series file), never guessed from the files a commit touches.
nh=${HUGETLB_PATCHES:-$(hugetlb_series_files | wc -l)}
[ "$nh" -lt "$n" ] || die "the hugetlb series ($nh patches, patches/hugetlb/series) leaves no commit for the kernel series ($n commits)"
hsplit=base
[ "$nh" -gt 0 ] && hsplit=$(git -C "$SRC" rev-list --reverse base..HEAD | sed -n "${nh}p")

# The workshop's patches: the last $nw commits, an explicit boundary too.
nw=${WORKSHOP_PATCHES:-$(workshop_series_files | wc -l)}
[ $((nh + nw)) -lt "$n" ] || die "the hugetlb and workshop patches ($nh + $nw) leave no commit for the kernel series ($n commits)"
wsplit=HEAD~$nw

# The perf series: the longest run of commits below them touching only tools/perf/.
split=$wsplit np=0
for c in $(git -C "$SRC" rev-list "$hsplit".."$wsplit"); do
	git -C "$SRC" diff-tree --no-commit-id --name-only -r "$c" | grep -qv '^tools/perf/' && break
	split=$c^ np=$((np + 1))
done
# ... and no perf-only commit below it.
for c in $(git -C "$SRC" rev-list "$hsplit".."$split"); do
	git -C "$SRC" diff-tree --no-commit-id --name-only -r "$c" | grep -qv '^tools/perf/' ||
		die "$(git -C "$SRC" log -1 --format='%h %s' "$c") touches only tools/perf/: move it to the top, after the kernel series"
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# format_series FROM TO DIR COVER-TEXT BASE-ARGS...
format_series() {
	local from=$1 to=$2 dir=$3 cover_txt=$4 cover=() b=nt-export-$3
	shift 4
	mkdir -p "$tmp/$dir"
	# format-patch takes the cover letter's subject and body from the
	# description of the branch the range ends at: a branch of its own.
	git -C "$SRC" branch -f "$b" "$to"
	if [ -f "$cover_txt" ]; then
		git -C "$SRC" config "branch.$b.description" "$(cat "$cover_txt")"
		cover=(--cover-letter --cover-from-description=subject)
	fi
	git -C "$SRC" -c core.abbrev=12 format-patch -q -o "$tmp/$dir" --zero-commit --no-signature \
		"$@" "${cover[@]}" "$from..$b"
	git -C "$SRC" branch -q -D "$b"
	local range=$from..$to
	# format-patch stamps the cover letter with the current time and the
	# tree's committer; pin them to the last commit's author date and
	# author, so that re-exporting changes nothing, whoever realised the tree.
	if [ -f "$tmp/$dir/0000-cover-letter.patch" ]; then
		d=$(git -C "$SRC" log -1 --format=%aD "${range#*..}")
		a=$(git -C "$SRC" log -1 --format='%an <%ae>' "${range#*..}")
		sed -i -e "0,/^Date: .*/s//Date: $d/" -e "0,/^From: .*/s//From: $a/" \
			-e '/^Message-Id: /d' "$tmp/$dir/0000-cover-letter.patch"
	fi
}
mkdir -p "$PATCHES/hugetlb"
rm -f "$PATCHES"/hugetlb/[0-9][0-9][0-9][0-9]-*.patch
if [ "$nh" -gt 0 ]; then
	format_series base "$hsplit" hugetlb "$PATCHES/hugetlb/cover-letter.txt" --base=base
	cp "$tmp"/hugetlb/*.patch "$PATCHES/hugetlb/"
	(cd "$tmp/hugetlb" && ls [0-9][0-9][0-9][0-9]-*.patch | grep -v '^0000-') >"$PATCHES/hugetlb/series"
else
	: >"$PATCHES/hugetlb/series"
fi
# The kernel series names the hugetlb series as its prerequisite
# (format-patch --base: base-commit and prerequisite-patch-id lines).
format_series "$hsplit" "$split" kernel "$PATCHES/cover-letter.txt" --base=base --subject-prefix="PATCH v7"
rm -f "$PATCHES"/[0-9][0-9][0-9][0-9]-*.patch
cp "$tmp"/kernel/*.patch "$PATCHES/"
(cd "$tmp/kernel" && ls [0-9][0-9][0-9][0-9]-*.patch | grep -v '^0000-') >"$PATCHES/series"

mkdir -p "$PATCHES/perf"
rm -f "$PATCHES"/perf/[0-9][0-9][0-9][0-9]-*.patch
if [ "$np" -gt 0 ]; then
	# The perf patches touch only tools/perf/ and apply to base as well.
	format_series "$split" "$wsplit" perf "$PATCHES/perf/cover-letter.txt"
	cp "$tmp"/perf/*.patch "$PATCHES/perf/"
	(cd "$tmp/perf" && ls [0-9][0-9][0-9][0-9]-*.patch | grep -v '^0000-') >"$PATCHES/perf/series"
else
	: >"$PATCHES/perf/series"
fi
mkdir -p "$PATCHES/workshop"
rm -f "$PATCHES"/workshop/[0-9][0-9][0-9][0-9]-*.patch
if [ "$nw" -gt 0 ]; then
	format_series "$wsplit" HEAD workshop none
	cp "$tmp"/workshop/*.patch "$PATCHES/workshop/"
	(cd "$tmp/workshop" && ls [0-9][0-9][0-9][0-9]-*.patch) >"$PATCHES/workshop/series"
else
	: >"$PATCHES/workshop/series"
fi
note "exported $nh hugetlb patches to patches/hugetlb/, $((n - nh - np - nw)) kernel patches to patches/, $np perf patches to patches/perf/ and $nw workshop patches to patches/workshop/ (base $BASE_VERSION)"
git -C "$TOP" status --short -- patches | sed 's/^/   /' >&2
# Issue 10: the placeholder identity cannot be applied by a maintainer (the
# DCO names a person who certifies it). Say so while it is the author.
if grep -lq 'nt-stores@example.org' "$PATCHES"/[0-9]*.patch "$PATCHES"/hugetlb/[0-9]*.patch \
	"$PATCHES"/perf/[0-9]*.patch 2>/dev/null; then
	note "reminder: From: and Signed-off-by: are the placeholder 'NT Stores Team <nt-stores@example.org>'; whoever posts replaces them with their own identity and sign-off (README.md, Posting)"
fi
