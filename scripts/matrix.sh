#!/usr/bin/env bash
# Boot every row of matrix.tsv, check what
# the kernel decided, and print one line per model plus a pass/fail count.
#
# ROWS="a b@opt1@opt2" boots only those rows, b with the extra command-line
# options opt1 and opt2; MATRIX=name names the logs (build/logs/<name>-<row>.log) and the
# counts (build/results/<name>.counts); SCAN=1 fails a row on any line of
# CONSOLE_BAD (lib.sh) in its console log: the debug kernel's rows.
# MATRIX_JOBS guests boot at a time (default 2: a TCG guest keeps about one
# host core busy, its second vCPU mostly idle); the table is printed in
# row order once every guest has stopped.
. "$(dirname "$0")/lib.sh"

mname=${MATRIX:-matrix}

[ -f "$OBJ/arch/x86/boot/bzImage" ] || die "no kernel: run 'make build' first"
# The series' pf-hugetlb selftest goes into the guest image when it exists.
if [ -f "$SRC/tools/testing/selftests/mm/pf-hugetlb.c" ]; then
	"$TOP/scripts/selftests.sh" || die "could not build pf-hugetlb for the guests"
fi
"$TOP/scripts/initramfs.sh" "$BUILD/initramfs.cpio"
logs=$BUILD/logs
mkdir -p "$logs" "$BUILD/results"
rows=$(matrix_rows)
if [ -n "${ROWS:-}" ]; then
	for r in $ROWS; do
		awk -v n="${r%%@*}" '$1 == n { f = 1 } END { exit !f }' <<<"$rows" ||
			die "ROWS: no row '${r%%@*}' in matrix.tsv"
	done
	runs=$ROWS
else
	runs=$(awk '{print $1}' <<<"$rows")
fi
[ -n "$runs" ] || die "no matrix rows selected (ROWS='${ROWS:-}')"
# The Debian-config kernel, for the rows that boot it.
case " $runs" in *+debian*) debian_kernel || die "no Debian-config kernel" ;; esac

# boot_row <run>: boots it; "<booted> <seconds>" in its log's .rc file.
boot_row() {
	local run=$1 opt="" log=$logs/$mname-$1.log start booted=1
	case $run in *@*) opt=${run#*@} opt=${opt//@/ } ;; esac
	printf '# booting %s\n' "$run" >&2
	start=$(date +%s)
	"$TOP/scripts/boot.sh" -q -l "$log" ${opt:+-a "$opt"} "${run%%@*}" || booted=0
	echo "$booted $(($(date +%s) - start))" >"$log.rc"
}
njobs=${MATRIX_JOBS:-2}
for run in $runs; do
	rm -f "$logs/$mname-$run.log.rc"
	while [ "$(jobs -rp | wc -l)" -ge "$njobs" ]; do wait -n || true; done
	boot_row "$run" &
done
wait

total_pass=0 total_fail=0 total_skip=0
printf '%-30s %-22s %-7s %-14s %-12s %-8s %-15s %-13s %-7s %s\n' model "vendor/fam/model/step" nt_good reason cold copy populate/cow "kunit p/f/s" checks result
for run in $runs; do
	log=$logs/$mname-$run.log
	booted=0 secs=0
	read -r booted secs <"$log.rc" || true
	# KUnit leaves: test cases, or the parameters of a parameterised case
	# (whose own line then only sums them up).
	read -r kp kf ks gp gf gs < <(awk '
		/^        (not )?ok [0-9]+ / { param = 1 }
		/^    (not )?ok [0-9]+ / && param { param = 0; next }
		/^(    |        )ok [0-9]+ .*# SKIP/ { ks++; next }
		/^(    |        )ok [0-9]+ / { kp++ }
		/^(    |        )not ok [0-9]+ / { kf++ }
		/^# nt-guest-checks begin/ { g = 1; next }
		/^# nt-guest-checks end/ { g = 0 }
		g && /^ok .*# SKIP/ { gs++; next }
		g && /^ok / { gp++ }
		g && /^not ok / { gf++ }
		/^# pf-hugetlb begin/ { pf = 1; next }
		/^# pf-hugetlb end: exit/ { pf = 0; if ($NF != 0 && $NF != 4) gf++ }
		pf && /^ok .*# SKIP/ { gs++; next }
		pf && /^ok / { gp++ }
		pf && /^not ok / { gf++ }
		END { printf "%d %d %d %d %d %d\n", kp, kf, ks, gp, gf, gs }' "$log")
	fact=$(grep -m1 '^NT-FACT cpu=' "$log" || true)
	val() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<" ${fact#NT-FACT }"; }
	bf=0; [ $booted = 1 ] || bf=1
	# A boot with no KUnit results at all is a failure too.
	kmiss=0; [ $booted = 1 ] && [ $((kp + kf + ks)) = 0 ] && kmiss=1
	pass=$((kp + gp + booted)) fail=$((kf + gf + bf + kmiss))
	# SCAN=1: the console must be clean (one check, passed or failed).
	bad=""
	if [ "${SCAN:-0}" = 1 ]; then
		bad=$(console_clean "$log" | head -5 || true)
		if [ -z "$bad" ]; then pass=$((pass + 1)); gp=$((gp + 1)); else fail=$((fail + 1)); gf=$((gf + 1)); fi
	fi
	total_pass=$((total_pass + pass)) total_fail=$((total_fail + fail)) total_skip=$((total_skip + ks + gs))
	res=PASS; [ $fail = 0 ] || res=FAIL
	printf '%-30s %-22s %-7s %-14s %-12s %-8s %-15s %-13s %-7s %s (%ss)\n' "$run" "$(val cpu)" "$(val nt_good)" \
		"$(val reason)" "$(val cold)" "$(val copy)" "$(val populate)/$(val cow)" \
		"$kp/$kf/$ks" "$gp/$((gp + gf))" "$res" "$secs"
	if [ $fail != 0 ]; then
		[ -z "$bad" ] || sed 's/^/    | console: /' <<<"$bad"
		# (|| true: head closing the pipe early must not end the matrix)
		{ grep -E '^(not ok|# )|^    not ok|x86/nt:|Kernel panic|BUG:|# .*hung' "$log" || true; } |
			head -20 | sed 's/^/    | /' || true
		echo "    | full log: $log"
	fi
done
echo "$total_pass $total_fail $total_skip" >"$BUILD/results/$mname.counts"
echo "$mname: $total_pass passed, $total_fail failed, $total_skip skipped"
[ $total_fail = 0 ]
