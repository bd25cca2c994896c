// SPDX-License-Identifier: GPL-2.0
/*
 * populate: every CPU populating at once, as QEMU's preallocation threads do
 * (one MADV_POPULATE_WRITE a thread over its share of the guest's RAM).
 *
 *   populate [-t threads] [-s size] [-r runs]
 *
 * Each of the threads (default: every CPU this process may run on, one
 * pinned to each) owns a region of -s bytes (default 256M) of 2 MiB
 * transparent huge pages, mapped and faulted in before anything is timed.
 * A run times, for each variant in an order rotated by the run, all the
 * threads clearing their regions folio after folio at once (first: the
 * populate, wall time from the start barrier to the last thread's end),
 * then all of them storing to every line of their regions at once (touch:
 * the populated memory used later). Variants: clear_pages, x86 7.3's
 * folio_zero_user() for a populate's fault at the folio's start (the
 * folio but its first FOLIO_ZERO_LOCALITY_RADIUS + 1 pages, then those,
 * with clear_pages()'s REP STOSB or STOSQ); movnti/whole and clzero/whole,
 * the series' clear_pages_cold() over the whole folio in one call (clzero
 * where the CPU has it).
 *
 * Output: "run <threads> <KiB a thread> <variant> <first ns> <touch ns>",
 * ns per 4 KiB page of all the threads' regions together; a line starting
 * with '#' is a comment. make bench records them as the section "mt".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "routines.h"

#define PAGE		4096UL
#define PMD		(2UL << 20)
#define RADIUS		2	/* FOLIO_ZERO_LOCALITY_RADIUS, mm/memory.c */
#define MAX_THREADS	256

enum { MAINLINE, MOVNTI, CLZERO, NVARIANTS };
static const char * const var_name[] = { "clear_pages", "movnti/whole", "clzero/whole" };

struct worker {
	pthread_t tid;
	int cpu;
	uint8_t *region;
	uint64_t end;		/* ns: when this thread finished its phase */
};

static struct worker workers[MAX_THREADS];
static int nthreads, phase_var, phase_touch;
static size_t region_len;
static pthread_barrier_t start, done;
typedef unsigned long (*clear_fn)(void *, size_t);

/* routines.h's probes take it as their source */
const uint8_t empty_zero_page[PAGE] __attribute__((aligned(PAGE)));

static clear_fn mainline_fn;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* A PMD-aligned region of THP, every page present (as touch.c's pool) */
static uint8_t *map_region(size_t len)
{
	uint8_t *p = mmap(NULL, len + PMD, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	uintptr_t a;
	size_t off;

	if (p == MAP_FAILED) {
		fprintf(stderr, "populate: mmap of %zu MiB: %s\n", len >> 20, strerror(errno));
		exit(1);
	}
	a = ((uintptr_t)p + PMD - 1) & ~(PMD - 1);
	madvise((void *)a, len, MADV_HUGEPAGE);
	if (madvise((void *)a, len, MADV_POPULATE_WRITE))
		for (off = 0; off < len; off += PAGE)
			((volatile uint8_t *)a)[off] = 0;
	return (uint8_t *)a;
}

static void clear(clear_fn fn, uint8_t *p, size_t len)
{
	if (fn(p, len)) {
		fprintf(stderr, "populate: %%rax not zero after a clear\n");
		exit(1);
	}
}

/* One folio as the variant clears it at a populate's fault (its start) */
static void zero_folio(int var, uint8_t *folio)
{
	const size_t near = (RADIUS + 1) * PAGE;

	switch (var) {
	case MAINLINE:
		clear(mainline_fn, folio + near, PMD - near);
		clear(mainline_fn, folio, near);
		break;
	case MOVNTI:
		clear(clear_movnti, folio, PMD);
		break;
	default:
		clear(clear_clzero, folio, PMD);
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	cpu_set_t set;
	size_t off;

	CPU_ZERO(&set);
	CPU_SET(w->cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	w->region = map_region(region_len);
	for (;;) {
		pthread_barrier_wait(&start);
		if (phase_var < 0)
			return NULL;
		if (phase_touch)
			for (off = 0; off < region_len; off += 64)
				((volatile uint8_t *)w->region)[off] = 1;
		else
			for (off = 0; off < region_len; off += PMD)
				zero_folio(phase_var, w->region + off);
		w->end = now_ns();
		pthread_barrier_wait(&done);
	}
}

/* All threads through one phase: the wall time from the start to the last end */
static double phase(int var, int touch)
{
	uint64_t t0, last = 0;
	int i;

	phase_var = var;
	phase_touch = touch;
	t0 = now_ns();
	pthread_barrier_wait(&start);
	pthread_barrier_wait(&done);
	for (i = 0; i < nthreads; i++)
		if (workers[i].end > last)
			last = workers[i].end;
	return (double)(last - t0) / ((double)nthreads * region_len / PAGE);
}

static int parse_size(const char *s, size_t *out)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	switch (*end) {
	case 'G': v <<= 30; end++; break;
	case 'M': v <<= 20; end++; break;
	}
	if (*end || !v || v % PMD)
		return -1;
	*out = v;
	return 0;
}

int main(int argc, char **argv)
{
	int runs = 3, opt, r, i, v, nv;
	int order[NVARIANTS];
	cpu_set_t set;
	char vendor[16];
	unsigned int fam, model, step;

	region_len = 256UL << 20;
	sched_getaffinity(0, sizeof(set), &set);
	nthreads = CPU_COUNT(&set);
	while ((opt = getopt(argc, argv, "t:s:r:")) != -1) {
		switch (opt) {
		case 't':
			nthreads = atoi(optarg);
			break;
		case 's':
			if (parse_size(optarg, &region_len)) {
				fprintf(stderr, "populate: -s %s: a multiple of 2M\n", optarg);
				return 2;
			}
			break;
		case 'r':
			runs = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: populate [-t threads] [-s size] [-r runs]\n");
			return 2;
		}
	}
	if (nthreads < 1 || nthreads > MAX_THREADS || nthreads > CPU_COUNT(&set) || runs < 1) {
		fprintf(stderr, "populate: -t 1..%d (the CPUs allowed), -r 1..\n", CPU_COUNT(&set));
		return 2;
	}
	mainline_fn = have_erms() ? clear_stosb : clear_stosq;
	nv = have_clzero() ? 3 : 2;
	cpu_ident(vendor, &fam, &model, &step);
	printf("# CPU %s family %#x model %#x stepping %u; %d threads, %zu MiB each; %s\n", vendor,
	       fam, model, step, nthreads, region_len >> 20, have_clzero() ? "clzero" : "no clzero");

	pthread_barrier_init(&start, NULL, nthreads + 1);
	pthread_barrier_init(&done, NULL, nthreads + 1);
	for (i = 0, v = 0; i < nthreads; v++) {
		if (!CPU_ISSET(v, &set))
			continue;
		workers[i].cpu = v;
		pthread_create(&workers[i].tid, NULL, worker_main, &workers[i]);
		i++;
	}
	/* an untimed pass, so that no timed clear is the first */
	phase(MAINLINE, 0);
	for (r = 0; r < runs; r++) {
		for (i = 0; i < nv; i++)
			order[i] = (i + r) % nv;
		for (i = 0; i < nv; i++) {
			double first = phase(order[i], 0);
			double touch = phase(order[i], 1);

			printf("run %d %zu %s %.1f %.1f\n", nthreads, region_len >> 10,
			       var_name[order[i]], first, touch);
			fflush(stdout);
		}
	}
	phase_var = -1;
	pthread_barrier_wait(&start);
	for (i = 0; i < nthreads; i++)
		pthread_join(workers[i].tid, NULL);
	return 0;
}
