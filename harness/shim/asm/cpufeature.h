/*
 * Userspace stand-in for <asm/cpufeature.h>, for the tree's nt_parts.c:
 * cpu_has() on struct cpuinfo_x86, and clear_bit() (<linux/bitops.h>).
 */
#ifndef HARNESS_CPUFEATURE_H
#define HARNESS_CPUFEATURE_H
#include <asm/processor.h>
#include <asm/cpu_device_id.h>

#define cpu_has(c, bit)	(!!((c)->x86_capability[(bit) / 32] & (1U << ((bit) % 32))))

/*
 * The kernel casts x86_capability (u32[]) to unsigned long * and builds with
 * -fno-strict-aliasing; here the word type may alias instead.
 */
typedef unsigned long __attribute__((__may_alias__)) nt_alias_ulong;

static inline void clear_bit(unsigned int nr, unsigned long *addr)
{
	((nt_alias_ulong *)addr)[nr / 64] &= ~(1UL << (nr % 64));
}

static inline void set_bit(unsigned int nr, unsigned long *addr)
{
	((nt_alias_ulong *)addr)[nr / 64] |= 1UL << (nr % 64);
}
#endif
