#!/usr/bin/env bash
# sparse (make C=2) and W=1 on every C file the kernel series touches and the
# main configuration builds: no warning that the base does not already have.
#
# Each file is checked at HEAD in the main build folder, and, where the base
# has it, the base's version of it too, as a sibling file (<name>__ntbase.c,
# removed afterwards) built with the same flags where HEAD's version has
# warnings; HEAD's objects in one make, then the base's in one (one kbuild
# walk each); warnings are compared without their line and column numbers.
# A file new in the series must have none. Debian 12's sparse (0.6.4) is
# older than this kernel accepts (scripts/checker-valid.sh:
# __typeof_unqual__), so sparse is built from Debian's own newer source
# package (sid, $SPARSE_VERSION) into build/sparse.
. "$(dirname "$0")/lib.sh"

[ -d "$SRC/.git" ] || die "no realised tree at $SRC (make realise)"
[ -f "$OBJ/vmlinux" ] || die "no main build in $OBJ (make build)"
SPARSE_VERSION=${SPARSE_VERSION:-0.6.5~rc1-2}
sp=$BUILD/sparse/sparse
res=$BUILD/results
mkdir -p "$res" "$BUILD/logs"
log=$BUILD/logs/sparse.log
: >"$log"

get_sparse() {
	local st dir
	[ -x "$sp" ] && [ "$(sh "$SRC/scripts/checker-valid.sh" "$sp" -m64 2>/dev/null)" = 1 ] && return 0
	st=$(mktemp -d)
	note "sparse: building Debian's sparse $SPARSE_VERSION from source (sid)"
	apt_private "$st" deb-src sid || return 1
	# The pinned version, or whatever sid has now if it has moved on (the
	# kernel's checker-valid.sh below decides whether it will do).
	(cd "$st" && apt-get -qq "${apt_opts[@]}" source --download-only "sparse=$SPARSE_VERSION" ||
		apt-get -qq "${apt_opts[@]}" source --download-only sparse) >"$st/dl.log" 2>&1 ||
		{ echo "error: apt-get source sparse failed: $(tail -2 "$st/dl.log")" >&2; return 1; }
	tar -C "$st" -xzf "$st"/sparse_*.orig.tar.gz
	dir=$(ls -d "$st"/sparse-*/ | head -1)
	make -s -C "$dir" -j"$JOBS" sparse HAVE_LIBXML=no HAVE_SQLITE=no HAVE_GTK=no >"$st/build.log" 2>&1 ||
		{ echo "error: sparse build failed: $(tail -3 "$st/build.log")" >&2; return 1; }
	mkdir -p "$(dirname "$sp")"
	cp "$dir/sparse" "$sp"
	rm -rf "$st"
	[ "$(sh "$SRC/scripts/checker-valid.sh" "$sp" -m64)" = 1 ] ||
		{ echo "error: $sp does not pass the kernel's scripts/checker-valid.sh" >&2; return 1; }
}

# The warnings of the objects named, C=2 and W=1, all in one make (one
# kbuild walk: about 4 s each on the workshop's VM), as "<object>TAB<kind>:
# <message>" lines, file, line and column dropped: a line belongs to the
# object whose "CC" or "CHECK" line came last (one job, so objects in turn;
# one job too because arch/x86/lib builds an object asked for by name twice,
# once for lib.a, once as a target, and two jobs race on its .d). Fails if
# the make fails.
warnings_of() { # warnings_of <object>...
	JOBS=1 kmake C=2 CHECK="$sp" W=1 "$@" 2>&1 | tee -a "$log" |
		awk '/^  CC( \[M\])? +[^ ]+\.o$/ { o = $NF; sub(/\.o$/, "", o); next }
		/^  CHECK +[^ ]+\.c$/ { o = $NF; sub(/\.c$/, "", o); next }
		match($0, /^[^ ]*:[0-9]*:[0-9]*: (warning|error): /) {
			k = substr($0, 1, RLENGTH); sub(/: $/, "", k); sub(/.*: /, "", k)
			print o "\t" k ": " substr($0, RLENGTH + 1)
		}'
}
# of <lines> <object>: that object's warnings (the __ntbase suffix dropped),
# sorted
of() { awk -F'\t' -v o="$2" '$1 == o { print $2 }' <<<"$1" | sed 's/__ntbase//g' | sort; }

pass=0 fail=0 skip=0 n=0
if ! get_sparse; then
	echo "0 1 0" >"$res/sparse.counts"
	die "no usable sparse"
fi
files=${SPARSE_FILES:-$(git -C "$SRC" diff --name-only base..HEAD -- '*.c' | grep -v '^tools/' || true)}
built=""
for f in $files; do
	[ -f "$OBJ/${f%.c}.o" ] && built="$built $f"
done
# checked <suffix> <file>...: the warnings of the files' objects
# (<name><suffix>.o) in one make, in $out; if that make fails, each object
# alone, and the files whose object does not build in $failed.
checked() {
	local suffix=$1 f w
	shift
	out="" failed=""
	# shellcheck disable=SC2046 # a list of objects
	out=$(warnings_of $(for f; do echo "${f%.c}$suffix.o"; done)) && return 0
	out=""
	for f; do
		w=$(warnings_of "${f%.c}$suffix.o") || { failed="$failed $f"; continue; }
		out="$out$w
"
	done
}
heads="" hfailed=""
if [ -n "$built" ]; then
	# shellcheck disable=SC2086 # a list of files
	checked "" $built
	heads=$out hfailed=$failed
fi
# The base's version of each file that has one and warnings at HEAD, as a
# sibling file (<name>__ntbase.c), all in one make; if it fails, each alone.
based="" bases="" bfailed=""
for f in $built; do
	[[ " $hfailed " = *" $f "* ]] && continue
	[ -n "$(of "$heads" "${f%.c}")" ] && git -C "$SRC" cat-file -e "base:$f" 2>/dev/null &&
		based="$based $f"
done
if [ -n "$based" ]; then
	trap 'for f in $based; do rm -f "$SRC/${f%.c}__ntbase.c"; done' EXIT
	for f in $based; do git -C "$SRC" show "base:$f" >"$SRC/${f%.c}__ntbase.c"; done
	# shellcheck disable=SC2086
	checked __ntbase $based
	bases=$out bfailed=$failed
	for f in $based; do
		b=${f%.c}__ntbase
		rm -f "$SRC/$b.c" "$OBJ/$b.o" "$OBJ/$(dirname "$f")/.$(basename "$b").o.cmd"
	done
	trap - EXIT
fi
for f in $files; do
	n=$((n + 1))
	if [[ " $built " != *" $f "* ]]; then
		skip=$((skip + 1)); echo "ok $n $f # SKIP not built by the main configuration"
		continue
	fi
	if [[ " $hfailed " = *" $f "* ]]; then
		fail=$((fail + 1)); echo "not ok $n $f (build failed, log: $log)"
		continue
	fi
	if [[ " $bfailed " = *" $f "* ]]; then
		fail=$((fail + 1)); echo "not ok $n $f (the base's version did not build, log: $log)"
		continue
	fi
	head=$(of "$heads" "${f%.c}")
	base="" what="new file"
	git -C "$SRC" cat-file -e "base:$f" 2>/dev/null && what="none to compare with the base's"
	if [[ " $based " = *" $f "* ]]; then
		base=$(of "$bases" "${f%.c}__ntbase")
		what="$(grep -c . <<<"$base" || true) in the base"
	fi
	new=$(comm -23 <(echo "$head") <(echo "$base") | grep . || true)
	nh=$(grep -c . <<<"$head" || true)
	if [ -z "$new" ]; then
		pass=$((pass + 1)); echo "ok $n $f ($nh warnings, $what)"
	else
		fail=$((fail + 1)); echo "not ok $n $f (new: $(grep -c . <<<"$new"); $nh, $what)"
		sed 's/^/    # /' <<<"$new"
	fi
done
echo "$pass $fail $skip" >"$res/sparse.counts"
echo "sparse: $pass passed, $fail failed, $skip skipped (log: $log)"
[ $fail = 0 ]
