// SPDX-License-Identifier: GPL-2.0
/*
 * The x86-64 memset() and memcpy() variants of "perf bench mem", linked from
 * the objects perf itself was built from (bench/mem-memset-x86-64-asm.o and
 * bench/mem-memcpy-x86-64-asm.o, i.e. arch/x86/lib/mem{set,cpy}_64.S of the
 * realised tree, and bench/mem-x86-64-movnt.o), checked byte for byte
 * against glibc's memset()/memcpy().
 *
 *   memcheck [-s MiB] [-l loops]
 *
 * For every variant: all lengths 0..1100 at all 64 destination alignments
 * (and five source alignments for memcpy), with guard bytes on both sides
 * and the return value checked; one large odd-sized, misaligned call; and
 * the call sequence of "perf bench mem memset -s <MiB>MB -l <loops>"
 * replayed on a buffer of that size, compared with what glibc memset()
 * writes for the same sequence. KTAP on stdout.
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef void *(*memset_t)(void *, int, size_t);
typedef void *(*memcpy_t)(void *, const void *, size_t);

/* From perf's bench objects: the names the kernel source gives them. */
void *memset_orig(void *, int, size_t);
void *__memset(void *, int, size_t);
void *__memset_stosq(void *, int, size_t);
void *memset_movnti(void *, int, size_t);
void *memset_clzero(void *, int, size_t);
void *memcpy_orig(void *, const void *, size_t);
void *__memcpy(void *, const void *, size_t);
void *__memcpy_movsq(void *, const void *, size_t);
void *memcpy_movnti(void *, const void *, size_t);

/*
 * perf's -f names for them, bound as perf binds them: from perf's own
 * tools/perf/bench/mem-{memset,memcpy}-x86-64-asm-def.h.
 */
static const struct { const char *name; memset_t fn; } sets[] = {
#define MEMSET_FN(_fn, _init, _fini, _name, _desc) { _name, _fn },
#include "mem-memset-x86-64-asm-def.h"
#undef MEMSET_FN
};

static const struct { const char *name; memcpy_t fn; } cpys[] = {
#define MEMCPY_FN(_fn, _init, _fini, _name, _desc) { _name, _fn },
#include "mem-memcpy-x86-64-asm-def.h"
#undef MEMCPY_FN
};

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))
#define MAXLEN		1100
#define GUARD		4096
#define GUARD_BYTE	0xe7

static int ktap_n, npass, nfail;

static void result(bool ok, const char *name, const char *why)
{
	ktap_n++;
	ok ? npass++ : nfail++;
	printf("%sok %d %s\n", ok ? "" : "not ", ktap_n, name);
	if (why && *why)
		printf("# %s\n", why);
	fflush(stdout);
}

/* Anonymous memory that is not transparently shared with anything. */
static uint8_t *map(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	return p;
}

/* First differing byte of a and b, or -1. */
static long first_diff(const uint8_t *a, const uint8_t *b, size_t len)
{
	size_t i, chunk = 1 << 20;

	for (i = 0; i < len; i += chunk) {
		size_t n = len - i < chunk ? len - i : chunk;

		if (memcmp(a + i, b + i, n)) {
			while (a[i] == b[i])
				i++;
			return i;
		}
	}
	return -1;
}

/* The call's result against glibc's: return value, then every byte. */
static bool same(const uint8_t *buf, const uint8_t *ref, size_t span, size_t off,
		 const void *ret, const char *call, char *why, size_t whylen)
{
	long d;

	if (ret != buf + off) {
		snprintf(why, whylen, "%s: returned %p, want %p",
			 call, ret, (const void *)(buf + off));
		return false;
	}
	d = first_diff(buf, ref, span);
	if (d >= 0) {
		snprintf(why, whylen, "%s: byte %ld is 0x%02x, glibc wrote 0x%02x",
			 call, d - (long)off, buf[d], ref[d]);
		return false;
	}
	return true;
}

/* fn and glibc, from the same guard-filled start; false with a reason. */
/*
 * The value a memset() under test writes for @c over @len bytes: x86-64-clzero
 * zeroes whatever the value from 256 bytes on (CLZERO writes only zeros).
 */
static bool zero_from_256;

static int set_value(int c, size_t len)
{
	return zero_from_256 && len >= 256 ? 0 : c;
}

static bool set_once(memset_t fn, uint8_t *buf, uint8_t *ref, size_t span,
		     size_t off, int c, size_t len, char *why, size_t whylen)
{
	char call[80];
	void *ret;

	memset(buf, GUARD_BYTE, span);
	memset(ref, GUARD_BYTE, span);
	ret = fn(buf + off, c, len);
	memset(ref + off, set_value(c, len), len);
	snprintf(call, sizeof(call), "len %zu off %zu c %#x", len, off, c);
	return same(buf, ref, span, off, ret, call, why, whylen);
}

static bool cpy_once(memcpy_t fn, uint8_t *buf, uint8_t *ref, const uint8_t *src,
		     size_t span, size_t off, size_t soff, size_t len,
		     char *why, size_t whylen)
{
	char call[80];
	void *ret;

	memset(buf, GUARD_BYTE, span);
	memset(ref, GUARD_BYTE, span);
	ret = fn(buf + off, src + soff, len);
	memcpy(ref + off, src + soff, len);
	snprintf(call, sizeof(call), "len %zu dst off %zu src off %zu", len, off, soff);
	return same(buf, ref, span, off, ret, call, why, whylen);
}

/* A memset that is wrong in one byte, to show the checks can fail. */
static size_t broken_at;
static void *memset_broken(void *d, int c, size_t n)
{
	memset(d, c, n);
	if (n > broken_at)
		((uint8_t *)d)[broken_at] ^= 1;
	return d;
}

static void *memcpy_broken(void *d, const void *s, size_t n)
{
	memcpy(d, s, n + (n > broken_at));	/* one byte too many */
	return d;
}

static bool set_small(memset_t fn, char *why, size_t whylen)
{
	static const int vals[] = { 0, 0xff, 0xa5, 0x13c, -1 };
	size_t span = MAXLEN + 64 + 2 * 64;
	uint8_t *buf = map(span), *ref = map(span);
	bool ok = true;
	size_t len, off;

	for (len = 0; ok && len <= MAXLEN; len++)
		for (off = 64; ok && off < 128; off++)
			ok = set_once(fn, buf, ref, span, off,
				      vals[(len + off) % NELEM(vals)], len, why, whylen);
	munmap(buf, span);
	munmap(ref, span);
	return ok;
}

static bool cpy_small(memcpy_t fn, char *why, size_t whylen)
{
	static const size_t soffs[] = { 0, 1, 7, 32, 63 };
	size_t span = MAXLEN + 64 + 2 * 64;
	uint8_t *buf = map(span), *ref = map(span), *src = map(span);
	bool ok = true;
	size_t len, off, k;

	for (k = 0; k < span; k++)
		src[k] = rand();
	for (len = 0; ok && len <= MAXLEN; len++)
		for (off = 64; ok && off < 128; off++)
			for (k = 0; ok && k < NELEM(soffs); k++)
				ok = cpy_once(fn, buf, ref, src, span, off, soffs[k],
					      len, why, whylen);
	munmap(buf, span);
	munmap(ref, span);
	munmap(src, span);
	return ok;
}

static bool set_large(memset_t fn, char *why, size_t whylen)
{
	size_t len = (64 << 20) + 13, span = len + 2 * GUARD;
	uint8_t *buf = map(span), *ref = map(span);
	bool ok = set_once(fn, buf, ref, span, GUARD + 5, 0x5a, len, why, whylen) &&
		  set_once(fn, buf, ref, span, GUARD + 5, 0, len, why, whylen);

	munmap(buf, span);
	munmap(ref, span);
	return ok;
}

static bool cpy_large(memcpy_t fn, char *why, size_t whylen)
{
	size_t len = (64 << 20) + 29, span = len + 2 * GUARD, k;
	uint8_t *buf = map(span), *ref = map(span), *src = map(span);
	bool ok;

	for (k = 0; k + 8 <= span; k += 8)
		*(uint64_t *)(src + k) = k * 0x9e3779b97f4a7c15ULL;
	ok = cpy_once(fn, buf, ref, src, span, GUARD + 61, 3, len, why, whylen);
	munmap(buf, span);
	munmap(ref, span);
	munmap(src, span);
	return ok;
}

/* do_memset_gettimeofday(): fn(dst, -1, size), then fn(dst, i, size) per loop. */
static bool set_perf_replay(memset_t fn, size_t len, int loops, char *why, size_t whylen)
{
	size_t span = len + 2 * GUARD;
	uint8_t *buf = map(span), *ref = map(span);
	uint8_t *d = buf + GUARD, *r = ref + GUARD;
	void *ret, *wrong = NULL;
	char call[80];
	bool ok;
	int i;

	memset(buf, GUARD_BYTE, span);
	memset(ref, GUARD_BYTE, span);
	ret = fn(d, -1, len);
	memset(r, set_value(-1, len), len);
	for (i = 0; i < loops; ++i) {
		if (ret != d)
			wrong = ret;
		ret = fn(d, i, len);
		memset(r, set_value(i, len), len);
	}
	snprintf(call, sizeof(call), "after %d+1 calls", loops);
	ok = same(buf, ref, span, GUARD, wrong ? wrong : ret, call, why, whylen);
	if (ok)
		snprintf(why, whylen, "%zu bytes after %d+1 calls equal glibc's, guards intact",
			 len, loops);
	munmap(buf, span);
	munmap(ref, span);
	return ok;
}

int main(int argc, char **argv)
{
	size_t mib = 1024;
	int loops = 5, opt, i;
	char why[256], name[96];
	bool ok;

	while ((opt = getopt(argc, argv, "s:l:h")) != -1) {
		switch (opt) {
		case 's': mib = strtoul(optarg, NULL, 0); break;
		case 'l': loops = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: memcheck [-s MiB] [-l loops]\n");
			return opt == 'h' ? 0 : 2;
		}
	}
	if (!mib || loops < 1) {
		fprintf(stderr, "memcheck: -s and -l must be at least 1\n");
		return 2;
	}

	printf("KTAP version 1\n1..%zu\n", 2 + 3 * NELEM(sets) + 2 * NELEM(cpys));

	/* The checks themselves, on routines that are wrong in one byte. */
	why[0] = 0;
	broken_at = 700;
	ok = !set_small(memset_broken, why, sizeof(why));
	result(ok, "memset_check_catches_a_wrong_byte", why);
	why[0] = 0;
	broken_at = 300;
	ok = !cpy_small(memcpy_broken, why, sizeof(why));
	result(ok, "memcpy_check_catches_a_write_past_the_end", why);

	for (i = 0; i < (int)NELEM(sets); i++) {
		unsigned int a, b, c, d;

		/* x86-64-clzero is #UD without CLZERO: perf refuses it there */
		if (!strcmp(sets[i].name, "x86-64-clzero") &&
		    (!__get_cpuid(0x80000008, &a, &b, &c, &d) || !(b & 1))) {
			for (int k = 0; k < 3; k++)
				printf("ok %d memset_%s_%d # SKIP no CLZERO on this CPU\n",
				       ++ktap_n, sets[i].name, k);
			continue;
		}
		zero_from_256 = !strcmp(sets[i].name, "x86-64-clzero");
		why[0] = 0;
		snprintf(name, sizeof(name), "memset_%s_0_to_%d_bytes_all_alignments", sets[i].name, MAXLEN);
		result(set_small(sets[i].fn, why, sizeof(why)), name, why);
		why[0] = 0;
		snprintf(name, sizeof(name), "memset_%s_64MiB_odd", sets[i].name);
		result(set_large(sets[i].fn, why, sizeof(why)), name, why);
		snprintf(name, sizeof(name), "memset_%s_perf_bench_s_%zuMB_l_%d", sets[i].name, mib, loops);
		result(set_perf_replay(sets[i].fn, mib << 20, loops, why, sizeof(why)), name, why);
	}
	for (i = 0; i < (int)NELEM(cpys); i++) {
		why[0] = 0;
		snprintf(name, sizeof(name), "memcpy_%s_0_to_%d_bytes_all_alignments", cpys[i].name, MAXLEN);
		result(cpy_small(cpys[i].fn, why, sizeof(why)), name, why);
		why[0] = 0;
		snprintf(name, sizeof(name), "memcpy_%s_64MiB_odd", cpys[i].name);
		result(cpy_large(cpys[i].fn, why, sizeof(why)), name, why);
	}
	printf("# memcheck: %d passed, %d failed\n", npass, nfail);
	return nfail ? 1 : 0;
}
