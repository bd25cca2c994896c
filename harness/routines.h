/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the harness programs (clearpage, touch) share: the calls into the
 * tree's clear routines with clear_pages()'s convention and the CPUID
 * checks. Each program includes it once; everything here is static inline.
 */
#ifndef HARNESS_ROUTINES_H
#define HARNESS_ROUTINES_H

#include <cpuid.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The kernel's zero page, the source of the MOVDIR64B probe (cand/probes.S). */
extern const uint8_t empty_zero_page[4096];

/* From the kernel tree: C calling convention. */
unsigned long copy_mc_enhanced_fast_string(void *to, const void *from, unsigned int len);
unsigned long __copy_mc_movnti(void *to, const void *from, unsigned long len);
/* the tree's __copy_mc_movnti(), by the name the tables give it */
#define copy_mc_movnti __copy_mc_movnti

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

/* CLZERO, with the 64-byte line the kernel's CLZERO loop takes (nt_init()). */
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

/*
 * The cold clear the kernel runs on this CPU where its policy clears cold:
 * CLZERO where the CPU has it (with 64-byte lines, as nt_init() asks), MOVNTI
 * otherwise.
 */
static inline const char *nt_cold_clear(void)
{
	return have_clzero() ? "clzero" : "movnti";
}

#endif /* HARNESS_ROUTINES_H */
