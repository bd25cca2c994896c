#!/usr/bin/env bash
# stable-tree.sh <6.1|6.12>: Debian 12's kernel source of that series as a
# git tree for make hugetlb-stable, and its path on stdout:
# build/stable/<v>/linux, one commit of linux-source-<v> (bookworm-security,
# the version in patches/hugetlb/stable-<v>/debian-version) tagged base,
# and branch fix: base + the backports in patches/hugetlb/stable-<v>/
# (their series file), applied with git am. A tree already there at that
# version is reused; branch fix is rebuilt from the patches every time.
. "$(dirname "$0")/lib.sh"

ver=${1:?usage: stable-tree.sh <6.1|6.12>}
pdir=$PATCHES/hugetlb/stable-$ver
[ -f "$pdir/series" ] && [ -f "$pdir/debian-version" ] || die "no backports for $ver ($pdir/series, $pdir/debian-version)"
debver=$(cat "$pdir/debian-version")
pkg=linux-source-$ver
dir=$BUILD/stable/$ver
repo=$dir/linux
mkdir -p "$dir"

if [ ! -d "$repo/.git" ] || [ "$(git -C "$repo" config --get nt.debver || true)" != "$debver" ]; then
	deb=$(ls "$dir/${pkg}_${debver}_all.deb" 2>/dev/null || true)
	if [ -z "$deb" ]; then
		note "$pkg $debver: apt-get download"
		have=$(apt-cache madison "$pkg" 2>/dev/null | awk -F'|' '{gsub(/ /, "", $2); print $2}')
		grep -qxF "$debver" <<<"$have" ||
			die "$pkg $debver ($pdir/debian-version) is not in this machine's archive; it has: $(echo $have)"
		(cd "$dir" && apt-get -qq download "$pkg=$debver") >"$dir/download.log" 2>&1 ||
			die "apt-get download $pkg=$debver failed: $(tail -n 3 "$dir/download.log")"
		deb=$(ls "$dir"/"${pkg}"_*_all.deb | head -n 1)
	fi
	note "unpacking $(basename "$deb")"
	rm -rf "$repo" "$dir/x"
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$dir" --one-top-level=x --wildcards '*.tar.xz'
	tar -xJf "$dir"/x/usr/src/"$pkg".tar.xz -C "$dir"
	mv "$dir/$pkg" "$repo"
	rm -rf "$dir/x"
	# Debian's .gitignore ignores the whole tree ("/*", "!/debian/")
	sed -i -e '\|^/\*$|d' -e '\|^!/debian/$|d' "$repo/.gitignore"
	git -C "$repo" init -q -b base-branch
	git -C "$repo" config user.name "${GIT_AUTHOR_NAME:-NT Workshop}"
	git -C "$repo" config user.email "${GIT_AUTHOR_EMAIL:-nt-workshop@localhost}"
	git -C "$repo" config gc.auto 0
	git -C "$repo" add -A
	git -C "$repo" commit -q -m "base: Linux $(make -s -C "$repo" kernelversion) ($pkg $debver)"
	git -C "$repo" tag -f base >/dev/null
	git -C "$repo" config nt.debver "$debver"
fi

# Branch fix, from the patches as they are now
git -C "$repo" am --abort >/dev/null 2>&1 || true
git -C "$repo" worktree prune
git -C "$repo" checkout -q --detach base
git -C "$repo" branch -q -f fix base
git -C "$repo" checkout -q fix
for p in $(series_of "$pdir"); do
	git -C "$repo" am -q "$p" >"$dir/am.log" 2>&1 ||
		{ git -C "$repo" am --abort >/dev/null 2>&1 || true; die "$(basename "$p") does not apply to $pkg $debver: $(head -n 5 "$dir/am.log")"; }
done
git -C "$repo" checkout -q --detach base
note "$pkg $debver: base and fix ($(git -C "$repo" rev-list --count base..fix) backports)"
echo "$repo"
