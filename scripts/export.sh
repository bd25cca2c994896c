#!/usr/bin/env bash
# Export the realised tree's commits (base..HEAD) back to patches/ as
# git format-patch output with stable names and contents: the kernel series
# in patches/ (with patches/series and a cover letter generated from
# patches/cover-letter.txt), and the perf series, the commits on top that
# touch only tools/perf/, in patches/perf/ (its own series file and cover
# letter, from patches/perf/cover-letter.txt), since it goes to the perf tree.
. "$(dirname "$0")/lib.sh"

[ -d "$SRC/.git" ] || die "no realised tree at $SRC"
dirty=$(tree_dirty)
[ -z "$dirty" ] || die "$SRC has uncommitted edits; commit them first (git -C $SRC commit), then export:
$dirty"
n=$(git -C "$SRC" rev-list --count base..HEAD)
[ "$n" -gt 0 ] || die "no commits on top of base in $SRC; nothing to export"

# The perf series: the longest run of commits at the top touching only tools/perf/.
split=HEAD np=0
for c in $(git -C "$SRC" rev-list base..HEAD); do
	git -C "$SRC" diff-tree --no-commit-id --name-only -r "$c" | grep -qv '^tools/perf/' && break
	split=$c^ np=$((np + 1))
done
# ... and no perf-only commit below it.
for c in $(git -C "$SRC" rev-list base.."$split"); do
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
	# format-patch stamps the cover letter with the current time; pin it to
	# the last commit's author date so that re-exporting changes nothing.
	if [ -f "$tmp/$dir/0000-cover-letter.patch" ]; then
		d=$(git -C "$SRC" log -1 --format=%aD "${range#*..}")
		sed -i -e "0,/^Date: .*/s//Date: $d/" -e '/^Message-Id: /d' "$tmp/$dir/0000-cover-letter.patch"
	fi
}
format_series base "$split" kernel "$PATCHES/cover-letter.txt" --base=base --subject-prefix="PATCH v3"
rm -f "$PATCHES"/[0-9][0-9][0-9][0-9]-*.patch
cp "$tmp"/kernel/*.patch "$PATCHES/"
(cd "$tmp/kernel" && ls [0-9][0-9][0-9][0-9]-*.patch | grep -v '^0000-') >"$PATCHES/series"

mkdir -p "$PATCHES/perf"
rm -f "$PATCHES"/perf/[0-9][0-9][0-9][0-9]-*.patch
if [ "$np" -gt 0 ]; then
	# The perf patches touch only tools/perf/ and apply to base as well.
	format_series "$split" HEAD perf "$PATCHES/perf/cover-letter.txt"
	cp "$tmp"/perf/*.patch "$PATCHES/perf/"
	(cd "$tmp/perf" && ls [0-9][0-9][0-9][0-9]-*.patch | grep -v '^0000-') >"$PATCHES/perf/series"
else
	: >"$PATCHES/perf/series"
fi
note "exported $((n - np)) kernel patches to patches/ and $np perf patches to patches/perf/ (base $BASE_VERSION)"
git -C "$TOP" status --short -- patches | sed 's/^/   /' >&2
