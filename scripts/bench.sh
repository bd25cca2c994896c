#!/usr/bin/env bash
# make bench: measure on this host, in ROUNDS rounds spread over the run,
# with perf and the harness built from the realised tree; the analysis, the
# decision with its confidence and the sets of folio orders per use are
# scripts/ntbench.py's. Each round runs, one after the other:
#   a. perf bench mem memset (and memcpy with SUITE): one call over a buffer
#      of 4 KiB pages (the seed's table), one call over 2 MiB hugetlb pages
#      (-k <size> -p 2MB: as x86 7.3 clears a range), and 32 MiB calls over
#      2 MiB pages (-k 32MB -p 2MB: a cooperative preemption model's unit,
#      which no x86 7.3 kernel has; an extra column, never the baseline);
#   b. the host kernel's own hugetlb fault path (the kernel this machine
#      runs, not the series and not necessarily 7.3): "perf bench mem mmap
#      -f demand" (a store per 4 KiB page) and "-f populate" (MAP_POPULATE)
#      on 2 MiB pages, and 1 GiB pages where the host offers them;
#   c. the harness (harness/touch.c): fault-then-use for each use of USES
#      (touch fault -t) and CoW copy-then-touch, mainline as x86 7.3 runs
#      it against the series' cold routines (MOVNTI, and CLZERO and
#      MOVDIR64B where the CPU has them) with each cold call unit of UNITS.
#   and touch pollute (a co-runner's slowdown, the clearer paced). Progress
#   on stderr.
#
# Settings (make variables or environment):
#   ROUNDS=5               rounds (3-20): the decision's confidence is
#                          1 - 2^(1-ROUNDS) (93.75 % for 5)
#   RUNS=3                 c.: interleaved runs a round (1-20)
#   GAP=20                 seconds of idle between rounds, so that the rounds
#                          are spread in time (the drift seen on these VMs
#                          is between minutes, not within one round)
#   SIZES=16M,128M,1G      a. and b.: sizes, in M or G
#   SUITE=memset           a.: memset, memcpy or memset,memcpy
#   VARIANTS=stosb,unrolled,movnt   a.: perf's x86-64-* names (memcpy: movsb)
#   MODES=4k,2m,2m32       a.: the columns above (2m and 2m32 need the pool)
#   LOOPS=1                a.: perf's -l (only the first loop writes zeros)
#   HUGETLB=1 HARNESS=1    0 leaves out b. / c. (and with c. the entry)
#   FOLIOS=16K,64K,256K,1M,2M,32M,1G   c.: touch fault's folio sizes
#   USES=all,page,none,later   c.: how the folio is used after its clear
#                          (touch fault -t; docs/measurements/README.md)
#   COPY_FOLIOS=2M,1G      c.: touch copy's (only hugetlb copies large folios)
#   REGIONS=2M,8M,32M,128M,1G  c.: populate then use: a region of each size
#                          of 2 MiB folios cleared back to back, then every
#                          line of it touched (touch fault -s 2M -t later -R;
#                          the section "region"; empty: not run)
#   MT=256M                d.: every CPU populating at once (harness/populate:
#                          one thread a CPU, each its own region of this size
#                          of 2 MiB folios, cleared, then every line stored;
#                          the section "mt"; empty: not run)
#   VM=traces/*.trace.gz   f.: a VM's RAM faulted in on first touch: each
#                          recorded guest trace (make vm-trace) replayed by
#                          harness/vm, mainline against the cold routines,
#                          once per host clear of VM_HOSTS and guest write
#                          model of VM_WRITES (the sections
#                          vm-<host>-<model>-<name>; empty: not run)
#   VM_HOSTS=fault,alloc   f.: the host's clear: folio_zero_user()'s, or
#                          init_on_alloc's (vm -a)
#   VM_WRITES=stosb,run,line  f.: how the guest writes a page (vm -w)
#   UNITS=range,32M        c.: the cold routines' call sizes (touch -u)
#   COLD_UNIT=32M          c.: the unit the series runs, which the entry is
#                          decided with (the series v3: 32M)
#   BASE32=1               c.: also mainline in 32 MiB calls (touch -m), labelled
#   FAULT=start            c.: where the fault is: start, middle or end
#   MARGIN=0.02            the decision's margin (scripts/ntbench.py)
#   WS=  POLLUTE_SECS=0.3  touch pollute's working sets and seconds
#   POLLUTE_PACE=2         touch pollute's clearer pace in GB/s (-p; 0: unpaced)
#   REPORT=docs/measurements/<name>.md   also write the machine's page
#                          (refused before anything runs if it exists)
# Output in build/bench/: bench.meta (the machine and settings), bench.runs
# (every measurement, "<round> <kind> ..."), touch-*.<round>.out (the
# harness's own output), bench.txt (ntbench.py's tables and entry), PNGs.
# Hugetlb pools are raised for the run and put back at its end, and by the
# trap on EXIT, INT and TERM, which also stops the running child first.
#
# On saved runs:
#   scripts/bench.sh --entry DIR|FILE...      the entry they give
#   scripts/bench.sh --report PAGE.md [DIR]   the page of REPORT= from DIR
. "$(dirname "$0")/lib.sh"

ntb() { python3 "$TOP/scripts/ntbench.py" "$@"; }

# The runs recorded for the merge: pages and raw runs in this repository
# and the shared measurements (ntbench.py takes the new-format ones into
# the pooled decision and shows the old-baseline ones as history).
recorded() {
	ls "$TOP"/docs/measurements/*.md "$TOP"/docs/measurements/*/make-bench*.txt \
		"$TOP"/docs/measurements/*/bench.runs "$TOP"/docs/measurements/*/*/bench.runs \
		"$TOP"/../shared/measurements/*/make-bench*.txt 2>/dev/null |
		grep -v '/README\.md$' || true
}


# report_check PAGE: PAGE's absolute path; refused (status 1) unless it is a
# new .md file in a writable folder: a page is never overwritten.
report_check() {
	local p=$1 d
	[ -n "$p" ] || { echo "error: REPORT is empty: name a page, REPORT=docs/measurements/<name>.md" >&2; return 1; }
	[[ $p = *.md ]] || { echo "error: REPORT=$p: want a Markdown page, like docs/measurements/<name>.md" >&2; return 1; }
	[ ! -e "$p" ] || { echo "error: REPORT=$p exists: move it away or name another page (a page is never overwritten)" >&2; return 1; }
	d=$(dirname "$p")
	[ -d "$d" ] && [ -w "$d" ] || { echo "error: REPORT=$p: no writable folder $d" >&2; return 1; }
	echo "$(cd "$d" && pwd)/$(basename "$p")"
}

if [ "${1:-}" = --report ]; then
	shift
	[ $# -ge 1 ] && [ $# -le 2 ] || die "usage: scripts/bench.sh --report PAGE.md [DIR] (DIR: a run's build/bench, default $BUILD/bench)"
	page=$(report_check "$1") || exit 1
	# shellcheck disable=SC2046
	exec python3 "$TOP/scripts/ntbench.py" report "$page" "${2:-$BUILD/bench}" \
		--tree "$SRC" --patches "$PATCHES" --recorded $(recorded)
fi
if [ "${1:-}" = --entry ]; then
	shift
	[ $# -gt 0 ] || die "usage: scripts/bench.sh --entry DIR|FILE... (a run's build/bench, a page, or an old make bench output)"
	# shellcheck disable=SC2046
	exec python3 "$TOP/scripts/ntbench.py" entry --tree "$SRC" --patches "$PATCHES" --recorded $(recorded) -- "$@"
fi

# Unset: the default; set but empty: refused below.
rounds=${ROUNDS-5}
runs=${RUNS-3}
gap=${GAP-20}
sizes=${SIZES-16M,128M,1G}
suite_list=${SUITE-memset}
variants=${VARIANTS-stosb,unrolled,movnt}
modes_list=${MODES-4k,2m,2m32}
loops=${LOOPS-1}
hugetlb=${HUGETLB-1}
harness=${HARNESS-1}
folios=${FOLIOS-16K,64K,256K,1M,2M,32M,1G}
uses_list=${USES-all,page,none,later}
cfolios=${COPY_FOLIOS-2M,1G}
regions=${REGIONS-2M,8M,32M,128M,1G}
mt=${MT-256M}
vm_list=${VM-$(cd "$TOP" && ls traces/*.trace.gz 2>/dev/null | tr '\n' ' ')}
vm_writes=${VM_WRITES-stosb,run,line}
vm_hosts=${VM_HOSTS-fault,alloc}
units=${UNITS-range,32M}
cold_unit=${COLD_UNIT-32M}
base32=${BASE32-1}
fault=${FAULT-start}
margin=${MARGIN-0.02}
wsets=${WS-}
psecs=${POLLUTE_SECS-0.3}
ppace=${POLLUTE_PACE-2}
report_page=""

# --- settings, all checked before anything runs -----------------------------
num() { [[ $1 =~ ^[0-9]+$ ]] && [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }
num "$rounds" 3 20 || die "ROUNDS=$rounds: want 3 to 20 rounds (fewer decide nothing)"
num "$runs" 1 20 || die "RUNS=$runs: want 1 to 20 runs a round"
num "$gap" 0 600 || die "GAP=$gap: want 0 to 600 seconds between rounds"
num "$loops" 1 1000 || die "LOOPS=$loops: want a number of loops, at least 1"
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
	else die "SIZES: unknown size '$s' (use sizes like 16M, 128M, 1G)"; fi
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
modes=()
for m in ${modes_list//,/ }; do
	[[ " 4k 2m 2m32 " = *" $m "* ]] || die "MODES: unknown column '$m' (4k, 2m, 2m32)"
	[[ " ${modes[*]} " = *" $m "* ]] || modes+=("$m")
done
[ ${#modes[@]} -gt 0 ] || die "MODES is empty"
[[ $hugetlb =~ ^[01]$ ]] || die "HUGETLB=$hugetlb: want 0 or 1"
[[ $harness =~ ^[01]$ ]] || die "HARNESS=$harness: want 0 or 1"
[[ $base32 =~ ^[01]$ ]] || die "BASE32=$base32: want 0 or 1"
case $fault in start|middle|end) ;; *) die "FAULT=$fault: want start, middle or end" ;; esac
[[ ",$units," = *",$cold_unit,"* ]] || die "COLD_UNIT=$cold_unit: want one of UNITS=$units"
uses=()
for u in ${uses_list//,/ }; do
	[[ " all page none later " = *" $u "* ]] || die "USES: unknown use '$u' (all, page, none, later)"
	[[ " ${uses[*]} " = *" $u "* ]] || uses+=("$u")
done
[ "$harness" = 0 ] || [ ${#uses[@]} -gt 0 ] || die "USES is empty"
[[ $margin =~ ^0?\.[0-9]+$ ]] || die "MARGIN=$margin: want a fraction such as 0.02"
vms=()
for t in $vm_list; do
	[[ $t = /* ]] || t=$TOP/$t
	[[ $t = *.trace.gz ]] && [ -f "$t" ] || die "VM: no trace $t (traces/<name>.trace.gz, made by make vm-trace)"
	vms+=("$t")
done
for w in ${vm_writes//,/ }; do
	[[ " stosb run line " = *" $w "* ]] || die "VM_WRITES: unknown model '$w' (stosb, run, line)"
done
for h in ${vm_hosts//,/ }; do
	[[ " fault alloc " = *" $h "* ]] || die "VM_HOSTS: unknown host clear '$h' (fault, alloc)"
done
[ ${#vms[@]} = 0 ] || [ -n "${vm_writes//,/}" ] || die "VM_WRITES is empty"
[ ${#vms[@]} = 0 ] || [ -n "${vm_hosts//,/}" ] || die "VM_HOSTS is empty"
if [ -n "${REPORT+x}" ]; then report_page=$(report_check "$REPORT") || exit 1; fi
command -v python3 >/dev/null || die "python3 is missing (make deps)"

# Memory: refuse up front rather than swap or OOM: the 4 KiB-page perf runs
# hold their buffers (two for memcpy), the hugetlb pools as much; the
# harness is checked by touch -n below, once it is built.
max=${mibs[-1]}
bufs=1
[[ " ${suites[*]} " = *" memcpy "* ]] && bufs=2
need2m=0
[[ " ${modes[*]} " = *" 2m"* ]] && need2m=$(( max * bufs ))
[ "$hugetlb" = 1 ] && [ $need2m -lt "$max" ] && need2m=$max
avail=$(( $(awk '/^MemAvailable:/ {print $2}' /proc/meminfo) / 1024 ))
[ $(( max * bufs + need2m + 2048 )) -le $avail ] ||
	die "SIZES up to $max MiB need about $(( max * bufs + need2m + 2048 )) MiB, this host has $avail MiB available: drop sizes"

out=$BUILD/bench
mkdir -p "$out"
rm -f "$out"/bench.* "$out"/touch-*.out "$out"/vm-*.out "$out"/*.png "$out"/*.dat
runsf=$out/bench.runs
: >"$runsf"
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
	[ -d "$d" ] || { echo 0; return; }
	nr=$(cat "$d/nr_hugepages")
	free=$(cat "$d/free_hugepages")
	[ "$free" -ge "$2" ] || echo $((nr + $2 - free)) 2>/dev/null >"$d/nr_hugepages" || true
	cat "$d/free_hugepages"
}

# gbps FILE: perf -f simple's bytes per second in FILE, as 10^9 B/s
gbps() { awk '/^[0-9.]+$/ { b = $1 } END { if (b != "") printf "%.3f\n", b / 1e9 }' "$1"; }

# --- the machine, builds, and touch's own check of its settings -------------
meta() {
	local v cmd=scripts/bench.sh given=() have=() lack=() f flags hv tree
	[ -z "${MAKELEVEL:-}" ] || cmd="make bench"
	for v in ROUNDS RUNS GAP SIZES SUITE VARIANTS MODES LOOPS HUGETLB HARNESS FOLIOS REGIONS MT VM VM_HOSTS VM_WRITES COPY_FOLIOS UNITS \
		 COLD_UNIT BASE32 FAULT MARGIN WS POLLUTE_SECS REPORT; do
		[ -z "${!v+x}" ] || given+=("$v=${!v}")
	done
	flags=" $(awk -F': ' '/^flags/ { print $2; exit }' /proc/cpuinfo) "
	for f in erms fsrm clzero movdir64b avx512f pdpe1gb hybrid_cpu; do
		if [[ $flags = *" $f "* ]]; then have+=("$f"); else lack+=("$f"); fi
	done
	if [[ $flags = *" hypervisor "* ]]; then
		hv=$(lscpu 2>/dev/null | awk -F': *' '/^Hypervisor vendor/ { print $2; exit }' || true)
		hv="a VM (the CPU shows the hypervisor flag${hv:+; lscpu: hypervisor vendor $hv})"
	else
		hv="bare metal (no hypervisor flag)"
	fi
	tree=$(git -C "$TOP" rev-parse --short HEAD 2>/dev/null || echo '?')
	git -C "$TOP" diff --quiet HEAD 2>/dev/null || tree="$tree, with uncommitted changes"
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "command: $cmd${given[*]:+ ${given[*]}}"
	echo "settings: ROUNDS=$rounds RUNS=$runs GAP=$gap SIZES=$sizes SUITE=$suite_list VARIANTS=$variants MODES=$modes_list LOOPS=$loops HUGETLB=$hugetlb HARNESS=$harness FOLIOS=$folios USES=$uses_list REGIONS=$regions MT=$mt VM=${vm_list// /,} VM_HOSTS=$vm_hosts VM_WRITES=$vm_writes COPY_FOLIOS=$cfolios UNITS=$units COLD_UNIT=$cold_unit BASE32=$base32 FAULT=$fault MARGIN=$margin WS=${wsets:-(default)} POLLUTE_SECS=$psecs POLLUTE_PACE=$ppace"
	echo "rounds: $rounds"
	echo "runs: $runs"
	echo "cold_unit: $cold_unit"
	echo "margin: $margin"
	[ -z "$mt" ] || echo "mt_threads: $(nproc)"
	for t in "${vms[@]}"; do echo "vm_trace_$(vm_name "$t"): ${t#"$TOP"/}"; done
	echo "cpu: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo): $(awk -F': ' '/^vendor_id/ { v = $2 } /^cpu family/ { f = $2 } /^model\t/ { m = $2 } /^stepping/ { printf "%s family %#x model %#x stepping %d", v, f, m, $2; exit }' /proc/cpuinfo)"
	echo "features: ${have[*]:-none}; not: ${lack[*]:-(none missing)} (of erms fsrm clzero movdir64b avx512f pdpe1gb hybrid_cpu in /proc/cpuinfo)"
	echo "machine: $hv, $(nproc) CPUs online, $(awk '/^MemTotal:/ { printf "%.0f", $2 / 1048576 }' /proc/meminfo) GiB, L3 $(lscpu -C=NAME,ONE-SIZE 2>/dev/null | awk '$1 == "L3" { print $2 }' || echo '?') as reported"
	echo "load: $(cut -d' ' -f1-3 /proc/loadavg) (load average over 1, 5 and 15 minutes, at the start)"
	echo "host kernel: $(uname -r)"
	echo "tree: workshop $tree; build/linux $(git -C "$SRC" log -1 --format=%h 2>/dev/null || echo '?') ($(git -C "$SRC" rev-list --count base..HEAD 2>/dev/null || echo '?') commits on base)"
}
# vm_name TRACE: the trace's name (traces/<name>.trace.gz: <name>)
vm_name() { local b; b=$(basename "$1"); echo "${b%.trace.gz}"; }
meta >"$out/bench.meta"
perf=$("$TOP/scripts/perf.sh") || die "perf build failed"
if [ "$harness" = 1 ]; then
	make -s -C "$TOP/harness" KSRC="$SRC" OUT="$BUILD/harness" "$BUILD/harness/touch" "$BUILD/harness/clearpage" \
		"$BUILD/harness/populate" "$BUILD/harness/vm" >&2 || die "harness build failed"
	touch=$BUILD/harness/touch
	for t in "${vms[@]}"; do
		zcat "$t" >"$tmp/$(vm_name "$t").trace" || die "VM: $t does not unpack"
		"$BUILD/harness/vm" -n "$tmp/$(vm_name "$t").trace" >&2 || die "vm refuses $t"
	done
	targs_fault=(-r "$runs" -s "$folios" -f "$fault" -u "$units" -x)
	[ "$base32" = 1 ] && targs_fault+=(-m)
	targs_copy=(-r "$runs" -s "$cfolios" -f "$fault" -u "$units" -x)
	targs_pollute=(-r "$runs" -d "$psecs" -p "$ppace" -x)
	[ -z "$wsets" ] || targs_pollute+=(-w "$wsets")
	for u in "${uses[@]}"; do
		"$touch" fault "${targs_fault[@]}" -t "$u" -n >&2 || die "touch fault -t $u refuses these settings"
	done
	targs_region=(-r "$runs" -s 2M -f "$fault" -u "$units" -t later -x)
	for r in ${regions//,/ }; do
		"$touch" fault "${targs_region[@]}" -R "$r" -n >&2 || die "touch fault -R $r refuses these settings"
	done
	"$touch" copy "${targs_copy[@]}" -n >&2 || die "touch copy refuses these settings"
	"$touch" pollute "${targs_pollute[@]}" -n >&2 || die "touch pollute refuses these settings"
fi

t0=$(date +%s)
step() { printf '[round %d/%d %ds] %s\n' $((round + 1)) "$rounds" $(( $(date +%s) - t0 )) "$*" >&2; }

# --- the pools, raised once for the whole run ----------------------------------
got2m=0 got1g=0 notes=()
if [ "$need2m" -gt 0 ]; then
	got2m=$(raise_pool 2048 $(( need2m / 2 )))
	[ "$got2m" -ge $(( need2m / 2 )) ] ||
		notes+=("2 MiB pool: $got2m of the $(( need2m / 2 )) pages wanted: the sizes it cannot hold are left out")
fi
gmibs=()
if [ "$hugetlb" = 1 ]; then
	for m in "${mibs[@]}"; do [ $((m % 1024)) = 0 ] && gmibs+=("$m"); done
	if [ ! -d /sys/kernel/mm/hugepages/hugepages-1048576kB ]; then
		why="this kernel offers none"
		grep -qw pdpe1gb /proc/cpuinfo || why="$why; the CPU has no pdpe1gb"
		notes+=("1 GiB pages: skipped: $why")
		gmibs=()
	elif [ ${#gmibs[@]} -gt 0 ]; then
		got1g=$(raise_pool 1048576 $(( gmibs[-1] / 1024 )))
		[ "$got1g" -ge $(( gmibs[-1] / 1024 )) ] ||
			notes+=("1 GiB pool: $got1g of the $(( gmibs[-1] / 1024 )) pages wanted")
	fi
fi
for n in "${notes[@]}"; do echo "note: $n" >&2; echo "note: $n" >>"$out/bench.meta"; done

# a_round: perf bench mem, each suite, size, column and variant once, the
# variants' order rotated by the round
a_round() {
	local s m mode i v f args
	for s in "${suites[@]}"; do
		for m in "${mibs[@]}"; do
			for mode in "${modes[@]}"; do
				case $mode in
				4k) args=() ;;
				2m) [ $(( m * bufs / 2 )) -le "$got2m" ] || continue; args=(-k "${m}MB" -p 2MB) ;;
				2m32) # at 32 MiB or less it is the 2m column again
					[ "$m" -gt 32 ] && [ $(( m * bufs / 2 )) -le "$got2m" ] || continue
					args=(-k 32MB -p 2MB) ;;
				esac
				for ((i = 0; i < ${#vars[@]}; i++)); do
					v=${vars[$(( (i + round) % ${#vars[@]} ))]}
					f=$v
					[ "$s" = memcpy ] && [ "$v" = stosb ] && f=movsb
					step "perf bench mem $s -f x86-64-$f -s ${m}MB -l $loops ${args[*]}"
					bg "$tmp/perf" "$perf" bench -f simple mem "$s" -f "x86-64-$f" -s "${m}MB" -l "$loops" "${args[@]}" ||
						die "perf bench mem $s -f x86-64-$f -s ${m}MB ${args[*]} failed"
					g=$(gbps "$tmp/perf")
					[ -n "$g" ] || die "perf bench mem $s -f x86-64-$f ${args[*]} printed no bytes/s: $(cat "$tmp/perf")"
					echo "$round perf $s $v $mode $m $g" >>"$runsf"
				done
			done
		done
	done
}

# b_round: the host kernel's fault path, perf bench mem mmap (demand,
# populate), the order rotated by the round
b_round() {
	local m w g pg pp f k
	for pg in 2M 1G; do
		for m in "${mibs[@]}"; do
			if [ $pg = 2M ]; then [ $(( m / 2 )) -le "$got2m" ] || continue; pp=2MB
			else [[ " ${gmibs[*]} " = *" $m "* ]] && [ $(( m / 1024 )) -le "$got1g" ] || continue; pp=1GB; fi
			for w in $(( round % 2 )) $(( (round + 1) % 2 )); do
				f=demand k=perf
				[ $w = 1 ] && f=populate k=perf-populate
				step "perf bench mem mmap -f $f -p $pp -s ${m}MB"
				bg "$tmp/mmap" "$perf" bench -f simple mem mmap -f $f -p $pp -s "${m}MB" ||
					die "perf bench mem mmap -f $f -p $pp -s ${m}MB failed"
				g=$(gbps "$tmp/mmap")
				[ -n "$g" ] || die "perf bench mem mmap -f $f -p $pp -s ${m}MB: $(cat "$tmp/mmap")"
				echo "$round faults $k-$pg $m $g" >>"$runsf"
			done
		done
	done
}

# c_round: touch fault for each use (the sections fault, for all, and
# fault-<use>), populate then use for each region (the section region, its
# size column the region's), touch copy and touch pollute, one round each
c_round() {
	local m o u r t n w h a
	if [ -n "$mt" ]; then
		o=$out/populate-mt.$round.out
		step "populate -s $mt -r $runs (every CPU at once)"
		bg "$o" "$BUILD/harness/populate" -s "$mt" -r "$runs" || die "populate -s $mt failed"
		# run <threads> <KiB a thread> <variant> <first ns/page> <touch ns/page>
		awk -v r="$round" '$1 == "run" { print r, "mt", $3, $4, $5, $6 }' "$o" >>"$runsf"
	fi
	for t in "${vms[@]}"; do
		n=$(vm_name "$t")
		for h in ${vm_hosts//,/ }; do
			a=()
			[ "$h" = alloc ] && a=(-a)
			for w in ${vm_writes//,/ }; do
				o=$out/vm-$h-$w-$n.$round.out
				step "vm -r $runs -w $w ${a[*]} $n"
				bg "$o" "$BUILD/harness/vm" -r "$runs" -w "$w" "${a[@]}" "$tmp/$n.trace" ||
					die "vm -r $runs -w $w ${a[*]} $n failed"
				# run <KiB> <variant> <clear ns/page> <touch ns/page>
				awk -v r="$round" -v s="vm-$h-$w-$n" '$1 == "run" { print r, s, $2, $3, $4, $5 }' "$o" >>"$runsf"
			done
		done
	done
	for r in ${regions//,/ }; do
		o=$out/touch-region-$r.$round.out
		step "touch fault ${targs_region[*]} -R $r"
		bg "$o" "$touch" fault "${targs_region[@]}" -R "$r" || die "touch fault -R $r failed"
		awk -v r="$round" -v k="$(( $(numfmt --from=iec "$r") / 1024 ))" \
			'$1 == "run" { print r, "region", k, $3, $4, $5 }' "$o" >>"$runsf"
	done
	for m in "${uses[@]}" copy pollute; do
		if [ $m = pollute ]; then
			o=$out/touch-pollute.$round.out
			step "touch pollute ${targs_pollute[*]}"
			bg "$o" "$touch" pollute "${targs_pollute[@]}" || die "touch pollute failed"
			# run <ws KiB> <variant> <ns/line> <slowdown> <GB/s>
			awk -v r="$round" '$1 == "run" { print r, "pollute", $2, $3, $5 }' "$o" >>"$runsf"
			continue
		elif [ $m = copy ]; then
			u=copy o=$out/touch-copy.$round.out
			step "touch copy ${targs_copy[*]}"
			bg "$o" "$touch" copy "${targs_copy[@]}" || die "touch copy failed"
		else
			u=fault
			[ $m = all ] || u=fault-$m
			o=$out/touch-$u.$round.out
			step "touch fault ${targs_fault[*]} -t $m"
			bg "$o" "$touch" fault "${targs_fault[@]}" -t "$m" || die "touch fault -t $m failed"
		fi
		# run <KiB> <variant> <clear or copy ns/page> <touch ns/page>
		awk -v r="$round" -v t="$u" '$1 == "run" { print r, t, $2, $3, $4, $5 }' "$o" >>"$runsf"
	done
}

# Untimed: the pools' first touch, so that no timed fault is the host's first.
if [ "$hugetlb" = 1 ] && [ $(( mibs[-1] / 2 )) -le "$got2m" ]; then
	bg "$tmp/warm" "$perf" bench -f simple mem mmap -f demand -p 2MB -s "${mibs[-1]}MB" || true
fi
[ ${#gmibs[@]} = 0 ] || [ "$got1g" = 0 ] ||
	bg "$tmp/warm" "$perf" bench -f simple mem mmap -f demand -p 1GB -s "$(( got1g * 1024 ))MB" || true

for ((round = 0; round < rounds; round++)); do
	if [ "$round" -gt 0 ] && [ "$gap" -gt 0 ]; then
		step "idle for GAP=$gap s"
		sleep "$gap"
	fi
	a_round
	[ "$hugetlb" = 0 ] || b_round
	[ "$harness" = 0 ] || c_round
done
restore
echo "time: $(( $(date +%s) - t0 ))" >>"$out/bench.meta"
# The CPU as the harness identifies it (its CLZERO also checks the line size)
if [ "$harness" = 1 ]; then
	sed -nE 's/^# CPU ([^ ]+) family ([^ ]+) model ([^ ]+) stepping ([0-9]+),.*clzero=([01]) movdir64b=([01]).*/cpuid: \1 \2 \3 \4 clzero=\5 movdir64b=\6/p' \
		"$(ls "$out"/touch-fault*.0.out | head -1)" | head -1 >>"$out/bench.meta"
else
	awk -F': ' '/^vendor_id/ { v = $2 } /^cpu family/ { f = $2 } /^model\t/ { m = $2 } /^stepping/ { s = $2 }
		/^flags/ { c = $2 ~ / clzero( |$)/; d = $2 ~ / movdir64b( |$)/;
			printf "cpuid: %s %#x %#x %d clzero=%d movdir64b=%d\n", v, f, m, s, c, d; exit }' /proc/cpuinfo >>"$out/bench.meta"
fi

# --- the analysis: tables, decisions, the entry, plots, the page ---------------
# shellcheck disable=SC2046
ntb tables "$out" --tree "$SRC" --patches "$PATCHES" --recorded $(recorded) | tee "$out/bench.txt"
ntb plot "$out" >&2 || echo "plot: not drawn" >&2
if [ -n "$report_page" ]; then
	# shellcheck disable=SC2046
	ntb report "$report_page" "$out" --tree "$SRC" --patches "$PATCHES" --recorded $(recorded) ||
		echo "report: not written to $report_page"
fi
echo "tables: $out/bench.txt; runs: $runsf" >&2
