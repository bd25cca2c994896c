// SPDX-License-Identifier: GPL-2.0
/*
 * Userspace harness for the kernel's own page clear and copy routines, as
 * the series v2 has them on Linux 7.3: arch/x86/lib/clear_page_64.S and
 * copy_mc_64.S of the realised tree, assembled with the shims in shim/, run
 * on this machine's CPU and called the way the kernel calls them:
 *
 *  - clear_pages() (7.3): one REP STOSB (ERMS), REP STOSQ or
 *    __clear_pages_unrolled() over an extent, %rdi start, %rcx length,
 *    %rax zero; folio_zero_user() calls it once per range on x86 7.3,
 *    which is always preemptible (bench: -u 0, the default), and per
 *    32 MiB unit (PROCESS_PAGES_NON_PREEMPT_BATCH) only under a
 *    cooperative preemption model (the <variant>/32M columns);
 *  - clear_pages_cold(): __clear_pages_movnti() or __clear_pages_clzero(),
 *    the same registers, in mainline's units (one call a range on x86
 *    7.3), each ending with its own SFENCE; v3's MOVDIR64B clear is a
 *    probe (cand/probes.S), a measured column only;
 *  - the CoW copy: copy_mc_enhanced_fast_string() per 4 KiB page (the
 *    cached copy_mc_user_highpage()), copy_mc_movnti() per unit (cold).
 *
 *   clearpage correct            every routine, extents between guard pages
 *   clearpage order [-n trials]  NT routine (its own SFENCE), then publish:
 *                                no stale reads; a control that must see some
 *   clearpage bench [-r reps] [-s MiB,...] [-v variants] [-u unit MiB] [-x]
 *                                -u: the call size of every variant without
 *                                its own (0, the default: one call a buffer)
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define PAGE	4096UL
#define MIB	(1UL << 20)

/* The kernel's zero page, the source of the MOVDIR64B probe. */
const uint8_t empty_zero_page[PAGE] __attribute__((aligned(PAGE)));

#include "routines.h"

/* From cand/probes.S: the MOVDIR64B copy, measured, not in the series. */
unsigned long copy_movdir64b_cand(void *to, const void *from, unsigned long len);

/* From cand/probes.S: the VMOVNTDQ limit probe, never a kernel candidate. */
static unsigned long clear_vmovntdq(void *p, size_t len)
{
	unsigned long z = 0;

	__asm__ volatile("call __clear_pages_vmovntdq_probe"
			 : "+D" (p), "+c" (len), "+a" (z) : : "xmm0", "cc", "memory");
	return z;
}

static bool have_avx(void) { return __builtin_cpu_supports("avx"); }
static bool have_all(void) { return true; }

struct clear_variant {
	const char *name;
	unsigned long (*fn)(void *, size_t);
	bool nt;			/* weakly ordered: the ordering test */
	bool (*have)(void);		/* this CPU can run it */
	const char *lacks;		/* why not, when it cannot */
	bool probe;			/* a limit probe, never a kernel candidate */
};

static const struct clear_variant clears[] = {
	{ "stosb",	clear_stosb, false, have_all },
	{ "stosq",	clear_stosq, false, have_all },
	{ "unrolled",	clear_unrolled, false, have_all },
	{ "movnti",	clear_movnti, true, have_all },
	{ "clzero",	clear_clzero, true, have_clzero,
	  "this CPU has no CLZERO with 64-byte lines" },
	{ "movdir64b",	clear_movdir64b, true, have_movdir64b,
	  "this CPU has no MOVDIR64B (CPUID.7.0:ECX[28])" },
	{ "vmovntdq",	clear_vmovntdq, true, have_avx,
	  "this CPU has no AVX", true },
};
#define NR_CLEARS (sizeof(clears) / sizeof(clears[0]))

static const struct clear_variant *clear_by_name(const char *name)
{
	size_t k;

	for (k = 0; k < NR_CLEARS; k++)
		if (!strcmp(clears[k].name, name))
			return &clears[k];
	return NULL;
}

/* What 7.3's clear_pages() runs here (the kernel sets REP_GOOD on these CPUs). */
static const struct clear_variant *clear_pages_variant(void)
{
	return clear_by_name(have_erms() ? "stosb" : "stosq");
}

static void *xmap(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	madvise(p, len, MADV_HUGEPAGE);
	return p;
}

static int ktap_n, ktap_fail, ktap_skip;

static void result(bool ok, const char *name, const char *why)
{
	ktap_n++;
	if (!ok)
		ktap_fail++;
	printf("%sok %d %s\n", ok ? "" : "not ", ktap_n, name);
	if (why && *why)
		printf("# %s\n", why);
}

static void skip(const char *name, const char *why)
{
	ktap_n++;
	ktap_skip++;
	printf("ok %d %s # SKIP %s\n", ktap_n, name, why);
}

/* Byte i of a pattern that differs at every offset and between buffers. */
static inline uint8_t pat(size_t i, unsigned int seed)
{
	return (uint8_t)((i * 131 + (i >> 8) * 7 + seed * 29) | 1);
}

/* Guard pages around extents of 1, 2 and 6 pages at several offsets. */
static int check_clear(const struct clear_variant *v, char *why, size_t whylen)
{
	static const size_t counts[] = { 1, 2, 6 };
	const size_t len = 10 * PAGE;
	uint8_t *buf = xmap(len);
	size_t c, s, i;

	for (c = 0; c < 3; c++) {
		for (s = 1; s + counts[c] < 10; s += 2) {
			uint8_t *ext = buf + s * PAGE, *end = ext + counts[c] * PAGE;
			unsigned long rax;

			for (i = 0; i < len; i++)
				buf[i] = pat(i, s + c);
			rax = v->fn(ext, counts[c] * PAGE);
			if (rax) {
				snprintf(why, whylen, "%zu pages: %%rax is %#lx afterwards, want 0",
					 counts[c], rax);
				goto fail;
			}
			for (i = 0; i < len; i++) {
				bool in = buf + i >= ext && buf + i < end;
				uint8_t want = in ? 0 : pat(i, s + c);

				if (buf[i] != want) {
					snprintf(why, whylen, "%zu pages at page %zu: byte %ld from the extent is 0x%02x, want 0x%02x",
						 counts[c], s, (long)(buf + i - ext), buf[i], want);
					goto fail;
				}
			}
		}
	}
	munmap(buf, len);
	return 0;
fail:
	munmap(buf, len);
	return -1;
}

typedef unsigned long (*copy_fn)(void *, const void *, unsigned long);

static unsigned long copy_erms(void *to, const void *from, unsigned long len)
{
	return copy_mc_enhanced_fast_string(to, from, len);
}

static int check_copy(copy_fn copy, char *why, size_t whylen)
{
	static const size_t counts[] = { 1, 3 };
	const size_t len = 5 * PAGE;
	uint8_t *src = xmap(len), *dst = xmap(len);
	size_t c, i;
	int ret = 0;

	for (c = 0; c < 2 && !ret; c++) {
		unsigned int seed = c + 1;

		for (i = 0; i < len; i++) {
			src[i] = pat(i, seed);
			dst[i] = pat(i, seed + 100);
		}
		if (copy(dst + PAGE, src + PAGE, counts[c] * PAGE)) {
			snprintf(why, whylen, "%zu pages: copy reported bytes not copied", counts[c]);
			ret = -1;
			break;
		}
		for (i = 0; i < len; i++) {
			bool in = i >= PAGE && i < (1 + counts[c]) * PAGE;
			uint8_t want = in ? pat(i, seed) : pat(i, seed + 100);

			if (dst[i] != want || src[i] != pat(i, seed)) {
				snprintf(why, whylen, "%zu pages: byte %ld: dst 0x%02x want 0x%02x",
					 counts[c], (long)i - (long)PAGE, dst[i], want);
				ret = -1;
				break;
			}
		}
	}
	munmap(src, len);
	munmap(dst, len);
	return ret;
}

static int cmd_correct(void)
{
	char why[160];
	size_t k;

	printf("KTAP version 1\n1..%zu\n", NR_CLEARS + 3);
	for (k = 0; k < NR_CLEARS; k++) {
		char name[64];

		snprintf(name, sizeof(name), "clear_%s", clears[k].name);
		if (!clears[k].have()) {
			skip(name, clears[k].lacks);
			continue;
		}
		why[0] = 0;
		result(!check_clear(&clears[k], why, sizeof(why)), name, why);
	}
	why[0] = 0;
	result(!check_copy(copy_erms, why, sizeof(why)), "copy_mc_enhanced_fast_string", why);
	why[0] = 0;
	result(!check_copy(copy_mc_movnti, why, sizeof(why)), "copy_mc_movnti", why);
	why[0] = 0;
	if (have_movdir64b())
		result(!check_copy(copy_movdir64b_cand, why, sizeof(why)), "copy_movdir64b", why);
	else
		skip("copy_movdir64b", "this CPU has no MOVDIR64B (CPUID.7.0:ECX[28])");
	printf("# correct: %d passed, %d failed, %d skipped\n",
	       ktap_n - ktap_fail - ktap_skip, ktap_fail, ktap_skip);
	return ktap_fail ? 1 : 0;
}

/*
 * Ordering: the writer dirties a region with cached stores, clears (or
 * copies zeros over) it with the NT routine, which ends with its own
 * SFENCE, and publishes the trial number with an ordinary store; the
 * reader, on another CPU, waits for it and checks that every byte reads
 * zero. The control publishes before the routine runs, so the reader must
 * see stale data there, or the check proves nothing.
 */
enum order_mode { ORDER_FENCED, ORDER_PUBLISH_FIRST };

struct order_ctx {
	uint64_t *buf;
	const uint64_t *zeros;
	size_t pages;
	long trials;
	_Atomic long flag, ack;
	long stale;
};

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu % sysconf(_SC_NPROCESSORS_ONLN), &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void *order_reader(void *arg)
{
	struct order_ctx *c = arg;
	size_t words = c->pages * PAGE / 8, i;
	long t;

	pin(1);
	for (t = 1; t <= c->trials; t++) {
		bool bad = false;

		while (atomic_load_explicit(&c->flag, memory_order_acquire) != t)
			__builtin_ia32_pause();
		for (i = 0; i < words; i++)
			bad |= c->buf[i] != 0;
		c->stale += bad;
		atomic_store_explicit(&c->ack, t, memory_order_release);
	}
	return NULL;
}

/* The routine under test: a clear variant, or (v == NULL) the MOVNTI copy. */
static long run_order(const struct clear_variant *v, enum order_mode mode, long trials,
		      size_t pages)
{
	struct order_ctx c = { .pages = pages, .trials = trials };
	size_t len = pages * PAGE;
	pthread_t th;
	long t;

	c.buf = xmap(len);
	c.zeros = xmap(len);
	pthread_create(&th, NULL, order_reader, &c);
	pin(0);
	for (t = 1; t <= trials; t++) {
		memset(c.buf, 0xa5, len);
		if (mode == ORDER_PUBLISH_FIRST)
			atomic_store_explicit(&c.flag, t, memory_order_release);
		if (v)
			v->fn(c.buf, len);
		else
			copy_mc_movnti(c.buf, c.zeros, len);
		/* No SFENCE here: the routine's own must do. */
		if (mode == ORDER_FENCED)
			atomic_store_explicit(&c.flag, t, memory_order_relaxed);
		while (atomic_load_explicit(&c.ack, memory_order_acquire) != t)
			__builtin_ia32_pause();
	}
	pthread_join(th, NULL);
	munmap(c.buf, len);
	munmap((void *)c.zeros, len);
	return c.stale;
}

static void order_one(const struct clear_variant *v, const char *label, long trials)
{
	long ctrl = trials / 100 ? trials / 100 : 1, stale;
	char name[64], why[160];

	snprintf(name, sizeof(name), "order_%s", label);
	if (v && !v->have()) {
		skip(name, v->lacks);
		snprintf(name, sizeof(name), "order_%s_control", label);
		skip(name, v->lacks);
		return;
	}
	stale = run_order(v, ORDER_FENCED, trials, 1);
	snprintf(why, sizeof(why), "%ld trials of one page, %ld stale reads", trials, stale);
	result(stale == 0, name, why);
	stale = run_order(v, ORDER_PUBLISH_FIRST, ctrl, 16);
	snprintf(name, sizeof(name), "order_%s_control", label);
	snprintf(why, sizeof(why), "publish before the routine: %ld of %ld trials saw stale data (must be > 0)",
		 stale, ctrl);
	result(stale > 0, name, why);
}

static int cmd_order(long trials)
{
	printf("KTAP version 1\n1..8\n");
	order_one(clear_by_name("movnti"), "clear_movnti", trials);
	order_one(clear_by_name("clzero"), "clear_clzero", trials);
	order_one(clear_by_name("movdir64b"), "clear_movdir64b", trials);
	order_one(NULL, "copy_mc_movnti", trials);
	printf("# order: %d passed, %d failed, %d skipped\n",
	       ktap_n - ktap_fail - ktap_skip, ktap_fail, ktap_skip);
	return ktap_fail ? 1 : 0;
}

/* ---- bench ---- */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct bvar {
	const char *name;
	const struct clear_variant *clear;	/* a clear, per unit */
	copy_fn copy;				/* or a copy ... */
	size_t copy_unit;			/* ... per this many bytes (0: per unit) */
	size_t own_unit;			/* a clear per this many bytes (0: per unit) */
};

static size_t unit;			/* -u: 0, one call a buffer, as x86 7.3 */

static void bench_pass(const struct bvar *b, uint8_t *buf, const uint8_t *src, size_t len)
{
	size_t off, u = unit ? unit : len;

	if (b->copy && b->copy_unit)
		u = b->copy_unit;
	if (b->clear && b->own_unit)
		u = b->own_unit;
	for (off = 0; off < len; off += u) {
		size_t n = len - off < u ? len - off : u;

		if (b->clear)
			b->clear->fn(buf + off, n);
		else
			b->copy(buf + off, src + off, n);
	}
}

static double bench_one(const struct bvar *b, uint8_t *buf, const uint8_t *src, size_t len)
{
	double t0 = now();

	bench_pass(b, buf, src, len);
	return (double)len / (now() - t0) / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static bool in_list(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p = list;

	while ((p = strstr(p, name))) {
		if ((p == list || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return true;
		p += n;
	}
	return false;
}

static int cmd_bench(int reps, const char *sizes, const char *only, bool raw)
{
	const char *cold = nt_cold_clear();
	struct bvar all[] = {
		{ "clear_pages", clear_pages_variant() },
		{ "clear_pages/32M", clear_pages_variant(), NULL, 0, 32 * MIB },
		{ "cold", clear_by_name(cold) ? clear_by_name(cold) : clear_pages_variant() },
		{ "cold/32M", clear_by_name(cold) ? clear_by_name(cold) : clear_pages_variant(),
		  NULL, 0, 32 * MIB },
		{ "stosb", clear_by_name("stosb") },
		{ "stosq", clear_by_name("stosq") },
		{ "unrolled", clear_by_name("unrolled") },
		{ "movnti", clear_by_name("movnti") },
		{ "clzero", clear_by_name("clzero") },
		{ "movdir64b", clear_by_name("movdir64b") },
		{ "vmovntdq", clear_by_name("vmovntdq") },
		{ "copy_mc", NULL, copy_erms, PAGE },
		{ "copy_mc_movnti", NULL, copy_mc_movnti, 0 },
		{ "copy_movdir64b", NULL, copy_movdir64b_cand, 0 },
	};
	const int nall = sizeof(all) / sizeof(all[0]);
	struct bvar vars[16];
	double med[16];
	int nv = 0, i, r;
	char *list = strdup(sizes), *tok, *save, vendor[13];
	unsigned int fam, model, step;

	if (only) {
		char *l = strdup(only), *t, *sv;
		bool ok = true;

		for (t = strtok_r(l, ",", &sv); t; t = strtok_r(NULL, ",", &sv)) {
			for (i = 0; i < nall && strcmp(t, all[i].name); i++)
				;
			if (i == nall) {
				fprintf(stderr, "bench: unknown variant '%s'\n", t);
				ok = false;
			} else if (all[i].clear && !all[i].clear->have()) {
				fprintf(stderr, "bench: '%s': %s\n", t, all[i].clear->lacks);
				ok = false;
			}
		}
		free(l);
		if (!ok) {
			fprintf(stderr, "bench: variants: clear_pages clear_pages/32M cold cold/32M stosb stosq unrolled movnti clzero movdir64b vmovntdq copy_mc copy_mc_movnti copy_movdir64b\n");
			return 2;
		}
	}
	for (i = 0; i < nall; i++) {
		if (all[i].clear && !all[i].clear->have()) {
			if (!only)
				printf("# %s skipped: %s\n", all[i].name, all[i].clear->lacks);
			continue;
		}
		if (only ? in_list(only, all[i].name) : !!all[i].clear)
			vars[nv++] = all[i];
	}
	cpu_ident(vendor, &fam, &model, &step);
	printf("# CPU %s family %#x model %#x stepping %u, erms=%d clzero=%d movdir64b=%d; clear_pages = %s, cold = %s\n",
	       vendor, fam, model, step, have_erms(), have_clzero(), have_movdir64b(),
	       clear_pages_variant()->name, cold);
	if (unit)
		printf("# GB/s (10^9 B/s), median of %d interleaved runs (min-max), one call per %zu MiB unit (/32M: per 32 MiB); copy_mc per 4 KiB page\n",
		       reps, unit / MIB);
	else
		printf("# GB/s (10^9 B/s), median of %d interleaved runs (min-max), one call per buffer as x86 7.3 clears a range (/32M: per 32 MiB, a cooperative kernel's unit, not x86 7.3's); copy_mc per 4 KiB page\n",
		       reps);
	printf("%-8s", "MiB");
	for (i = 0; i < nv; i++)
		printf(" %21s", vars[i].name);
	printf("\n");
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t mib = strtoul(tok, NULL, 0), len = mib * MIB;
		double res[16][64];
		uint8_t *buf, *src = NULL;
		int fastest = -1, cp = -1, cv = -1;

		if (!mib || reps < 1 || reps > 64) {
			fprintf(stderr, "bench: bad size '%s' or reps %d\n", tok, reps);
			return 2;
		}
		buf = xmap(len);
		for (i = 0; i < nv; i++)
			if (vars[i].copy && !src) {
				src = xmap(len);
				memset(src, 0x5a, len);
			}
		for (i = 0; i < nv; i++)
			bench_one(&vars[i], buf, src, len);
		for (r = 0; r < reps; r++)
			for (i = 0; i < nv; i++) {
				int k = (i + r) % nv;

				res[k][r] = bench_one(&vars[k], buf, src, len);
			}
		for (i = 0; raw && i < nv; i++)
			for (r = 0; r < reps; r++)
				printf("run %zu %s %.3f\n", mib, vars[i].name, res[i][r]);
		printf("%-8zu", mib);
		for (i = 0; i < nv; i++) {
			qsort(res[i], reps, sizeof(double), cmp_double);
			med[i] = res[i][reps / 2];
			printf(" %7.2f (%5.1f-%5.1f)", med[i], res[i][0], res[i][reps - 1]);
			if (!vars[i].clear)
				continue;
			if (!strcmp(vars[i].name, "clear_pages"))
				cp = i;
			else if (!strcmp(vars[i].name, "cold"))
				cv = i;
			else if (!strchr(vars[i].name, '/') && strcmp(vars[i].name, "stosq") && strcmp(vars[i].name, "unrolled") &&
				 !vars[i].clear->probe &&
				 (fastest < 0 || med[i] > med[fastest]))
				fastest = i;	/* the kernel candidates */
		}
		printf("\n");
		if (cp >= 0 && cv >= 0 && fastest >= 0) {
			double best = med[fastest] > med[cp] ? med[fastest] : med[cp];

			printf("#   %zu MiB: cold (%s) = %.2fx clear_pages, %.3f of the fastest candidate (%s)\n",
			       mib, cold, med[cv] / med[cp], med[cv] / best,
			       med[fastest] > med[cp] ? vars[fastest].name : "clear_pages");
		}
		fflush(stdout);
		munmap(buf, len);
		if (src)
			munmap(src, len);
	}
	free(list);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: clearpage correct\n"
		   "       clearpage order [-n trials]\n"
		   "       clearpage bench [-r reps] [-s MiB,MiB,...] [-v variant,...] [-u unit MiB, 0: whole buffer] [-x]\n"
		   "       variants: clear_pages cold stosb stosq unrolled movnti clzero movdir64b vmovntdq copy_mc copy_mc_movnti copy_movdir64b\n");
}

int main(int argc, char **argv)
{
	const char *sizes = "16,128,1024", *only = NULL;
	long trials = 1000000;
	int reps = 5, o;
	bool raw = false;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	optind = 2;
	while ((o = getopt(argc, argv, "+n:r:s:v:u:xh")) != -1) {
		switch (o) {
		case 'n': trials = atol(optarg); break;
		case 'r': reps = atoi(optarg); break;
		case 's': sizes = optarg; break;
		case 'v': only = optarg; break;
		case 'u': unit = strtoul(optarg, NULL, 0) * MIB; break;
		case 'x': raw = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (trials < 1) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "correct"))
		return cmd_correct();
	if (!strcmp(argv[1], "order"))
		return cmd_order(trials);
	if (!strcmp(argv[1], "bench"))
		return cmd_bench(reps, sizes, only, raw);
	usage(stderr);
	return 2;
}
