// SPDX-License-Identifier: GPL-2.0
/*
 * vm: a guest's first touches of its RAM (a trace of make vm-trace), replayed
 * at native speed against the host's clear of each 2 MiB folio, with the
 * realised tree's routines called as the kernel calls them.
 *
 *   vm [-r runs] [-w stosb|run|line] [-a] [-n] TRACE
 *
 * TRACE: "<us> <page>" lines in the order the guest first touched each
 * 4 KiB guest-physical page ('#' lines are comments; the times are not
 * used: TCG's are not native, the order is the guest's own). The guest's
 * RAM is a pool of 2 MiB transparent huge pages here, faulted in before
 * anything is timed (refused unless it is). A run replays the trace twice
 * per variant, in the order A B B A (A and B swapped every other run), each
 * replay after an untimed read of 2 x LLC of other memory (no variant
 * inherits the caches of the one before), and takes each variant's mean:
 *   - a page whose 2 MiB region the guest has not touched yet is the host's
 *     fault on it (KVM's GUP, handle_mm_fault(), a THP): the region is
 *     cleared as folio_zero_user() clears it with the page as the fault,
 *     mm/memory.c of the base: r[0] right of the fault, r[1] left of it,
 *     r[2] the fault's page +- FOLIO_ZERO_LOCALITY_RADIUS (2) pages last;
 *     clear_pages: each range with clear_pages() (REP STOSB on ERMS CPUs,
 *     else REP STOSQ, the REP_GOOD alternative), one call a range as on
 *     every x86 7.3 kernel (preemptible; a cooperative kernel's batch,
 *     PROCESS_PAGES_NON_PREEMPT_BATCH, is 32 MiB: one call too);
 *     movnti, clzero (where the CPU has it): r[0] and r[1] with the series'
 *     cold routine, one call a range, r[2] with clear_pages(), last;
 *     with -a, the host's init_on_alloc (Debian's, Ubuntu's, Fedora's
 *     kernels): the page allocator's clear, one clear_pages() over the
 *     folio in address order, against the cold routine over the folio
 *     (ALLOC_ZERO_COLD) and then the fault's page +- 2 with clear_pages();
 *   - then, and for every later page, the guest's own first write of the
 *     page, as -w says: stosb (the default), clear_pages() of its 4 KiB,
 *     as the guest's clear_page() zeroes a page it takes (its anonymous
 *     fault, init_on_alloc); run, one clear_pages() over each run of
 *     pages the trace lists consecutively in one region (a guest's THP
 *     clear, a large copy: calls up to 2 MiB; the recorder lists a poll's
 *     pages in address order, so a run may also join 4 KiB writes made
 *     apart within one poll); line, a load and a store of one word in
 *     every 64-byte line (touch fault -t all's use: not how a guest
 *     writes, the model's sensitivity). REP STOSB over lines that are not
 *     cached costs very differently per call size, so the three bracket
 *     the guest's writes rather than one of them being the guest.
 * Between two touches nothing else runs: the guest's own work between them
 * (seconds, in a real VM) is left out, which keeps a cached clear's lines
 * in the caches longer than they would stay: it favours mainline.
 *
 * Output: '#' lines, then per run and variant "run <KiB> <variant> <clear
 * ns> <touch ns>": KiB of the regions the trace touches, and ns per 4 KiB
 * page of them for the host's clears and for the guest's writes (all the
 * replay's time but the clears: a cold clear's stores still draining after
 * its SFENCE are paid there, so only the total compares the variants).
 * -n: read the trace, say what would run, exit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "routines.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE	23
#endif

#define PAGE		4096UL
#define PMD		(2UL << 20)
#define NR		512L	/* pages of a 2 MiB folio */
#define RADIUS		2	/* FOLIO_ZERO_LOCALITY_RADIUS, mm/memory.c */
#define MAX_RUNS	64

typedef unsigned long (*clear_fn)(void *, size_t);

/* routines.h's probes take it as their source */
const uint8_t empty_zero_page[PAGE] __attribute__((aligned(PAGE)));

struct variant {
	const char *name;
	clear_fn cold;		/* r[0] and r[1]; NULL: clear_pages() */
};

static clear_fn cached;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void clear(clear_fn fn, uint8_t *p, size_t len)
{
	if (fn(p, len)) {
		fprintf(stderr, "vm: %%rax not zero after a clear\n");
		exit(1);
	}
}

static bool host_alloc;	/* -a: the host's init_on_alloc zeroes the folio */

/*
 * The host's clear of the 2 MiB folio at @folio for a fault on page @idx:
 * folio_zero_user(), or with -a post_alloc_hook()'s (init_on_alloc: one
 * clear_pages() over the folio, no fault address; cold: the series'
 * ALLOC_ZERO_COLD over the folio, then the fault's page +- 2 again with
 * clear_pages(), so that they are cached as folio_zero_user() leaves them).
 */
static void zero_folio(const struct variant *v, uint8_t *folio, long idx)
{
	long s2 = idx - RADIUS < 0 ? 0 : idx - RADIUS;
	long e2 = idx + RADIUS > NR - 1 ? NR - 1 : idx + RADIUS;
	clear_fn far = v->cold ? v->cold : cached;

	if (host_alloc) {
		clear(far, folio, NR * PAGE);
		if (v->cold)
			clear(cached, folio + s2 * PAGE, (e2 - s2 + 1) * PAGE);
		return;
	}

	if (e2 + 1 < NR)		/* r[0], right of the fault */
		clear(far, folio + (e2 + 1) * PAGE, (NR - 1 - e2) * PAGE);
	if (s2 > 0)			/* r[1], left of it */
		clear(far, folio, s2 * PAGE);
	clear(cached, folio + s2 * PAGE, (e2 - s2 + 1) * PAGE);
}

/* -w line: a load and a store of one word in every line of the page */
static void touch_lines(uint8_t *p)
{
	size_t off;

	for (off = 0; off < PAGE; off += 64)
		((volatile uint64_t *)(p + off))[0] += 1;
}

/* The AnonHugePages of this process (smaps_rollup), in bytes, or -1 */
static long thp_bytes(void)
{
	char line[128];
	long kb = -1;
	FILE *f = fopen("/proc/self/smaps_rollup", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb < 0 ? -1 : kb << 10;
}

/* A PMD-aligned region of THP, every page present */
static uint8_t *map_thp(size_t len)
{
	uint8_t *p = mmap(NULL, len + PMD, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	size_t off;

	if (p == MAP_FAILED) {
		fprintf(stderr, "vm: mmap of %zu MiB: %s\n", len >> 20, strerror(errno));
		exit(1);
	}
	p = (uint8_t *)(((uintptr_t)p + PMD - 1) & ~(PMD - 1));
	madvise(p, len, MADV_HUGEPAGE);
	if (madvise(p, len, MADV_POPULATE_WRITE))
		for (off = 0; off < len; off += PAGE)
			p[off] = 1;
	return p;
}

static uint8_t *pool, *other, *done;
static uint32_t *ev;
static size_t nev, npages, llc;
static enum { STOSB, RUN, LINE } model;
static const char * const model_name[] = { "stosb", "run", "line" };

/* One replay of the trace with variant @v: its total and clear ns */
static void replay(const struct variant *v, uint64_t *total, uint64_t *clears)
{
	volatile uint64_t sink = 0;
	uint64_t t0, t, cl = 0;
	size_t i;

	for (i = 0; i < 2 * llc; i += 64)
		sink += other[i];
	memset(done, 0, npages / NR);
	t0 = now_ns();
	for (i = 0; i < nev; i++) {
		uint32_t p = ev[i], reg = p / NR;

		if (!done[reg]) {
			done[reg] = 1;
			t = now_ns();
			zero_folio(v, pool + (size_t)reg * PMD, p % NR);
			cl += now_ns() - t;
		}
		if (model == LINE) {
			touch_lines(pool + (size_t)p * PAGE);
		} else if (model == RUN) {
			size_t n = 1;

			while (i + n < nev && ev[i + n] == p + n && (p + n) / NR == reg)
				n++;
			clear(cached, pool + (size_t)p * PAGE, n * PAGE);
			i += n - 1;
		} else {
			clear(cached, pool + (size_t)p * PAGE, PAGE);
		}
	}
	*total += now_ns() - t0;
	*clears += cl;
	(void)sink;
}

static size_t llc_size(void)
{
	long v = sysconf(_SC_LEVEL3_CACHE_SIZE);

	if (v <= 0)
		v = sysconf(_SC_LEVEL2_CACHE_SIZE);
	return v > 0 ? v : 32UL << 20;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	struct variant vars[3] = { { "clear_pages", NULL }, { "movnti", clear_movnti } };
	uint64_t clear_ns[3][MAX_RUNS] = {}, all_ns[3][MAX_RUNS] = {}, sorted[MAX_RUNS];
	size_t cap = 1 << 16, i;
	long nregions = 0, runs = 3, page, thp;
	int c, nv = 2, r, k;
	bool dry = false;
	char line[128];
	FILE *f;

	ev = malloc(cap * sizeof(*ev));
	while ((c = getopt(argc, argv, "r:w:an")) != -1) {
		switch (c) {
		case 'r': runs = atol(optarg); break;
		case 'w':
			for (k = 0; k < 3 && strcmp(optarg, model_name[k]); k++)
				;
			if (k == 3)
				goto usage;
			model = k;
			break;
		case 'a': host_alloc = true; break;
		case 'n': dry = true; break;
		default: goto usage;
		}
	}
	if (optind != argc - 1 || runs < 1 || runs > MAX_RUNS || !ev)
		goto usage;
	f = fopen(argv[optind], "r");
	if (!f) {
		fprintf(stderr, "vm: %s: %s\n", argv[optind], strerror(errno));
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		if (sscanf(line, "%*u %ld", &page) != 1 || page < 0 || page >= 1L << 30) {
			fprintf(stderr, "vm: %s: not a trace line: %s", argv[optind], line);
			return 1;
		}
		if (nev == cap && !(ev = realloc(ev, (cap *= 2) * sizeof(*ev)))) {
			fprintf(stderr, "vm: out of memory\n");
			return 1;
		}
		ev[nev++] = page;
		if ((size_t)page + 1 > npages)
			npages = page + 1;
	}
	fclose(f);
	npages = (npages + NR - 1) / NR * NR;
	done = calloc(npages / NR + 1, 1);
	if (!nev || !done) {
		fprintf(stderr, "vm: %s: no pages\n", argv[optind]);
		return 1;
	}
	for (i = 0; i < nev; i++)
		if (!done[ev[i] / NR]) {
			done[ev[i] / NR] = 1;
			nregions++;
		}
	if (have_clzero())
		vars[nv++] = (struct variant){ "clzero", clear_clzero };
	cached = have_erms() ? clear_stosb : clear_stosq;
	llc = llc_size();
	printf("# vm: %s: %zu first touches in %ld regions of 2 MiB (%ld MiB), guest RAM %zu MiB; %ld run(s); clear_pages is %s; the guest's write: %s; LLC %zu MiB\n",
	       argv[optind], nev, nregions, nregions * 2, npages * PAGE >> 20, runs,
	       cached == clear_stosb ? "REP STOSB" : "REP STOSQ",
	       model == LINE ? "a load and a store per line" : model == RUN ?
	       "clear_pages() of each run of consecutive pages" : "clear_pages() of 4 KiB", llc >> 20);
	printf("# vm: the host's clear: %s\n", host_alloc ?
	       "init_on_alloc's, the whole folio in address order (cold: then the fault's page +- 2 cached)" :
	       "folio_zero_user()'s, the fault's page +- 2 last");
	if (dry)
		return 0;
	/* one CPU for the whole replay: r[2]'s lines stay in its caches */
	{
		cpu_set_t set;
		int cpu = sched_getcpu();

		CPU_ZERO(&set);
		CPU_SET(cpu < 0 ? 0 : cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			fprintf(stderr, "vm: not pinned to CPU %d: %s\n", cpu, strerror(errno));
	}
	pool = map_thp(npages * PAGE);
	other = map_thp(2 * llc);
	thp = thp_bytes();
	if (thp < (long)(npages * PAGE + 2 * llc) * 9 / 10) {
		fprintf(stderr, "vm: %ld MiB of the %zu MiB mapped are THP: the host's folios would not be 2 MiB\n",
			thp >> 20, (npages * PAGE + 2 * llc) >> 20);
		return 1;
	}

	for (r = 0; r < runs; r++) {
		/* A B .. B A, the first variant rotated by the run */
		for (k = 0; k < 2 * nv; k++) {
			int v = (r + (k < nv ? k : 2 * nv - 1 - k)) % nv;

			replay(&vars[v], &all_ns[v][r], &clear_ns[v][r]);
		}
		for (k = 0; k < nv; k++)
			printf("run %ld %s %.1f %.1f\n", nregions * 2048, vars[k].name,
			       (double)clear_ns[k][r] / 2 / (nregions * NR),
			       (double)(all_ns[k][r] - clear_ns[k][r]) / 2 / (nregions * NR));
		fflush(stdout);
	}
	for (k = 0; k < nv; k++) {
		for (r = 0; r < runs; r++)
			sorted[r] = all_ns[k][r] / 2;
		qsort(sorted, runs, sizeof(*sorted), cmp_u64);
		printf("# %-12s total %.1f ns per 4 KiB page (median of %ld)\n", vars[k].name,
		       (double)sorted[runs / 2] / (nregions * NR), runs);
	}
	return 0;
usage:
	fprintf(stderr, "usage: vm [-r runs] [-w stosb|run|line] [-a] [-n] TRACE\n");
	return 2;
}
