#!/usr/bin/env bash
# The measurement's analysis and make bench itself, on this host:
#   - scripts/test_ntbench.py: the decision rule, the entry, the merge and
#     the page on made-up runs with known answers (unittest);
#   - a small make bench (3 rounds of one run, small sizes): it must run
#     to its end, write bench.runs with every kind of measurement (each
#     use of touch fault, perf bench mem mmap -f populate, every CPU
#     populating at once) and a bench.txt with the populate set, the
#     every-CPU table (d.), the end-to-end estimate (e., where the host's
#     2 MiB pool let b. run) and the verdict against the vendor's default as
#     the tree has it, and leave the hugetlb pools as it found them. Its
#     numbers mean nothing (three tiny rounds).
. "$(dirname "$0")/lib.sh"

[ -d "$SRC/.git" ] || die "no realised tree at $SRC (make realise)"
mkdir -p "$BUILD/logs" "$BUILD/results"
log=$BUILD/logs/analysis.log
n=0 pass=0 fail=0
unit_tests() {
	(cd "$TOP" && python3 -m unittest discover -s scripts -p 'test_*.py' 2>&1)
}
pools() { cat /sys/kernel/mm/hugepages/*/nr_hugepages 2>/dev/null | xargs; }
small_bench() {
	local before after b=$BUILD/bench
	before=$(pools)
	ROUNDS=3 RUNS=1 GAP=0 SIZES=16M FOLIOS=64K,2M REGIONS=2M,8M MT=16M COPY_FOLIOS=2M POLLUTE_SECS=0.05 WS=1M \
		"$TOP/scripts/bench.sh" >"$BUILD/logs/analysis-bench.log" 2>&1 ||
		{ tail -20 "$BUILD/logs/analysis-bench.log"; return 1; }
	after=$(pools)
	[ "$before" = "$after" ] || { echo "hugetlb pools $before before, $after after"; return 1; }
	for k in perf fault fault-page fault-none fault-later region mt copy pollute; do
		awk -v k="$k" '$2 == k { f = 1 } END { exit !f }' "$b/bench.runs" ||
			{ echo "bench.runs has no '$k' line"; return 1; }
	done
	grep -E "^the vendor's default \(" "$b/bench.txt" || { echo "bench.txt has not read the vendor's default"; return 1; }
	grep -E '^verdict: ' "$b/bench.txt" || { echo "bench.txt has no verdict against the vendor's default"; return 1; }
	grep -E 'populate clear' "$b/bench.txt" || { echo "bench.txt has no populate set"; return 1; }
	grep -E 'the gate: ' "$b/bench.txt" || { echo "bench.txt has no populate gate (populate then use)"; return 1; }
	grep -E '^d\. every CPU populating at once' "$b/bench.txt" ||
		{ echo "bench.txt has no every-CPU populate table"; return 1; }
	# f.: each recorded guest trace replayed, and the decision for KVM's fault
	for t in "$TOP"/traces/*.trace.gz; do
		t=$(basename "$t" .trace.gz)
		for w in fault-stosb fault-run fault-line alloc-stosb alloc-run alloc-line; do
			awk -v k="vm-$w-$t" '$2 == k { f = 1 } END { exit !f }' "$b/bench.runs" ||
				{ echo "bench.runs has no 'vm-$w-$t' line"; return 1; }
		done
	done
	# (the line is folded: its continuation lines are indented)
	awk '/^f\. decision for KVM/ { f = 1; d = $0; next } f && /^    / { d = d " " $0; next } { f = 0 }
		END { print d }' "$b/bench.txt" | tr -s ' ' | grep -E ': movnti (cold|cached|undecided) \(' ||
		{ echo "bench.txt has no decision for KVM's first-touch fault"; return 1; }
	# where the host's 2 MiB pool let b. run, populate beside demand, and the estimate
	if grep -q ' faults perf-2M ' "$b/bench.runs"; then
		grep -m1 -E ' faults perf-populate-2M ' "$b/bench.runs" ||
			{ echo "bench.runs has no perf bench mem mmap -f populate line"; return 1; }
		grep -E '^e\. a populate end to end, an estimate' "$b/bench.txt" ||
			{ echo "bench.txt has no end-to-end estimate"; return 1; }
	fi
	grep -m5 -E 'undecided|cold|cached' "$b/bench.txt"
}
# make vm-trace records a guest (its Debian-config kernel, built by the
# matrix stage's +debian row): the trace names its guest and phases, has
# the guest's pages, and sees them at 4 KiB (most of a region's pages after
# its first: were the RAM file in huge pages, a region would appear whole at
# once); harness/vm accepts it.
vm_trace() {
	local t=$BUILD/vm-trace-check.trace.gz shm
	shm=$(cat /sys/kernel/mm/transparent_hugepage/shmem_enabled 2>/dev/null || echo '[never]')
	[[ $shm = *"[never]"* || $shm = *"[deny]"* ]] || { echo "SKIP shmem_enabled is $shm (the recorder needs 4 KiB shmem pages)"; return 0; }
	"$TOP/scripts/vm-trace.sh" "$t" >"$BUILD/logs/analysis-vm-trace.log" 2>&1 ||
		{ tail -20 "$BUILD/logs/analysis-vm-trace.log"; return 1; }
	zcat "$t" | python3 -c '
import sys
head, later, first, pages = [], 0, {}, 0
for line in sys.stdin:
    if line.startswith("#"):
        head.append(line)
        continue
    t, p = map(int, line.split())
    pages += 1
    if p // 512 not in first:
        first[p // 512] = t
    elif t > first[p // 512]:
        later += 1
text = "".join(head)
for want in ("# guest kernel: ", "thp=always", "heap_alloc=on", "# phase cache", "# phase heap", "# phase jobs"):
    if want not in text:
        sys.exit("the trace has no %r" % want)
print("# %d pages in %d regions, %d after their region'"'"'s first poll" % (pages, len(first), later))
if pages < 32768:
    sys.exit("fewer than 32768 pages (128 MiB): the workload did not run")
if later < pages // 4:
    sys.exit("under a quarter of the pages after their region'"'"'s first poll: not 4 KiB pages?")
' || return 1
	zcat "$t" >"$BUILD/vm-trace-check.trace"
	"$BUILD/harness/vm" -n "$BUILD/vm-trace-check.trace" || return 1
	rm -f "$BUILD/vm-trace-check.trace"
}
{
	echo "KTAP version 1"
	ktap_run ntbench_unit_tests unit_tests
	ktap_run make_bench_small small_bench
	ktap_run vm_trace_records vm_trace
	echo "# analysis: $pass passed, $fail failed"
} 2>&1 | tee "$log"
ktap_counts analysis "$log"
