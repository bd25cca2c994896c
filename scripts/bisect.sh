#!/usr/bin/env bash
# Build the tree after each patch of the series in turn (bisectability), in
# the realised tree itself (build/linux, checked out commit by commit and
# back to its branch at the end) and the main build folder (build/obj) with
# the main config.
#
# HEAD first: its full build (bzImage) is the main build, which "make
# check" then boots. Then each commit before HEAD in order, built on top of
# it: the series' C, assembly and header files are checked out with their
# HEAD-time modification times put back, and scripts/bisect-plan.py deletes
# the targets to rebuild, from kbuild's .cmd records: at a commit before
# HEAD, those whose source the series changes, those whose source names a
# macro or function the series defines or changes in a header, and files
# generated from one it changes, when a file they are built from differs
# from the commit they were last built at. Every other object keeps its
# build of HEAD, and vmlinux is linked with them at every commit: a commit
# that calls what a later one adds fails to link. Back at HEAD, everything
# built at another commit is rebuilt, and every object must be the same,
# byte for byte, as in the HEAD build before. This replaces a full rebuild
# at each commit that changes a widely included header (five of the
# series', about 400 s each on two cores).
#
# At each commit any new compiler or objtool warning in a file the patch
# touches, or a W=1 warning in a C file it touches, fails it; at HEAD, any
# warning in a file the series touches. A commit that touches only tools/
# or Documentation/ changes nothing in the kernel build: a patch to
# tools/perf builds perf (build/perf, with -Werror, its default), one to the
# mm selftests builds them (kselftest build), one to Documentation/ is
# checked by checkpatch.
. "$(dirname "$0")/lib.sh"

[ -e "$SRC/.git" ] || die "no realised tree at $SRC (make realise)"
[ -z "$(tree_dirty)" ] || die "$SRC has uncommitted edits; commit them first (bisect checks out each commit)"
branch=$(git -C "$SRC" symbolic-ref -q --short HEAD) ||
	die "$SRC is not on a branch (a bisect stopped half-way?): git -C $SRC checkout master"
# Stopped half-way, the branch is checked out with the files' times of now:
# make rebuilds everything that depends on them, and the next run's HEAD
# build rebuilds what the state in build/obj/.bisect says was built
# elsewhere.
trap 'git -C "$SRC" checkout -q "$branch"' EXIT
pass=0 fail=0
# BISECT_BASE=<commit>: only the patches after it (default: the whole series).
from=${BISECT_BASE:-base}
git -C "$SRC" rev-parse -q --verify "$from^{commit}" >/dev/null ||
	die "BISECT_BASE=$from is not a commit of $SRC"
head=$(git -C "$SRC" rev-parse HEAD)
commits=$(git -C "$SRC" rev-list --reverse "$from..HEAD")
[ -n "$commits" ] || die "no patches after $from"
plan() { python3 "$TOP/scripts/bisect-plan.py" "$@"; }
mkdir -p "$BUILD/logs" "$OBJ"
blog=$BUILD/logs/bisect-build.log
stamp=$OBJ/.bisect/stamp

# Build the commit checked out ($1): target $2, targets to rebuild from
# bisect-plan.py's scope $3 (series or all). Sets built and warn.
build_at() {
	local c=$1 target=$2 mode=$3 t dels files f w
	warn="" built=1
	[ -f "$OBJ/.bisect/mtimes" ] && plan restore-mtimes "$SRC" "$OBJ"
	dels=$(plan plan "$SRC" "$OBJ" "$head" "$c" "$mode")
	for t in $dels; do
		rm -f "$OBJ/$t"
	done
	touch "$stamp"
	TARGET=$target "$TOP/scripts/build.sh" 2>"$blog" || built=0
	plan record "$OBJ" "$c" "$head" "$stamp"
	[ $built = 1 ] || return 0
	files=$(git -C "$SRC" diff-tree --no-commit-id --name-only -r "$c" | grep -E '\.(c|h|S)$' || true)
	# At HEAD, the whole series' files: the full build compiled them all.
	[ "$c" = "$head" ] && files=$(git -C "$SRC" diff --name-only base "$head" -- . ':!tools' ':!Documentation' |
		grep -E '\.(c|h|S)$' || true)
	for f in $files; do
		w=$(grep -E "^(\.\./)*([^ ]*/)?$f:[0-9]+:[0-9]+: warning:|$f.*objtool:" "$blog" || true)
		warn="$warn$w"
	done
	# W=1 on the C files the patch touches.
	files=$(git -C "$SRC" diff-tree --no-commit-id --name-only -r "$c" | grep -E '\.c$' || true)
	for f in $files; do
		[ -f "$OBJ/${f%.c}.o" ] || continue
		w=$(kmake -s W=1 "${f%.c}.o" 2>&1 | grep -E 'warning:' || true)
		warn="$warn$w"
	done
	plan record "$OBJ" "$c" "$head" "$stamp"
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
		# Keep the whole log, and print the first errors (with -j the
		# compiler's message can be far above make's last lines).
		local keep=$BUILD/logs/bisect-failed-${1%% *}.log
		{ cat "$blog"; cat "$OBJ/build.log" 2>/dev/null || true; } >"$keep"
		fail=$((fail + 1)); echo "not ok $1 (build failed, ${2}s; log: ${keep#"$TOP"/})"
		{ grep -E 'error:|undefined reference|No rule to make|\*\*\*' "$keep" || tail -20 "$keep"; } |
			awk '!seen[$0]++ && n++ < 20' | sed 's/^/    # /'
	elif [ -z "$warn" ]; then
		pass=$((pass + 1)); echo "ok $1 (built: ${what#nothing in the kernel, }, ${2}s)"
	else
		fail=$((fail + 1)); echo "not ok $1 (warnings, ${2}s)"; sed 's/^/    # /' <<<"$warn"
	fi
}

# 1. HEAD, in full: what a run before left built elsewhere is rebuilt.
t0=$(date +%s)
plan save-mtimes "$SRC" "$OBJ" base "$head"
build_at "$head" bzImage all
head_built=$built head_warn=$warn
# The objects of HEAD's build, to compare with the folder's at the end
# (not the boot image's, which hold vmlinux and its build number).
sums=$OBJ/.bisect/objects.sha1
objsums() {
	(cd "$OBJ" && find . -name '*.o' ! -path './tools/*' ! -path './scripts/*' \
		! -path './arch/x86/boot/*' ! -name '.tmp_*' ! -name 'version-timestamp.o' \
		-print0 | sort -z | xargs -0 sha1sum)
}
objsums >"$sums"
plan scope "$SRC" "$OBJ" base "$head" >&2
head_secs=$(($(date +%s) - t0))

# 2. Each commit before HEAD, on top of it.
for c in $commits; do
	[ "$c" = "$head" ] && continue
	t0=$(date +%s)
	subj=$(git -C "$SRC" log -1 --format='%h %s' "$c")
	git -C "$SRC" checkout -q --detach "$c"
	touched=$(git -C "$SRC" diff-tree --no-commit-id --name-only -r "$c")
	warn="" built=1 what=vmlinux
	if grep -qvE '^(tools|Documentation)/' <<<"$touched"; then
		build_at "$c" vmlinux series
	else
		what="nothing in the kernel"
	fi
	[ $built = 1 ] && tools_at "$c"
	report "$subj" $(($(date +%s) - t0))
done

# 3. Back at HEAD: rebuild what was built at another commit.
t0=$(date +%s)
git -C "$SRC" checkout -q "$branch"
build_at "$head" bzImage all
[ $head_built = 1 ] || built=0
# Rebuilt at HEAD, the folder must hold HEAD's build again.
if [ $built = 1 ]; then
	differ=$(cd "$OBJ" && sha1sum --quiet -c "$sums" 2>/dev/null | sed 's/: FAILED.*//; s/^\.\///' || true)
	[ -z "$differ" ] || warn="$warn objects differ from HEAD's build before the other commits: $(echo $differ)"
fi
warn="$head_warn$warn" what=bzImage
[ $built = 1 ] && tools_at "$head"
report "$(git -C "$SRC" log -1 --format='%h %s' "$head")" $((head_secs + $(date +%s) - t0))

mkdir -p "$BUILD/results"
echo "$pass $fail 0" >"$BUILD/results/bisect.counts"
echo "bisect: $pass passed, $fail failed"
[ $fail = 0 ]
