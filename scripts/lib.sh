# Common settings for the workshop scripts; sourced, not run.
# shellcheck shell=bash
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
SRC=${SRC:-$BUILD/linux}		# the realised kernel tree (a git repo)
OBJ=${OBJ:-$BUILD/obj}			# its out-of-tree build
PATCHES=$TOP/patches
# The base: Debian's linux-source-7.3 at the version in patches/base-version
# (scripts/base.sh finds or fetches its tarball into $BASE_DIR).
BASE_PKG=linux-source-7.3
BASE_SUITE=trixie-backports
BASE_VERSION=$(cat "$PATCHES/base-version" 2>/dev/null || echo unknown)
BASE_DIR=${BASE_DIR:-$BUILD/base}
SHARED_BASES=${SHARED_BASES:-$TOP/../shared/bases}
JOBS=${JOBS:-$(nproc)}
# The series' version, from the cover letter's "[PATCH vN 00/NN]" (v1 when
# none), and the local version that names it in the kernels' release: every
# x86_64 build of the tree (kmake; builds.sh's i386 and arm64 makes are
# their own) passes LOCALVERSION=$LOCALVER, as make deb does, so a guest's
# uname -r names the series (LOCALVER= : none, for the trees without the
# series that mmtests builds). kmake passes the
# build number that make deb's packages give Debian's rules too (their
# revision, $DEB_BUILD_NUM), so that make deb DEB_CONFIG=tiny packages the
# build folder as built: another release or number would recompile
# init/version.o and what includes utsrelease.h and relink vmlinux, and
# the next build would again.
SERIES_VER=$(sed -n 's/^Subject: \[PATCH \(v[0-9]*\) .*/\1/p' "$PATCHES/0000-cover-letter.patch" 2>/dev/null | head -n 1 || true)
SERIES_VER=${SERIES_VER:-v1}
LOCALVER=${LOCALVER--nt-$SERIES_VER}
DEB_BUILD_NUM=1
# The uapi headers of the realised tree for the kselftest builds
# (uapi_headers makes them), in the main build folder, where make deb
# DEB_CONFIG=tiny's own "make headers" finds them made.
UAPI_OBJ=$BUILD/obj

# Every compiler the workshop runs (the kernel builds: bisect, build,
# matrix, package, sparse, builds, debug, stable; perf, the selftests and
# the harness) goes through Debian's ccache: /usr/lib/ccache first in PATH
# (its gcc, cc and aarch64-linux-gnu-gcc call ccache). The cache is ccache's
# own for the user ($CCACHE_DIR, else ~/.cache/ccache), outside the clone, so
# a clean clone on a machine that ran the workshop before starts warm; a hit
# hands back the object the compiler made for the same command line, source
# and headers, so a kept cache changes no result, only the time. Depend mode
# (CCACHE_DEPEND): a miss runs the compiler once, no extra preprocessor run
# (CCACHE_NODEPEND=1: the default mode). CCACHE_BASEDIR is the clone, so that
# the kernel's absolute -I paths (O= outside the tree) hash the same in
# another clone; the compiler then sees them relative to the build folder,
# so a hit needs a build folder at the same depth below the clone
# (build/<name>: bisect-broken's folders are build/bisect-broken-*).
# Bounded at $NT_CCACHE_SIZE (5G, ccache's own default) unless the user's
# ccache.conf or CCACHE_MAXSIZE sets a bound: one make check from an empty
# cache stored 0.15 GB (compressed; 8401 compiles), so 5G keeps some thirty
# runs' worth of configs and commits, and evicts the least recently used
# beyond: a small part of the tens of GB these machines have free.
# NT_CCACHE=0: no ccache.
NT_CCACHE_SIZE=${NT_CCACHE_SIZE:-5G}
if [ "${NT_CCACHE:-1}" != 0 ] && [ -x /usr/bin/ccache ] && [ -d /usr/lib/ccache ]; then
	case ":$PATH:" in *:/usr/lib/ccache:*) ;; *) PATH=/usr/lib/ccache:$PATH ;; esac
	export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$TOP}
	[ -n "${CCACHE_NODEPEND:-}" ] || export CCACHE_DEPEND=1
	if [ -z "${CCACHE_MAXSIZE:-}" ] && ccache -p 2>/dev/null | grep -q '^(default) max_size '; then
		export CCACHE_MAXSIZE=$NT_CCACHE_SIZE
	fi
fi

# ccache_counts: "<hits> <misses>" of the cache so far (0 0 without ccache);
# ccache_since "<hits> <misses>": what was hit and missed after that reading
ccache_counts() {
	{ [ "${NT_CCACHE:-1}" != 0 ] && ccache --print-stats 2>/dev/null || true; } |
		awk -F'\t' '$1 ~ /^(direct|preprocessed)_cache_hit$/ { h += $2 } $1 == "cache_miss" { m = $2 }
			END { printf "%d %d\n", h, m }'
}
ccache_since() {
	local h0 m0 h1 m1
	read -r h0 m0 <<<"$1"
	read -r h1 m1 < <(ccache_counts)
	echo "ccache: $((h1 - h0)) hits, $((m1 - m0)) misses ($(ccache -k cache_dir 2>/dev/null || echo none))"
}

die() { echo "error: $*" >&2; exit 1; }
note() { echo ">> $*" >&2; }

# series_of <dir>: the patches <dir>/series names, in order, as paths
# (none when it has no series file)
series_of() {
	[ -f "$1/series" ] || return 0
	grep -v -e '^#' -e '^[[:space:]]*$' "$1/series" | sed "s|^|$1/|"
}

# The hugetlb fix series (patches/hugetlb/, for linux-mm and stable),
# applied first: its patches are the first commits after base, as many as
# its series file names (the boundary export.sh keeps).
hugetlb_series_files() { series_of "$PATCHES/hugetlb"; }

# The series in order, as named in patches/series.
series_files() { series_of "$PATCHES"; }

# The perf series (patches/perf/, for the perf tree), in order.
perf_series_files() { series_of "$PATCHES/perf"; }

# The kernel of the matrix rows named *+debian: tinyconfig + nt.config +
# debian.config (Debian's init_on_alloc, THP and preemption), in
# build/debian-obj; built incrementally, one build at a time.
DEBIAN_OBJ=$BUILD/debian-obj
debian_kernel() {
	mkdir -p "$DEBIAN_OBJ" "$BUILD/logs"
	OBJ=$DEBIAN_OBJ FRAGMENTS="$TOP/config/nt.config $TOP/config/debian.config" \
		flock "$BUILD/.debian-obj.lock" "$TOP/scripts/build.sh" >"$BUILD/logs/debian-build.log" 2>&1 ||
		{ echo "the Debian-config kernel did not build: $BUILD/logs/debian-build.log" >&2; return 1; }
}

# The workshop's own patches (patches/workshop/: test knobs), applied last,
# never posted.
workshop_series_files() { series_of "$PATCHES/workshop"; }

# The hugetlb fixes' stable backports (patches/hugetlb/stable-<v>/)
stable_series_files() {
	local d
	for d in "$PATCHES"/hugetlb/stable-*; do [ -d "$d" ] && series_of "$d"; done
	return 0
}

# Patch-ids of the exported series (hugetlb, kernel and perf), one a line.
exported_patch_ids() {
	local f
	for f in $(hugetlb_series_files) $(series_files) $(perf_series_files) $(workshop_series_files); do
		git patch-id --stable <"$f" | awk '{print $1}'
	done | sort -u
}

# Commits in the realised tree (base..HEAD) whose change is not in patches/.
unexported_commits() {
	local ids c id
	ids=$(exported_patch_ids)
	for c in $(git -C "$SRC" rev-list --reverse base..HEAD); do
		id=$(git -C "$SRC" show "$c" | git patch-id --stable | awk '{print $1}')
		[ -z "$id" ] && continue
		grep -qx "$id" <<<"$ids" || git -C "$SRC" log -1 --format='%h %s' "$c"
	done
}

tree_dirty() {
	git -C "$SRC" status --porcelain --untracked-files=no
}

kmake() {
	make -C "$SRC" O="$OBJ" ARCH=x86_64 -j"$JOBS" LOCALVERSION="$LOCALVER" KBUILD_BUILD_VERSION=$DEB_BUILD_NUM "$@"
}

# perf from tree $1 into $2, with every optional library off: "perf bench"
# needs none, and the build then needs nothing beyond gcc, make, flex, bison.
perf_make() {
	make -C "$1/tools/perf" O="$2" -j"$JOBS" NO_RUST=1 \
		NO_LIBELF=1 NO_LIBTRACEEVENT=1 NO_JEVENTS=1 NO_LIBPYTHON=1 \
		NO_LIBPERL=1 NO_SLANG=1 NO_GTK2=1 NO_LIBBPF=1 NO_BPF_SKEL=1 \
		NO_LIBDW=1 NO_DWARF=1 NO_LIBUNWIND=1 NO_LIBNUMA=1 NO_LIBCAP=1 \
		NO_LIBBABELTRACE=1 NO_LIBCRYPTO=1 NO_LIBZSTD=1 NO_LZMA=1 \
		NO_ZLIB=1 NO_LIBPFM4=1 NO_AUXTRACE=1 NO_LIBDEBUGINFOD=1 NO_SDT=1 \
		NO_LIBLLVM=1 NO_CAPSTONE=1
}

# matrix.tsv rows without comments: name spec cpu nt_good reason cold copy
# populate cow gate cmdline
matrix_rows() {
	grep -v -e '^#' -e '^[[:space:]]*$' "$TOP/matrix.tsv"
}

# The console lines of a guest that a debug kernel must not print: a BUG
# (DEBUG_PREEMPT's "using smp_processor_id() in preemptible", DEBUG_ATOMIC_
# SLEEP's "sleeping function called from invalid context", a KASAN report,
# DEBUG_VM's VM_BUG_ON), a WARNING (lockdep's splats: recursive or
# circular locking, inconsistent lock state, suspicious RCU usage), an
# oops or panic, UBSAN. Prints them; succeeds when there are none.
CONSOLE_BAD='BUG:|kernel BUG at|WARNING:|Oops|general protection fault|Kernel panic|UBSAN:|sleeping function called from invalid context|INFO: (possible|task .* blocked)|KASAN: '
console_clean() { ! grep -E "$CONSOLE_BAD" "$1"; }

# apt_private <dir> <deb|deb-src> <suite>: an apt state of its own in <dir>,
# with one Debian suite (main) from the mirror this machine's own apt uses,
# updated; sets apt_opts for apt-get/apt-cache. Used to take a package this
# machine's release does not have (the base, a newer sparse) without
# touching its apt configuration.
apt_private() {
	local st=$1 type=$2 suite=$3 mirror key=/usr/share/keyrings/debian-archive-keyring.gpg
	# The mirror URI of the machine's own Debian sources (deb822 or one-line).
	mirror=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
		awk '/^URIs:/ {print $2}' | grep -v -e security -e '^$' | head -1 || true)
	[ -n "$mirror" ] || mirror=$(grep -hE '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		grep -v security | awk '{for (i = 2; i <= NF; i++) if ($i ~ /:\/\//) {print $i; exit}}' || true)
	[ -n "$mirror" ] || { echo "error: no Debian mirror in this machine's apt configuration" >&2; return 1; }
	mkdir -p "$st/lists/partial" "$st/cache/archives/partial" "$st/etc/preferences.d"
	echo "$type [signed-by=$key] $mirror $suite main" >"$st/etc/sources.list"
	apt_opts=(-o "Dir::Etc::SourceList=$st/etc/sources.list" -o "Dir::Etc::SourceParts=-"
		-o "Dir::Etc::PreferencesParts=$st/etc/preferences.d"
		-o "Dir::State::Lists=$st/lists" -o "Dir::Cache=$st/cache"
		-o "Dir::State::Status=/var/lib/dpkg/status" -o "APT::Get::List-Cleanup=0")
	apt-get -qq "${apt_opts[@]}" update >"$st/update.log" 2>&1 ||
		{ echo "error: apt-get update for $suite failed: $(tail -3 "$st/update.log")" >&2; return 1; }
}

# One KTAP result line of a stage script: ktap <0|1> <name> [diagnostic...];
# counts in the caller's n, pass and fail; each non-empty diagnostic is
# printed as a "# " line under a failure.
ktap() {
	n=$((n + 1))
	if [ "$1" = 1 ]; then pass=$((pass + 1)); echo "ok $n $2"; return 0; fi
	fail=$((fail + 1)); echo "not ok $n $2"
	shift 2
	local w
	for w in "$@"; do [ -z "$w" ] || echo "# $w"; done
}

# ktap_run NAME COMMAND...: COMMAND as one KTAP result (n, pass and fail
# as ktap()'s), its output as comments
ktap_run() {
	local o rc=0
	o=$("${@:2}" 2>&1) || rc=$?
	ktap "$([ $rc = 0 ] && echo 1 || echo 0)" "$1"
	[ -z "$o" ] || sed 's/^/# /' <<<"$o"
}

# ktap_counts STAGE LOG: the top-level results of LOG (subtests, indented,
# are not counted) into build/results/STAGE.counts; fails if any failed
ktap_counts() {
	local p f
	read -r p f < <(awk '/^ok [0-9]+ / { p++ } /^not ok [0-9]+ / { f++ }
		END { printf "%d %d\n", p, f }' "$2")
	echo "$p $f 0" >"$BUILD/results/$1.counts"
	echo "$1: $p passed, $f failed"
	[ "$f" = 0 ]
}

# uapi_headers: the realised tree's "make headers" in $UAPI_OBJ (its
# usr/include), again only when the tree's uapi or syscall tables changed
# or the headers are gone (a make clean there empties usr/include): one
# copy for every kselftest build (the bisect's, the matrix's, the debug
# stage's, mmtests') and for make deb DEB_CONFIG=tiny.
uapi_headers() {
	local stamp=$UAPI_OBJ/.nt-headers-stamp want
	want=$(git -C "$SRC" log -1 --format=%H -- include/uapi arch/x86/include/uapi \
		arch/x86/entry/syscalls 2>/dev/null || echo none)
	if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ] || [ ! -f "$UAPI_OBJ/usr/include/linux/mman.h" ]; then
		mkdir -p "$UAPI_OBJ"
		make -s -C "$SRC" O="$UAPI_OBJ" ARCH=x86_64 -j"$JOBS" headers >/dev/null || return 1
		echo "$want" >"$stamp"
	fi
}

# populate_cold_bin DIR: the guest's populate_cold program (one way of
# mapping a 2 MiB folio a run) in DIR/bin, built static when missing or
# older than its source
populate_cold_bin() {
	local bin=$1/bin/populate-cold
	[ "$bin" -nt "$TOP/guest/populate-cold.c" ] && return 0
	mkdir -p "$1/bin"
	gcc -static -O2 -Wall -Werror -o "$bin" "$TOP/guest/populate-cold.c"
}

# broken_boots STAGE CHECK FILES VARIANT...: shows that a guest check fails
# when the kernel is wired wrong. For each VARIANT in turn: FILES (space
# separated, in $SRC) back as committed, then the caller's break_VARIANT
# makes its throwaway change (and may set broken_append, extra kernel
# command line for that boot); the guest kernel is rebuilt (build/obj,
# incremental) and booted on $BROKEN_ROW (a matrix row, default EPYC-Milan:
# a Zen part, where the series is on); the variant passes when the console
# has a line matching CHECK (an ERE: the check's "not ok"). The caller's
# explain LOG prints what the check said (default: that line and the next).
# KTAP out, counts in build/results/STAGE.counts; at exit FILES are restored
# and the kernel rebuilt as it was.
broken_boots() {
	local stage=$1 check=$2 files=$3 v log why ok
	shift 3
	[ -z "$(tree_dirty)" ] || die "$SRC has uncommitted edits; commit them first"
	mkdir -p "$BUILD/results" "$BUILD/logs"
	declare -F explain >/dev/null || explain() { grep -m1 -A1 -E "$check" "$1" | tr -s ' ' | tr '\n' ';' | cut -c1-300; }
	# shellcheck disable=SC2064 # expand now: the trap runs after we return
	trap "git -C '$SRC' checkout -q -- $files; (cd '$SRC' && touch $files)
		'$TOP/scripts/build.sh' >/dev/null 2>&1 || echo '# $stage: rebuilding the restored tree failed' >&2" EXIT
	local n=0 pass=0 fail=0
	echo "KTAP version 1"
	echo "1..$#"
	for v in "$@"; do
		# shellcheck disable=SC2086 # FILES is a list
		git -C "$SRC" checkout -q -- $files
		broken_append=${broken_base:-}
		"break_$v"
		log=$BUILD/logs/$stage-$v.log ok=0
		# shellcheck disable=SC2086
		if git -C "$SRC" diff --quiet -- $files; then
			why="the change did not apply: has the source changed?"
		elif ! "$TOP/scripts/build.sh" >"$log.build" 2>&1; then
			why="the broken tree did not build: $(tail -3 "$log.build")"
		else
			"$TOP/scripts/initramfs.sh" "$BUILD/initramfs.cpio" >/dev/null 2>&1 || true
			"$TOP/scripts/boot.sh" -q -l "$log" -a "$broken_append" "${BROKEN_ROW:-EPYC-Milan}" || true
			if grep -qE "$check" "$log"; then
				ok=1 why=$(explain "$log")
			else
				why="no line matching '$check' in $log"
			fi
		fi
		ktap $ok "${stage}_catches_$v" "$why"
		[ $ok = 0 ] || echo "# $why"
	done
	echo "$pass $fail 0" >"$BUILD/results/$stage.counts"
	echo "$stage: $pass passed, $fail failed, 0 skipped"
	[ $fail = 0 ]
}
