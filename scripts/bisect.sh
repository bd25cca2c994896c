#!/usr/bin/env bash
# Build the tree after each patch of the series in turn (bisectability), in
# the realised tree itself (build/linux, checked out commit by commit and
# back to its branch at the end) and the main build folder (build/obj) with
# the main config: each build is incremental on the one before, and the
# last one, of HEAD, is the main build, which "make check" then boots.
#
# Each commit that touches the kernel is built; any new compiler or objtool
# warning in a file the patch touches, or a W=1 warning in a C file it
# touches, fails it. A commit that touches only tools/ or Documentation/
# changes nothing in the kernel build: a patch to tools/perf builds perf
# (build/perf, with -Werror, its default), one to the mm selftests builds
# them (kselftest build), one to Documentation/ is checked by checkpatch.
. "$(dirname "$0")/lib.sh"

[ -d "$SRC/.git" ] || die "no realised tree at $SRC (make realise)"
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
for c in $commits; do
	t0=$(date +%s)
	subj=$(git -C "$SRC" log -1 --format='%h %s' "$c")
	git -C "$SRC" checkout -q --detach "$c"
	touched=$(git -C "$SRC" diff-tree --no-commit-id --name-only -r "$c")
	warn="" built=1 target=vmlinux
	# HEAD is the main build: its bzImage is what the guests boot.
	[ "$c" = "$head" ] && target=bzImage
	what=$target
	blog=$BUILD/logs/bisect-build.log
	mkdir -p "$BUILD/logs"
	if grep -qvE '^(tools|Documentation)/' <<<"$touched" || [ "$c" = "$head" ]; then
		if TARGET=$target "$TOP/scripts/build.sh" 2>"$blog"; then
			files=$(grep -E '\.(c|h|S)$' <<<"$touched" || true)
			for f in $files; do
				w=$(grep -E "^(\.\./)*([^ ]*/)?$f:[0-9]+:[0-9]+: warning:|$f.*objtool:" "$blog" || true)
				warn="$warn$w"
			done
			# W=1 on the C files the patch touches.
			for f in $files; do
				case $f in *.c) ;; *) continue ;; esac
				[ -f "$OBJ/${f%.c}.o" ] || continue
				w=$(kmake -s W=1 "${f%.c}.o" 2>&1 | grep -E 'warning:' || true)
				warn="$warn$w"
			done
		else
			built=0
		fi
	else
		what="nothing in the kernel"
	fi
	# Patches to perf: perf must build too (with -Werror, its default).
	if [ $built = 1 ] && grep -qE '^tools/(perf|arch/x86/lib)/' <<<"$touched"; then
		what="$what, perf"
		mkdir -p "$BUILD/perf"
		perf_make "$SRC" "$BUILD/perf" >"$BUILD/logs/bisect-perf.log" 2>&1 ||
			warn="$warn perf build failed: $(tail -5 "$BUILD/logs/bisect-perf.log")"
	fi
	# Patches to the mm selftests: they must build (kselftest build).
	if [ $built = 1 ] && grep -q '^tools/testing/selftests/mm/' <<<"$touched"; then
		what="$what, selftests/mm"
		OUT_DIR=$BUILD/bisect-selftests "$TOP/scripts/selftests.sh" >"$BUILD/logs/bisect-selftests.log" 2>&1 ||
			warn="$warn selftests build failed: $(tail -5 "$BUILD/logs/bisect-selftests.log")"
	fi
	secs=$(($(date +%s) - t0))
	if [ $built = 0 ]; then
		fail=$((fail + 1)); echo "not ok $subj (build failed, ${secs}s)"
		tail -20 "$blog" | sed 's/^/    # /'
	elif [ -z "$warn" ]; then
		pass=$((pass + 1)); echo "ok $subj (built: ${what#nothing in the kernel, }, ${secs}s)"
	else
		fail=$((fail + 1)); echo "not ok $subj (warnings, ${secs}s)"; sed 's/^/    # /' <<<"$warn"
	fi
done
mkdir -p "$BUILD/results"
echo "$pass $fail 0" >"$BUILD/results/bisect.counts"
echo "bisect: $pass passed, $fail failed"
[ $fail = 0 ]
