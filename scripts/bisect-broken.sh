#!/usr/bin/env bash
# Shows that the bisect stage fails a commit that uses what a later commit
# adds: a throwaway branch of the series (bisect-broken, in the realised
# tree itself, built in folders of its own) with a
# commit after patch 1 that calls nt_broken() from mm/page_alloc.c, and a
# last commit that defines it in arch/x86/kernel/cpu/nt_quirks.c.
# scripts/bisect.sh on it must fail that commit and every one after it up
# to the last (vmlinux does not link: undefined nt_broken), and pass patch
# 1 and the last. The branch is the realised tree's; the kernel build
# folders of the stage are not touched (build/bisect-broken-small has the
# bisect config's commits, build/bisect-broken-head the last one's main
# config, both at the depth of the stage's own folders, so that the
# compiler cache, whose keys hold paths relative to the build folder
# (lib.sh), serves them; perf and the selftests build in their usual folders, and the
# selftests' uapi headers, the same at every commit, are build/obj's), and the tree
# is back on its branch at the end (kbuild rebuilds there what the
# checkouts changed). The branch and the build folder are removed at the
# end (the log stays in build/logs/bisect-broken.log).
. "$(dirname "$0")/lib.sh"

[ -d "$SRC/.git" ] || die "no realised tree at $SRC (make realise)"
[ -z "$(tree_dirty)" ] || die "$SRC has uncommitted edits; commit them first"
branch=$(git -C "$SRC" symbolic-ref -q --short HEAD) || die "$SRC is not on a branch"
[ "$branch" != bisect-broken ] ||
	die "$SRC is on bisect-broken (a run stopped half-way?): git -C $SRC checkout master"
bobj=$BUILD/bisect-broken	# -small, -head
log=$BUILD/logs/bisect-broken.log
mkdir -p "$BUILD/logs"
cleanup() {
	git -C "$SRC" checkout -q -f "$branch"
	git -C "$SRC" branch -q -D bisect-broken 2>/dev/null || true
	rm -rf "$bobj-small" "$bobj-head"
}
git -C "$SRC" branch -q -D bisect-broken 2>/dev/null || true
rm -rf "$bobj-small" "$bobj-head"
trap cleanup EXIT

# The kernel patches of the series (not tools/ or Documentation/ only).
kernel=()
for c in $(git -C "$SRC" rev-list --reverse base..HEAD); do
	git -C "$SRC" diff-tree --no-commit-id --name-only -r "$c" |
		grep -qvE '^(tools|Documentation)/' && kernel+=("$c")
done
[ ${#kernel[@]} -ge 3 ] || die "too few kernel patches to show it"
last=${kernel[-1]}
wt=$SRC
git -C "$wt" checkout -q -b bisect-broken "${kernel[0]}"
g() { git -C "$wt" -c user.name=bisect-broken -c user.email=bisect-broken@invalid "$@"; }
cat >>"$wt/mm/page_alloc.c" <<'EOF'

void nt_broken(void);

static int __init nt_broken_call(void)
{
	nt_broken();
	return 0;
}
late_initcall(nt_broken_call);
EOF
g commit -q -a -m "broken: call nt_broken(), which a later commit defines"
g cherry-pick "${kernel[0]}..$last" >/dev/null
cat >>"$wt/arch/x86/kernel/cpu/nt_quirks.c" <<'EOF'

void nt_broken(void);
void nt_broken(void)
{
}
EOF
g commit -q -a -m "broken: define nt_broken()"

counts=$BUILD/results/bisect.counts
[ -f "$counts" ] && cp "$counts" "$counts.keep"
OBJ=$bobj-head BISECT_OBJ=$bobj-small BISECT_LOGS=$BUILD/logs/bisect-broken "$TOP/scripts/bisect.sh" >"$log" 2>&1 || true
if [ -f "$counts.keep" ]; then mv "$counts.keep" "$counts"; else rm -f "$counts"; fi
cat "$log"
# Expected: patch 1 and the last commit pass, every commit between that
# touches the kernel fails to build, with nt_broken undefined (a commit
# of tools/ or Documentation/ only, a selftest's, builds no vmlinux).
n=$(git -C "$wt" rev-list --count base..HEAD)
want=-2
for c in $(git -C "$wt" rev-list base..HEAD); do
	git -C "$wt" diff-tree --no-commit-id --name-only -r "$c" |
		grep -qvE '^(tools|Documentation)/' && want=$((want + 1))
done
got=$(grep -c '^not ok .* (build failed' "$log" || true)
ok=0
if grep -q "^ok $(git -C "$wt" log -1 --format=%h "${kernel[0]}") " "$log" &&
	grep -q "^ok $(git -C "$wt" log -1 --format=%h HEAD) " "$log" &&
	[ "$got" = "$want" ] && grep -q "undefined reference to .nt_broken'" "$log"; then
	ok=1
fi
if [ $ok = 1 ]; then
	echo "ok bisect_fails_a_commit_that_uses_a_later_one ($got of $n commits failed to link, as they should)"
else
	echo "not ok bisect_fails_a_commit_that_uses_a_later_one ($got commits failed, $want expected; log: $log)"
	exit 1
fi
