#!/usr/bin/env bash
# make vm-trace: record when a guest first touches each 4 KiB page of its
# RAM, from the host, for make bench's vm table (scripts/ntbench_vm.py).
#   vm-trace.sh [OUT]   (default traces/vm-first-touch.trace.gz)
# The guest (guest/vm-init: boot, a page cache fill, a JVM-like heap, a
# build-like churn; guest/vm-work.c) runs under QEMU's TCG on VMTRACE_CPU
# (default EPYC-Milan) with VMTRACE_MEM (default 1G) of RAM backed by a file
# on /dev/shm (4 KiB shmem pages: this host's shmem_enabled must be never),
# and the kernel KERNEL (default the Debian-config build: init_on_alloc,
# THP always; VMTRACE_APPEND adds to its command line, e.g.
# transparent_hugepage=madvise as Ubuntu's kernel has it). harness/vmtrace
# polls the file's residency (mincore) every VMTRACE_US microseconds
# (default 1000; the trace's last '#' line says how often it managed) while
# the guest runs, QEMU on CPU 0 and the poller on CPU 1 where there are two.
# TCG's times are not native; the order of first touches is the guest's
# own, to within a poll (a poll's pages are listed in address order). A
# read counts as a touch here (shmem allocates on it), where KVM on
# anonymous memory maps the zero page until the first write. OUT: a
# gzip'd text, '#' lines saying what was recorded (the guest's phases with
# their host times), then "<us> <page>" a line.
. "$(dirname "$0")/lib.sh"

out=${1:-$TOP/traces/vm-first-touch.trace.gz}
mem=${VMTRACE_MEM:-1G}
cpu=${VMTRACE_CPU:-EPYC-Milan}
us=${VMTRACE_US:-1000}
# The Debian-config kernel, built (incrementally) unless KERNEL names one
if [ -z "${KERNEL:-}" ]; then debian_kernel || die "the Debian-config kernel did not build"; fi
kernel=${KERNEL:-$DEBIAN_OBJ/arch/x86/boot/bzImage}
[ -f "$kernel" ] || die "no kernel at $kernel"
shm=$(cat /sys/kernel/mm/transparent_hugepage/shmem_enabled 2>/dev/null || echo '[never]')
[[ $shm = *"[never]"* || $shm = *"[deny]"* ]] ||
	die "shmem_enabled is '$shm': the RAM file would get huge pages and every 2 MiB would look touched at once"
bytes=$(numfmt --from=iec "$mem")
[ $((bytes % (2 << 20))) = 0 ] && [ "$bytes" -le $((3 << 30)) ] ||
	die "VMTRACE_MEM=$mem: want whole MiB-pairs up to 3G (RAM below the PCI hole: file offset = guest-physical address)"
make -s -C "$TOP/harness" KSRC="$SRC" OUT="$BUILD/harness" "$BUILD/harness/vmtrace" >&2 || die "vmtrace build failed"

tmp=$(mktemp -d)
ram=/dev/shm/nt-vmtrace.$$
qpid=0 ppid=0
cleanup() {
	for p in $qpid $ppid; do [ "$p" = 0 ] || kill "$p" 2>/dev/null || true; done
	rm -rf "$tmp" "$ram"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The guest's initramfs: busybox, vm-init as /init, vm-work
mkdir -p "$tmp/root/bin" "$tmp/root/"{dev,proc,sys,tmp}
bb=$(command -v busybox || true)
[ -x /bin/busybox ] && bb=/bin/busybox
[ -n "$bb" ] || die "busybox not found: install busybox-static (make deps)"
cp "$bb" "$tmp/root/bin/busybox"
for a in sh mount sleep dd sed grep awk tr uname dmesg poweroff cat; do ln -s busybox "$tmp/root/bin/$a"; done
install -m 755 "$TOP/guest/vm-init" "$tmp/root/init"
gcc -static -O2 -Wall -Werror -o "$tmp/root/bin/vm-work" "$TOP/guest/vm-work.c" || die "vm-work build failed"
(cd "$tmp/root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) >"$tmp/initrd"

truncate -s "$bytes" "$ram"
spec=$(matrix_rows | awk -v n="$cpu" '$1 == n { print $2 }')
spec=${spec:-$cpu}
cmd=(qemu-system-x86_64 -accel tcg -cpu "$spec" -smp 2 -m "$mem"
	-object "memory-backend-file,id=ram0,size=$mem,mem-path=$ram,share=on,prealloc=off"
	-machine "pc,memory-backend=ram0" -nographic -no-reboot
	-kernel "$kernel" -initrd "$tmp/initrd" -append "console=ttyS0 panic=-1 loglevel=4${VMTRACE_APPEND:+ $VMTRACE_APPEND}")
echo "+ ${cmd[*]}" >&2
# QEMU on CPU 0, the poller alone on CPU 1 (where there are two): it polls
# on time, and a poll's pages, listed in address order, are fewer. The
# guest's two vCPUs then take turns on CPU 0: their touches interleave as
# TCG schedules them, never at the same instant.
pin_q=() pin_p=()
if [ "$(nproc)" -ge 2 ]; then pin_q=(taskset -c 0) pin_p=(taskset -c 1); fi
"${pin_p[@]}" "$BUILD/harness/vmtrace" -i "$us" "$ram" >"$tmp/events" &
ppid=$!
sleep 0.5
# The console, each line with the host's wall time
# (EPOCHREALTIME); vmtrace's first line gives its own start on that clock.
timeout -k 5 "${VMTRACE_TIMEOUT:-1200}" "${pin_q[@]}" "${cmd[@]}" </dev/null 2>&1 |
	while IFS= read -r line; do printf '%s %s\n' "$EPOCHREALTIME" "${line%$'\r'}"; done >"$tmp/console" &
qpid=$!
wait $qpid || true
qpid=0
kill -TERM $ppid 2>/dev/null || true
wait $ppid || true
ppid=0
grep -q ' VM-TRACE-DONE' "$tmp/console" || { tail -20 "$tmp/console" >&2; die "the guest did not finish its workload"; }

t0=$(sed -n 's/^# vmtrace: start \([0-9.]*\).*/\1/p' "$tmp/events")
mkdir -p "$(dirname "$out")"
{
	echo "# vm first-touch trace (scripts/vm-trace.sh, $(date -u '+%Y-%m-%d'))"
	echo "# guest: QEMU $(qemu-system-x86_64 --version | sed -n '1s/.*version \([^ ]*\).*/\1/p') TCG, -cpu $spec, 2 vCPUs, $mem RAM (memory-backend-file on tmpfs, 4 KiB pages)"
	echo "# host: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo), $(uname -r)"
	sed -n 's/.*VM-TRACE workload /# workload: /p' "$tmp/console"
	sed -n 's/.*VM-TRACE kernel /# guest kernel: /p' "$tmp/console"
	echo "# guest command line: ${cmd[-1]}"
	sed -n 's/.*VM-TRACE vmstat /# guest vmstat at the end: /p' "$tmp/console"
	awk -v t0="$t0" '$2 == "VM-TRACE" && $3 == "phase" { printf "# phase %s %.3f s\n", $4, $1 - t0 }' "$tmp/console"
	grep '^#' "$tmp/events"
	echo "# lines: <us since the first poll> <guest page (4 KiB, guest-physical)>"
	grep -v '^#' "$tmp/events"
} | gzip -9n >"$out.tmp"
mv "$out.tmp" "$out"
echo "vm-trace: $(zcat "$out" | grep -vc '^#') pages first touched, in $out" >&2
zcat "$out" | grep '^#' >&2
