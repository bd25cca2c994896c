#!/usr/bin/env bash
# Boot the built kernel in QEMU (TCG) on one CPU model.
#   boot.sh [-c] [-q] [-a 'extra cmdline'] [-l log] CPU
# CPU is a row name from matrix.tsv or any QEMU -cpu spec. With -q the
# console goes only to the log; -c only checks that CPU is known. Exit
# status: 0 when the guest reached the end of its init, 1 otherwise. A guest
# is killed after $BOOT_TIMEOUT s (600 by default), or when its kernel
# prints nothing for $BOOT_STALL s (120) before it runs /init: that early
# hang (QEMU's TCG, seen once in about 120 boots; docs/checks.md, Guests)
# is booted once more, and the retry is printed. A stall after
# /init is not watched: a guest's tests can be silent for long.
. "$(dirname "$0")/lib.sh"

quiet=0 extra="" log="" check_only=0
while getopts "cqa:l:" o; do
	case $o in
	c) check_only=1 ;;
	q) quiet=1 ;;
	a) extra=$OPTARG ;;
	l) log=$OPTARG ;;
	*) die "usage: boot.sh [-q] [-a cmdline] [-l log] CPU" ;;
	esac
done
shift $((OPTIND - 1))
cpu=${1:-}
[ -n "$cpu" ] || die "usage: make boot CPU=<row of matrix.tsv or QEMU -cpu spec>
rows: $(matrix_rows | awk '{print $1}' | tr '\n' ' ')"

row=$(matrix_rows | awk -v n="$cpu" '$1 == n')
if [ -n "$row" ]; then
	IFS=$'\t' read -r name spec want_cpu want_good want_reason want_cold want_copy \
		want_pop want_cow want_gate rowcmd <<<"$row"
	# The set columns are the row's after its nt_knobs=: an nt_knobs= of
	# -a (ROWS="row@opt", the debug and mmtests rows) sets its own ('*':
	# any here; the guest's knob checks still run).
	case " $extra " in *" nt_knobs="*) want_pop='*' want_cow='*' want_gate='*' ;; esac
	[ "$rowcmd" = - ] || extra="$rowcmd $extra"
else
	# Not a row: accept a QEMU -cpu spec whose model QEMU knows.
	model=${cpu%%,*}
	qemu-system-x86_64 -cpu help | awk '$1 == "x86" {print $2}' | grep -qx -- "$model" ||
		die "unknown CPU '$cpu': not a row of matrix.tsv ($(matrix_rows | awk '{print $1}' | tr '\n' ' ')) nor a QEMU CPU model"
	name=$cpu spec=$cpu want_cpu='?' want_good='?' want_reason='?' want_cold='?' want_copy='?'
	want_pop='?' want_cow='?' want_gate='?'
fi
[ $check_only = 1 ] && exit 0
kernel=${KERNEL:-$OBJ/arch/x86/boot/bzImage}
# Rows named *+debian boot the Debian-config kernel (lib.sh's debian_kernel).
case $name in *+debian) kernel=${KERNEL:-$DEBIAN_OBJ/arch/x86/boot/bzImage} ;; esac
[ -f "$kernel" ] || die "no kernel at $kernel: run 'make build' first"
initrd=${INITRD:-$BUILD/initramfs.cpio}
[ -f "$initrd" ] || "$TOP/scripts/initramfs.sh" "$initrd"

log=${log:-$BUILD/logs/boot-$name.log}
mkdir -p "$(dirname "$log")"
append="console=ttyS0 panic=-1 oops=panic loglevel=7 nt_expect_cpu=$want_cpu nt_expect_good=$want_good nt_expect_reason=$want_reason nt_expect_cold=$want_cold nt_expect_copy=$want_copy nt_expect_populate=$want_pop nt_expect_cow=$want_cow nt_expect_gate=$want_gate $extra"
# 8G (allocated by QEMU only as the guest touches it).
mem=${BOOT_MEM:-8G}
# 1 GiB pages are tested on a few rows, not on every one (each 1 GiB clear
# takes seconds under TCG): two 1 GiB pages at boot for pf-hugetlb (its
# zeroing ways and CoW at 1 GiB) and hugetlb-fork/-exclusive on
# EPYC-Milan (AMD: 1 GiB copied cold, cleared cached) and Icelake-Server
# (Intel: both cached, as with NT off); the other rows test 2 MiB pages
# only. BOOT_PF_1G=0 leaves them out (the debug kernel's
# rows: KASAN makes each 1 GiB clear minutes long under TCG); BOOT_HUGE
# replaces the boot pool (the mmtests stage: none).
[ "${BOOT_PF_1G:-1}" = 0 ] || case "$name" in
EPYC-Milan|Icelake-Server)
	append="$append ${BOOT_HUGE-hugepagesz=1G hugepages=2} nt_pf_1g=1" ;;
esac
timeout=${BOOT_TIMEOUT:-600} stall=${BOOT_STALL:-120}

cmd=(qemu-system-x86_64 -accel tcg -cpu "$spec" -smp 2 -m "$mem" -nographic
	-no-reboot -kernel "$kernel" -initrd "$initrd" -append "$append")
[ $quiet = 1 ] || echo "+ ${cmd[*]}" >&2

# One boot, its console to $log (and the terminal without -q). Sets rc
# and why (empty, "timeout" or "stall"). The console is polled every 2 s.
qpid=0 tpid=0
# (never kill 0: that is the whole process group)
trap 'for p in $qpid $tpid; do [ "$p" = 0 ] || kill "$p" 2>/dev/null || true; done' EXIT
trap 'exit 130' INT TERM
boot_once() {
	local size last=-1 still=0 most=0 init=0
	why="" qpid=0 tpid=0
	: >"$log"
	timeout -k 5 "$timeout" "${cmd[@]}" </dev/null >"$log" 2>&1 &
	qpid=$!
	if [ $quiet = 0 ]; then
		tail -n +1 -f --pid=$qpid "$log" &
		tpid=$!
	fi
	while kill -0 $qpid 2>/dev/null; do
		grep -q 'Run /init as init process' "$log" && { init=1; break; }
		sleep 2
		size=$(stat -c %s "$log")
		if [ "$size" = "$last" ]; then still=$((still + 2)); else still=0 last=$size; fi
		[ $still -le $most ] || most=$still
		if [ $still -ge "$stall" ]; then
			why=stall
			kill $qpid 2>/dev/null || true
			break
		fi
	done
	set +e
	wait $qpid
	rc=$?
	set -e
	qpid=0
	[ $tpid = 0 ] || wait $tpid 2>/dev/null || true
	tpid=0
	if [ -z "$why" ] && { [ "$rc" = 124 ] || [ "$rc" = 137 ]; }; then why=timeout; fi
	tr -d '\r' <"$log" >"$log.tmp" && mv "$log.tmp" "$log"
	[ $init = 0 ] ||
		echo "# boot: longest console silence before /init ${most}-$((most + 2))s (polled every 2 s)" >>"$log"
}

rm -f "$log.stalled"

boot_once
if [ "$why" = stall ]; then
	mv "$log" "$log.stalled"
	echo "# $name: no console output for ${stall}s before /init: hung early, booted again (first console: $log.stalled)" >&2
	boot_once
	echo "# $name: the first boot hung early (no console output for ${stall}s before /init; its console: $log.stalled), this is the second" >>"$log"
fi
case $why in
stall)
	echo "# $name: guest hung, no console output for ${stall}s before /init" >>"$log"
	exit 1 ;;
timeout)
	echo "# $name: guest hung, killed after ${timeout}s" >>"$log"
	exit 1 ;;
esac
grep -q '^NT-GUEST-DONE' "$log"
