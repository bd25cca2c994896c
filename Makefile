# Workshop for the x86 non-temporal clear/copy series. See README.md.
#
#   make            install what is missing, realise, build, boot one model
#   make check      every test; ends with "N passed, N failed"

CPU ?= qemu64
S := scripts

.DEFAULT_GOAL := demo
.PHONY: demo deps realise build initramfs boot boot-cpu matrix checkpatch bisect \
	harness harness-bench harness-calibrate perf bench selftests check export status clean distclean help

help:
	@sed -n 's/^## //p' README.md

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

## make bisect     build after each patch in turn (own worktree)
bisect: realise
	@$(S)/bisect.sh

## make harness    the tree's clear/copy_page asm on this CPU, from userspace
harness: realise
	@$(S)/harness.sh

## make harness-bench  GB/s of every clear routine on this CPU (BENCH_ARGS=...)
harness-bench: realise
	@$(MAKE) -s -C harness KSRC=$(CURDIR)/build/linux OUT=$(CURDIR)/build/harness
	@build/harness/clearpage bench $(BENCH_ARGS)

## make harness-calibrate  nt_stores=calibrate's procedure and decision on this CPU, checked (CAL_ARGS=...)
harness-calibrate: realise
	@$(MAKE) -s -C harness KSRC=$(CURDIR)/build/linux OUT=$(CURDIR)/build/harness
	@build/harness/clearpage calibrate $(or $(CAL_ARGS),-r 5 -s 128,1024,4096)

## make perf       build perf from the tree (build/perf/perf) and check its bench mem
perf: realise
	@$(S)/perf.sh check

## make bench      perf bench mem, hugetlb faults and harness touch tables + PNGs on this host (SIZES= RUNS= ...)
bench: realise
	@$(S)/bench.sh

## make selftests  build pf-hugetlb (kselftest build) and run it on this host
selftests: realise
	@$(S)/selftests.sh run

## make check      checkpatch, bisect, build, matrix, harness, perf, selftests (BISECT=0: no bisect)
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
	rm -rf build/obj build/bisect-obj build/logs build/results build/initramfs.cpio

## make distclean  remove build/ (refuses if work is not exported)
distclean:
	@$(S)/status.sh >/dev/null 2>&1 || { $(S)/status.sh; echo "refusing: export or drop that work first"; exit 1; }
	rm -rf build
