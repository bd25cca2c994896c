/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the harness programs (clearpage, touch) share: the calls into the
 * tree's clear routines with clear_pages()'s convention, the CPUID checks,
 * and the kernel's policy decision: the tree's own nt_parts.c, included
 * (through shim/, see harness/Makefile), and its nt_decide(). Each program includes
 * it once; everything here is static inline.
 */
#ifndef HARNESS_ROUTINES_H
#define HARNESS_ROUTINES_H

#include <cpuid.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The tree's table of parts and nt_decide(), the very code the kernel runs. */
#include <asm/nt_stores.h>
#include "nt_parts.c"

/* The kernel's zero page, the source of the MOVDIR64B probe (cand/probes.S). */
extern const uint8_t empty_zero_page[4096];

/* From the kernel tree: C calling convention. */
unsigned long copy_mc_enhanced_fast_string(void *to, const void *from, unsigned int len);
unsigned long copy_mc_movnti(void *to, const void *from, unsigned long len);

/*
 * From the kernel tree: clear_pages()'s convention (%rdi, %rcx, %rax = 0),
 * called from inline asm as the kernel's alternatives call them. The
 * harness is built with -mno-red-zone, since a CALL in inline asm writes
 * below the stack pointer. Returns %rax afterwards (must be zero).
 */
#define CLEAR_CALL(insn, addr, len) ({					\
	void *__a = (addr);						\
	unsigned long __l = (len), __z = 0;				\
	__asm__ volatile(insn : "+D" (__a), "+c" (__l), "+a" (__z)	\
			 : : "cc", "memory");				\
	__z; })

static inline unsigned long clear_stosb(void *p, size_t len)
{
	return CLEAR_CALL("rep stosb", p, len);
}

static inline unsigned long clear_stosq(void *p, size_t len)
{
	return CLEAR_CALL("shrq $3, %%rcx; rep stosq", p, len);
}

static inline unsigned long clear_unrolled(void *p, size_t len)
{
	return CLEAR_CALL("call __clear_pages_unrolled", p, len);
}

static inline unsigned long clear_movnti(void *p, size_t len)
{
	return CLEAR_CALL("call __clear_pages_movnti", p, len);
}

static inline unsigned long clear_clzero(void *p, size_t len)
{
	return CLEAR_CALL("call __clear_pages_clzero", p, len);
}

/* v3's MOVDIR64B clear, a probe since v4 (cand/probes.S) */
static inline unsigned long clear_movdir64b(void *p, size_t len)
{
	return CLEAR_CALL("call __clear_pages_movdir64b_probe", p, len);
}

static inline bool cpuid_bit(unsigned int leaf, unsigned int sub, int reg, int bit)
{
	unsigned int r[4];

	if (!__get_cpuid_count(leaf, sub, &r[0], &r[1], &r[2], &r[3]))
		return false;
	return r[reg] & (1U << bit);
}

static inline bool have_erms(void) { return cpuid_bit(7, 0, 1, 9); }
static inline bool have_movdir64b(void) { return cpuid_bit(7, 0, 2, 28); }

/* CLZERO, with the 64-byte line X86_FEATURE_NT_CLZERO also asks for. */
static inline bool have_clzero(void)
{
	unsigned int a, b, c, d;

	if (!cpuid_bit(0x80000008, 0, 1, 0) || !__get_cpuid(1, &a, &b, &c, &d))
		return false;
	return ((b >> 8) & 0xff) * 8 == 64;
}

static inline void cpu_ident(char *vendor, unsigned int *fam, unsigned int *model,
		      unsigned int *step)
{
	unsigned int a = 0, b = 0, c = 0, d = 0;

	__get_cpuid(0, &a, &b, &c, &d);
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = 0;
	__get_cpuid(1, &a, &b, &c, &d);
	*fam = (a >> 8) & 0xf;
	*model = (a >> 4) & 0xf;
	*step = a & 0xf;
	if (*fam == 0xf)
		*fam += (a >> 20) & 0xff;
	if (*fam >= 6)
		*model |= ((a >> 16) & 0xf) << 4;
}

/* ---- the kernel's policy: the tree's nt_parts.c and nt_decide() ---- */

/* A CPU as nt_decide() sees it: identity, CLZERO and its line, MOVDIR64B. */
struct nt_cpu {
	unsigned int vendor, family, model, stepping;	/* X86_VENDOR_*, ... */
	bool clzero, movdir64b;		/* the instructions */
	unsigned int clflush;		/* line size, bytes */
};

/* CPUID's vendor string, or the X86_VENDOR_ name without its prefix. */
static inline unsigned int nt_vendor_of(const char *s)
{
	static const struct { const char *id, *name; unsigned int v; } vs[] = {
		{ "GenuineIntel", "INTEL", X86_VENDOR_INTEL },
		{ "AuthenticAMD", "AMD", X86_VENDOR_AMD },
		{ "HygonGenuine", "HYGON", X86_VENDOR_HYGON },
		{ "CentaurHauls", "CENTAUR", X86_VENDOR_CENTAUR },
		{ "  Shanghai  ", "ZHAOXIN", X86_VENDOR_ZHAOXIN },
	};
	size_t i;

	if (!strncmp(s, "X86_VENDOR_", 11))
		s += 11;
	for (i = 0; i < sizeof(vs) / sizeof(vs[0]); i++)
		if (!strcmp(s, vs[i].id) || !strcmp(s, vs[i].name))
			return vs[i].v;
	return X86_VENDOR_UNKNOWN;
}

static inline struct nt_cpu nt_this_cpu(void)
{
	unsigned int a, b, c, d;
	struct nt_cpu cpu = { 0 };
	char vendor[13];

	cpu_ident(vendor, &cpu.family, &cpu.model, &cpu.stepping);
	cpu.vendor = nt_vendor_of(vendor);
	cpu.clzero = cpuid_bit(0x80000008, 0, 1, 0);
	cpu.movdir64b = have_movdir64b();
	if (__get_cpuid(1, &a, &b, &c, &d))
		cpu.clflush = ((b >> 8) & 0xff) * 8;
	return cpu;
}

/* nt_decide() of the tree (nt_parts.c), without its switches */
static inline struct nt_decision nt_harness_decide(struct nt_cpu c)
{
	struct cpuinfo_x86 x = {
		.x86_vendor = c.vendor, .x86 = c.family, .x86_model = c.model,
		.x86_stepping = c.stepping, .x86_clflush_size = c.clflush,
	};
	struct nt_decision d;

	if (c.clzero)
		set_bit(X86_FEATURE_CLZERO, (unsigned long *)x.x86_capability);
	nt_decide(&x, false, false, &d);
	return d;
}

static inline struct nt_decision nt_this_decision(void)
{
	return nt_harness_decide(nt_this_cpu());
}

/* The routine of enum nt_clear_routine, as the harness and bench name it */
static inline const char *nt_routine_name(int clear)
{
	return clear == NT_CLEAR_CLZERO ? "clzero" :
	       clear == NT_CLEAR_MOVNTI ? "movnti" : "clear_pages";
}

/* A folio order of the table in bytes; 0: never */
static inline unsigned long nt_order_bytes(unsigned int order)
{
	return order == NT_NEVER ? 0 : 4096UL << order;
}

/* 32M, 64K, 1G: a folio size as touch prints it */
static inline const char *nt_size_str(unsigned long b, char *buf, size_t n)
{
	if (b && !(b % (1UL << 30)))
		snprintf(buf, n, "%luG", b >> 30);
	else if (b && !(b % (1UL << 20)))
		snprintf(buf, n, "%luM", b >> 20);
	else if (b && !(b % (1UL << 10)))
		snprintf(buf, n, "%luK", b >> 10);
	else
		snprintf(buf, n, "%lu", b);
	return buf;
}

/* "clear movnti from 1G, copy movnti from 2M (Emerald Rapids)" */
static inline const char *nt_policy_str(const struct nt_decision *d, char *buf, size_t n)
{
	const struct nt_part *p = d->part;
	char c[64], q[64], s[24];

	if (p->clear == NT_CLEAR_CACHED) {
		snprintf(buf, n, "nothing cold (%s)", p->name ? p->name : "default rule");
		return buf;
	}
	if (p->clear_order == NT_NEVER)
		snprintf(c, sizeof(c), "clear %s never", nt_routine_name(p->clear));
	else
		snprintf(c, sizeof(c), "clear %s from %s", nt_routine_name(p->clear),
			 nt_size_str(nt_order_bytes(p->clear_order), s, sizeof(s)));
	if (p->copy_order == NT_NEVER)
		snprintf(q, sizeof(q), "copy movnti never");
	else
		snprintf(q, sizeof(q), "copy movnti from %s",
			 nt_size_str(nt_order_bytes(p->copy_order), s, sizeof(s)));
	snprintf(buf, n, "%s, %s (%s)", c, q, p->name ? p->name : "default rule");
	return buf;
}
#endif /* HARNESS_ROUTINES_H */
