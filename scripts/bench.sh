#!/usr/bin/env bash
# make bench: the seed's "perf bench mem memset" comparison, on this host,
# with perf built from the realised tree; then the kernel's clear routines
# from userspace (harness: clear_pages() and the cold ones, per 32 MiB unit,
# with CLZERO where the CPU has it) and the host kernel's own
# hugetlb fault throughput (pf-hugetlb). Prints the tables, writes a PNG.
#
# Settings (make variables or environment):
#   SIZES=16M,128M,1G,4G   sizes, in M or G (MiB, GiB)
#   RUNS=5                 runs of each variant at each size, interleaved
#   LOOPS=1                perf's -l (the harness makes one pass). perf's
#                          memset writes the loop index (0, 1, 2, ...), so only
#                          -l 1 writes zeros, as page clearing does: the
#                          seed's setting, and on AMD Zen REP STOSB of zeros
#                          runs about twice as fast as of any other byte
#   SUITE=memset           or memcpy
#   VARIANTS=...           perf's x86-64-* names without the prefix;
#                          memset: stosb,unrolled,movnt  memcpy: movsb,unrolled,movnt
#   HARNESS=1 HUGETLB=1    0 leaves out the harness / pf-hugetlb parts
# Output: build/bench/<suite>.{txt,png}, raw runs in build/bench/<suite>.runs
. "$(dirname "$0")/lib.sh"

suite=${SUITE:-memset}
case $suite in
memset) known="stosb unrolled movnt"; base=stosb ;;
memcpy) known="movsb unrolled movnt"; base=movsb ;;
*) die "SUITE=$suite: unknown, use memset or memcpy" ;;
esac
sizes=${SIZES:-16M,128M,1G,4G}
runs=${RUNS:-5}
loops=${LOOPS:-1}
variants=${VARIANTS:-${known// /,}}
[ "$suite" = memset ] || HARNESS=0 HUGETLB=0	# those two clear, they do not copy

[[ $runs =~ ^[0-9]+$ ]] && [ "$runs" -ge 1 ] && [ "$runs" -le 50 ] ||
	die "RUNS=$runs: want a number of runs from 1 to 50"
[[ $loops =~ ^[1-9][0-9]*$ ]] || die "LOOPS=$loops: want a number of loops, at least 1"
mibs=()
for s in ${sizes//,/ }; do
	if [[ $s =~ ^([1-9][0-9]*)[Mm][Bb]?$ ]]; then mibs+=("${BASH_REMATCH[1]}")
	elif [[ $s =~ ^([1-9][0-9]*)[Gg][Bb]?$ ]]; then mibs+=($((BASH_REMATCH[1] * 1024)))
	else die "SIZES: unknown size '$s' (use sizes like 16M, 128M, 1G, 4G)"; fi
done
[ ${#mibs[@]} -gt 0 ] || die "SIZES is empty"
vars=()
for v in ${variants//,/ }; do
	v=${v#x86-64-}
	[[ " $known " = *" $v "* ]] || die "VARIANTS: unknown $suite variant '$v' (known: $known)"
	vars+=("$v")
done
[ ${#vars[@]} -gt 0 ] || die "VARIANTS is empty"

# Memory: perf holds the buffer (and a source for memcpy) plus its own
# needs; the harness one buffer. Refuse up front rather than swap or OOM.
max=0 min=${mibs[0]}
for m in "${mibs[@]}"; do [ "$m" -gt $max ] && max=$m; [ "$m" -lt $min ] && min=$m; done
bufs=1
[ "$suite" = memcpy ] && bufs=2
need=$(( max * bufs + 512 ))
avail=$(( $(awk '/^MemAvailable:/ {print $2}' /proc/meminfo) / 1024 ))
[ $need -le $avail ] || die "$((max))M needs about ${need} MiB free for $suite, this host has ${avail} MiB available: drop it from SIZES"

out=$BUILD/bench
mkdir -p "$out"
rm -f "$out/$suite".*
runsf=$out/$suite.runs
: >"$runsf"

# Host settings: pf-hugetlb raises the hugetlb pool and puts it back; check
# that it did, and put it back here if something killed it first.
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
trap restore EXIT

perf=$("$TOP/scripts/perf.sh") || die "perf build failed"
[ "${HARNESS:-1}" = 0 ] || make -s -C "$TOP/harness" KSRC="$SRC" OUT="$BUILD/harness" >&2 ||
	die "harness build failed"
[ "${HUGETLB:-1}" = 0 ] || "$TOP/scripts/selftests.sh" >&2 || die "pf-hugetlb build failed"

t0=$(date +%s)
nv=${#vars[@]}
total=$(( runs * ${#mibs[@]} * nv ))
k=0
for ((r = 0; r < runs; r++)); do
	for m in "${mibs[@]}"; do
		for ((i = 0; i < nv; i++)); do
			v=${vars[$(( (i + r) % nv ))]}	# rotate the order each run
			k=$((k + 1))
			printf '[%d/%d %ds] perf bench mem %s -f x86-64-%s -s %dMB -l %d  (run %d of %d)\n' \
				$k $total $(( $(date +%s) - t0 )) "$suite" "$v" "$m" "$loops" $((r + 1)) "$runs" >&2
			bps=$("$perf" bench -f simple mem "$suite" -f "x86-64-$v" -s "${m}MB" -l "$loops") ||
				die "perf bench mem $suite -f x86-64-$v -s ${m}MB failed"
			# -f simple: a "# function" line, then bytes per second
			bps=$(awk '/^[0-9.]+$/ { b = $1 } END { print b }' <<<"$bps")
			[ -n "$bps" ] || die "perf bench mem $suite -f x86-64-$v printed no bytes/s"
			echo "perf x86-64-$v $m $(awk -v b="$bps" 'BEGIN { printf "%.3f", b / 1e9 }')" >>"$runsf"
		done
	done
done

hvars=""
if [ "${HARNESS:-1}" != 0 ]; then
	# Per 32 MiB unit, as folio_zero_user() calls clear_pages() and
	# clear_pages_cold(); and the -all variants, one call over the whole
	# buffer, as perf's memset runs.
	uvars=clear_pages,stosq,unrolled,movnti
	grep -qw clzero /proc/cpuinfo && uvars=$uvars,clzero
	hvars=$uvars,stosb-all,movnti-all
	for m in "${mibs[@]}"; do
		printf '[%ds] harness: the kernel'"'"'s clear routines over %d MiB, %d runs, interleaved\n' \
			$(( $(date +%s) - t0 )) "$m" "$runs" >&2
		o=$("$BUILD/harness/clearpage" bench -x -r "$runs" -s "$m" -v "$uvars") ||
			die "the harness failed at $m MiB"
		awk '$1 == "run" { printf "harness %s %s %s\n", $3, $2, $4 }' <<<"$o" >>"$runsf"
		o=$("$BUILD/harness/clearpage" bench -x -r "$runs" -s "$m" -u 0 -v stosb,movnti) ||
			die "the harness failed at $m MiB"
		awk '$1 == "run" { printf "harness %s-all %s %s\n", $3, $2, $4 }' <<<"$o" >>"$runsf"
	done
fi

hugetlb_note=""
if [ "${HUGETLB:-1}" != 0 ]; then
	for m in "${mibs[@]}"; do
		printf '[%ds] pf-hugetlb -p 2M -t zero -s %d -r %d (the host kernel clears)\n' \
			$(( $(date +%s) - t0 )) "$m" "$runs" >&2
		o=$("$BUILD/selftests-mm/pf-hugetlb" -p 2M -t zero -s "$m" -r "$runs" 2>&1) || true
		line=$(grep -E 'clear [0-9]+ MiB by faults' <<<"$o" || true)
		if [ -n "$line" ]; then
			# "...: X GB/s median of R (lo-hi)": median, lo, hi
			sed -E 's/.*: ([0-9.]+) GB\/s median of [0-9]+ \(([0-9.]+)-([0-9.]+)\).*/\1 \2 \3/' <<<"$line" |
				awk -v m="$m" '{ printf "hugetlb host-2M-faults %s %s %s %s\n", m, $1, $2, $3 }' >>"$runsf"
		else
			why=$(grep -E 'SKIP|not ok|Bail' <<<"$o" | head -1 || true)
			hugetlb_note="$hugetlb_note${hugetlb_note:+; }pf-hugetlb at $m MiB: ${why:-no result, exit status only}"
			echo "bench: pf-hugetlb at $m MiB: ${why:-no result}" >&2
		fi
	done
fi
elapsed=$(( $(date +%s) - t0 ))

# --- tables -----------------------------------------------------------------
cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
fam=$(awk -F': ' '/^cpu family/ { print $2; exit }' /proc/cpuinfo)
mod=$(awk -F': ' '/^model\t/ { print $2; exit }' /proc/cpuinfo)
llc=$(lscpu -C=NAME,ONE-SIZE 2>/dev/null | awk '$1 == "L3" { print $2 }' || true)
txt=$out/$suite.txt
awk -v runs="$runs" -v suite="$suite" -v base="x86-64-$base" -v hvars="$hvars" -v vlist="${vars[*]}" \
    -v head="perf bench mem $suite on $cpu (family $fam model $mod), $(nproc) CPUs, L3 ${llc:-?}; $runs runs of each, variants interleaved" \
    -v loops="$loops" -v note="$hugetlb_note" -v elapsed="$elapsed" '
function mean(key,   i, s) { s = 0; for (i = 1; i <= n[key]; i++) s += v[key, i]; return s / n[key] }
function pstdev(key,   i, s, mu) {
	mu = mean(key); s = 0
	for (i = 1; i <= n[key]; i++) s += (v[key, i] - mu) ^ 2
	return sqrt(s / n[key])
}
function sz(m) { return m >= 1024 ? m / 1024 "GB" : m "MB" }
$1 == "perf" || $1 == "harness" { key = $1 SUBSEP $2 SUBSEP $3; v[key, ++n[key]] = $4; if (!($3 in seen)) { seen[$3] = 1; sizes[++ns] = $3 } }
$1 == "hugetlb" { hmed[$3] = $4; hlo[$3] = $5; hhi[$3] = $6; hug = 1 }
END {
	nv = split(vlist, vs, " ")
	for (i = 1; i <= nv; i++) vs[i] = "x86-64-" vs[i]
	mv = "x86-64-movnt"
	print head
	print "GB/s = 10^9 bytes/s (perf itself prints 2^30-byte \"GB/sec\"); -l " loops (suite != "memset" ? "" : loops == 1 ? ": memset writes zeros, as page clearing does" : ": memset writes the bytes 0.." loops - 1)
	print ""
	line = sprintf("%-8s", ""); sub2 = sprintf("%-8s", "size")
	for (i = 1; i <= nv; i++) { line = line sprintf(" %-25s", vs[i] " (" runs " runs)"); sub2 = sub2 sprintf(" %-25s", "BW ( pstdev)") }
	if (havecol = (index(" " vlist " ", " movnt ") && index(" " vlist " ", " " substr(base, 8) " "))) { line = line "  speedup"; sub2 = sub2 "  movnt/" substr(base, 8) }
	print line; print sub2
	for (s = 1; s <= ns; s++) {
		m = sizes[s]; line = sprintf("%-8s", sz(m))
		for (i = 1; i <= nv; i++) {
			key = "perf" SUBSEP vs[i] SUBSEP m
			mu = mean(key); line = line sprintf(" %6.2f GB/s ( +- %5.2f%%) ", mu, 100 * pstdev(key) / mu)
		}
		if (havecol) {
			a = mean("perf" SUBSEP mv SUBSEP m); b = mean("perf" SUBSEP base SUBSEP m)
			line = line sprintf("  %+7.2f%%", 100 * (a / b - 1))
		}
		print line
	}
	if (hvars != "") {
		nh = split(hvars, hs, ",")
		print ""
		print "harness: the kernel'"'"'s clear routines from userspace, one call per 32 MiB unit as folio_zero_user() makes them"
		print "(clear_pages: what 7.3'"'"'s clear_pages() runs here; -all: one call over the whole buffer), GB/s mean ( +- pstdev)"
		line = sprintf("%-8s", "size")
		for (i = 1; i <= nh; i++) line = line sprintf(" %-20s", hs[i])
		print line
		for (s = 1; s <= ns; s++) {
			m = sizes[s]; line = sprintf("%-8s", sz(m))
			for (i = 1; i <= nh; i++) {
				key = "harness" SUBSEP hs[i] SUBSEP m
				if (!n[key]) { line = line sprintf(" %-20s", "-"); continue }
				mu = mean(key); line = line sprintf(" %6.2f ( +- %5.2f%%) ", mu, 100 * pstdev(key) / mu)
			}
			print line
		}
		# Agreement: the same instructions over the same buffer in both.
		print ""
		print "perf against the harness, the same instructions over the same buffer: means, and whether"
		print "they differ by less than twice the standard error of the difference (\"noisy\": a spread over 15%)"
		printf "%-8s %-36s %-36s %s\n", "size", "movnt (perf) / movnti-all (harness)", "stosb (perf) / stosb-all (harness)", "movnt/stosb: perf, harness"
		for (s = 1; s <= ns; s++) {
			m = sizes[s]; line = sprintf("%-8s", sz(m))
			split("x86-64-movnt movnti-all x86-64-stosb stosb-all", pr, " ")
			for (j = 1; j <= 3; j += 2) {
				kp = "perf" SUBSEP pr[j] SUBSEP m; kh = "harness" SUBSEP pr[j + 1] SUBSEP m
				if (!n[kp] || !n[kh]) { line = line sprintf(" %-36s", "-"); continue }
				a = mean(kp); b = mean(kh)
				d = sqrt(pstdev(kp) ^ 2 / n[kp] + pstdev(kh) ^ 2 / n[kh])
				verdict = (a - b <= 2 * d && b - a <= 2 * d) ? "agree" : sprintf("differ %+.0f%%", 100 * (a / b - 1))
				if (pstdev(kp) > 0.15 * a || pstdev(kh) > 0.15 * b) verdict = verdict ", noisy"
				if (n[kp] < 2 || n[kh] < 2) verdict = "no spread (RUNS=1)"
				line = line sprintf(" %6.2f / %6.2f: %-18s", a, b, verdict)
				mp[j] = a; mh[j] = b
			}
			if (n["perf" SUBSEP pr[1] SUBSEP m] && n["perf" SUBSEP pr[3] SUBSEP m] &&
			    n["harness" SUBSEP pr[2] SUBSEP m] && n["harness" SUBSEP pr[4] SUBSEP m])
				line = line sprintf(" %+.0f%%, %+.0f%%", 100 * (mp[1] / mp[3] - 1), 100 * (mh[1] / mh[3] - 1))
			print line
		}
	}
	if (hug || note != "") {
		print ""
		print "host kernel hugetlb faults (pf-hugetlb -p 2M -t zero; this host'"'"'s kernel clears): GB/s median (min-max)"
		for (s = 1; s <= ns; s++) {
			m = sizes[s]
			if (m in hmed) printf "%-8s %6.2f (%s-%s)\n", sz(m), hmed[m], hlo[m], hhi[m]
		}
		if (note != "") print note
	}
	print ""
	print "measured in " elapsed " s"
}' "$runsf" | tee "$txt"

# --- plot -------------------------------------------------------------------
png=$out/$suite.png
if command -v gnuplot >/dev/null; then
	plot=""
	for key in $(awk '$1 != "hugetlb" { print $1 ":" $2 }' "$runsf" | sort -u) hugetlb:host-2M-faults; do
		src=${key%%:*} name=${key#*:}
		dat=$out/$suite.$src.$name.dat
		awk -v s="$src" -v nm="$name" '
			$1 == s && $2 == nm && s == "hugetlb" { print $3, $4, $5, $6 }
			$1 == s && $2 == nm && s != "hugetlb" { v[$3, ++c[$3]] = $4 }
			END {	# mean and population standard deviation, as in the table
				for (m in c) {
					mu = 0; for (i = 1; i <= c[m]; i++) mu += v[m, i] / c[m]
					sd = 0; for (i = 1; i <= c[m]; i++) sd += (v[m, i] - mu) ^ 2 / c[m]
					print m, mu, mu - sqrt(sd), mu + sqrt(sd)
				}
			}' "$runsf" | sort -n >"$dat"
		[ -s "$dat" ] || { rm -f "$dat"; continue; }
		# One colour per instruction, perf solid, harness dashed.
		case ${name#x86-64-} in
		stosb|movsb|stosb-all) lc='#000000' ;; clear_pages) lc='#e69f00' ;; stosq) lc='#a0a0a0' ;;
		unrolled) lc='#0072b2' ;; movnt|movnti|movnti-all) lc='#d55e00' ;; clzero) lc='#cc79a7' ;;
		*) lc='#009e73' ;;
		esac
		case $src in
		perf) t="perf $name"; dt=1 ;;
		harness) t="harness $name (per 32 MiB unit)"; dt=2
			case $name in *-all) t="harness ${name%-all}, whole buffer" ;; esac ;;
		hugetlb) t="host kernel 2M hugetlb faults (median, min-max)"; dt=3 ;;
		esac
		plot="$plot${plot:+, }'$dat' using 1:2:3:4 with yerrorlines dt $dt lw 2 lc rgb '$lc' title '$t'"
	done
	gnuplot <<-EOF || die "gnuplot failed"
		set terminal pngcairo size 1100,800 noenhanced
		set output '$png'
		set title "$suite on $cpu: GB/s (10^9 B/s), mean +- pstdev of $runs runs"
		set logscale x 2
		set xrange [$(( min * 3 / 4 )):$(( max * 4 / 3 ))]
		set xtics ($(printf '"%s" %s,' $(for m in "${mibs[@]}"; do [ $m -ge 1024 ] && echo "$((m / 1024))G $m" || echo "${m}M $m"; done) | sed 's/,$//'))
		set xlabel 'size (log scale)'
		set ylabel 'GB/s'
		set yrange [0:*]
		set key below horizontal maxcols 2 spacing 1.2
		set grid
		plot $plot
	EOF
	echo "plot: $png"
else
	echo "plot: not drawn, gnuplot is missing (make deps installs gnuplot-nox)"
fi
echo "table: $txt"
echo "runs: $runsf"
