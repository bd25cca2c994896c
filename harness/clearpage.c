// SPDX-License-Identifier: GPL-2.0
/*
 * Userspace harness for the kernel's own clear_page and copy_page routines:
 * arch/x86/lib/clear_page_64.S, copy_page_64.S and copy_mc_64.S of the
 * realised tree,
 * assembled with the shims in shim/, run on this machine's CPU.
 *
 *   clearpage correct            every routine, guard bytes, KTAP
 *   clearpage order [-n trials]  NT clear + SFENCE, then publish: no stale reads
 *   clearpage bench [-r reps] [-l passes] [-s MiB,...] [-v variants] [-x]
 *                                -x: also every run, "run MiB variant GB/s"
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

/* From the kernel tree. */
void clear_page_orig(void *page);
void clear_page_rep(void *page);
void clear_page_erms(void *page);
void clear_page_movnt(void *page);
void clear_page_clzero(void *page);
void copy_page(void *to, void *from);
unsigned long copy_mc_enhanced_fast_string(void *to, const void *from, unsigned int len);
unsigned long copy_mc_page_movnt(void *to, const void *from);

/* The copies under one signature: bytes not copied. */
static unsigned long copy_page_hot(void *to, const void *from)
{
	copy_page(to, (void *)from);
	return 0;
}

static unsigned long copy_mc_page_erms(void *to, const void *from)
{
	return copy_mc_enhanced_fast_string(to, from, PAGE);
}

static inline void sfence(void) { __asm__ volatile("sfence" ::: "memory"); }

static bool have_clzero(void)
{
	unsigned int a, b, c, d;

	if (!__get_cpuid(0x80000008, &a, &b, &c, &d))
		return false;
	return b & 1;
}

static bool have_erms(void)
{
	unsigned int a, b, c, d;

	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
		return false;
	return b & (1 << 9);
}

/* Mainline 7.0's clear_pages(): one REP STOSB over up to 32 MiB. */
static void clear_extent_stosb(void *p, size_t len)
{
	__asm__ volatile("rep stosb" : "+D"(p), "+c"(len) : "a"(0) : "memory");
}

struct clear_variant {
	const char *name;
	void (*page)(void *);	/* per 4 KiB page */
	bool nt;		/* needs SFENCE before publishing */
	bool clzero;
};

static const struct clear_variant clears[] = {
	{ "stosb",	clear_page_erms },
	{ "stosq",	clear_page_rep },
	{ "unrolled",	clear_page_orig },
	{ "movnti",	clear_page_movnt, true },
	{ "clzero",	clear_page_clzero, true, true },
};
#define NR_CLEARS (sizeof(clears) / sizeof(clears[0]))

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

/* Guard page, target page, guard page; the target at each of several slots. */
static int check_clear(const struct clear_variant *v, char *why, size_t whylen)
{
	const size_t slots = 8, len = (slots + 2) * PAGE;
	uint8_t *buf = xmap(len);
	size_t s, i;

	for (s = 1; s <= slots; s++) {
		uint8_t *page = buf + s * PAGE;

		for (i = 0; i < len; i++)
			buf[i] = pat(i, s);
		v->page(page);
		if (v->nt)
			sfence();
		for (i = 0; i < len; i++) {
			bool in = buf + i >= page && buf + i < page + PAGE;
			uint8_t want = in ? 0 : pat(i, s);

			if (buf[i] != want) {
				snprintf(why, whylen, "slot %zu: byte %ld from the page is 0x%02x, want 0x%02x",
					 s, (long)(buf + i - page), buf[i], want);
				munmap(buf, len);
				return -1;
			}
		}
	}
	munmap(buf, len);
	return 0;
}

static int check_copy(unsigned long (*copy)(void *, const void *), bool nt, char *why,
		      size_t whylen)
{
	const size_t len = 3 * PAGE;
	uint8_t *src = xmap(len), *dst = xmap(len);
	size_t i;
	unsigned int seed;

	for (seed = 1; seed <= 4; seed++) {
		for (i = 0; i < len; i++) {
			src[i] = pat(i, seed);
			dst[i] = pat(i, seed + 100);
		}
		if (copy(dst + PAGE, src + PAGE)) {
			snprintf(why, whylen, "seed %u: copy reported bytes not copied", seed);
			munmap(src, len);
			munmap(dst, len);
			return -1;
		}
		if (nt)
			sfence();
		for (i = 0; i < len; i++) {
			bool in = i >= PAGE && i < 2 * PAGE;
			uint8_t want = in ? pat(i, seed) : pat(i, seed + 100);

			if (dst[i] != want || src[i] != pat(i, seed)) {
				snprintf(why, whylen, "seed %u: byte %ld: dst 0x%02x want 0x%02x",
					 seed, (long)i - (long)PAGE, dst[i], want);
				munmap(src, len);
				munmap(dst, len);
				return -1;
			}
		}
	}
	munmap(src, len);
	munmap(dst, len);
	return 0;
}

static int cmd_correct(void)
{
	char why[160];
	size_t k;

	printf("KTAP version 1\n1..%zu\n", NR_CLEARS + 3);
	for (k = 0; k < NR_CLEARS; k++) {
		char name[64];

		snprintf(name, sizeof(name), "clear_%s", clears[k].name);
		if (clears[k].clzero && !have_clzero()) {
			skip(name, "CPU has no CLZERO");
			continue;
		}
		why[0] = 0;
		result(!check_clear(&clears[k], why, sizeof(why)), name, why);
	}
	why[0] = 0;
	result(!check_copy(copy_page_hot, false, why, sizeof(why)), "copy_page", why);
	why[0] = 0;
	result(!check_copy(copy_mc_page_erms, false, why, sizeof(why)),
	       "copy_mc_enhanced_fast_string", why);
	why[0] = 0;
	result(!check_copy(copy_mc_page_movnt, true, why, sizeof(why)), "copy_mc_page_movnt", why);
	printf("# correct: %d passed, %d failed, %d skipped\n",
	       ktap_n - ktap_fail - ktap_skip, ktap_fail, ktap_skip);
	return ktap_fail ? 1 : 0;
}

/*
 * Ordering: the writer dirties a region with cached stores, clears it with
 * the cold routine, fences and publishes the trial number; the reader waits
 * for it and checks that every byte reads zero. The "publish-first" control
 * publishes before clearing, so the checker must see stale data there.
 */
enum order_mode { ORDER_FENCED, ORDER_PUBLISH_FIRST };

struct order_ctx {
	uint64_t *buf;
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

static long run_order(const struct clear_variant *v, enum order_mode mode, long trials, size_t pages)
{
	struct order_ctx c = { .pages = pages, .trials = trials };
	pthread_t th;
	size_t p;
	long t;

	c.buf = xmap(pages * PAGE);
	pthread_create(&th, NULL, order_reader, &c);
	pin(0);
	for (t = 1; t <= trials; t++) {
		memset(c.buf, 0xa5, pages * PAGE);
		if (mode == ORDER_PUBLISH_FIRST)
			atomic_store_explicit(&c.flag, t, memory_order_release);
		for (p = 0; p < pages; p++)
			v->page((char *)c.buf + p * PAGE);
		sfence();
		if (mode == ORDER_FENCED)
			atomic_store_explicit(&c.flag, t, memory_order_release);
		while (atomic_load_explicit(&c.ack, memory_order_acquire) != t)
			__builtin_ia32_pause();
	}
	pthread_join(th, NULL);
	munmap(c.buf, pages * PAGE);
	return c.stale;
}

static int cmd_order(long trials)
{
	char name[64], why[128];
	size_t k;

	printf("KTAP version 1\n1..%d\n", 4);
	for (k = 0; k < NR_CLEARS; k++) {
		const struct clear_variant *v = &clears[k];
		long stale;

		if (!v->nt)
			continue;
		snprintf(name, sizeof(name), "order_%s_sfence", v->name);
		if (v->clzero && !have_clzero()) {
			skip(name, "CPU has no CLZERO");
			snprintf(name, sizeof(name), "order_%s_control", v->name);
			skip(name, "CPU has no CLZERO");
			continue;
		}
		stale = run_order(v, ORDER_FENCED, trials, 1);
		snprintf(why, sizeof(why), "%ld trials of one page, %ld stale reads", trials, stale);
		result(stale == 0, name, why);
		/* The control must catch stale data, or the checker proves nothing. */
		stale = run_order(v, ORDER_PUBLISH_FIRST, trials / 100 ? trials / 100 : 1, 16);
		snprintf(name, sizeof(name), "order_%s_control", v->name);
		snprintf(why, sizeof(why), "publish before clear: %ld of %ld trials saw stale data (must be > 0)",
			 stale, trials / 100 ? trials / 100 : 1);
		result(stale > 0, name, why);
	}
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
	int kind;		/* 0: per page, 1: 32 MiB extent, 2: copy, 3: whole buffer */
	const struct clear_variant *v;
	size_t fence_every;	/* bytes between SFENCEs for NT, 0 = at the end */
	unsigned long (*copy)(void *, const void *);
};

static void bench_pass(const struct bvar *b, uint8_t *buf, uint8_t *src, size_t len)
{
	size_t off;

	if (b->kind == 3) {
		clear_extent_stosb(buf, len);
	} else if (b->kind == 1) {
		for (off = 0; off < len; off += 32UL << 20) {
			size_t n = len - off < (32UL << 20) ? len - off : (32UL << 20);

			clear_extent_stosb(buf + off, n);
		}
	} else if (b->kind == 2) {
		for (off = 0; off < len; off += PAGE)
			b->copy(buf + off, src + off);
		sfence();
	} else {
		for (off = 0; off < len; off += PAGE) {
			b->v->page(buf + off);
			if (b->fence_every && !((off + PAGE) % b->fence_every))
				sfence();
		}
		sfence();
	}
}

/* GB/s of "loops" passes over the buffer. */
static double bench_one(const struct bvar *b, uint8_t *buf, uint8_t *src, size_t len, int loops)
{
	double t0 = now();
	int l;

	for (l = 0; l < loops; l++)
		bench_pass(b, buf, src, len);
	return (double)len * loops / (now() - t0) / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Every name in the comma-separated list is a variant, and this CPU can run it. */
static bool known_variants(const char *only, const struct bvar *all, int nall)
{
	char *l = strdup(only), *t, *sv;
	bool ok = true;
	int i;

	for (t = strtok_r(l, ",", &sv); t; t = strtok_r(NULL, ",", &sv)) {
		for (i = 0; i < nall && strcmp(t, all[i].name); i++)
			;
		if (i == nall) {
			fprintf(stderr, "bench: unknown variant '%s'\n", t);
			ok = false;
		} else if (all[i].v && all[i].v->clzero && !have_clzero()) {
			fprintf(stderr, "bench: '%s' needs CLZERO, which this CPU does not have\n", t);
			ok = false;
		}
	}
	free(l);
	return ok;
}

static int cmd_bench(int reps, int loops, const char *sizes, const char *only, bool raw)
{
	struct bvar all[] = {
		{ "stosb", 0, &clears[0] },
		{ "stosb-32M", 1 },
		{ "stosb-all", 3 },
		{ "stosq", 0, &clears[1] },
		{ "unrolled", 0, &clears[2] },
		{ "movnti", 0, &clears[3], 0 },
		{ "movnti-f4K", 0, &clears[3], 4096 },
		{ "movnti-f64K", 0, &clears[3], 65536 },
		{ "clzero", 0, &clears[4], 0 },
		{ "clzero-f4K", 0, &clears[4], 4096 },
		{ "copy", 2, .copy = copy_page_hot },
		{ "copy-mc-erms", 2, .copy = copy_mc_page_erms },
		{ "copy-mc-movnti", 2, .copy = copy_mc_page_movnt },
	};
	const int nall = sizeof(all) / sizeof(all[0]);
	struct bvar vars[16];
	int nv = 0, i, r;
	char *list = strdup(sizes), *tok, *save;

	if (only && !known_variants(only, all, nall)) {
		free(list);
		return 2;
	}
	for (i = 0; i < nall; i++) {
		if (all[i].v && all[i].v->clzero && !have_clzero())
			continue;
		if (only) {
			char key[40];

			snprintf(key, sizeof(key), ",%s,", all[i].name);
			char *o = malloc(strlen(only) + 3);
			sprintf(o, ",%s,", only);
			bool want = strstr(o, key);
			free(o);
			if (!want)
				continue;
		}
		vars[nv++] = all[i];
	}
	if (!nv) {
		free(list);
		fprintf(stderr, "bench: no variant selected (known: stosb stosb-32M stosb-all stosq unrolled movnti movnti-f4K movnti-f64K clzero clzero-f4K copy copy-mc-erms copy-mc-movnti)\n");
		return 2;
	}
	printf("# per 4 KiB page unless noted; GB/s median of %d interleaved runs of %d pass(es) (min-max); erms=%d clzero=%d\n",
	       reps, loops, have_erms(), have_clzero());
	printf("%-8s", "MiB");
	for (i = 0; i < nv; i++)
		printf(" %21s", vars[i].name);
	printf("\n");
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t mib = strtoul(tok, NULL, 0), len = mib << 20;
		double res[16][64];
		uint8_t *buf, *src = NULL;

		if (!mib || reps < 1 || reps > 64) {
			fprintf(stderr, "bench: bad size '%s' or reps %d\n", tok, reps);
			return 2;
		}
		buf = xmap(len);
		for (i = 0; i < nv; i++)
			if (vars[i].kind >= 2 && !src) {
				src = xmap(len);
				memset(src, 0x5a, len);
			}
		/* warm-up, then reps rounds with the variants in rotating order */
		for (i = 0; i < nv; i++)
			bench_one(&vars[i], buf, src, len, 1);
		for (r = 0; r < reps; r++)
			for (i = 0; i < nv; i++) {
				int k = (i + r) % nv;

				res[k][r] = bench_one(&vars[k], buf, src, len, loops);
			}
		for (i = 0; raw && i < nv; i++)
			for (r = 0; r < reps; r++)
				printf("run %zu %s %.3f\n", mib, vars[i].name, res[i][r]);
		printf("%-8zu", mib);
		for (i = 0; i < nv; i++) {
			qsort(res[i], reps, sizeof(double), cmp_double);
			printf(" %7.2f (%5.1f-%5.1f)", res[i][reps / 2], res[i][0], res[i][reps - 1]);
		}
		printf("\n");
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
		   "       clearpage bench [-r reps] [-l passes per run] [-s MiB,MiB,...] [-v variant,...] [-x]\n");
}

int main(int argc, char **argv)
{
	const char *sizes = "2,16,128,1024", *only = NULL;
	long trials = 1000000;
	int reps = 5, loops = 1, o;
	bool raw = false;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	optind = 2;
	while ((o = getopt(argc, argv, "n:r:l:s:v:xh")) != -1) {
		switch (o) {
		case 'n': trials = atol(optarg); break;
		case 'r': reps = atoi(optarg); break;
		case 'l': loops = atoi(optarg); break;
		case 's': sizes = optarg; break;
		case 'v': only = optarg; break;
		case 'x': raw = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (trials < 1 || loops < 1) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "correct"))
		return cmd_correct();
	if (!strcmp(argv[1], "order"))
		return cmd_order(trials);
	if (!strcmp(argv[1], "bench"))
		return cmd_bench(reps, loops, sizes, only, raw);
	usage(stderr);
	return 2;
}
