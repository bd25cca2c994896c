#!/usr/bin/env bash
# make bench: on this host, with perf and the harness built from the
# realised tree,
#   a. the seed's "perf bench mem memset" table (and memcpy with SUITE), one
#      call over a buffer of 4 KiB pages as the seed ran it, beside 7.3's
#      options as the kernel clears: -k 32MB (one call per 32 MiB, as
#      clear_pages() is called) on -p 2MB hugetlb pages;
#   b. the host kernel's own fault path: "perf bench mem mmap -f demand" on
#      2 MiB (and 1 GiB, where the host offers them) hugetlb pages beside
#      pf-hugetlb on the same sizes, and whether the two agree;
#   c. the harness (harness/touch.c): fault-then-touch and CoW
#      copy-then-touch with mainline's cached routines and the cold ones
#      (MOVNTI, and CLZERO and MOVDIR64B where the CPU has them), and the
#      cache pollution a co-runner on the other CPU sees;
#   d. a PNG per table.
# Progress on stderr, tables on stdout.
#
# Settings (make variables or environment):
#   SIZES=16M,128M,1G,4G   a. and b.: sizes, in M or G (MiB, GiB)
#   RUNS=5                 runs of everything, variants interleaved (1-50)
#   LOOPS=1                perf's -l. perf's memset writes the loop index
#                          (0, 1, 2, ...), so only -l 1 writes zeros, as page
#                          clearing does: the seed's setting, and on AMD Zen
#                          REP STOSB of zeros runs about twice as fast as of
#                          any other byte
#   SUITE=memset           a.: memset, memcpy, or memset,memcpy (memcpy
#                          doubles a.'s time: two buffers to fault in)
#   VARIANTS=stosb,unrolled,movnt   perf's x86-64-* names without the
#                          prefix; memcpy runs movsb for stosb
#   CHUNK=32MB PAGE=2MB    a.: the second column's -k and -p (CHUNK=0: one
#                          call; PAGE=4KB: 4 KiB pages; both: no column)
#   HUGETLB=1 HARNESS=1    0 leaves out b. / c.
#   FOLIOS=16K,64K,256K,1M,2M,32M,1G   c.: folio sizes (touch -s)
#   FAULT=start            c.: where the fault is: start, middle or end
#   WS=                    c.: the co-runner's working sets (touch -w;
#                          default: 1/8, 1/4, 1/2 of the LLC, and of L2
#                          where the LLC the system reports is unrealistic)
#   POLLUTE_SECS=0.3       c.: seconds a pollution measurement
#   REPORT=                a page for docs/measurements/, e.g.
#                          REPORT=docs/measurements/<name>.md: at the end of
#                          the run, the machine (CPU, VM or not, date, host
#                          kernel), the command and settings, bench.txt's
#                          tables and the nt_parts.h entry, written there
#                          (report() below); an existing file is refused
#                          before anything runs, never overwritten
# Output in build/bench/: bench.txt (the tables), bench.runs (every run),
# bench.sum (median, min, max, pstdev), bench.meta (the machine and the
# settings, for the page), touch-{fault,copy,pollute}.out (touch's own
# output), and memset.png (memcpy.png), faults.png, touch-fault.png,
# touch-copy.png, pollute.png.
#
# Hugetlb pools: raised for the parts that need them (the perf -p rows and
# b.) and put back right after, and by the trap on EXIT, INT and TERM, which
# also stops the running child first.
#
# It ends with the nt_parts.h entry for this CPU, from its own touch fault
# and touch copy tables (entry() below, which states the rule), and the
# entry of this run together with the recorded runs of the same CPU
# (entry_runs(), entry_merge()); on a saved run alone:
#   scripts/bench.sh --entry DIR|FILE...   DIR with touch-fault.out and
#                          touch-copy.out, or files holding both tables
#                          (a whole make bench output will do)
# and the page of REPORT= from a run already made:
#   scripts/bench.sh --report PAGE.md [DIR]   DIR: that run's build/bench
#                          (the default), with bench.txt (and bench.meta,
#                          which runs before REPORT= existed lack)
. "$(dirname "$0")/lib.sh"

# entry_parse FILE...: the rule's answer for one run (FILE... hold its touch
# fault and touch copy tables): lines "cpu VENDOR FAM MODEL STEP CLZERO
# MOVDIR64B", "clear ROUTINE SIZE name|ratios|candidates", "copy ROUTINE
# SIZE name|ratios" and "rat SECTION SIZE VARIANT RATIO", or "error: ...".
entry_parse() {
	awk '
	function kib(s) { return s ~ /K$/ ? s + 0 : s ~ /M$/ ? s * 1024 : s ~ /G$/ ? s * 1048576 : -1 }
	/^# CPU / && !cpu {
		st = $9; sub(/,.*/, "", st)
		clz = match($0, /clzero=1/) ? 1 : 0; m64 = match($0, /movdir64b=1/) ? 1 : 0
		cpu = $3 " " $5 " " $7 " " st " " clz " " m64
	}
	/^size +variant / { sec = $NF == "total/clear_pages" ? "fault" : $NF == "total/copy_mc" ? "copy" : ""; cross = 0; ns[sec] = 0; next }
	sec == "" { next }
	/^# crossover/ { cross = 1; next }
	cross && /^#   / { v = $2; sub(/:$/, "", v); xo[sec, v] = $3 == "from" ? $4 : "never"; next }
	cross { sec = ""; next }
	/^#/ || NF == 0 { next }
	{
		l = $0; gsub(/\([^)]*\)/, " ", l); n = split(l, f, " "); i = 1
		if (f[1] ~ /^[0-9]+[KMG]$/) { sz = f[1]; sizes[sec, ++ns[sec]] = sz; i = 2; base[sec] = f[2] }
		else if (!(sec SUBSEP f[1] in isv)) { isv[sec, f[1]] = 1; vs[sec, ++nv[sec]] = f[1] }
		tot[sec, sz, f[i]] = f[i + 3]; rat[sec, sz, f[i]] = f[i + 4]
	}
	function quote(sec, v, thr,   j, q) {
		for (j = 1; j <= ns[sec]; j++)
			if (kib(sizes[sec, j]) >= kib(thr))
				q = q (q == "" ? "" : ", ") rat[sec, sizes[sec, j], v] " at " sizes[sec, j]
		return q
	}
	END {
		if (!cpu || !ns["fault"] || !ns["copy"]) { print "error: no # CPU line, or no touch fault or touch copy table"; exit }
		L = sizes["fault", ns["fault"]]; best = ""
		for (j = 1; j <= nv["fault"]; j++) {
			v = vs["fault", j]
			if (!((("fault") SUBSEP v) in xo)) continue
			why = why (why == "" ? "" : ", ") v " " (xo["fault", v] == "never" ? "never" : "from " xo["fault", v]) " (total " tot["fault", L, v] " ns/page at " L ")"
			if (xo["fault", v] == "never") continue
			if (best == "" || tot["fault", L, v] < tot["fault", L, best]) best = v
		}
		if (best != "" && best != "movnti" && (("fault" SUBSEP "movnti") in xo) && xo["fault", "movnti"] != "never" &&
		    !(tot["fault", L, best] <= 0.95 * tot["fault", L, "movnti"]))
			best = "movnti"
		print "cpu " cpu
		if (best == "") printf "clear CLEAR_PAGES 0 -|no cold variant crosses over|%s\n", why
		else printf "clear %s %s %s|%s|%s\n", toupper(best), xo["fault", best], best, quote("fault", best, xo["fault", best]), why
		v = "copy_mc_movnti"; L = sizes["copy", ns["copy"]]
		if (!(("copy" SUBSEP v) in xo)) print "error: touch copy has no copy_mc_movnti crossover line"
		else if (xo["copy", v] == "never") printf "copy CLEAR_PAGES 0 -|never crosses over (%s at %s)\n", rat["copy", L, v], L
		else printf "copy MOVNTI %s movnti|%s\n", xo["copy", v], quote("copy", v, xo["copy", v])
		for (k in rat) { split(k, kk, SUBSEP); if (rat[k] != "") print "rat", kk[1], kk[2], kk[3], rat[k] }
	}' "$@"
}

# entry FILE...: the nt_parts.h entry that the touch fault and touch copy
# tables in FILE... give, by this rule:
#  - clear: among the cold variants of touch fault with a crossover (not
#    "never"), the one with the lowest median total at the largest folio
#    size measured, but movnti unless the other's total there is at least
#    5% lower than movnti's; from its crossover size. None: CLEAR_PAGES, 0.
#  - copy: copy_mc_movnti's crossover in touch copy: MOVNTI from it;
#    "never": CLEAR_PAGES, 0.
# Then the ratios (total/clear_pages, total/copy_mc) at each size from the
# threshold up, and what the tree's table or default rule gives this CPU
# (clearpage policy, with the tree's nt_parts.h), same or not.
entry() {
	local r why vendor fam model step clz m64 cr cf cq c_name pr pf pq p_name v name tk th w at diff=""
	local a1 a2 a3 a4
	r=$(entry_parse "$@")
	if grep -q '^error: ' <<<"$r"; then grep '^error: ' <<<"$r" | head -1 >&2; return 1; fi
	read -r _ vendor fam model step clz m64 <<<"$(grep '^cpu ' <<<"$r")"
	IFS='|' read -r cr cq why <<<"$(sed -n 's/^clear //p' <<<"$r")"
	IFS='|' read -r pr pq <<<"$(sed -n 's/^copy //p' <<<"$r")"
	read -r cr cf c_name <<<"$cr"
	read -r pr pf p_name <<<"$pr"
	entry_sz() { [ "$1" = 0 ] && echo 0 || echo "SZ_$1"; }
	make -s -C "$TOP/harness" KSRC="$SRC" OUT="$BUILD/harness" "$BUILD/harness/clearpage" >&2 ||
		{ echo "entry: harness build failed" >&2; return 1; }
	tk=$("$BUILD/harness/clearpage" policy -k "$vendor" "$fam" "$model" "$step" "$clz" "$m64") || return 1
	th=$("$BUILD/harness/clearpage" policy "$vendor" "$fam" "$model" "$step" "$clz" "$m64") || return 1
	th=${th#*policy here: }
	name='<name>'
	[[ $tk = *" table "* ]] && name=${tk#* table }
	case $vendor in
	GenuineIntel) v=X86_VENDOR_INTEL ;; AuthenticAMD) v=X86_VENDOR_AMD ;;
	HygonGenuine) v=X86_VENDOR_HYGON ;; *) v=X86_VENDOR_UNKNOWN ;;
	esac
	step=$(printf '0x%x' "$step")
	echo "nt_parts.h entry for $vendor family $fam model $model stepping $step (clzero=$clz movdir64b=$m64), by the rule of entry() in scripts/bench.sh:"
	printf 'X86_MATCH_VFM_STEPS(VFM_MAKE(%s, %#x, %#x), %s, %s, NT_PART("%s", %s, %s, %s, %s)),\n' \
		"$v" "$fam" "$model" "$step" "$step" "$name" "$cr" "$(entry_sz "$cf")" "$pr" "$(entry_sz "$pf")"
	echo "clear ${c_name/-/clear_pages}: $cq; copy ${p_name/-/copy_mc}: $pq"
	echo "(clear candidates: $why)"
	read -r a1 a2 a3 a4 _ <<<"$tk"
	entry_pol() { [ "$2" = 0 ] && echo "$1" || echo "$1 from $2"; }
	[ "$cr $(entry_sz "$cf")" = "$a1 $a2" ] ||
		diff="clear $(entry_pol "$cr" "$(entry_sz "$cf")") here, the table's $(entry_pol "$a1" "$a2")"
	[ "$pr $(entry_sz "$pf")" = "$a3 $a4" ] ||
		diff="$diff${diff:+; }copy $(entry_pol "$pr" "$(entry_sz "$pf")") here, the table's $(entry_pol "$a3" "$a4")"
	[[ $tk = *" table "* ]] && th=${th% (*} && th="$th (entry $name)"
	echo "the table's policy for this CPU: $th: ${diff:+differs: }${diff:-same}"
	# The acceptance of a policy on this run: at every folio size it treats
	# cold, its routine's total is at most 3% over mainline's.
	entry_worst() { # <sec> <variant> <SZ_x threshold>
		awk -v sec="$1" -v v="$2" -v thr="${3#SZ_}" '
		function kib(s) { return s ~ /K$/ ? s + 0 : s ~ /M$/ ? s * 1024 : s ~ /G$/ ? s * 1048576 : -1 }
		$1 == "rat" && $2 == sec && $4 == v && kib($3) >= kib(thr) {
			if (w == "" || $5 > w) { w = $5; at = $3 } }
		END { if (w == "") print "- -"; else print w, at }' <<<"$r"
	}
	local wc wp
	if [ "$a1" = CLEAR_PAGES ]; then wc="clear: none cold"
	else read -r w at <<<"$(entry_worst fault "${a1,,}" "$a2")"
		wc="clear ${a1,,} from ${a2#SZ_}: worst $w (at $at)"; fi
	if [ "$a3" = CLEAR_PAGES ]; then wp="copy: none cold"
	else read -r w at <<<"$(entry_worst copy copy_mc_movnti "$a4")"
		wp="copy movnti from ${a4#SZ_}: worst $w (at $at)"; fi
	local verdict=ok
	for w in $(sed -n 's/.*worst \([0-9.]*\) .*/\1/p' <<<"$wc
$wp"); do
		awk -v w="$w" 'BEGIN { exit !(w > 1.03) }' && verdict="NOT ok: over 1.03 of mainline"
	done
	echo "the table's policy on this run, total/mainline at the sizes it treats cold: $wc; $wp: $verdict"
	# This run with the recorded runs of the same CPU: the entry they give
	# together, which is what the table should hold.
	local m n mc mcf mp mpf used note mine=""
	for f in "$@"; do mine="$mine $(readlink -f "$f")"; done
	m=$(entry_merge "$vendor $fam $model $((step)) $clz $m64" "$cr $cf $pr $pf this run" \
		$(for f in $(entry_runs); do [[ " $mine " = *" $(readlink -f "$f") "* ]] || echo "$f"; done)) || return 0
	IFS='|' read -r n mc mcf mp mpf used note <<<"$m"
	[ "$n" -gt 1 ] || { echo "no other recorded run of this CPU (entry_runs in scripts/bench.sh)"; return 0; }
	echo "this run with the other recorded runs of this CPU ($n runs: $used)${note:+; $note}:"
	printf 'X86_MATCH_VFM_STEPS(VFM_MAKE(%s, %#x, %#x), %s, %s, NT_PART("%s", %s, %s, %s, %s)),\n' \
		"$v" "$fam" "$model" "$step" "$step" "$name" "$mc" "$(entry_sz "$mcf")" "$mp" "$(entry_sz "$mpf")"
	if [ "$mc $(entry_sz "$mcf") $mp $(entry_sz "$mpf")" = "$a1 $a2 $a3 $a4" ]; then
		echo "the table's policy for this CPU is the entry of all its runs: same"
	else
		echo "the table's policy for this CPU ($a1 $a2, $a3 $a4) differs from the entry of all its runs"
	fi
}

# The raw make bench outputs kept for the table, one run per file: this
# repository's docs/measurements/*/make-bench*.txt and the shared
# measurements' */make-bench.txt.
entry_runs() {
	ls "$TOP"/docs/measurements/*/make-bench*.txt "$TOP"/../shared/measurements/*/make-bench.txt 2>/dev/null || true
}

# entry_merge KEY SEED RUN...: the entry that all runs of the CPU KEY
# (entry_parse's "cpu" fields) give together: the run SEED ("ROUTINE SIZE
# ROUTINE SIZE LABEL": this one) and those among RUN..., each by the rule
# above: cold
# only where every run is, with the same routine; each threshold the
# largest crossover of the runs, so that the entry is not slower than
# mainline on any of them. A run that is not of KEY, or has no tables,
# is left out.
entry_merge() {
	local key=$1 f r cr cf pr pf mc="" mcf=0 mp="" mpf=0 n=0 note="" used="" lbl
	read -r mc mcf mp mpf lbl <<<"$2"
	n=1 used="$lbl (clear $mc ${mcf/#0/-}, copy $mp ${mpf/#0/-})"
	shift 2
	kib() { case $1 in 0) echo 0 ;; *K) echo "${1%K}" ;; *M) echo $((${1%M} * 1024)) ;; *G) echo $((${1%G} * 1048576)) ;; esac; }
	for f in "$@"; do
		r=$(entry_parse "$f") || continue
		grep -q '^error: ' <<<"$r" && continue
		[ "$(sed -n 's/^cpu //p' <<<"$r")" = "$key" ] || continue
		read -r cr cf _ <<<"$(sed -n 's/^clear //p' <<<"$r" | cut -d'|' -f1)"
		read -r pr pf _ <<<"$(sed -n 's/^copy //p' <<<"$r" | cut -d'|' -f1)"
		n=$((n + 1)); used="$used${used:+, }${f#"$TOP"/} (clear $cr ${cf/#0/-}, copy $pr ${pf/#0/-})"
		if [ "$cr" != "$mc" ]; then
			[ "$mc" = CLEAR_PAGES ] || [ "$cr" = CLEAR_PAGES ] || note="the runs disagree on the clear routine: none cold"
			mc=CLEAR_PAGES mcf=0
		elif [ "$mc" != CLEAR_PAGES ] && [ "$(kib "$cf")" -gt "$(kib "$mcf")" ]; then mcf=$cf; fi
		if [ "$pr" != "$mp" ]; then mp=CLEAR_PAGES mpf=0
		elif [ "$mp" != CLEAR_PAGES ] && [ "$(kib "$pf")" -gt "$(kib "$mpf")" ]; then mpf=$pf; fi
	done
	echo "$n|$mc|$mcf|$mp|$mpf|$used|$note"
}

# report_check PAGE: the absolute path of PAGE, a page to be written;
# refused (with the reason, and status 1) if it is not a .md file in a
# folder that exists, or if it exists: a page is never overwritten.
report_check() {
	local p=$1 d
	[ -n "$p" ] || { echo "error: REPORT is empty: name a page, REPORT=docs/measurements/<name>.md" >&2; return 1; }
	[[ $p = *.md ]] || { echo "error: REPORT=$p: want a Markdown page, like docs/measurements/<name>.md" >&2; return 1; }
	[ ! -e "$p" ] || { echo "error: REPORT=$p exists: move it away or name another page (a page is never overwritten)" >&2; return 1; }
	d=$(dirname "$p")
	[ -d "$d" ] && [ -w "$d" ] || { echo "error: REPORT=$p: no writable folder $d" >&2; return 1; }
	echo "$(cd "$d" && pwd)/$(basename "$p")"
}

# meta FILE: what the page of REPORT= needs that bench.txt does not say,
# as "key: value" lines, written when a run starts: the date, the command
# and every setting, the CPU, its features and whether it runs under a
# hypervisor, memory, the load, the host kernel and the trees.
meta() {
	local v cmd=scripts/bench.sh given=() have=() lack=() f flags hv tree
	[ -z "${MAKELEVEL:-}" ] || cmd="make bench"
	for v in SIZES RUNS LOOPS SUITE VARIANTS CHUNK PAGE HUGETLB HARNESS FOLIOS FAULT WS POLLUTE_SECS REPORT; do
		[ -z "${!v+x}" ] || given+=("$v=${!v}")
	done
	flags=" $(awk -F': ' '/^flags/ { print $2; exit }' /proc/cpuinfo) "
	for f in erms fsrm clzero movdir64b avx512f pdpe1gb; do
		if [[ $flags = *" $f "* ]]; then have+=("$f"); else lack+=("$f"); fi
	done
	if [[ $flags = *" hypervisor "* ]]; then
		hv=$(lscpu 2>/dev/null | awk -F': *' '/^Hypervisor vendor/ { print $2; exit }' || true)
		hv="a VM (the CPU shows the hypervisor flag${hv:+; lscpu: hypervisor vendor $hv})"
	else
		hv="no hypervisor flag: bare metal, as far as the CPU says"
	fi
	tree=$(git -C "$TOP" rev-parse --short HEAD 2>/dev/null || echo '?')
	git -C "$TOP" diff --quiet HEAD 2>/dev/null || tree="$tree, with uncommitted changes"
	{
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "command: $cmd${given[*]:+ ${given[*]}}"
	echo "settings: SIZES=$sizes RUNS=$runs LOOPS=$loops SUITE=$suite_list VARIANTS=$variants CHUNK=$chunk PAGE=$page HUGETLB=$hugetlb HARNESS=$harness FOLIOS=$folios FAULT=$fault WS=${wsets:-(default)} POLLUTE_SECS=$psecs"
	echo "cpu: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo): $(awk -F': ' '/^vendor_id/ { v = $2 } /^cpu family/ { f = $2 } /^model\t/ { m = $2 } /^stepping/ { printf "%s family %#x model %#x stepping %d", v, f, m, $2; exit }' /proc/cpuinfo)"
	echo "features: ${have[*]:-none}; not: ${lack[*]:-(none missing)} (of erms fsrm clzero movdir64b avx512f pdpe1gb in /proc/cpuinfo)"
	echo "machine: $hv, $(nproc) CPUs online, $(awk '/^MemTotal:/ { printf "%.0f", $2 / 1048576 }' /proc/meminfo) GiB"
	echo "load: $(cut -d' ' -f1-3 /proc/loadavg) (load average over 1, 5 and 15 minutes, at the start)"
	echo "host kernel: $(uname -r)"
	echo "tree: workshop $tree; build/linux $(git -C "$SRC" log -1 --format=%h 2>/dev/null || echo '?') ($(git -C "$SRC" rev-list --count base..HEAD 2>/dev/null || echo '?') commits on base)"
	} >"$1"
}

# report PAGE DIR: a page for docs/measurements/ from the run in DIR
# (bench.txt, and bench.meta where the run wrote one), in the format of the
# pages there: the machine, the command and settings, the tables, and the
# entry() lines (the nt_parts.h entry the tables give, and the check of the
# table's policy on the run). What the numbers mean beyond the entry is
# left to whoever commits the page (a comment in it says where).
report() {
	local page=$1 dir=$2 first cpu model_name vfms name ent rest k
	[ -r "$dir/bench.txt" ] || { echo "report: no $dir/bench.txt" >&2; return 1; }
	mt() { # mt KEY: KEY's value in bench.meta, or that it was not recorded
		local v
		v=$(sed -n "s/^$1: //p" "$dir/bench.meta" 2>/dev/null | head -1)
		echo "${v:-not recorded (the run has no bench.meta)}"
	}
	# "make bench on <model name> (family F model M), N CPUs, L3 X as
	# reported; host kernel K"
	first=$(head -1 "$dir/bench.txt")
	model_name=$(sed -n 's/^make bench on \(.*\) (family [0-9]* model [0-9]*), .*/\1/p' <<<"$first")
	rest=$(sed -n 's/^make bench on .* (family [0-9]* model [0-9]*), \(.*\); host kernel .*/\1/p' <<<"$first")
	# touch's "# CPU <vendor> family 0x.. model 0x.. stepping N, ...; erms=.. clzero=.. movdir64b=..: ..."
	cpu=$(grep -m1 '^# CPU ' "$dir/bench.txt" || true)
	vfms=$(sed -n 's/^# CPU \([^,]*\),.*/\1/p' <<<"$cpu")
	[ -n "$vfms" ] || vfms=$(sed -n 's/^make bench on .* (\(family [0-9]* model [0-9]*\)), .*/\1/p' <<<"$first")
	if grep -q '^size  *variant .*total/clear_pages *$' "$dir/bench.txt" &&
	   grep -q '^size  *variant .*total/copy_mc *$' "$dir/bench.txt"; then
		ent=$(entry "$dir/bench.txt") || ent="no entry: entry() failed on $dir/bench.txt (its error above)"
	else
		ent="no entry: the run has no touch fault and touch copy tables (HARNESS=0)"
	fi
	name=$(sed -n 's/.*NT_PART("\([^"]*\)".*/\1/p' <<<"$ent" | head -1)
	[ "$name" != '<name>' ] || name=""
	{
	echo "# ${name:-${model_name:-this CPU}}: ${vfms:-?}"
	echo
	echo "Written by scripts/bench.sh (\`report()\`: \`make bench REPORT=\` or"
	echo "\`scripts/bench.sh --report\`) from the run's \`build/bench/\`; the tables are"
	echo "its \`bench.txt\` as the run printed them. What each table measures:"
	echo "docs/measurements/README.md."
	echo
	echo "| | |"
	echo "|---|---|"
	k=$(grep -o 'erms=[01] clzero=[01] movdir64b=[01]' <<<"$cpu" || true)
	echo "| CPU | ${model_name:-?}: ${vfms:-?}${k:+ (the harness: $k)} |"
	echo "| features | $(mt features) |"
	[ ! -r "$dir/bench.meta" ] || rest=${rest#* CPUs, }
	echo "| machine | $(mt machine); ${rest:-?} |"
	echo "| date | $(mt date) |"
	echo "| host kernel | $(sed -n 's/.*; host kernel //p' <<<"$first") |"
	echo "| tree | $(mt tree) |"
	echo "| command | \`$(mt command)\` |"
	echo "| settings | $(mt settings) |"
	echo "| load | $(mt load) |"
	echo "| time | $(grep -m1 '^measured in ' "$dir/bench.txt" || echo '?') |"
	echo
	echo "## make bench"
	echo
	echo '```'
	# bench.txt up to the entry that the run appended (it follows below)
	awk '/^nt_parts\.h entry for / { exit } { l[++n] = $0 } END { while (n && l[n] == "") n--; for (k = 1; k <= n; k++) print l[k] }' "$dir/bench.txt"
	echo '```'
	echo
	echo "## What it means for the policy"
	echo
	echo "The nt_parts.h entry that these tables give, by the rule of \`entry()\` in"
	echo "scripts/bench.sh, and the table's policy for this CPU checked on the run"
	echo "(at most 1.03 of mainline at every folio size it treats cold); the same"
	echo "lines as \`scripts/bench.sh --entry\` prints on this page:"
	echo
	echo '```'
	echo "$ent"
	echo '```'
	echo
	echo "<!-- To add before committing the page: whether the machine was otherwise"
	echo "     idle, and what the numbers mean for the policy beyond the entry (the"
	echo "     routine's GB/s from make harness-bench, the pollution table). Adding"
	echo "     the part: README.md, \"Adding a CPU model\". -->"
	} >"$page.tmp" && mv "$page.tmp" "$page"
	echo "report: $page"
}

if [ "${1:-}" = --report ]; then
	shift
	[ $# -ge 1 ] && [ $# -le 2 ] || die "usage: scripts/bench.sh --report PAGE.md [DIR] (DIR: a run's build/bench, default $BUILD/bench)"
	page=$(report_check "$1") || exit 1
	report "$page" "${2:-$BUILD/bench}"
	exit
fi

if [ "${1:-}" = --entry ]; then
	shift
	[ $# -gt 0 ] || die "usage: scripts/bench.sh --entry DIR|FILE... (touch-fault.out and touch-copy.out, or a make bench output)"
	files=()
	for a in "$@"; do
		if [ -d "$a" ]; then files+=("$a/touch-fault.out" "$a/touch-copy.out"); else files+=("$a"); fi
	done
	for f in "${files[@]}"; do [ -r "$f" ] || die "--entry: no $f"; done
	entry "${files[@]}"
	exit
fi

# Unset: the default; set but empty: refused below (WS= is the default).
sizes=${SIZES-16M,128M,1G,4G}
runs=${RUNS-5}
loops=${LOOPS-1}
suite_list=${SUITE-memset}
variants=${VARIANTS-stosb,unrolled,movnt}
chunk=${CHUNK-32MB}
page=${PAGE-2MB}
hugetlb=${HUGETLB-1}
harness=${HARNESS-1}
folios=${FOLIOS-16K,64K,256K,1M,2M,32M,1G}
fault=${FAULT-start}
wsets=${WS-}
psecs=${POLLUTE_SECS-0.3}
report_page=""

# --- settings, all checked before anything runs -----------------------------
[[ $runs =~ ^[0-9]+$ ]] && [ "$runs" -ge 1 ] && [ "$runs" -le 50 ] ||
	die "RUNS=$runs: want a number of runs from 1 to 50"
[[ $loops =~ ^[1-9][0-9]*$ ]] || die "LOOPS=$loops: want a number of loops, at least 1"
suites=()
for s in ${suite_list//,/ }; do
	case $s in
	memset|memcpy) [[ " ${suites[*]} " = *" $s "* ]] || suites+=("$s") ;;
	*) die "SUITE: unknown suite '$s', use memset, memcpy or memset,memcpy" ;;
	esac
done
[ ${#suites[@]} -gt 0 ] || die "SUITE is empty"
mibs=()
for s in ${sizes//,/ }; do
	if [[ $s =~ ^([1-9][0-9]*)[Mm][Bb]?$ ]]; then mibs+=("${BASH_REMATCH[1]}")
	elif [[ $s =~ ^([1-9][0-9]*)[Gg][Bb]?$ ]]; then mibs+=($((BASH_REMATCH[1] * 1024)))
	else die "SIZES: unknown size '$s' (use sizes like 16M, 128M, 1G, 4G)"; fi
done
[ ${#mibs[@]} -gt 0 ] || die "SIZES is empty"
mapfile -t mibs < <(printf '%s\n' "${mibs[@]}" | sort -nu)
vars=()
for v in ${variants//,/ }; do
	v=${v#x86-64-}
	[ "$v" = movsb ] && v=stosb
	[[ " stosb unrolled movnt " = *" $v "* ]] ||
		die "VARIANTS: unknown variant '$v' (known: stosb (movsb), unrolled, movnt)"
	[[ " ${vars[*]} " = *" $v "* ]] || vars+=("$v")
done
[ ${#vars[@]} -gt 0 ] || die "VARIANTS is empty"
# CHUNK in KiB (0: one call), PAGE as perf spells it
if [ "$chunk" = 0 ]; then chunk_kb=0
elif [[ $chunk =~ ^([1-9][0-9]*)([KkMmGg])[Bb]?$ ]]; then
	case ${BASH_REMATCH[2]} in
	[Kk]) chunk_kb=${BASH_REMATCH[1]} ;;
	[Mm]) chunk_kb=$((BASH_REMATCH[1] * 1024)) ;;
	*) chunk_kb=$((BASH_REMATCH[1] * 1024 * 1024)) ;;
	esac
else die "CHUNK=$chunk: want 0 or a size like 32MB"; fi
case ${page^^} in
4K|4KB) page=4KB ;;
2M|2MB) page=2MB ;;
*) die "PAGE=$page: want 2MB or 4KB (perf's -p; 1 GiB pages are part b.'s)" ;;
esac
[[ $hugetlb =~ ^[01]$ ]] || die "HUGETLB=$hugetlb: want 0 or 1"
[[ $harness =~ ^[01]$ ]] || die "HARNESS=$harness: want 0 or 1"
case $fault in start|middle|end) ;; *) die "FAULT=$fault: want start, middle or end" ;; esac
for f in ${folios//,/ }; do
	[[ $f =~ ^([1-9][0-9]*)([KkMmGg])[Bb]?$ ]] ||
		die "FOLIOS: unknown size '$f' (use sizes like 16K, 2M, 1G)"
	kb=${BASH_REMATCH[1]}
	case ${BASH_REMATCH[2]} in [Mm]) kb=$((kb * 1024)) ;; [Gg]) kb=$((kb * 1024 * 1024)) ;; esac
	[ "$kb" -ge 4 ] && [ "$kb" -le $((16 * 1024 * 1024)) ] && [ $((kb & (kb - 1))) = 0 ] ||
		die "FOLIOS: '$f' is not a power of two from 4K to 16G"
done
[ -n "${folios//,/}" ] || die "FOLIOS is empty"
for w in ${wsets//,/ }; do
	[[ $w =~ ^[1-9][0-9]*[KkMmGg]?[Bb]?$ ]] || die "WS: unknown size '$w' (use sizes like 256K, 32M)"
done
if [ -n "${REPORT+x}" ]; then report_page=$(report_check "$REPORT") || exit 1; fi
[[ $psecs =~ ^[0-9]*\.?[0-9]+$ ]] && awk -v s="$psecs" 'BEGIN { exit !(s >= 0.05 && s <= 10) }' ||
	die "POLLUTE_SECS=$psecs: want 0.05 to 10 seconds"

# The second perf column: 7.3's -k and -p, as the kernel clears (per 32 MiB
# call, through a huge-page mapping).
kcol=""
if [ "$chunk_kb" != 0 ]; then
	if [ $((chunk_kb % 1024)) = 0 ]; then kcol="-k $((chunk_kb / 1024))MB"; else kcol="-k ${chunk_kb}KB"; fi
fi
[ "$page" = 2MB ] && kcol="$kcol${kcol:+ }-p 2MB"
modes=(4k)
[ -n "$kcol" ] && modes+=(kern)

# Memory: refuse up front rather than swap or OOM. The 4 KiB-page perf runs
# hold their buffers (two for memcpy); the hugetlb parts a pool as large; the
# harness is checked by touch -n below, once it is built.
max=0
for m in "${mibs[@]}"; do [ "$m" -gt $max ] && max=$m; done
bufs=1
[[ " ${suites[*]} " = *" memcpy "* ]] && bufs=2
need4k=$(( max * bufs + 512 ))
need2m=0
[ "$page" = 2MB ] && need2m=$(( max * bufs ))
[ "$hugetlb" = 1 ] && [ $need2m -lt $max ] && need2m=$max
avail=$(( $(awk '/^MemAvailable:/ {print $2}' /proc/meminfo) / 1024 ))
[ $need4k -le $avail ] || die "$max MiB needs about $need4k MiB free for ${suites[*]}, this host has $avail MiB available: drop it from SIZES"
[ $((need2m + 512)) -le $avail ] || die "the hugetlb parts need a pool of $need2m MiB, this host has $avail MiB available: drop sizes, or PAGE=4KB HUGETLB=0"

out=$BUILD/bench
mkdir -p "$out"
rm -f "$out"/bench.{txt,runs,sum,meta} "$out"/{memset,memcpy,faults,touch-fault,touch-copy,pollute}.* \
	"$out"/touch-{fault,copy,pollute}.out "$out"/*.dat
runsf=$out/bench.runs
: >"$runsf"
meta "$out/bench.meta"
tmp=$(mktemp -d)

# --- hugetlb pools and the trap ---------------------------------------------
pools=$(ls /sys/kernel/mm/hugepages/*/nr_hugepages 2>/dev/null || true)
declare -A pool0
for p in $pools; do pool0[$p]=$(cat "$p"); done
restore() {
	local p
	for p in $pools; do
		if [ "$(cat "$p")" != "${pool0[$p]}" ]; then
			echo "bench: restoring $p to ${pool0[$p]}" >&2
			echo "${pool0[$p]}" >"$p" 2>/dev/null || echo "bench: could not restore $p" >&2
		fi
	done
}
child=""
on_exit() {
	restore
	rm -rf "$tmp"
}
on_signal() {	# on_signal NAME STATUS: stop the child (pf-hugetlb puts its pool back), then exit
	trap - INT TERM
	echo "bench: $1, stopping" >&2
	[ -z "$child" ] || kill -TERM "$child" 2>/dev/null || true
	wait 2>/dev/null || true
	exit "$2"	# the EXIT trap restores the pools
}
trap on_exit EXIT
trap 'on_signal SIGINT 130' INT
trap 'on_signal SIGTERM 143' TERM

# bg OUT CMD...: CMD with its stdout in OUT, in the background, so that a
# signal's trap runs at once rather than when CMD is done; CMD's status.
bg() {
	local o=$1 rc=0
	shift
	(exec "$@" >"$o") &	# exec: $! is CMD itself, not a subshell waiting for it
	child=$!
	wait "$child" || rc=$?
	child=""
	return $rc
}

# raise_pool KB PAGES: at least PAGES free huge pages of KB kB, as far as the
# kernel can; prints how many are free. restore() puts the pool back.
raise_pool() {
	local d=/sys/kernel/mm/hugepages/hugepages-${1}kB nr free
	nr=$(cat "$d/nr_hugepages")
	free=$(cat "$d/free_hugepages")
	[ "$free" -ge "$2" ] || echo $((nr + $2 - free)) 2>/dev/null >"$d/nr_hugepages" || true
	cat "$d/free_hugepages"
}

# --- builds, and touch's own check of its settings ---------------------------
perf=$("$TOP/scripts/perf.sh") || die "perf build failed"
if [ "$hugetlb" = 1 ]; then
	"$TOP/scripts/selftests.sh" >&2 || die "pf-hugetlb build failed"
	pfh=$BUILD/selftests-mm/pf-hugetlb
fi
if [ "$harness" = 1 ]; then
	make -s -C "$TOP/harness" KSRC="$SRC" OUT="$BUILD/harness" "$BUILD/harness/touch" "$BUILD/harness/clearpage" >&2 ||
		die "harness build failed"
	touch=$BUILD/harness/touch
	targs_fault=(-r "$runs" -s "$folios" -f "$fault" -x)
	targs_pollute=(-r "$runs" -d "$psecs" -x)
	[ -z "$wsets" ] || targs_pollute+=(-w "$wsets")
	for m in fault copy; do
		"$touch" "$m" "${targs_fault[@]}" -n >&2 || die "touch $m refuses these settings"
	done
	"$touch" pollute "${targs_pollute[@]}" -n >&2 || die "touch pollute refuses these settings"
fi

t0=$(date +%s)
declare -A took
nv=${#vars[@]}
k=0
total=$(( runs * ${#suites[@]} * ${#mibs[@]} * nv * ${#modes[@]} ))
[ "$hugetlb" = 1 ] && total=$(( total + 2 * runs * ${#mibs[@]} ))
[ "$harness" = 1 ] && total=$(( total + 3 ))
step() {	# step TEXT: a progress line
	k=$((k + 1))
	printf '[%d/%d %ds] %s\n' $k $total $(( $(date +%s) - t0 )) "$*" >&2
}
fname() { [ "$1" = memcpy ] && [ "$2" = stosb ] && echo movsb || echo "$2"; }

# perf_one SUITE VARIANT MODE MIB: one perf run, into the runs file
perf_one() {
	local f args=() o bps
	f=$(fname "$1" "$2")
	if [ "$3" = kern ]; then
		if [ "$chunk_kb" != 0 ]; then
			# perf refuses a chunk over the size: then it is one call
			if [ "$chunk_kb" -ge $(( $4 * 1024 )) ]; then args+=(-k "${4}MB")
			elif [ $((chunk_kb % 1024)) = 0 ]; then args+=(-k "$((chunk_kb / 1024))MB")
			else args+=(-k "${chunk_kb}KB"); fi
		fi
		[ "$page" = 2MB ] && args+=(-p 2MB)
	fi
	step "perf bench mem $1 -f x86-64-$f -s ${4}MB -l $loops ${args[*]}"
	bg "$tmp/perf" "$perf" bench -f simple mem "$1" -f "x86-64-$f" -s "${4}MB" -l "$loops" "${args[@]}" ||
		die "perf bench mem $1 -f x86-64-$f -s ${4}MB ${args[*]} failed"
	# -f simple: a "# function" line, then bytes per second
	bps=$(awk '/^[0-9.]+$/ { b = $1 } END { print b }' "$tmp/perf")
	[ -n "$bps" ] || die "perf bench mem $1 -f x86-64-$f ${args[*]} printed no bytes/s: $(cat "$tmp/perf")"
	echo "$1 $2:$3 $4 $(awk -v b="$bps" 'BEGIN { printf "%.3f", b / 1e9 }')" >>"$runsf"
}

# perf_rows MODE MIB...: RUNS runs of every suite and variant, interleaved
perf_rows() {
	local mode=$1 r s m i
	shift
	for ((r = 0; r < runs; r++)); do
		for s in "${suites[@]}"; do
			for m in "$@"; do
				for ((i = 0; i < nv; i++)); do
					perf_one "$s" "${vars[$(( (i + r) % nv ))]}" "$mode" "$m"	# rotated
				done
			done
		done
	done
}

# --- a. perf bench mem, 4 KiB pages -----------------------------------------
notes=()
ta=$(date +%s)
perf_rows 4k "${mibs[@]}"
[ "${modes[1]:-}" = kern ] && [ "$page" = 4KB ] && perf_rows kern "${mibs[@]}"
took[a]=$(( $(date +%s) - ta ))

# --- a. with -p 2MB, and b., on a raised 2 MiB pool ----------------------------
tb=$(date +%s)
if [ $need2m -gt 0 ]; then
	want=$(( need2m / 2 ))
	got=0
	if [ -d /sys/kernel/mm/hugepages/hugepages-2048kB ]; then
		got=$(raise_pool 2048 $want)
		printf '[%ds] 2 MiB hugetlb pool: %d pages free, %d wanted\n' $(( $(date +%s) - t0 )) "$got" "$want" >&2
	fi
	fitp=() fit=()	# the sizes the pool holds: perf -p rows (one or two buffers), b.
	for m in "${mibs[@]}"; do
		if [ "$page" = 2MB ]; then
			if [ $(( m * bufs / 2 )) -le "$got" ]; then fitp+=("$m")
			else total=$(( total - runs * ${#suites[@]} * nv )); fi
		fi
		if [ "$hugetlb" = 1 ]; then
			if [ $(( m / 2 )) -le "$got" ]; then fit+=("$m")
			else total=$(( total - 2 * runs )); fi
		fi
	done
	if [ "$got" -lt "$want" ]; then
		if [ -d /sys/kernel/mm/hugepages/hugepages-2048kB ]; then
			why="the pool gave $got of the $want pages wanted"
		else
			why="this kernel offers none"
		fi
		[ "$page" = 4KB ] || notes+=("2 MiB pages: perf's $kcol rows at ${#fitp[@]} of ${#mibs[@]} sizes: $why")
		[ "$hugetlb" = 0 ] || notes+=("2 MiB pages: faults at ${#fit[@]} of ${#mibs[@]} sizes: $why")
	fi
	[ ${#fitp[@]} = 0 ] || perf_rows kern "${fitp[@]}"
	if [ ${#fit[@]} -gt 0 ]; then
		# Touch the pool once (untimed) where perf's -p rows have not, so
		# that no timed fault is the host's first touch of the memory.
		bg "$tmp/warm" "$perf" bench -f simple mem mmap -f demand -p 2MB -s "${fit[-1]}MB" || true
		for ((r = 0; r < runs; r++)); do
			for m in "${fit[@]}"; do
				for w in $(( r % 2 )) $(( (r + 1) % 2 )); do	# alternate which goes first
					if [ $w = 0 ]; then
						step "perf bench mem mmap -f demand -p 2MB -s ${m}MB"
						bg "$tmp/mmap" "$perf" bench -f simple mem mmap -f demand -p 2MB -s "${m}MB" ||
							die "perf bench mem mmap -p 2MB -s ${m}MB failed"
						bps=$(awk '/^[0-9.]+$/ { b = $1 } END { print b }' "$tmp/mmap")
						[ -n "$bps" ] || die "perf bench mem mmap -p 2MB -s ${m}MB: $(cat "$tmp/mmap")"
						echo "faults perf-2M $m $(awk -v b="$bps" 'BEGIN { printf "%.3f", b / 1e9 }')" >>"$runsf"
					else
						step "pf-hugetlb -p 2M -t zero -s $m -r 1"
						bg "$tmp/pfh" "$pfh" -p 2M -t zero -s "$m" -r 1 || true
						g=$(sed -nE 's/.*clear [0-9]+ MiB by faults: ([0-9.]+) GB\/s.*/\1/p' "$tmp/pfh")
						[ -n "$g" ] || die "pf-hugetlb -p 2M -s $m: no result: $(grep -E 'SKIP|not ok|Bail' "$tmp/pfh" | head -1)"
						echo "faults pf-hugetlb-2M $m $g" >>"$runsf"
					fi
				done
			done
		done
	fi
	restore
fi

# --- b. 1 GiB pages, where the host can reserve them -------------------------
if [ "$hugetlb" = 1 ]; then
	d1g=/sys/kernel/mm/hugepages/hugepages-1048576kB
	gmibs=()
	for m in "${mibs[@]}"; do [ $((m % 1024)) = 0 ] && gmibs+=("$m"); done
	if [ ! -d $d1g ]; then
		why="this kernel offers none (no $d1g)"
		grep -qw pdpe1gb /proc/cpuinfo || why="$why; the CPU has no pdpe1gb"
		notes+=("1 GiB pages: skipped: $why")
	elif [ ${#gmibs[@]} = 0 ]; then
		notes+=("1 GiB pages: skipped: no size in SIZES is a multiple of 1 GiB")
	else
		want=$(( gmibs[-1] / 1024 ))
		got=$(raise_pool 1048576 "$want")
		printf '[%ds] 1 GiB hugetlb pool: %d pages free, %d wanted\n' $(( $(date +%s) - t0 )) "$got" "$want" >&2
		fit=()
		for m in "${gmibs[@]}"; do [ $((m / 1024)) -le "$got" ] && fit+=("$m"); done
		[ ${#fit[@]} = ${#gmibs[@]} ] ||
			notes+=("1 GiB pages: the pool gave $got of the $want pages wanted: ${#fit[@]} of ${#gmibs[@]} sizes run")
		total=$(( total + 2 * runs * ${#fit[@]} ))
		[ ${#fit[@]} = 0 ] || bg "$tmp/warm" "$perf" bench -f simple mem mmap -f demand -p 1GB -s "${fit[-1]}MB" || true
		for ((r = 0; r < runs && ${#fit[@]} > 0; r++)); do
			for m in "${fit[@]}"; do
				step "perf bench mem mmap -f demand -p 1GB -s ${m}MB"
				bg "$tmp/mmap" "$perf" bench -f simple mem mmap -f demand -p 1GB -s "${m}MB" || true
				bps=$(awk '/^[0-9.]+$/ { b = $1 } END { print b }' "$tmp/mmap")
				[ -z "$bps" ] || echo "faults perf-1G $m $(awk -v b="$bps" 'BEGIN { printf "%.3f", b / 1e9 }')" >>"$runsf"
				step "pf-hugetlb -p 1G -t zero -s $m -r 1"
				bg "$tmp/pfh" "$pfh" -p 1G -t zero -s "$m" -r 1 || true
				g=$(sed -nE 's/.*clear [0-9]+ MiB by faults: ([0-9.]+) GB\/s.*/\1/p' "$tmp/pfh")
				[ -z "$g" ] || echo "faults pf-hugetlb-1G $m $g" >>"$runsf"
			done
		done
		restore
	fi
fi
took[b]=$(( $(date +%s) - tb ))

# --- c. the harness ----------------------------------------------------------
tc=$(date +%s)
if [ "$harness" = 1 ]; then
	for m in fault copy; do
		step "touch $m ${targs_fault[*]}"
		bg "$out/touch-$m.out" "$touch" "$m" "${targs_fault[@]}" || die "touch $m failed"
		# run <KiB> <variant> <clear or copy ns/page> <touch ns/page>
		awk -v t="touch-$m" '$1 == "run" {
			printf "%s %s:first %s %s\n%s %s:touch %s %s\n%s %s:total %s %.2f\n",
				t, $3, $2, $4, t, $3, $2, $5, t, $3, $2, $4 + $5 }' "$out/touch-$m.out" >>"$runsf"
	done
	step "touch pollute ${targs_pollute[*]}"
	bg "$out/touch-pollute.out" "$touch" pollute "${targs_pollute[@]}" || die "touch pollute failed"
	awk '$1 == "run" { printf "pollute %s %s %s\n", $3, $2, $5 }' "$out/touch-pollute.out" >>"$runsf"
fi
took[c]=$(( $(date +%s) - tc ))
elapsed=$(( $(date +%s) - t0 ))

# --- tables -------------------------------------------------------------------
# bench.sum: table key x median min max pstdev% n, from every run
sum=$out/bench.sum
awk '{ k = $1 " " $2 " " $3; v[k, ++n[k]] = $4 }
END {
	for (k in n) {
		m = n[k]
		for (i = 1; i <= m; i++) s[i] = v[k, i]
		for (i = 2; i <= m; i++) { x = s[i]; for (j = i - 1; j >= 1 && s[j] > x; j--) s[j + 1] = s[j]; s[j + 1] = x }
		med = m % 2 ? s[(m + 1) / 2] : (s[m / 2] + s[m / 2 + 1]) / 2
		mu = 0; for (i = 1; i <= m; i++) mu += s[i] / m
		sd = 0; for (i = 1; i <= m; i++) sd += (s[i] - mu) ^ 2 / m
		printf "%s %g %g %g %.1f %d\n", k, med, s[1], s[m], mu ? 100 * sqrt(sd) / mu : 0, m
	}
}' "$runsf" | sort -k1,1 -k2,2 -k3,3n >"$sum"

cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
fam=$(awk -F': ' '/^cpu family/ { print $2; exit }' /proc/cpuinfo)
mod=$(awk -F': ' '/^model\t/ { print $2; exit }' /proc/cpuinfo)
llc=$(lscpu -C=NAME,ONE-SIZE 2>/dev/null | awk '$1 == "L3" { print $2 }' || true)
[ -n "$llc" ] || llc=$(getconf LEVEL3_CACHE_SIZE 2>/dev/null | awk '$1 > 0 { print $1 / 1048576 " MiB (CPUID)" }' || true)
txt=$out/bench.txt
{
echo "make bench on $cpu (family $fam model $mod), $(nproc) CPUs, L3 ${llc:-?} as reported; host kernel $(uname -r)"
echo "RUNS=$runs, variants interleaved (order rotated each run); GB/s = 10^9 bytes/s (perf itself prints 2^30-byte \"GB/sec\")"
for s in "${suites[@]}"; do
	echo
	awk -v suite="$s" -v vlist="${vars[*]}" -v modes="${modes[*]}" -v kcol="$kcol" -v loops="$loops" -v runs="$runs" '
	function sz(m) { return m >= 1024 ? m / 1024 "GB" : m "MB" }
	function fn(v) { return suite == "memcpy" && v == "stosb" ? "movsb" : v }
	$1 == suite { k = $2 SUBSEP $3; med[k] = $4; lo[k] = $5; hi[k] = $6; sd[k] = $7; if (!($3 in seen)) { seen[$3] = 1; xs[++nx] = $3 } }
	END {
		nv = split(vlist, vs, " "); nm = split(modes, ms, " ")
		title["4k"] = "one call, 4 KiB pages (seed)"; title["kern"] = kcol " (as the kernel)"
		printf "a. perf bench mem %s -s <size> -l %d%s: GB/s median (min-max) +-pstdev of %d runs\n", suite, loops,
			suite == "memset" ? (loops == 1 ? " (zeros, as page clearing)" : " (bytes 0.." loops - 1 ")") : "", runs
		line = sprintf("%-7s %-12s", "size", "x86-64-")
		for (j = 1; j <= nm; j++) line = line sprintf(" %-30s", title[ms[j]])
		sub(/ +$/, "", line); print line
		if (kcol ~ /-k/) printf "(-k: the size itself where it is smaller)\n"
		for (i = 1; i <= nx; i++) {
			x = xs[i]
			for (v = 1; v <= nv; v++) {
				line = sprintf("%-7s %-12s", v == 1 ? sz(x) : "", fn(vs[v]))
				for (j = 1; j <= nm; j++) {
					k = vs[v] ":" ms[j] SUBSEP x
					line = line (k in med ? sprintf(" %6.2f (%6.2f-%6.2f) +-%4.1f%%", med[k], lo[k], hi[k], sd[k]) : sprintf(" %-30s", "-"))
				}
				sub(/ +$/, "", line); print line
			}
			# movnt against the cached REP STOS/MOVSB, medians
			line = sprintf("%-7s %-12s", "", "movnt/" fn("stosb")); have = 0
			for (j = 1; j <= nm; j++) {
				a = "movnt:" ms[j] SUBSEP x; b = "stosb:" ms[j] SUBSEP x
				if ((a in med) && (b in med) && med[b] > 0) { line = line sprintf(" %+6.1f%%%23s", 100 * (med[a] / med[b] - 1), ""); have = 1 }
				else line = line sprintf(" %-30s", "-")
			}
			sub(/ +$/, "", line); if (have) print line
		}
	}' "$sum"
done
if [ "$hugetlb" = 1 ]; then
	echo
	echo "b. the host kernel's hugetlb fault path (its own clear): GB/s median (min-max) of $runs interleaved runs"
	awk -v runs="$runs" '
	function sz(m) { return m >= 1024 ? m / 1024 "GB" : m "MB" }
	$1 == "faults" { k = $2 SUBSEP $3; med[k] = $4; lo[k] = $5; hi[k] = $6; if (!($3 in seen)) { seen[$3] = 1; xs[++nx] = $3 } }
	END {
		split("2M 1G", ps, " "); agree = 0; differ = 0
		printf "%-7s %-5s %-28s %-28s %s\n", "size", "page", "perf bench mem mmap demand", "pf-hugetlb -t zero", "agree within their spreads?"
		for (i = 1; i <= nx; i++) for (j = 1; j <= 2; j++) {
			x = xs[i]; a = "perf-" ps[j] SUBSEP x; b = "pf-hugetlb-" ps[j] SUBSEP x
			if (!(a in med) && !(b in med)) continue
			ca = a in med ? sprintf("%6.2f (%6.2f-%6.2f)", med[a], lo[a], hi[a]) : "-"
			cb = b in med ? sprintf("%6.2f (%6.2f-%6.2f)", med[b], lo[b], hi[b]) : "-"
			v = "-"
			if ((a in med) && (b in med)) {
				if (runs < 2) v = sprintf("one run each: perf %+.0f%%", 100 * (med[a] / med[b] - 1))
				else if (lo[a] <= hi[b] && lo[b] <= hi[a]) { v = "yes: the ranges overlap"; agree++ }
				else { v = sprintf("no: perf %+.0f%% (medians)", 100 * (med[a] / med[b] - 1)); differ++ }
			}
			printf "%-7s %-5s %-28s %-28s %s\n", sz(x), ps[j], ca, cb, v
		}
		if (agree + differ) printf "perf and pf-hugetlb agree within their spreads at %d of %d sizes\n", agree, agree + differ
	}' "$sum"
fi
for n in "${notes[@]}"; do echo "note: $n"; done
if [ "$harness" = 1 ]; then
	for m in fault copy pollute; do
		echo
		case $m in
		fault) echo "c. touch fault: clear as folio_zero_user(), then a load and a store per line (harness/touch.c)" ;;
		copy) echo "c. touch copy: CoW copy as copy_user_large_folio(), then touch the destination" ;;
		pollute) echo "c. touch pollute: a co-runner's slowdown while the other CPU clears" ;;
		esac
		grep -v '^run ' "$out/touch-$m.out"
	done
fi
echo
echo "measured in $elapsed s: a. ${took[a]} s, 2 MiB pool part and b. ${took[b]} s, c. ${took[c]} s"
} | tee "$txt"

# --- plots --------------------------------------------------------------------
# plot NAME TITLE XLABEL YLABEL XUNIT SPEC...: build/bench/NAME.png, one line
# per SPEC "table|key|title|colour|dashtype" from bench.sum, median with
# min-max error bars; XUNIT MiB or KiB (for the tic labels).
plot() {
	local name=$1 title=$2 xl=$3 yl=$4 xu=$5 spec t key lt lc dt dat p="" xs xr tics
	shift 5
	for spec in "$@"; do
		IFS='|' read -r t key lt lc dt <<<"$spec"
		dat=$out/$name.${key//[^A-Za-z0-9_-]/_}.dat
		awk -v t="$t" -v k="$key" '$1 == t && $2 == k { print $3, $4, $5, $6 }' "$sum" >"$dat"
		[ -s "$dat" ] || { rm -f "$dat"; continue; }
		p="$p${p:+, }'$dat' using 1:2:3:4 with yerrorlines dt $dt lw 2 lc rgb '$lc' title '$lt'"
	done
	[ -n "$p" ] || return 0
	xs=$(cat "$out/$name".*.dat | awk '{ print $1 }' | sort -nu)
	xr=""
	[ "$(wc -w <<<"$xs")" != 1 ] || xr="set xrange [$((xs / 2)):$((xs * 2))]"
	tics=$(for x in $xs; do
		if [ "$xu" = MiB ]; then u=M; v=$x; else u=K; v=$x; fi
		[ "$v" -ge 1048576 ] && [ "$u" = K ] && { v=$((v / 1048576)); u=G; }
		[ "$v" -ge 1024 ] && { v=$((v / 1024)); [ $u = K ] && u=M || u=G; }
		printf '"%s%s" %s,' "$v" "$u" "$x"
	done)
	gnuplot <<-EOF || die "gnuplot failed for $name"
		set terminal pngcairo size 1100,800 noenhanced
		set output '$out/$name.png'
		set title "$title"
		set logscale x 2
		set offsets graph 0.05, graph 0.05, 0, 0
		$xr
		set xtics (${tics%,})
		set xlabel '$xl (log scale)'
		set ylabel '$yl'
		set yrange [0:*]
		set key below horizontal maxcols 2 spacing 1.2
		set grid
		plot $p
	EOF
	echo "plot: $out/$name.png"
}
colour() {
	case $1 in
	stosb|clear_pages|copy_mc|perf-2M) echo '#000000' ;; unrolled) echo '#0072b2' ;;
	movnt|movnti|copy_mc_movnti|pf-hugetlb-2M) echo '#d55e00' ;; clzero|perf-1G) echo '#cc79a7' ;;
	movdir64b) echo '#009e73' ;; *) echo '#56b4e9' ;;
	esac
}
if command -v gnuplot >/dev/null; then
	for s in "${suites[@]}"; do
		specs=()
		for v in "${vars[@]}"; do
			f=$(fname "$s" "$v")
			specs+=("$s|$v:4k|x86-64-$f, one call, 4 KiB pages|$(colour "$v")|1")
			[ -z "$kcol" ] || specs+=("$s|$v:kern|x86-64-$f, $kcol|$(colour "$v")|2")
		done
		plot "$s" "perf bench mem $s on $cpu: GB/s, median and min-max of $runs runs" \
			size 'GB/s (10^9 B/s)' MiB "${specs[@]}"
	done
	if [ "$hugetlb" = 1 ]; then
		plot faults "hugetlb faults, the host kernel's clear ($(uname -r)) on $cpu: median and min-max of $runs runs" \
			size 'GB/s (10^9 B/s)' MiB \
			"faults|perf-2M|perf bench mem mmap -f demand -p 2MB|#000000|1" \
			"faults|pf-hugetlb-2M|pf-hugetlb -p 2M -t zero|#000000|2" \
			"faults|perf-1G|perf bench mem mmap -f demand -p 1GB|#d55e00|1" \
			"faults|pf-hugetlb-1G|pf-hugetlb -p 1G -t zero|#d55e00|2"
	fi
	if [ "$harness" = 1 ]; then
		for m in fault copy; do
			specs=()
			for v in $(awk -v t="touch-$m" '$1 == t { sub(/:.*/, "", $2); print $2 }' "$sum" | sort -u); do
				specs+=("touch-$m|$v:total|$v: $([ $m = fault ] && echo clear || echo copy) + touch|$(colour "$v")|1")
				specs+=("touch-$m|$v:first|$v: $([ $m = fault ] && echo clear || echo copy) alone|$(colour "$v")|2")
			done
			plot "touch-$m" "touch $m (fault at the $fault) on $cpu: ns per 4 KiB page, median and min-max of $runs runs" \
				'folio size' 'ns per 4 KiB page (lower is better)' KiB "${specs[@]}"
		done
		specs=()
		for v in $(awk '$1 == "pollute" && $2 != "idle" { print $2 }' "$sum" | sort -u); do
			specs+=("pollute|$v|co-runner slowdown while $v clears|$(colour "$v")|1")
		done
		plot pollute "touch pollute on $cpu: co-runner slowdown (1: none), median and min-max of $runs runs" \
			'co-runner working set' 'slowdown (ns per line busy / idle)' KiB "${specs[@]}"
	fi
else
	echo "plot: not drawn, gnuplot is missing (make deps installs gnuplot-nox)"
fi
echo "tables: $txt"
echo "runs: $runsf (summary: $sum)"

# --- the nt_parts.h entry for this CPU, from c.'s tables (also in bench.txt) ---
if [ "$harness" = 1 ]; then
	{ echo; entry "$out/touch-fault.out" "$out/touch-copy.out"; } | tee -a "$txt" ||
		echo "entry: not derived from $out/touch-{fault,copy}.out"
else
	echo "entry: not derived (HARNESS=0: no touch tables)"
fi

# --- REPORT=: the page for docs/measurements/ ------------------------------------
[ -z "$report_page" ] || report "$report_page" "$out" || echo "report: not written to $report_page"
