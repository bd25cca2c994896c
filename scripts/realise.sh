#!/usr/bin/env bash
# Realise the series: unpack the base tree into $SRC as a git repository
# (one commit tagged 'base'), then apply the series with git am: the
# hugetlb fix series (patches/hugetlb/series) first, then patches/series,
# then patches/perf/series, then the workshop's own patches/workshop/series.
# Refuses to touch a tree that holds work not yet exported to patches/.
. "$(dirname "$0")/lib.sh"

BASE_TARBALL=$("$TOP/scripts/base.sh") || exit 1
pkgver=$BASE_VERSION
refreshed=$BASE_VERSION

if [ -d "$SRC/.git" ]; then
	git -C "$SRC" rev-parse -q --verify refs/tags/base >/dev/null ||
		die "$SRC is a git tree without a 'base' tag; move it away"
	dirty=$(tree_dirty)
	[ -z "$dirty" ] || die "$SRC has uncommitted edits; commit them and 'make export', or discard them, before realising again:
$dirty"
	lost=$(unexported_commits)
	[ -z "$lost" ] || die "$SRC holds commits not exported to patches/; run 'make export' (or drop them) first:
$lost"
	# Same base and every commit already exported: is HEAD the series?
	want=$( (hugetlb_series_files; series_files; perf_series_files; workshop_series_files) | wc -l)
	have=$(git -C "$SRC" rev-list --count base..HEAD)
	[ "$(git -C "$SRC" config --get nt.basepkg || true)" = "$pkgver" ] ||
		die "$SRC is based on $BASE_PKG $(git -C "$SRC" config --get nt.basepkg), patches/ on $pkgver: 'make distclean' first"
	if [ "$want" = "$have" ]; then
		note "kernel tree is up to date ($have patches on $pkgver)"
		exit 0
	fi
	note "re-applying the series onto base"
	git -C "$SRC" am --abort >/dev/null 2>&1 || true
	git -C "$SRC" reset -q --hard base
else
	[ -e "$SRC" ] && die "$SRC exists but is not a realised tree; move it away"
	note "unpacking $BASE_TARBALL ($BASE_PKG $pkgver)"
	mkdir -p "$BUILD"
	tmp=$(mktemp -d "$BUILD/unpack.XXXXXX")
	tar -xf "$BASE_TARBALL" -C "$tmp"
	mv "$tmp"/linux-source-* "$SRC"
	rmdir "$tmp"
	[ -f "$SRC/Makefile" ] || die "$BASE_TARBALL holds no kernel tree"
	# Debian's .gitignore ignores the whole tree ("/*", "!/debian/") and
	# lacks upstream's exceptions for the dot-files the kernel tracks
	# (.gitignore files among them): drop the former, restore the latter.
	sed -i -e '\|^/\*$|d' -e '\|^!/debian/$|d' "$SRC/.gitignore"
	grep -qx '!.gitignore' "$SRC/.gitignore" || cat >>"$SRC/.gitignore" <<-'EOF'

	# We don't want to ignore the following even if they are dot-files
	!.clang-format
	!.clippy.toml
	!.cocciconfig
	!.editorconfig
	!.get_maintainer.ignore
	!.gitattributes
	!.gitignore
	!.kunitconfig
	!.mailmap
	!.rustfmt.toml
	EOF
	kver=$(make -s -C "$SRC" kernelversion)
	git -C "$SRC" init -q -b master
	git -C "$SRC" config user.name "${GIT_AUTHOR_NAME:-NT Workshop}"
	git -C "$SRC" config user.email "${GIT_AUTHOR_EMAIL:-nt-workshop@localhost}"
	git -C "$SRC" config core.autocrlf false
	git -C "$SRC" config gc.auto 0
	git -C "$SRC" add -A
	# One identity and date for the base commit, so that its hash (the
	# exported patches' base-commit: line) is the same on every machine.
	GIT_AUTHOR_NAME="NT Workshop" GIT_AUTHOR_EMAIL=nt-workshop@localhost \
		GIT_COMMITTER_NAME="NT Workshop" GIT_COMMITTER_EMAIL=nt-workshop@localhost \
		GIT_AUTHOR_DATE="@0 +0000" GIT_COMMITTER_DATE="@0 +0000" \
		git -C "$SRC" commit -q -m "base: Linux $kver ($BASE_PKG $pkgver)"
	git -C "$SRC" tag base
fi
git -C "$SRC" config nt.basepkg "$pkgver"

for p in $(hugetlb_series_files) $(series_files) $(perf_series_files) $(workshop_series_files); do
	if ! out=$(git -C "$SRC" am -q --3way "$p" 2>&1); then
		files=$(grep -E '^(error: patch failed|CONFLICT|error: .*: does not match|error: .*does not exist)' <<<"$out" | head -5)
		git -C "$SRC" am --abort >/dev/null 2>&1 || true
		git -C "$SRC" reset -q --hard base
		die "$(basename "$p") does not apply to $BASE_PKG $pkgver
${files:-$out}
The tree was left at 'base'; refresh the series against this base."
	fi
done
note "realised $SRC: $(git -C "$SRC" rev-list --count base..HEAD) patches on $(git -C "$SRC" log -1 --format=%s base)"
