# Workshop for the x86 non-temporal clear/copy series. See README.md.
#
#   make            install what is missing, realise, build, boot one model
#   make check      every test; ends with "N passed, N failed"

CPU ?= EPYC-Milan
S := scripts

.DEFAULT_GOAL := demo
.PHONY: demo deps realise build initramfs boot boot-cpu matrix checkpatch bisect \
	harness harness-bench perf bench analysis selftests mmtests mmtests-broken hugetlb-broken hugetlb-stable sparse builds htmldocs \
	debug debug-broken kunit-broken populate-broken series-size bisect-broken deb bench-kernel package check export status clean distclean help

help:
	@sed -n 's/^## //p' $(firstword $(MAKEFILE_LIST))

## make deps       install missing Debian packages (root)
deps:
	@$(S)/deps.sh

## make realise    unpack the base tree into build/linux and git am patches/
realise: deps
	@$(S)/realise.sh

## make build      build bzImage out of tree in build/obj
build: realise
	@$(S)/build.sh

initramfs:
	@$(S)/initramfs.sh

## make boot CPU=x boot one model (a matrix.tsv row or a QEMU -cpu spec)
boot: boot-cpu build
	@$(S)/initramfs.sh
	@$(S)/boot.sh $(if $(APPEND),-a '$(APPEND)') '$(CPU)'

boot-cpu:
	@$(S)/boot.sh -c '$(CPU)'

## make matrix     boot every matrix.tsv row, one line per model
matrix: build
	@$(S)/matrix.sh

## make checkpatch checkpatch --strict on every patch
checkpatch: realise
	@$(S)/checkpatch.sh

## make bisect     build each patch in turn, kbuild's incremental build with ccache (bisectability)
bisect: realise
	@$(S)/bisect.sh

## make harness    the tree's clear/copy_page asm on this CPU, from userspace
harness: realise
	@$(S)/harness.sh

## make harness-bench  GB/s of every clear routine on this CPU (BENCH_ARGS=...)
harness-bench: realise
	@$(MAKE) -s -C harness KSRC=$(CURDIR)/build/linux OUT=$(CURDIR)/build/harness
	@build/harness/clearpage bench $(BENCH_ARGS)

## make perf       build perf from the tree (build/perf/perf) and check its bench mem
perf: realise
	@$(S)/perf.sh check

## make bench      perf bench mem, hugetlb faults and harness touch in ROUNDS rounds on this host (ROUNDS= RUNS= ...),
##                  ending with the decisions and the sets of folio orders per use they give (scripts/ntbench.py; on a saved
##                  run: scripts/bench.sh --entry DIR); REPORT=docs/measurements/<name>.md also writes the page
bench: realise
	@$(S)/bench.sh

## make vm-trace  record a guest's first touches of its RAM from the host (traces/; make bench's vm table replays them)
vm-trace: realise
	@$(S)/vm-trace.sh $(OUT)

## make analysis   ntbench.py's unit tests (the decision rule on made-up runs) and a small make bench, checked
analysis: realise
	@$(S)/analysis.sh

## make selftests  build pf-hugetlb, hugetlb-fork and hugetlb-exclusive (kselftest build), run pf-hugetlb on this host
selftests: realise
	@$(S)/selftests.sh run

## make mmtests    the kernel's mm selftests (cow, hugetlb, THP) in guests, all large folios cold and with nt_stores=off
mmtests: realise
	@$(S)/mmtests.sh

## make mmtests-broken  make each cold copy flip a byte of its source and show cow fails (then restore it)
mmtests-broken: realise
	@MMTESTS_BROKEN=1 $(S)/mmtests.sh

## make hugetlb-broken  the hugetlb fix series' tests on 1 GiB pages: fail on the base kernel, pass with the fixes
hugetlb-broken: realise
	@HUGETLB_BROKEN=1 $(S)/mmtests.sh

## make hugetlb-stable  the same tests on Debian 12's 6.1 and 6.12 kernels, without and with the backports (patches/hugetlb/stable-*/)
hugetlb-stable: realise
	@HUGETLB_STABLE=1 $(S)/mmtests.sh

## make sparse     sparse (C=2) and W=1 on the series' C files, against the base's
sparse: build
	@$(S)/sparse.sh

## make builds     i386 and arm64 (cross) builds of what the series touches; the cold path compiles away
builds: realise
	@$(S)/builds.sh

## make htmldocs   htmldocs of arch/x86 and admin-guide: no warning from the series' documents
htmldocs: realise
	@$(S)/htmldocs.sh

## make bisect-broken  show that the bisect fails a commit that uses what a later one adds (throwaway branch)
bisect-broken: realise
	@$(S)/bisect-broken.sh

## make debug      the debug kernel (KASAN, lockdep, DEBUG_PREEMPT, ...) booted on 4 rows, console scanned
debug: realise
	@$(S)/debug.sh

## make series-size  the NT series' insertions (at most 2000) and deletions of its own earlier lines (at most 20)
series-size: realise
	@$(S)/series-size.sh

## make kunit-broken  break copy_mc_movnti()'s residue (two ways) and show the KUnit fault test fails (then restore it)
kunit-broken: build
	@$(S)/initramfs.sh
	@$(S)/kunit-broken.sh

## make populate-broken  break mm's populate wiring (two ways) and show the guest's populate_cold check fails (then restore it)
populate-broken: build
	@$(S)/populate-broken.sh

## make debug-broken  break the tree on purpose and show the debug row fails (then restore it)
debug-broken: realise
	@DEBUG_BROKEN=1 $(S)/debug.sh

## make deb        Debian packages of the series for this machine (DEB_CONFIG= local (default), full, tiny or a file)
deb: realise
	@$(S)/deb.sh

## make bench-kernel  as root, booted into the series (make deb): the in-kernel measurement, its decision and entry
##                  (ROUNDS= RUNS= MIB= GPAGES=; REPORT=docs/measurements/<name>.md also writes the page)
bench-kernel: realise
	@$(S)/bench-kernel.sh

## make package    make deb DEB_CONFIG=tiny, its kernel booted, bench-kernel's target script run in that guest
package: build
	@$(S)/package.sh

## make check      checkpatch, series-size, bisect, build, matrix, harness, perf, selftests, package, analysis, mmtests, sparse, builds, htmldocs, debug (BISECT=0: no bisect)
check: realise
	@$(S)/check.sh

## make demo       deps, realise, build, boot $(CPU) and show the decision
demo: boot-cpu build
	@$(S)/initramfs.sh
	@$(S)/boot.sh -q '$(CPU)' && r=0 || r=1; \
	  grep -E '^NT-FACT|x86/nt: (NT stores|cold)|^(not )?ok [0-9]+ ' build/logs/boot-$(CPU).log; \
	  echo "console log: build/logs/boot-$(CPU).log"; exit $$r

## make export     write the tree's commits back to patches/
export:
	@$(S)/export.sh

## make status     is there work in build/linux that patches/ lacks?
status:
	@$(S)/status.sh

clean:
	rm -rf build/obj build/bisect-obj build/bisect-broken-small build/bisect-broken-head build/bisect-selftests build/headers build/debug-obj build/mmtests-sel build/mmtests-extra build/mmtests-initramfs.cpio build/i386-obj build/arm64-obj build/docs build/hugetlb-base-obj build/hugetlb-fix-obj build/stable/*/*-obj \
		build/logs build/results build/initramfs.cpio build/deb build/package-extra build/package-initramfs.cpio

## make distclean  remove build/ (refuses if work is not exported)
distclean:
	@$(S)/status.sh >/dev/null 2>&1 || { $(S)/status.sh; echo "refusing: export or drop that work first"; exit 1; }
	rm -rf build
