#!/usr/bin/env bash
# Build the tree after each patch of the series in turn (bisectability), in
# a separate worktree and build folder so the main build is left alone.
# Any new compiler or objtool warning in a file the patch touches fails it;
# a patch to tools/perf or its copies of arch/x86/lib also builds perf.
. "$(dirname "$0")/lib.sh"

[ -d "$SRC/.git" ] || die "no realised tree at $SRC (make realise)"
wt=$BUILD/bisect-src
bobj=$BUILD/bisect-obj
if [ ! -d "$wt" ]; then
	git -C "$SRC" worktree prune
	git -C "$SRC" worktree add -q --detach "$wt" base
fi
pass=0 fail=0
# BISECT_BASE=<commit>: only the patches after it (default: the whole series).
from=${BISECT_BASE:-base}
git -C "$SRC" rev-parse -q --verify "$from^{commit}" >/dev/null ||
	die "BISECT_BASE=$from is not a commit of $SRC"
commits=$(git -C "$SRC" rev-list --reverse "$from..HEAD")
[ -n "$commits" ] || die "no patches after $from"
for c in $commits; do
	subj=$(git -C "$SRC" log -1 --format='%h %s' "$c")
	git -C "$wt" checkout -q --detach "$c"
	if SRC=$wt OBJ=$bobj "$TOP/scripts/build.sh" 2>"$bobj.log"; then
		touched=$(git -C "$SRC" diff-tree --no-commit-id --name-only -r "$c")
		files=$(grep -E '\.(c|h|S)$' <<<"$touched" || true)
		warn=""
		for f in $files; do
			w=$(grep -E "^(\.\./)*([^ ]*/)?$f:[0-9]+:[0-9]+: warning:|$f.*objtool:" "$bobj.log" || true)
			warn="$warn$w"
		done
		# W=1 on the C files the patch touches.
		for f in $files; do
			case $f in *.c) ;; *) continue ;; esac
			[ -f "$bobj/${f%.c}.o" ] || continue
			w=$(make -C "$wt" O="$bobj" ARCH=x86_64 -s W=1 "${f%.c}.o" 2>&1 | grep -E 'warning:' || true)
			warn="$warn$w"
		done
		# Patches to perf: perf must build too (with -Werror, its default).
		if grep -qE '^tools/(perf|arch/x86/lib)/' <<<"$touched"; then
			mkdir -p "$BUILD/bisect-perf"
			perf_make "$wt" "$BUILD/bisect-perf" >"$BUILD/bisect-perf.log" 2>&1 ||
				warn="$warn perf build failed: $(tail -5 "$BUILD/bisect-perf.log")"
		fi
		if [ -z "$warn" ]; then
			pass=$((pass + 1)); echo "ok $subj"
		else
			fail=$((fail + 1)); echo "not ok $subj (warnings)"; sed 's/^/    # /' <<<"$warn"
		fi
	else
		fail=$((fail + 1)); echo "not ok $subj (build failed)"
		tail -20 "$bobj.log" | sed 's/^/    # /'
	fi
done
mkdir -p "$BUILD/results"
echo "$pass $fail 0" >"$BUILD/results/bisect.counts"
echo "bisect: $pass passed, $fail failed"
[ $fail = 0 ]
