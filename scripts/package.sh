#!/usr/bin/env bash
# Stage "package": make deb DEB_CONFIG=tiny (the build stage's objects
# reused), the kernel unpacked from its linux-image package and booted
# under QEMU, and make bench-kernel's target script (guest/bench-kernel) in
# that guest: its refusals, a small measurement whose lines ntbench.py
# turns into a table and an entry, the pools and knobs as it found them.
# A second boot with nt_stores=off: refused, nothing changed.
. "$(dirname "$0")/lib.sh"

res=$BUILD/results
logd=$BUILD/logs
mkdir -p "$res" "$logd"
n=0 pass=0 fail=0
tap=$logd/package.tap
exec 3>&1 >"$tap"
echo "KTAP version 1"
finish() {
	exec >&3
	cat "$tap"
	echo "$pass $fail 0" >"$res/package.counts"
	echo "package: $pass passed, $fail failed"
	[ $fail = 0 ]
	exit
}

dlog=$logd/package-deb.log
ok=1
DEB_CONFIG=tiny "$TOP/scripts/deb.sh" >"$dlog" 2>&1 || ok=0
ktap $ok deb_tiny_builds "$(tail -n 5 "$dlog")"
[ $ok = 1 ] || finish
krel=$(cat "$BUILD/deb/release-tiny")
img=$(ls "$BUILD"/deb/linux-image-"$krel"_*.deb | head -n 1)
un=$BUILD/deb/unpacked
rm -rf "$un"
ok=0
dpkg-deb -x "$img" "$un" && [ -f "$un/boot/vmlinuz-$krel" ] && ok=1
ktap $ok package_holds_the_kernel "$(basename "$img"): $(dpkg-deb -c "$img" 2>&1 | awk '{print $6}' | grep boot/ | tr '\n' ' ')"
[ $ok = 1 ] || finish
case $krel in *-nt-v*) ok=1 ;; *) ok=0 ;; esac
ktap $ok release_names_the_series "release $krel"

# This host's kernel is not the series' (CI's, a developer's VM): bench-
# kernel refuses it and changes nothing (skipped on a kernel of the series).
# (A kernel of the series: make deb's release.)
series_host=0
case $(uname -r) in *-nt-v[0-9]*) series_host=1 ;; esac
if [ ! -e /sys/kernel/debug/x86/nt_stores ] && [ "$(id -u)" = 0 ] && [ $series_host = 0 ]; then
	pools() { cat /sys/kernel/mm/hugepages/hugepages-*/nr_hugepages 2>/dev/null | tr '\n' ' '; grep -c debugfs /proc/mounts || true; }
	before=$(pools)
	rc=0
	msg=$(sh "$TOP/guest/bench-kernel" -r 3 -s 16 -p /bin/true 2>&1) || rc=$?
	ok=0; [ $rc = 2 ] && grep -qE "not a kernel of the NT series|has no debugfs|could not be mounted" <<<"$msg" && [ "$(pools)" = "$before" ] && ok=1
	ktap $ok bench_kernel_refuses_host_kernel "exit $rc: $msg; pools and mounts $(pools) (were $before)"
fi

# The measuring path on this host, against a stand-in debugfs directory
# (its knobs plain files), the host's hugetlb faults and the tree's perf;
# the pool given back, the knobs restored, every kind of line there
# (skipped where the host cannot give the pool: a refusal).
perf=$BUILD/perf/perf
if [ "$(id -u)" = 0 ] && "$TOP/scripts/perf.sh" >/dev/null 2>&1; then
	fake=$(mktemp -d)
	mkdir -p "$fake/x86/nt_stores"
	printf 'nt_good: 1\nnt_clzero: 0\npopulate clear: movnti, orders 9\nCoW copy: movnti, orders 18\n' \
		>"$fake/x86/nt_stores/status"
	echo 0x200 >"$fake/x86/nt_stores/populate_orders"
	echo 0x40000 >"$fake/x86/nt_stores/copy_orders"
	before=$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages)
	rc=0
	DEBUGFS=$fake sh "$TOP/guest/bench-kernel" -r 3 -n 1 -s 32 -g 0 \
		-p "$perf" >"$logd/package-host.out" 2>"$logd/package-host.err" || rc=$?
	if [ $rc != 2 ]; then
		ok=0
		k=$(awk '$1 == "NT-BENCH" { print $3 }' "$logd/package-host.out" | sort | uniq -c | tr -s ' ' | tr '\n' ',')
		[ $rc = 0 ] && [ "$k" = " 6 demand, 6 memset, 6 populate," ] &&
			[ "$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages)" = "$before" ] &&
			[ "$(cat "$fake/x86/nt_stores/populate_orders")" = 0x200 ] &&
			[ "$(cat "$fake/x86/nt_stores/copy_orders")" = 0x40000 ] &&
			python3 "$TOP/scripts/ntbench.py" kernel "$logd/package-host.out" >"$logd/package-host.txt" &&
			grep -q '^demand faults (perf bench mem mmap -f demand) *2M' "$logd/package-host.txt" &&
			grep -q '^populate (perf bench mem mmap -f populate) *2M' "$logd/package-host.txt" && ok=1
		ktap $ok bench_kernel_host_pipeline_with_perf "exit $rc; lines per test:$k; $(tail -n 2 "$logd/package-host.err")"
	fi
	rm -rf "$fake"
fi

# The guest image: pf-hugetlb (static) and bench-kernel with its test
extra=$BUILD/package-extra
rm -rf "$extra"
mkdir -p "$extra/bin"
"$TOP/scripts/selftests.sh" >"$logd/package-selftests.log" 2>&1 ||
	{ ktap 0 guest_image "$(tail -n 5 "$logd/package-selftests.log")"; finish; }
cp "$BUILD/selftests-mm/pf-hugetlb" "$extra/bin/"
install -m 755 "$TOP/guest/bench-kernel" "$TOP/guest/bench-kernel-test" "$extra/bin/"
# perf from the tree (stripped), with the shared libraries it loads, so that
# bench-kernel in the guest measures perf bench mem mmap -f demand and -f
# populate and the memset variants as on a machine of the series
if "$TOP/scripts/perf.sh" >/dev/null 2>&1; then
	strip -o "$extra/bin/perf" "$BUILD/perf/perf"
	for l in $(ldd "$BUILD/perf/perf" | grep -oE '/[^ ]+'); do
		mkdir -p "$extra$(dirname "$l")"
		cp -L "$l" "$extra$l"
	done
fi
initrd=$BUILD/package-initramfs.cpio
GUEST_EXTRA=$extra "$TOP/scripts/initramfs.sh" "$initrd"

# Boot 1: the packaged kernel decides as the build stage's does, and
# bench-kernel runs (2 MiB pages only: guest/bench-kernel-test says why).
# GraniteRapids-X: MOVNTI populate clear, no cold copy.
cpu=${PACKAGE_CPU:-GraniteRapids-X}
glog=$logd/package-boot.log
ok=1
KERNEL=$un/boot/vmlinuz-$krel INITRD=$initrd BOOT_HUGE= BOOT_PF_1G=0 BOOT_TIMEOUT=${BOOT_TIMEOUT:-900} \
	"$TOP/scripts/boot.sh" -q -l "$glog" -a "nt_bench=run" "$cpu" || ok=0
ktap $ok packaged_kernel_boots "$(tail -n 3 "$glog")"
line=$(grep -m1 -E 'x86/nt: (populate clear: |off \()' "$glog" | sed 's/^.*x86\/nt: //')
ok=0; grep -q "Linux version $krel " "$glog" && [ -n "$line" ] && grep -q 'x86/nt: populate clear:' "$glog" && ok=1
ktap $ok packaged_kernel_decides "${line:-no x86/nt line}; $(grep -m1 'Linux version' "$glog" | cut -c1-80)"
ok=0
grep -q '^ok [0-9]* one_story' "$glog" && ! grep -q '^not ok' "$glog" && ok=1
ktap $ok guest_checks_pass "$(grep '^not ok' "$glog" | head -n 5)"
# bench-kernel's own checks, in the guest, each one result here
sed -n '/^# bench-kernel-test begin/,/^# bench-kernel-test end/p' "$glog" >"$logd/package-bench.tap"
got=0
while read -r l; do
	case $l in
	"ok "*) ktap 1 "bench_kernel_${l#ok [0-9]* }"; got=$((got + 1)) ;;
	"not ok "*) ktap 0 "bench_kernel_${l#not ok [0-9]* }" \
		"$(grep -A1 -F "$l" "$logd/package-bench.tap" | sed -n 2p)"; got=$((got + 1)) ;;
	esac
done < <(grep -E '^(not )?ok [0-9]+ ' "$logd/package-bench.tap")
[ $got = 6 ] || ktap 0 bench_kernel_ran "$got of 6 results in the guest's console"
# The host side: the table, the decisions and the entry from the lines
sed -n 's/^BK: //p' "$glog" >"$logd/package-bench.out"
ok=1
python3 "$TOP/scripts/ntbench.py" kernel "$logd/package-bench.out" >"$logd/package-bench.txt" 2>&1 || ok=0
grep -q '^populate (perf bench mem mmap -f populate) *2M' "$logd/package-bench.txt" &&
	grep -q '^demand faults (perf bench mem mmap -f demand) *2M' "$logd/package-bench.txt" &&
	grep -q '^populate set for ' "$logd/package-bench.txt" &&
	grep -q "^the kernel's populate set: 0x200: " "$logd/package-bench.txt" || ok=0
ktap $ok ntbench_kernel_table "$(head -c 1500 "$logd/package-bench.txt")"

# Boot 2: nt_stores=off (matrix row qemu64+off): bench-kernel refuses and changes nothing
glog2=$logd/package-boot-off.log
ok=1
KERNEL=$un/boot/vmlinuz-$krel INITRD=$initrd BOOT_PF_1G=0 BOOT_TIMEOUT=${BOOT_TIMEOUT:-900} \
	"$TOP/scripts/boot.sh" -q -l "$glog2" -a "nt_bench=refuse" qemu64+off || ok=0
ok2=0; grep -q '^ok [0-9]* refuses_without_cold_routine' "$glog2" && ok2=1
[ $ok = 1 ] || ok2=0
ktap $ok2 bench_kernel_refuses_nt_stores_off "$(sed -n '/bench-kernel-test begin/,/bench-kernel-test end/p' "$glog2" | tail -n 4)"
finish
