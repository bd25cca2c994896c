#!/usr/bin/env bash
# Export the realised tree's commits (base..HEAD) back to patches/ as
# git format-patch output with stable names and contents, plus the series
# file and a cover letter generated from patches/cover-letter.txt.
. "$(dirname "$0")/lib.sh"

[ -d "$SRC/.git" ] || die "no realised tree at $SRC"
dirty=$(tree_dirty)
[ -z "$dirty" ] || die "$SRC has uncommitted edits; commit them first (git -C $SRC commit), then export:
$dirty"
n=$(git -C "$SRC" rev-list --count base..HEAD)
[ "$n" -gt 0 ] || die "no commits on top of base in $SRC; nothing to export"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cover=()
if [ -f "$PATCHES/cover-letter.txt" ]; then
	# format-patch takes the cover letter's subject and body from the
	# branch description.
	br=$(git -C "$SRC" symbolic-ref --short HEAD)
	git -C "$SRC" config "branch.$br.description" "$(cat "$PATCHES/cover-letter.txt")"
	cover=(--cover-letter --cover-from-description=subject)
fi
git -C "$SRC" -c core.abbrev=12 format-patch -q -o "$tmp" --zero-commit --no-signature \
	--base=base "${cover[@]}" base..HEAD
# format-patch stamps the cover letter with the current time; pin it to the
# last commit's author date so that re-exporting changes nothing.
if [ -f "$tmp/0000-cover-letter.patch" ]; then
	d=$(git -C "$SRC" log -1 --format=%aD HEAD)
	sed -i -e "0,/^Date: .*/s//Date: $d/" -e '/^Message-Id: /d' "$tmp/0000-cover-letter.patch"
fi
rm -f "$PATCHES"/[0-9][0-9][0-9][0-9]-*.patch
cp "$tmp"/*.patch "$PATCHES/"
(cd "$tmp" && ls [0-9][0-9][0-9][0-9]-*.patch | grep -v '^0000-') >"$PATCHES/series"
note "exported $n patches to patches/ (base $(cat "$PATCHES/base-version"))"
git -C "$TOP" status --short -- patches | sed 's/^/   /' >&2
