#!/usr/bin/env bash
# Build the tree after each patch of the series in turn (bisectability), with
# kbuild's own incremental build: each commit from the first patch to HEAD is
# checked out in the realised tree (build/linux; back to its branch at the
# end) and built, as the kernel's build robots bisect. Every commit before
# HEAD is built to vmlinux in its own folder (build/bisect-obj) with the
# bisect config (config/bisect.config: a small kernel that compiles every
# kernel C file the series touches, about half the main config's objects);
# HEAD is built to vmlinux there too, and to bzImage with the main config
# in the main build folder (build/obj), which leaves the build stage after
# it nothing to do.
# git writes every file a checkout changes with the time of now, so make
# rebuilds every target that kbuild's .cmd records say depends on one
# (fixdep lists each header a file includes, and each CONFIG_ symbol it
# tests) and nothing else; vmlinux is linked at every commit, so a commit
# that uses what a later one adds fails to link. ccache (lib.sh: the
# user's cache, depend mode) hands back an object compiled before from the
# same command line, source and headers: a rerun of the stage, or a clean
# clone's on a machine that ran it before, compiles next to nothing.
#
# At each commit any warning in its build log (compiler, objtool, modpost:
# the base builds both configs without one) or a W=1 warning in a C file the
# patch touches fails it, and so does a kernel C file the patch touches that
# the bisect config does not compile (no object newer than the file). A
# commit that touches only tools/ or Documentation/ changes nothing in the
# kernel build: a patch to tools/perf
# builds perf (build/perf, with -Werror, its default), one to the mm
# selftests builds them (kselftest build), one to Documentation/ is checked
# by checkpatch.
#
# Every commit's build log is kept in build/logs/bisect/ (<n>-<hash>.log);
# a failing commit's first error lines are printed under its result.
. "$(dirname "$0")/lib.sh"
[ -e "$SRC/.git" ] || die "no realised tree at $SRC (make realise)"
[ -z "$(tree_dirty)" ] || die "$SRC has uncommitted edits; commit them first (bisect checks out each commit)"
branch=$(git -C "$SRC" symbolic-ref -q --short HEAD) ||
	die "$SRC is not on a branch (a bisect stopped half-way?): git -C $SRC checkout master"
trap 'git -C "$SRC" checkout -q "$branch"' EXIT
pass=0 fail=0
# BISECT_BASE=<commit>: only the patches after it (default: the whole series).
from=${BISECT_BASE:-base}
git -C "$SRC" rev-parse -q --verify "$from^{commit}" >/dev/null ||
	die "BISECT_BASE=$from is not a commit of $SRC"
head=$(git -C "$SRC" rev-parse HEAD)
commits=$(git -C "$SRC" rev-list --reverse "$from..HEAD")
[ -n "$commits" ] || die "no patches after $from"
# BISECT_LOGS: where the per-commit logs go (bisect-broken: its own folder).
logs=${BISECT_LOGS:-$BUILD/logs/bisect}
# BISECT_OBJ: the folder of the commits before HEAD (bisect-broken: its own).
head_obj=$OBJ small_obj=${BISECT_OBJ:-$BUILD/bisect-obj}
rm -rf "$logs"
mkdir -p "$logs" "$head_obj" "$small_obj"

# Build the commit checked out ($1, number $2) to target $3 in folder $4
# with config fragment $5; $6 = 1: each kernel C file the commit touches
# must be compiled there. Sets built, adds to warn, appends to blog.
build_at() {
	local c=$1 target=$3 files f w
	local OBJ=$4
	blog=$logs/$2-$(git -C "$SRC" rev-parse --short "$c").log
	OBJ=$OBJ FRAGMENTS=$5 TARGET=$target "$TOP/scripts/build.sh" >>"$blog" 2>&1 || built=0
	[ -f "$OBJ/build.log" ] && cat "$OBJ/build.log" >>"$blog"
	[ $built = 1 ] || return 0
	w=$(grep -iE 'warning:|objtool:' "$OBJ/build.log" || true)
	[ -z "$w" ] || warn="$warn$w
"
	# W=1 on the C files the patch touches, compiled to assembly (foo.s),
	# all in one make: the same compiler warnings, and foo.o and its .cmd
	# record stay the normal build's (a W=1 foo.o would be compiled again
	# at the next commit, its command line having changed).
	files=$(git -C "$SRC" diff-tree --no-commit-id --name-only --diff-filter=d -r "$c" |
		grep -vE '^(tools|Documentation|scripts|samples|usr)/' | grep -E '\.c$' || true)
	local asm=""
	for f in $files; do
		# Newer than the file, which the checkout wrote: compiled now.
		if [ ! "$OBJ/${f%.c}.o" -nt "$SRC/$f" ]; then
			[ "$6" = 1 ] && warn="$warn$f: not compiled in ${5#"$TOP"/}
"
			continue
		fi
		asm="$asm ${f%.c}.s"
	done
	[ -n "$asm" ] || return 0
	local out
	# One job: once (a clean clone, at the KUnit commit) this make failed
	# with "fixdep: error opening file: arch/x86/lib/.cold_pages_kunit.s.d"
	# and did not again when run alone; two jobs in one make are the only
	# concurrency here, so one job rules it out (the sparse stage runs one
	# job for a race it saw in arch/x86/lib). The cause is not shown.
	# shellcheck disable=SC2086
	out=$(JOBS=1 kmake -s -k W=1 $asm 2>&1) || out="$out
W=1 make of$asm failed (exit $?)"
	printf '%s\n' "$out" >>"$blog"
	w=$(grep -E 'warning:|error:|\*\*\*|W=1 make of' <<<"$out" || true)
	[ -z "$w" ] || warn="$warn$w
"
}

# Perf and the mm selftests, where the commit ($1) touches them. Adds to
# what and warn.
tools_at() {
	local touched
	touched=$(git -C "$SRC" diff-tree --no-commit-id --name-only -r "$1")
	# Patches to perf: perf must build too (with -Werror, its default).
	if grep -qE '^tools/(perf|arch/x86/lib)/' <<<"$touched"; then
		what="$what, perf"
		mkdir -p "$BUILD/perf"
		perf_make "$SRC" "$BUILD/perf" >"$BUILD/logs/bisect-perf.log" 2>&1 ||
			warn="$warn perf build failed: $(tail -5 "$BUILD/logs/bisect-perf.log")"
	fi
	# Patches to the mm selftests: they must build (kselftest build).
	if grep -q '^tools/testing/selftests/mm/' <<<"$touched"; then
		what="$what, selftests/mm"
		OUT_DIR=$BUILD/bisect-selftests "$TOP/scripts/selftests.sh" >"$BUILD/logs/bisect-selftests.log" 2>&1 ||
			warn="$warn selftests build failed: $(tail -5 "$BUILD/logs/bisect-selftests.log")"
	fi
}

report() {	# $1 subject, $2 seconds
	if [ $built = 0 ]; then
		fail=$((fail + 1)); echo "not ok $1 (build failed, ${2}s; log: ${blog#"$TOP"/})"
		# The first errors, not make's last lines: with -j, the compiler's
		# message can be far above them.
		{ grep -E 'error:|undefined reference|No rule to make|\*\*\*' "$blog" || tail -20 "$blog"; } |
			awk '!seen[$0]++ && n++ < 20' | sed 's/^/    # /'
	elif [ -z "$warn" ]; then
		pass=$((pass + 1)); echo "ok $1 (built: ${what#nothing in the kernel, }, ${2}s)"
	else
		fail=$((fail + 1)); echo "not ok $1 (warnings, ${2}s; log: ${blog#"$TOP"/})"
		sed '/^$/d; s/^/    # /' <<<"$warn"
	fi
}

cc0=$(ccache_counts)
i=0
for c in $commits; do
	i=$((i + 1))
	t0=$(date +%s)
	subj=$(git -C "$SRC" log -1 --format='%h %s' "$c")
	if [ "$c" = "$head" ]; then
		git -C "$SRC" checkout -q "$branch"
	else
		git -C "$SRC" checkout -q --detach "$c"
	fi
	touched=$(git -C "$SRC" diff-tree --no-commit-id --name-only -r "$c")
	warn="" built=1 what=vmlinux blog=""
	if [ "$c" = "$head" ]; then
		what="vmlinux (bisect config), bzImage"
		build_at "$c" $i vmlinux "$small_obj" "$TOP/config/bisect.config" 1
		[ $built = 0 ] || build_at "$c" $i bzImage "$head_obj" "$TOP/config/nt.config" 0
	elif grep -qvE '^(tools|Documentation)/' <<<"$touched"; then
		build_at "$c" $i vmlinux "$small_obj" "$TOP/config/bisect.config" 1
	else
		what="nothing in the kernel"
	fi
	[ $built = 1 ] && tools_at "$c"
	report "$subj" $(($(date +%s) - t0))
done
echo "# $(ccache_since "$cc0")"

mkdir -p "$BUILD/results"
echo "$pass $fail 0" >"$BUILD/results/bisect.counts"
echo "bisect: $pass passed, $fail failed"
[ $fail = 0 ]
