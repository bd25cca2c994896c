/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the harness programs (clearpage, touch) share: the calls into the
 * tree's clear routines with clear_pages()'s convention, the CPUID checks,
 * and the kernel's policy decision, made with the tree's own nt_policy.h
 * and nt_parts.h (through shim/, see harness/Makefile). Each program includes
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

/* The tree's policy and table of parts, the very code the kernel runs. */
#include <asm/nt_policy.h>
#include "nt_parts.h"

/* The kernel's zero page, the source of __clear_pages_movdir64b(). */
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

static inline unsigned long clear_movdir64b(void *p, size_t len)
{
	return CLEAR_CALL("call __clear_pages_movdir64b", p, len);
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

/* ---- the kernel's policy: the tree's nt_policy.h and nt_parts.h ---- */

/* A CPU as nt_decide() sees it: identity, CLZERO and its line, MOVDIR64B. */
struct nt_cpu {
	unsigned int vendor, family, model, stepping;	/* X86_VENDOR_*, ... */
	bool clzero, movdir64b;		/* the instructions */
	unsigned int clflush;		/* line size, bytes */
};

struct nt_harness_decision {
	struct nt_policy policy;
	const char *part;		/* the nt_parts[] entry; NULL: default rule */
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

/* cpu_has() for the features an nt_parts[] entry can ask for. */
static inline bool nt_cpu_has(const struct nt_cpu *c, unsigned int feature)
{
	switch (feature) {
	case X86_FEATURE_CLZERO:
		return c->clzero;
	case X86_FEATURE_MOVDIR64B:
		return c->movdir64b;
	default:
		return false;
	}
}

/* x86_match_cpu_info() on nt_parts[], for the fields the table uses. */
static inline const struct nt_part *nt_harness_part_of(const struct nt_cpu *c)
{
	const struct x86_cpu_id *m;

	for (m = nt_parts; m->flags & X86_CPU_ID_FLAG_ENTRY_VALID; m++) {
		if (m->vendor != X86_VENDOR_ANY && m->vendor != c->vendor)
			continue;
		if (m->family != X86_FAMILY_ANY && m->family != c->family)
			continue;
		if (m->model != X86_MODEL_ANY && m->model != c->model)
			continue;
		if (m->steppings != X86_STEPPING_ANY &&
		    !(m->steppings & (1U << c->stepping)))
			continue;
		if (m->feature != X86_FEATURE_ANY && !nt_cpu_has(c, m->feature))
			continue;
		return (const struct nt_part *)m->driver_data;
	}
	return NULL;
}

/*
 * nt_decide() of arch/x86/kernel/cpu/nt_quirks.c, without its switches
 * (nt_stores=off, clearcpuid=): CLZERO counts only with 64-byte lines; the
 * first matching entry of nt_parts[], else nt_policy_default(); then
 * nt_policy_fit().
 */
static inline struct nt_harness_decision nt_harness_decide(struct nt_cpu c)
{
	struct nt_harness_decision d = { { NT_CLEAR_PAGES, 0, NT_CLEAR_PAGES, 0 }, NULL };
	const struct nt_part *part;

	if (c.clflush != 64)
		c.clzero = false;
	part = nt_harness_part_of(&c);
	if (part) {
		d.part = part->name;
		d.policy = part->policy;
	} else {
		d.policy = nt_policy_default(c.vendor == X86_VENDOR_INTEL,
					     c.vendor == X86_VENDOR_AMD, c.clzero);
	}
	d.policy = nt_policy_fit(d.policy, c.clzero, c.movdir64b);
	return d;
}

static inline struct nt_harness_decision nt_this_decision(void)
{
	return nt_harness_decide(nt_this_cpu());
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

/* "clear movnti from 32M, copy movnti from 2M (Emerald Rapids)" */
static inline const char *nt_policy_str(const struct nt_harness_decision *d, char *buf, size_t n)
{
	char c[64], p[64], s[24];
	const struct nt_policy *pol = &d->policy;

	if (pol->clear == NT_CLEAR_PAGES)
		snprintf(c, sizeof(c), "clear clear_pages (nothing cold)");
	else
		snprintf(c, sizeof(c), "clear %s from %s", nt_routine_name(pol->clear),
			 nt_size_str(pol->clear_from, s, sizeof(s)));
	if (pol->copy == NT_CLEAR_PAGES)
		snprintf(p, sizeof(p), "copy copy_mc (nothing cold)");
	else
		snprintf(p, sizeof(p), "copy %s from %s", nt_routine_name(pol->copy),
			 nt_size_str(pol->copy_from, s, sizeof(s)));
	snprintf(buf, n, "%s, %s (%s)", c, p, d->part ? d->part : "default rule");
	return buf;
}

#endif /* HARNESS_ROUTINES_H */
