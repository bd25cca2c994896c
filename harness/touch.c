// SPDX-License-Identifier: GPL-2.0
/*
 * What the cold (non-temporal) clear and copy of a large folio cost or save
 * end to end, with the realised tree's own routines (clear_page_64.S and
 * copy_mc_64.S, assembled with shim/ and called as the kernel calls them),
 * and what they spare a neighbour's cache.
 *
 *   touch fault [-r runs] [-s sizes] [-f start|middle|end] [-u units] [-t use] [-m] [-x]
 *	Fault, then use (-t). A folio is cleared as folio_zero_user() clears it
 *	(mm/memory.c of the base): folio_fault_ranges() splits it into r[0]
 *	right of the fault, r[1] left of it and r[2], the fault's page +-
 *	FOLIO_ZERO_LOCALITY_RADIUS (2) pages, cleared last.
 *	clear_pages is mainline as x86 7.3 runs it: clear_contig_highpages()
 *	makes one clear_pages() call per range, because preempt_model_
 *	preemptible() is true on every x86 kernel (only full and lazy exist);
 *	REP STOSB on ERMS CPUs, else REP STOSQ. The cold variants are the
 *	series: r[0] and r[1] with the routine (movnti; clzero with CLZERO and
 *	64-byte lines; movdir64b with MOVDIR64B) in calls of at most the unit
 *	(-u: "range", one call a range, the default, and/or a size such as 32M;
 *	with two units each cold variant runs once per unit, named
 *	<routine>/<unit>), r[2] cached. -m adds clear_pages/32M, mainline in
 *	32 MiB calls as a cooperative preemption model would run it: an extra
 *	column, never the baseline. Then the folio is used as -t says:
 *	  all	(default) a load and a store of one 8-byte word in every 64-byte
 *		line right after its clear, in address order: a task that
 *		touches the whole folio at once (cold's worst case);
 *	  page	a store of one word per 4 KiB page right after its clear (perf
 *		bench mem mmap -f demand; a guest writes its pages whole:
 *		harness/vm replays what a guest does);
 *	  none	nothing: populate (MADV_POPULATE_WRITE, MAP_POPULATE, mlock(),
 *		hugetlbfs fallocate(), memfd);
 *	  later	nothing, then one sweep (a load and a store per line) of the
 *		whole pool once all its folios are cleared: populated memory
 *		used some time after.
 *	For none and later the folios of the whole pool (max(4 x LLC, 256
 *	MiB, the largest folio); -R: a populated region of that size, 2 MiB
 *	aligned, then used, as make bench's populate-then-use table runs it
 *	for regions below and above the LLC) are cleared back to back and the loop is
 *	timed as one, so that a cached clear's write-backs, made as later
 *	clears evict its lines, are inside the time; before each timed loop
 *	an untimed read of another 2 x LLC leaves the caches clean (no
 *	variant pays for its predecessor's dirty lines). Only the last LLC's
 *	worth of a cached clear's write-backs is left out: at most a quarter,
 *	which favours mainline. These two add each cold routine over the
 *	whole folio in one call, <routine>/whole (nobody faulted: no
 *	neighbourhood), beside the far-parts variants. Clear and use are
 *	timed apart ("touch" in the tables: the use).
 *	Sizes default to 16K,64K,256K,1M,2M,32M,1G (K/M/G suffixes, powers of
 *	two); -f where the fault is (default start: page 0); -x also prints
 *	every run as "run <size KiB> <variant> <clear ns/page> <touch ns/page>".
 *
 *   touch copy [-r runs] [-s sizes] [-f start|middle|end] [-u units] [-x]
 *	The same for the CoW copy. copy_mc is mainline's
 *	copy_user_large_folio(): copy_mc_user_highpage() (here
 *	copy_mc_enhanced_fast_string()) per 4 KiB page, in process_huge_page()'s
 *	order up to MAX_ORDER_NR_PAGES (4 MiB: the pages far from the fault
 *	first, converging on it from both sides, its page last) and in
 *	ascending order above (copy_user_gigantic_page()). copy_mc_movnti is
 *	the series' copy_user_large_folio_cold(): copy_mc_movnti() over r[0]
 *	and r[1] in calls of at most the unit, then r[2] per page with copy_mc.
 *	The destination is then touched as above.
 *
 *   touch pollute [-r runs] [-w sizes] [-d seconds] [-p GB/s] [-x]
 *	A co-runner thread on CPU 1 walks a cache-resident working set (a load
 *	and a store per 64-byte line, in address order, over and over) and
 *	measures its ns per line, while this thread, on CPU 0, clears a 1 GiB
 *	region with each routine in a loop, or sleeps (idle). The clearer is
 *	paced (-p, default 2 GB/s: below every routine's speed on the parts
 *	measured): 2 MiB calls, each waiting (spinning on the clock) for its
 *	turn, so that every routine clears the same bytes per second and the
 *	slowdowns compare the harm per byte cleared. -p 0: 32 MiB calls as
 *	fast as the routine goes; a faster routine then also moves more bytes
 *	a second through the memory the co-runner misses to, which is not a
 *	harm of the same work (it is done sooner).
 *	Slowdown = ns per line while the routine runs / ns per line idle in the
 *	same run. Working sets default to 1/8, 1/4 and 1/2 of the last-level
 *	cache, and of L2 as well when the LLC the system reports is more than
 *	one core can have (a VM's sum over the host); -d seconds per
 *	measurement (default 0.3); -x: "run <ws KiB> <variant> <ns/line>
 *	<slowdown> <the clearer's GB/s>".
 *
 * Every mode also takes -n: check the arguments and the memory they need,
 * say what would run, and exit (0, or 2 with the usage line).
 *
 * fault and copy: so that no folio starts in the caches, each iteration
 * takes the next folio-sized slot of a pool of max(4 x LLC, 256 MiB, the
 * largest folio), pre-faulted into transparent huge pages (so a folio under
 * 2 MiB is mapped by a PMD here, where the kernel maps an mTHP by PTEs: a
 * few TLB misses fewer); each run of each variant covers at least 64 MiB or
 * one folio. Variants are
 * interleaved, their order rotated each run; results are ns per 4 KiB page,
 * median (min-max) over the runs, and total/clear_pages is the ratio of the
 * medians of clear + touch (below 1: the cold routine wins end to end). One
 * invocation is one round; make bench runs several, spread over its run,
 * and decides from them (scripts/ntbench.py).
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <ctype.h>
#include <errno.h>
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

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE	23
#endif

#define PAGE		4096UL
#define LINE		64UL
#define KIB		(1UL << 10)
#define MIB		(1UL << 20)
#define GIB		(1UL << 30)
#define PMD		(2 * MIB)
#define BATCH		(32 * MIB)	/* PROCESS_PAGES_NON_PREEMPT_BATCH pages */
#define MAX_ORDER_PAGES	1024		/* MAX_ORDER_NR_PAGES, x86-64 */
#define RADIUS		2		/* FOLIO_ZERO_LOCALITY_RADIUS, mm/memory.c */
#define MIN_RUN		(64 * MIB)	/* each run covers at least this, or a folio */
#define MAX_SIZES	16
#define MAX_RUNS	64
#define MAX_VARS	10
#define CELL		22		/* a "median (min-max)" column */

/* The kernel's zero page, the source of __clear_pages_movdir64b(). */
const uint8_t empty_zero_page[PAGE] __attribute__((aligned(PAGE)));

#include "routines.h"

typedef unsigned long (*clear_fn)(void *, size_t);

/* ---- caches ---- */

struct cache_info {
	size_t llc, l2;
	int llc_level;
	char from[96];		/* where the LLC size came from */
	bool unrealistic;	/* more than one core's share can be */
	char why[160];
};

/* "32768K" and the like, from sysfs. */
static size_t read_sysfs_size(const char *path)
{
	char buf[32], *end;
	unsigned long v;
	FILE *f = fopen(path, "r");

	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return 0;
	}
	fclose(f);
	v = strtoul(buf, &end, 10);
	if (*end == 'K')
		v *= KIB;
	else if (*end == 'M')
		v *= MIB;
	return v;
}

static int read_sysfs_int(const char *path)
{
	int v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (fscanf(f, "%d", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

static void cache_sizes(struct cache_info *ci)
{
	unsigned int fam, model, step;
	char vendor[13], path[96];
	long v;
	int i;

	memset(ci, 0, sizeof(*ci));
	/* sysfs first: the deepest cache of cpu0, and its L2 */
	for (i = 0; i < 8; i++) {
		int level;
		size_t size;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
		level = read_sysfs_int(path);
		if (level < 0)
			break;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
		size = read_sysfs_size(path);
		if (level == 2 && size)
			ci->l2 = size;
		if (level >= ci->llc_level && level >= 2 && size) {
			ci->llc = size;
			ci->llc_level = level;
			snprintf(ci->from, sizeof(ci->from),
				 "/sys/devices/system/cpu/cpu0/cache/index%d (L%d)", i, level);
		}
	}
	if (!ci->llc) {
		v = sysconf(_SC_LEVEL3_CACHE_SIZE);
		if (v > 0) {
			ci->llc = v;
			ci->llc_level = 3;
			snprintf(ci->from, sizeof(ci->from),
				 "sysconf(_SC_LEVEL3_CACHE_SIZE); no cpu0/cache in sysfs");
		}
	}
	if (!ci->l2) {
		v = sysconf(_SC_LEVEL2_CACHE_SIZE);
		ci->l2 = v > 0 ? v : MIB;
	}
	if (!ci->llc) {
		ci->llc = ci->l2;
		ci->llc_level = 2;
		snprintf(ci->from, sizeof(ci->from), "no L3 found: L2 taken as the LLC");
	}
	/*
	 * No Zen CCX has more than 96 MiB of L3 (X3D parts), and no x86
	 * socket more than 504 MiB: a VM that says more shows a sum over
	 * CCXs or sockets, not what one core's lines can live in.
	 */
	cpu_ident(vendor, &fam, &model, &step);
	if (!strcmp(vendor, "AuthenticAMD") && ci->llc > 96 * MIB) {
		ci->unrealistic = true;
		snprintf(ci->why, sizeof(ci->why),
			 "more than any AMD CCX has (96 MiB): a sum over the host's CCXs");
	} else if (ci->llc > 512 * MIB) {
		ci->unrealistic = true;
		snprintf(ci->why, sizeof(ci->why), "more than any x86 socket has (504 MiB)");
	}
}

/* ---- memory ---- */

static long mem_available_mib(void)
{
	char line[128];
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb < 0 ? -1 : kb / 1024;
}

/* KiB of the mapping at @p that are in transparent huge pages (smaps). */
static long thp_kib(const void *p)
{
	unsigned long start, end, addr = (unsigned long)p;
	char line[256];
	bool in = false;
	long kb = -1;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		/* a mapping's first line */
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2) {
			in = addr >= start && addr < end;
			continue;
		}
		if (in && sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb;
}

/*
 * A PMD-aligned anonymous region in transparent huge pages, every page
 * present. MAP_POPULATE would fault it in before MADV_HUGEPAGE applies
 * (THP "madvise" mode, as on the workshop's VM, gives 4 KiB pages then):
 * so mmap, MADV_HUGEPAGE, then MADV_POPULATE_WRITE, MAP_POPULATE's
 * equivalent for an existing range, or a store per page without it.
 */
static void *map_pool(size_t len)
{
	uint8_t *p;
	uintptr_t a;
	size_t off;

	len = (len + PMD - 1) & ~(PMD - 1);
	p = mmap(NULL, len + PMD, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) {
		fprintf(stderr, "touch: mmap of %zu MiB: %s\n", len / MIB, strerror(errno));
		exit(1);
	}
	a = ((uintptr_t)p + PMD - 1) & ~(PMD - 1);
	if (a > (uintptr_t)p)
		munmap(p, a - (uintptr_t)p);
	munmap((uint8_t *)a + len, (uintptr_t)p + PMD - a);
	p = (uint8_t *)a;
	madvise(p, len, MADV_HUGEPAGE);
	if (madvise(p, len, MADV_POPULATE_WRITE))
		for (off = 0; off < len; off += PAGE)
			((volatile uint8_t *)p)[off] = 0;
	return p;
}

/* ---- clock ---- */

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static double clock_cost_ns(void)
{
	uint64_t t0 = now_ns();
	int i;

	for (i = 0; i < 10000; i++)
		now_ns();
	return (double)(now_ns() - t0) / 10001;
}

static bool pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return !sched_setaffinity(0, sizeof(set), &set);
}

static bool cpu_allowed(int cpu)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return false;
	return CPU_ISSET(cpu, &set);
}

/* ---- folio ranges, clear and copy as the kernel makes them ---- */

struct range {
	long start, end;	/* pages, inclusive; empty when end < start */
};

/* folio_fault_ranges() of mm/memory.c: r[0] right, r[1] left, r[2] the fault's. */
static void fault_ranges(long nr, long idx, struct range r[3])
{
	r[2].start = idx - RADIUS < 0 ? 0 : idx - RADIUS;
	r[2].end = idx + RADIUS > nr - 1 ? nr - 1 : idx + RADIUS;
	r[1].start = 0;
	r[1].end = r[2].start - 1;
	r[0].start = r[2].end + 1;
	r[0].end = nr - 1;
}

struct variant {
	char name[24];
	clear_fn cold;		/* fault: the routine for r[0] and r[1], NULL: cached */
	bool copy_cold;		/* copy: copy_mc_movnti for r[0] and r[1] */
	size_t unit;		/* r[0] and r[1] in calls of at most this, 0: one a range */
	bool whole;		/* the whole folio with @cold in one call (populate) */
	const char *lacks;	/* why this CPU cannot run it, or NULL */
};

/* Looked up once: CPUID traps to the hypervisor in a VM (microseconds). */
static clear_fn clear_pages_fn(void)
{
	static clear_fn fn;

	if (!fn)
		fn = have_erms() ? clear_stosb : clear_stosq;
	return fn;
}

/*
 * clear_contig_highpages(): one call over the range (@unit 0), as on every
 * x86 7.3 kernel (preempt_model_preemptible()), or calls of at most @unit.
 */
static void clear_range(clear_fn fn, uint8_t *p, size_t len, size_t unit)
{
	size_t off, n;

	for (off = 0; off < len; off += n) {
		n = unit && len - off > unit ? unit : len - off;
		if (fn(p + off, n)) {
			fprintf(stderr, "touch: %%rax not zero after a clear\n");
			exit(1);
		}
	}
}

/* folio_zero_user(): r[0] and r[1] with the variant, r[2] cached and last. */
static void zero_folio(const struct variant *v, uint8_t *folio, long nr, long idx)
{
	clear_fn cached = clear_pages_fn();
	struct range r[3];
	int i;

	if (v->whole) {
		clear_range(v->cold, folio, nr * PAGE, 0);
		return;
	}
	fault_ranges(nr, idx, r);
	for (i = 0; i < 3; i++) {
		long n = r[i].end - r[i].start + 1;

		if (n > 0)
			clear_range(i < 2 && v->cold ? v->cold : cached,
				    folio + r[i].start * PAGE, n * PAGE, i < 2 ? v->unit : 0);
	}
}

/* copy_mc_user_highpage() of page @i */
static unsigned long copy_page_mc(uint8_t *dst, const uint8_t *src, long i)
{
	return copy_mc_enhanced_fast_string(dst + i * PAGE, src + i * PAGE, PAGE);
}

/*
 * Mainline's copy_user_large_folio(): process_huge_page() up to
 * MAX_ORDER_NR_PAGES (x86-64: order 10, 4 MiB), which copies the pages far
 * from the target first and converges on it from both sides, the target
 * last; copy_user_gigantic_page() above it, page by page in ascending order.
 */
static unsigned long copy_mainline(uint8_t *dst, const uint8_t *src, long nr, long n)
{
	unsigned long left = 0;
	long i, base, l;

	if (nr > MAX_ORDER_PAGES) {
		for (i = 0; i < nr; i++)
			left |= copy_page_mc(dst, src, i);
		return left;
	}
	if (2 * n <= nr) {
		base = 0;
		l = n;
		for (i = nr - 1; i >= 2 * n; i--)
			left |= copy_page_mc(dst, src, i);
	} else {
		base = nr - 2 * (nr - n);
		l = nr - n;
		for (i = 0; i < base; i++)
			left |= copy_page_mc(dst, src, i);
	}
	for (i = 0; i < l; i++) {
		left |= copy_page_mc(dst, src, base + i);
		left |= copy_page_mc(dst, src, base + 2 * l - 1 - i);
	}
	return left;
}

/*
 * The series' copy_user_large_folio_cold(): r[0] and r[1] with
 * copy_mc_movnti() in calls of at most the variant's unit (0: one a range),
 * then r[2] page by page with copy_mc, last.
 */
static void copy_folio(const struct variant *v, uint8_t *dst, const uint8_t *src, long nr,
		       long idx)
{
	struct range r[3];
	unsigned long left = 0;
	size_t off, len, n;
	long p;
	int i;

	if (!v->copy_cold) {
		left = copy_mainline(dst, src, nr, idx);
		goto out;
	}
	fault_ranges(nr, idx, r);
	for (i = 0; i < 3; i++) {
		if (r[i].end < r[i].start)
			continue;
		if (i < 2) {
			off = r[i].start * PAGE;
			len = (r[i].end - r[i].start + 1) * PAGE;
			for (; len; off += n, len -= n) {
				n = v->unit && len > v->unit ? v->unit : len;
				left |= copy_mc_movnti(dst + off, src + off, n);
			}
		} else {
			for (p = r[i].start; p <= r[i].end; p++)
				left |= copy_page_mc(dst, src, p);
		}
	}
out:
	if (left) {
		fprintf(stderr, "touch: a copy reported bytes not copied\n");
		exit(1);
	}
}

/*
 * The program's first use of the folio: in address order, a load and a
 * store of one 8-byte word of every 64-byte line (p[i] += 1), volatile so
 * that the compiler keeps exactly one of each per line.
 */
static void touch_lines(uint8_t *p, size_t len)
{
	volatile uint64_t *q = (volatile uint64_t *)p;
	size_t i;

	for (i = 0; i < len / 8; i += LINE / 8)
		q[i] += 1;
}

/* One store of one word per 4 KiB page, as perf bench mem mmap -f demand. */
static void touch_pages(uint8_t *p, size_t len)
{
	volatile uint64_t *q = (volatile uint64_t *)p;
	size_t i;

	for (i = 0; i < len / 8; i += PAGE / 8)
		q[i] = 1;
}

/* A load of every line of @p: evicts what the caches held (untimed). */
static void read_lines(const uint8_t *p, size_t len)
{
	const volatile uint64_t *q = (const volatile uint64_t *)p;
	size_t i;

	for (i = 0; i < len / 8; i += LINE / 8)
		(void)q[i];	/* volatile: every load is made */
}

enum use { USE_ALL, USE_PAGE, USE_NONE, USE_LATER };
static const char * const use_name[] = { "all", "page", "none", "later" };

/* ---- arguments ---- */

/* A size: digits with an optional K, M or G (KiB, MiB, GiB) and B; bytes without. */
static bool parse_size(const char *s, size_t *out)
{
	unsigned long long v;
	char *end;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || !v)
		return false;
	switch (toupper((unsigned char)*end)) {
	case 'K':
		v <<= 10;
		end++;
		break;
	case 'M':
		v <<= 20;
		end++;
		break;
	case 'G':
		v <<= 30;
		end++;
		break;
	}
	if (toupper((unsigned char)*end) == 'B')
		end++;
	if (*end || v > 64ULL * GIB)
		return false;
	*out = v;
	return true;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

/* A comma-separated list of sizes, sorted, duplicates dropped. */
static int parse_sizes(const char *list, size_t *out, size_t lo, size_t hi, bool pow2,
		       const char *what)
{
	char *l = strdup(list), *t, *save;
	int n = 0, i, k;

	for (t = strtok_r(l, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		size_t v;

		if (n == MAX_SIZES) {
			fprintf(stderr, "touch: at most %d %s\n", MAX_SIZES, what);
			goto bad;
		}
		if (!parse_size(t, &v) || v < lo || v > hi || (pow2 && (v & (v - 1))) ||
		    v % (pow2 ? PAGE : LINE)) {
			fprintf(stderr, "touch: bad %s '%s': want %s from %zuK to %zuG\n", what, t,
				pow2 ? "a power of two" : "a multiple of 64 bytes", lo / KIB,
				hi / GIB);
			goto bad;
		}
		out[n++] = v;
	}
	free(l);
	if (!n) {
		fprintf(stderr, "touch: no %s given\n", what);
		return -1;
	}
	qsort(out, n, sizeof(*out), cmp_size);
	for (i = k = 1; i < n; i++)
		if (out[i] != out[k - 1])
			out[k++] = out[i];
	return k;
bad:
	free(l);
	return -1;
}

static const char *size_str(size_t v, char *buf, size_t len)
{
	if (v >= GIB && !(v % GIB))
		snprintf(buf, len, "%zuG", v / GIB);
	else if (v >= MIB && !(v % MIB))
		snprintf(buf, len, "%zuM", v / MIB);
	else if (v >= KIB && !(v % KIB))
		snprintf(buf, len, "%zuK", v / KIB);
	else
		snprintf(buf, len, "%zu", v);
	return buf;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct stat3 {
	double med, lo, hi;
};

static struct stat3 stats(const double *v, int n)
{
	double s[MAX_RUNS];
	struct stat3 r;

	memcpy(s, v, n * sizeof(*v));
	qsort(s, n, sizeof(*s), cmp_double);
	r.med = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	r.lo = s[0];
	r.hi = s[n - 1];
	return r;
}

static void print_header(const struct cache_info *ci)
{
	unsigned int fam, model, step;
	char vendor[13];

	cpu_ident(vendor, &fam, &model, &step);
	printf("# CPU %s family %#x model %#x stepping %u, %ld CPUs online; erms=%d clzero=%d"
	       " movdir64b=%d: the kernel's cold clear here: %s\n",
	       vendor, fam, model, step, sysconf(_SC_NPROCESSORS_ONLN), have_erms(), have_clzero(),
	       have_movdir64b(), nt_cold_clear());
	printf("# LLC %zu KiB (L%d, from %s)%s%s; L2 %zu KiB\n", ci->llc / KIB, ci->llc_level,
	       ci->from, ci->unrealistic ? ", unrealistic: " : "", ci->unrealistic ? ci->why : "",
	       ci->l2 / KIB);
}

/* ---- fault and copy ---- */

static const char * const fault_pos_name[] = { "start", "middle", "end" };

static long fault_index(int pos, long nr)
{
	return pos == 0 ? 0 : pos == 1 ? nr / 2 : nr - 1;
}

static bool check_zero(const uint8_t *p, size_t len)
{
	const uint64_t *q = (const uint64_t *)p;
	size_t i;

	for (i = 0; i < len / 8; i++)
		if (q[i])
			return false;
	return true;
}

/* "range" for 0, else the size: a variant's unit in its name and the header */
static const char *unit_str(size_t unit, char *buf, size_t len)
{
	return unit ? size_str(unit, buf, len) : "range";
}

/*
 * The variants of touch fault or copy: mainline first (the baseline of
 * every ratio), then with @base32 mainline in 32 MiB calls (what a
 * cooperative preemption model would run; no x86 7.3 kernel has one), then
 * each cold routine the CPU has, once per unit of @units.
 */
static int fault_variants(bool copy, const size_t *units, int nunits, bool base32, bool whole,
			  struct variant *vars)
{
	static const struct {
		const char *name;
		clear_fn fn;
		bool (*have)(void);
		const char *lacks;
	} cold[] = {
		{ "movnti", clear_movnti, NULL, NULL },
		{ "clzero", clear_clzero, have_clzero,
		  "no CLZERO with 64-byte lines (CPUID 0x80000008 EBX[0])" },
		{ "movdir64b", clear_movdir64b, have_movdir64b, "no MOVDIR64B (CPUID 7.0 ECX[28])" },
	};
	char b[24];
	int nv = 0, i, u;

	memset(vars, 0, MAX_VARS * sizeof(*vars));
	snprintf(vars[nv++].name, sizeof(vars->name), "%s", copy ? "copy_mc" : "clear_pages");
	if (base32 && !copy) {
		snprintf(vars[nv].name, sizeof(vars->name), "clear_pages/32M");
		vars[nv++].unit = BATCH;
	}
	for (i = 0; i < (copy ? 1 : 3); i++) {
		if (cold[i].have && !cold[i].have()) {
			printf("# %s skipped: %s\n", cold[i].name, cold[i].lacks);
			continue;
		}
		for (u = 0; u < nunits; u++) {
			snprintf(vars[nv].name, sizeof(vars->name), "%s%s%s",
				 copy ? "copy_mc_movnti" : cold[i].name, nunits > 1 ? "/" : "",
				 nunits > 1 ? unit_str(units[u], b, sizeof(b)) : "");
			vars[nv].cold = copy ? NULL : cold[i].fn;
			vars[nv].copy_cold = copy;
			vars[nv++].unit = units[u];
		}
		if (whole && !copy) {
			snprintf(vars[nv].name, sizeof(vars->name), "%s/whole", cold[i].name);
			vars[nv].cold = cold[i].fn;
			vars[nv++].whole = true;
		}
	}
	return nv;
}

/*
 * Whether variant @v is run at folio size @len: one in calls of a unit
 * that covers the folio is the one-call variant again, and is left out
 * where that one runs (clear_pages/32M: where it is mainline).
 */
static bool variant_runs(const struct variant *vars, int nv, int v, size_t len)
{
	int i;

	if (vars[v].whole || !vars[v].unit || vars[v].unit < len)
		return true;
	if (v == 1 && !vars[1].cold && !vars[1].copy_cold)
		return false;
	for (i = 0; i < nv; i++)
		if (i != v && !vars[i].unit && !vars[i].whole && vars[i].cold == vars[v].cold &&
		    vars[i].copy_cold == vars[v].copy_cold)
			return false;
	return true;
}

static int cmd_fault_copy(bool copy, int runs, const size_t *sizes, int nsizes, int pos, bool raw,
			  const size_t *units, int nunits, bool base32, enum use use,
			  size_t region, const struct cache_info *ci)
{
	bool loop = use == USE_NONE || use == USE_LATER;
	size_t evict_len = 0;
	uint8_t *evict = NULL;
	struct variant vars[MAX_VARS];
	static double clr[MAX_SIZES][MAX_VARS][MAX_RUNS], tch[MAX_SIZES][MAX_VARS][MAX_RUNS];
	static bool ran[MAX_SIZES][MAX_VARS];
	size_t pool_len, cursor = 0;
	uint8_t *pool, *spool = NULL;
	int nv, i, s, r, k, u;
	char b1[24];
	long thp;

	nv = fault_variants(copy, units, nunits, base32, loop, vars);
	pool_len = 4 * ci->llc;
	if (pool_len < 256 * MIB)
		pool_len = 256 * MIB;
	if (pool_len < sizes[nsizes - 1])
		pool_len = sizes[nsizes - 1];
	if (region)
		pool_len = region;
	pool_len = (pool_len + PMD - 1) & ~(PMD - 1);
	print_header(ci);
	if (copy)
		printf("# source pool (pre-filled with 0x5a) and destination pool");
	else
		printf("# pool");
	pool = map_pool(pool_len);
	thp = thp_kib(pool);
	if (loop) {
		evict_len = (2 * ci->llc + PMD - 1) & ~(PMD - 1);
		if (evict_len < 64 * MIB)
			evict_len = 64 * MIB;
		evict = map_pool(evict_len);
	}
	if (copy) {
		/*
		 * The source is taken from its own pool, so it is not cached
		 * either: in a real CoW the parent may just have written it,
		 * and some of it would then be in its caches. This measures
		 * the cold-source case, the one that matters for big folios.
		 */
		spool = map_pool(pool_len);
		memset(spool, 0x5a, pool_len);
	}
	printf(": %zu MiB%s, %ld MiB in THPs (%s),"
	       " the next folio-sized slot each iteration\n",
	       pool_len / MIB, copy ? " each" : "", thp < 0 ? -1 : thp / 1024,
	       region ? "-R: the populated region" : "max(4 x LLC, 256 MiB, largest folio)");
	if (copy) {
		printf("# copy_mc (mainline, copy_user_large_folio()): copy_mc_enhanced_fast_string()"
		       " (REP MOVSB) per 4 KiB page, in process_huge_page()'s order up to 4 MiB folios"
		       " (far pages first, the fault's page last), ascending above"
		       " (copy_user_gigantic_page())\n");
		printf("# copy_mc_movnti (the series): r[0] right, r[1] left of the fault with"
		       " copy_mc_movnti() in calls of at most the unit (range: one call),"
		       " r[2] = fault +- %d pages per page with copy_mc, last\n", RADIUS);
	} else {
		printf("# clear_pages (mainline, folio_zero_user()): %s, one call per range"
		       " (x86 7.3 is always preemptible): r[0] right, r[1] left of the fault,"
		       " r[2] = fault +- %d pages, last\n",
		       have_erms() ? "REP STOSB (ERMS)" : "REP STOSQ", RADIUS);
		if (base32)
			printf("# clear_pages/32M: the same in calls of at most 32 MiB, as a"
			       " cooperative preemption model would run it: not mainline on x86\n");
		printf("# cold variants (the series): r[0] and r[1] with the routine in calls of"
		       " at most the unit (range: one call), r[2] cached, last\n");
		if (loop)
			printf("# <routine>/whole: the whole folio with the routine in one call"
			       " (populate: nobody faulted)\n");
	}
	printf("# fault at the %s of the folio; cold call units:", fault_pos_name[pos]);
	for (u = 0; u < nunits; u++)
		printf(" %s", unit_str(units[u], b1, sizeof(b1)));
	printf(" (a unit that covers the folio is the one-call variant, not run again)\n");
	if (copy || use == USE_ALL)
		printf("# use %s: right after each %s, a load and a store of one word per 64-byte"
		       " line, in address order\n", use_name[use], copy ? "copy" : "clear");
	else if (use == USE_PAGE)
		printf("# use page: right after each clear, a store of one word per 4 KiB page\n");
	else
		printf("# use %s: every folio of the pool cleared back to back, the loop timed as one"
		       " (a cached clear's write-backs inside it); %s; an untimed read of %zu MiB"
		       " before each loop\n", use_name[use],
		       use == USE_NONE ? "nothing after" :
		       "then one sweep of every line of the pool, timed as the use",
		       evict_len / MIB);
	printf("# ns per 4 KiB page (lower is better), median (min-max) of %d interleaved runs"
	       " of >= 64 MiB or one folio each; clock_gettime() costs %.0f ns, three a folio\n",
	       runs, clock_cost_ns());
	if (raw)
		printf("# run <size KiB> <variant> <%s ns/page> <touch ns/page>\n",
		       copy ? "copy" : "clear");
	fflush(stdout);

	for (s = 0; s < nsizes; s++) {
		size_t len = sizes[s], nslots = pool_len / len;
		long nr = len / PAGE, idx = fault_index(pos, nr);
		long iters = loop ? 1 : len >= MIN_RUN ? 1 : MIN_RUN / len;
		int vs[MAX_VARS], n = 0;

		for (i = 0; i < nv; i++) {
			ran[s][i] = variant_runs(vars, nv, i, len);
			if (ran[s][i])
				vs[n++] = i;
		}
		/* Warm-up, untimed, and a check that each variant did its job. */
		for (k = 0; k < n; k++) {
			size_t o = (cursor++ % nslots) * len;

			i = vs[k];
			memset(pool + o, 0xa5, len);
			if (copy)
				copy_folio(&vars[i], pool + o, spool + o, nr, idx);
			else
				zero_folio(&vars[i], pool + o, nr, idx);
			if (copy ? memcmp(pool + o, spool + o, len) : !check_zero(pool + o, len)) {
				fprintf(stderr, "touch: %s: the folio is not %s\n", vars[i].name,
					copy ? "the source's copy" : "zero");
				return 1;
			}
			touch_lines(pool + o, len);
		}
		for (r = 0; loop && r < runs; r++) {
			for (k = 0; k < n; k++) {
				int v = vs[(k + r) % n];	/* rotate the order each run */
				uint64_t t0, t1, t2;
				size_t j;

				read_lines(evict, evict_len);
				t0 = now_ns();
				for (j = 0; j < nslots; j++)
					zero_folio(&vars[v], pool + j * len, nr, idx);
				t1 = now_ns();
				if (use == USE_LATER)
					touch_lines(pool, nslots * len);
				t2 = now_ns();
				clr[s][v][r] = (double)(t1 - t0) / (nslots * nr);
				tch[s][v][r] = (double)(t2 - t1) / (nslots * nr);
			}
		}
		for (r = 0; !loop && r < runs; r++) {
			for (k = 0; k < n; k++) {
				int v = vs[(k + r) % n];	/* rotate the order each run */
				uint64_t tc = 0, tt = 0;
				long it;

				for (it = 0; it < iters; it++) {
					size_t o = (cursor++ % nslots) * len;
					uint64_t t0, t1, t2;

					t0 = now_ns();
					if (copy)
						copy_folio(&vars[v], pool + o, spool + o, nr, idx);
					else
						zero_folio(&vars[v], pool + o, nr, idx);
					t1 = now_ns();
					if (use == USE_PAGE)
						touch_pages(pool + o, len);
					else
						touch_lines(pool + o, len);
					t2 = now_ns();
					tc += t1 - t0;
					tt += t2 - t1;
				}
				clr[s][v][r] = (double)tc / (iters * nr);
				tch[s][v][r] = (double)tt / (iters * nr);
			}
		}
		for (i = 0; raw && i < nv; i++)
			for (r = 0; ran[s][i] && r < runs; r++)
				printf("run %zu %s %.2f %.2f\n", len / KIB, vars[i].name,
				       clr[s][i][r], tch[s][i][r]);
		fflush(stdout);
	}

	printf("%-6s %-21s %-24s %-24s %-24s total/%s\n", "size", "variant",
	       copy ? "copy" : "clear", "touch", "total", vars[0].name);
	for (s = 0; s < nsizes; s++) {
		double base = 0;

		for (i = 0; i < nv; i++) {
			double tot[MAX_RUNS];
			struct stat3 c, t, a;

			if (!ran[s][i])
				continue;
			for (r = 0; r < runs; r++)
				tot[r] = clr[s][i][r] + tch[s][i][r];
			c = stats(clr[s][i], runs);
			t = stats(tch[s][i], runs);
			a = stats(tot, runs);
			if (!i)
				base = a.med;
			printf("%-6s %-21s %7.1f (%6.1f-%6.1f) %7.1f (%6.1f-%6.1f)"
			       " %7.1f (%6.1f-%6.1f)",
			       i ? "" : size_str(sizes[s], b1, sizeof(b1)), vars[i].name,
			       c.med, c.lo, c.hi, t.med, t.lo, t.hi, a.med, a.lo, a.hi);
			if (i)
				printf("  %5.2f", a.med / base);
			printf("\n");
		}
	}
	printf("# one round; the decision, over rounds: scripts/ntbench.py (make bench)\n");
	munmap(pool, pool_len);
	if (evict)
		munmap(evict, evict_len);
	if (spool)
		munmap(spool, pool_len);
	return 0;
}

/* ---- pollute ---- */

struct corunner {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	long gen, done_gen;	/* under lock: a measurement asked for, finished */
	_Atomic long done;	/* for the clearing loop, without the lock */
	uint8_t *ws;
	size_t ws_len;
	double secs;
	double pace;		/* the clearer's bytes per ns, 0: unpaced */
	double ns_per_line;	/* the result */
	bool quit;
};

static void *corunner_main(void *arg)
{
	struct corunner *c = arg;
	long seen = 0;

	pin(1);
	for (;;) {
		size_t len, lines, passes, every, n = 0;
		uint64_t t0, t, budget;
		uint8_t *ws;

		pthread_mutex_lock(&c->lock);
		while (c->gen == seen && !c->quit)
			pthread_cond_wait(&c->cond, &c->lock);
		if (c->quit) {
			pthread_mutex_unlock(&c->lock);
			return NULL;
		}
		seen = c->gen;
		ws = c->ws;
		len = c->ws_len;
		budget = c->secs * 1e9;
		pthread_mutex_unlock(&c->lock);

		/* Warm: the set in the caches, and the clearer under way. */
		lines = len / LINE;
		t0 = now_ns();
		for (passes = 0; passes < 2 || now_ns() - t0 < 20000000; passes++)
			touch_lines(ws, len);
		/* Read the clock about every 64 KiB walked. */
		every = lines >= 1024 ? 1 : 1024 / lines;
		t0 = now_ns();
		do {
			for (passes = 0; passes < every; passes++)
				touch_lines(ws, len);
			n += every;
			t = now_ns() - t0;
		} while (t < budget);

		pthread_mutex_lock(&c->lock);
		c->ns_per_line = (double)t / (n * lines);
		c->done_gen = seen;
		atomic_store_explicit(&c->done, seen, memory_order_release);
		pthread_cond_broadcast(&c->cond);
		pthread_mutex_unlock(&c->lock);
	}
}

/*
 * One measurement: the co-runner over @ws_len bytes while this thread
 * clears @region with @fn in 32 MiB calls (NULL: sleeps). Returns the
 * co-runner's ns per line; *gbs gets the clearer's own GB/s.
 */
static double pollute_one(struct corunner *c, size_t ws_len, clear_fn fn, uint8_t *region,
			  size_t region_len, double *gbs)
{
	size_t off = 0, cleared = 0;
	uint64_t t0;
	long gen;

	pthread_mutex_lock(&c->lock);
	c->ws_len = ws_len;
	gen = ++c->gen;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
	t0 = now_ns();
	if (fn) {
		size_t chunk = c->pace ? PMD : BATCH;

		while (atomic_load_explicit(&c->done, memory_order_acquire) != gen) {
			if (fn(region + off, chunk)) {
				fprintf(stderr, "touch: %%rax not zero after a clear\n");
				exit(1);
			}
			cleared += chunk;
			off = (off + chunk) % region_len;
			while (c->pace && now_ns() - t0 < cleared / c->pace &&
			       atomic_load_explicit(&c->done, memory_order_acquire) != gen)
				;
		}
	}
	pthread_mutex_lock(&c->lock);
	while (c->done_gen != gen)
		pthread_cond_wait(&c->cond, &c->lock);
	pthread_mutex_unlock(&c->lock);
	*gbs = cleared / (double)(now_ns() - t0);
	return c->ns_per_line;
}

static int cmd_pollute(int runs, size_t *ws, int nws, bool ws_given, double secs, double pace,
		       bool raw, const struct cache_info *ci)
{
	struct { const char *name; clear_fn fn; const char *lacks; } all[] = {
		{ "idle", NULL },
		{ "clear_pages", clear_pages_fn() },
		{ "movnti", clear_movnti },
		{ "clzero", clear_clzero,
		  have_clzero() ? NULL : "no CLZERO with 64-byte lines (CPUID 0x80000008 EBX[0])" },
		{ "movdir64b", clear_movdir64b,
		  have_movdir64b() ? NULL : "no MOVDIR64B (CPUID 7.0 ECX[28])" },
	};
	struct corunner c = {
		.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER, .secs = secs,
		.pace = pace,
	};
	static double nspl[MAX_SIZES][MAX_VARS][MAX_RUNS], gbs[MAX_SIZES][MAX_VARS][MAX_RUNS];
	const size_t region_len = GIB;
	int nv = 0, vi[MAX_VARS], i, w, r, k;
	uint8_t *region;
	pthread_t th;
	char b1[24];
	long online = sysconf(_SC_NPROCESSORS_ONLN);

	print_header(ci);
	if (online < 2 || !cpu_allowed(0) || !cpu_allowed(1)) {
		printf("# pollute skipped: %s\n", online < 2 ? "fewer than 2 CPUs online" :
		       "this process may not run on both CPU 0 and CPU 1");
		return 0;
	}
	for (i = 0; i < 5; i++) {
		if (all[i].lacks)
			printf("# %s skipped: %s\n", all[i].name, all[i].lacks);
		else
			vi[nv++] = i;
	}
	if (!ws_given) {
		/* 1/8, 1/4, 1/2 of the LLC, and of L2 if the LLC is not believable */
		nws = 0;
		if (ci->unrealistic)
			for (i = 3; i >= 1; i--)
				ws[nws++] = (ci->l2 >> i) & ~(LINE - 1);
		for (i = 3; i >= 1; i--) {
			size_t w = ci->llc >> i;

			ws[nws++] = w & ~(w >= 8 * MIB ? MIB - 1 : LINE - 1);
		}
	}
	c.ws = map_pool(ws[nws - 1]);
	region = map_pool(region_len);
	printf("# co-runner on CPU 1: a load and a store of one word per 64-byte line of its"
	       " working set, in address order, over and over\n");
	if (pace)
		printf("# clearer on CPU 0: a %zu MiB region in 2 MiB calls paced at %.1f GB/s,"
		       " in a loop, with each routine (clear_pages = %s), or asleep (idle)\n",
		       region_len / MIB, pace, have_erms() ? "REP STOSB" : "REP STOSQ");
	else
		printf("# clearer on CPU 0: a %zu MiB region in 32 MiB calls as fast as it goes,"
		       " in a loop, with each routine (clear_pages = %s), or asleep (idle)\n",
		       region_len / MIB, have_erms() ? "REP STOSB" : "REP STOSQ");
	printf("# working sets: %s%s; %.2f s a measurement, %d interleaved runs\n",
	       ws_given ? "as given" : "1/8, 1/4 and 1/2 of the LLC",
	       !ws_given && ci->unrealistic ? ", and of L2 (the LLC reported is unrealistic)" : "",
	       secs, runs);
	printf("# slowdown = co-runner's ns per line while the routine runs / idle in the same"
	       " run (1: no harm), median (min-max)\n");
	if (raw)
		printf("# run <ws KiB> <variant> <ns/line> <slowdown>\n");
	fflush(stdout);
	pthread_create(&th, NULL, corunner_main, &c);
	pin(0);

	for (r = 0; r < runs; r++)
		for (w = 0; w < nws; w++)
			for (k = 0; k < nv; k++) {
				int v = (k + r) % nv;

				nspl[w][v][r] = pollute_one(&c, ws[w], all[vi[v]].fn, region,
							    region_len, &gbs[w][v][r]);
			}
	pthread_mutex_lock(&c.lock);
	c.quit = true;
	pthread_cond_broadcast(&c.cond);
	pthread_mutex_unlock(&c.lock);
	pthread_join(th, NULL);

	for (w = 0; raw && w < nws; w++)
		for (k = 0; k < nv; k++)
			for (r = 0; r < runs; r++)
				printf("run %zu %s %.4f %.3f %.2f\n", ws[w] / KIB, all[vi[k]].name,
				       nspl[w][k][r], nspl[w][k][r] / nspl[w][0][r], gbs[w][k][r]);
	printf("%-8s %-*s", "ws", CELL, "idle ns/line");
	for (k = 1; k < nv; k++)
		printf(" %-*s", k < nv - 1 ? CELL : 0, all[vi[k]].name);
	printf("\n");
	for (w = 0; w < nws; w++) {
		struct stat3 st = stats(nspl[w][0], runs);
		char cell[64];

		snprintf(cell, sizeof(cell), "%6.3f (%5.3f-%5.3f)", st.med, st.lo, st.hi);
		printf("%-8s %-*s", size_str(ws[w], b1, sizeof(b1)), CELL, cell);
		for (k = 1; k < nv; k++) {
			double sl[MAX_RUNS];

			for (r = 0; r < runs; r++)
				sl[r] = nspl[w][k][r] / nspl[w][0][r];
			st = stats(sl, runs);
			snprintf(cell, sizeof(cell), "%5.2f (%5.2f-%5.2f)", st.med, st.lo, st.hi);
			printf(" %-*s", k < nv - 1 ? CELL : 0, cell);
		}
		printf("\n");
	}
	printf("# the clearer's own GB/s meanwhile, median over all runs and sets:");
	for (k = 1; k < nv; k++) {
		double g[MAX_RUNS * MAX_SIZES];
		int n = 0;

		for (w = 0; w < nws; w++)
			for (r = 0; r < runs; r++)
				g[n++] = gbs[w][k][r];
		qsort(g, n, sizeof(*g), cmp_double);
		printf(" %s %.1f", all[vi[k]].name, g[n / 2]);
	}
	printf("\n");
	munmap(region, region_len);
	return 0;
}

/* -u: "range" (0: one call a range) or a size, at most two, no repeats */
static int parse_units(const char *arg, size_t *units)
{
	char buf[64], *tok, *save;
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t u = 0;

		if (n == 2 || (strcmp(tok, "range") &&
			       (!parse_size(tok, &u) || u < PAGE || u % PAGE))) {
			fprintf(stderr, "touch: -u %s: want range or a size of whole pages,"
				" at most two\n", arg);
			return -1;
		}
		if (n && units[0] == u) {
			fprintf(stderr, "touch: -u %s: a unit twice\n", arg);
			return -1;
		}
		units[n++] = u;
	}
	if (!n) {
		fprintf(stderr, "touch: -u: no unit\n");
		return -1;
	}
	return n;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: touch fault|copy [-r runs] [-s size,...] [-f start|middle|end]"
		   " [-u range|size,...] [-t all|page|none|later] [-R region] [-m] [-x] [-n]\n"
		   "       touch pollute [-r runs] [-w size,...] [-d seconds] [-p GB/s] [-x] [-n]\n"
		   "       sizes with K, M or G; folios: powers of two from 4K to 16G;"
		   " -n: check only\n");
}

int main(int argc, char **argv)
{
	const char *sizes_arg = "16K,64K,256K,1M,2M,32M,1G", *ws_arg = NULL;
	size_t sizes[MAX_SIZES], ws[MAX_SIZES], units[2] = { 0 }, region = 0;
	struct cache_info ci;
	int runs = 5, pos = 0, nsizes = 0, nws = 0, nunits = 1, o;
	bool base32 = false;
	enum use use = USE_ALL;
	double secs = 0.3, pace = 2;
	bool raw = false, dry = false, pollute;
	char *end;
	long avail, need;

	if (argc < 2 || (strcmp(argv[1], "fault") && strcmp(argv[1], "copy") &&
			 strcmp(argv[1], "pollute"))) {
		usage(stderr);
		return 2;
	}
	pollute = !strcmp(argv[1], "pollute");
	optind = 2;
	while ((o = getopt(argc, argv, pollute ? "r:w:d:p:xnh" : "r:s:f:u:t:R:mxnh")) != -1) {
		switch (o) {
		case 'r':
			runs = strtol(optarg, &end, 10);
			if (*end || end == optarg || runs < 1 || runs > MAX_RUNS) {
				fprintf(stderr, "touch: -r %s: want 1 to %d runs\n", optarg,
					MAX_RUNS);
				usage(stderr);
				return 2;
			}
			break;
		case 's':
			sizes_arg = optarg;
			break;
		case 'w':
			ws_arg = optarg;
			break;
		case 'u':
			nunits = parse_units(optarg, units);
			if (nunits < 0) {
				usage(stderr);
				return 2;
			}
			break;
		case 'R':
			if (!parse_size(optarg, &region) || region < PMD || region % PMD ||
			    region > 16 * GIB) {
				fprintf(stderr, "touch: -R %s: want a region of 2M to 16G, a multiple"
					" of 2M\n", optarg);
				usage(stderr);
				return 2;
			}
			break;
		case 'm':
			base32 = true;
			break;
		case 't':
			for (use = USE_ALL; use <= USE_LATER && strcmp(optarg, use_name[use]); use++)
				;
			if (use > USE_LATER || !strcmp(argv[1], "copy")) {
				fprintf(stderr, "touch: -t %s: want all, page, none or later"
					" (fault only)\n", optarg);
				usage(stderr);
				return 2;
			}
			break;
		case 'f':
			for (pos = 0; pos < 3 && strcmp(optarg, fault_pos_name[pos]); pos++)
				;
			if (pos == 3) {
				fprintf(stderr, "touch: -f %s: want start, middle or end\n",
					optarg);
				usage(stderr);
				return 2;
			}
			break;
		case 'd':
			secs = strtod(optarg, &end);
			if (*end || end == optarg || !(secs >= 0.05 && secs <= 10)) {
				fprintf(stderr, "touch: -d %s: want 0.05 to 10 seconds\n", optarg);
				usage(stderr);
				return 2;
			}
			break;
		case 'p':
			pace = strtod(optarg, &end);
			if (*end || end == optarg || !(pace >= 0 && pace <= 1000)) {
				fprintf(stderr, "touch: -p %s: want GB/s from 0 (unpaced) to 1000\n",
					optarg);
				usage(stderr);
				return 2;
			}
			break;
		case 'x':
			raw = true;
			break;
		case 'n':
			dry = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "touch: unexpected '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (!pollute)
		nsizes = parse_sizes(sizes_arg, sizes, PAGE, 16 * GIB, true, "folio size");
	else if (ws_arg)
		nws = parse_sizes(ws_arg, ws, PAGE, 16 * GIB, false, "working set");
	if (nsizes < 0 || nws < 0) {
		usage(stderr);
		return 2;
	}
	if (region && (use != USE_NONE && use != USE_LATER)) {
		fprintf(stderr, "touch: -R: with -t none or later only\n");
		usage(stderr);
		return 2;
	}
	if (region && region < sizes[nsizes - 1]) {
		fprintf(stderr, "touch: -R: a region of at least the largest folio\n");
		usage(stderr);
		return 2;
	}

	cache_sizes(&ci);
	/* Refuse what this host cannot hold, before anything runs. */
	if (pollute) {
		need = GIB / MIB + (nws ? ws[nws - 1] : ci.llc / 2) / MIB;
	} else {
		need = 4 * ci.llc > 256 * MIB ? 4 * ci.llc / MIB : 256;
		if (need < (long)(sizes[nsizes - 1] / MIB))
			need = sizes[nsizes - 1] / MIB;
		if (region)
			need = region / MIB;
		if (!strcmp(argv[1], "copy"))
			need *= 2;
		if (use == USE_NONE || use == USE_LATER)
			need += (2 * ci.llc > 64 * MIB ? 2 * ci.llc : 64 * MIB) / MIB;
	}
	avail = mem_available_mib();
	if (avail >= 0 && need + 512 > avail) {
		fprintf(stderr, "touch: needs about %ld MiB, %ld MiB available:"
			" use smaller sizes\n",
			need + 512, avail);
		return 2;
	}
	if (dry) {
		printf("touch %s: %d runs, about %ld MiB; LLC %zu KiB\n", argv[1], runs, need + 512,
		       ci.llc / KIB);
		return 0;
	}

	if (pollute)
		return cmd_pollute(runs, ws, nws, !!ws_arg, secs, pace, raw, &ci);
	if (cpu_allowed(0))
		pin(0);
	return cmd_fault_copy(!strcmp(argv[1], "copy"), runs, sizes, nsizes, pos, raw, units, nunits,
			      base32, use, region, &ci);
}
