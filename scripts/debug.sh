#!/usr/bin/env bash
# The debug kernel: the guest configuration (config/nt.config) with the
# kernel's own debugging (config/debug.config: full preemption with
# PREEMPT_DYNAMIC, DEBUG_PREEMPT, PROVE_LOCKING, DEBUG_ATOMIC_SLEEP, generic
# KASAN, DEBUG_VM, the series' KUnit suites), built in build/debug-obj and
# booted on $DEBUG_ROWS: each row runs KUnit, the guest checks and
# pf-hugetlb (2 MiB zeroing and CoW, both cold where the row is NT-good:
# nt_knobs=2097152,2097152, the debugfs knobs the guest sets; the policies
# clear cold from 1G on Intel and never on AMD, and copy from 2M or 1G), and
# fails on any line of CONSOLE_BAD (lib.sh) in its console log.
#
# First, that check is shown to fail: a clean console log with one bad line
# of each kind added must fail it. DEBUG_BROKEN=1 (make debug-broken) shows
# it with a real kernel instead: it breaks the tree on purpose (an
# smp_processor_id() in preemptible context in the series' boot report),
# builds and boots one row, which must fail on "BUG: using
# smp_processor_id() in preemptible", then restores the tree and rebuilds.
#
# "debug.sh build" only builds the debug kernel (log:
# build/logs/debug-prebuild.log): make check runs it in the background, at
# nice 19, while the stages before this one leave cores idle.
. "$(dirname "$0")/lib.sh"

# One NT-good Intel row, one NT-bad (table) row, one AMD row, and the lazy
# preemption model (x86 in 7.3 has no PREEMPT_NONE: see config/debug.config).
# The GraniteRapids-X rows (QEMU's Icelake-Server model) boot with no5lvl: it has LA57,
# and with 5-level paging an interrupt that lands while identify_cpu()
# has cleared boot_cpu_data's capabilities (arch_cpu_finalize_init(), IRQs
# on) sees pgtable_l5_enabled() false, so KASAN's shadow range is computed
# for 47 bits and any direct-map access is reported as a wild-memory-access
# (seen here in 1 boot of about 14, in handle_edge_irq(); a base kernel
# bug, reported upstream on 7.1-rc5 without this series: LKML 2026-06-10,
# "[PATCH v1] kasan: Fix false-positive wild-memory-access on x86 under
# 5-level paging"). The series has no 5-level-specific code; the matrix
# stage boots Icelake-Server with LA57.
cold2m=nt_knobs=0x403fc,0x40200,0
rows=${DEBUG_ROWS:-"GraniteRapids-X@no5lvl@$cold2m Skylake-Server@$cold2m EPYC-Milan@$cold2m GraniteRapids-X@no5lvl@preempt=lazy@$cold2m"}
res=$BUILD/results
mkdir -p "$res" "$BUILD/logs"
pass=0 fail=0 n=0

dobj=$BUILD/debug-obj
# One make at a time in build/debug-obj (make check's background build).
dbuild() {
	OBJ=$dobj FRAGMENTS="$TOP/config/nt.config $TOP/config/debug.config" \
		flock "$BUILD/.debug-obj.lock" "$TOP/scripts/build.sh" 2>"$BUILD/logs/debug-${1:-build}.log"
}
[ "${1:-}" = build ] && { dbuild prebuild; exit; }

if [ "${DEBUG_BROKEN:-0}" = 1 ]; then
	f=arch/x86/kernel/cpu/nt_quirks.c
	[ -z "$(tree_dirty)" ] || die "$SRC has uncommitted edits; commit them first"
	grep -q '^static int __init nt_stores_debugfs_init(void)$' "$SRC/$f" || die "no nt_stores_debugfs_init() in $f"
	trap 'git -C "$SRC" checkout -q -- "$f"; touch "$SRC/$f"' EXIT
	sed -i '/^static int __init nt_stores_debugfs_init(void)$/,/^{$/ s/^{$/{\n\tpr_info("broken on purpose: CPU %d\\n", smp_processor_id());/' "$SRC/$f"
	git -C "$SRC" diff --stat
	dbuild || die "the broken tree did not build (log: $BUILD/logs/debug-build.log)"
	OBJ=$dobj MATRIX=debug-broken SCAN=1 BOOT_PF_1G=0 BOOT_TIMEOUT=${BOOT_TIMEOUT:-900} \
		ROWS=Icelake-Server "$TOP/scripts/matrix.sh" && r=0 || r=1
	git -C "$SRC" checkout -q -- "$f" && touch "$SRC/$f"
	trap - EXIT
	dbuild || die "the restored tree did not build"
	if [ $r = 1 ] && grep -q 'BUG: using smp_processor_id() in preemptible' "$BUILD/logs/debug-broken-Icelake-Server.log"; then
		echo "ok broken_tree_fails_its_row (console log: $BUILD/logs/debug-broken-Icelake-Server.log)"
		exit 0
	fi
	echo "not ok broken_tree_fails_its_row"
	exit 1
fi

# 1. The console check fails on each kind of line, and passes a clean log.
clean=$BUILD/logs/debug-scan-clean.log
cat >"$clean" <<'LOG'
Linux version 7.3.4 (root@ci) #1 SMP PREEMPT_DYNAMIC
kasan: KernelAddressSanitizer initialized
Lock dependency validator: Copyright (c) 2006 Red Hat, Inc., Ingo Molnar
x86/nt: populate clear: movnti, orders 9; CoW copy: movnti, orders 18
    ok 1 cold_clear_test
NT-GUEST-DONE
LOG
ok=0; console_clean "$clean" >/dev/null && ok=1
ktap $ok console_scan_passes_clean_log
while IFS= read -r line; do
	f=$BUILD/logs/debug-scan-bad.log
	{ cat "$clean"; echo "$line"; } >"$f"
	ok=0; console_clean "$f" >/dev/null || ok=1
	ktap $ok "console_scan_fails_on: $(cut -c1-48 <<<"$line")" "not caught: $line"
done <<'LOG'
BUG: using smp_processor_id() in preemptible [00000000] code: init/1
BUG: sleeping function called from invalid context at mm/memory.c:7590
BUG: KASAN: slab-out-of-bounds in clear_contig_highpages+0x51/0x90
WARNING: possible recursive locking detected
WARNING: inconsistent lock state
WARNING: suspicious RCU usage
WARNING: CPU: 0 PID: 1 at mm/memory.c:7590 folio_zero_user+0x1/0x2
kernel BUG at mm/memory.c:7590!
Oops: general protection fault, probably for non-canonical address
Kernel panic - not syncing: Fatal exception
UBSAN: shift-out-of-bounds in arch/x86/kernel/cpu/nt_quirks.c:99:1
INFO: task init:1 blocked for more than 120 seconds.
LOG
rm -f "$BUILD/logs/debug-scan-bad.log"

# 2. Build the debug kernel.
ok=0
dbuild && ok=1
ktap $ok debug_kernel_builds "$(tail -5 "$BUILD/logs/debug-build.log")"
for o in PREEMPT PREEMPT_DYNAMIC DEBUG_PREEMPT PROVE_LOCKING DEBUG_ATOMIC_SLEEP KASAN KASAN_GENERIC DEBUG_VM; do
	grep -qx "CONFIG_$o=y" "$dobj/.config" 2>/dev/null || { ok=0; echo "# CONFIG_$o is not set"; }
done

# 3. Boot its rows (the matrix's checks, and the console scan), two at a
# time as the matrix's (docs/checks.md: about 150 s against 228 s).
if [ $ok = 1 ]; then
	OBJ=$dobj MATRIX=debug SCAN=1 BOOT_PF_1G=0 BOOT_TIMEOUT=${BOOT_TIMEOUT:-900} \
		ROWS="$rows" "$TOP/scripts/matrix.sh" | sed '$d' || true
else
	echo "0 1 0" >"$res/debug.counts"
fi
read -r mp mf ms <"$res/debug.counts" 2>/dev/null || { mp=0 mf=1 ms=0; }
echo "$((pass + mp)) $((fail + mf)) $ms" >"$res/debug.counts"
echo "debug: $((pass + mp)) passed, $((fail + mf)) failed, $ms skipped"
[ $((fail + mf)) = 0 ]
